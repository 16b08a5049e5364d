# overutil and the kernel's own overutilized flag. Where the kernel
# maintains it (the lab kernel boots with the series'
# sched_overutilized_track; a kernel with EAS always does):
#  - hogs started and stopped on each CPU in turn make the flag set and
#    clear; schedlab's mainline rule, evaluated on the real state of every
#    CPU at each of the flag's changes, agrees at 99% of them or more;
#  - drive (the series' sched_cpu_overutilized_tp hook): with drive=all
#    (the system is overutilized only if every CPU is) a hog on one CPU
#    leaves the kernel's flag clear, where with drive off in the same boot
#    the same hog keeps it set most of the time; the report counts the
#    verdicts given and those that differed from the kernel's own;
#  - unload with drive on restores the kernel's rule: loaded again (drive
#    off), the same hog sets the flag.
# Elsewhere the report says the flag is not maintained, and why.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

OU=$SYS/overutil
taskset -pc 0 $$ >/dev/null
json() { JS=$(<$DBG/overutil/report.json); }
fact() {	# fact NAME: a number or string fact of the last json read
	local re="\"$1\": *(\"[^\"]*\"|-?[0-9]+|true|false)"
	[[ $JS =~ $re ]] && { local v=${BASH_REMATCH[1]}; echo "${v//\"/}"; }
}
# hog SECONDS CPU: one busy loop on CPU for SECONDS, then idle 1 s
hog() { spin_on "$2"; sleep "$1"; stop_spinners; sleep 1; }

load
st=$(cat $DBG/status)
maint=$(awk '$1 == "kernel_overutilized_flag" {print $2}' <<<"$st")
hook=$(awk '$1 == "tracepoint:sched_cpu_overutilized_tp" {print $2}' <<<"$st")
diag "kernel flag maintained: $maint ($(awk '$1 == "kernel_overutilized_flag" {$1 = $2 = ""; print}' <<<"$st")); drive hook: $hook"
is "$($SYSFS_WRITE $OU/enabled 1)" ok "overutil enabled"
if [ "$maint" != yes ]; then
	hog 2 1
	json
	is "$(fact kernel_flag_source)" none "report: the kernel does not maintain its flag"
	is "$(fact kernel_flag_compared)" false "report: not compared"
	echo 0 > $OU/enabled
	unload
	done_testing
	exit
fi

# --- 1. agreement at the flag's changes -----------------------------------
echo 1 > $DBG/overutil/reset
for i in 1 2 3; do hog 1.5 1; hog 1.5 0; done
json
ev=$(fact kernel_flag_events) sets=$(fact kernel_flag_sets) clears=$(fact kernel_flag_clears)
ca=$(fact kernel_flag_change_agree) cd=$(fact kernel_flag_change_disagree)
diag "kernel flag: events $ev sets $sets clears $clears; at changes mainline agrees $ca, disagrees $cd; at every event agrees $(fact kernel_flag_agree) disagrees $(fact kernel_flag_disagree)"
# the boot parameter where the command line has it, else EAS (the arm64
# big.LITTLE)
if grep -qw sched_overutilized_track /proc/cmdline; then
	is "$(fact kernel_flag_source)" sched_overutilized_track "report: the flag is maintained through the boot parameter"
else
	is "$(fact kernel_flag_source)" eas "report: the flag is maintained by energy-aware scheduling"
fi
ok "[ $sets -ge 3 ] && [ $clears -ge 3 ]" "the kernel's flag set $sets and cleared $clears times under 6 hogs"
# A clear from a load balance retried without an all-pinned busiest CPU
# (the hog and a per-CPU task: docs/overutil.md) does not look at the CPU
# over; the report counts those apart. None on two CPUs.
cc=$(fact kernel_flag_change_disagree_crowded)
diag "of the changes mainline disagrees with, clears while every CPU over ran 2 tasks or more: $cc"
ok "[ $(( (ca + cc) * 100 )) -ge $(( (ca + cd) * 99 )) ]" \
	"mainline agrees with the kernel at $ca of $((ca + cd)) changes, $cc more where a retried balance could not see the CPU over (>= 99%)"
[ "$(nr_online_cpus)" -gt 2 ] || is "$cc" 0 "on 2 CPUs no balance is retried: no disagreement of that kind"

if [ "$hook" != yes ]; then
	skip "drive" "no sched_cpu_overutilized_tp in this kernel (the lab kernel's series): drive is refused"
	is "$($SYSFS_WRITE $OU/drive all)" EOPNOTSUPP "drive=all without the hook: EOPNOTSUPP"
	echo 0 > $OU/enabled
	unload
	done_testing
	exit
fi

# --- 2. drive: the same hog, drive off then drive=all ----------------------
share() {	# share: the kernel flag's on-time (us) over the last hog
	echo 1 > $DBG/overutil/reset
	hog 3 1
	json
	echo "$(fact kernel_flag_time_us) $(fact since_us)"
}
read -r on_off span_off < <(share)
is "$($SYSFS_WRITE $OU/drive all)" ok "drive=all while enabled (live)"
read -r on_all span_all < <(share)
json
dv=$(fact drive_verdicts) dc=$(fact drive_changed)
diag "flag on ${on_off} of ${span_off} us with drive off, ${on_all} of ${span_all} us with drive=all; verdicts $dv, changed $dc"
ok "[ $(( on_off * 2 )) -ge $span_off ]" "drive off: a hog on one CPU keeps the kernel's flag set half the time or more ($on_off of $span_off us)"
ok "[ $(( on_all * 20 )) -le $span_all ]" "drive=all: the same hog leaves it clear (set $on_all of $span_all us, <= 5%)"
is "$(fact drive)" all "report: drive all"
ok "[ $dv -ge 1 ] && [ $dc -ge 1 ]" "the hook gave $dv verdicts, $dc of them not the kernel's own"
is "$($SYSFS_WRITE $OU/drive bogus)" EINVAL "drive=bogus: EINVAL"
is "$(cat $OU/drive)" all "still all"

# --- 3. unload with drive on: the kernel's own rule again -------------------
unload
ok '! loaded' "unloaded with drive=all attached"
load
is "$(cat $OU/drive)" off "loaded again: drive off"
is "$($SYSFS_WRITE $OU/enabled 1)" ok "overutil enabled"
read -r on_back span_back < <(share)
ok "[ $(( on_back * 2 )) -ge $span_back ]" "the kernel's own rule is back: the hog sets the flag ($on_back of $span_back us)"
echo 0 > $OU/enabled
unload
done_testing
