# schedlab export (tools/schedlab, docs/export.md): a schedlab run of
# blocked_on and signals (min_wait_us 0: every wait recorded) over four
# rename_loops contending for the rename mutex and two sl_load tasks,
# exported to SQLite and queried with the sqlite3 CLI:
#  - per lock the rename_loops waited on, the waits in mutex_wait_end
#    (GROUP BY lock) equal the saved locks report's waits (locks.json, and
#    its table report_blocked_on_locks, equal to it for every lock); for
#    every lock, no more in the trace than in the report (the report also
#    counts other tasks' waits before trace-cmd started and after it
#    stopped); the waits view's count per lock_hex is the table's; (where
#    run.json says no event was lost);
#  - every signals_task sample (reason 1) of the sl_load tasks, per pid:
#    as many, with the same times and util_burst values, as trace-cmd report
#    prints (an independent reader of trace.dat);
#  - events has a row per event line of trace-cmd report, and as many per
#    event name;
#  - every saved report's JSON (and status.json) is a table with its rows;
#  - schedlab plot of the run directory: a PNG (1100 px wide) for each plot
#    the trace's events call for (signals_task, blocked_on_waits and
#    _split, a count plot for the others), and the data it drew equal to
#    the trace: signals_task.dat's (pid, ts_ns, util_burst) every sample
#    trace-cmd report prints, blocked_on_waits.dat a row per mutex_wait_end;
#  - bad arguments (no DIR, no -o, DIR not a run directory, an existing
#    FILE without -f): exit 1 or 5 with a message, nothing written.
# (Few program starts: each costs a second or more under emulation; the
# comparisons are one sqlite3 and one python3.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

SL=$HOSTBIN/schedlab
tmp=$(mktemp -d)
cleanup() {
	[ -f $tmp/r/trace-cmd.log ] && cp $tmp/r/trace-cmd.log "${SCHEDLAB_RESULTS:-/tmp}/t92-trace-cmd.log"
	rm -rf "$tmp"
}
trap cleanup EXIT
diagl() { local l; while IFS= read -r l; do diag "$l"; done <<<"$1"; }
available() { [ "$(cut -c1 "$SYS/$1/available")" = 1 ]; }

ok '[ -x $SL ] && command -v trace-cmd >/dev/null && command -v sqlite3 >/dev/null' \
	"schedlab built, trace-cmd and sqlite3 installed"
load
ok loaded "module loaded"
if ! available blocked_on || ! available signals; then
	skip "schedlab export of a blocked_on and signals run" "blocked_on or signals unavailable on $(uname -r)"
	unload
	done_testing
	exit
