#!/usr/bin/env bash
# blocked_on-rename.sh [-c CPU] [-t SECONDS] [-w BG_WEIGHT] [-b] [-o OUTDIR]:
# the priority inversion proxy execution removes, from ordinary syscalls,
# watched by schedlab's blocked_on (docs/blocked_on.md). Run as root on
# your own machine, with cgroup v2 at /sys/fs/cgroup, debugfs mounted and
# schedlab.ko loaded.
#
# On a private tmpfs, two rename_loops move a directory between two
# parent directories, which takes the filesystem's s_vfs_rename_mutex:
# the foreground one in cgroup schedlab-fg (cpu.weight 100), pausing 1 ms
# after each rename (an interactive task that keeps waking up), the
# background one in schedlab-bg (cpu.weight BG_WEIGHT, default 1) beside
# two CPU hogs. Everything is pinned to CPU (default: the last online
# one) for SECONDS (default 10). When the fg renamer wakes up, it preempts
# whatever runs; if that is the bg renamer holding the mutex, the fg
# renamer then waits behind an owner that is not running, but competing
# with the hogs for the background's share of the CPU: schedlab counts
# that time as "preempted" and reports an inversion by cgroup weight
# (rule 0x8).
#
# -b also runs the bpftrace observer scripts/bpftrace/mutex_waits.sh over
# the same time and compares its total for the rename mutex with
# schedlab's. OUTDIR (default: a new directory, printed) receives
# locks.txt, inversions.txt, tasks.txt (schedlab's reports), renames.txt
# (each renamer's output, labelled fg/bg) and, with -b, bpftrace.txt (the
# observer's per-lock lines) and bpftrace.log. The script enables "+cpu" in
# the root cgroup's cgroup.subtree_control if needed (and leaves it), and
# removes its cgroups, tmpfs and processes at the end, also on errors and
# Ctrl-C.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
me=blocked_on-rename.sh

die() { printf '%s: %s\n' "$me" "$*" >&2; exit 1; }
usage() {
	echo "usage: $me [-c CPU] [-t SECONDS] [-w BG_WEIGHT] [-b] [-o OUTDIR]" >&2
	exit 2
}

cpu='' secs=10 bgw=1 bpf=0 out=''
while getopts c:t:w:bo:h opt; do
	case $opt in
	c) cpu=$OPTARG ;;
	t) secs=$OPTARG ;;
	w) bgw=$OPTARG ;;
	b) bpf=1 ;;
	o) out=$OPTARG ;;
	*) usage ;;
	esac
done
[ $OPTIND -gt $# ] || usage
if ! [[ $secs =~ ^[0-9]+$ ]] || [ "$secs" -lt 1 ] || [ "$secs" -gt 3600 ]; then
	die "-t SECONDS: a whole number of seconds, 1 to 3600"
fi
if ! [[ $bgw =~ ^[0-9]+$ ]] || [ "$bgw" -lt 1 ] || [ "$bgw" -gt 10000 ]; then
	die "-w BG_WEIGHT: a cpu.weight, 1 to 10000"
fi
if [ -z "$cpu" ]; then
	cpu=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online)
fi
if ! [[ $cpu =~ ^[0-9]+$ ]] || ! taskset -c "$cpu" true 2>/dev/null; then
	die "-c CPU: $cpu is not a CPU this script may run on"
fi

# --- requirements ---------------------------------------------------------
CG=/sys/fs/cgroup
BO=/sys/kernel/schedlab/blocked_on
BD=/sys/kernel/debug/schedlab/blocked_on
[ "$(id -u)" -eq 0 ] || die "run as root"
[ -f $CG/cgroup.controllers ] || die "no cgroup v2 hierarchy at $CG"
grep -qw cpu $CG/cgroup.controllers || die "the cpu controller is not available in $CG (in use by cgroup v1?)"
[ -f $BO/enabled ] || die "schedlab.ko is not loaded ($BO missing)"
[ -f $BD/locks ] || die "$BD missing: is debugfs mounted? (mount -t debugfs nodev /sys/kernel/debug)"
if [ $bpf = 1 ]; then
	command -v bpftrace >/dev/null || die "-b: bpftrace is not installed"
	[ -d /sys/kernel/tracing/events/lock ] ||
		die "-b: no lock tracepoints in /sys/kernel/tracing (mount -t tracefs nodev /sys/kernel/tracing)"
