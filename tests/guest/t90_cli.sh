# The schedlab command (tools/schedlab, docs/schedlab.1): every subcommand,
# bad arguments (exit code and message), an unprivileged user, the module
# not loaded; each failing command leaves every sysfs value as it was; and
# the reports' machine form (docs/reporting.md): for every available
# feature, every report's JSON parses (Python's json), has the text form's
# rows and columns, and a comm with a quote, a backslash, a space and
# control bytes comes back exact in JSON and as one token in text.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

SL=$HOSTBIN/schedlab
CHECK="python3 $TOP/tests/guest/report_check.py"
tmp=$(mktemp -d)
hostile_pid=
renamers=()
cleanup() {
	[ -n "$hostile_pid" ] && kill "$hostile_pid" 2>/dev/null
	[ ${#renamers[@]} -gt 0 ] && kill "${renamers[@]}" 2>/dev/null
	rm -rf "$tmp" "$SL_NOBODY"
}
trap cleanup EXIT
# run ARGS...: $out (stdout and stderr) and $rc of schedlab ARGS
run() { out=$("$SL" "$@" 2>&1); rc=$?; }
# nobody runs a copy outside the work tree (which nobody need not reach)
SL_NOBODY=/tmp/schedlab-t90-nobody
install -m 755 "$SL" $SL_NOBODY
run_nobody() {
	out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups $SL_NOBODY "$@" 2>&1); rc=$?
}
# every sysfs value of every feature (the state a failing command must keep)
state() {
	local a
	for a in $SYS/*/*; do [ -f "$a" ] && printf '%s=%s\n' "$a" "$(<"$a")"; done
}
# expect RC PATTERN DESC: the last run exited RC with PATTERN in its message
expect() {
	is "$rc" "$1" "$3: exit $1"
	_pat=$2
	ok 'grep -q -- "$_pat" <<<"$out"' "$3: says '$2'"
	[ "$rc" = "$1" ] || diag "output: $out"
}
features() { for d in $SYS/*/enabled; do basename "$(dirname "$d")"; done; }
available() { [ "$(cut -c1 "$SYS/$1/available")" = 1 ]; }

ok '[ -x $SL ]' "schedlab built ($SL)"

# --- module not loaded ------------------------------------------------------
unload
run status
expect 2 "insmod module/schedlab.ko or modprobe schedlab" "status without the module"
run enable cpu_signals
expect 2 "not loaded" "enable without the module"
load
ok loaded "module loaded"

# --- usage ----------------------------------------------------------------------
run
expect 1 "usage:" "no command"
run help
expect 0 "exit codes" "help"
run frobnicate
expect 1 "unknown command 'frobnicate'" "unknown command"
s0=$(state)
run enable
expect 1 "which feature" "enable without a feature"
run enable nosuchfeature
expect 1 "unknown feature 'nosuchfeature' (features: " "enable an unknown feature"
run enable cpu_signals period_ms
expect 1 "is not PARAM=VALUE" "enable with a bare word"
run enable cpu_signals nosuch=1
expect 1 "no parameter 'nosuch'" "enable with an unknown parameter"
run enable cpu_signals enabled=1
expect 1 "not a parameter" "enable with enabled= as a parameter"
run enable cpu_signals ../signals/sample_ms=5
expect 1 "not a parameter" "enable with a path as a parameter"
run enable cpu_signals period_ms=0
expect 1 "refused (EINVAL)" "enable with an out-of-range value"
run disable
expect 1 "exactly one FEATURE" "disable without a feature"
run disable nosuchfeature
expect 1 "unknown feature" "disable an unknown feature"
run reset
expect 1 "exactly one FEATURE" "reset without a feature"
run reset nosuchfeature
expect 1 "unknown feature" "reset an unknown feature"
run report
expect 1 "which feature" "report without a feature"
run report cpu_signals nosuchreport
expect 1 "no report 'nosuchreport' (reports: report)" "report an unknown report"
run report cpu_signals report --xml
expect 1 "unknown option '--xml'" "report with an unknown option"
run status extra
expect 1 "unexpected argument" "status with an argument"
is "$(state)" "$s0" "the failing commands changed no sysfs value"

# --- unavailable features (where this kernel lacks something) --------------------
nun=0
for f in $(features); do
	available "$f" && continue
	nun=$((nun + 1))
	why=$(cut -d' ' -f2- "$SYS/$f/available")
	run enable "$f"
	expect 3 "unavailable on this kernel: $why" "enable $f (unavailable)"
	run report "$f"
	expect 3 "unavailable" "report $f (unavailable)"
done
[ $nun = 0 ] && skip "enable an unavailable feature: exit 3 and why" "every feature is available on $(uname -r)"
is "$(state)" "$s0" "still no sysfs value changed"

# --- an unprivileged user ---------------------------------------------------------
for cmd in "status" "enable cpu_signals" "disable cpu_signals" "reset all" "report cpu_signals" "report cpu_signals report --json"; do
	# shellcheck disable=SC2086
	run_nobody $cmd
	expect 4 "permission denied.*root" "as nobody: schedlab $cmd"
done
is "$(state)" "$s0" "nobody's commands changed no sysfs value"

# --- status -------------------------------------------------------------------------
run status
is "$rc" 0 "status: exit 0"
is "$out" "$(<$DBG/status)" "status prints the module's status report"
run status --json
is "$rc" 0 "status --json: exit 0"
printf '%s\n' "$out" >$tmp/status.json
is "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s=%d/%d" % (r[0], r[1], r[2]) for r in sorted(d["rows"])))' $tmp/status.json 2>&1)" \
	"$(for f in $(features); do printf '%s=%s/%s ' "$f" "$(cut -c1 $SYS/$f/available)" "$(<$SYS/$f/enabled)"; done | sed 's/ $//')" \
	"status --json: every feature with available/enabled as sysfs says"

