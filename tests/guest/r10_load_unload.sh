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
# 30 chained; on one CPU the other stays free for the rest). The load runs at
# nice 19: always there, but the cycles get the CPU first (under KASAN a
# cycle costs seconds).
storm_ms=60000
prog=$(for _ in $(seq 30); do printf 'storm m0 %s; ' $storm_ms; done)	# 30 minutes
for w in s0 s1; do td "spawn $w cpu=0 nice=19 $prog"; done
td start
# The context-switch load runs in a cgroup capped at a quarter of a CPU
# (cpu.max), and the cycles on CPU 0 with the storm (which yields to them):
# round-robin TCG runs the vCPUs in turn on one host thread and skips a
# halted one, so a load that kept CPU 1 busy all the time halved the
# cycles' speed (9.2 s a cycle on the debug kernel). The load still
# switches thousands of times a second, in bursts, on either CPU.
load_cg=/sys/fs/cgroup/r10-load
capped=
if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
	echo +cpu >/sys/fs/cgroup/cgroup.subtree_control && mkdir -p $load_cg &&
	echo "25000 100000" >$load_cg/cpu.max; then
	capped=1
fi
diag "context-switch load: $([ -n "$capped" ] && echo "capped at 25% of a CPU" || echo "not capped (no cpu controller)")"
(if [ -n "$capped" ]; then echo $BASHPID >$load_cg/cgroup.procs; fi
 exec nice -n 19 "$HOSTBIN/ctxswitch" 3600 >/tmp/ctx.out) &
ctx=$!
mappers=()
for i in 1; do "$HOSTBIN/dlparams_vma" mapper 3600 >/tmp/mapper$i.out 2>&1 & mappers+=($!); done

# every feature this kernel can run
insmod "$KO"
# (builtins only: a program start costs seconds here)
features=
for f in $SYS/*/; do
	read -r a <"$f/available"
	[ "${a:0:1}" = 1 ] || continue
	f=${f%/}
	features+=${features:+,}${f##*/}
done
rmmod schedlab
diag "features: $features"
# the cycles from one process (tests/guest/sl_reload.c): insmod and rmmod
# would each add a program start, more than a second under KASAN. Its
# output goes to the results directory as it comes (a line every 25
# cycles): half an hour without output there is what the harness takes
# for a stalled guest.
# The module as DKMS installs it, without its debug sections (STRIP
# defaults to yes): the same code, a quarter of the file, and under KASAN
# a load that reads, copies and frees 4 MB less (0.9 s against 1.5 s
# idle on the debug kernel).
rko=/tmp/r10/schedlab.ko
mkdir -p ${rko%/*}
strip --strip-debug -o $rko "$KO" || cp "$KO" $rko
diag "the module: $(stat -c %s "$KO") bytes, $(stat -c %s $rko) stripped"
reload_out=${SCHEDLAB_RESULTS:-/tmp}/r10-reload.out
taskset -c 0 "$HOSTBIN/sl_reload" -m $rko -n "$cycles" -p "enable=$features" -e 10 \
	-r "$DBG" -t "$TRACING/events/schedlab" >"$reload_out" 2>&1
rc=$?
sed 's/^ok - /# ok - /; s/^not ok - /# not ok - /' $reload_out
ok "[ $rc = 0 ] && grep -q '^ok - $cycles load/unload cycles' $reload_out" \
	"$cycles load/enable-all/unload cycles under load, every tenth with the trace events on and every report read"
ok "grep -q '^ok - .* report reads, 0 errors' $reload_out" "every report read without an error"
ok 'kill -0 $ctx' "context-switch load still running"
if loaded; then
	# sl_reload gave up: who holds it (a leaked reference if nobody)
	diag "schedlab still loaded, refcnt $(</sys/module/schedlab/refcnt); processes with its files open:"
	for fd in $(find /proc/[0-9]*/fd \( -lname '*dlparams*' -o -lname '*schedlab*' \) 2>/dev/null); do
		p=${fd#/proc/}; p=${p%%/*}
		diag "  pid $p ($(<"/proc/$p/comm")): $fd"
	done
	for m in $(grep -l dlparams /proc/[0-9]*/maps 2>/dev/null); do
		p=${m#/proc/}; p=${p%%/*}
		diag "  pid $p ($(<"/proc/$p/comm")): /dev/dlparams mapped"
	done
fi
kill $ctx "${mappers[@]}" 2>/dev/null; wait $ctx "${mappers[@]}" 2>/dev/null
if [ -n "$capped" ]; then
	pkill -f "$HOSTBIN/ctxswitch" 2>/dev/null
	for _ in $(seq 50); do rmdir $load_cg 2>/dev/null && break; sleep 0.1; done
fi
if loaded; then
	# once the loads have ended, nothing may hold it
	for _ in $(seq 30); do rmmod schedlab 2>/dev/null && break; sleep 1; done
fi
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
