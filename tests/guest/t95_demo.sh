# make demo's tour (scripts/demo-guest.sh) in this guest, so that
# `make demo KERNEL=...` keeps working on every kernel of the suite: it runs
# to its end, and each stop shows what it is there to show (read from the
# transcript it prints, not typed in):
#  1. blocked_on: an inversion by cgroup weight whose chain ends at the bg
#     renamer, runnable; the fg renamer's waits mostly "preempted" (with
#     proxy execution on: more "proxy" than "preempted", and the
#     decisions shown);
#  2. signals: rows for the periodic task, nice0 and nice10, numbers in
#     every column (the relations between them are t60's);
#  3. dlparams: the control loop's summary, refinement steps taken;
#  4. overutil: the system rows of every rule, mainline set at least once;
#  5. eevdf: the checks table with eligible checked, and the mutated slice
#     check's violations (6.1: the status line says why it is unavailable);
#  6. perf: CPU 1's row with a number in every column shown, and with
#     uclamp, a sample with the small task queued (the relations are t62's);
# and the module is unloaded at the end.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

load
proxy=off; proxy_on && proxy=on
unload
res=$(mktemp -d)
t0=$(date +%s)
SCHEDLAB_RESULTS=$res bash "$TOP/scripts/demo-guest.sh"
is "$?" 0 "the tour ran (exit 0)"
t=$res/demo.txt
ok "grep -q '^=== done in' $t" "it reached its end ($(($(date +%s) - t0)) s)"
grep -q '^=== done in' "$t" || while read -r l; do diag "$l"; done < <(tail -n 20 "$t")
ok "! loaded" "and unloaded schedlab"
for n in 1 2 3 4 5 6; do
	ok "grep -q '^=== $n\\. ' $t" "stop $n is there: $(grep -m1 "^=== $n\\. " "$t" | cut -c5-)"
done

# the fg renamer (the demo's summary names it), its row in the tasks table
fg=$(sed -nE 's/^  fg renamer ([0-9]+): waits .*/\1/p' "$t" | head -n1)
row=$(awk -v p="$fg" '/^\$ schedlab report blocked_on tasks/ { on = 1; next } on && /^\$|^$/ { on = 0 } on && $1 == p' "$t")
diag "fg renamer's row: $row"
read -r _ comm _ total _ _ _ pre _ _ prox <<<"$row"
is "$comm" rename_loop "stop 1: the fg renamer's row is named rename_loop"
if [ $proxy = off ]; then
	# the worst inversion: rule 0x8, chain fg -> bg with bg runnable (r)
	inv=$(grep -m1 -A1 '^0: pid' "$t")
	diag "$inv"
	ok "grep -qE 'rules 0x[0-9a-f]*[89a-f] ' <<<\"\$inv\"" "stop 1: the worst inversion is by cgroup weight (rule 0x8)"
	ok "grep -qE 'chain depth [0-9]+: [0-9]+ rename_loop .* -> [0-9]+ rename_loop [^ ]+ r ' <<<\"\$inv\"" \
		"stop 1: its chain ends at the other renamer, runnable"
	is "$(sed -nE '1s/^0: pid ([0-9]+) .*/\1/p' <<<"$inv")" "$fg" "stop 1: the fg renamer is the waiter of the worst inversion"
	ok "[ -n '$pre' ] && [ $((2 * ${pre:-0})) -gt ${total:-0} ]" "stop 1: most of its wait was behind a preempted owner ($pre of $total us)"
else
	ok "[ -n '$prox' ] && [ ${prox:-0} -gt ${pre:-0} ]" "stop 1 (proxy execution on): its owner ran as its proxy longer than it stayed preempted ($prox vs $pre of $total us)"
	ok "grep -qE '^proxy_run_owner +[1-9]' $t" "stop 1: the owner-run decisions are shown"
fi

# 2. signals: columns pid comm util_avg util_est burst waiting run_us wait_us
sig() { awk -v c="$1" '/^\$ schedlab report signals tasks/ { on = 1; next } on && /^\$|^$/ { on = 0 } on && $2 == c' "$t"; }
for c in periodic nice0 nice10; do
	ok "[ -n \"$(sig $c)\" ]" "stop 2: a row for $c: $(sig $c)"
done
ok "[ -n \"\$(sig nice10)\" ] && ! grep -qv '^[0-9]*  *nice10\(  *[0-9][0-9]*\)*$' <<<\"\$(sig nice10)\"" \
	"stop 2: nice10's row has a number in every column"
# The relations themselves (nice0's util_avg above nice10's, nice10's
# util_burst well above its util_avg) are asserted under control in t60
# (signals_check nice); here, one unpinned moment of an emulated guest,
# they are reported. Seen once on 6.1: all three rows at burst 0 and
# waiting 0 with nice10 ahead of nice0 in run_us (unexplained).
read -r _ _ avg0 _ _ _ <<<"$(sig nice0)"
read -r _ _ avg10 _ burst10 _ <<<"$(sig nice10)"
diag "nice0 util_avg $avg0, nice10 util_avg $avg10 util_burst $burst10"

# 3. dlparams
sum=$(grep -m1 '^summary: jobs' "$t")
diag "$sum"
ok "grep -qE 'refinement_steps [1-9]' <<<\"\$sum\"" "stop 3: the control loop ran its jobs and refined"
ok "grep -qE '^publishes [1-9]' $t" "stop 3: the switch probe published the thread's values"

# 4. overutil: the system rows, every rule a column
ok "grep -qE '^scope +metric +mainline +linger +idle +dynamic +lone +all' $t" "stop 4: every rule side by side"
sets=$(awk '$1 == "system" && $2 == "sets" { print $3 }' "$t")
ok "[ ${sets:-0} -gt 0 ]" "stop 4: mainline set the system overutilized ($sets times)"

# 5. eevdf: the checks table (check checked violations skipped), then the
# violations of mutate=3 (columns time_us cpu check pid comm expected actual)
st5=$(sed -n '/^=== 5\. /,/^=== 6\. /p' "$t")
if grep -q '^\$ schedlab report eevdf checks' <<<"$st5"; then
	el=$(awk '$1 == "eligible" { print $2 }' <<<"$st5")
	ok "[ ${el:-0} -gt 0 ]" "stop 5: eligible checked ($el times)"
	ok "grep -qE '^[0-9]+ +[0-9]+ +slice ' <<<\"\$st5\"" "stop 5: mutate=3: the slice check's violations, with their figures"
else
	ok "grep -qw eevdf <<<\"\$st5\" && grep -q 'not EEVDF' <<<\"\$st5\"" "stop 5: the status says why eevdf is unavailable here"
fi

# 6. perf: CPU 1's rows (the first column is cpu)
rows6=$(sed -n '/^=== 6\. /,/^=== done/p' "$t" | awk '$1 == "1"')
diag "$rows6"
ok "[ -n \"\$rows6\" ] && ! grep -qv '^1\(  *[0-9][0-9]*\)*\$' <<<\"\$rows6\"" "stop 6: CPU 1's rows have a number in every column shown"
if grep -q 'while the small task is queued' <<<"$(sed -n '/^=== 6\. /,$p' "$t")"; then
	is "$(wc -l <<<"$rows6")" 2 "stop 6 (uclamp): CPU 1 alone, then with the small task"
fi
rm -rf "$res"
done_testing
