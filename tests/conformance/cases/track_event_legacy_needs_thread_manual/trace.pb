
@2Ph
@dPZ2IpXMº	thr_scopeh
@nPZ2IXMºunspec_scopeh
@xPZ2IpXMº
proc_scopeh
@‚PZ2IpXMº
glob_scopeh
@ŒPZ
2BXMºBh
@–PZ
2EXMºEh
@ PZ2XXMºXh
@ªPZ2iXMº	noscope_ih
@´PZHXMºtypedh
@(Phân"
@)Phâx
@*Phâ‚glob30
@+PhâŒchild40(x
@dPZ2IpXnº
u10_73_100h
@nPZ2IpXnº
u10_73_110h
@xPZ2XXnº
u10_88_120h
@‚PZ2BXnº
u10_66_130h
@ŒPZ2IpXxº
u20_73_140h
@–PZ2IpXxº
u20_73_150h
@ PZ2XXxº
u20_88_160h
@ªPZ2BXxº
u20_66_170h
@´PZ2IpX‚º
u30_73_180h
@¾PZ2IpX‚º
u30_73_190h
@ÈPZ2XX‚º
u30_88_200h
@ÒPZ2BX‚º
u30_66_210h
@ÜPZ2IpXŒº
u40_73_220h
@æPZ2IpXŒº
u40_73_230h
@ðPZ2XXŒº
u40_88_240h
@úPZ2BXŒº
u40_66_250h
@(Ph
@dPZ2Ipºn_73_100h
@nPZ2Ipºn_73_110h
@xPZ2Xºn_88_120h
@‚PZ2Bºn_66_130h
@(Phâ
@ŒPZ2Ipº	td_73_140h
@–PZ2Ipº	td_73_150h
@ PZ2Xº	td_88_160h
@ªPZ2Bº	td_66_170h