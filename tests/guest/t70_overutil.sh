# overutil: the six overutilized rules side by side on rt-app workloads
# (scripts/workloads/), with emulated capacities 160 (CPU 0) and 1024
# (CPU 1):
#  - bursty: CPU 0 alternates 94% and 12% duty (idle every 16 ms at most),
#    CPU 1 runs a light periodic task. The relations that follow from the
#    definitions: linger has no more episodes than mainline; the idle
#    rule never flags a CPU that idles at least every idle_window_ms; the
#    all-CPUs rule never flags the system while CPU 1 keeps idling; and
#    mainline does flag CPU 0 (little: util above 80% of 160);
#  - lone: one always-running task on the big CPU 1: mainline flags it,
#    the lone-task rule (nearly) never does;
#  - the kernel's own flag: compared where the kernel maintains it, else
#    the report says it is not compared;
#  - knobs: bad values refused, nothing changed (EBUSY while enabled),
#    reset; events; nothing left at disable.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

OU=$SYS/overutil
REP=$DBG/overutil/report
WL=$TOP/scripts/workloads
# the rules' columns in the report: scope metric mainline linger idle dynamic lone all
SNAP=/tmp/overutil-report.txt
rep() {	# rep SCOPE METRIC RULE: one figure of the last snapshot of the report
	awk -v s="$1" -v m="$2" -v r="$3" '
		$1 == "scope" { for (i = 3; i <= NF; i++) col[$i] = i; next }
		$1 == s && $2 == m { print $(col[r]); exit }' "$SNAP"
}
# The test's own commands are heavy under emulation (an exec costs a good
# part of a second of CPU): this shell and its children stay on CPU 0, and
# around a workload only shell builtins run, so that the statistics are
# the workload's.
taskset -pc 0 $$ >/dev/null
settle() {	# until both CPUs' real util is low (at most 10 s)
	local i t
	for ((i = 0; i < 50; i++)); do
		t=$(<$DBG/overutil/cpus)
		[[ $t =~ $'\n'\ *0\ +([0-9]+)\ .*$'\n'\ *1\ +([0-9]+)\  ]] &&
			[ "${BASH_REMATCH[1]}" -lt 400 ] && [ "${BASH_REMATCH[2]}" -lt 400 ] && return 0
		sleep 0.2
	done
	diag "not settled: $t"
}
run_workload() {	# run_workload JSON: statistics from 0.5 s in to its end
	local pid
	settle
	# traced from the start: a busy stretch that began before the reset
	# (the workload's start-up) is seen whole by busy_beyond
	echo 1 > $TRACING/tracing_on
	(cd /tmp && exec rt-app "$1" >/tmp/rt-app.log 2>&1) & pid=$!
	sleep 0.5
	reset_marked
	wait $pid
	read_marked
	echo 0 > $TRACING/tracing_on
	sed 's/^/# /' $SNAP
}
# A vCPU can stall for tens of ms between two commands under TCG, and a
# transition can fall there. Trace markers bracket the reset (A, B) and the
# report's read (C, D): a statistic counts every event between B and C and
# none outside A..D; traced PATTERN gives the two counts as "LOW HIGH".
reset_marked() {
	echo t70-mark-A > $TRACING/trace_marker
	echo 1 > $DBG/overutil/reset
	echo t70-mark-B > $TRACING/trace_marker
}
read_marked() {
	echo t70-mark-C > $TRACING/trace_marker
	printf '%s\n' "$(<$REP)" > $SNAP
	echo t70-mark-D > $TRACING/trace_marker
}
traced() {
	awk -v p="$1" '
		/t70-mark-A/ { a = 1; next } /t70-mark-B/ { b = 1; next }
		/t70-mark-C/ { c = 1; next } /t70-mark-D/ { d = 1; next }
		index($0, p) && a && !d { hi++; if (b && !c) lo++ }
		END { print lo + 0, hi + 0 }' $TRACING/trace
}
# busy_beyond WINDOW_US: from the trace's idle switches (sched_switch to
# or from pid 0), how long each CPU ran without idling past WINDOW_US
# between marks A and D, summed over its busy stretches: the most the idle
# rule can flag it between the reset and the read (which fall somewhere in
# A..B and C..D: a vCPU may stall for milliseconds between two commands;
# arm64 7.3 once flagged 10,307 us against 6,400 counted from B). The reset keeps a verdict that is on (its time
# counts from the reset), so a stretch is followed from the trace's start,
# before the reset: the CI run's arm64 6.12 once had CPU 0 flagged for the
# first 19.5 ms after the reset, busy since the workload's start-up. A CPU
# whose first switch goes to idle was busy since before the trace, and one
# with no idle switch at all busy throughout: both count from the start of
# time. One line per online CPU: its number and that time in us.
busy_beyond() {
	awk -v w="$1" -v ncpu="$(nr_online_cpus)" '
		function ts() { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^(sched_switch|tracing_mark_write):$/) { t = $i; sub(/:$/, "", t); return t * 1e6 } }
		# the part of a busy stretch past the window that lies in A..D
		function past(c, until,   from) {
			if (!have_b || !busy[c]) return
			from = mark[c] + w
			if (from < b) from = b
			if (until > e) until = e
			if (until > from) ex[c] += until - from
		}
		BEGIN { e = 1e18 }
		/tracing_mark_write: t70-mark-A/ { b = ts(); have_b = 1; next }
		/tracing_mark_write: t70-mark-D/ { e = ts(); done = 1; next }
		done || !/ sched_switch: / { next }
		{
			match($0, /\[[0-9]+\]/); c = substr($0, RSTART + 1, RLENGTH - 2) + 0; t = ts()
			if (!(c in mark)) { mark[c] = -1e18; busy[c] = $0 ~ / next_pid=0 / }
			if ($0 ~ / next_pid=0 /) past(c, t)
			mark[c] = t; busy[c] = $0 !~ / next_pid=0 /
		}
		END {
			for (c = 0; c < ncpu; c++) {
				if (!(c in mark)) { mark[c] = -1e18; busy[c] = 1 }
				past(c, e); printf "%d %d\n", c, ex[c]
			} }' $TRACING/trace
}
within() {	# within N "LOW HIGH"
	local b=($2)
	[ "$1" -ge "${b[0]}" ] && [ "$1" -le "${b[1]}" ]
}

