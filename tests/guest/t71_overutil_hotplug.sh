# overutil and CPU hotplug: with the feature enabled and a hog on each CPU,
#  - CPU 1 offline: its episodes end at that instant (every verdict off,
#    one clear per set), its times stop growing, the report lists it as
#    offline; the all-CPUs rule flags the system with CPU 0 alone online
#    and busy (it counts the online CPUs, not the possible ones);
#  - CPU 1 online again: it starts fresh and takes events again (a new
#    mainline episode on it), the all-CPUs rule needs it again;
#  - disable with CPU 1 offline, enable with it offline (it is marked
#    offline from the start), online while enabled, rmmod with it offline;
#  - no splat in dmesg.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

OU=$SYS/overutil
REP=$DBG/overutil/report
CPU1=/sys/devices/system/cpu/cpu1/online
SNAP=/tmp/overutil-hp-report.txt
start=$(date +%s)
# this shell and its children stay on CPU 0 (CPU 1 goes away); the hogs
# run at nice 19 so that the test's commands still get CPU 0 when needed
taskset -pc 0 $$ >/dev/null
cleanup() {
	stop_spinners
	[ "$(cat $CPU1 2>/dev/null)" = 0 ] && echo 1 > $CPU1
	unload
}
trap cleanup EXIT
hog() {	# hog CPU: a busy loop pinned to CPU, nice 19, once it runs there
	local pid i
	nice -n 19 taskset -c "$1" sh -c 'while :; do :; done' &
	pid=$!
	spinners+=($pid)
	for ((i = 0; i < 100; i++)); do	# taskset has set the affinity and exec'd sh
		[ "$(</proc/$pid/comm)" = sh ] && return 0
		sleep 0.1
	done
	diag "hog on CPU $1 not started"
}
snap() { printf '%s\n' "$(<$REP)" > $SNAP; }
row() {	# row SCOPE METRIC: the six rules' figures of the last snapshot
	awk -v s="$1" -v m="$2" '$1 == s && $2 == m { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$SNAP"
}
rep() {	# rep SCOPE METRIC RULE: one figure of the last snapshot
	awk -v s="$1" -v m="$2" -v r="$3" '
		$1 == "scope" { for (i = 3; i <= NF; i++) col[$i] = i; next }
		$1 == s && $2 == m { print $(col[r]); exit }' "$SNAP"
}
until_snap() {	# until_snap TRIES COND: snapshot until COND (eval'd) holds, 0.5 s apart
	local i
	for ((i = 0; i < $1; i++)); do
		snap
		eval "$2" && return 0
		sleep 0.5
	done
	return 1
}
dmesg_lines=$(dmesg | wc -l)

if [ ! -w $CPU1 ]; then
	skip "CPU hotplug" "no writable $CPU1 (CONFIG_HOTPLUG_CPU, or fewer than 2 CPUs)"
	done_testing
	exit
fi
if [ -n "${SCHEDLAB_KCONFIG:-}" ] && [ -r "$SCHEDLAB_KCONFIG" ]; then
	ok "grep -qx CONFIG_HOTPLUG_CPU=y $SCHEDLAB_KCONFIG" "the kernel has CONFIG_HOTPLUG_CPU=y"
fi
is "$(cat $CPU1)" 1 "CPU 1 online at the start"

load
is "$($SYSFS_WRITE $OU/capacity "")" ok "real capacities"
is "$($SYSFS_WRITE $OU/enabled 1)" ok "overutil enabled"
hog 0
hog 1

# --- 1. both CPUs busy --------------------------------------------------------
ok "until_snap 60 '[ \"\$(rep cpu0 on mainline)/\$(rep cpu1 on mainline)/\$(rep system on all)\" = 1/1/1 ]'" \
	"a hog on each CPU: mainline flags both, the all-CPUs rule the system"
ok "grep -qx '# online cpus: 0 1' $SNAP && grep -qx '# offline cpus: none' $SNAP" "report: CPUs 0 and 1 online"

