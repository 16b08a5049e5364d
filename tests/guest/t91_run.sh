# schedlab run (tools/schedlab, docs/schedlab.1): a command under the
# features, their events recorded by trace-cmd into its own tracefs
# instance, the reports and run.json saved; every sysfs value of every
# feature is as it was after a run that succeeds, fails, or is interrupted
# (SIGINT: exit 130), with the features initially off and with one on
# with a non-default parameter; the command's exit status comes back;
# trace.dat holds blocked_on's events of a mutex contention, as many per
# name as run.json says; every saved report's JSON parses; bad arguments
# and an unprivileged user change nothing. (Few program starts: each costs
# a second or more under emulation; the JSON checks are one python3.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

SL=$HOSTBIN/schedlab
tmp=$(mktemp -d)
bg=
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	# trace-cmd's logs, for a look after a failure
	for l in $tmp/r*/trace-cmd.log; do
		[ -f "$l" ] && cp "$l" "${SCHEDLAB_RESULTS:-/tmp}/t91-$(basename "$(dirname "$l")")-trace-cmd.log"
	done
	rm -rf "$tmp" "$SL_NOBODY"
}
trap cleanup EXIT
SL_NOBODY=/tmp/schedlab-t91-nobody
install -m 755 "$SL" $SL_NOBODY
# every sysfs value of every feature
state() {
	local a
	for a in $SYS/*/*; do [ -f "$a" ] && printf '%s=%s\n' "$a" "$(<"$a")"; done
}
# run ARGS...: $rc and $err (stderr) of schedlab ARGS; stdout is the command's
run() { err=$("$SL" "$@" 2>&1 >$tmp/stdout); rc=$?; }
expect() {	# expect RC PATTERN DESC
	is "$rc" "$1" "$3: exit $1"
	_pat=$2
	ok 'grep -q -- "$_pat" <<<"$err"' "$3: says '$2'"
	[ "$rc" = "$1" ] || diagl "stderr: $err"
}
instances() { ls $TRACING/instances 2>/dev/null | grep '^schedlab-run-' | paste -sd' '; }
available() { [ "$(cut -c1 "$SYS/$1/available")" = 1 ]; }
# diagl TEXT: a diagnostic line per line of TEXT
diagl() { local l; while IFS= read -r l; do diag "$l"; done <<<"$1"; }

ok '[ -x $SL ] && command -v trace-cmd >/dev/null' "schedlab built, trace-cmd installed"
unload
run run -- true
expect 2 "not loaded" "run without the module"
load
ok loaded "module loaded"

# --- features off: a run leaves every value as it was -------------------------
# and the top-level trace buffer alone: an event of its own on, a marker
# written before the run still there after it
ev=$TRACING/events/sched/sched_process_exit/enable
ev0=$(<$ev)
echo 1 >$ev
# the marker needs the top-level buffer on (an earlier test may have
# turned it off: t60 does)
on0=$(<$TRACING/tracing_on)
echo 1 >$TRACING/tracing_on
echo "t91-marker-$$" >$TRACING/trace_marker
top() { echo "$(<$TRACING/tracing_on) $(<$ev) $(<$TRACING/current_tracer) $(<$TRACING/buffer_size_kb)"; }
top0=$(top)
s0=$(state)
t=$(date +%s)
run run -o $tmp/r1 -- sleep 1
is "$rc" 0 "run -- sleep 1 (every available feature): exit 0"
diag "$(($(date +%s) - t)) s; the summary:"
diagl "$err"
is "$(state)" "$s0" "every sysfs value of every feature as before (all were off)"
is "$(instances)" "" "trace-cmd's instance is gone"
is "$(top)" "$top0" "the top-level buffer's tracing_on, event, tracer and size as before ($top0)"
ok "grep -q 't91-marker-$$' $TRACING/trace" "the top-level buffer still holds what it had"
echo "$ev0" >$ev
echo "$on0" >$TRACING/tracing_on
ok "grep -q 'sleep exited 0 after' <<<\"\$err\" && grep -q 'events in trace.dat' <<<\"\$err\"" \
	"the summary says how the command ended and what was recorded"

# --- one feature on with a non-default parameter, another off with one ----------
p0=$(<$SYS/cpu_signals/period_ms)
"$SL" enable cpu_signals period_ms=$((p0 + 7))
if available blocked_on; then echo $(($(<$BO/min_wait_us) + 3)) >$BO/min_wait_us; fi
s1=$(state)
ok "[ '$s1' != '$s0' ]" "cpu_signals on with period_ms $((p0 + 7)), blocked_on's min_wait_us changed"
run run -o $tmp/r2 -- false
is "$rc" 1 "run -- false: exit 1 (the command's)"
is "$(state)" "$s1" "every value as before (cpu_signals still on, period_ms and min_wait_us kept)"
run run --no-record -o $tmp/r3 -- sh -c 'exit 7'
is "$rc" 7 "run --no-record -- sh -c 'exit 7': exit 7"
is "$(state)" "$s1" "every value as before"
ok "[ ! -e $tmp/r3/trace.dat ] && [ -s $tmp/r3/run.json ]" "--no-record: no trace.dat, run.json written"
if available eevdf; then
	run run -f eevdf --no-record -o $tmp/r8 -- true
	ok "[ $rc = 0 ] && grep -q '\"features\": *\[\"eevdf\"\]' $tmp/r8/run.json && [ -s $tmp/r8/reports/eevdf/checks.json ]" \
		"run -f eevdf: the opt-in verifier runs when named (exit $rc, its reports saved)"
fi

# --- interrupted: SIGINT to schedlab run while the command runs -------------------
"$SL" run -o $tmp/r4 -- sleep 30 2>$tmp/r4.err &
bg=$!
# wait for its sleep: a child of schedlab run's named sleep (by its
# parent, not /proc/PID/task/TID/children: the lab kernel, defconfig-based,
# has no CONFIG_PROC_CHILDREN)
started=
for ((i = 0; i < 600; i++)); do
	started=$(pgrep -P "$bg" -x sleep | head -n1)
	[ -n "$started" ] && break
	sleep 0.1
done
ok "[ -n '$started' ]" "run -- sleep 30 started its command"
t=$(date +%s)
kill -INT $bg
wait $bg
rc=$?
bg=
is "$rc" 130 "SIGINT to schedlab run: exit 130"
ok "[ $(($(date +%s) - t)) -lt 25 ] && [ ! -e /proc/$started ]" "the command ended with it ($(($(date +%s) - t)) s), sleep $started gone"
is "$(state)" "$s1" "every value as before the interrupted run"
is "$(instances)" "" "trace-cmd's instance is gone"
diagl "$(<$tmp/r4.err)"

# --- blocked_on's events in trace.dat ----------------------------------------------
nev=-1
if available blocked_on; then
	mkdir -p $tmp/ren
	# four movers of directories across parents: the rename mutex
	run run -f blocked_on -o $tmp/r5 -- sh -c "for i in 1 2 3 4; do $HOSTBIN/rename_loop $tmp/ren 3 >$tmp/ren.\$i 2>&1 & done; wait"
	is "$rc" 0 "run -f blocked_on -- 4 rename_loops: exit 0"
	diagl "$err"
	diag "renames: $(cat $tmp/ren.? | grep renames | paste -sd' ')"
	# counted independently of schedlab: trace-cmd report's lines per event
	trace-cmd report -i $tmp/r5/trace.dat >$tmp/r5.txt 2>$tmp/r5.rerr
	is "$?" 0 "trace-cmd report reads r5/trace.dat"
	nev=$(grep -c ' mutex_wait_begin:' $tmp/r5.txt)
	nend=$(grep -c ' mutex_wait_end:' $tmp/r5.txt)
	ok "[ $nev -gt 0 ] && [ $nend -gt 0 ]" "it holds schedlab:mutex_wait_begin/end events ($nev/$nend)"
	[ "$nev" -gt 0 ] || diagl "$(cat $tmp/ren.? $tmp/r5/reports/blocked_on/stats.txt)"
	is "$(grep -v ' mutex_wait_begin:\| mutex_wait_end:' $tmp/r5.txt | grep -c '\] *[0-9.]*: ')" 0 \
		"and no other event (only the selected features' events)"
	is "$(state)" "$s1" "every value as before (blocked_on off again, min_wait_us kept)"
else
	skip "blocked_on events in trace.dat" "blocked_on unavailable on $(uname -r)"
fi

# --- the run directories: one python3 for every JSON check --------------------------
python3 - $tmp "$nev" "${nend:--1}" >$tmp/py.out 2>&1 <<'PY'
import json, os, sys
tmp, nev, nend = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def out(*a): print(*a)
# every report's .json parses and its .txt is there; r1 covers every available feature
for r in ("r1", "r2", "r4", "r5"):
    d = os.path.join(tmp, r)
    if not os.path.isdir(d):
        out(r, "absent"); continue
    run = json.load(open(os.path.join(d, "run.json")))
    bad, n = [], 0
    for f in run["features"]:
        fd = os.path.join(d, "reports", f)
        for j in sorted(os.listdir(fd)):
            if not j.endswith(".json"): continue
            n += 1
            try:
                doc = json.load(open(os.path.join(fd, j)))
                assert doc["feature"] == f and doc["report"] == j[:-5]
                assert os.path.exists(os.path.join(fd, j[:-5] + ".txt"))
            except Exception as e:
                bad.append("%s/%s: %r" % (f, j, e))
    json.load(open(os.path.join(d, "status.json")))
    ok_st = os.path.getsize(os.path.join(d, "status.txt")) > 0
    out(r, "reports", n, "bad", len(bad), *bad)
    out(r, "run", json.dumps(run["command"]), run["exit_status"], run["signal"],
        run["interrupted_by"], run["exit_code"], run["trace"], ",".join(run["features"]),
        "status" if ok_st else "nostatus", run["kernel_release"] == os.uname().release,
        run["duration_s"] > 0)
    if r == "r5":
        out(r, "events", run["events"].get("schedlab:mutex_wait_begin"),
            run["events"].get("schedlab:mutex_wait_end"))
        out(r, "lost", run.get("events_lost"))
PY
diagl "$(<$tmp/py.out)"
# the default: every available feature but the opt-in eevdf (the verifier)
avail=$(for d in $SYS/*/available; do f=${d%/available}; [ ${f##*/} != eevdf ] && available ${f##*/} && echo ${f##*/}; done | paste -sd,)
line() { grep "^$1 $2 " $tmp/py.out | cut -d' ' -f3-; }
ok "[ \"\$(line r1 reports | cut -d' ' -f2-3)\" = 'bad 0' ] && [ \"\$(line r1 reports | cut -d' ' -f1)\" -ge 5 ]" \
	"r1: every saved report's JSON parses, names its feature and report, has its .txt ($(line r1 reports | cut -d' ' -f1) reports)"
is "$(line r1 run)" '["sleep", "1"] 0 None None 0 trace.dat '"$avail"' status True True' \
	"r1/run.json: command, exit status, trace, every available feature but eevdf ($avail), kernel, duration"
is "$(line r2 run)" '["false"] 1 None None 1 trace.dat '"$avail"' status True True' "r2/run.json: false, exit status 1"
is "$(line r4 run)" '["sleep", "30"] None 2 2 130 trace.dat '"$avail"' status True True' \
	"r4/run.json: sleep 30 killed by SIGINT (2), schedlab interrupted by it, exit code 130"
if [ "$nev" != -1 ]; then
	is "$(line r5 reports | cut -d' ' -f2-3)" "bad 0" "r5: blocked_on's reports' JSON parses"
	is "$(line r5 events)" "$nev $nend" "r5/run.json counts the events trace-cmd report shows ($nev begin, $nend end)"
	# the drops trace-cmd report shows ("CPU:N [LOST M EVENTS]"), summed
	lost=$(grep -oE 'LOST [0-9]+ EVENTS' $tmp/r5.txt | awk '{ s += $2 } END { print s + 0 }')
	is "$(line r5 lost)" "$lost" "r5/run.json's events_lost is what trace-cmd report shows lost ($lost)"
	ok "grep -q 'top lock' <<<\"\$err\"" "the summary names blocked_on's top lock"
fi

# --- bad arguments change nothing ----------------------------------------------------
ls -R $tmp/r1 >$tmp/r1.ls
run run sleep 1
expect 1 "the command comes after --" "run without --"
run run -f nosuchfeature -- true
expect 1 "unknown feature 'nosuchfeature'" "run -f nosuchfeature"
run run -o $tmp/r1 -- true
expect 1 "exists and is not an empty directory" "run -o an existing non-empty DIR"
is "$(ls -R $tmp/r1)" "$(<$tmp/r1.ls)" "the existing DIR untouched"
run run -x -- true
expect 1 "unexpected argument '-x'" "run -x"
nun=0
for d in $SYS/*/available; do
	f=${d%/available}; f=${f##*/}
	available $f && continue
	nun=$((nun + 1))
	run run -f $f -o $tmp/un -- true
	expect 3 "unavailable on this kernel" "run -f $f (unavailable)"
done
[ $nun = 0 ] && skip "run -f an unavailable feature: exit 3" "every feature is available on $(uname -r)"
err=$(PATH=/nonexistent "$SL" run -o $tmp/r7 -- /bin/true 2>&1); rc=$?
expect 5 "trace-cmd not found: install it (apt install trace-cmd)" "run without trace-cmd"
ok "[ ! -e $tmp/r7 ]" "without trace-cmd: no directory made"
err=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups $SL_NOBODY run -o /tmp/t91-nobody -- true 2>&1); rc=$?
expect 4 "permission denied.*root" "as nobody: schedlab run"
ok "[ ! -e /tmp/t91-nobody ]" "as nobody: no directory made"
is "$(state)" "$s1" "the refused runs changed no sysfs value"
is "$(instances)" "" "no trace-cmd instance left"

"$SL" disable cpu_signals
echo "$p0" >$SYS/cpu_signals/period_ms
unload
done_testing