fi
echo 0 >$BO/min_wait_us
echo slx >$SYS/signals/filter_comm	# only the sl_load tasks sampled: fewer events
mkdir $tmp/ren
t0=$(date +%s)
err=$("$SL" run -f blocked_on,signals -o $tmp/r -- sh -c "
	for i in 1 2 3 4; do $HOSTBIN/rename_loop $tmp/ren 3 >$tmp/ren.\$i 2>&1 & done
	$HOSTBIN/sl_load -n slx spin 3000 & $HOSTBIN/sl_load -n slx duty 4 20 3000 &
	wait" 2>&1 >/dev/null)
rc=$?
t1=$(date +%s)
is "$rc" 0 "run -f blocked_on,signals -- 4 rename_loops, 2 sl_loads: exit 0"
diagl "$err"
t2=$(date +%s)
err=$("$SL" export $tmp/r -o $tmp/x.sqlite 2>&1)
rc=$?
t3=$(date +%s)
is "$rc" 0 "export $tmp/r -o x.sqlite: exit 0"
diag "run $((t1 - t0)) s, export $((t3 - t2)) s: $err"
t4=$(date +%s)
perr=$("$SL" plot $tmp/r 2>&1 >$tmp/plot.out)
prc=$?
t5=$(date +%s)
is "$prc" 0 "plot $tmp/r: exit 0"
diag "plot $((t5 - t4)) s: $(tr '\n' ' ' <$tmp/plot.out) $perr"
trace-cmd report -t -i $tmp/r/trace.dat >$tmp/report.txt 2>$tmp/report.err
is "$?" 0 "trace-cmd report reads r/trace.dat"

# one sqlite3 for every query; a missing table: its error, its line absent
{
	echo ".mode list"
	echo ".separator ' '"
	echo "SELECT 'lock', printf('0x%x', lock), count(*) FROM mutex_wait_end GROUP BY lock;"
	echo "SELECT 'lockview', lock_hex, count(*) FROM waits GROUP BY lock_hex;"
	echo "SELECT 'lockrep', lock, waits FROM report_blocked_on_locks;"
	echo "SELECT DISTINCT 'renlock', printf('0x%x', lock) FROM mutex_wait_begin WHERE common_comm = 'rename_loop';"
	echo "SELECT 'events', count(*) FROM events;"
	echo "SELECT 'event', event, count(*) FROM events GROUP BY event;"
	echo "SELECT 'sample', pid, ts_ns, burst FROM signals_task WHERE reason = 1 AND comm = 'slx';"
	echo "SELECT 'lost', ifnull(events_lost, 'null') FROM run;"
	for f in $tmp/r/reports/*/*.json; do
		r=${f##*/}; r=${r%.json}; fe=${f%/*}; fe=${fe##*/}
		echo "SELECT 'table', '$fe/$r', count(*) FROM report_${fe}_$r;"
	done
	echo "SELECT 'table', 'status', count(*) FROM status;"
} >$tmp/q.sql
sqlite3 $tmp/x.sqlite <$tmp/q.sql >$tmp/q.out 2>$tmp/q.err
[ -s $tmp/q.err ] && diagl "sqlite3: $(<$tmp/q.err)"

python3 - $tmp <<'PY' >$tmp/py.out 2>&1
import json, os, re, sys
from collections import Counter, defaultdict
tmp = sys.argv[1]
r = os.path.join(tmp, "r")
q = defaultdict(list)
for l in open(os.path.join(tmp, "q.out")):
    w = l.split()
    if w: q[w[0]].append(w[1:])
def out(*a): print(*a)
# trace-cmd report -t: "comm-pid [cpu] sec.nsec: event: ..."
line_re = re.compile(r"^\s*(?:\S+: )?.*-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s*(.*)$")
names, samples, allsamples = Counter(), [], []
for l in open(os.path.join(tmp, "report.txt")):
    m = line_re.match(l)
    if not m: continue
    names[m.group(5)] += 1
    if m.group(5) == "signals_task" and m.group(6).startswith("sample "):
        f = dict(kv.split("=", 1) for kv in m.group(6).split()[1:] if "=" in kv)
        allsamples.append((int(f["pid"]), int(m.group(3)) * 10**9 + int(m.group(4)), int(f["util_burst"])))
        if f.get("comm") == "slx":
            samples.append((int(f["pid"]), int(m.group(3)) * 10**9 + int(m.group(4)), int(f["util_burst"])))
lost = q["lost"][0][0] if q["lost"] else "?"
out("lost", lost)
# per lock: the trace's waits, the waits view, the report's table and its JSON
locks = json.load(open(os.path.join(r, "reports/blocked_on/locks.json")))
li, wi = locks["columns"].index("lock"), locks["columns"].index("waits")
js = {row[li]: row[wi] for row in locks["rows"]}
sql = {a: int(b) for a, b in q["lock"]}
view = {a: int(b) for a, b in q["lockview"]}
rep = {a: int(b) for a, b in q["lockrep"]}
ren = sorted(set(w[0] for w in q["renlock"]))
out("renlocks", len(ren), sum(sql.get(l, 0) for l in ren), "trace_json",
    all(sql.get(l) == js.get(l) for l in ren), "table_json", rep == js, "view", view == sql,
    "le", all(n <= js.get(l, -1) for l, n in sql.items()))
