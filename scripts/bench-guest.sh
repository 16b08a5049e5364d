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

# Context-switch cost of a feature: pipe ping-pong pinned to CPU 1, in
# rounds of 1 s with the feature off and on, the order alternating (ABBA)
# so that drift hits both; median rate of each, slowdown = 1 - on/off.
ctx_rate() { build/host/ctxswitch 1 1 | awk '/^round_trips_per_sec/ {print $2}'; }
ctx_bench() {	# ctx_bench FEATURE ROUNDS
	local f=$1 n=$2 i off=() on=() r
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
mo, mn = statistics.median(off), statistics.median(on)
print(json.dumps({"feature": f, "rounds": len(off), "off_round_trips_per_sec": off,
                  "on_round_trips_per_sec": on, "median_off": mo, "median_on": mn,
                  "slowdown_pct": round(100 * (1 - mn / mo), 2)}))
PY
}
{
	echo "### context switches (pipe ping-pong on CPU 1), feature off vs on, 1 s rounds, ABBA"
	printf "%-12s %14s %14s %10s\n" feature "median_off/s" "median_on/s" slowdown
	for f in signals; do
		ctx_bench $f 6 > "$SCHEDLAB_RESULTS/ctx-$f.json"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%-12s %14.0f %14.0f %9.2f%%" % (d["feature"], d["median_off"], d["median_on"], d["slowdown_pct"]))' "$SCHEDLAB_RESULTS/ctx-$f.json"
	done
} >>"$out" 2>&1
rmmod schedlab
{
	echo "{"
	echo "  \"kernel\": \"$(uname -r)\","
	echo "  \"package_version\": \"$SCHEDLAB_PKGVER\","
	echo "  \"dlparams\": $(cat "$SCHEDLAB_RESULTS/dlparams.json"),"
	echo "  \"ctxswitch\": [$(cat "$SCHEDLAB_RESULTS/ctx-signals.json")]"
	echo "}"
} >"$SCHEDLAB_RESULTS/results.json"