# --- enable, disable, reset -----------------------------------------------------------
old_period=$(<$SYS/cpu_signals/period_ms)
run enable cpu_signals period_ms=50
is "$rc" 0 "enable cpu_signals period_ms=50: exit 0"
is "$(<$SYS/cpu_signals/enabled)/$(<$SYS/cpu_signals/period_ms)" 1/50 "cpu_signals enabled with period_ms 50"
s1=$(state)
run enable cpu_signals period_ms=100000
expect 1 "refused (EINVAL)" "enable cpu_signals period_ms=100000 (beyond 10000)"
is "$(state)" "$s1" "the refused value changed nothing"
if available signals; then
	sm=$(<$SYS/signals/sample_ms)
	echo 0 > $SYS/signals/enabled
	s2=$(state)
	run enable signals sample_ms=$((sm + 1)) filter_pid=notanumber
	expect 1 "refused (EINVAL)" "enable signals with a good then a bad parameter"
	is "$(state)" "$s2" "the good parameter written first is restored, signals still disabled"
	echo 1 > $SYS/signals/enabled
	s2=$(state)
	run enable signals max_tasks=64
	expect 5 "disable first" "enable signals max_tasks=64 while enabled (EBUSY)"
	is "$(state)" "$s2" "nothing changed by the refused live change"
	echo 0 > $SYS/signals/enabled
fi
run disable cpu_signals
is "$rc/$(<$SYS/cpu_signals/enabled)" 0/0 "disable cpu_signals"
echo "$old_period" > $SYS/cpu_signals/period_ms
run reset cpu_signals
expect 0 "disabled, nothing to reset" "reset a disabled feature"
if available overutil; then
	run enable overutil
	is "$rc" 0 "enable overutil"
	sleep 1
	since0=$(sed -nE 's/^# overutil: ([0-9]+) us since.*/\1/p' $DBG/overutil/report)
	run reset overutil
	expect 0 "statistics reset" "reset overutil"
	since1=$(sed -nE 's/^# overutil: ([0-9]+) us since.*/\1/p' $DBG/overutil/report)
	ok "[ -n '$since1' ] && [ '$since1' -lt '$since0' ]" "reset overutil restarts its statistics ($since0 -> $since1 us since reset)"
fi
run reset all
is "$rc" 0 "reset all: exit 0"
diag "$out"

# --- reports: JSON for every available feature and report ----------------------------
# a task with a hostile comm: quote, backslash, space, control bytes, 0xe9
python3 -c '
import ctypes, time
ctypes.CDLL(None).prctl(15, b"a\"b\\c d\x01\x7f\xe9", 0, 0, 0)
while True:
    time.sleep(0.02)' &
