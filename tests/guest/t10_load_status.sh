# Load, status report, capabilities checked against independent sources.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

unload
ok 'insmod "$KO"' "insmod $(basename "$KO")"
ok loaded "schedlab in /proc/modules"
ok '[ "$(cat $SYS/version)" != "" ]' "sysfs version: $(cat $SYS/version 2>/dev/null)"
ok '[ -r $DBG/status ]' "debugfs status readable"
st=$(cat $DBG/status)
echo "$st" | sed 's/^/# /'
is "$(echo "$st" | awk '/^kernel:/ {print $2}')" "$(uname -r)" "status names the running kernel release"
is "$(echo "$st" | awk '/^layout:/ {print $NF}')" "$(uname -r)" "layout was generated from this kernel's BTF"

cap() { echo "$st" | awk -v c="$1" '$1 == c {print $2}'; }
# Tracepoints: schedlab looks them up in the kernel's tracepoint table;
# tracefs lists the same events independently.
for tp in sched/sched_switch lock/contention_begin lock/contention_end; do
	name=${tp#*/}
	want=no; [ -d "$TRACING/events/$tp" ] && want=yes
	is "$(cap tracepoint:$name)" "$want" "tracepoint $name: status agrees with tracefs ($want)"
done
# The lab kernel's series (patches/): bare tracepoints, not in tracefs;
# kallsyms lists the kernel's tracepoint structures independently.
for tp in sched_proxy_decision_tp sched_enqueue_task_tp sched_dequeue_task_tp \
	sched_cpu_overutilized_tp sched_effective_cpu_util_tp; do
	want=no; grep -q " __tracepoint_$tp\$" /proc/kallsyms && want=yes
	is "$(cap tracepoint:$tp)" "$want" "tracepoint $tp: status agrees with kallsyms ($want)"
done
# The kernel maintains its overutilized flag with EAS (the arm64 guests'
# big.LITTLE, booted with sched_verbose: the kernel logs when it starts and
# stops EAS; never the x86 guests) or with the series' boot parameter on
# its command line.
want=no
grep -q " sched_overutilized_tracked\$" /proc/kallsyms && grep -qw sched_overutilized_track /proc/cmdline && want=yes
[ "$(dmesg | grep -oE '(starting|stopping) EAS' | tail -n1)" = "starting EAS" ] && want=yes
is "$(cap kernel_overutilized_flag)" "$want" "kernel's overutilized flag maintained: agrees with kallsyms and the command line ($want)"
# Struct members: schedlab's build-time BTF layout against pahole's reading
# of the running kernel's own BTF.
pahole_has() { pahole -C "$1" /sys/kernel/btf/vmlinux 2>/dev/null | grep -Eq "[ *]$2(\[.*\])?;"; }
if command -v pahole >/dev/null; then
	want=no; pahole_has task_struct blocked_on && want=yes
	is "$(cap task_struct::blocked_on)" "$want" "task_struct::blocked_on agrees with pahole ($want)"
	want=no; pahole_has sched_entity vlag && want=yes
	is "$(cap sched_entity::vlag+deadline)" "$want" "EEVDF (sched_entity::vlag) agrees with pahole ($want)"
	want=no; pahole_has task_struct uclamp_req && want=yes
	is "$(cap task_struct::uclamp_req)" "$want" "uclamp (task_struct::uclamp_req) agrees with pahole ($want)"
else
	skip "struct member capabilities vs pahole" "pahole not installed"
fi
# Proxy execution: the kernel's config, shipped with its headers.
cfg=${SCHEDLAB_KCONFIG:-}
if [ -n "$cfg" ] && [ -r "$cfg" ]; then
	want=no; grep -q '^CONFIG_SCHED_PROXY_EXEC=y' "$cfg" && want=yes
	is "$(cap CONFIG_SCHED_PROXY_EXEC)" "$want" "CONFIG_SCHED_PROXY_EXEC agrees with the kernel config ($want)"
	if [ $want = no ]; then
		is "$(echo "$st" | awk '/^proxy_exec:/ {print $2, $3}')" "not built" "proxy_exec reported as not built"
	else
		# on unless the command line turns it off (sched_proxy_exec=0)
		on=on; grep -Eq '(^| )sched_proxy_exec=(0|n|N|off)( |$)' /proc/cmdline && on=off
		is "$(echo "$st" | awk '/^proxy_exec:/ {print $2}')" "$on" "proxy_exec reported $on, as the command line says"
	fi
else
	skip "CONFIG_SCHED_PROXY_EXEC vs config" "no kernel config given"
fi
is "$(cap runqueues)" yes "struct rq reachable (rq->cpu verified for every CPU)"
# Capacities and frequency invariance: rq::cpu_capacity_orig (pahole) or
# the arch topology's per-CPU cpu_scale, and arch_freq_scale (kallsyms
# lists per-CPU variables too).
ksym() { grep -q " $1\$" /proc/kallsyms; }
if command -v pahole >/dev/null; then
	want=no; { pahole_has rq cpu_capacity_orig || ksym cpu_scale; } && want=yes
	is "$(cap cpu_capacity)" "$want" "cpu_capacity: agrees with pahole (rq::cpu_capacity_orig) and kallsyms (cpu_scale) ($want)"
else
	skip "cpu_capacity vs pahole" "pahole not installed"
fi
want=no; ksym arch_freq_scale && want=yes
is "$(cap arch_freq_scale)" "$want" "arch_freq_scale: agrees with kallsyms ($want)"
ok 'echo "$st" | grep -Eq "^  cpu_signals +available=1 enabled=0"' "cpu_signals available, disabled after load"
is "$(cat $SYS/cpu_signals/available)" 1 "sysfs available=1"
ok 'dmesg | grep -q "schedlab: loaded"' "dmesg says loaded"
done_testing
