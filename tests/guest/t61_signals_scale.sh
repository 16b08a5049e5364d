# signals at scale (docs/signals.md, "Pool" and "Output"):
#  1. a pool smaller than the matching tasks: the tracked ones are tracked
#     as usual; every event of the others counts one drop, the number
#     checked against the kernel's own context-switch counts of each thread
#     (/proc/TID/status); while the pool stays full no probe takes the
#     table's lock (track_locked flat); once tracked tasks exit, new ones
#     are tracked again;
#  2. 2000 sleeping threads: the tasks report lists each exactly once, the
#     same rows read 100 bytes at a time, the cpus report counts each once,
#     each pass over a report is one walk of the table (report_walks), and
#     no RCU stall or soft lockup.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

LOADBIN=$HOSTBIN/sl_load
TASKS=$DBG/signals/tasks
STATS=$DBG/signals/stats
tmp=$(mktemp -d)
loadpid=
inst=
cleanup() {
	[ -n "$loadpid" ] && { kill "$loadpid" 2>/dev/null; wait "$loadpid" 2>/dev/null; }
	[ -n "$inst" ] && [ -d "$inst" ] && { echo 0 > "$inst/events/sched/sched_switch/enable"; rmdir "$inst"; }
	rm -rf "$tmp"
}
trap cleanup EXIT
# st NAME: a line of signals/stats (builtins: exec is slow under emulation)
st() {
	local k v
	while read -r k v; do [ "$k" = "$1" ] && { echo "$v"; return; }; done <"$STATS"
}
# start_load COMM N PERIOD_MS MS: sl_load's threads, until it says ready
start_load() {
	"$LOADBIN" -n "$1" threads "$2" "$3" "$4" >"$tmp/ready" &
	loadpid=$!
	for _ in $(seq 600); do
		[ -s "$tmp/ready" ] && return 0
		sleep 0.1
	done
	return 1
}
stop_load() { kill "$loadpid" 2>/dev/null; wait "$loadpid" 2>/dev/null; loadpid=; }
# until_stat NAME WANT: wait (up to 30 s) for a stats line to read WANT
until_stat() {
	for _ in $(seq 300); do [ "$(st "$1")" = "$2" ] && return 0; sleep 0.1; done
	return 1
}
# csw TID: the kernel's voluntary and involuntary switches of a thread
csw() {
	local k v vol= invol=
	while read -r k v; do
		case $k in
		voluntary_ctxt_switches:) vol=$v ;;
		nonvoluntary_ctxt_switches:) invol=$v ;;
		esac
	done <"/proc/$loadpid/task/$1/status"
	echo "$vol $invol"
}

load
# --- 1. pool full --------------------------------------------------------------
POOL=16 N=48
echo $POOL > $SYS/signals/max_tasks
echo sl_drop > $SYS/signals/filter_comm
echo 1 > $SYS/signals/enabled
# the kernel's own record of where each thread last ran: its sched_switch
# events out of the threads, in a trace instance of the test's own (the
# thread's task_cpu is not that: from 6.12 a thread that sleeps with
# negative lag stays queued, delayed, and load balance may move it to
# another CPU without it running there)
inst=$TRACING/instances/t61_$$
mkdir "$inst"
echo 512 > "$inst/buffer_size_kb"
echo 'prev_comm ~ "sl_drop*"' > "$inst/events/sched/sched_switch/filter"
echo 1 > "$inst/events/sched/sched_switch/enable"
# N threads waking every 20 ms for 3 s, then all asleep
ok 'start_load sl_drop $N 20 3000' "$N threads started"
ok 'until_stat tracked $POOL' "the pool fills: tracked = max_tasks = $POOL"
d0=$(st dropped) l0=$(st track_locked)
sleep 1
d1=$(st dropped) l1=$(st track_locked)
diag "over 1 s with the pool full: dropped $d0 -> $d1, track_locked $l0 -> $l1"
ok '[ "$d1" -gt "$d0" ]' "the untracked threads' events count as drops while they run ($((d1 - d0)) in 1 s)"
ok '[ -n "$l0" ] && [ "$l1" = "$l0" ]' "no probe takes the table lock for them while the pool stays full"
# quiescent: every thread asleep for good, no more events
for _ in $(seq 60); do
	d0=$(st dropped); sleep 0.5
	[ "$(st dropped)" = "$d0" ] && [ "$(ps -L -o stat= -p $loadpid | grep -vc S)" = 0 ] && break
done
rows=$(awk 'NR > 2' $TASKS)
is "$(awk '{print $3}' <<<"$rows" | sort | uniq -c | awk '{print $1, $2}')" "$POOL sl_drop" \
	"the tasks report shows the $POOL tracked threads, each once"
declare -A tracked_cpu=() last_ran=()
while read -r pid _ _ cpu state _; do tracked_cpu[$pid]="$cpu $state"; done <<<"$rows"
echo 0 > "$inst/events/sched/sched_switch/enable"
# "... [001] ...: sched_switch: prev_comm=sl_drop prev_pid=123 ...": the CPU
# of each thread's last switch out
while read -r pid cpu; do last_ran[$pid]=$cpu; done < <(awk '
	/sched_switch:/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^\[[0-9]+\]$/) cpu = substr($i, 2, length($i) - 2) + 0
			if ($i ~ /^prev_pid=/) pid = substr($i, 10)
		}
		last[pid] = cpu
	}
	END { for (p in last) print p, last[p] }' "$inst/trace")