hostile_pid=$!
sleep 0.5
nfeat=0
checks=()
declare -A allnames
for f in $(features); do
	available "$f" || continue
	nfeat=$((nfeat + 1))
	"$SL" enable "$f" >/dev/null 2>&1 || diag "enable $f failed"
done
# mutex contention (the rename mutex), so that blocked_on's chains, locks
# and tasks have rows
mkdir -p $tmp/ren
renamers=()
for i in 1 2 3; do
	$HOSTBIN/rename_loop $tmp/ren 600 >/dev/null 2>&1 & renamers+=($!)
done
sleep 2
# then stopped: the statistics tables keep their rows and nothing changes
# between a report's text and JSON reads (one try each, not a retry loop
# of program starts, seconds each under emulation)
kill "${renamers[@]}" 2>/dev/null; wait "${renamers[@]}" 2>/dev/null; renamers=()
for f in $(features); do
	available "$f" || continue
	names=$(cd $DBG/$f && for j in *.json; do echo "${j%.json}"; done | sort | paste -sd' ')
	run report "$f"
	is "$rc" 0 "report $f (text, every report): exit 0"
	"$SL" report "$f" --json >$tmp/$f.all.json 2>&1
	is "$?" 0 "report $f --json (every report): exit 0"
	allnames[$f]=$names
	# text, JSON, text of each report back to back (a C program: fast)
	for n in $names; do
		"$SL" report "$f" "$n" >$tmp/$f.$n.t1 2>&1; r1=$?
		"$SL" report "$f" "$n" --json >$tmp/$f.$n.json 2>&1; r2=$?
		"$SL" report "$f" "$n" >$tmp/$f.$n.t2 2>&1
		is "$r1/$r2" 0/0 "report $f $n, text and --json: exit 0"
		checks+=("$tmp/$f.$n")
	done
done
# then every pair checked in one Python process (seconds per start here)
nchecked=0
while read -r pre lay jr tr cok; do
	name=${pre#"$tmp"/}
	ok "[ '$cok' = yes ]" "$name.json parses, its shape is right and it names the text form's columns ($lay)"
	is "$jr" "$tr" "$name: as many rows in JSON as in text ($jr, $lay)"
	[ "$cok" = yes ] || { diag "$lay $jr"; diag "$(head -c 600 "$pre.json")"; diag "$(head -5 "$pre.t1")"; }
	nchecked=$((nchecked + 1))
done < <($CHECK "${checks[@]}" 2>&1)
is "$nchecked" "${#checks[@]}" "every report pair checked"
# and each feature's all-reports document, also in one process
fs=("${!allnames[@]}")
while read -r f got; do
	is "$got" "${allnames[$f]}" "report $f --json: one JSON document of its reports (${allnames[$f]})"
done < <(cd $tmp && python3 -c '
import json, sys
for f in sys.argv[1:]:
    try:
        d = json.load(open(f + ".all.json"))
        print(f, " ".join(r["report"] for r in d["reports"]))
    except Exception as e:
        print(f, "error:", e)' "${fs[@]}" 2>&1)
ok "[ $nfeat -ge 1 ]" "reports checked for $nfeat available features"
# the hostile comm through signals (it tracks every task that runs)
if available signals; then
	echo "$hostile_pid" > $SYS/signals/filter_pid
	sleep 0.5
	"$SL" report signals tasks --json >$tmp/tasks.json
	is "$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
print(" ".join(repr(r[2].encode("latin-1")) for r in rows if r[0] == int(sys.argv[2])))' $tmp/tasks.json "$hostile_pid" 2>&1)" \
		"b'a\"b\\\\c d\\x01\\x7f\\xe9'" "a hostile comm comes back byte for byte from signals/tasks.json"
	is "$(awk -v p="$hostile_pid" '$1 == p { print $3 }' $DBG/signals/tasks)" 'a"b\c_d???' \
		"and as one token in the text form (space '_', other bytes '?')"
	echo 0 > $SYS/signals/filter_pid
fi
kill "$hostile_pid" 2>/dev/null
wait "$hostile_pid" 2>/dev/null
hostile_pid=

# --- disable what was enabled ------------------------------------------------------
for f in $(features); do
	available "$f" || continue
	run disable "$f"
	is "$rc/$(<$SYS/$f/enabled)" 0/0 "disable $f"
done
unload
done_testing
