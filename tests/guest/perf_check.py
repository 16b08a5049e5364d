#!/usr/bin/env python3
# perf_check.py PELT_CLI CPU: the guest checks of the perf feature
# (tests/guest/t62_perf.sh), in one process (a program start costs about
# a second under emulation). Reads /sys/kernel/debug/schedlab/perf/cpus.json
# from CPU 0 (and once from CPU itself: the reader's own CPU is read from
# another while it sleeps, self=0), the workloads run pinned to CPU. Prints "ok - ..." / "not ok - ..." / "# ..."
# lines (tests/lib/tap.sh's tap_lines numbers them).
#
#  1. ramp: an always-running task starts on CPU; while its util ramps,
#     every sample's eff_util (schedlab's mirror of effective_cpu_util) is
#     within 1% of kernel_util (the kernel's own sched_cpu_util(), called in
#     the same sample); max_util/max_perf/max_khz agree with the kernel's
#     formulas recomputed here from the reported inputs; time_perf agrees
#     with the PELT core (tools/pelt util-after) for several utils.
#  2. uclamp (where the report says uclamp): an always-running task capped
#     with sched_setattr(uclamp_max = 256), alone: max aggregation requests
#     the cap, sum aggregation about the clamped util; then an uncapped
#     small periodic task joins on the same CPU: while it is enqueued max
#     aggregation requests the top, sum aggregation stays near the clamped
#     sum. Between the two, read from CPU itself: rq uclamp_max is still
#     the cap (the reader, sleeping while its CPU is read, is not counted).
import ctypes
import json
import re
import os
import signal
import subprocess
import sys
import time

REPORT = os.environ.get("PERF_REPORT", "/sys/kernel/debug/schedlab/perf/cpus.json")
PELT, CPU = sys.argv[1], int(sys.argv[2])
CAPPED = 256
failures = 0


def tap(cond, desc):
    global failures
    print(("ok - " if cond else "not ok - ") + desc, flush=True)
    failures += not cond


def diag(msg):
    print("# " + msg, flush=True)


def read():
    with open(REPORT) as f:
        d = json.load(f)
    cols = d["columns"]
    return d, [dict(zip(cols, r)) for r in d["rows"]]


def row_of(rows, cpu):
    return next(r for r in rows if r["cpu"] == cpu)


def effective(r, cfs, rq_min, rq_max):
    """effective_cpu_util() (7.x), from the reported inputs"""
    cap, irq = r["cap"], r["irq"]
    if irq >= cap:
        return cap, cap, cap
    lo = max(irq + r["bw_dl"], rq_min)
    util = cfs + r["rt"] + r["dl"]
    hi = min(cap, rq_max)
    if util >= cap:
        return cap, lo, hi
    util = util * (cap - irq) // cap + irq
    return min(cap, util), lo, hi


def request(actual, lo, hi):
    return max(lo, min(actual, hi))


def freq(perf, cap, fmax, opps):
    raw = fmax * perf // cap
    if not opps:
        return raw
    for i in range(1, opps + 1):
        if fmax * i // opps >= raw:
            return fmax * i // opps
    return fmax


def spinner(setup=None, busy=None, idle=None):
    pid = os.fork()
    if pid:
        return pid
    os.sched_setaffinity(0, {CPU})
    if setup:
        setup()
    if busy is None:
        while True:
            pass
    while True:
        end = time.perf_counter() + busy
        while time.perf_counter() < end:
            pass
        time.sleep(idle)


def stop(pid):
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


# __NR_sched_setattr by machine (asm/unistd_64.h; arm64's generic table)
NR_SCHED_SETATTR = {"x86_64": 314, "aarch64": 274}[os.uname().machine]


