
w@
Pç¢o#
/system/lib64/libc.so (deleted)
/system/lib64/libc.so
/system/lib64/libc.so*x0BdPpx	