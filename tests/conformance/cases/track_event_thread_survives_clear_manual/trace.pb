
@–Phâ"*t2
@ÈPZHº
after_desch
@ŞPh
@PZHºafter_clear2h
@ÂPĞ
@ôPZHº
after_loss
@¦PhÚZX
@ØPh
 @ŠPZHºdefaults_after_clear
@”PâT30