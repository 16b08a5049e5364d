#!/usr/bin/env bash
# schedlab plot (tools/schedlab, docs/schedlab.1) on run directories made
# here (TAP output; arguments ignored). The module is not needed: where the
# host lets root record, tests/host/plot_feed.c passes fixed records to
# functions that uprobe events of group "schedlab" fetch, named and typed as
# the module's events (signals_task, signals_cpu, cpu_signals, overutil,
# mutex_wait_begin, mutex_wait_end, and an eevdf_violation plot does not
# know), recorded in a tracefs instance and saved by trace-cmd extract as
# DIR/trace.dat. Then:
#  - plot writes (and prints) a PNG and its data file per plot: signals_task,
#    signals_cpu, cpu_signals, overutil, blocked_on_waits, blocked_on_split,
#    and a count plot for the events it has no plot for (count_mutex_wait_begin,
#    count_eevdf_violation);
#  - each PNG is a PNG (signature, IHDR) of 1100 x (60 + 240 x panels),
#    panels the blocks of its data file (a task, a CPU, a rule);
#  - each data file's rows are the records: signals_task's samples (reason 1,
#    not the dequeues) per pid, signals_cpu's and cpu_signals' per CPU,
#    overutil's per rule and CPU, mutex_wait_end's per lock: the times
#    (ts_ns, and t_s from the first record) of trace-cmd report, the values
#    fed (plot_feed's log: an independent account of them; util_est -1 as
#    "?", a comm's blank as _, a lock's 64 bits as hex); the split per lock
#    their sums; the counts per bin add up to the records;
#  - a second run directory with only eevdf_violation recorded: plot -f
#    other works, -f signals exits 5 (no events) and writes nothing; a
#    third without any record: plot exits 5 and writes nothing;
#  - bad input, each with its exit code and message, and no OUTDIR or
#    temporary directory left: no DIR, unknown option, unknown feature (1);
#    DIR missing, not a directory, without run.json, run.json not JSON,
#    run.json without a recording, trace.dat missing, trace.dat damaged, no
#    gnuplot in PATH (says apt install gnuplot-nox), a gnuplot that fails
#    after writing a PNG, an OUTDIR that cannot be made, that is a file,
#    that nobody may write (5);
#  - plotting again into an existing OUTDIR replaces the plots and leaves
#    its other files alone.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top" || exit 2

