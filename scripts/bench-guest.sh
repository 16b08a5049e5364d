#!/usr/bin/env bash
# The guest half of `make bench` (see bench.sh): bench-guest.sh dlparams|ctxswitch
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
part=${1:?dlparams or ctxswitch}
out=$SCHEDLAB_RESULTS/bench.txt
insmod "$ko"
if [ "$part" = dlparams ]; then
	echo 1 > /sys/kernel/schedlab/dlparams/enabled
	cg=/sys/fs/cgroup/schedlab-bench
	echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $cg
	echo 1 > $cg/cpuset.cpus
	echo root > $cg/cpuset.cpus.partition
	{
		echo "### $(uname -r) (Debian $SCHEDLAB_PKGVER), one boot"
		echo "### dlparams: cost per call of each way to get the leftover runtime and deadline"
		DLPARAMS_CGROUP=$cg build/host/dlparams_bench "$SCHEDLAB_RESULTS/dlparams.json" 41
	} >"$out" 2>&1
	rmdir $cg
	echo 0 > /sys/kernel/schedlab/dlparams/enabled
	rmmod schedlab
	echo "\"dlparams\": $(cat "$SCHEDLAB_RESULTS/dlparams.json")" >"$SCHEDLAB_RESULTS/part.json"
	exit 0
fi

# Context-switch cost of a feature: pipe ping-pong in short rounds, the
# feature off and on in adjacent rounds (order alternating, ABBA), after two
# pairs of warm-up. bench.sh boots this part with one vCPU under QEMU's
# instruction counting (-icount): guest time then advances with the
# instructions executed, so a round's rate measures the instructions a
# round trip costs, free of the host's timing noise (which, under plain
# TCG, moves rates by a factor of two). slowdown = 1 - median over pairs of
# on/off, with the 25th-75th percentile spread.
ctx_rate() { build/host/ctxswitch 0.5 0 | awk '/^round_trips_per_sec/ {print $2}'; }
TRACING=/sys/kernel/tracing
ctx_set() {	# ctx_set CASE 0|1
	case $1 in
	signals+trace)
		echo "$2" > $TRACING/events/schedlab/signals_task/enable
		echo "$2" > $TRACING/events/schedlab/signals_cpu/enable
		echo "$2" > /sys/kernel/schedlab/signals/enabled ;;
	*)	echo "$2" > "/sys/kernel/schedlab/$1/enabled" ;;
	esac
	sleep 0.2	# let the toggle's own work (RCU, text patching) settle
}
ctx_bench() {	# ctx_bench CASE PAIRS
	local c=$1 n=$2 i off=() on=() r state
	for ((i = -2; i < n; i++)); do
		for state in $(( (i + 2) % 2 )) $(( 1 - (i + 2) % 2 )); do
			ctx_set "$c" $state
			r=$(ctx_rate)
			[ $i -ge 0 ] || continue
			if [ $state = 1 ]; then on+=("$r"); else off+=("$r"); fi
		done
	done
	ctx_set "$c" 0
	python3 - "$c" "${off[*]}" "${on[*]}" <<'PY'
import json, statistics, sys
f, off, on = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
r = sorted(b / a for a, b in zip(off, on))
q = statistics.quantiles(r, n=4)
print(json.dumps({"feature": f, "pairs": len(r), "clock": "icount (instructions)",
                  "off_round_trips_per_sec": off, "on_round_trips_per_sec": on,
                  "median_off": statistics.median(off), "median_on": statistics.median(on),
                  "slowdown_pct": round(100 * (1 - statistics.median(r)), 2),
                  "slowdown_p25_p75_pct": [round(100 * (1 - q[2]), 2), round(100 * (1 - q[0]), 2)]}))
PY
}
build/host/ctxswitch 2 0 >/dev/null	# warm the translation cache
{
	echo "### context switches (pipe ping-pong, 1 vCPU, instruction-counted guest), feature off vs on in adjacent 0.5 s rounds (ABBA)"
	printf "%-15s %14s %14s %10s %16s\n" feature "median_off/s" "median_on/s" slowdown "p25..p75"
	for c in dlparams signals signals+trace overutil blocked_on; do
		ctx_bench $c 10 > "$SCHEDLAB_RESULTS/ctx-$c.json"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%-15s %14.0f %14.0f %9.2f%% %7.2f..%.2f%%" % (d["feature"], d["median_off"], d["median_on"], d["slowdown_pct"], *d["slowdown_p25_p75_pct"]))' "$SCHEDLAB_RESULTS/ctx-$c.json"
	done
	echo "# signals+trace: signals with its schedlab:signals_task/signals_cpu events recorded (sampler every sample_ms)"
} >"$out" 2>&1
rmmod schedlab
echo "\"ctxswitch\": [$(cat "$SCHEDLAB_RESULTS"/ctx-*.json | paste -sd,)]" >"$SCHEDLAB_RESULTS/part.json"
