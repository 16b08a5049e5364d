# blocked_on under tasks that exit mid-wait, and under a storm of short
# contended waits:
#  - real contention from syscalls (tests/guest/pty_writers.py: writers of a
#    pty nobody reads, on the tty's atomic_write_lock): a waiter killed
#    mid-wait (its wait ends, not acquired, and it is forgotten), then the
#    owner killed while a waiter waits (the waiter gets the lock);
#  - four driver workers on two CPUs taking one mutex for 15 s: at least
#    10,000 contended waits a second, every wait begun also ended, nothing
#    left tracked, no slot ever missing, and no vmalloc'd memory of
#    schedlab's left once disabled (/proc/vmallocinfo names the caller);
#  - lockless filtering: while a tracked mutex wait is held open, two
#    driver workers storm an rwsem (not a mutex) for 3 s: every one of
#    their contention_end events (counted by the kernel's own trace hist
#    trigger on lock:contention_end) is filtered without blocked_on's lock
#    (end_lockless), none takes it for nothing (end_locked_idle 0), and
#    their context switches (/proc/PID/status) go by without it too
#    (sched_lockless); the tracked workers' context switches are queued,
#    not locked per event (sched_queued, sched_locked);
#  - an owner sleeping 60 times while a waiter waits, no report read: its
#    queued events applied in order (the wait's split says it slept);
#  - schedlab unloaded in the middle of another storm.
# (vm-run.sh fails the whole run on any warning or splat in dmesg.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

stat_of() { awk -v k="$1" '$1 == k { print $2 }' $BD/stats; }
# the same, from the snapshot in \$st
st_of() { awk -v k="$1" '$1 == k { print $2 }' <<<"$st"; }
# the tasks report's column COL for PID
task_col() {	# task_col PID COL
	awk -v p="$1" -v c="$2" 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		$1 == p { print $(k); exit }' $BD/tasks
}
chain_of() { grep "^$1 " <<<"$chains"; }

load
vm_before=$(grep -c '\[schedlab\]' /proc/vmallocinfo)
is "$($SYSFS_WRITE $BO/enabled 1)" ok "blocked_on enabled"
ok "[ $(grep -c '\[schedlab\]' /proc/vmallocinfo) -gt $vm_before ]" "its tables are allocated (vmallocinfo)"

# --- 1. a waiter, then the owner, killed in the middle of a wait -----------
pidfile=$(mktemp -u)
python3 "$TOP/tests/guest/pty_writers.py" 3 "$pidfile" &
runner=$!
for i in $(seq 100); do [ -s "$pidfile" ] && break; sleep 0.1; done
read -r p1 p2 p3 <"$pidfile"
diag "pty writers: $p1 $p2 $p3"
# two of them wait on the mutex the third holds
chains_until 100 0.1 '[ "$(grep -c " | depth 2 " <<<"$chains")" = 2 ]'
diag "$chains"
is "$(grep -c ' | depth 2 ' <<<"$chains")" 2 "two writers wait on the tty's write mutex"
waiters=$(grep ' | depth 2 ' <<<"$chains" | awk '{ print $1 }' | sort -n | paste -sd' ')
owner=$(grep ' | depth 2 ' <<<"$chains" | head -1 | sed -E 's/.* -> ([0-9]+) .*/\1/')
locks=$(grep ' | depth 2 ' <<<"$chains" | sed -E 's/.* -> lock ([^ ]+) .*/\1/' | sort -u)
others=$(printf '%s\n' $p1 $p2 $p3 | grep -vx "$owner" | sort -n | paste -sd' ')
is "$waiters" "$others" "the waiters are the two writers that are not the owner ($owner)"
is "$(wc -l <<<"$locks")" 1 "on the same lock ($locks)"
set -- $waiters
wa=$1 wb=$2
# the writers have come and gone on the mutex until now: count from here
blocked_on_agreed "before the reset"
is "$($SYSFS_WRITE $BD/reset 1)" ok "statistics reset"
kill -9 "$wa"
chains_until 100 0.1 '! grep -q "^$wa " <<<"$chains" && [ "$(stat_of waits_in_progress)" = 1 ]'
is "$(stat_of waits_in_progress)" 1 "the killed waiter's wait ended; one left"
ok "! grep -q '^$wa ' <<<\"\$chains\"" "the killed waiter is not in the chains"
is "$(task_col "$wa" waits)/$(task_col "$wa" acquired)" 1/0 "its wait is recorded, not acquired"
kill -9 "$owner"
for i in $(seq 100); do
	[ "$(stat_of waits_in_progress)" = 0 ] && break
	sleep 0.1
