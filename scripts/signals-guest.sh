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
uname -r > "$SCHEDLAB_RESULTS/kernel.txt"
# each worker joins the cgroup itself (then execs): only the three are sampled
join="echo \$\$ > $cg/cgroup.procs; exec"
workload() {
	# started together, the busy pair held back by 2 s (-d) so that
	# all three have finished exec before anything runs
	sh -c "$join taskset -c 1 $load -n periodic -d 1000 duty 4 20 4500" &
	sh -c "$join taskset -c 1 $load -n nice0 -d 2500 spin 1500" &
	sh -c "$join taskset -c 1 nice -n 10 $load -n nice10 -d 2500 spin 1500" &
	wait
}
# schedlab run records signals_task and signals_cpu (the parameters above
# kept); the host draws the run directory with schedlab plot
rm -rf /tmp/signals-run
build/host/schedlab run -f signals -o /tmp/signals-run -- \
	bash -c "$(declare -f workload); join='$join' load=$load; workload" >/dev/null
cp -r /tmp/signals-run "$SCHEDLAB_RESULTS/run"
trace-cmd report -i /tmp/signals-run/trace.dat > "$SCHEDLAB_RESULTS/trace.txt" 2>/dev/null
{
	echo "### schedlab signals, reference workload on $(uname -r): last sample of each task"
	for t in periodic nice0 nice10; do
		grep -E "signals_task: +sample .*comm=$t " "$SCHEDLAB_RESULTS/trace.txt" | tail -1 |
			sed -E 's/.*signals_task: +//' || true
	done
} > "$SCHEDLAB_RESULTS/summary.txt"
rmdir $cg
rmmod schedlab
