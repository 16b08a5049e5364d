#!/usr/bin/env python3
"""pty_writers.py N PIDFILE

Real contention on a kernel mutex from ordinary syscalls, with tasks that
can be killed in the middle of it: N processes write to one pseudo-terminal
that nobody reads (raw mode). The first to fill it blocks inside write() holding the
tty's atomic_write_lock (a struct mutex, tty_write_lock()); the others wait
for that mutex in mutex_lock_interruptible(). SIGKILL ends a waiter's wait
with -EINTR, and makes the owner give the mutex up and exit.

Writes the writers' pids, in the order they were started, to PIDFILE, then
waits for them (the test kills them).
"""
import os
import sys
import time
import tty

n, pidfile = int(sys.argv[1]), sys.argv[2]
master, slave = os.openpty()
# raw: in canonical mode a full line buffer drops input instead of blocking
tty.setraw(slave)
pids = []
for i in range(n):
    pid = os.fork()
    if pid == 0:
        buf = b"x" * 65536
        while True:
            os.write(master, buf)
    pids.append(pid)
    time.sleep(0.3)  # the first blocks, holding the mutex, before the next comes
with open(pidfile + ".tmp", "w") as f:
    f.write(" ".join(map(str, pids)) + "\n")
os.rename(pidfile + ".tmp", pidfile)
for pid in pids:
    os.waitpid(pid, 0)
