
@(Ph‚
"
@†çPZ2XdX
∫X1h
@ì	PZ2XdX
∫X2h
@Ä‚	PZHX
∫Bh
@ê∞
PZ2XdX
∫X3h
@†˛
PZHX
h