load
is "$(cat $OU/available)" 1 "overutil available"
ok "grep -q 'kprobe:tick  *yes' $DBG/status" "the tick function is found ($(grep 'kprobe:tick' $DBG/status | tr -s ' '))"

# --- 1. knobs -------------------------------------------------------------
is "$($SYSFS_WRITE $OU/capacity 160,1024)" ok "capacity=160,1024 accepted"
is "$(cat $OU/capacity)" "160,1024" "capacity reads back"
is "$($SYSFS_WRITE $OU/capacity 1025)" EINVAL "capacity above 1024 refused (EINVAL)"
is "$($SYSFS_WRITE $OU/capacity 160,,1024)" EINVAL "empty entry refused (EINVAL)"
is "$(cat $OU/capacity)" "160,1024" "capacity unchanged after bad writes"
# CPU 0 idles every 16 ms in the bursty workload; a window of 100 ms (not
# the default 32) keeps a stall of the emulated CPU (tens of ms under TCG)
# from passing for a CPU that does not idle
is "$($SYSFS_WRITE $OU/idle_window_ms 100)" ok "idle_window_ms=100 accepted"
is "$($SYSFS_WRITE $OU/enabled 1)" ok "overutil enabled"
for k in capacity linger_clear_ticks linger_set_ticks idle_window_ms; do
	before=$(cat $OU/$k)
	is "$($SYSFS_WRITE $OU/$k 1)" EBUSY "$k cannot change while enabled (EBUSY)"
	is "$(cat $OU/$k)" "$before" "$k unchanged"
done
for bad in 0 2 x "1 1" 11 $'1\n\n'; do
	is "$($SYSFS_WRITE $DBG/overutil/reset "$bad")" EINVAL "reset refuses '$bad' (EINVAL)"
done
r=$(sysfs_write_as_nobody $DBG/overutil/reset 1 || true)
is "$r" EACCES "reset as nobody: EACCES"
diag "$(cat $DBG/overutil/cpus)"
ok "[ \"\$(awk '\$1 == 0 {print \$7}' $DBG/overutil/cpus)\" = 160 ] && [ \"\$(awk '\$1 == 1 {print \$7}' $DBG/overutil/cpus)\" = 1024 ]" \
	"the rules see capacities 160 and 1024, the real ones beside them"