for l in sorted(set(sql) | set(js)):
    if sql.get(l, 0) != js.get(l, 0):
        out("lockdiff", l, "trace", sql.get(l, 0), "report", js.get(l, 0), "(rename_loop's)" if l in ren else "")
# the samples per pid, trace-cmd report's and the table's
mine = sorted((int(p), int(t), int(b)) for p, t, b in q["sample"])
theirs = sorted(samples)
per = Counter(p for p, _, _ in theirs)
pid = per.most_common(1)[0][0] if per else -1
out("samples", len(theirs), len(per), "equal", mine == theirs)
out("chosen", pid, per.get(pid, 0), [x for x in mine if x[0] == pid] == [x for x in theirs if x[0] == pid],
    len(set(b for p, _, b in theirs if p == pid)))
if mine != theirs:
    out("diff", [(a, b) for a, b in zip(mine, theirs) if a != b][:3], len(mine), len(theirs))
# events
ev = int(q["events"][0][0]) if q["events"] else -1
byname = {a: int(b) for a, b in q["event"]}
out("events", ev, sum(names.values()), "names", byname == dict(names), sorted(names.items()))
# every report's table: its JSON's rows
bad, n = [], 0
tables = {a: int(b) for a, b in q["table"]}
docs = [(os.path.join(r, "status.json"), "status")]
for f in sorted(os.listdir(os.path.join(r, "reports"))):
    for j in sorted(os.listdir(os.path.join(r, "reports", f))):
        if j.endswith(".json"):
            docs.append((os.path.join(r, "reports", f, j), f + "/" + j[:-5]))
for path, key in docs:
    n += 1
    rows = len(json.load(open(path))["rows"])
    if tables.get(key) != rows:
        bad.append("%s: %s rows, want %d" % (key, tables.get(key), rows))
out("tables", n, "bad", len(bad), *bad)
# schedlab plot: a PNG per plot the trace's events call for, the data drawn = the records
pl = os.path.join(r, "plots")
want = set()
for e in names:
    if e == "signals_task":
        if allsamples: want.add("signals_task.png")
    elif e in ("signals_cpu", "cpu_signals", "overutil"):
        want.add(e + ".png")
    elif e == "mutex_wait_end":
        want |= {"blocked_on_waits.png", "blocked_on_split.png"}
    else:
        want.add("count_%s.png" % e)
got = set(f for f in os.listdir(pl) if f.endswith(".png")) if os.path.isdir(pl) else set()
out("plots", got == want, len(got), *sorted(got ^ want))
pngok = all(open(os.path.join(pl, f), "rb").read(24)[:16] == b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR" and
            int.from_bytes(open(os.path.join(pl, f), "rb").read(24)[16:20], "big") == 1100 for f in got)
out("pngs", pngok)
def datrows(name):
    p = os.path.join(pl, name)
    return [l.split() for l in open(p) if l.strip() and not l.startswith("#")] if os.path.exists(p) else []
drawn = sorted((int(w[3]), int(w[0]), int(w[8])) for w in datrows("signals_task.dat"))
out("plotsamples", len(drawn), len(allsamples), drawn == sorted(allsamples))
out("plotwaits", len(datrows("blocked_on_waits.dat")), names.get("mutex_wait_end", 0))
PY
diagl "$(<$tmp/py.out)"
line() { grep "^$1 " $tmp/py.out | cut -d' ' -f2-; }
lost=$(line lost)
ren=$(line renlocks)
if [ "$lost" = 0 ]; then
	ok "[ '$(cut -d' ' -f1 <<<"$ren")' -gt 0 ]" \
		"the rename_loops waited on $(cut -d' ' -f1 <<<"$ren") lock(s), $(cut -d' ' -f2 <<<"$ren") waits"
	is "$(cut -d' ' -f3-4 <<<"$ren")" "trace_json True" \
		"their locks: count(*) of mutex_wait_end GROUP BY lock = the waits in the saved locks.json"
	is "$(cut -d' ' -f9-10 <<<"$ren")" "le True" \
		"every lock: no more waits in the trace than in the report (which also counts waits before and after the recording)"
