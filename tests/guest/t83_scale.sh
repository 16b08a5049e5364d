# Scale (docs/reliability.md, "Scale"): signals and blocked_on on, over
# 10,000 threads alive (the test driver's lock workers and sleeping user
# threads), 1,000 kernel mutexes contended by 2,000 kthreads for
# SCHEDLAB_TEST_SCALE_S seconds (default 40). The kernel's own count of
# the waits on those locks (a hist trigger on lock:contention_end, filtered
# to their address range) is the reference:
#  - blocked_on saw every one of them (its waits_ended is at least the
#    kernel's count) and lost none for want of room; every wait begun
#    ended;
#  - signals tracked every thread (pool large enough: no drop);
#  - the reports stay readable while it runs (each read timed);
#  - the memory schedlab holds (its vmalloc areas, from /proc/vmallocinfo)
#    is reported and stays what max_tasks sizes;
#  - no soft lockup, RCU stall or hung task.
# The figures (threads, locks, waits/s, losses, memory) are printed.
# The test itself runs SCHED_FIFO: beside 2,000 runnable kthreads a
# normal shell would get one 2,000th of the CPUs and read nothing.
[ -n "${T83_FIFO:-}" ] || T83_FIFO=1 exec chrt -f 10 bash "$0" "$@"
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

# 40 s: past the RCU stall (21 s) and soft lockup (20 s) timeouts, and
# hundreds of thousands of waits to compare (60 s until the suite grew)
SECS=${SCHEDLAB_TEST_SCALE_S:-40}
NLOCKS=1000 NWORKERS=2000 NUSER=8000
HIST=$TRACING/events/lock/contention_end
tmp=$(mktemp -d)
loadpid=
cleanup() {
	[ -n "$loadpid" ] && { kill "$loadpid" 2>/dev/null; wait "$loadpid" 2>/dev/null; }
	[ -n "${filt:-}" ] && echo "!hist:keys=lock_addr.hex:size=4096 if $filt" >"$HIST/trigger" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# kv FILE KEY: the value of a "key value" line
kv() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
# the bytes of schedlab's vmalloc areas
vm_bytes() { awk '/\[schedlab\]/ { n += $2 } END { print n + 0 }' /proc/vmallocinfo; }
threads_alive() { awk '{ split($4, a, "/"); print a[2] }' /proc/loadavg; }

unload
load
rmmod schedlab_testdrv 2>/dev/null
insmod "$TDKO"
echo 8192 >$BO/max_tasks
echo 16384 >$SYS/signals/max_tasks
echo 1 >$BO/enabled
echo 1 >$SYS/signals/enabled
ok "[ \$(<$BO/enabled) = 1 ] && [ \$(<$SYS/signals/enabled) = 1 ]" "blocked_on (max_tasks 8192) and signals (max_tasks 16384) on"
vm0=$(vm_bytes)
avail0=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)

# the sleeping user threads first (each runs once at its start: tracked)
t0=$(date +%s)
"$HOSTBIN/sl_load" -n sl_scale threads $NUSER 0 0 >"$tmp/ready" &
loadpid=$!
for _ in $(seq 1200); do [ -s "$tmp/ready" ] && break; sleep 0.1; done
ok "[ -s $tmp/ready ]" "$NUSER user threads started ($(( $(date +%s) - t0 )) s)"

# the kernel's count of waits on the driver's locks, from the run's start
is "$($SYSFS_WRITE $TD/cmd "scale 2 3 1")" EINVAL "driver: a scale run with a lock of one worker is refused"
is "$($SYSFS_WRITE $TD/cmd "scale 4097 8194 1000")" EINVAL "driver: more than 4096 locks refused"
is "$($SYSFS_WRITE $BD/reset 1)" ok "blocked_on statistics reset"
s0=$(<$BD/stats)
# prepared (locks allocated, kthreads created), the trigger set on the
# locks' range, then started
t0=$(date +%s)
is "$($SYSFS_WRITE $TD/cmd "scale $NLOCKS $NWORKERS $((SECS * 1000))")" ok \
	"driver: $NWORKERS kthreads on $NLOCKS mutexes prepared ($(( $(date +%s) - t0 )) s)"