# --- 2. bursty --------------------------------------------------------------
echo 0 > $TRACING/tracing_on
echo > $TRACING/trace
echo 1 > $TRACING/events/schedlab/overutil/enable
# the ground truth of the idle rule: every CPU's switches to and from idle
echo 'prev_pid == 0 || next_pid == 0' > $TRACING/events/sched/sched_switch/filter
echo 1 > $TRACING/events/sched/sched_switch/enable
run_workload $WL/bursty.json
# CPU 1's light task is light only if its vCPU runs when it should: a
# stalled vCPU's time counts as the task running (the guest clock goes
# on). On the virtual big.LITTLE (4 vCPUs on one TCG thread) beside another
# guest, make check on b31bbd4 saw CPU 1 over for 5.4 s of 5.5 s with a
# task of 1 ms every 10 ms. Such a run says nothing about the rules on a
# light CPU: it is run once more, and the second run is judged.
win=$(sed -n 's/.*overutil: \([0-9]*\) us since enabled or reset.*/\1/p' $SNAP)
if [ $(( $(rep cpu1 time_us mainline) * 100 )) -ge "$win" ]; then
	diag "CPU 1 over for $(rep cpu1 time_us mainline) of $win us (a vCPU stalled): once more"
	echo 0 > $TRACING/tracing_on
	echo > $TRACING/trace
	run_workload $WL/bursty.json
fi
sed 's/^/# /' $DBG/overutil/hist
# Episodes begun (sets), not transitions: with linger_set_ticks 0 a linger
# episode begins exactly where a mainline one does, but the reset can fall
# in the tick during which linger still holds an episode that mainline has
# ended; that episode's clear then has no set in the statistics, which made
# linger count 35 transitions against mainline's 34 in one run.
ml_t=$(rep cpu0 sets mainline)
lg_t=$(rep cpu0 sets linger)
ok "[ $(rep cpu0 time_us mainline) -ge 500000 ]" "mainline flags the little CPU 0 in the bursts ($(rep cpu0 time_us mainline) us, $ml_t episodes)"
ok "[ $lg_t -le $ml_t ] && [ $lg_t -ge 1 ]" "linger: no more episodes than mainline on CPU 0 ($lg_t <= $ml_t)"
ok "[ $(rep cpu0 clears linger) -le $(( $(rep cpu0 clears mainline) + 1 )) ]" \
	"linger: no more clears than mainline on CPU 0, one inherited from before the reset aside ($(rep cpu0 clears linger) <= $(rep cpu0 clears mainline) + 1)"
ml_s=$(rep system sets mainline)
lg_s=$(rep system sets linger)
ok "[ $lg_s -le $ml_s ]" "linger: no more system episodes than mainline ($lg_s <= $ml_s)"
ok "[ $(rep cpu0 time_us linger) -ge $(rep cpu0 time_us mainline) ]" \
	"linger keeps CPU 0 flagged at least as long as mainline ($(rep cpu0 time_us linger) >= $(rep cpu0 time_us mainline) us)"
# The idle rule against the trace: CPU 0 idles every 16 ms, so with a
# window of 100 ms it is flagged only where its vCPU stalled (the guest
# clock goes on; the task counts as running): for no longer than the
# trace shows it busy past the window (CI on 2220378, the arm64 big.LITTLE
# beside another guest: flagged in both runs). The millisecond allows for
# the report's and the trace's clocks.
bad= all= isum=0
while read -r c bb; do
	t=$(rep cpu$c time_us idle)
	[ -n "$t" ] || continue
	all+=" cpu$c $t<=$bb"
	isum=$((isum + t))
	[ "$t" -le $((bb + 1000)) ] || bad+=" cpu$c"
done < <(busy_beyond 100000)
echo 0 > $TRACING/events/sched/sched_switch/enable
echo 0 > $TRACING/events/sched/sched_switch/filter
ok "[ -z '$bad' ] && [ -n '$all' ]" "idle rule (window 100 ms): each CPU flagged only where the trace shows it busy past the window (us:$all; CPU 0 idles every 16 ms)${bad:+; over:$bad}"
ok "[ $(rep system time_us idle) -le $(( isum + $(nr_online_cpus) - 1 )) ]" "idle rule: the system flagged only when a CPU is ($(rep system time_us idle) <= $isum us, the CPUs' times, + $(( $(nr_online_cpus) - 1 )) for their rounding)"
# CPU 1's light task stays far below 80% of 1024, but a stall of its vCPU
# while that task runs (the host descheduling the guest's thread: the
# guest clock goes on) counts as running: the CI run on 47c3f1c saw CPU 1
# flagged for 7,472 us of a 3.5 s run on 6.1, with the all-CPUs rule and
# the system verdicts following it. The workload's expectation is a
# share (under 1% of the run: a CPU 1 taken as little, or a rule ignoring
# the capacity, flags it most of the time); the relations between the
# rules are exact whatever CPU 1 does.
win=$(sed -n 's/.*overutil: \([0-9]*\) us since enabled or reset.*/\1/p' $SNAP)
c0=$(rep cpu0 time_us mainline) c1=$(rep cpu1 time_us mainline)
ok "[ $(( c1 * 100 )) -lt $win ]" "CPU 1 (big, light load) overutilized under 1% of the run ($c1 of $win us)"
ok "[ $(rep system time_us all) -le $c1 ] && [ $(rep system time_us all) -le $c0 ]" \
	"all-CPUs rule: the system flagged no longer than either CPU ($(rep system time_us all) <= $c1, $c0 us)"
