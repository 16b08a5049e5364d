# The kernel's own lock tests as load (the built kernels have them as
# modules; Debian's do not): locktorture with the mutex, ww_mutex and
# rtmutex torture types, then test-ww_mutex, with blocked_on and signals
# enabled. Each torture run ends in SUCCESS; blocked_on ended every wait it
# began; where task_struct::blocked_on exists, no disagreement with it.
# vm-run fails the run on any splat (KASAN, lockdep, ...).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

secs=${SCHEDLAB_TEST_TORTURE_S:-30}
mods=${SCHEDLAB_MODDIR:-/lib/modules/$(uname -r)}
lt=$(find "$mods" -name locktorture.ko 2>/dev/null | head -n1)
tt=$(find "$mods" -name torture.ko 2>/dev/null | head -n1)
ww=$(find "$mods" -name test-ww_mutex.ko 2>/dev/null | head -n1)
if [ -z "$lt" ] || [ -z "$tt" ]; then
	skip "locktorture" "this kernel has no locktorture module ($mods)"
	done_testing
	exit
fi
bo_stat() { awk -v k="$1" '$1 == k { print $2 }' "$BD/stats"; }
load enable=blocked_on,signals
echo 1 > $SYS/signals/enabled
ok '[ "$(cat $SYS/blocked_on/enabled)$(cat $SYS/signals/enabled)" = 11 ]' "blocked_on and signals enabled"
insmod "$tt"
for type in mutex_lock ww_mutex_lock rtmutex_lock; do
	dmesg -c >/dev/null 2>&1 || true
	before=$(bo_stat waits_begun)
	t0=$(date +%s)
	if ! insmod "$lt" torture_type=$type nwriters_stress=4 stat_interval=0 shutdown_secs=0 \
			onoff_interval=0 stutter=0; then
		_tap_result 0 "locktorture $type loaded"
		continue
	fi
	sleep "$secs"
	rmmod locktorture
	verdict=$(dmesg | grep -o 'End of test: [A-Z]*' | tail -n1)
	stats=$(dmesg | grep -m1 -o 'Writes: *Total: [0-9]*.*' | tail -n1)
	diag "$type: $stats"
	is "$verdict" "End of test: SUCCESS" "locktorture $type: $(( $(date +%s) - t0 )) s, torture's verdict"
	# the waits of the run: every one begun has ended now that the writers are gone
	begun=$(( $(bo_stat waits_begun) - before ))
	diag "$type: blocked_on waits begun $begun, in progress $(bo_stat waits_in_progress), recorded $(bo_stat waits_recorded)"
	is "$(bo_stat waits_in_progress)" 0 "locktorture $type: every mutex wait blocked_on saw begin also ended"
	case $type in
	mutex_lock) ok '[ "$begun" -gt 0 ]' "locktorture mutex_lock: blocked_on saw its waits ($begun)" ;;
	esac
done
rmmod torture
if [ -n "$ww" ]; then
	# (timed before the result is given: an ok's description is expanded
	# before its command runs)
	t0=$(date +%s)
	insmod "$ww"; rc=$?
	is "$rc" 0 "test-ww_mutex: every test passed (it loads only then; $(( $(date +%s) - t0 )) s)"
	rmmod test_ww_mutex 2>/dev/null
	is "$(bo_stat waits_in_progress)" 0 "test-ww_mutex: no wait left in progress"
else
	skip "test-ww_mutex" "not built"
fi
# a wait whose end was not seen is closed, unrecorded, when its task begins
# another (waits_replaced): every wait begun has ended one way or the other,
# or is in progress (other tasks keep waiting: one read of stats)
st=$(<"$BD/stats")
sv() { awk -v k="$1" '$1 == k { print $2 }' <<<"$st"; }
diag "blocked_on: waits begun $(sv waits_begun), ended $(sv waits_ended), replaced $(sv waits_replaced), in progress $(sv waits_in_progress) (spinning $(sv waits_spinning))"
is "$(sv waits_begun)" "$(( $(sv waits_ended) + $(sv waits_replaced) + $(sv waits_in_progress) - $(sv waits_spinning) ))" \
	"blocked_on: every wait begun ended or is in progress (ended + replaced + in progress)"
ok '[ "$(sv waits_replaced)" -le $(( $(sv waits_begun) / 10000 )) ]' "blocked_on: at most 1 in 10,000 waits ended unseen ($(sv waits_replaced))"
blocked_on_agreed "after the lock torture"
unload
done_testing
