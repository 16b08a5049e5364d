#!/usr/bin/env bash
# The guest half of scripts/perf-plot.sh: on CPU 1, a task capped with
# uclamp_max 256 runs alone for 1.5 s, then an uncapped small periodic task
# (2 ms every 10 ms) joins it for 1.5 s; schedlab run records perf_cpu every
# 10 ms.
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
insmod "$ko"
uname -r > "$SCHEDLAB_RESULTS/kernel.txt"
echo 10 > /sys/kernel/schedlab/perf/period_ms
cat > /tmp/perf-scenario.py <<'PY'
import ctypes, os, signal, time

def set_uclamp_max(value):
    # struct sched_attr (56 bytes): flags KEEP_POLICY | KEEP_PARAMS | UTIL_CLAMP_MAX
    raw = bytearray(56)
    raw[0:4] = (56).to_bytes(4, "little")
    raw[8:16] = (0x08 | 0x10 | 0x40).to_bytes(8, "little")
    raw[52:56] = value.to_bytes(4, "little")
    buf = ctypes.create_string_buffer(bytes(raw), 56)
    libc = ctypes.CDLL(None, use_errno=True)
    nr = {"x86_64": 314, "aarch64": 274}[os.uname().machine]  # __NR_sched_setattr
    if libc.syscall(nr, 0, buf, 0) != 0:
        os._exit(3)

def task(setup, busy=None, idle=None):
    pid = os.fork()
    if pid:
        return pid
    os.sched_setaffinity(0, {1})
    if setup:
        setup()
    while True:
        if busy is None:
            continue
        end = time.perf_counter() + busy
        while time.perf_counter() < end:
            pass
        time.sleep(idle)

os.sched_setaffinity(0, {0})
capped = task(lambda: set_uclamp_max(256))
time.sleep(1.5)
small = task(None, 0.002, 0.008)
time.sleep(1.5)
for p in (small, capped):
    os.kill(p, signal.SIGKILL)
    os.waitpid(p, 0)
PY
rm -rf /tmp/perf-run
build/host/schedlab run -f perf -o /tmp/perf-run -- python3 /tmp/perf-scenario.py >/dev/null
cp -r /tmp/perf-run "$SCHEDLAB_RESULTS/run"
rmmod schedlab