is "$($SYSFS_WRITE $TD/cmd "scale start now")" EINVAL "driver: 'scale start' takes no argument"
lo=$(kv $TD/scale lock_lo) hi=$(kv $TD/scale lock_hi)
filt="lock_addr >= $lo && lock_addr < $hi"
echo "hist:keys=lock_addr.hex:size=4096 if $filt" >"$HIST/trigger" || filt=
echo 1 >"$HIST/enable"
ok "[ -n '$filt' ]" "hist trigger on lock:contention_end for the locks' range $lo..$hi"
# The reports while it runs, from a monitor started first, SCHED_FIFO like
# the test, that uses only shell builtins: once the 2,000 kthreads run,
# a program start or a file on the guest's root (virtiofs, whose replies
# are completed by a kworker, a normal task among 2,000 runnable ones)
# can wait for seconds, SCHED_FIFO or not, schedlab's features on or off.
cpu_split() { awk '$1 == "cpu" { print "user " $2 " nice " $3 " system " $4 " idle " $5 " irq " $7 " softirq " $8 }' /proc/stat; }
stat0=$(cpu_split)
mkfifo "$tmp/tick"
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
bkv() {	# bkv FILE KEY, builtins only
	local k v
	while read -r k v; do [ "$k" = "$2" ] && { echo "$v"; return; }; done <"$1"
}
monitor() {
	local reads=0 fail=0 max_ms=0 vm_peak=$vm0 avail_min=$avail0 f a ms v m line k n
	exec 9<>"$tmp/tick"
	until [ "$(bkv $TD/scale started)" = 1 ]; do read -r -t 0.2 -u 9 || true; done
	while [ "$(bkv $TD/scale running)" != 0 ]; do
		for f in $BD/chains $BD/locks $BD/tasks $BD/inversions $BD/stats \
			$DBG/signals/tasks $DBG/signals/cpus $DBG/signals/stats; do
			a=$(now_ms)
			line=
			if { read -r -d '' line <"$f"; } 2>/dev/null || [ -n "$line" ]; then reads=$((reads + 1)); else fail=$((fail + 1)); fi
			ms=$(( $(now_ms) - a ))
			[ $ms -gt $max_ms ] && max_ms=$ms
		done
		# (not /proc/vmallocinfo: a builtin read seeks, and each seek
		# re-walks its 10,000 areas)
		m=$(bkv /proc/meminfo MemAvailable:); m=${m%% *}
		[ "$m" -lt "$avail_min" ] && avail_min=$m
		read -r -t 2 -u 9 || true
	done
	echo "$reads $fail $max_ms $vm_peak $avail_min" >"$tmp/monitor"
}
monitor &
monpid=$!
t0=$(date +%s%N)
ok 'echo "scale start" >$TD/cmd' "driver: the run starts ($SECS s)"
ok '! echo "scale start" >$TD/cmd 2>/dev/null' "driver: a run starts once (refused)"
alive=$(threads_alive)
ok "[ $alive -ge 10000 ]" "threads alive: $alive"
wait $monpid
read -r reads read_fail read_max_ms vm_peak avail_min <"$tmp/monitor"
vm_peak=$(vm_bytes)	# schedlab allocates at enable; after the run, every entry in use
wall_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
diag "cpu time (USER_HZ) before: $stat0; after: $(cpu_split)"
# the reports with the tables at their fullest
after_reads=0 after_fail=0 after_max_ms=0
for f in $BD/chains $BD/locks $BD/tasks $BD/inversions $BD/stats \
	$DBG/signals/tasks $DBG/signals/cpus $DBG/signals/stats; do
	a=$(date +%s%N)
	if cat "$f" >"$tmp/report.$(basename "$f")"; then after_reads=$((after_reads + 1)); else after_fail=$((after_fail + 1)); fi
	ms=$(( ($(date +%s%N) - a) / 1000000 ))
	[ $ms -gt $after_max_ms ] && after_max_ms=$ms
