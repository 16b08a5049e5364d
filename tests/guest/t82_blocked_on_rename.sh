# blocked_on on a realistic inversion, without the test driver: the demo
# scripts/blocked_on-rename.sh (a foreground and a background renamer on
# one CPU, the background group at cpu.weight 1 with CPU hogs, contending
# on the filesystem's rename mutex through rename(2)), with the independent
# bpftrace observer (scripts/bpftrace/mutex_waits.sh) run over the same
# time:
#  - the foreground renamer's waits include time behind a preempted owner
#    (with proxy execution on: time its owner ran as its proxy instead),
#    and inversions by cgroup weight (rule 0x8) are reported;
#  - schedlab's total wait on the rename mutex agrees with bpftrace's
#    within 10%, and so does the number of waits.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

# a row of a report, "name value" pairs by its header's column names
named() {	# named FILE KEYCOL KEY
	awk -v keycol="$2" -v key="$3" '
		/^#/ || !NF { next }
		!nh && $1 == keycol { nh = NF; for (i = 1; i <= NF; i++) name[i] = $i; next }
		!nh { next }
		$1 "" == key "" { for (i = 1; i <= nh; i++) printf "%s %s ", name[i], $i; print ""; exit }' "$1"
}
# the value after NAME in "name value ..." pairs, 0 if absent (builtins
# only: an awk start per value, about 15 of them, is seconds under TCG)
field() {	# field NAME PAIRS
	local -a a
	local i
	read -ra a <<<"$2"
	for ((i = 0; i + 1 < ${#a[@]}; i += 2)); do
		[ "${a[i]}" = "$1" ] && { echo "${a[i + 1]}"; return; }
	done
	echo 0
}

load
ok "command -v bpftrace" "bpftrace is installed ($(bpftrace --version 2>/dev/null))"
out=$(mktemp -d)
# bounded (bpftrace's start up to 300 s, the run, its stop up to 60 s), so
# that a hang shows the demo's own messages
timeout -k 10 480 bash "$TOP/scripts/blocked_on-rename.sh" -c 1 -t 10 -b -o "$out" \
	>"$out/summary.txt" 2>"$out/stderr.txt"
rc=$?
is "$rc" 0 "the demo ran (exit $rc)"
while read -r l; do diag "$l"; done <"$out/summary.txt"
if [ $rc = 0 ]; then
	diag "$(grep -m1 'bpftrace attached' "$out/stderr.txt")"
else
	while read -r l; do diag "$l"; done <"$out/stderr.txt"
	[ -f "$out/bpftrace.log" ] && while read -r l; do diag "bpftrace.log: $l"; done <"$out/bpftrace.log"
fi
read -r fg bg < <(sed -nE 's/.*fg renamer ([0-9]+), bg renamer ([0-9]+).*/\1 \2/p' "$out/stderr.txt")
diag "fg renamer $fg, bg renamer $bg"

# the rename mutex: the lock with the most waits
addr=$(awk 'NR > 2 && $3 > max { max = $3; a = $1 } END { print a }' "$out/locks.txt")
lk=$(named "$out/locks.txt" lock "$addr")
diag "schedlab: $lk"
ok "[ $(field waits "$lk") -gt 100 ]" "schedlab saw waits on the rename mutex $addr ($(field waits "$lk"))"
tk=$(named "$out/tasks.txt" pid "$fg")
diag "fg renamer: $tk"
pre=$(field preempted "$tk") tot=$(field total_us "$tk")
# its first wait may come before its exec() (the cgroup it is moved into
# takes a mutex while it is still "sh"): the row has the latest comm
is "$(field comm "$tk")" rename_loop "the fg renamer's row names it by its comm at its latest wait"
if proxy_on; then
	# the fg renamer lends the preempted owner its context: what a stock
	# kernel shows as 'preempted' becomes 'proxy'
	prox=$(field proxy "$tk")
	ok "[ $prox -gt 0 ] && [ $pre -lt $prox ]" "proxy execution on: the fg renamer's owner ran as its proxy $prox us, preempted $pre us, of $tot us"
else
	ok "[ $pre -gt 0 ]" "the fg renamer waited behind a preempted owner: $pre of $tot us"
	ok "[ $(field inversion_us "$tk") -gt 0 ]" "and that counts as inversion ($(field inversion_us "$tk") us)"
	ok "grep -q 'rules 0x[0-9a-f]*[89a-f] ' $out/inversions.txt" "inversions by cgroup weight (rule 0x8) reported"
fi
# (two lines: each a TAP comment)
while read -r l; do diag "$l"; done < <(grep -m1 -A1 '^0: pid' "$out/inversions.txt")

bl=$(awk -v a="$addr" '$1 == "lock" && $2 "" == a ""' "$out/bpftrace.txt")
diag "bpftrace: $bl"
ok "[ -n \"\$bl\" ]" "bpftrace saw the same lock"
if [ -z "$bl" ]; then
	diag "bpftrace.txt: $(wc -l <"$out/bpftrace.txt") lines"
	while read -r l; do diag "bpftrace.log: $l"; done < <(head -n 40 "$out/bpftrace.log")
	while read -r l; do diag "demo: $l"; done < <(grep -i -e bpftrace -e mutex_waits "$out/stderr.txt")
fi
s_tot=$(field total_us "$lk") b_tot=$(( $(field total_ns "$bl") / 1000 ))
s_n=$(field waits "$lk") b_n=$(field waits "$bl")
ok "[ $(absdiff "$s_tot" "$b_tot") -le $(( b_tot / 10 )) ]" "total wait: schedlab $s_tot us vs bpftrace $b_tot us (within 10%)"
ok "[ $(absdiff "$s_n" "$b_n") -le $(( b_n / 10 )) ]" "waits: schedlab $s_n vs bpftrace $b_n (within 10%)"
s_pre=$(( $(field preempted "$lk") + $(field runnable_remote "$lk") ))
diag "owner preempted: schedlab $s_pre us, bpftrace $(( $(field preempted_ns "$bl") / 1000 )) us"
rm -rf "$out"
blocked_on_agreed "the rename demo"
unload
done_testing
