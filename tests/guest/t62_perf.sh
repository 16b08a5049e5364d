# perf: what each frequency policy would request per CPU (docs/perf.md).
#  - the report in both forms: every column, "-"/null exactly where this
#    kernel has no uclamp, the meta facts;
#  - tests/guest/perf_check.py (one program start): on a ramping
#    always-running task, schedlab's mirror of effective_cpu_util() within
#    1% of the kernel's own sched_cpu_util() in the same sample, the max
#    policy recomputed from the reported inputs, the time-based headroom
#    against the PELT core (tools/pelt); with uclamp, a task capped at 256
#    then joined by an uncapped small one: max aggregation jumps to the top
#    while sum aggregation stays near the clamped sum;
#  - the schedlab:perf_cpu event, one per online CPU and period, with the
#    same columns; live parameters (max_freq_khz, nr_opps) change the
#    frequencies; nothing left at disable.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

PF=$SYS/perf
REP=$DBG/perf/cpus
taskset -pc 0 $$ >/dev/null
last=$(sed 's/.*-//' /sys/devices/system/cpu/online)
load
is "$(cat $PF/available)" 1 "perf is available"

# --- the report -----------------------------------------------------------------
rep=$(<"$REP")
hdr=$(grep -v '^#' <<<"$rep" | head -1)
is "$(wc -w <<<"$hdr")" 30 "cpus: 30 columns"
is "$(grep -vc '^#' <<<"$rep")" "$((last + 2))" "cpus: a header and one row per online CPU"
uclamp=
json=$(<"$REP.json")
[[ $json =~ \"uclamp\":(true|false) ]] && uclamp=${BASH_REMATCH[1]}
ok '[ -n "$uclamp" ]' "cpus.json's meta says whether this kernel has uclamp ($uclamp)"
row0=$(grep -v '^#' <<<"$rep" | sed -n 2p)
if [ "$uclamp" = true ]; then
	diag "uclamp: yes (the sum policy and the clamps are shown)"
	# (the kernel's own cpufreq columns, 28-30, have their checks below)
	ok '! grep -q " - " <<<" $(awk "{ NF = 27; print }" <<<"$row0") "' "with uclamp no column of schedlab's is '-'"
else
	diag "uclamp: no"
	# rq_umin rq_umax sum_tasks sum_bias sum_est sum_util sum_perf sum_khz
	is "$(awk '{ print $11, $12, $22, $23, $24, $25, $26, $27 }' <<<"$row0")" "- - - - - - - -" \
		"without uclamp the clamps and the sum policy are '-'"
	ok 'grep -q "no uclamp in this kernel" <<<"$rep"' "the report says why"
fi

# the kernel's own frequencies: cpufreq's policy (none in these x86
# guests) and arch_freq_scale, as the status and sysfs say
if [ -r /sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq ]; then
	is "$(awk '{ print $30 }' <<<"$row0")" "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq)" \
		"cpu0's policy_max_khz is scaling_max_freq"
else
	is "$(awk '{ print $29, $30 }' <<<"$row0")" "- -" "no cpufreq policy: policy_cur_khz, policy_max_khz are '-'"
fi
fs=$(awk '{ print $28 }' <<<"$row0")
if grep -Eq '^  arch_freq_scale +yes' $DBG/status; then
	ok '[ "$fs" -ge 1 ] && [ "$fs" -le 1024 ]' "freq_scale from arch_freq_scale: $fs in 1..1024"
else
	is "$fs" - "no arch_freq_scale: freq_scale is '-'"
fi

# --- the policies against the kernel (perf_check.py) ----------------------------
start=$(date +%s)
out=$(python3 "$TOP/tests/guest/perf_check.py" "$HOSTBIN/pelt" "$last" 2>&1); rc=$?
tap_lines <<<"$out"
ok '[ $rc = 0 ] || [ $rc = 1 ]' "perf_check.py ran to the end (exit $rc)"
diag "perf_check.py: $(($(date +%s) - start)) s"

# --- the trace event, live parameters ---------------------------------------------
is "$($SYSFS_WRITE $PF/period_ms 20)" ok "period_ms 20"
echo 0 >$TRACING/tracing_on
: >$TRACING/trace
echo 1 >$TRACING/events/schedlab/perf_cpu/enable
echo 1 >$TRACING/tracing_on
is "$($SYSFS_WRITE $PF/enabled 1)" ok "perf enabled"
sleep 0.5
is "$($SYSFS_WRITE $PF/nr_opps 0 && $SYSFS_WRITE $PF/max_freq_khz 1024)" "ok
ok" "nr_opps 0, max_freq_khz 1024 while enabled (live)"
sleep 0.5
is "$($SYSFS_WRITE $PF/enabled 0)" ok "perf disabled"
echo 0 >$TRACING/tracing_on
tr=$(grep 'perf_cpu:' $TRACING/trace)
n0=$(grep -c 'perf_cpu: cpu=0 ' <<<"$tr") n1=$(grep -c "perf_cpu: cpu=$last " <<<"$tr")
ok '[ "$n0" -ge 5 ] && [ "$n1" = "$n0" ]' "perf_cpu events for every online CPU at each sample ($n0 and $n1)"
ok 'grep -q "max_perf=.*max_khz=.*time_perf=.*time_khz=.*sum_perf=.*sum_khz=" <<<"$tr"' "perf_cpu carries every policy's perf and frequency"
# with 1024 kHz over capacity 1024 and no table, kHz == perf in the last event
lastev=$(tail -n 1 <<<"$tr")
ok '[[ $lastev =~ max_perf=([0-9]+)\ max_khz=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]' \
	"after the live change the raw frequency follows perf ($(grep -o 'max_perf=[0-9]* max_khz=[0-9]*' <<<"$lastev"))"
: >$TRACING/trace
echo 1 >$TRACING/events/schedlab/perf_cpu/enable
echo 1 >$TRACING/tracing_on
sleep 0.3
echo 0 >$TRACING/tracing_on
echo 0 >$TRACING/events/schedlab/perf_cpu/enable
is "$(grep -c 'perf_cpu:' $TRACING/trace)" 0 "no events after disable"
# CPU hotplug: a sample is of the CPUs online at that moment
cpuon=/sys/devices/system/cpu/cpu$last/online
if [ "$last" -ge 1 ] && [ -w "$cpuon" ]; then
	is "$($SYSFS_WRITE $PF/enabled 1)" ok "perf enabled for the hotplug check"
	echo 0 >"$cpuon"
	sleep 0.3
	n=$(grep -vc '^#' "$REP")
	echo 1 >"$cpuon"
	sleep 0.3
	is "$n" "$((last + 1))" "CPU $last offline: a header and $last row(s), CPU $last's gone"
	is "$(grep -vc '^#' "$REP")" "$((last + 2))" "CPU $last back online: its row is back"
	is "$($SYSFS_WRITE $PF/enabled 0)" ok "perf disabled after the hotplug check"
else
	skip "CPU hotplug" "CPU $last cannot go offline here"
fi
echo 8 >$PF/nr_opps
echo 2000000 >$PF/max_freq_khz
echo 50 >$PF/period_ms
unload
ok '! loaded' "module unloads"
done_testing