rmdir "$inst"
drops=0 deq=0 main_vol=0 main_all=0 wrong=0 moved=0
for t in /proc/$loadpid/task/*; do
	tid=${t##*/}
	read -r vol invol < <(csw "$tid")
	if [ "$tid" = "$loadpid" ]; then
		main_vol=$vol main_all=$((vol + invol))
	elif [ -n "${tracked_cpu[$tid]:-}" ]; then
		deq=$((deq + vol))
		# the CPU it last ran on (its last sched_switch out), asleep;
		# task_cpu (/proc/TID/stat field 39) for the record
		f=$(<"$t/stat"); f=${f##*) }; read -ra f <<<"$f"
		[ "${tracked_cpu[$tid]}" = "${last_ran[$tid]:-none} sleep" ] || { wrong=$((wrong + 1)); diag "tid $tid: schedlab '${tracked_cpu[$tid]}', last switched out on ${last_ran[$tid]:-none} (trace), task_cpu ${f[36]}"; }
		[ "${f[36]}" = "${last_ran[$tid]:-}" ] || moved=$((moved + 1))
	else
		drops=$((drops + 2 * (vol + invol)))
	fi
done
dropped=$(st dropped) dequeues=$(st dequeues)
main_tracked=0; [ -n "${tracked_cpu[$loadpid]:-}" ] && main_tracked=1
diag "dropped $dropped; untracked threads' switches in and out (kernel) $drops; main thread tracked: $main_tracked, switches $main_all"
diag "dequeues $dequeues; tracked threads' voluntary switches (kernel) $deq; main thread's $main_vol"
# dropped counts events: each switch in or out of an untracked matching
# thread (the main thread's, before prctl, did not match: bounds)
if [ $main_tracked = 1 ]; then
	is "$dropped" "$drops" "dropped = every switch in or out of the $((N + 1 - POOL)) untracked threads, as the kernel counts them"
	ok '[ "$dequeues" -ge "$deq" ] && [ "$dequeues" -le $((deq + main_vol)) ]' \
		"dequeues = the tracked threads' voluntary switches ($deq), plus the main thread's since tracked (<= $main_vol)"
else
	ok '[ "$dropped" -ge "$drops" ] && [ "$dropped" -le $((drops + 2 * main_all)) ]' \
		"dropped = every switch in or out of the untracked threads ($drops), plus the main thread's since it matched (<= $((2 * main_all)))"
	is "$dequeues" "$deq" "dequeues = the tracked threads' voluntary switches, as the kernel counts them"
fi
diag "tracked threads whose task_cpu is not where they last ran (moved while queued asleep): $moved"
is "$wrong" 0 "each tracked thread shown asleep on the CPU it last ran on (its last sched_switch out in the trace)"
stop_load
ok 'until_stat tracked 0' "the threads' exit frees the pool"
ok 'start_load sl_drop 4 0 0 && until_stat tracked 5' "new tasks are tracked again once entries are free (4 threads and main)"
diag "$(grep -E '^(tracked|dropped|track_locked)' $STATS | tr '\n' ' ')"
stop_load
echo 0 > $SYS/signals/enabled
echo 2048 > $SYS/signals/max_tasks

# --- 2. 2000 sleeping threads ------------------------------------------------------
N=2000
echo sl_many > $SYS/signals/filter_comm
echo 1 > $SYS/signals/enabled
t0=$(date +%s)
ok 'start_load sl_many $N 0 0' "$N threads started ($(( $(date +%s) - t0 )) s)"
nt=$(ls /proc/$loadpid/task | wc -l)
ok 'until_stat tracked $nt' "all $nt threads tracked"
is "$(st dropped)" 0 "none dropped (max_tasks 2048)"
w0=$(st report_walks)
cat $TASKS >$tmp/cat.txt
w1=$(st report_walks)
dd if=$TASKS of=$tmp/dd.txt bs=100 2>$tmp/dd.err
w2=$(st report_walks)
cat $DBG/signals/cpus >$tmp/cpus.txt
w3=$(st report_walks)
tracked=$(st tracked)
diag "tasks report: $(wc -c <$tmp/cat.txt) bytes; dd: $(tail -n1 $tmp/dd.err)"
is "$(awk 'NR > 2' $tmp/cat.txt | wc -l)" "$tracked" "the tasks report has one row per tracked task ($tracked)"
is "$(awk 'NR > 2 {print $1}' $tmp/cat.txt | sort -n | tr '\n' ' ')" \
	"$(ls /proc/$loadpid/task | sort -n | tr '\n' ' ')" "its pids are the threads', each once"
is "$((w1 - w0))" 1 "one walk of the table for the whole report"
is "$((w2 - w1))" 1 "one walk for the report read 100 bytes at a time"
# the sleeping threads' stable columns: pid tgid comm cpu state util_avg util_est run_ms wait_ms
stable() { awk 'NR <= 2 { print; next } { print $1, $2, $3, $4, $5, $6, $7, $12, $13 }' "$1"; }
ok 'cmp -s <(stable $tmp/cat.txt) <(stable $tmp/dd.txt)' "read 100 bytes at a time: the same rows in the same order (stable columns)"
is "$(awk 'NR > 2 { n += $9 } END { print n }' $tmp/cpus.txt)" "$tracked" "the cpus report counts each task once"
is "$((w3 - w2))" 1 "one walk for the cpus report"
stop_load
echo 0 > $SYS/signals/enabled
echo > $SYS/signals/filter_comm
is "$(dmesg | grep -cE 'detected stall|detected expedited stall|soft lockup|blocked for more than')" 0 \
	"no RCU stall, soft lockup or hung task in dmesg"
unload
ok '! loaded' "unloaded"
done_testing
