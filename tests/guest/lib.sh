# Common helpers for the in-guest tests (sourced after tests/lib/tap.sh).
# Runs as root inside the test guest, with the work tree at its host path.
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KVER=${SCHEDLAB_KVER:-$(uname -r)}
KO=${SCHEDLAB_KO:-$TOP/build/$KVER/module/schedlab.ko}
HOSTBIN=$TOP/build/host
SYS=/sys/kernel/schedlab
DBG=/sys/kernel/debug/schedlab
TRACING=/sys/kernel/tracing
SYSFS_WRITE="$HOSTBIN/sysfs_write"	# tests/lib/sysfs_write.c
# blocked_on, and its test driver (tests/modules/README.md)
BO=$SYS/blocked_on
BD=$DBG/blocked_on
TD=/sys/kernel/debug/schedlab_testdrv
TDKO=$TOP/build/$KVER/tests/modules/schedlab_testdrv.ko
# chains_until TRIES DELAY COND: read blocked_on's chains report into
# $chains until the shell condition COND (eval'd) holds, at most TRIES
# times, DELAY seconds apart; false if it never did. (A builtin read: exec
# is slow under emulation.)
chains_until() {
	local n=$1 d=$2 i
	for ((i = 0; i < n; i++)); do
		chains=$(<"$BD/chains")
		eval "$3" && return 0
		sleep "$d"
	done
	return 1
}
LOAD_MODULE="python3 $TOP/tests/lib/load_module.py"
# sysfs_write as user nobody (its -u): a copy outside the work tree (which
# nobody need not reach), refreshed when the build is newer (a builtin
# test: every program start is a fraction of a second under emulation)
sysfs_write_as_nobody() {	# sysfs_write_as_nobody PATH VALUE...
	local w=/tmp/schedlab-sysfs-write
	[ -x $w ] && [ ! "$SYSFS_WRITE" -nt $w ] || install -m 755 "$SYSFS_WRITE" $w
	$w -u 65534 "$@" 2>&1
}

loaded() { grep -q '^schedlab ' /proc/modules; }
load() { loaded || insmod "$KO" "$@"; }
unload() { ! loaded || rmmod schedlab; }

# cpu_capacity CPU: the kernel's capacity of CPU (sysfs; 1024 where the
# kernel does not say: x86 without asymmetric CPUs)
cpu_capacity() {
	local f=/sys/devices/system/cpu/cpu$1/cpu_capacity
	if [ -r "$f" ]; then cat "$f"; else echo 1024; fi
}
# nr_online_cpus: how many CPUs are online (whatever this shell's affinity)
nr_online_cpus() {
	awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } print c }' \
		/sys/devices/system/cpu/online
}
# biggest_cpu_but_0: the online CPU other than 0 with the largest capacity,
# the lowest numbered of those (CPU 1 on equal CPUs)
biggest_cpu_but_0() {
	local c best=1 bc=-1 cap
	for c in $(seq 1 $(($(nproc --all) - 1))); do
		[ "$(cat /sys/devices/system/cpu/cpu$c/online 2>/dev/null || echo 1)" = 1 ] || continue
		cap=$(cpu_capacity $c)
		[ "$cap" -gt "$bc" ] && { best=$c; bc=$cap; }
	done
	echo $best
}
# The kernel's own view (independent of schedlab): /sys/kernel/debug/sched/debug
# "cfs_rq[CPU]:/" section's .FIELD, or the "cpu#CPU" section's .FIELD.
sched_debug_cfs() {	# sched_debug_cfs CPU FIELD
	awk -v sec="cfs_rq[$1]:/" -v f=".$2" '
		$1 == sec { in_sec = 1; next }
		/^cfs_rq\[|^rt_rq\[|^dl_rq\[|^cpu#/ { in_sec = 0 }
		in_sec && $1 == f { print $3; exit }' /sys/kernel/debug/sched/debug
}
sched_debug_cpu() {	# sched_debug_cpu CPU FIELD
	# "cpu#N, MHz" on x86 (with a TSC), "cpu#N" elsewhere
	awk -v sec="cpu#$1" -v f=".$2" '
		$1 == sec || $1 == sec "," { in_sec = 1; next }
		/^cfs_rq\[|^rt_rq\[|^dl_rq\[|^cpu#/ { in_sec = 0 }
		in_sec && $1 == f { print $3; exit }' /sys/kernel/debug/sched/debug
}
# schedlab's report: the column COL of CPU's row.
report_col() {	# report_col CPU COL
	awk -v cpu="$1" -v col="$2" '
		/^cpu / { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		$1 == cpu { print $(idx[col]); exit }' "$DBG/cpu_signals/report"
}
spinners=()
spin_on() {	# spin_on CPU: start a busy loop pinned to CPU
	taskset -c "$1" sh -c 'while :; do :; done' &
	spinners+=($!)
}
stop_spinners() {
	[ ${#spinners[@]} -eq 0 ] && return 0
	kill "${spinners[@]}" 2>/dev/null
	wait "${spinners[@]}" 2>/dev/null
	spinners=()
}
absdiff() { local d=$(($1 - $2)); echo ${d#-}; }
# blocked_on_agreed WHAT: where task_struct has blocked_on (7.x), one check
# that schedlab's edge never disagreed with it since the last reset (the
# comparison is made each time a waiter sleeps in the mutex slow path);
# called before every reset and unload, so it covers the whole run
blocked_on_agreed() {
	local st
	st=$(<"$BD/stats")
	[ "$(awk '$1 == "blocked_on_field" { print $2 }' <<<"$st")" = yes ] || return 0
	diag "$1: $(grep '^blocked_on_' <<<"$st" | tr '\n' ' ')"
	is "$(awk '$1 == "blocked_on_disagree" { print $2 }' <<<"$st")" 0 \
		"$1: no disagreement with task_struct::blocked_on ($(awk '$1 == "blocked_on_checked" { print $2 }' <<<"$st") compared)"
}

# proxy_on: proxy execution built in and on in this kernel (the status
# report's proxy_exec line: on, off or "not built")
proxy_on() { [ "$(awk '/^proxy_exec:/ {print $2}' "$DBG/status")" = on ]; }

# The test driver (tests/modules/README.md): a worker's pid from its log;
# a step's start and end (us, local_clock()); the overlap of two intervals
pid_of() { awk -v n="$1" '$1 == n && $2 ~ /^pid=/ { sub("pid=", "", $2); print $2; exit }' $TD/log; }
step_times() { awk -v n="$1" -v s="$2" '$1 == n && $2 == s { print int($6 / 1000), int($7 / 1000); exit }' $TD/log; }
overlap_us() {	# overlap_us A0 A1 B0 B1
	local lo=$(( $1 > $3 ? $1 : $3 )) hi=$(( $2 < $4 ? $2 : $4 ))
	echo $(( hi > lo ? hi - lo : 0 ))
}
