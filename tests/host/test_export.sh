#!/usr/bin/env bash
# schedlab export (tools/schedlab, docs/export.md) on a run directory made
# by hand (TAP output; arguments ignored):
#  - run.json's keys are run's one row, each value as in the file (arrays
#    and objects as JSON text, null as NULL);
#  - each report's JSON (and status.json) is a table with its row count,
#    every cell the JSON's value (an integer above 2^63 as its 64 bits, a
#    byte >= 0x80 of a string as its code point, arrays and objects as JSON
#    text, a short row's missing values NULL), each column typed by its
#    values; reports has a row per report with its layout, units, notes,
#    meta, trailer;
#  - where this host lets root record (a tracefs instance, its events, then
#    trace-cmd extract: no ftrace switch needed), trace.dat's records: as
#    many rows in events as trace-cmd report prints events, and every field
#    of every record (events.fields and the event's typed table) equal to
#    what trace-cmd report -R prints for it, an independent reader (char
#    arrays, a __data_loc string, signed and unsigned integers, a static
#    array of unsigned longs, a negative int); otherwise that part is skipped, said so;
#  - bad arguments (no DIR, no -o, unknown option, two DIRs), a DIR that is
#    not a run directory, an existing FILE without -f, a damaged trace.dat:
#    exit 1 or 5 with a message, nothing written and an existing FILE
#    untouched; with -f the FILE is replaced; no temporary file is left;
#  - a run without a recording (run.json's trace null): events empty;
#  - an unprivileged user can export a directory it can read.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top" || exit 2

