#!/usr/bin/env python3
"""load_module.py KO [PARAMS...]: load a module with finit_module(2) and
print "ok" or the errno name the kernel returned (insmod only prints a
message, this gives the exact error for tests)."""
import ctypes
import errno
import os
import sys

# finit_module's number: x86_64's own table, the generic one elsewhere
# (arm64, riscv64)
SYS_finit_module = {"x86_64": 313}.get(os.uname().machine, 273)
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY)
params = " ".join(sys.argv[2:]).encode()
r = libc.syscall(SYS_finit_module, fd, ctypes.c_char_p(params), 0)
os.close(fd)
if r == 0:
    print("ok")
else:
    e = ctypes.get_errno()
    print(errno.errorcode.get(e, str(e)))