done
echo 0 >"$HIST/enable"
s1=$(<$BD/stats)
# the mutexes' own addresses: the range also holds each one's wait_lock,
# a spinlock whose contention_end is not a mutex wait
size=$(( (hi - lo) / NLOCKS ))
cp "$HIST/hist" "$tmp/hist"
kernel_waits=0 kernel_other=0
while read -r _ _ a _ _ n; do	# { lock_addr: ffff... } hitcount: N (bash: 64-bit)
	a=0x${a#0x}
	if [ $(( (a - lo) % size )) = 0 ]; then kernel_waits=$((kernel_waits + n)); else kernel_other=$((kernel_other + n)); fi
done < <(grep '^{ lock_addr:' "$tmp/hist")
echo "!hist:keys=lock_addr.hex:size=4096 if $filt" >"$HIST/trigger"; filt=
sig=$(<$DBG/signals/stats)
stv() { awk -v k="$1" '$1 == k { print $2 }' <<<"$2"; }
d() { echo $(( $(stv "$1" "$s1") - $(stv "$1" "$s0") )); }
cycles=$(kv $TD/scale cycles) contended=$(kv $TD/scale contended)
rate=$(( kernel_waits * 1000 / (SECS * 1000) ))
diag "threads alive $alive; $NLOCKS locks, $NWORKERS lock workers, $NUSER sleeping user threads; run $wall_ms ms"
diag "driver: $cycles lock cycles, $contended found the lock taken; kernel (contention_end on the locks): $kernel_waits waits ($kernel_other on the wait_locks inside them), $rate waits/s"
diag "blocked_on: begun $(d waits_begun) ended $(d waits_ended) recorded $(d waits_recorded) no_room $(d no_room) stats_full $(d stats_full) replaced $(d waits_replaced) in progress $(stv waits_in_progress "$s1") spinning $(stv waits_spinning "$s1")"
diag "blocked_on: end_locked $(d end_locked) end_lockless $(d end_lockless) sched_queued $(d sched_queued) sched_locked $(d sched_locked) waiter_sync $(d waiter_sync) queue_full $(d queue_full) sched_lockless $(d sched_lockless) waits_recomputed $(d waits_recomputed)"
diag "signals: $(grep -E '^(tracked|max_tasks|dropped|dequeues|samples) ' <<<"$sig" | tr '\n' ' ')"
diag "reports: $reads reads while it ran (the longest $read_max_ms ms, $read_fail failed); $after_reads after it, the longest $after_max_ms ms; signals tasks report $(wc -l <"$tmp/report.tasks") lines"
diag "memory: schedlab's vmalloc areas $((vm0 / 1024)) KiB at enable, $((vm_peak / 1024)) KiB after the run; MemAvailable fell by at most $(( (avail0 - avail_min) / 1024 )) MiB while it ran (the threads, kthreads and schedlab together)"
# Under emulation on 2 vCPUs the guest is saturated (timers and wake-ups,
# with schedlab off as well) and the cycle rate depends on the host: the
# 10,000 waits/s aimed at is reported, not required. The driver hands each
# lock over only to a worker that is coming (before it did that, the two
# workers of a lock fell into step and one CI run saw 5 waits/s): most of
# its cycles are contended waits.
ok "[ $rate -ge 2000 ] && [ $(( contended * 2 )) -ge $cycles ]" \
	"the locks are contended: $rate waits/s (aim: 10,000), $contended of $cycles cycles"
ok "[ $(d waits_ended) -ge $kernel_waits ] && [ $kernel_waits -gt 0 ]" \
	"blocked_on ended every wait the kernel counted ($(d waits_ended) >= $kernel_waits; spinners switched out $(d spin_switched))"
is "$(d no_room)" 0 "no wait lost for want of room"
is "$(d waits_begun)" "$(( $(d waits_ended) + $(d waits_replaced) + $(stv waits_in_progress "$s1") - $(stv waits_in_progress "$s0") ))" \
	"every wait begun ended, was replaced, or is still in progress"
is "$(stv dropped "$sig")" 0 "signals dropped nothing"
ok "[ $(stv tracked "$sig") -ge $NUSER ]" "signals tracks every user thread ($(stv tracked "$sig") tracked)"
is "$read_fail/$after_fail" 0/0 "every report read succeeded ($reads while it ran, $after_reads after it)"
ok "[ $vm_peak = $vm0 ]" "schedlab's vmalloc memory stayed as max_tasks sized it ($((vm0 / 1024)) KiB, the same after the run)"
kill "$loadpid"; wait "$loadpid" 2>/dev/null; loadpid=
is "$(dmesg | grep -cE 'detected stall|detected expedited stall|soft lockup|blocked for more than')" 0 \
	"no RCU stall, soft lockup or hung task in dmesg"
rmmod schedlab_testdrv
echo 0 >$BO/enabled
echo 0 >$SYS/signals/enabled
echo 256 >$BO/max_tasks
echo 2048 >$SYS/signals/max_tasks
unload
ok '! loaded' "unloaded"
done_testing
