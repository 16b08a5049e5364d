#!/usr/bin/env bash
# bench.sh [SERIES]: what `make bench` runs, on a stock kernel (default:
# newest 7.x, which has SCHED_GETATTR_FLAG_DL_DYNAMIC). Each benchmark runs
# its cases interleaved in one boot and prints ratios; results go to
# build/bench/results.json. TCG timings are slow and noisy: only ratios
# measured in one boot mean something.
#   boot 1 (2 vCPUs): dlparams, the cost of each way to read the parameters
#   boot 2 (1 vCPU, instruction-counted: see bench-guest.sh; SCHEDLAB_BENCH_CASES
#          picks its cases, e.g. "eevdf eevdf+every"): the
#          context-switch slowdown of each feature, and of the bpftrace
#          observer of mutex waits (scripts/bpftrace/)
#   boot 3 (2 vCPUs, instruction-counted): contended-mutex throughput with
#          blocked_on off vs on, and with the bpftrace observer
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:-7}
cd "$SCHEDLAB_TOP"
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
res=build/bench
rm -rf "$res/dlparams" "$res/ctxswitch" "$res/mutex"
bash scripts/vm-run.sh "$series" "$res/dlparams" scripts/bench-guest.sh dlparams
SCHEDLAB_VM_CPUS=1 SCHEDLAB_VM_QEMU_EXTRA="-icount shift=3,sleep=off" \
	bash scripts/vm-run.sh "$series" "$res/ctxswitch" scripts/bench-guest.sh ctxswitch
SCHEDLAB_VM_QEMU_EXTRA="-icount shift=3,sleep=off" \
	bash scripts/vm-run.sh "$series" "$res/mutex" scripts/bench-guest.sh mutex
. "$(scripts/kernels.sh fetch "$series")/info"
{
	echo "{"
	echo "  \"kernel\": \"$KVER\","
	echo "  \"package_version\": \"$PKGVER\","
	echo "  $(cat "$res/dlparams/part.json"),"
	echo "  $(cat "$res/ctxswitch/part.json"),"
	echo "  $(cat "$res/mutex/part.json")"
	echo "}"
} >"$res/results.json"
python3 -m json.tool "$res/results.json" >/dev/null
cat "$res/dlparams/bench.txt" "$res/ctxswitch/bench.txt" "$res/mutex/bench.txt"
echo "results: build/bench/results.json"
