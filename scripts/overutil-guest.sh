#!/usr/bin/env bash
# The guest half of scripts/overutil-run.sh: overutil-guest.sh WORKLOAD.json [CAPACITIES]
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
wl=$1 caps=${2:-}
sys=/sys/kernel/schedlab/overutil
dbg=/sys/kernel/debug/schedlab/overutil
insmod "$ko"
echo "$caps" > $sys/capacity
echo 1 > $sys/enabled
uname -r > "$SCHEDLAB_RESULTS/kernel.txt"
# This shell, trace-cmd and rt-app's main thread on CPU 0 (the workload's
# threads pin themselves); statistics from 0.5 s in (rt-app's start-up
# excluded) to the workload's end, read at once with shell builtins.
taskset -pc 0 $$ >/dev/null
trace-cmd record -q -o /tmp/trace.dat -e schedlab:overutil >/tmp/trace-cmd.log 2>&1 &
tc=$!
sleep 1
(cd /tmp && exec rt-app "$wl" >/tmp/rt-app.log 2>&1) &
rt=$!
sleep 0.5
echo 1 > $dbg/reset
wait $rt
report=$(<$dbg/report) hist=$(<$dbg/hist) cpus=$(<$dbg/cpus)
kill -INT $tc
wait $tc || true
trace-cmd report -i /tmp/trace.dat > "$SCHEDLAB_RESULTS/trace.txt" 2>/dev/null
{
	echo "### overutil rules side by side: $(basename "$wl") on $(uname -r), capacities: ${caps:-real}"
	echo "$report"
	echo "### episodes by length"
	echo "$hist"
	echo "### CPUs at the end"
	echo "$cpus"
} > "$SCHEDLAB_RESULTS/report.txt"
echo 0 > $sys/enabled
rmmod schedlab
