#!/usr/bin/env bash
# The guest half of `make bench` (see bench.sh).
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
out=$SCHEDLAB_RESULTS/bench.txt
insmod "$ko"
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

# Context-switch cost of a feature: pipe ping-pong pinned to CPU 1 in short
# rounds, the feature off and on in adjacent rounds (order alternating,
# ABBA); the guest's speed drifts a lot over a boot under emulation, so the
# figure is the median over pairs of on/off of adjacent rounds:
# slowdown = 1 - median(on/off), with its 25th-75th percentile spread.
ctx_rate() { build/host/ctxswitch 0.5 1 | awk '/^round_trips_per_sec/ {print $2}'; }
ctx_bench() {	# ctx_bench FEATURE PAIRS
	local f=$1 n=$2 i off=() on=() r state
	for ((i = 0; i < n; i++)); do
		for state in $(( i % 2 )) $(( 1 - i % 2 )); do
			echo $state > /sys/kernel/schedlab/$f/enabled
			r=$(ctx_rate)
			if [ $state = 1 ]; then on+=("$r"); else off+=("$r"); fi
		done
	done
	echo 0 > /sys/kernel/schedlab/$f/enabled
	python3 - "$f" "${off[*]}" "${on[*]}" <<'PY'
import json, statistics, sys
f, off, on = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
r = sorted(b / a for a, b in zip(off, on))
q = statistics.quantiles(r, n=4)
print(json.dumps({"feature": f, "pairs": len(r), "off_round_trips_per_sec": off,
                  "on_round_trips_per_sec": on, "median_off": statistics.median(off),
                  "median_on": statistics.median(on),
                  "slowdown_pct": round(100 * (1 - statistics.median(r)), 2),
                  "slowdown_p25_p75_pct": [round(100 * (1 - q[2]), 2), round(100 * (1 - q[0]), 2)]}))
PY
}
{
	echo "### context switches (pipe ping-pong on CPU 1), feature off vs on in adjacent 0.5 s rounds (ABBA)"
	printf "%-12s %14s %14s %10s %16s\n" feature "median_off/s" "median_on/s" slowdown "p25..p75"
	for f in dlparams signals; do
		ctx_bench $f 16 > "$SCHEDLAB_RESULTS/ctx-$f.json"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%-12s %14.0f %14.0f %9.2f%% %7.2f..%.2f%%" % (d["feature"], d["median_off"], d["median_on"], d["slowdown_pct"], *d["slowdown_p25_p75_pct"]))' "$SCHEDLAB_RESULTS/ctx-$f.json"
	done
} >>"$out" 2>&1
rmmod schedlab
{
	echo "{"
	echo "  \"kernel\": \"$(uname -r)\","
	echo "  \"package_version\": \"$SCHEDLAB_PKGVER\","
	echo "  \"dlparams\": $(cat "$SCHEDLAB_RESULTS/dlparams.json"),"
	echo "  \"ctxswitch\": [$(cat "$SCHEDLAB_RESULTS"/ctx-*.json | paste -sd,)]"
	echo "}"
} >"$SCHEDLAB_RESULTS/results.json"
