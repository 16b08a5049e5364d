#!/usr/bin/env bash
# mutex_waits.sh [BPFTRACE_OPTION...]: run mutex_waits.bt (next to this
# script; see its header) and print its results as one line per lock,
# most waits first:
#   lock 0xffff888004a1b2c8 waits 123 total_ns 456789 max_ns 9999 oncpu_ns 1 preempted_ns 2 sleeping_ns 3 unowned_ns 4
# Options go to bpftrace, e.g. -c '/usr/bin/cmd args' to trace while the
# command runs (bpftrace 0.17 wants the command's full path). Otherwise it
# runs until Ctrl-C, SIGINT or SIGTERM, and says "mutex_waits.sh:
# attached" on stderr once every probe is attached: bpftrace's own
# "Attaching N probes..." comes before it attaches them, and compiling
# and attaching take seconds, or minutes in a slow VM. A bpftrace still
# there MUTEX_WAITS_STOP_GRACE seconds (default 60) after the stop is
# killed, without results. bpftrace's messages and the -c command's
# output go to stderr as they come, the per-lock lines alone to stdout at
# the end. Exit status: bpftrace's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v bpftrace >/dev/null || { echo "mutex_waits.sh: bpftrace not found" >&2; exit 127; }
STOP_GRACE=${MUTEX_WAITS_STOP_GRACE:-60}
[[ $STOP_GRACE =~ ^[0-9]+$ ]] ||
	{ echo "mutex_waits.sh: MUTEX_WAITS_STOP_GRACE=$STOP_GRACE: not a number of seconds" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/out"

# Without a -c of the user's, bpftrace runs a command of ours: bpftrace
# starts it once all probes are attached (what -c is for), so it can say
# so. It keeps the trace going until it is stopped (ending it ends
# bpftrace's -c run: the maps are printed) or bpftrace is gone.
cmd=()
user_cmd=0
for a in "$@"; do
	case $a in -c*) user_cmd=1 ;; esac
done
if [ $user_cmd = 0 ]; then
	# (bpftrace splits the -c command at spaces, and runs only ELF
	# executables: sh, with the script as its argument)
	case $tmp in *[[:space:]]*)
		echo "mutex_waits.sh: needs a temporary directory without spaces, not $tmp" >&2; exit 2 ;;
	esac
	cat >"$tmp/attached" <<'EOF2'
echo $$ >"$0.pid"
echo "mutex_waits.sh: attached" >&2
exec tail -f --pid="$PPID" /dev/null >/dev/null 2>&1
EOF2
	cmd=(-c "/bin/sh $tmp/attached")
fi

# bpftrace's stdout: all of it kept, all but the maps passed on at once.
# In the background of a script bash starts it with SIGINT ignored, and
# bpftrace installs its own handler only once it has compiled the script:
# a SIGINT sent before that would be lost and leave it running for ever.
# With the default action back, an early SIGINT simply ends it.
env --default-signal=INT bpftrace "${cmd[@]}" "$@" "$here/mutex_waits.bt" > "$tmp/out" &
bpid=$!
tee "$tmp/raw" < "$tmp/out" | { grep --line-buffered -v -e '^@' -e '^$' >&2 || true; } &
tpid=$!
# On SIGINT/SIGTERM: end our command if it runs, else SIGINT to bpftrace;
# either way bpftrace prints its maps and exits. One still there
# STOP_GRACE seconds later is killed.
stop_by=''
# shellcheck disable=SC2317  # called by the trap
stop() {
	if [ -s "$tmp/attached.pid" ]; then
		kill -TERM "$(cat "$tmp/attached.pid")" 2>/dev/null || true
	else
		kill -INT "$bpid" 2>/dev/null || true
	fi
	stop_by=${stop_by:-$(( $(date +%s) + STOP_GRACE ))}
}
trap stop INT TERM
# a trap interrupts wait: wait again (or, once stopping, poll) while
# bpftrace runs
while kill -0 "$bpid" 2>/dev/null; do
	if [ -z "$stop_by" ]; then
		wait "$bpid" || true
	elif [ "$(date +%s)" -ge "$stop_by" ]; then
		echo "mutex_waits.sh: bpftrace still running $STOP_GRACE s after the stop: killed" >&2
		kill -KILL "$bpid" 2>/dev/null || true
		sleep 0.2
	else
		sleep 0.2
	fi
done
rc=0
wait "$bpid" || rc=$?
while kill -0 "$tpid" 2>/dev/null; do
	wait "$tpid" || true
done

# @name[0x...]: value lines (print() of the result maps) to one line per lock
awk '
	/^@[a-z_]+\[[^]]*\]: *[0-9]+$/ {
		i = index($0, "[")
		name = substr($0, 2, i - 2)
		key = substr($0, i + 1, index($0, "]") - i - 1)
		v[name, key] = $NF
		if (name == "waits" && !(key in seen)) {
			seen[key] = 1
			keys[++n] = key
		}
	}
	END {
		split("waits total_ns max_ns oncpu_ns preempted_ns sleeping_ns unowned_ns", f, " ")
		for (i = 1; i <= n; i++) {
			line = "lock " tolower(keys[i])
			for (j = 1; j <= 7; j++)
				line = line " " f[j] " " ((f[j], keys[i]) in v ? v[f[j], keys[i]] : 0)
			print line
		}
	}' "$tmp/raw" | sort -s -k4,4nr
exit "$rc"