SL=$top/build/host/schedlab
tmp=$(mktemp -d)
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
EVENTS="signals_task signals_cpu cpu_signals overutil mutex_wait_begin mutex_wait_end eevdf_violation"
inst= inst2= inst3= probes=0
cleanup() {
	local e
	[ -n "$inst" ] && [ -d "$inst" ] && rmdir "$inst" 2>/dev/null
	[ -n "$inst2" ] && [ -d "$inst2" ] && rmdir "$inst2" 2>/dev/null
	[ -n "$inst3" ] && [ -d "$inst3" ] && rmdir "$inst3" 2>/dev/null
	if [ $probes = 1 ]; then
		for e in $EVENTS; do echo "-:schedlab/$e" >>$T/uprobe_events 2>/dev/null; done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT

ok "[ -x $SL ]" "schedlab built (make tools)"
command -v python3 >/dev/null || { skip "plot" "no python3"; done_testing; exit; }
command -v gnuplot >/dev/null || { skip "plot" "no gnuplot (scripts/setup-host.sh installs gnuplot-nox)"; done_testing; exit; }

runjson() {	# runjson DIR TRACE
	cat >$1/run.json <<EOJ
{"schema": 1, "command": ["plot_feed", "feed"], "exit_status": 0, "signal": null,
 "interrupted_by": null, "exit_code": 0, "start": "2026-12-05T06:00:00+0000",
 "end": "2026-12-05T06:00:01+0000", "start_unix": 1796450400.0, "duration_s": 1.0,
 "kernel_release": "$(uname -r)", "schedlab_version": "test", "features": ["signals"],
 "trace": $2, "events": {}, "events_lost": 0, "reports": "reports"}
EOJ
}
d=$tmp/run d2=$tmp/run2 d3=$tmp/run3
mkdir -p $d $d2 $d3
runjson $d '"trace.dat"'
runjson $d2 '"trace.dat"'
runjson $d3 '"trace.dat"'
# the saved locks report names a lock: blocked_on's plots label it so
mkdir -p $d/reports/blocked_on
cat >$d/reports/blocked_on/locks.json <<'EOJ'
{"schema": 1, "feature": "blocked_on", "report": "locks", "layout": "table",
 "columns": ["lock", "sym", "waits", "total_us"], "units": {"total_us": "us"}, "meta": {}, "notes": [],
 "rows": [["0xffff888012345678", "rename lock", 7, 1], ["0xffffffff81234567", null, 7, 1]], "trailer": []}
EOJ

# --- a trace.dat of schedlab's events, recorded here if the host lets us ----------------
have_trace=0
why="not root"
feed=$tmp/plot_feed
if ! cc -O0 -o $feed tests/host/plot_feed.c; then
	why="plot_feed does not build"
elif [ "$(uname -m)" != x86_64 ]; then
	why="the uprobes fetch x86_64 registers; this is $(uname -m)"
elif [ "$(id -u)" = 0 ] && command -v trace-cmd >/dev/null; then
	why="no uprobe_events or instances at $T"
	if [ -w $T/uprobe_events ] && [ -d $T/instances ]; then
		why="$T/events/schedlab exists (the module loaded here, or another test_plot running)"
		if [ ! -e $T/events/schedlab ]; then
			probes=1
			why="cannot define uprobe events (see $T/error_log)"
			declare -A args=(
				[signals_task]="reason=+0(%di):s32 pid=+8(%di):s32 cpu=+16(%di):s32 util_avg=+24(%di):s64 util_est=+32(%di):s64 model=+40(%di):u64 burst=+48(%di):u64 waiting=+56(%di):u64 time=+64(%di):u64 comm=+104(%di):string"
				[signals_cpu]="cpu=+0(%di):s32 capacity=+8(%di):u64 cfs_util_avg=+16(%di):u64 model=+24(%di):u64 burst=+32(%di):u64 waiting=+40(%di):u64 time=+48(%di):u64 tasks=+56(%di):u32"
				[cpu_signals]="cpu=+0(%di):s32 nr_running=+8(%di):u64 util_avg=+16(%di):u64 util_est=+24(%di):u64 capacity=+32(%di):u64"
				[overutil]="cpu=+0(%di):s32 rule=+8(%di):s32 on=+16(%di):u8 util=+24(%di):u64 capacity=+32(%di):u64"
				[mutex_wait_begin]="pid=+0(%di):s32 lock=+8(%di):u64 owner_pid=+16(%di):s32"
				[mutex_wait_end]="pid=+0(%di):s32 lock=+8(%di):u64 duration_us=+16(%di):u64 end=+24(%di):u32 max_depth=+32(%di):u32 cat_us=+40(%di):u64[8]"
				[eevdf_violation]="n=+0(%di):s64"
			)
			good=1
			while read -r name off; do
				echo "p:schedlab/$name $feed:$off ${args[$name]}" >>$T/uprobe_events || good=0
			done < <($feed offsets)
			if [ $good = 1 ] && mkdir $T/instances/slplot-$$ && mkdir $T/instances/slplot2-$$ &&
			   mkdir $T/instances/slplot3-$$; then
				inst=$T/instances/slplot-$$ inst2=$T/instances/slplot2-$$ inst3=$T/instances/slplot3-$$
				why="cannot enable the events in the instances"
				if echo 1 >$inst/events/schedlab/enable && echo 1 >$inst2/events/schedlab/eevdf_violation/enable; then
					$feed feed >$tmp/fed.txt
					echo 0 >$inst/tracing_on; echo 0 >$inst2/tracing_on
					# the third: an event's format, enabled after the feed: no record
					echo 1 >$inst3/events/schedlab/eevdf_violation/enable
					echo 0 >$inst3/tracing_on
					why="trace-cmd extract failed"
					if trace-cmd extract -B slplot-$$ -o $d/trace.dat >$tmp/extract.log 2>&1 &&
					   trace-cmd extract -B slplot2-$$ -o $d2/trace.dat >>$tmp/extract.log 2>&1 &&
					   trace-cmd extract -B slplot3-$$ -o $d3/trace.dat >>$tmp/extract.log 2>&1 &&
					   trace-cmd report -t -i $d/trace.dat >$tmp/report.txt 2>/dev/null &&
					   trace-cmd report -t -i $d2/trace.dat >$tmp/report2.txt 2>/dev/null; then
						have_trace=1
					fi
				fi
			fi
			rmdir $inst $inst2 $inst3 2>/dev/null; inst= inst2= inst3=
			for e in $EVENTS; do echo "-:schedlab/$e" >>$T/uprobe_events; done
			probes=0
		fi
	fi
fi

run() { err=$("$SL" plot "$@" 2>&1 >$tmp/stdout); rc=$?; }
expect() {	# expect RC PATTERN DESC
	is "$rc" "$1" "$3: exit $1"
	_pat=$2
	ok 'grep -q -- "$_pat" <<<"$err"' "$3: says '$2'"
	[ "$rc" = "$1" ] || diag "stderr: $err"
}
nothing() {	# nothing DIR DESC: no DIR, no temporary directory beside or in it
	ok "[ ! -e $1 ] && ! ls -a $(dirname $1) | grep -q 'plot-tmp'" "$2: nothing written"
}

if [ $have_trace = 1 ]; then
	# --- the plots ------------------------------------------------------------------
	run $d
	is "$rc" 0 "plot $d: exit 0"
	[ "$rc" = 0 ] || diag "$err"
	want=$( (for p in signals_task signals_cpu cpu_signals overutil blocked_on_waits blocked_on_split \
			count_mutex_wait_begin count_eevdf_violation; do echo "$d/plots/$p.dat"; echo "$d/plots/$p.png"; done; echo $d/plots/plot.gp) | sort)
	is "$(sort $tmp/stdout | tr '\n' ' ')" "$(tr '\n' ' ' <<<"$want")" "it prints the files written: a PNG and its data per plot, and plot.gp"
	is "$(ls -A $d/plots | sort | tr '\n' ' ')" "$(for f in $want; do echo ${f##*/}; done | sort | tr '\n' ' ')" \
		"DIR/plots holds those files only"
	tap_lines < <(python3 - "$d/plots" "$tmp/fed.txt" "$tmp/report.txt" 2>&1 <<'PY'
import os, re, struct, sys
from collections import Counter, defaultdict
plots, fed, report = sys.argv[1:4]
def ok(cond, desc, *diag):
    print(("ok - " if cond else "not ok - ") + desc)
    if not cond:
        for l in diag: print("# " + str(l)[:600])
# trace-cmd report -t: "comm-pid [cpu] sec.nsec: event: ..."; the records' times per event
line_re = re.compile(r"^.*?\[\d+\]\s+(\d+)\.(\d+):\s+(\w+):")
ts = defaultdict(list)
allts = []
for l in open(report):
    m = line_re.match(l)
    if m:
        t = int(m.group(1)) * 10**9 + int(m.group(2))
        ts[m.group(3)].append(t)
        allts.append(t)
t0 = min(allts)
# what was fed, in order, per event
fedv = defaultdict(list)
for l in open(fed):
    w = l.rstrip("\n").split(" ")
    fedv[w[0]].append(w[1:])
ok(all(len(ts[e]) == len(fedv[e]) for e in fedv) and len(fedv) == 7,
   "trace-cmd report: as many records per event as were fed (%s)" % sorted((e, len(v)) for e, v in fedv.items()),
   sorted((e, len(ts[e]), len(fedv[e])) for e in fedv))
# the records: (ts_ns, fed values), in time order
recs = {e: list(zip(ts[e], fedv[e])) for e in fedv}
def blocks(name):
    """a data file's blocks: [(header comment, [rows])]"""
    out, cur = [], None
    for l in open(os.path.join(plots, name)):
        l = l.rstrip("\n")
        if l.startswith("# ") and not l.startswith("# schedlab") and not l.startswith("# ts_ns") \
           and not l.startswith("# t_s") and not l.startswith("# lock label"):
            cur = (l[2:], []); out.append(cur)
        elif l and not l.startswith("#"):
            if cur is None: cur = ("", []); out.append(cur)
            cur[1].append(l.split(" "))
    return out
def png_size(name):
    b = open(os.path.join(plots, name), "rb").read(33)
    if b[:8] != b"\x89PNG\r\n\x1a\n" or b[12:16] != b"IHDR": return None
    return struct.unpack(">II", b[16:24])
def tcol(t): return "%.9f" % ((t - t0) / 1e9)
def na(v): return "?" if v == "-1" else v
def hexl(v): return "0x%x" % (int(v) & (2**64 - 1))
sizes = {}
# signals_task: a block per pid (first seen), its samples
want = defaultdict(list)
order = []
for t, v in recs["signals_task"]:
    reason, pid, cpu, ua, ue, model, burst, wait, time = v[:9]
    comm = " ".join(v[9:]).replace(" ", "_")
    if reason != "1": continue
    if pid not in order: order.append(pid)
    want[pid].append([str(t), tcol(t), comm, pid, cpu, ua, na(ue), model, burst, wait, time])
b = blocks("signals_task.dat")
got = {h.split()[1]: rows for h, rows in b}
ok([h.split()[1] for h, _ in b] == order and all(got[p] == want[p] for p in order),
   "signals_task.dat: a block per pid, its rows the samples (reason 1) fed, at trace-cmd's times (%d rows, %d pids)"
   % (sum(len(r) for r in got.values()), len(got)),
   [(p, got.get(p, [])[:2], want[p][:2]) for p in order])
ok(sum(len(r) for _, r in b) == sum(1 for _, v in recs["signals_task"] if v[0] == "1") <
   len(recs["signals_task"]), "signals_task.dat: the dequeues (reason 0) left out")
sizes["signals_task.png"] = len(b)
def percpu(ev, dat, n):
    want = defaultdict(list); order = []
    for t, v in recs[ev]:
        if v[0] not in order: order.append(v[0])
        want[v[0]].append([str(t), tcol(t)] + v[:n])
    b = blocks(dat)
    got = {h.split()[1]: rows for h, rows in b}
    ok([h.split()[1] for h, _ in b] == order and all(got[c] == want[c] for c in order),
       "%s: a block per CPU, its rows the %s records fed, at trace-cmd's times (%d rows)"
       % (dat, ev, sum(len(r) for r in got.values())), [(c, got.get(c, [])[:2], want[c][:2]) for c in order])
    return len(b)
sizes["signals_cpu.png"] = percpu("signals_cpu", "signals_cpu.dat", 8)
sizes["cpu_signals.png"] = percpu("cpu_signals", "cpu_signals.dat", 5)
# overutil: a block per rule (first seen) and CPU (in order), with its lane
rules, cpus = [], []
for t, v in recs["overutil"]:
    if v[1] not in rules: rules.append(v[1])
    if v[0] not in cpus: cpus.append(v[0])
cpus.sort(key=int)
wantb = []
for r in rules:
    for k, c in enumerate(cpus):
        if not any(v[1] == r and v[0] == c for _, v in recs["overutil"]): continue   # no empty block
        wantb.append(["%s %s %s %s" % (r, r, c, k)] +
                     [[str(t), tcol(t), v[1], v[0], v[2], v[3], v[4], str(k)] for t, v in recs["overutil"] if v[1] == r and v[0] == c])
b = blocks("overutil.dat")
gotb = [[h] + rows for h, rows in b]
ok([x[1:] for x in gotb] == [x[1:] for x in wantb] and len(b) == len(wantb),
   "overutil.dat: a block per rule and CPU, its rows the records fed (on 0/1), at trace-cmd's times (%d rows, %d rules, %d lanes)"
   % (sum(len(r) for _, r in b), len(rules), len(cpus)), gotb[:2], wantb[:2])
sizes["overutil.png"] = len(rules)
# mutex_wait_end: a block per lock, the most waited on first (fewer than 8: no "other")
tot = Counter()
for t, v in recs["mutex_wait_end"]: tot[hexl(v[1])] += int(v[2])
locks = [l for l, _ in sorted(tot.items(), key=lambda x: -x[1])]
b = blocks("blocked_on_waits.dat")
def wrow(t, v):
    return [str(t), tcol(t), "<...>", v[0], hexl(v[1]), v[2], v[3]] + v[5:13] + [v[4]]
wantw = {l: [wrow(t, v) for t, v in recs["mutex_wait_end"] if hexl(v[1]) == l] for l in locks}
gotw = {h.split()[1]: [r[:2] + ["<...>"] + r[3:] for r in rows] for h, rows in b}
ok([h.split()[1] for h, _ in b] == locks and gotw == wantw,
   "blocked_on_waits.dat: a block per lock (by time waited), its rows the waits fed (64-bit locks in hex, the 8 categories), at trace-cmd's times (%d rows)"
   % sum(len(r) for r in gotw.values()), [h for h, _ in b], locks, list(gotw.items())[:1], list(wantw.items())[:1])
split = [l.split() for l in open(os.path.join(plots, "blocked_on_split.dat")) if not l.startswith("#")]
wants = []
for l in locks:
    vs = [v for _, v in recs["mutex_wait_end"] if hexl(v[1]) == l]
    wants.append([l, "rename_lock" if l == "0xffff888012345678" else l, str(len(vs)), str(sum(int(v[2]) for v in vs))] +
                 [str(sum(int(v[5 + j]) for v in vs)) for j in range(8)])
ok(split == wants, "blocked_on_split.dat: per lock its waits, total_us and the sum of each category; its label the locks report's sym (blank as _) where it has one", split, wants)
sizes["blocked_on_waits.png"] = sizes["blocked_on_split.png"] = 1
for e in ("mutex_wait_begin", "eevdf_violation"):
    rows = [l.split() for l in open(os.path.join(plots, "count_%s.dat" % e)) if not l.startswith("#")]
    ok(sum(int(r[1]) for r in rows) == len(ts[e]) > 0 and len(rows) >= 2,
       "count_%s.dat: its bins add up to the %d records" % (e, len(ts[e])))
    sizes["count_%s.png" % e] = 1
for png, panels in sorted(sizes.items()):
    s = png_size(png)
    ok(s == (1100, 60 + 240 * panels), "%s: a PNG of 1100 x %d (%d panel(s)): %s" % (png, 60 + 240 * panels, panels, s))
PY
)
	# -f: only those features; the second run has eevdf_violation only
	run $d -f overutil,blocked_on -o $tmp/sel
	is "$rc $(ls $tmp/sel | tr '\n' ' ')" "0 blocked_on_split.dat blocked_on_split.png blocked_on_waits.dat blocked_on_waits.png count_mutex_wait_begin.dat count_mutex_wait_begin.png overutil.dat overutil.png plot.gp " \
		"plot -f overutil,blocked_on -o OUTDIR: those features' plots only"
	run $d2 -f other
	is "$rc $(ls $d2/plots | tr '\n' ' ')" "0 count_eevdf_violation.dat count_eevdf_violation.png plot.gp " \
		"plot -f other of a run with only eevdf_violation: its count plot"
	rm -rf $d2/plots
	run $d2 -f signals
	expect 5 "no signals events" "plot -f signals of a run without signals events"
	nothing $d2/plots "plot -f signals without its events"
	run $d2 -f cpu_signals,other
	expect 5 "no cpu_signals events" "plot -f cpu_signals,other of a run without cpu_signals events"
	nothing $d2/plots "plot -f cpu_signals,other without cpu_signals events"
	run $d3
	expect 5 "no schedlab events in $d3/trace.dat" "plot of a run whose trace.dat has no schedlab record"
	nothing $d3/plots "plot of a trace without records"

	# plotting again: the plots replaced, other files kept
	cp $d/plots/plot.gp $tmp/plot.gp.all
	echo mine >$d/plots/notes.txt
	touch -d 2001-01-01 $d/plots/overutil.png
	run $d -f overutil
	ok "[ $rc = 0 ] && [ \$(stat -c %Y $d/plots/overutil.png) -gt 1000000000 ] && [ \"\$(cat $d/plots/notes.txt)\" = mine ] && [ -e $d/plots/signals_task.png ]" \
		"plot again into an existing OUTDIR: overutil.png replaced, the other files left alone"
	ok "! ls -A $d/plots | grep -q plot-tmp" "no temporary directory left in OUTDIR"
	ok "rm -f $tmp/regp/*.png; mkdir -p $tmp/regp && cp $d/plots/*.dat $tmp/plot.gp.all $tmp/regp && cd $tmp/regp && gnuplot plot.gp.all && cd - >/dev/null && cmp -s $tmp/regp/signals_task.png $d/plots/signals_task.png" \
		"plot.gp left in OUTDIR draws the plots again (gnuplot plot.gp: the same signals_task.png)"
	ok "grep -q \"t 'rename_lock'\" $tmp/plot.gp.all" "blocked_on_waits.png's key names the lock the report names"

	# failures after reading: gnuplot missing, failing; OUTDIR not writable
	run $d -o $tmp/o1
	cp -a $tmp/o1 $tmp/o1.ref
	rm -rf $tmp/o1
	err=$(PATH=/nonexistent "$SL" plot $d -o $tmp/o1 2>&1); rc=$?
	expect 5 "apt install gnuplot-nox" "plot without gnuplot in PATH"
	nothing $tmp/o1 "plot without gnuplot"
	mkdir $tmp/fakebin
	printf '#!/bin/sh\necho "half" >signals_task.png\necho "line 3: no such terminal" >&2\nexit 1\n' >$tmp/fakebin/gnuplot
	chmod +x $tmp/fakebin/gnuplot
	err=$(PATH=$tmp/fakebin:$PATH "$SL" plot $d -o $tmp/o1 2>&1); rc=$?
	expect 5 "gnuplot failed" "plot with a gnuplot that fails after writing a PNG"
	ok 'grep -q "no such terminal" <<<"$err"' "the failing gnuplot's message is shown"
	nothing $tmp/o1 "plot with a failing gnuplot"
	mkdir $tmp/o2 && echo keep >$tmp/o2/signals_task.png
	err=$(PATH=$tmp/fakebin:$PATH "$SL" plot $d -o $tmp/o2 2>&1); rc=$?
	ok "[ $rc = 5 ] && [ \"\$(ls -A $tmp/o2)\" = signals_task.png ] && [ \"\$(cat $tmp/o2/signals_task.png)\" = keep ]" \
		"a failing gnuplot into an existing OUTDIR: its files untouched, nothing added"
	run $d -o /proc/schedlab-plots
	expect 5 "cannot make /proc/schedlab-plots" "plot -o an OUTDIR that cannot be made"
	run $d -o $tmp/no/such/dir
	expect 5 "cannot make $tmp/no/such/dir: No such file" "plot -o an OUTDIR whose parent does not exist"
	touch $tmp/afile
	run $d -o $tmp/afile
	expect 5 "is not a directory" "plot -o an OUTDIR that is a file"
	if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
		chmod 755 $tmp && chmod -R a+rX $d && mkdir -m 755 $tmp/ro
		err=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$SL" plot $d -o $tmp/ro 2>&1); rc=$?
		expect 5 "cannot write into $tmp/ro" "as nobody, plot -o a directory it may not write"
		ok "[ -z \"\$(ls -A $tmp/ro)\" ]" "as nobody: nothing written"
		mkdir -m 777 $tmp/rw
		err=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$SL" plot $d -o $tmp/rw/p 2>&1); rc=$?
		ok "[ $rc = 0 ] && [ -s $tmp/rw/p/signals_task.png ]" "as nobody: plot of a readable run directory into its own OUTDIR works (no root needed)"
	else
		skip "as nobody" "not root or no setpriv"
	fi
	cp -r $d $tmp/badtrace && rm -rf $tmp/badtrace/plots && head -c 3000 $d/trace.dat >$tmp/badtrace/trace.dat
	run $tmp/badtrace
	expect 5 "libtracecmd cannot read it" "plot of a DIR with a truncated trace.dat"
	nothing $tmp/badtrace/plots "plot of a truncated trace.dat"
else
	diag "no trace.dat of schedlab events on this host ($why): the plots are not checked"
	skip "the plots and their data" "$why"
fi

# --- bad input, without a trace -------------------------------------------------------
run
expect 1 "which run directory" "plot without DIR"
run $d --bogus
expect 1 "unknown option" "plot with an unknown option"
run $d -f signals,nope
expect 1 "unknown feature 'nope'" "plot -f with an unknown feature"
run $d -o
expect 1 "needs a directory" "plot -o without OUTDIR"
run $d $d
expect 1 "unexpected argument" "plot of two DIRs"
run $tmp/missing
expect 5 "No such file" "plot of a DIR that does not exist"
touch $tmp/file
run $tmp/file
expect 5 "not a run directory" "plot of a file"
mkdir $tmp/norun
run $tmp/norun
expect 5 "no run.json" "plot of a directory without run.json"
nothing $tmp/norun/plots "plot of a directory without run.json"
mkdir $tmp/badjson && echo '{"trace": ' >$tmp/badjson/run.json
run $tmp/badjson
expect 5 "not a run.json" "plot of a DIR whose run.json does not parse"
mkdir $tmp/norec && runjson $tmp/norec null
run $tmp/norec
expect 5 "no recording" "plot of a run without a recording (trace null)"
mkdir $tmp/notrace && runjson $tmp/notrace '"trace.dat"'
run $tmp/notrace
expect 5 "trace.dat: No such file" "plot of a DIR whose trace.dat is missing"
nothing $tmp/notrace/plots "plot of a DIR whose trace.dat is missing"
done_testing
