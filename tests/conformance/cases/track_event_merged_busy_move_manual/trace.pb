
@dPh»‚
@dPh‚
@dPh‚c(
@dPh‚d(
@»PZHX∫ah
@¨PZHX∫bh
@êPZHXh
@ÙPZHXh
@ÿPZHX∫xh
@äPZHXh
@îPZHX∫ih
@ºPZHXh
@†PZ	HX∫x2h
@™PZ	HX∫i2h
@“PZHXh