fi
rl=$top/build/host/rename_loop hog=$top/build/host/sl_load
if [ ! -x "$rl" ] || [ ! -x "$hog" ]; then
	make -s -C "$top" tools >&2
fi

if [ -n "$out" ]; then
	mkdir -p "$out"
else
	out=$(mktemp -d -t schedlab-rename.XXXXXX)
fi

# --- cleanup, whatever happens --------------------------------------------
mnt='' pids=() obs=''
# wait_gone SECONDS PID...: wait until none of PID... runs, SIGKILL what
# still does after SECONDS; then reap them
wait_gone() {
	local by=$(( $(date +%s) + $1 )) p left
	shift
	while :; do
		left=()
		for p in "$@"; do
			kill -0 "$p" 2>/dev/null && left+=("$p")
		done
		[ ${#left[@]} -gt 0 ] || break
		if [ "$(date +%s)" -ge "$by" ]; then
			echo "$me: killing ${left[*]}, still running" >&2
			kill -KILL "${left[@]}" 2>/dev/null
			break
		fi
		sleep 0.2
	done
	for p in "$@"; do
		wait "$p" 2>/dev/null
	done
	return 0
}
cleanup() {
	local p
	trap - EXIT INT TERM
	set +e
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait_gone 10 "${pids[@]}"
	if [ -n "$obs" ]; then
		# the observer gives bpftrace a minute to stop, then kills it
		kill -TERM "$obs" 2>/dev/null
		wait_gone 90 "$obs"
	fi
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null || umount -l "$mnt"
		rmdir "$mnt"
	fi
	for p in schedlab-fg schedlab-bg; do
		[ -d "$CG/$p" ] || continue
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$CG/$p" 2>/dev/null && break
			sleep 0.2
		done
		[ -d "$CG/$p" ] && echo "$me: could not remove $CG/$p" >&2
	done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- setup ----------------------------------------------------------------
mnt=$(mktemp -d -t schedlab-rename-mnt.XXXXXX)
mount -t tmpfs -o size=16m,mode=0755 nodev "$mnt"
grep -qw cpu $CG/cgroup.subtree_control || echo +cpu > $CG/cgroup.subtree_control
mkdir -p $CG/schedlab-fg $CG/schedlab-bg
echo 100 > $CG/schedlab-fg/cpu.weight
echo "$bgw" > $CG/schedlab-bg/cpu.weight

[ "$(cat $BO/enabled)" = 1 ] || echo 1 > $BO/enabled ||
	die "blocked_on cannot be enabled (see /sys/kernel/debug/schedlab/status)"

# run CMD... in cgroup GROUP, pinned to $cpu (the pid stays CMD's: exec)
start_in() {
	local group=$1
	shift
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec taskset -c "$@"' \
		sh "$CG/$group" "$cpu" "$@" &
	pids+=($!)
}

if [ $bpf = 1 ]; then
	"$top/scripts/bpftrace/mutex_waits.sh" > "$out/bpftrace.txt" 2> "$out/bpftrace.log" &
	obs=$!
	# compiling and attaching take seconds, minutes in a slow VM; the
	# observer says when every probe is attached
	echo "starting bpftrace..." >&2
	t0=$(date +%s)
	by=$((t0 + 300))
	until grep -q '^mutex_waits.sh: attached' "$out/bpftrace.log"; do
		kill -0 $obs 2>/dev/null || { cat "$out/bpftrace.log" >&2; obs=''; die "bpftrace failed"; }
		[ "$(date +%s)" -lt "$by" ] || die "bpftrace did not attach within 300 s (see $out/bpftrace.log)"
		sleep 0.2
	done
	echo "bpftrace attached after $(( $(date +%s) - t0 )) s" >&2
fi
echo 1 > $BD/reset

# --- the workload -----------------------------------------------------------
spin_ms=$(( (secs + 5) * 1000 ))
start_in schedlab-bg "$hog" -n bg-hog spin $spin_ms
start_in schedlab-bg "$hog" -n bg-hog spin $spin_ms
start_in schedlab-bg "$rl" "$mnt" "$secs" bg > "$out/renames-bg.tmp"
bg_pid=$!
start_in schedlab-fg "$rl" -l -p 1000 "$mnt" "$secs" fg > "$out/renames-fg.tmp"
fg_pid=$!
echo "running for $secs s on CPU $cpu: fg renamer $fg_pid, bg renamer $bg_pid (bg cpu.weight $bgw); results to $out..." >&2
wait $fg_pid || die "the fg rename_loop failed"
wait $bg_pid || die "the bg rename_loop failed"
# reaped: their pids are no longer ours to kill
hogs=()
for p in "${pids[@]}"; do
	[ "$p" = $fg_pid ] || [ "$p" = $bg_pid ] || hogs+=("$p")
done
pids=("${hogs[@]}")

cp $BD/locks "$out/locks.txt"
cp $BD/inversions "$out/inversions.txt"
cp $BD/tasks "$out/tasks.txt"
{
	sed 's/^/fg /' "$out/renames-fg.tmp"
	sed 's/^/bg /' "$out/renames-bg.tmp"
} > "$out/renames.txt"
rm -f "$out/renames-fg.tmp" "$out/renames-bg.tmp"
for p in "${pids[@]}"; do
	kill "$p" 2>/dev/null || true
done
if [ -n "$obs" ]; then
	kill -TERM $obs
	wait $obs || echo "$me: bpftrace exited with status $? (see $out/bpftrace.log)" >&2
	obs=''
fi

# --- summary ----------------------------------------------------------------
# (Addresses are compared as strings: mawk reads 0x... as numbers, and
# as doubles they collide.)
# A row of a schedlab report FILE, found by header column names, as
# "name value ..." pairs: the row whose column KEYCOL is KEY, or, with KEY
# max:COL, the row with the largest COL. The columns after the second are
# counted from the end in rows with more fields (a comm with spaces).
named() {	# named FILE KEYCOL KEY|max:COL
	awk -v keycol="$2" -v key="$3" '
		/^#/ || !NF { next }
		!nh && $1 == keycol { nh = NF; for (i = 1; i <= NF; i++) name[i] = $i; next }
		!nh { next }
		{
			sh = NF > nh ? NF - nh : 0
			for (i = 1; i <= nh; i++) v[name[i]] = i <= 2 ? $i : $(i + sh)
			line = name[1] " " v[name[1]]
			for (i = 2; i <= nh; i++) line = line " " name[i] " " v[name[i]]
		}
		key ~ /^max:/ {
			c = substr(key, 5)
			if (found == "" || v[c] + 0 > best + 0) { best = v[c]; found = line }
			next
		}
		v[keycol] == key { print line; exit }
		END { if (key ~ /^max:/ && found != "") print found }' "$1"
}
field() {	# field NAME "name value ..." -> value (0 if absent)
	# (builtins: it is called about 30 times, and a program start is
	# slow in a slow VM)
	local -a a
	local i
	read -ra a <<<"$2"
	for ((i = 0; i + 1 < ${#a[@]}; i += 2)); do
		[ "${a[i]}" = "$1" ] && { echo "${a[i + 1]}"; return; }
	done
	echo 0
}
pct() {	# pct A B -> A/B in percent, one decimal (0.0% if B is 0), builtins
	local t=0
	[[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] && [ "$2" -gt 0 ] &&
		t=$(( (1000 * $1 + $2 / 2) / $2 ))
	printf '%d.%d%%' $((t / 10)) $((t % 10))
}

echo
echo "results in $out"
while read -r who what n; do
	case $what in
	renames) printf '%s renamer: %s renames\n' "$who" "$n" ;;
	lat_us_p50) printf '%s renamer: rename latency (us): p50 %s' "$who" "$n" ;;
	lat_us_p99) printf ' p99 %s' "$n" ;;
	lat_us_p999) printf ' p99.9 %s' "$n" ;;
	lat_us_max) printf ' max %s\n' "$n" ;;
	esac
done < "$out/renames.txt"
lk=$(named "$out/locks.txt" lock max:waits)
if [ -z "$lk" ]; then
	echo "schedlab recorded no mutex wait (locks.txt is empty)"
	exit 0
fi
addr=$(field lock "$lk")
echo "rename mutex (the lock with the most waits in locks.txt):"
grep -m1 '^lock' "$out/locks.txt"
awk -v a="$addr" '$1 "" == a ""' "$out/locks.txt"
tot=$(field total_us "$lk")
s_on=$(($(field run_local "$lk") + $(field run_remote "$lk")))
s_pre=$(($(field preempted "$lk") + $(field runnable_remote "$lk")))
s_slp=$(($(field sleeping "$lk") + $(field blocked "$lk")))
s_un=$(field unowned "$lk")
printf 'schedlab: waits %s total_us %s  oncpu %s preempted %s sleeping %s unowned %s proxy %s  inversion %s\n' \
	"$(field waits "$lk")" "$tot" "$(pct $s_on "$tot")" "$(pct $s_pre "$tot")" \
	"$(pct $s_slp "$tot")" "$(pct "$s_un" "$tot")" "$(pct "$(field proxy "$lk")" "$tot")" \
	"$(pct "$(field inversion_us "$lk")" "$tot")"
for who in fg bg; do
	p=$fg_pid
	[ $who = bg ] && p=$bg_pid
	t=$(named "$out/tasks.txt" pid "$p")
	[ -n "$t" ] || continue
	printf '  %s renamer %s: waits %s total_us %s preempted %s proxy %s inversion %s\n' "$who" "$p" \
		"$(field waits "$t")" "$(field total_us "$t")" \
		"$(pct "$(field preempted "$t")" "$(field total_us "$t")")" \
		"$(pct "$(field proxy "$t")" "$(field total_us "$t")")" \
		"$(pct "$(field inversion_us "$t")" "$(field total_us "$t")")"
done
inv=$(grep -c '^[0-9]*: pid' "$out/inversions.txt" || true)
echo "inversions kept: $inv (inversions.txt); the worst:"
grep -m1 -A1 '^0: pid' "$out/inversions.txt" || true

if [ $bpf = 1 ]; then
	bl=$(awk -v a="$addr" '$1 == "lock" && $2 "" == a ""' "$out/bpftrace.txt")
	if [ -z "$bl" ]; then
		bl=$(head -1 "$out/bpftrace.txt")
		echo "bpftrace saw no lock $addr; its lock with the most waits instead: $(field lock "$bl")"
	fi
	if [ -z "$bl" ]; then
		echo "bpftrace reported no lock (see $out/bpftrace.log)"
		exit 0
	fi
	btot=$(field total_ns "$bl")
	printf 'bpftrace: waits %s total_us %s  oncpu %s preempted %s sleeping %s unowned %s\n' \
		"$(field waits "$bl")" $((btot / 1000)) "$(pct "$(field oncpu_ns "$bl")" "$btot")" \
		"$(pct "$(field preempted_ns "$bl")" "$btot")" "$(pct "$(field sleeping_ns "$bl")" "$btot")" \
		"$(pct "$(field unowned_ns "$bl")" "$btot")"
	awk -v s="$tot" -v b="$btot" 'BEGIN {
		printf "total_us schedlab / bpftrace: %s / %d = %s\n", s, b / 1000,
			(b > 0 ? sprintf("%.3f", s * 1000 / b) : "n/a") }'
fi
