
@dPÈâõ2
@dPâÿ"23(õ
@dPâˆchild(õ
@dPâ’global
@nPZ2XXõº	legX_proc
@xPZHXõº
typed_proc
@‚PZ2IXˆº
legI_child
@ŒPZ2XX’ºlegX_global
@–PZ2XXÿºlegX_thread
"@ PZ" RaHXˆºtypedB_child
@ªPZHXˆ
@´PZ2BXˆº
legB_child
@¾PZ2EXˆº
legB_child
@ÈPZHX’ºtyped_global
@ÒPZHXÿºtyped_thread
)@ÜPZ"" Rz" RbHXˆºtyped_child2
@æPÈâ¡"<=(õ
@ðPZHXˆºother_proc_seq