def set_uclamp_max(value):
    """sched_setattr(0, {UTIL_CLAMP_MAX = value}), policy and params kept"""
    # struct sched_attr: size, policy, flags, nice, priority, runtime,
    # deadline, period, util_min, util_max
    attr = (ctypes.c_uint32 * 14)()
    raw = bytearray(56)
    flags = 0x08 | 0x10 | 0x40  # KEEP_POLICY | KEEP_PARAMS | UTIL_CLAMP_MAX
    raw[0:4] = (56).to_bytes(4, "little")
    raw[8:16] = flags.to_bytes(8, "little")
    raw[52:56] = value.to_bytes(4, "little")
    ctypes.memmove(attr, bytes(raw), 56)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(NR_SCHED_SETATTR, 0, attr, 0) != 0:
        os._exit(3)


os.sched_setaffinity(0, {0})
doc, rows = read()
meta = doc["meta"]
diag("meta: " + json.dumps(meta))
opps, fmax = meta["nr_opps"], meta["max_freq_khz"]
window_ms = meta["window_us"] / 1000.0

# --- 1. the kernel's policy during a ramp -----------------------------------
# The ramp starts from an idle CPU: a load left by the test before takes
# a few hundred ms to decay (make check on b31bbd4, 6.12: max_util 1023
# at the first sample, 1023 and 1024 the only values, no ramp to compare).
t_idle = time.monotonic() + 5.0
start_util = None
while time.monotonic() < t_idle:
    _, rows = read()
    start_util = [r["max_util"] for r in rows if r["cpu"] == CPU]
    if start_util and start_util[0] < 100:
        break
    time.sleep(0.1)
diag("cpu %d's max_util before the ramp: %s" % (CPU, start_util))
pid = spinner()
samples = []
t_end = time.monotonic() + 2.0
while time.monotonic() < t_end:
    _, rows = read()
    samples.append(rows)
    time.sleep(0.02)
stop(pid)
flat = [r for rows in samples for r in rows]
ref = [r for r in flat if r["kernel_util"] is not None]
if not ref:
    tap(False, "kernel_util present (sched_cpu_util callable): " + str(meta.get("kernel_util")))
else:
    diffs = [abs(r["eff_util"] - r["kernel_util"]) for r in ref]
    close = sum(d <= 10 for d in diffs)
    loaded = [r["kernel_util"] for r in ref if r["cpu"] == CPU]
    diag("eff_util - kernel_util: %d rows, %d within 10 (1%% of 1024), largest %d; cpu %d kernel_util %d..%d"
         % (len(diffs), close, max(diffs), CPU, min(loaded), max(loaded)))
    tap(close >= 0.95 * len(diffs),
        "eff_util within 1%% of the kernel's sched_cpu_util() in %d of %d samples" % (close, len(diffs)))
    tap(max(loaded) - min(loaded) >= 200,
        "the ramp is seen: cpu %d's kernel util from %d to %d" % (CPU, min(loaded), max(loaded)))
