
@(PZHPX
bA0h
@-Pâ
"*t1
@.PZHPX
bG
@2PbABÈ
@dPZHPX
h
@ÈPZHX
h
@¬PZHPX
bDhÐ
@¦PZHPX
bE
@°PZHPX

@ØPZHPX
bChÐ
@¼PZHPX
h