#!/usr/bin/env bash
# bench-ab.sh SERIES OTHER_TREE [FEATURE]: a benchmark of `make bench` with
# another tree's build of the module (A: OTHER_TREE, e.g. a clone at an
# older commit) against this tree's (B), the two loaded in turn in one
# instruction-counted boot (ABBA pairs of 0.5 s rounds): the way to show
# that a change to a feature's probes does not make them slower. Without
# FEATURE, the contended mutex with blocked_on on (2 vCPUs); with it, the
# context-switch ping-pong with FEATURE on (1 vCPU). Both are built here
# for SERIES. Results: build/bench-ab/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:?SERIES}
other=$(cd "${2:?OTHER_TREE}" && pwd)
cd "$SCHEDLAB_TOP"
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
(cd "$other" && bash scripts/build-module.sh "$series" >/dev/null)
. "$(scripts/kernels.sh fetch "$series")/info"
res=build/bench-ab
rm -rf "$res"
mkdir -p "$res"
cp "$other/build/$KVER/module/schedlab.ko" "$res/a.ko"
echo "$(git -C "$other" log -1 --format=%h 2>/dev/null || echo "$other")" >"$res/a.txt"
if [ -n "${3:-}" ]; then
	SCHEDLAB_BENCH_AB_FEATURE=$3 SCHEDLAB_VM_CPUS=1 SCHEDLAB_VM_QEMU_EXTRA="-icount shift=3,sleep=off" \
		bash scripts/vm-run.sh "$series" "$res/run" scripts/bench-guest.sh ctx-ab
else
	SCHEDLAB_VM_QEMU_EXTRA="-icount shift=3,sleep=off" \
		bash scripts/vm-run.sh "$series" "$res/run" scripts/bench-guest.sh mutex-ab
fi
cat "$res/run/bench.txt"