else
	skip "per-lock waits of the trace and of the report" "run.json: events_lost $lost (the ring buffer dropped some)"
fi
is "$(cut -d' ' -f5-6 <<<"$ren")" "table_json True" "report_blocked_on_locks: every lock's waits as in locks.json"
is "$(cut -d' ' -f7-8 <<<"$ren")" "view True" "the waits view: per lock_hex, the count of mutex_wait_end per lock"
ok "[ \"\$(line samples | cut -d' ' -f1)\" -gt 0 ] && [ \"\$(line samples | cut -d' ' -f3-)\" = 'equal True' ]" \
	"signals_task samples of the slx tasks: every (pid, ts_ns, util_burst) as trace-cmd report prints them ($(line samples | cut -d' ' -f1) samples, $(line samples | cut -d' ' -f2) pids)"
ok "[ \"\$(line chosen | cut -d' ' -f3)\" = True ] && [ \"\$(line chosen | cut -d' ' -f2)\" -gt 0 ]" \
	"pid $(line chosen | cut -d' ' -f1): its $(line chosen | cut -d' ' -f2) util_burst samples ($(line chosen | cut -d' ' -f4) distinct values) the same in both"
is "$(line events | cut -d' ' -f1)" "$(line events | cut -d' ' -f2)" "events: a row per event line of trace-cmd report"
is "$(line events | cut -d' ' -f3-4)" "names True" "events: as many per event name"
ok "[ \"\$(line tables | cut -d' ' -f2-3)\" = 'bad 0' ] && [ \"\$(line tables | cut -d' ' -f1)\" -ge 5 ]" \
	"every saved report's JSON and status.json: a table with its rows ($(line tables | cut -d' ' -f1))"
ok "[ \"\$(line plots | cut -d' ' -f1)\" = True ] && [ \"\$(line pngs)\" = True ]" \
	"plot: a PNG (1100 px wide) per plot the trace's events call for: $(line plots | cut -d' ' -f2) ($(ls $tmp/r/plots 2>/dev/null | grep png | tr '\n' ' '))"
ok "[ \"\$(line plotsamples | cut -d' ' -f1)\" -gt 0 ] && [ \"\$(line plotsamples | cut -d' ' -f3)\" = True ]" \
	"plot: signals_task.dat's rows are the samples trace-cmd report prints, (pid, ts_ns, util_burst) each ($(line plotsamples | cut -d' ' -f1-2))"
ok "[ \"\$(line plotwaits | cut -d' ' -f1)\" -gt 0 ] && [ \"\$(line plotwaits | cut -d' ' -f1)\" = \"\$(line plotwaits | cut -d' ' -f2)\" ]" \
	"plot: blocked_on_waits.dat has a row per mutex_wait_end of the trace ($(line plotwaits))"

# --- bad arguments: a message, nothing written ------------------------------------
run() { err=$("$SL" export "$@" 2>&1); rc=$?; }
expect() {	# expect RC PATTERN DESC
	is "$rc" "$1" "$3: exit $1"
	_pat=$2
	ok 'grep -q -- "$_pat" <<<"$err"' "$3: says '$2'"
	[ "$rc" = "$1" ] || diagl "stderr: $err"
}
sum0=$(md5sum <$tmp/x.sqlite)
run -o $tmp/n.sqlite
expect 1 "which run directory" "export without DIR"
run $tmp/r
expect 1 "where to? -o FILE" "export without -o"
run $tmp/ren -o $tmp/n.sqlite
expect 5 "not a run directory" "export of a directory that is not a run's"
run $tmp/r -o $tmp/x.sqlite
expect 1 "exists: -f to replace it" "export onto an existing FILE without -f"
ok "[ ! -e $tmp/n.sqlite ] && [ \"\$(md5sum <$tmp/x.sqlite)\" = '$sum0' ] && ! ls $tmp | grep -q '\.tmp-'" \
	"nothing written: no new FILE, the existing one untouched, no temporary file"
unload
done_testing
