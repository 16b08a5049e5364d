#!/usr/bin/env bash
# mutex_waits.sh [BPFTRACE_OPTION...]: run mutex_waits.bt (next to this
# script; see its header) and print its results as one line per lock,
# most waits first:
#   lock 0xffff888004a1b2c8 waits 123 total_ns 456789 max_ns 9999 oncpu_ns 1 preempted_ns 2 sleeping_ns 3 unowned_ns 4
# Options go to bpftrace, e.g. -c '/usr/bin/cmd args' to trace while the
# command runs (bpftrace 0.17 wants the command's full path). Otherwise it
# runs until Ctrl-C, SIGINT or SIGTERM (a script that starts it in the
# background, where SIGINT is ignored, sends SIGTERM). bpftrace's messages
# ("Attaching N probes..." once attached, about a second; errors) and the
# -c command's output go to stderr as they come, the per-lock lines alone
# to stdout at the end. Exit status: bpftrace's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v bpftrace >/dev/null || { echo "mutex_waits.sh: bpftrace not found" >&2; exit 127; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/out"

# bpftrace's stdout: all of it kept, all but the maps passed on at once
bpftrace "$@" "$here/mutex_waits.bt" > "$tmp/out" &
bpid=$!
tee "$tmp/raw" < "$tmp/out" | { grep --line-buffered -v -e '^@' -e '^$' >&2 || true; } &
tpid=$!
trap 'kill -INT "$bpid" 2>/dev/null || true' INT TERM
# a trap interrupts wait: wait again while bpftrace (then tee) still runs
rc=0
wait "$bpid" || rc=$?
while [ "$rc" -gt 128 ] && kill -0 "$bpid" 2>/dev/null; do
	rc=0
	wait "$bpid" || rc=$?
done
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
