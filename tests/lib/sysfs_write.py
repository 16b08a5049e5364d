#!/usr/bin/env python3
"""sysfs_write.py PATH VALUE...: write each VALUE (one write() call each,
exactly those bytes, so the empty string is a real zero-length write) to
PATH and print one line per value: "ok" or the errno name, e.g. "EINVAL".
VALUE may be @N to mean N bytes of '9'."""
import errno
import os
import sys

path = sys.argv[1]
for v in sys.argv[2:]:
    data = (b"9" * int(v[1:])) if v.startswith("@") else v.encode()
    fd = -1
    try:
        fd = os.open(path, os.O_WRONLY)
        os.write(fd, data)
        print("ok")
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
    finally:
        if fd >= 0:
            os.close(fd)
