#!/usr/bin/env bash
# demo-doc.sh [SERIES]: regenerate docs/demo.md, the worked example, from a
# `make demo` run (scripts/demo.sh) on SERIES (default: the default kernel).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:-$SCHEDLAB_SERIES_DEFAULT}
cd "$SCHEDLAB_TOP"
tx=$(bash scripts/demo.sh "$series")
{
	cat <<'HEAD'
# The tour: `make demo`

`make demo` boots a stock Debian kernel in QEMU, loads schedlab and visits
each experiment with the `schedlab` command: a few seconds of workload,
the report that matters, and lines marked `>` that say what to look at.
It takes about a minute and a half with the kernel cached (most of it the
boot and the six workloads); `make demo KERNEL=6.1` (or `7`, `lab-debug`)
tours another kernel. The suite of every stock kernel in `make check` runs the same tour
(`tests/guest/t95_demo.sh`) and checks what each stop shows.

Below is a run on the default kernel, as printed (`scripts/demo-doc.sh`
regenerates this page). The guest is emulated (TCG, 2 vCPUs): the
numbers are those of a slow machine, their relations are the point.

- **1. blocked_on**: the priority inversion proxy execution removes,
  from two renames of one filesystem (`docs/blocked_on.md`, "the rename
  inversion"). The fg renamer's waits are spent behind an owner that is
  `preempted`; the worst waits are inversions by cgroup weight with their
  chain at the longest stall.
- **2. signals**: PELT's `util_avg` against `util_burst` for two tasks
  sharing a CPU (`docs/signals.md`).
- **3. dlparams**: a SCHED_DEADLINE control loop refining its result for
  as long as its leftover runtime allows (`docs/dlparams.md`,
  `tools/examples/dl_control_loop.c`).
- **4. overutil**: six overutilized rules on one bursty load over an
  emulated big.LITTLE pair (`docs/overutil.md`).
- **5. eevdf**: the EEVDF invariants checked at every context switch
  under a nice mix, then mutation mode: the verifier catches a perturbed
  copy of one value (`docs/eevdf.md`).
- **6. perf**: the performance request per CPU, the kernel's max
  aggregation and 1.25 headroom beside time-based headroom and uclamp sum
  aggregation (`docs/perf.md`); on a kernel without uclamp (6.12, below)
  the headroom columns and the kernel's own `sched_cpu_util()`;
  `make demo KERNEL=7` shows a capped task joined by an uncapped one.

```
HEAD
	printf '%s\n' "$tx"
	echo '```'
} >docs/demo.md
echo "docs/demo.md: $(wc -l <docs/demo.md) lines" >&2
