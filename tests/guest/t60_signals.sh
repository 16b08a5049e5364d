# signals: schedlab's per-task signals against the kernel's own, on loads of
# known shape pinned to CPU 1 (tests/guest/signals_check.c):
#  - an always-running task: schedlab's PELT model vs the kernel's util_avg
#    at every kernel PELT update after the first 50 ms (err_max column);
#  - nice 0 and nice 10 sharing CPU 1: the kernel's util_avg splits by
#    weight, util_burst of both rises toward 1024;
#  - a 20% duty task alone: util_burst near its duty, measured from the
#    kernel's own CPU time (/proc/PID/schedstat) over wall time;
#  - a CFS task behind a SCHED_FIFO hog: waiting_avg rises, util_avg falls;
#  - the filters, the events, and nothing left at disable.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

LOADBIN=$HOSTBIN/sl_load
TASKS=$DBG/signals/tasks
# Commands are slow under emulation (an exec takes a good part of a
# second): the timed scenarios run in signals_check; here loads run until
# killed.
stop() { kill "$@" 2>/dev/null; wait "$@" 2>/dev/null; }

load
echo 1 > $SYS/signals/enabled
is "$(cat $SYS/signals/enabled)" 1 "signals enabled"
ok "grep -q '^tracked' $DBG/signals/stats" "debugfs signals/stats present"
# the sampler has no user yet (no event enabled, check_model 0): idle
s0=$(awk '/^samples/ {print $2}' $DBG/signals/stats); sleep 0.6
s1=$(awk '/^samples/ {print $2}' $DBG/signals/stats)
is "$s1" "$s0" "no sample taken without a user of the samples (samples $s0 -> $s1)"
echo 1 > $SYS/signals/check_model
sleep 0.6
ok '[ "$(awk "/^samples/ {print \$2}" $DBG/signals/stats)" -gt "$s1" ]' "check_model=1 starts the sampler"

# --- 1-4. timed scenarios (signals_check.c) ---------------------------------
for sc in always nice duty hog; do
	diag "--- signals_check $sc"
	out=$("$HOSTBIN/signals_check" $sc 2>&1); rc=$?
	tap_lines <<<"$out"
	is "$rc" 0 "signals_check $sc exit status"
done

# --- 5. filters --------------------------------------------------------------
taskset -c 1 "$LOADBIN" -n sl_keep spin 60000 & pk=$!
taskset -c 0 "$LOADBIN" -n sl_other spin 60000 & po=$!
sleep 0.5
echo sl_keep > $SYS/signals/filter_comm
comms=$(awk 'NR > 2 {print $3}' $TASKS | sort -u | tr '\n' ' ')
is "$comms" "sl_keep " "filter_comm=sl_keep shows only sl_keep"
echo > $SYS/signals/filter_comm
echo $po > $SYS/signals/filter_pid
is "$(awk 'NR > 2 {print $1}' $TASKS | tr '\n' ' ')" "$po " "filter_pid shows only that pid"
echo 0 > $SYS/signals/filter_pid
cg=/sys/fs/cgroup/schedlab-sig
mkdir -p $cg
echo $pk > $cg/cgroup.procs
echo "$(stat -c %i $cg)" > $SYS/signals/filter_cgroup
sh -c "echo \$\$ > $cg/cgroup.procs; exec taskset -c 1 $LOADBIN -n sl_incg spin 60000" & pc=$!
# the execs take a while under emulation: until the load has named itself
for i in $(seq 100); do [ "$(cat /proc/$pc/comm 2>/dev/null)" = sl_incg ] && break; sleep 0.1; done
sleep 0.2
is "$(awk 'NR > 2 {print $3}' $TASKS | sort -u | tr '\n' ' ')" "sl_incg sl_keep " "filter_cgroup shows only the tasks in that cgroup (one moved there, one started there)"
echo 0 > $SYS/signals/filter_cgroup
stop $pk $po $pc
rmdir $cg

