# Load and unload 20 times with cpu_signals (period 1 ms, trace event on),
# signals (sample 1 ms, trace events on) and dlparams enabled under a
# context-switch load, so that the probes, the sampler and the tasks'
# RCU-freed entries are live at every unload; then no trace of the module
# may remain.
# vm-run fails the whole run on any splat in dmesg.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

unload
"$HOSTBIN/ctxswitch" 900 >/tmp/ctx.out &
ctx=$!
fails=0
for i in $(seq 20); do
	insmod "$KO" enable=cpu_signals,signals,dlparams || { fails=$((fails + 1)); continue; }
	echo 1 > $SYS/cpu_signals/period_ms
	echo 1 > $SYS/signals/sample_ms
	echo 1 > $TRACING/events/schedlab/enable
	cat $DBG/status $DBG/cpu_signals/report $DBG/signals/tasks $DBG/signals/cpus >/dev/null ||
		fails=$((fails + 1))
	sleep 0.1
	echo 0 > $TRACING/events/schedlab/enable
	rmmod schedlab || fails=$((fails + 1))
done
is "$fails" 0 "20 load/enable/unload cycles under a context-switch load"
ok 'kill -0 $ctx' "context-switch load still running"
kill $ctx 2>/dev/null; wait $ctx 2>/dev/null
ok '! loaded' "module unloaded"
ok '[ ! -e $SYS ] && [ ! -e $DBG ] && [ ! -e $TRACING/events/schedlab ]' "no sysfs, debugfs or tracefs entry left"
n_load=$(dmesg | grep -c 'schedlab: loaded'); n_unload=$(dmesg | grep -c 'schedlab: unloaded')
is "$n_unload" "$n_load" "every load was matched by an unload in dmesg ($n_load)"
# Reload after the storm still works.
ok 'insmod "$KO" && echo 1 > $SYS/cpu_signals/enabled && rmmod schedlab' "reload after the stress"
done_testing