bad = []
for r in flat:
    cfs = min(r["cap"], max(r["util_avg"], r["runnable"], r["util_est"]))
    rq_min = r["rq_umin"] if r["rq_umin"] is not None else 0
    rq_max = r["rq_umax"] if r["rq_umax"] is not None else 1024
    u, lo, hi = effective(r, cfs, rq_min, rq_max)
    perf = request(u + u // 4, lo, hi)
    if (u, lo, hi, perf, freq(perf, r["cap"], fmax, opps)) != \
       (r["max_util"], r["max_min"], r["max_max"], r["max_perf"], r["max_khz"]):
        bad.append(r)
tap(not bad, "max policy: util, bounds, perf (1.25 headroom) and kHz recomputed from the inputs of %d rows (%d differ)"
    % (len(flat), len(bad)))
for r in bad[:3]:
    diag("differs: " + json.dumps(r))
# the time-based headroom against the PELT core, at a few utils of the ramp
ramp = sorted({r["max_util"] for r in flat if r["cpu"] == CPU})
diag("cpu %d: max_min %s, bw_dl %s (6.12+: the fair server's reservation)"
     % (CPU, sorted({r["max_min"] for r in flat if r["cpu"] == CPU}),
        sorted({r["bw_dl"] for r in flat if r["cpu"] == CPU})))
picks = sorted({ramp[i * (len(ramp) - 1) // 4] for i in range(5)}) if ramp else []
pelt = {}
for u in picks:
    pelt[u] = int(subprocess.run([PELT, "util-after", str(u), "%.3f" % window_ms],
                                 capture_output=True, text=True, check=True).stdout)
bad = [r for r in flat if r["max_util"] in pelt and
       (r["time_perf"] != request(pelt[r["max_util"]], r["max_min"], r["max_max"]) or
        r["time_khz"] != freq(r["time_perf"], r["cap"], fmax, opps))]
tap(len(pelt) >= 2 and any(pelt[u] > u for u in pelt) and not bad,
    "time policy: perf == bounded pelt util-after(max_util, %.3f ms) for utils %s (%d rows differ)"
    % (window_ms, ",".join("%d->%d" % kv for kv in sorted(pelt.items())), len(bad)))

# --- 2. max vs sum aggregation under uclamp ---------------------------------
if not meta["uclamp"]:
    print("ok - uclamp scenario # SKIP no uclamp in this kernel (meta uclamp false)")
    nulls = all(r[c] is None for r in flat for c in ("rq_umin", "rq_umax", "sum_tasks", "sum_util", "sum_perf"))
    tap(nulls, "no uclamp: the uclamp and sum columns are null in every row")
    sys.exit(1 if failures else 0)


def task_util(pid):
    """a task's own util_avg and util_est, as the kernel shows them in
    /proc/PID/sched (None, 0 if it cannot be read)"""
    try:
        with open("/proc/%d/sched" % pid) as f:
            txt = f.read()
        util = int(re.search(r"se\.avg\.util_avg\s*:\s*(\d+)", txt).group(1))
        m = re.search(r"se\.avg\.util_est(?:\.enqueued)?\s*:\s*(\d+)", txt)
        return util, (int(m.group(1)) & 0x7fffffff if m else 0)
    except (OSError, AttributeError):
        return None, 0


def sum_util_of(r):
    """the sum policy's util: the clamped sum as the CFS part, then the
    RT, DL and IRQ parts as effective_cpu_util() adds them (no rq clamps)"""
    cfs = min(r["cap"], max(0, r["util_avg"] + r["sum_bias"], r["sum_est"]))
    return effective(r, cfs, 0, 1024)[0]


capped = spinner(setup=lambda: set_uclamp_max(CAPPED))
time.sleep(1.5)
tap(os.waitpid(capped, os.WNOHANG) == (0, 0),
    "sched_setattr(uclamp_max %d) accepted: the capped task runs" % CAPPED)
alone = []
for _ in range(20):
    _, rows = read()
    r = row_of(rows, CPU)
    # the capped task's own util, right after: the rest of the CPU's util
    # (what tasks that ran there lately, a kworker, left behind in it)
    # is util_avg minus that; the sum policy counts it unclamped
    r["capped_util"] = task_util(capped)[0]
    r["others"] = max(0, r["util_avg"] - r["capped_util"]) if r["capped_util"] is not None else 0
    alone.append(r)
    time.sleep(0.02)
# read from the capped task's own CPU: that row is read from another CPU
# while the reader sleeps, so the reader's default clamps do not count
os.sched_setaffinity(0, {CPU})
own = []
for _ in range(20):
    _, rows = read()
    own.append(row_of(rows, CPU))
    time.sleep(0.02)
os.sched_setaffinity(0, {0})
small = spinner(busy=0.002, idle=0.010)
time.sleep(1.0)
joined = []
for _ in range(60):
    _, rows = read()
    r = row_of(rows, CPU)
    # the small task's own signals (/proc/PID/sched, the kernel's), right after
    r["small_util"], r["small_est"] = task_util(small)
    joined.append(r)
    time.sleep(0.013)
stop(small)
stop(capped)

quiet = [r for r in alone if r["rq_umax"] == CAPPED]
diag("alone: %d of %d samples with rq uclamp_max %d; max_perf %s; sum_util %s; util_avg %s"
     % (len(quiet), len(alone), CAPPED, sorted({r["max_perf"] for r in alone}),
        sorted({r["sum_util"] for r in alone}), sorted({r["util_avg"] for r in alone})))
tap(len(quiet) >= len(alone) // 2 and all(r["max_perf"] <= CAPPED for r in quiet) and
    min(r["util_avg"] for r in quiet) > CAPPED + 200,
    "capped task alone: rq uclamp_max %d, util above it, max aggregation requests at most the cap" % CAPPED)
# the sum policy adds the capped task at its clamp, and the rest of the
# CPU's util as it is: a sample taken just after a kworker ran there shows
# that kworker's util on top (410 once, with 256 + 154 left by others)
near = [r for r in quiet if abs(r["sum_util"] - CAPPED) <= 40]
over = [r for r in quiet if r not in near]
if over:
    diag("alone, beyond 40 of the clamp (sum_util, util_avg, the capped task's own util, the rest): %s" % " ".join(
        "(%d,%d,%s,%d)" % (r["sum_util"], r["util_avg"], r["capped_util"], r["others"]) for r in over))
tap(quiet and len(near) >= len(quiet) // 2 and
    all(r["capped_util"] is not None and CAPPED - 40 <= r["sum_util"] <= CAPPED + 40 + r["others"] and
        r["sum_perf"] <= (CAPPED + 40 + r["others"]) * 5 // 4 for r in quiet),
    "capped task alone: sum aggregation's util within 40 of the clamp %d (in %d of %d samples; the others within 40 "
    "+ the rest of the CPU's util), perf at most 1.25 times that" % (CAPPED, len(near), len(quiet)))
mine = [r for r in own if r["rq_umax"] == CAPPED]
diag("read from cpu %d itself: rq uclamp_max %s, self %s"
     % (CPU, [r["rq_umax"] for r in own], sorted({r["self"] for r in own})))
tap(len(mine) >= len(own) // 2 and all(r["self"] == 0 for r in own),
    "read from the capped task's own CPU: rq uclamp_max %d in %d of %d reads, self 0 (the reader not counted)"
    % (CAPPED, len(mine), len(own)))
both = [r for r in joined if r["rq_umax"] == 1024 and r["sum_tasks"] >= 2 and r["small_util"] is not None]
diag("joined: %d of %d samples with both enqueued; (max_perf, util_avg, sum_tasks, sum_bias, sum_est, sum_util, sum_perf, small task util/util_est): %s"
     % (len(both), len(joined), " ".join("(%d,%d,%d,%d,%d,%d,%d,%d/%d)" % (
         r["max_perf"], r["util_avg"], r["sum_tasks"], r["sum_bias"], r["sum_est"],
         r["sum_util"], r["sum_perf"], r["small_util"], r["small_est"]) for r in both)))
tap(len(both) >= 3 and all(r["max_perf"] >= 1000 for r in both),
    "small uncapped task enqueued (%d samples): max aggregation requests the top (>= 1000)" % len(both))
# the clamped sum: the capped task counts at most 256, the small one its own
# util (or util_est), as /proc/PID/sched shows them; 60 for the rest of the
# CPU's util (blocked tasks, kernel threads)
tap(both and all(r["sum_util"] <= CAPPED + max(r["small_util"], r["small_est"]) + 60 and
                 r["sum_util"] >= CAPPED - 40 for r in both),
    "small uncapped task enqueued: sum aggregation's util stays within the clamped sum (256 + the small task's util or util_est, + 60)")
odd = [r for r in alone + joined if r["sum_util"] != sum_util_of(r)]
if odd:
    diag("sum util differs in %d rows (cap, util_avg, sum_bias, sum_est, rt, dl, irq, sum_util): %s" % (len(odd), " ".join(
        "(%d,%d,%d,%d,%d,%d,%d,%d)" % (r["cap"], r["util_avg"], r["sum_bias"], r["sum_est"], r["rt"], r["dl"], r["irq"],
                                       r["sum_util"]) for r in odd[:8])))
parts = sum(1 for r in alone + joined if r["rt"] or r["dl"] or r["irq"])
tap(not odd, "sum util == effective(min(cap, max(util_avg + sum_bias, sum_est))) in every sample (%d of %d with rt, dl or irq parts)"
    % (parts, len(alone + joined)))
sys.exit(1 if failures else 0)