# --- 6. trace events ---------------------------------------------------------
echo 0 > $TRACING/tracing_on
echo > $TRACING/trace
echo 1 > $TRACING/events/schedlab/signals_task/enable
echo 1 > $TRACING/events/schedlab/signals_cpu/enable
# by default, samples only: no event at the task's dequeues
is "$(<$SYS/signals/dequeue_events)" 0 "dequeue_events is off by default"
echo 1 > $TRACING/tracing_on
taskset -c 1 "$LOADBIN" -n sl_traced duty 5 20 400
echo 0 > $TRACING/tracing_on
nd0=$(grep -c 'signals_task: dequeue pid=[0-9]* comm=sl_traced' $TRACING/trace)
ns0=$(grep -c 'signals_task: sample pid=[0-9]* comm=sl_traced' $TRACING/trace)
ok '[ "$nd0" = 0 ] && [ "$ns0" -ge 5 ]' "dequeue_events=0: sample events ($ns0) and no dequeue event ($nd0)"
echo > $TRACING/trace
echo 1 > $SYS/signals/dequeue_events
echo 1 > $TRACING/tracing_on
taskset -c 1 "$LOADBIN" -n sl_traced duty 5 20 400
echo 0 > $TRACING/tracing_on
echo 0 > $SYS/signals/dequeue_events
echo 0 > $TRACING/events/schedlab/enable
nd=$(grep -c 'signals_task: dequeue pid=[0-9]* comm=sl_traced' $TRACING/trace)
ns=$(grep -c 'signals_task: sample pid=[0-9]* comm=sl_traced' $TRACING/trace)
nc=$(grep -c 'signals_cpu: cpu=1 ' $TRACING/trace)
diag "$(grep -m1 'signals_task: dequeue pid=[0-9]* comm=sl_traced' $TRACING/trace)"
diag "$(grep -m1 'signals_cpu: cpu=1 ' $TRACING/trace)"
ok '[ "$nd" -ge 10 ]' "dequeue_events=1: a dequeue event per period of the traced task ($nd in 400 ms at 20 ms)"
ok '[ "$ns" -ge 5 ] && [ "$nc" -ge 5 ]' "sample events every sample_ms for the task ($ns) and CPU 1 ($nc)"
ok 'grep -q "util_avg=[0-9]* util_est=[-0-9]* model=[0-9]* util_burst=[0-9]* waiting_avg=[0-9]* time_util=[0-9]*" $TRACING/trace' \
	"one event carries all signals side by side"
echo > $TRACING/trace

# --- 7. per CPU and teardown ---------------------------------------------------
diag "$(cat $DBG/signals/cpus)"
ok '[ "$(awk "\$1 == 1 {print \$9}" $DBG/signals/cpus)" -ge 1 ]' "cpus table counts tasks on CPU 1"
is "$($SYSFS_WRITE $SYS/signals/max_tasks 64)" EBUSY "max_tasks cannot change while enabled (EBUSY)"
cat $DBG/signals/stats | sed 's/^/# /'
is "$(awk '/^dropped/ {print $2}' $DBG/signals/stats)" 0 "no task dropped for lack of room"
echo 0 > $SYS/signals/enabled
is "$(awk 'NR > 2' $TASKS | wc -l)" 0 "nothing tracked once disabled"

# --- 8. enabled under load, sleeps at the dequeue ------------------------------
# Threads that only sleep (nanosleep: no mutex, so never a donor left
# queued, with proxy execution or without) while signals is enabled and
# disabled again and again: every blocked switch-out comes after a dequeue
# the probe saw, so no queued block is counted. (The dequeue probe used to
# be attached after the switch probe: a task switched in and blocked
# between the two was taken for a blocked task left queued, WAITING for
# its whole sleep; one in the CI run on 2220378.)
if grep -q 'tracepoint:sched_dequeue_task_tp *yes' $DBG/status; then
	echo 1 > $SYS/signals/sleep_source
	$LOADBIN -n sl_sleepers threads 16 1 600000 >/tmp/sleepers.out & sl=$!
	qb=0 n=0 deq=0
	for _ in $(seq 12); do
		echo 1 > $SYS/signals/enabled
		sleep 0.2
		st=$(<$DBG/signals/stats)
		echo 0 > $SYS/signals/enabled
		[[ $st =~ (^|$'\n')queued_blocks\ +([0-9]+) ]] && qb=$((qb + BASH_REMATCH[2])) && n=$((n + 1))
		[[ $st =~ (^|$'\n')sleeps_at_dequeue\ +([0-9]+) ]] && deq=$((deq + BASH_REMATCH[2]))
	done
	stop $sl
	ok "[ $n = 12 ] && [ $deq -ge 100 ] && [ $qb = 0 ]" \
		"enabled 12 times beside 16 sleeping threads: $deq sleeps begun at their dequeue, $qb queued blocks (0: every dequeue seen)"
else
	skip "enabled under load" "no sched_dequeue_task_tp in this kernel: sleeps begin at sched_switch, no queued block to count"
fi
is "$($SYSFS_WRITE $SYS/signals/max_tasks 64)" ok "max_tasks accepted while disabled"
echo 2048 > $SYS/signals/max_tasks
unload
ok '! loaded' "unloaded"
done_testing
