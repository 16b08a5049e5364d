# Reliability (the debug kernel's suite; runs on any kernel): load with
# every available feature enabled (every tenth time: trace events on and
# every report read), unload, SCHEDLAB_TEST_RELOADS
# times (default 200), while a mutex contention storm (test driver), a
# context-switch load and a SCHED_DEADLINE thread that keeps mapping its
# /dev/dlparams page run. Then nothing of the module is left, and on a
# kernel with kmemleak no leak has schedlab in its backtrace. vm-run fails
# the run on any KASAN, lockdep, UBSAN, list, RCU or kmemleak report.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

cycles=${SCHEDLAB_TEST_RELOADS:-200}
KML=/sys/kernel/debug/kmemleak
unload
# what the kernel had leaked before schedlab came: not ours
[ -w $KML ] && echo clear > $KML
insmod "$TDKO" || true
ok "[ -w $TD/cmd ]" "test driver loaded"
td() { $SYSFS_WRITE $TD/cmd "$1" >/dev/null; }
# a storm on m0 from two workers on CPU 0 for the whole run (60 s steps,
# chained; on one CPU the other stays free for the rest)
storm_ms=60000
for w in s0 s1; do td "spawn $w cpu=0 storm m0 $storm_ms; storm m0 $storm_ms; storm m0 $storm_ms; storm m0 $storm_ms; storm m0 $storm_ms"; done
td start
"$HOSTBIN/ctxswitch" 3600 >/tmp/ctx.out &
ctx=$!
mappers=()
for i in 1; do "$HOSTBIN/dlparams_vma" mapper 3600 >/tmp/mapper$i.out 2>&1 & mappers+=($!); done

# every feature this kernel can run
insmod "$KO"
features=$(for f in $SYS/*/; do [ "$(cut -c1 "$f/available")" = 1 ] && basename "$f"; done | paste -sd,)
reports=$(find $DBG -type f -perm -0400 ! -name reset | sort)
rmmod schedlab
diag "features: $features"
fails=0 busy=0 t0=$(date +%s)
for i in $(seq "$cycles"); do
	if ! insmod "$KO" enable="$features"; then fails=$((fails + 1)); continue; fi
	# every tenth cycle: the trace events on, every report read
	if [ $((i % 10)) = 1 ]; then
		echo 1 > $TRACING/events/schedlab/enable
		cat $reports >/dev/null || fails=$((fails + 1))
		echo 0 > $TRACING/events/schedlab/enable
	fi
	# refused while a mapper holds the device: retry
	for try in $(seq 200); do
		rmmod schedlab 2>/dev/null && break
		busy=$((busy + 1)); sleep 0.01
	done
	loaded && { fails=$((fails + 1)); diag "cycle $i: still loaded"; break; }
	[ $((i % 25)) = 0 ] && diag "cycle $i at $(( $(date +%s) - t0 )) s"
done
t=$(( $(date +%s) - t0 ))
is "$fails" 0 "$cycles load/enable-all/read/unload cycles under load ($t s, $busy unload retries while the device was in use)"
ok 'kill -0 $ctx' "context-switch load still running"
kill $ctx "${mappers[@]}" 2>/dev/null; wait $ctx "${mappers[@]}" 2>/dev/null
cat /tmp/mapper1.out | sed 's/^/# /'
ok "! grep -q '^not ok' /tmp/mapper1.out" "the mappers saw only their own pages"
# the storm stops at unload of the driver
rmmod schedlab_testdrv 2>/dev/null
ok '! loaded' "module unloaded"
ok '[ ! -e $SYS ] && [ ! -e $DBG ] && [ ! -e $TRACING/events/schedlab ] && [ ! -e /dev/dlparams ]' "no sysfs, debugfs, tracefs or device entry left"
if [ -w $KML ]; then
	echo scan > $KML; sleep 6; echo scan > $KML
	ours=$(grep -c 'schedlab' $KML || true)
	all=$(grep -c '^unreferenced object' $KML || true)
	is "$ours" 0 "kmemleak: no leak with schedlab in its backtrace ($all leaks in all)"
	[ "$all" = 0 ] || head -40 $KML | sed 's/^/# /'
else
	diag "no kmemleak in this kernel"
fi
done_testing