done
is "$(stat_of waits_in_progress)" 0 "the owner killed mid-wait: the last waiter got the mutex"
is "$(task_col "$wb" waits)/$(task_col "$wb" acquired)" 1/1 "its wait is recorded, acquired"
kill -9 "$wb"
wait "$runner" 2>/dev/null
rm -f "$pidfile"
for i in $(seq 50); do [ "$(stat_of tracked_tasks)" = 0 ] && break; sleep 0.1; done
is "$(stat_of tracked_tasks)/$(stat_of tracked_locks)" 0/0 "the exited tasks are forgotten, nothing tracked"
# from one read: other tasks' waits may come and go meanwhile (those still
# spinning are not counted as begun yet, those in the graph are)
st=$(<$BD/stats)
sv() { awk -v k="$1" '$1 == k { print $2 }' <<<"$st"; }
is "$(( $(sv waits_ended) + $(sv waits_in_progress) - $(sv waits_spinning) - $(sv waits_begun) ))" 2 \
	"the two waits in progress at the reset ended, every one begun since too (or is in progress)"

# --- 2. a storm of short contended waits ------------------------------------
insmod $TDKO || true
ok "[ -w $TD/cmd ]" "test driver loaded"
td() { $SYSFS_WRITE $TD/cmd "$1"; }
is "$(td 'spawn Z storm m5 60001')" EINVAL "driver: a storm longer than 60 s is refused"
is "$(td 'spawn Z storm m8 10')" ENOENT "driver: a storm on no such lock is refused"
is "$(td 'spawn Z lock m5; storm m5 10; unlock m5')" EINVAL "driver: a storm on a lock the program holds is refused"
blocked_on_agreed "the exits mid-wait"
is "$($SYSFS_WRITE $BD/reset 1)" ok "statistics reset"
secs=15	# (the sustained rate over 60 s and 1,000 locks is t83's)
for w in S0:0 S1:1 S2:0 S3:1; do
	td "spawn ${w%:*} cpu=${w#*:} policy=other nice=0 storm m5 $((secs * 1000))" >/dev/null
done
is "$(td start)" ok "four workers take m5 for $secs s"
reads=0
while grep -q 'state=running\|state=waiting' $TD/status; do
	# the reports, read while the probes run
	c=$(<$BD/chains) l=$(<$BD/locks) t=$(<$BD/tasks) s=$(<$BD/stats)
	reads=$((reads + 1))
	sleep 0.5
	[ $reads -lt 400 ] || break
done
is "$(td reset)" ok "the storm is over ($reads reads of the reports during it)"
blocked_on_agreed "the storm"
# Other tasks of the guest take mutexes too: judge one read of stats, taken
# when none of their waits is in progress.
for _ in $(seq 50); do
	st=$(<$BD/stats)
	[ "$(st_of waits_in_progress)" = 0 ] && break
	sleep 0.1