SL=$top/build/host/schedlab
tmp=$(mktemp -d)
inst=
cleanup() {
	[ -n "$inst" ] && [ -d "$inst" ] && rmdir "$inst" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ok "[ -x $SL ]" "schedlab built (make tools)"
command -v python3 >/dev/null || { skip "export" "no python3"; done_testing; exit; }

# --- the run directory -----------------------------------------------------------
d=$tmp/run
mkdir -p $d/reports/blocked_on $d/reports/signals
cat >$d/run.json <<'EOF'
{"schema": 1,
 "command": ["sh", "-c", "echo \"hi\""],
 "exit_status": 0,
 "signal": null,
 "interrupted_by": null,
 "exit_code": 0,
 "start": "2026-12-05T06:00:00+0000", "end": "2026-12-05T06:00:01+0000", "start_unix": 1796450400.125, "duration_s": 1.25,
 "kernel_release": "6.12.0-test",
 "schedlab_version": "0.9",
 "features": ["blocked_on", "signals"],
 "trace": "trace.dat",
 "events": {"schedlab:mutex_wait_begin": 3, "schedlab:mutex_wait_end": 3},
 "events_lost": 0,
 "reports": "reports"}
EOF
cat >$d/reports/blocked_on/locks.json <<'EOF'
{"schema": 1, "feature": "blocked_on", "report": "locks", "layout": "table",
 "columns": ["lock", "sym", "waits", "total_us", "hist_log2_us", "ratio"],
 "units": {"total_us": "us"}, "meta": {"missed": 0, "proxy_exec": "off"}, "notes": ["per lock"],
 "rows": [["0xffff888012345678", "rename_lock", 12, 340, [1, 2, 3], 0.5],
          ["0xffffffff81234567", null, 3, 18446744073709551615, null, 1],
          ["0xffff888000000040", "x [mod]", 0]],
 "trailer": ["tasks missed: 0"]}
EOF
cat >$d/reports/blocked_on/chains.json <<'EOF'
{"schema": 1, "feature": "blocked_on", "report": "chains", "layout": "lines",
 "columns": ["chain", "depth", "waited_us"], "units": {"waited_us": "us"}, "meta": {}, "notes": [],
 "rows": [[[{"pid": 7, "comm": "caf\u00e9 \"q\"", "class": "fair", "lock": "0xffff888012345678", "lock_sym": null},
            {"pid": 8, "comm": "b\u00ff\u0001", "class": "rt", "lock": null, "lock_sym": null}], 2, 15]],
 "trailer": []}
EOF
cat >$d/reports/blocked_on/stats.json <<'EOF'
{"schema": 1, "feature": "blocked_on", "report": "stats", "layout": "record",
 "columns": ["waits_recorded", "comm", "util_est", "mean"],
 "units": {}, "meta": {"online_cpus": 2}, "notes": ["a record"],
 "rows": [[5, "caf\u00e9", null, 2]], "trailer": []}
EOF
cat >$d/reports/signals/tasks.json <<'EOF'
{"schema": 1, "feature": "signals", "report": "tasks", "layout": "table",
 "columns": ["pid", "comm", "util_avg"], "units": {"util_avg": "util"}, "meta": {}, "notes": [],
 "rows": [], "trailer": []}
EOF
cat >$d/status.json <<'EOF'
{"schema": 1, "feature": "schedlab", "report": "status", "layout": "table",
 "columns": ["feature", "available", "enabled", "why", "summary"],
 "units": {}, "meta": {"version": "0.9", "kernel": "6.12.0-test", "btf": true},
 "notes": [], "rows": [["blocked_on", 1, 0, null, "mutex waits"], ["dlparams", 0, 0, "missing: x", "dl"]],
 "trailer": []}
EOF
for f in $d/reports/*/*.json; do echo text >"${f%.json}.txt"; done

# --- a trace.dat recorded here, if the host lets us --------------------------------
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
have_trace=0
why="not root"
if [ "$(id -u)" = 0 ] && command -v trace-cmd >/dev/null; then
	why="no tracefs instances at $T"
	name=slexport-$$
	if [ -d $T/instances ] && mkdir $T/instances/$name 2>/dev/null; then
		inst=$T/instances/$name
		why="could not enable sched, raw_syscalls and signal events in a tracefs instance"
		if echo "common_pid == $BASHPID" >$inst/events/raw_syscalls/sys_enter/filter 2>/dev/null &&
		   echo 1 >$inst/events/raw_syscalls/sys_enter/enable 2>/dev/null &&
		   echo 1 >$inst/events/sched/sched_switch/enable 2>/dev/null &&
		   echo 1 >$inst/events/sched/sched_process_exec/enable 2>/dev/null &&
		   echo 1 >$inst/events/sched/sched_process_exit/enable 2>/dev/null &&
		   echo "sig == 28" >$inst/events/signal/signal_generate/filter 2>/dev/null &&
		   echo 1 >$inst/events/signal/signal_generate/enable 2>/dev/null; then
			# syscalls of this shell (builtins), an exec, a few switches
			for i in 1 2 3; do read -r _ </etc/hostname; done
			/bin/true
			# a SIGWINCH (ignored) by tgkill: its code is SI_TKILL, -6 in an int
			python3 -c 'import signal, threading; signal.pthread_kill(threading.get_ident(), signal.SIGWINCH)'
			sleep 0.2
			echo 0 >$inst/tracing_on
			if trace-cmd extract -B $name -o $d/trace.dat >$tmp/extract.log 2>&1 &&
			   trace-cmd report -R -t -i $d/trace.dat >$tmp/report.txt 2>/dev/null &&
			   [ -s $d/trace.dat ]; then
				have_trace=1
			else
				why="trace-cmd extract failed: $(tail -1 $tmp/extract.log)"
			fi
		fi
		[ -d $inst ] && rmdir $inst 2>/dev/null
		inst=
	fi
fi
if [ $have_trace = 0 ]; then
	# the rest with run.json's trace null (as after --no-record)
	sed -i 's/"trace": "trace.dat"/"trace": null/' $d/run.json
	diag "no trace.dat on this host ($why): the trace checks are skipped"
fi

# --- export and check, one python3 ----------------------------------------------------
err=$("$SL" export $d -o $tmp/x.sqlite 2>&1); rc=$?
is "$rc" 0 "export $d -o x.sqlite: exit 0"
[ "$rc" = 0 ] || diag "$err"
diag "$err"
tap_lines < <(python3 - "$d" "$tmp/x.sqlite" "$have_trace" "$tmp/report.txt" 2>&1 <<'PY'

import json, os, re, sqlite3, sys
d, db, have_trace, report = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
con = sqlite3.connect(db)
def ok(cond, desc, *diag):
    print(("ok - " if cond else "not ok - ") + desc)
    if not cond:
        for l in diag: print("# " + str(l)[:400])
def s64(v):
    return v - (1 << 64) if isinstance(v, int) and not isinstance(v, bool) and v >= (1 << 63) else v
def cell_eq(want, got):
    if isinstance(want, (list, dict)):
        return isinstance(got, str) and json.loads(got) == want
    if isinstance(want, bool):
        return got == int(want)
    if isinstance(want, float) or isinstance(got, float):
        return want is not None and got is not None and float(want) == float(got)
    return s64(want) == got
def decl_type(vals):
    t = ""
    for v in vals:
        k = ("" if v is None else "INTEGER" if isinstance(v, (bool, int)) else
             "REAL" if isinstance(v, float) else "TEXT")
        order = ["", "INTEGER", "REAL", "TEXT"]
        if order.index(k) > order.index(t): t = k
    return t

# run
run = json.load(open(os.path.join(d, "run.json")))
cur = con.execute("SELECT * FROM run")
cols = [c[0] for c in cur.description]
rows = cur.fetchall()
ok(len(rows) == 1 and cols == list(run), "run: one row, a column per run.json key in order", cols)
bad = [k for k, c in zip(cols, rows[0]) if not cell_eq(run[k], c)] if rows else ["none"]
ok(not bad, "run: every value as in run.json (command as JSON text, nulls NULL)", bad)

# reports and status
docs = [("schedlab", "status", "status", os.path.join(d, "status.json"))]
for f in sorted(os.listdir(os.path.join(d, "reports"))):
    for j in sorted(os.listdir(os.path.join(d, "reports", f))):
        if j.endswith(".json"):
            docs.append((f, j[:-5], "report_%s_%s" % (f, j[:-5]), os.path.join(d, "reports", f, j)))
reps = {r[0]: r for r in con.execute("SELECT \"table\", feature, report, layout, rows, columns, units, notes, meta, trailer, schema FROM reports")}
ok(sorted(reps) == sorted(t for _, _, t, _ in docs), "reports: a row per report JSON and status.json", sorted(reps))
for f, r, t, path in docs:
    doc = json.load(open(path))
    cur = con.execute('SELECT * FROM "%s"' % t)
    got = cur.fetchall()
    names = [c[0] for c in cur.description]
    ok(names == doc["columns"] and len(got) == len(doc["rows"]),
       "%s: the columns and the %d rows of %s" % (t, len(doc["rows"]), os.path.basename(path)), names, len(got))
    bad = []
    for i, (w, g) in enumerate(zip(doc["rows"], got)):
        for c, name in enumerate(doc["columns"]):
            want = w[c] if c < len(w) else None
            if not cell_eq(want, g[c]): bad.append((i, name, want, g[c]))
    ok(not bad, "%s: every cell the JSON's value" % t, *bad)
    types = {row[1]: row[2] for row in con.execute('PRAGMA table_info("%s")' % t)}
    want = {name: decl_type([w[c] if c < len(w) else None for w in doc["rows"]]) for c, name in enumerate(doc["columns"])}
    ok(types == want, "%s: columns typed by their values (%s)" % (t, ",".join(types[c] or "-" for c in doc["columns"])), types, want)
    rep = reps.get(t)
    ok(rep is not None and rep[1:5] == (f, r, doc["layout"], len(doc["rows"])) and
       all(json.loads(rep[5 + k]) == doc[key] for k, key in enumerate(["columns", "units", "notes", "meta", "trailer"])) and
       rep[10] == doc["schema"], "reports row of %s: feature, report, layout, rows, columns, units, notes, meta, trailer" % t, rep)
# the bytes of a comm: \u00XX is byte XX (docs/reporting.md), here its code point as UTF-8
c = con.execute("SELECT comm, hex(comm) FROM report_blocked_on_stats").fetchone()
ok(c == ("caf\u00e9", "636166C3A9"), "a string's byte 0xe9 is U+00E9 in the text", c)

# the trace
if not have_trace:
    n = con.execute("SELECT count(*) FROM events").fetchone()[0]
    ok(n == 0, "no trace: events is empty", n)
    print("# SKIP the trace checks (no trace.dat recorded on this host)")
    sys.exit(0)
# trace-cmd report -R -t: "[buf: ]comm-pid [cpu] sec.nsec: event: field=value ..."
line_re = re.compile(r"^(?:\S+: )?\s*(.*)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\w+):\s?(.*)$")
recs = []
for l in open(report):
    m = line_re.match(l.rstrip("\n"))
    if m: recs.append(m.groups())
def raw_fields(s, names):
    # name=value in the format's order; a value may hold spaces (a string)
    out, starts, p = {}, [], 0
    for i, n in enumerate(names):
        k = s.find(n + "=", p) if i == 0 else s.find(" " + n + "=", p) + 1
        starts.append(k)
        p = k + len(n) + 1
    for i, n in enumerate(names):
        end = starts[i + 1] - 1 if i + 1 < len(names) else len(s)
        out[n] = s[starts[i] + len(n) + 1:end]
    return out
def num(v):
    return int(v, 0) & ((1 << 64) - 1)
ev = con.execute("SELECT ts_ns, cpu, event, pid, comm, fields FROM events ORDER BY rowid").fetchall()
ok(len(ev) == len(recs) and len(ev) > 0, "events: as many rows as trace-cmd report prints events (%d)" % len(recs), len(ev))
names = sorted(set(r[5] for r in recs))
ok(sorted(set(e[2] for e in ev)) == names, "events: the same event names (%s)" % " ".join(names))
tables = {n: "sched_" + n if n.startswith("sched") else "signal_" + n if n.startswith("signal")
          else "raw_syscalls_" + n for n in names}
# compare as sorted multisets: records of the same ns on two CPUs may come in either order
def key_ev(ts, cpu, name, pid, fields): return (ts, cpu, name, pid, fields)
mine, theirs, bad = [], [], []
for e in ev:
    f = json.loads(e[5])
    mine.append((e[0], e[1], e[2], e[3], tuple(sorted(
        (k, num(str(v)) if isinstance(v, int) else tuple(x & ((1 << 64) - 1) for x in v) if isinstance(v, list) else v)
        for k, v in f.items()))))
fmt = {}
for e in ev:
    fmt.setdefault(e[2], list(json.loads(e[5])))
for comm, pid, cpu, sec, ns, name, rest in recs:
    fl = raw_fields(rest, fmt[name])
    conv = []
    for k, v in fl.items():
        if v.startswith("ARRAY["):
            # bytes, little-endian elements of 8 (unsigned long args[6])
            b = bytes(int(x, 16) for x in v[6:-1].split(",") if x.strip())
            conv.append((k, tuple(int.from_bytes(b[i:i + 8], "little") for i in range(0, len(b), 8))))
        elif re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", v) and not k.endswith("comm") and k != "filename":
            conv.append((k, num(v)))
        else:
            conv.append((k, v))
    theirs.append((int(sec) * 10**9 + int(ns), int(cpu), name, int(pid), tuple(sorted(conv))))
mine.sort(); theirs.sort()
diff = [(a, b) for a, b in zip(mine, theirs) if a != b]
ok(mine == theirs, "events: every record's time, CPU, pid and fields (JSON) as trace-cmd report -R prints them", *diff[:3])
# the typed tables: the same fields, a column each
for name in names:
    t = tables[name]
    cur = con.execute('SELECT * FROM "%s"' % t)
    cols = [c[0] for c in cur.description]
    rows = cur.fetchall()
    n = sum(1 for r in recs if r[5] == name)
    ok(cols[:4] == ["ts_ns", "common_cpu", "common_pid", "common_comm"] and cols[4:] == fmt[name] and len(rows) == n,
       "%s: ts_ns, common_cpu/pid/comm and a column per field (%s), %d rows" % (t, ",".join(cols[4:]), n), cols, len(rows))
    want = sorted((e[0], e[1], e[3], e[4], tuple(json.dumps(v) if isinstance(v, list) else v
                  for v in json.loads(e[5]).values())) for e in ev if e[2] == name)
    got = sorted((r[0], r[1], r[2], r[3], tuple(r[4:])) for r in rows)
    ok(got == want, "%s: every row the record's values (arrays as JSON text)" % t,
       *[(a, b) for a, b in zip(got, want) if a != b][:2])
types = {r[1]: r[2] for r in con.execute('PRAGMA table_info("sched_sched_switch")')}
ok(types.get("prev_comm") == "TEXT" and types.get("prev_pid") == "INTEGER" and types.get("prev_state") == "INTEGER",
   "sched_sched_switch: char arrays TEXT, integers INTEGER", types)
# comm from the trace's saved cmdlines: this shell's syscalls
c = con.execute("SELECT DISTINCT common_comm FROM raw_syscalls_sys_enter").fetchall()
ok(len(c) == 1 and c[0][0] in ("bash", "test_export.sh"), "raw_syscalls_sys_enter: the comm of the shell that made them, from the saved cmdlines", c)
c = con.execute("SELECT DISTINCT code FROM signal_signal_generate WHERE sig = 28 AND comm = 'python3'").fetchall()
ok(c == [(-6,)], "signal_signal_generate: a signed int field's -6 (SI_TKILL) stays -6 (sign-extended)", c)
c = con.execute("SELECT count(*) FROM sched_sched_process_exec WHERE filename = '/bin/true' OR filename LIKE '%/true'").fetchone()[0]
ok(c >= 1, "sched_sched_process_exec: its __data_loc filename as text (/bin/true)", c)
PY
)

# --- bad arguments, nothing written -------------------------------------------------
x=$tmp/x.sqlite
sum0=$(md5sum <$x)
run() { err=$("$SL" export "$@" 2>&1); rc=$?; }
expect() {	# expect RC PATTERN DESC
	is "$rc" "$1" "$3: exit $1"
	_pat=$2
	ok 'grep -q -- "$_pat" <<<"$err"' "$3: says '$2'"
	[ "$rc" = "$1" ] || diag "stderr: $err"
}
run -o $tmp/n1.sqlite
expect 1 "which run directory" "export without DIR"
run $d
expect 1 "where to? -o FILE" "export without -o"
run $d -o
expect 1 "needs a FILE" "export -o without FILE"
run $d -x -o $tmp/n1.sqlite
expect 1 "unknown option '-x'" "export -x"
run $d $d -o $tmp/n1.sqlite
expect 1 "unexpected argument" "export DIR DIR"
run $d -o $x
expect 1 "exists: -f to replace it" "export onto an existing FILE without -f"
is "$(md5sum <$x)" "$sum0" "the existing FILE untouched"
run $tmp/nonexistent -o $tmp/n1.sqlite
expect 5 "No such file" "export of a missing DIR"
mkdir $tmp/empty
run $tmp/empty -o $tmp/n1.sqlite
expect 5 "not a run directory: no run.json" "export of a directory without run.json"
run $d/run.json -o $tmp/n1.sqlite
expect 5 "not a directory" "export of a file"
mkdir -p $tmp/badjson && echo '{"schema": 1,' >$tmp/badjson/run.json
run $tmp/badjson -o $tmp/n1.sqlite
expect 5 "not a run.json" "export of a DIR whose run.json does not parse"
cp -r $d $tmp/badrep && echo '{"columns": [' >$tmp/badrep/reports/signals/tasks.json
run $tmp/badrep -o $tmp/n1.sqlite -f
expect 5 "not a report's JSON" "export of a DIR with a damaged report"
if [ $have_trace = 1 ]; then
	cp -r $d $tmp/badtrace && head -c 3000 $d/trace.dat >$tmp/badtrace/trace.dat
	run $tmp/badtrace -o $x -f
	expect 5 "trace.dat" "export -f of a DIR with a truncated trace.dat"
	is "$(md5sum <$x)" "$sum0" "the existing FILE untouched by the failed -f"
	rm $tmp/badtrace/trace.dat
	run $tmp/badtrace -o $tmp/n1.sqlite
	expect 5 "trace.dat: No such file" "export of a DIR whose trace.dat is missing"
else
	skip "a damaged or missing trace.dat: exit 5, FILE untouched" "no trace.dat on this host"
fi
ok "[ ! -e $tmp/n1.sqlite ]" "the refused exports wrote no FILE"
is "$(ls $tmp | grep -c '\.tmp-')" 0 "no temporary file left"

# --- -f replaces; a run without a recording -------------------------------------------
cp -r $d $tmp/norec
sed -i 's/"trace": "trace.dat"/"trace": null/' $tmp/norec/run.json
rm -f $tmp/norec/trace.dat
run $tmp/norec -o $x -f
is "$rc" 0 "export -f onto the existing FILE: exit 0"
is "$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute("select count(*) from events").fetchone()[0], c.execute("select trace is null from run").fetchone()[0])' $x)" "0 1" \
	"-f replaced it: the new one's run has no trace, its events none"

# --- as an unprivileged user ------------------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 755 $tmp && chmod -R a+rX $d && mkdir -m 777 $tmp/out
	err=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$SL" export $d -o $tmp/out/u.sqlite 2>&1); rc=$?
	ok "[ $rc = 0 ] && [ -s $tmp/out/u.sqlite ]" "as nobody: export of a readable run directory works (no root needed)"
	[ $rc = 0 ] || diag "$err"
else
	skip "as nobody" "not root or no setpriv"
fi
done_testing
