
@dPh»‚
@dPh‚
@dPh‚c(
@dPh‚d(
@dPh‚x
@dPh‚ x
@»PZHX∫ah
@¨PZHX∫bh
@êPZHXh
@ÙPZHXh
@ÿPZHX∫xh
@ºPZHXh
@¿PZHX∫xh
@ÚPZHX ∫yh
@§PZHXh
@÷PZHX h
@àPZHX ∫zh
@∫PZHX h