done
ended=$(st_of waits_ended)
read -r t0 t1 cycles < <(awk '$3 == "storm" { if (!a || $6 < a) a = $6; if ($7 > b) b = $7; n += $5 }
	END { print a, b, n }' $TD/log)
dur_ms=$(( (t1 - t0) / 1000000 ))
rate=$(( ended * 1000 / (dur_ms ? dur_ms : 1) ))
diag "$cycles lock/unlock cycles, $ended contended waits in $dur_ms ms: $rate waits/s"
diag "$(tr '\n' ' ' <$BD/stats)"
ok "[ $rate -ge 10000 ]" "at least 10000 contended waits a second ($rate)"
is "$(st_of waits_begun)" "$ended" "every wait begun has ended"
is "$(st_of waits_in_progress)" 0 "no wait in progress"
is "$(st_of tracked_tasks)/$(st_of tracked_locks)" 0/0 "nothing tracked"
is "$(st_of no_room)/$(st_of owners_not_tracked)" 0/0 "never out of room"
# the workers' context switches are queued per CPU, applied at the next wait's
# begin or end: a scheduler probe takes the lock for a waiter sleeping again
# after a wake-up that did not give it the lock (waiter_sync), otherwise
# only when its queue is half full (128 events), so at most once per 64
sq=$(st_of sched_queued) sl=$(st_of sched_locked) ws=$(st_of waiter_sync)
diag "scheduler events of tracked tasks: $sq queued, of which $ws a waiter sleeping again applied at once; scheduler probes took blocked_on's lock $sl times to drain (queue full $(st_of queue_full))"
ok "[ $sq -gt 0 ] && [ $((sl * 64)) -le $sq ] && [ $((ws * 10)) -le $sq ]" \
	"the storm's context switches are queued, not locked per event ($sq events, $ws waiters' applied at once, $sl drains)"
m5=$(awk '$1 == "m5" { print $2 }' $TD/addr)
n5=$(awk -v a="$m5" '$1 "" == a "" { print $3 }' $BD/locks)
rec=$(stat_of waits_recorded)
ok "[ $((rec - n5)) -le $((rec / 1000)) ]" "nearly all of them recorded on m5 ($n5 of $rec)"

# --- 2b. queued events applied in order ------------------------------------
# O holds m1 through 60 sleeps of 1 ms on CPU 0 while W waits on it from CPU
# 1: O's switches and wake-ups (two events a sleep, one more at the switch
# in) are queued on their CPUs with no report read until the end, applied
# when W's wait ends or a queue is half full. Out of order, or lost, the
# wait would show O running where it slept.
is "$($SYSFS_WRITE $BD/reset 1)" ok "statistics reset"
prog="lock m1"
for _ in $(seq 60); do prog="$prog; sleep 1"; done
is "$(td "spawn O cpu=0 policy=other nice=0 $prog; unlock m1")" ok "spawn O: m1 held through 60 sleeps"
is "$(td 'spawn W cpu=1 policy=other nice=0 wait O 0; lock m1; unlock m1')" ok "spawn W: waits on m1"
is "$(td start)" ok "start"
for _ in $(seq 300); do
	grep -q 'state=running\|state=waiting' $TD/status || break
	sleep 0.1
done
is "$(td reset)" ok "O and W done"
st=$(<$BD/stats)
# m1's row of the locks report (W's own row would count any other mutex
# it met: a debug kernel's kthreads meet some)
m1=$(awk '$1 == "m1" { print $2 }' $TD/addr)
lock_col() { awk -v a="$m1" -v c="$1" 'NR == 2 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
	$1 "" == a "" { print $(k); exit }' $BD/locks; }
wt=$(lock_col total_us) wsl=$(lock_col sleeping)
diag "W's wait on m1: ${wt} us, O asleep for ${wsl} us of it; scheduler events queued $(st_of sched_queued), the probes' drains $(st_of sched_locked), queue full $(st_of queue_full)"
is "$(lock_col waits)/$(lock_col acquired)" 1/1 "W's one wait on m1 recorded, acquired"
ok "[ $(st_of sched_queued) -ge 120 ]" "O's sleeps and wake-ups were queued ($(st_of sched_queued) events)"
ok "[ $((wsl * 10)) -ge $((wt * 8)) ] && [ $wt -gt 60000 ]" \
	"the wait is split as O spent it: asleep $wsl us of $wt (>= 80%)"

# --- 3. lockless filtering: an rwsem storm beside a tracked mutex wait -----
# A holds m0 asleep for 8 s; B waits on it (a tracked wait, open throughout);
# R0 and R1 storm the driver's rwsem from 1.5 s to 4.5 s after A took m0.
HIST=$TRACING/events/lock/contention_end
# field F (6: start, 7: end, 5: ret) of worker NAME's step STEP in the driver's log
log_of() { awk -v n="$1" -v s="$2" -v f="$3" '$1 == n && $2 == s { print $f; exit }' $TD/log; }
ctxsw() { awk '/^(non)?voluntary_ctxt_switches/ { n += $2 } END { print n + 0 }' "/proc/$1/status"; }
stv() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
is "$(td 'spawn R9 rwstorm 60001')" EINVAL "driver: an rwstorm longer than 60 s is refused"
is "$(td 'spawn A cpu=0 policy=other nice=0 lock m0; sleep 8000; unlock m0')" ok "spawn A: m0 held asleep 8 s"
is "$(td 'spawn B cpu=1 policy=other nice=0 wait A 0; lock m0; unlock m0')" ok "spawn B: waits on m0"
for w in R0:0 R1:1; do
	td "spawn ${w%:*} cpu=${w#*:} policy=other nice=0 wait A 0; sleep 1500; mark; rwstorm 3000" >/dev/null
done
hist=0
if [ -w "$HIST/trigger" ] && echo 'hist:keys=common_pid' >"$HIST/trigger" 2>/dev/null; then
	hist=1
fi
is "$($SYSFS_WRITE $BD/reset 1)" ok "statistics reset"
s0=$(<$BD/stats)
is "$(td start)" ok "start"
pa=$(pid_of A) pb=$(pid_of B) r0=$(pid_of R0) r1=$(pid_of R1)
chains_until 100 0.1 'grep -q "^$pb " <<<"$chains"'
c0=$(( $(ctxsw "$r0") + $(ctxsw "$r1") ))
ok "grep -q '^$pb .* -> $pa ' <<<\"\$chains\"" "B ($pb) waits on m0 behind A ($pa)"
for _ in $(seq 300); do
	[ -n "$(log_of R0 3 7)" ] && [ -n "$(log_of R1 3 7)" ] && break
	sleep 0.1
done
s1=$(<$BD/stats)
chains=$(<$BD/chains)
c1=$(( $(ctxsw "$r0") + $(ctxsw "$r1") ))
if [ $hist = 1 ]; then
	h=$(<"$HIST/hist")
	echo '!hist:keys=common_pid' >"$HIST/trigger"
fi
a_end=$(log_of A 1 7) b_start=$(log_of B 0 7)
storm_start=$(( $(log_of R0 2 7) < $(log_of R1 2 7) ? $(log_of R0 2 7) : $(log_of R1 2 7) ))
storm_end=$(( $(log_of R0 3 7) > $(log_of R1 3 7) ? $(log_of R0 3 7) : $(log_of R1 3 7) ))
taken=$(( $(log_of R0 3 5) + $(log_of R1 3 5) ))
diag "B's wait from $b_start, the storm $storm_start..$storm_end (write lock found taken $taken times), A's sleep ended: ${a_end:-not yet}"
ok "[ -z '$a_end' ] && [ $b_start -lt $storm_start ] && grep -q '^$pb ' <<<\"\$chains\"" \
	"the storm ran inside B's tracked wait (driver's log; B still in the chains after it)"
d() { echo $(( $(stv "$1" "$s1") - $(stv "$1" "$s0") )); }
diag "during the storm: end_lockless $(d end_lockless) end_locked $(d end_locked) end_locked_idle $(d end_locked_idle) sched_lockless $(d sched_lockless) sched_locked $(d sched_locked) waits_recomputed $(d waits_recomputed); storm workers' context switches $((c1 - c0))"
ok "[ $taken -ge 100 ]" "the storm contended ($taken times)"
is "$(d end_locked_idle)" 0 "no contention_end took blocked_on's lock for nothing"
ok "[ $(d sched_lockless) -ge $((c1 - c0)) ] && [ $((c1 - c0)) -gt 0 ]" \
	"the storm workers' $((c1 - c0)) context switches filtered without the lock ($(d sched_lockless) scheduler events)"
if [ $hist = 1 ]; then
	hits=$(awk -v a="$r0" -v b="$r1" '/common_pid:/ { p = $0; sub(/.*common_pid: */, "", p); sub(/[^0-9].*/, "", p);
		h = $0; sub(/.*hitcount: */, "", h); if (p == a || p == b) n += h } END { print n + 0 }' <<<"$h")
	diag "lock:contention_end of the storm workers (trace hist): $hits"
	ok "[ $hits -gt 0 ] && [ $(d end_lockless) -ge $hits ]" \
		"every contention_end of the storm ($hits, trace hist) filtered without the lock ($(d end_lockless))"
else
	ok true "# SKIP no hist trigger on lock:contention_end"
fi
is "$(td reset)" ok "driver reset (A and B end)"
blocked_on_agreed "the rwsem storm"

is "$($SYSFS_WRITE $BO/enabled 0)" ok "disabled"
is "$(grep -c '\[schedlab\]' /proc/vmallocinfo)" "$vm_before" "its memory is freed (vmallocinfo)"

# --- 4. unloaded in the middle of a storm -------------------------------------
is "$($SYSFS_WRITE $BO/enabled 1)" ok "enabled again"
for w in U0:0 U1:1 U2:0 U3:1; do
	td "spawn ${w%:*} cpu=${w#*:} policy=other nice=0 storm m5 5000" >/dev/null
done
is "$(td start)" ok "another storm"
for i in $(seq 50); do [ "$(stat_of waits_begun)" -gt 100 ] && break; sleep 0.1; done
ok "[ $(stat_of waits_in_progress) -ge 0 ] && [ $(stat_of waits_begun) -gt 100 ]" "waits going on ($(stat_of waits_begun) begun)"
blocked_on_agreed "the second storm, before the unload"
unload
ok '! loaded' "schedlab unloaded while blocked_on is enabled, mid-storm"
is "$(td reset)" ok "the storm ends without it"
is "$(grep -c '\[schedlab\]' /proc/vmallocinfo)" 0 "nothing of schedlab's left in vmallocinfo"
rmmod schedlab_testdrv
done_testing
