#!/usr/bin/env bash
# The guest half of scripts/signals-plot.sh: the reference workload, in a
# cgroup that schedlab's signals feature is filtered to.
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
load=build/host/sl_load
sys=/sys/kernel/schedlab/signals
insmod "$ko"
cg=/sys/fs/cgroup/schedlab-ref
mkdir -p $cg
stat -c %i $cg > $sys/filter_cgroup
echo 10 > $sys/sample_ms
echo 1 > $sys/enabled
uname -r > "$SCHEDLAB_RESULTS/kernel.txt"
workload() {
	echo $BASHPID > $cg/cgroup.procs
	# started together, the busy pair held back by 2 s (-d) so that
	# all three have finished exec before anything runs
	taskset -c 1 $load -n periodic -d 1000 duty 4 20 4500 &
	taskset -c 1 $load -n nice0 -d 2500 spin 1500 &
	taskset -c 1 nice -n 10 $load -n nice10 -d 2500 spin 1500 &
	wait
}
trace-cmd record -q -o /tmp/trace.dat -e schedlab:signals_task -e schedlab:signals_cpu \
	bash -c "$(declare -f workload); cg=$cg load=$load; workload" >/dev/null
trace-cmd report -i /tmp/trace.dat > "$SCHEDLAB_RESULTS/trace.txt" 2>/dev/null
{
	echo "### schedlab signals, reference workload on $(uname -r): last sample of each task"
	for t in periodic nice0 nice10; do
		grep -E "signals_task: +sample .*comm=$t " "$SCHEDLAB_RESULTS/trace.txt" | tail -1 |
			sed -E 's/.*signals_task: +//' || true
	done
} > "$SCHEDLAB_RESULTS/summary.txt"
echo 0 > $sys/enabled
rmdir $cg
rmmod schedlab