# --- 2. CPU 1 offline ---------------------------------------------------------
echo 0 > $TRACING/tracing_on
echo > $TRACING/trace
echo 1 > $TRACING/events/schedlab/overutil/enable
echo 1 > $TRACING/tracing_on
t0=$(date +%s%N)
echo 0 > $CPU1
t1=$(date +%s%N)
diag "offlining CPU 1 took $(( (t1 - t0) / 1000000 )) ms"
echo 0 > $TRACING/tracing_on
echo 0 > $TRACING/events/schedlab/overutil/enable
is "$(cat $CPU1)" 0 "CPU 1 offline"
snap
sed 's/^/# /' $SNAP
is "$(row cpu1 on)" "0 0 0 0 0 0" "CPU 1 offline: every verdict off"
ok "[ -n \"$(row cpu1 sets)\" ] && [ \"$(row cpu1 clears)\" = \"$(row cpu1 sets)\" ]" "CPU 1 offline: every episode closed (clears = sets: $(row cpu1 sets))"
ok "[ $(rep cpu1 clears mainline) -ge 1 ]" "CPU 1's mainline episode closed ($(rep cpu1 clears mainline) clears)"
ok "grep -qx '# online cpus: 0' $SNAP && grep -qx '# offline cpus: 1' $SNAP" "report: CPU 1 shown offline, CPU 0 online"
ok "awk '\$1 == 1 && \$NF == \"offline\" { f = 1 } END { exit !f }' $DBG/overutil/cpus" "overutil/cpus: CPU 1 shown offline"
sets1=$(rep cpu1 sets mainline)
ok "grep -q 'overutil: cpu=1 rule=mainline on=0' $TRACING/trace" "a trace event for the end of CPU 1's mainline episode"
echo > $TRACING/trace
time1=$(row cpu1 time_us)
sys1=$(rep system time_us all)
sleep 2
ok "until_snap 20 '[ \"\$(rep system on all)\" = 1 ]'" "the all-CPUs rule flags the system with CPU 0 alone online and busy"
ok "[ -n \"$time1\" ] && [ \"$(row cpu1 time_us)\" = \"$time1\" ]" "CPU 1's times no longer grow (us: $time1)"
ok "[ -n \"$sets1\" ] && [ \"$(rep cpu1 sets mainline)/$(rep cpu1 clears mainline)\" = $sets1/$sets1 ]" "CPU 1: no new episode while offline ($sets1 sets and clears)"
ok "[ $(rep system time_us all) -gt $sys1 ]" "the system's all-CPUs time grows ($sys1 -> $(rep system time_us all) us)"

# --- 3. CPU 1 online again ----------------------------------------------------
echo 1 > $CPU1
is "$(cat $CPU1)" 1 "CPU 1 online again"
hog 1	# the first one lost its affinity to CPU 1 when it went offline
until_snap 60 '[ "$(rep cpu1 sets mainline)" -gt "$sets1" ] 2>/dev/null && [ "$(rep cpu1 on mainline)" = 1 ]'
ok "[ $? = 0 ]" "CPU 1 takes events again: a new mainline episode ($sets1 -> $(rep cpu1 sets mainline) sets)"
ok "grep -qx '# online cpus: 0 1' $SNAP && grep -qx '# offline cpus: none' $SNAP" "report: CPU 1 online again"
ok "awk '\$1 == 1 && \$2 ~ /^[0-9]+\$/ { f = 1 } END { exit !f }' $DBG/overutil/cpus" "overutil/cpus: CPU 1's state shown again"
ok "until_snap 60 '[ \"\$(rep system on all)\" = 1 ] && [ \"\$(rep cpu0 on all)/\$(rep cpu1 on all)\" = 1/1 ]'" \
	"the all-CPUs rule flags the system with both CPUs busy again"

# --- 4. disable, enable, rmmod with CPU 1 offline -----------------------------
echo 0 > $CPU1
is "$(cat $CPU1)" 0 "CPU 1 offline again"
is "$($SYSFS_WRITE $OU/enabled 0)" ok "disable with CPU 1 offline"
is "$($SYSFS_WRITE $OU/enabled 1)" ok "enable with CPU 1 offline"
ok "until_snap 20 '[ \"\$(rep system on all)\" = 1 ]'" "enabled with CPU 1 offline: the all-CPUs rule flags the system (CPU 0 busy)"
ok "grep -qx '# offline cpus: 1' $SNAP && [ \"\$(row cpu1 sets)\" = '0 0 0 0 0 0' ]" "enabled with CPU 1 offline: shown offline, no episode"
echo 1 > $CPU1
hog 1
until_snap 60 '[ "$(rep cpu1 sets mainline)" -ge 1 ] 2>/dev/null'
ok "[ $? = 0 ]" "CPU 1 onlined while enabled takes events ($(rep cpu1 sets mainline) mainline episodes)"
echo 0 > $CPU1
is "$(cat $CPU1)" 0 "CPU 1 offline for the unload"
unload
ok '! loaded' "rmmod with CPU 1 offline"
stop_spinners
echo 1 > $CPU1
is "$(cat $CPU1)" 1 "CPU 1 back online"
new=$(dmesg | tail -n +$((dmesg_lines + 1)))
ok "! grep -qE 'WARNING|BUG|Oops|Call Trace|lockdep|RCU stall|hung task' <<<\"\$new\"" "no splat in dmesg"
diag "t71 took $(( $(date +%s) - start )) s"
done_testing