# Each system episode of the all-CPUs rule begins with a CPU's own: while
# CPU 1 is on (a stall), CPU 0's toggles start and end system episodes too
# (7.3, 2026-12-07: CPU 1 on once for 41 ms, two system episodes inside it)
ok "[ $(rep system sets all) -le $(( $(rep cpu0 sets all) + $(rep cpu1 sets all) )) ]" \
	"all-CPUs rule: each system episode begins with a CPU's ($(rep system sets all) <= $(rep cpu0 sets all) + $(rep cpu1 sets all))"
# the CPUs' mainline times summed, and how many: each time_us is its
# nanoseconds floored, so the system's (a union: at most the sum) may
# exceed the sum of the floors by up to one microsecond per CPU but one
# (make check on 2d41ee9, arm64: 1,217,971 against 1,213,864 + 4,106)
read -r csum ncpu < <(awk '
	$1 == "scope" { for (i = 3; i <= NF; i++) col[$i] = i; next }
	$1 ~ /^cpu[0-9]+$/ && $2 == "time_us" { s += $(col["mainline"]); n++ }
	END { print s + 0, n + 0 }' "$SNAP")
ok "[ $(rep system time_us mainline) -ge $c0 ] && [ $(rep system time_us mainline) -le $(( csum + ncpu - 1 )) ]" \
	"mainline: the system is flagged when CPU 0 is, and otherwise only when another CPU is ($c0 <= $(rep system time_us mainline) <= $csum + $((ncpu - 1)) us, the $ncpu CPUs' times and their rounding)"
is "$(rep cpu0 time_us lone)" "$c0" "lone-task rule = mainline on CPU 0: it is not the biggest"
nt=$(traced 'overutil: cpu=0 rule=mainline on=1')
ok "within $(rep cpu0 sets mainline) '$nt'" "one trace event per mainline set on CPU 0 ($(rep cpu0 sets mainline) sets; events: ${nt% *} between the reset and the read, ${nt#* } with the commands' edges)"
ok "grep -q 'overutil: cpu=-1 rule=linger on=1' $TRACING/trace" "system transitions traced"
echo 0 > $TRACING/events/schedlab/overutil/enable
echo > $TRACING/trace

# --- 3. lone ----------------------------------------------------------------
run_workload $WL/lone.json
ml=$(rep cpu1 time_us mainline)
ok "[ $ml -ge 1500000 ]" "mainline flags the big CPU 1 running one task ($ml us)"
lone=$(rep cpu1 time_us lone)
ok "[ $(( lone * 20 )) -le $ml ]" "lone-task rule ignores it: $lone us of $ml (<= 5%, other tasks waking there briefly)"

# --- 4. real capacities, reset, the kernel's own flag -----------------------
echo 0 > $OU/enabled
is "$($SYSFS_WRITE $OU/capacity "")" ok "capacity cleared: real capacities"
echo 1 > $OU/enabled
settle
spin_on 1
sleep 2
stop_spinners
sleep 0.5
printf '%s\n' "$(<$REP)" > $SNAP
ok "[ $(rep cpu1 sets mainline) -ge 1 ]" "a hog on CPU 1 at its real capacity ($(cpu_capacity 1)) is flagged by mainline"
kline=$(grep '^# kernel flag' $SNAP)
diag "$(grep '^# energy' $SNAP)"
diag "$kline"
if [[ $kline =~ kernel\ flag:\ ([0-9]+)\ events.*agrees\ at\ ([0-9]+),\ disagrees\ at\ ([0-9]+) ]]; then
	ev=${BASH_REMATCH[1]} ag=${BASH_REMATCH[2]}
	# The kernel clears its flag at a load balance that retries without an
	# all-pinned busiest CPU (the hog and a per-CPU task on CPU 1): the
	# retry does not look at CPU 1. Possible only with a CPU outside the
	# balancing group (not on 2 CPUs) and 2 tasks or more on the CPU over;
	# the report counts those disagreements apart (module/overutil.c,
	# kernel_view_now()). Every other disagreement counts against.
	dline=$(grep '^# disagreements:' $SNAP)
	diag "$dline"
	crowd=$(sed -n 's/.*as a load balance retry without an all-pinned CPU needs: \([0-9]*\)).*/\1/p' <<<"$dline")
	ok "[ $(( (ag + ${crowd:-0}) * 100 )) -ge $(( ev * 95 )) ] && [ $ev -ge 10 ]" \
		"mainline agrees with the kernel's flag at $ag of $ev events, ${crowd:-0} more where a retried balance could not see the CPU over (>= 95%)"
	[ "$(nr_online_cpus)" -gt 2 ] || is "${crowd:-0}" 0 "on 2 CPUs no balance is retried: no disagreement of that kind"
else
	ok "[[ \"$kline\" == *'not compared'* ]]" "the kernel does not maintain its flag here: the report says so"
fi
# reset: the hog's episodes are forgotten; what the report holds after it
# happened since, and the trace shows it
settle
echo > $TRACING/trace
echo 1 > $TRACING/events/schedlab/overutil/enable
echo 1 > $TRACING/tracing_on
t0=${EPOCHREALTIME/./}
reset_marked
read_marked
t1=${EPOCHREALTIME/./}
echo 0 > $TRACING/events/schedlab/overutil/enable
sed 's/^/# /' $SNAP
n1=$(traced 'overutil: cpu=1 rule=mainline on=1')
ns=$(traced 'overutil: cpu=-1 rule=mainline on=1')
ok "within $(rep cpu1 sets mainline) '$n1' && within $(rep system sets mainline) '$ns'" \
	"reset zeroes the statistics: the hog's sets are gone, those left were traced since ($(rep cpu1 sets mainline) and $(rep system sets mainline); traced $n1 and $ns)"
ok "[ $(rep system time_us mainline) -le $(( t1 - t0 )) ]" \
	"reset: the time flagged counts from the reset ($(rep system time_us mainline) us, the reset and the read took $(( t1 - t0 )) us)"
echo > $TRACING/trace

# locking: every event takes its CPU's lock; the global one only where a
# CPU's verdict changed (the report's system updates, at most one per
# transition of a CPU's verdict, which the rules count apart), not at each
# of a context-switch load's events. How many events change a verdict
# depends on the load and the capacities: 181 of 95,138 on x86 7.3, 1,439
# of 4,960 on the arm64 big.LITTLE, where CPU 1's emulated util sits at
# the mainline and lone rules' thresholds
settle
echo 1 > $DBG/overutil/reset
taskset -c 0,1 "$HOSTBIN/ctxswitch" 1 >/dev/null
printf '%s\n' "$(<$REP)" > $SNAP
evl=$(grep '^# events:' $SNAP)
diag "ping-pong for 1 s: $evl"
nev=$(sed -n 's/^# events: \(.*\) (.*/\1/p' $SNAP | awk '{ for (i = 2; i <= NF; i += 2) n += $i; print n + 0 }')
upd=$(sed -n 's/^# events: .*verdict changed: \([0-9]*\)).*/\1/p' $SNAP)
trans=$(awk '$1 ~ /^cpu[0-9]/ && ($2 == "sets" || $2 == "clears") { for (i = 3; i <= NF; i++) n += $i } END { print n + 0 }' $SNAP)
ok "[ $nev -ge 1000 ]" "the ping-pong made events ($nev)"
# (+2: a CPU's event between the reset of its statistics and the counter's)
ok "[ -n \"$upd\" ] && [ $upd -le $((trans + 2)) ]" "system updates $upd, at most the CPUs' verdict transitions ($trans)"
ok "[ -n \"$upd\" ] && [ $upd -lt $nev ]" "the global lock at $upd of $nev events, not at every one"

# --- 5. teardown ----------------------------------------------------------
echo 0 > $OU/enabled
is "$(head -1 $REP)" "# overutil is disabled" "report says disabled"
is "$($SYSFS_WRITE $DBG/overutil/reset 1)" ENODEV "reset while disabled: ENODEV"
unload
ok '! loaded' "unloaded"
done_testing
