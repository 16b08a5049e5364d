#!/usr/bin/env bash
# Runs every in-guest test (tests/guest/t*.sh) in order; each prints TAP.
# Output goes to stdout and to $SCHEDLAB_RESULTS/tap.txt.
set -u
cd "$(dirname "$0")" || exit 2
out=${SCHEDLAB_RESULTS:-/tmp}/tap.txt
: >"$out"
echo "# guest: $(uname -r) ($(uname -v))" | tee -a "$out"
rc=0
export SCHEDLAB_KCONFIG=${1:-}
limit=${SCHEDLAB_TEST_TIMEOUT:-900}	# seconds per test (the longest, t20, takes ~250 s under TCG)
for t in ${2:-t*.sh}; do
	case $t in run.sh | lib.sh) continue ;; esac	# a pattern such as r*.sh matches these
	echo "# --- $t" | tee -a "$out"
	# each test starts from the kernel's default tracing state: the
	# top-level buffer on, empty, no event enabled (a test that turned
	# tracing off at its end left the next one's events unrecorded: t30
	# after t62 on the lab kernel)
	if [ -w /sys/kernel/tracing/tracing_on ]; then
		echo 1 >/sys/kernel/tracing/tracing_on
		: >/sys/kernel/tracing/trace
		echo 0 >/sys/kernel/tracing/events/enable
	fi
	# To a file, not a pipe: a process a failed test leaves behind must
	# not keep the runner waiting for end-of-file.
	start=$(date +%s)
	log=${SCHEDLAB_RESULTS:-/tmp}/$t.log	# readable from the host while it runs
	trc=0
	# timeout runs the test in a process group of its own (the group's
	# ID is timeout's PID), and kills the group at the limit.
	timeout -k 10 "$limit" bash "$t" >"$log" 2>&1 &
	tpid=$!
	# A SCHED_DEADLINE thread the kernel stranded (runnable on no run
	# queue: see dlparams_vma.c) cannot even die of SIGKILL: once the
	# kill had its time, the test's deadline threads left are switched
	# to SCHED_OTHER, which lets them run and die. If even that does not
	# end it (tasks stuck in the kernel, or the root file system stalled:
	# then no file, the results included, can be written), the kernel's
	# own dump of the blocked tasks and of every CPU goes to the console,
	# which the host keeps: a watchdog writing /proc/sysrq-trigger with a
	# shell builtin.
	(
		trap 'kill $! 2>/dev/null; exit 0' TERM
		sleep $((limit + 15)) & wait $!
		for tid in $(ps -eLo tid=,pgid=,cls= | awk -v g="$tpid" '$2 == g && $3 == "DLN" { print $1 }'); do
			chrt -o -p 0 "$tid" 2>/dev/null &&
				echo "# run.sh: thread $tid ($(cat /proc/$tid/comm 2>/dev/null)) still SCHED_DEADLINE after the kill: switched to SCHED_OTHER" >>"$log"
		done
		sleep 15 & wait $!
		echo w >/proc/sysrq-trigger; echo l >/proc/sysrq-trigger
	) &
	wd=$!
	wait $tpid || trc=$?
	kill $wd 2>/dev/null; wait $wd 2>/dev/null
	[ $trc = 0 ] || rc=1
	# A test that hangs, dies, or stops short of its plan fails here: the
	# checks it never printed would otherwise just be missing.
	if [ $trc = 124 ] || [ $trc = 137 ]; then
		echo "not ok 9999 - $t did not finish within $limit s (killed)" >>"$log"
		# what was left, and where in the kernel the stuck ones are
		ps -eo pid,stat,wchan:32,comm | grep -Ev ' (kworker|ksoftirqd|migration|cpuhp|rcu_|idle_inject)' |
			sed 's/^/# /' >>"$log"
		for p in $(ps -eo pid=,stat= | awk '$2 ~ /^D/ {print $1}'); do
			echo "# stack of $p ($(cat /proc/$p/comm 2>/dev/null)):" >>"$log"
			sed 's/^/#   /' /proc/$p/stack >>"$log" 2>/dev/null
		done
	elif ! grep -qE '^1\.\.[0-9]+' "$log"; then
		echo "not ok 9999 - $t ended (exit $trc) without its plan" >>"$log"
	else
		plan=$(grep -m1 -oE '^1\.\.[0-9]+' "$log" | cut -d. -f3)
		ran=$(grep -cE '^(not )?ok [0-9]+' "$log")
		[ "$ran" = "$plan" ] ||
			echo "not ok 9999 - $t planned $plan checks, ran $ran (exit $trc)" >>"$log"
	fi
	tee -a "$out" <"$log"
	echo "# $t took $(( $(date +%s) - start )) s" | tee -a "$out"
done
lsmod | grep -q '^schedlab ' && rmmod schedlab
exit $rc
