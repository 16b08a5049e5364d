# Load and unload 20 times with cpu_signals (period 1 ms, trace event on),
# signals (sample 1 ms, trace events on) and dlparams enabled under a
# context-switch load, so that the probes, the sampler and the tasks'
# RCU-freed entries are live at every unload; then no trace of the module
# may remain.
# The cycles run in one process (tests/guest/sl_reload.c: finit_module and
# delete_module, the parameters written after each load, the trace events
# on and the reports read, 100 ms more loaded, the trace events off):
# insmod and rmmod would each add a program start, seconds under emulation.
# vm-run fails the whole run on any splat in dmesg.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

cycles=20
unload
"$HOSTBIN/ctxswitch" 900 >/tmp/ctx.out &
ctx=$!
"$HOSTBIN/sl_reload" -m "$KO" -n $cycles -p enable=cpu_signals,signals,dlparams -e 1 \
	-w $SYS/cpu_signals/period_ms=1 -w $SYS/signals/sample_ms=1 \
	-t $TRACING/events/schedlab -s 100 \
	-r $DBG/status -r $DBG/cpu_signals/report -r $DBG/signals/tasks -r $DBG/signals/cpus \
	>/tmp/reload.out 2>&1
rc=$?
out=$(</tmp/reload.out)
tap_lines <<<"$out"	# its results: the cycles, the report reads without an error
is "$rc" 0 "sl_reload: exit status"
ok '[[ $out == *"ok - $((cycles * 4)) report reads, 0 errors"* ]]' \
	"the 4 reports read at every one of the $cycles cycles"
ok 'kill -0 $ctx' "context-switch load still running"
kill $ctx 2>/dev/null; wait $ctx 2>/dev/null
ok '! loaded' "module unloaded"
ok '[ ! -e $SYS ] && [ ! -e $DBG ] && [ ! -e $TRACING/events/schedlab ]' "no sysfs, debugfs or tracefs entry left"
n_load=$(dmesg | grep -c 'schedlab: loaded'); n_unload=$(dmesg | grep -c 'schedlab: unloaded')
is "$n_unload" "$n_load" "every load was matched by an unload in dmesg ($n_load)"
# Reload after the storm still works.
# (load, enable cpu_signals, unload: one program start, not insmod and rmmod)
"$HOSTBIN/sl_reload" -m "$KO" -n 1 -w $SYS/cpu_signals/enabled=1 >/tmp/reload.out 2>&1
rc=$?
[ $rc = 0 ] || while read -r l; do diag "$l"; done </tmp/reload.out
is "$rc" 0 "reload after the stress: load, cpu_signals enabled, unload"
done_testing
