# eevdf (module/eevdf.c, docs/eevdf.md): the live EEVDF verifier.
#  - a pre-EEVDF kernel: unavailable, and the status says why;
#  - a workload mix (nice -5/0/10 hogs, sleepers, two cgroups with cpu.weight
#    50 and 400, a task with a 300 us custom slice where the kernel takes
#    one, delayed dequeues from the sleepers) with every O(queue) check at
#    every switch (sample_every 1): every check that applies ran (checked
#    > 0) and none was violated;
#  - mutation mode: for each check, the verifier's own copy of the value
#    it guards is perturbed (never the kernel's) and the check must catch
#    it (violations > 0), the violations report keeps them with their
#    context and the eevdf_violation event fires;
#  - bad parameter values: EINVAL, keep while enabled: EBUSY, unchanged.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

EV=$SYS/eevdf
ED=$DBG/eevdf
CG=/sys/fs/cgroup
SL=$HOSTBIN/sl_load
available() { [ "$(cut -c1 "$SYS/$1/available")" = 1 ]; }
declare -A CHECKED VIOL
# The reports are read whole (cat, awk), never by bash's read from the
# file: it reads ahead and seeks back after every line, and each seek back
# in a seq_file report renders it again from its start (4,096 violation
# rows read that way took three minutes on 7.3)
read_checks() {	# the checks report into CHECKED[] and VIOL[] (builtins only)
	local name c v s
	CHECKED=() VIOL=()
	while read -r name c v s; do
		case $name in '#'* | check | '') continue ;; esac
		CHECKED[$name]=$c VIOL[$name]=$v
	done < <(cat "$ED/checks")
}
viol_rows() {	# viol_rows CHECK: rows of the violations report naming CHECK
	# (one awk: a shell loop over thousands of rows took seconds, beside
	# the mutation's three busy tasks)
	awk -v c="$1" '!/^#/ { for (i = 1; i <= NF; i++) if ($i == c) { n++; break } } END { print n + 0 }' \
		"$ED/violations"
}
NAMES="eligible earliest_deadline slice lag_clamp delayed sums augment overflow vprot augment_slice slice_clamped"
read -ra names_a <<<"$NAMES"
NCHECKS=${#names_a[@]}

load
ok loaded "module loaded"
if ! available eevdf; then
	why=$(cut -d' ' -f2- "$EV/available")
	ok '[ -n "$why" ]' "eevdf unavailable on $(uname -r), and says why: $why"
	is "$($SYSFS_WRITE $EV/enabled 1)" ENODEV "enabling it: ENODEV"
	unload
	done_testing
	exit
fi

# bad input first: nothing may change
is "$($SYSFS_WRITE $EV/sample_every 0)" EINVAL "sample_every 0: EINVAL"
is "$($SYSFS_WRITE $EV/check_every 0)" EINVAL "check_every 0: EINVAL"
is "$($SYSFS_WRITE $EV/mutate $((NCHECKS + 1)))" EINVAL "mutate $((NCHECKS + 1)): EINVAL"
is "$($SYSFS_WRITE $EV/keep 4097)" EINVAL "keep 4097: EINVAL"
is "$(cat $EV/check_every $EV/sample_every $EV/mutate $EV/keep | tr '\n' ' ')" "1 16 0 32 " "values unchanged"

echo 1 >$EV/sample_every
echo 64 >$EV/keep

# two cgroups of different weights
cg=0
if [ -f $CG/cgroup.subtree_control ] && echo +cpu >$CG/cgroup.subtree_control 2>/dev/null &&
	mkdir -p $CG/ev_a $CG/ev_b && echo 50 >$CG/ev_a/cpu.weight && echo 400 >$CG/ev_b/cpu.weight; then
	cg=1
fi
ok '[ $cg = 1 ]' "cgroups ev_a (cpu.weight 50) and ev_b (400) set up"
slice=0
"$SL" -s 300 spin 1 2>/dev/null && slice=1
diag "custom slices (sched_setattr sched_runtime): $([ $slice = 1 ] && echo taken || echo refused by this kernel)"

secs=6
t0=$(date +%s)
# The nice values are set before the verifier starts: a reweight of a
# queued task whose lag the clamp cuts leaves its deadline more than a
# slice past its vruntime (docs/eevdf.md, slice_clamped); a hierarchical
# runqueue does not keep that lag, so the verifier cannot tell it there.
# The hogs run many slices in 0.3 s: each has a deadline of its own weight.
mix() {	# mix [first]: the workload mix, the verifier enabled (its counters from zero)
	local pids=()
	nice -n -5 "$SL" -n ev_hog spin $((secs * 1000)) & pids+=($!)
	nice -n 10 "$SL" -n ev_nice spin $((secs * 1000)) & pids+=($!)
	sleep 0.3
	echo 1 >$EV/enabled
	[ "${1:-}" = first ] && is "$($SYSFS_WRITE $EV/keep 8)" EBUSY "keep while enabled: EBUSY"
	"$SL" -n ev_sleep duty 3 10 $((secs * 1000)) & pids+=($!)
	"$SL" -n ev_sleep duty 1 3 $((secs * 1000)) & pids+=($!)
	[ $slice = 1 ] && { "$SL" -n ev_short -s 300 duty 1 4 $((secs * 1000)) & pids+=($!); }
	if [ $cg = 1 ]; then
		(echo $BASHPID >$CG/ev_a/cgroup.procs && exec "$SL" -n ev_a spin $((secs * 1000))) & pids+=($!)
		(echo $BASHPID >$CG/ev_b/cgroup.procs && exec "$SL" -n ev_b duty 5 10 $((secs * 1000))) & pids+=($!)
		(echo $BASHPID >$CG/ev_b/cgroup.procs && exec "$SL" -n ev_b spin $((secs * 1000))) & pids+=($!)
	fi
	wait "${pids[@]}"
	read_checks
}
mix first
# A task that left the CPU delayed was decided against V as it was then;
# the pick after it may drop the runqueue lock and let other CPUs enqueue
# here, which moves V, and the delayed task may then be eligible, rightly.
# 7.x sets the lag at that decision and the verifier skips such a case;
# 6.12 keeps nothing of that V, and a rare such switch is counted (once in
# a make check on 6.12, 2026-12-07: 1 of 8,040). The mix is then run once
# more and that run judged: a broken check fails both.
if [ "${VIOL[delayed]:-0}" != 0 ] && [ "${VIOL[delayed]}" != - ]; then
	diag "delayed: ${VIOL[delayed]} of ${CHECKED[delayed]} in the first run: $(grep -v '^#' $ED/violations | awk '$3 == "delayed"' | head -3 | tr -s ' ')"
	diag "the workload mix once more"
	echo 0 >$EV/enabled
	mix
fi
t1=$(date +%s)
diag "workload mix: $((t1 - t0)) s"
diagl() { local l; while IFS= read -r l; do diag "$l"; done <<<"$1"; }
diagl "$(cat $ED/checks)"
# A hierarchical runqueue (6.12) changes a queued group entity's slice at
# dequeue without updating the tree's min_slice above it (docs/eevdf.md):
# augment_slice finds that; it is reported, not failed, there.
hier=0
[[ $(<$ED/checks) == *"runqueue: hierarchical"* ]] && hier=1
rows_expected=0
for n in $NAMES; do
	if [ "${CHECKED[$n]}" = - ]; then
		ok '[ $n = vprot ] || { [ $n = slice_clamped ] && [ $hier = 1 ]; }' \
			"$n: not in this kernel (only vprot, and slice_clamped on a hierarchical runqueue, may be)"
		continue
	fi
	ok '[ "${CHECKED[$n]:-0}" -gt 0 ]' "$n: checked ${CHECKED[$n]} times"
	if [ $n = augment_slice ] && [ $hier = 1 ]; then
		diag "augment_slice on a hierarchical runqueue: ${VIOL[$n]} stale min_slice values found (a kernel finding)"
		rows_expected=$((rows_expected + $(viol_rows augment_slice)))
		continue
	fi
	# 6.12 reweights a queued group entity at every shares update and
	# keeps no clamped lag to recognise a clamp by (slice_clamped is "-"
	# there): a group entity's slice break is that expected false positive
	# (docs/eevdf.md), reported; a task entity's still fails
	if [ $n = slice ] && [ $hier = 1 ] && [ "${CHECKED[slice_clamped]}" = - ]; then
		# (by column: "slice" is also a column of the header)
		task_rows=$(grep -v '^#' $ED/violations | awk '$3 == "slice" && $5 != -1' | wc -l)
		is "$task_rows" 0 "slice: no task entity's deadline off its slice under the workload mix"
		[ "${VIOL[$n]}" = 0 ] ||
			diag "slice: ${VIOL[$n]} group entities' deadlines off their slice (6.12's reweight of a group entity with a clamped lag: an expected false positive)"
		rows_expected=$((rows_expected + $(grep -v '^#' $ED/violations | awk '$3 == "slice"' | wc -l)))
		continue
	fi
	# a reweight that clamped a lag (cgroup tasks' weights follow their
	# groups' shares): a kernel behaviour, reported
	if [ $n = slice_clamped ]; then
		diag "slice_clamped: ${VIOL[$n]} deadlines a clamped reweight left off the slice bound (a kernel finding)"
		rows_expected=$((rows_expected + $(viol_rows slice_clamped)))
		continue
	fi
	is "${VIOL[$n]}" 0 "$n: no violation under the workload mix"
done
v=$(grep -vc '^#' $ED/violations)
is "$v" $((rows_expected + 1)) "violations report: a header and no row (but the kernel findings' where reported)"
diagl "$(grep -v '^#' $ED/violations | awk 'NR == 1 || !seen[$3]++' | head -12)"

# mutation mode: each check must catch a perturbation of its own copy.
# Other checks that read the same copy catch it too (mutate 2's deadline
# breaks the slice bound at every switch, where earliest_deadline is
# checked at every 16th only): the log keeps the first 'keep' violations,
# so it is made large enough for the checked one's to be among them (make
# check on 83edd9f, lab: mutate 2's 35 earliest_deadline violations came
# after 64 others (the log was full), and the report had none of them)
echo 0 >$EV/enabled
echo 4096 >$EV/keep
"$SL" -n ev_mut spin 60000 & m1=$!
"$SL" -n ev_mut duty 2 5 60000 & m2=$!
"$SL" -n ev_mut duty 1 3 60000 & m3=$!
echo 0 >$TRACING/events/schedlab/enable
echo 1 >$TRACING/events/schedlab/eevdf_violation/enable
echo >$TRACING/trace
tr_on=$(<$TRACING/tracing_on)
echo 1 >$TRACING/tracing_on
i=0
for n in $NAMES; do
	i=$((i + 1))
	if [ "${CHECKED[$n]}" = - ]; then
		continue
	fi
	echo $i >$EV/mutate
	echo 1 >$EV/enabled
	sleep 1
	echo 0 >$EV/enabled
	read_checks
	ok '[ "${VIOL[$n]:-0}" -gt 0 ]' "mutate $i: $n caught the perturbed copy (${VIOL[$n]} of ${CHECKED[$n]})"
	rows=$(viol_rows $n)
	ok '[ "$rows" -gt 0 ]' "mutate $i: the violations report keeps them with their context ($rows rows)"
done
echo 0 >$EV/mutate
echo 64 >$EV/keep
echo "$tr_on" >$TRACING/tracing_on
echo 0 >$TRACING/events/schedlab/eevdf_violation/enable
ev=$(grep -c 'eevdf_violation:' $TRACING/trace)
ok '[ "$ev" -gt 0 ]' "eevdf_violation events recorded under mutation ($ev)"
diagl "$(grep -m2 'eevdf_violation:' $TRACING/trace)"
kill $m1 $m2 $m3 2>/dev/null; wait $m1 $m2 $m3 2>/dev/null
if [ $cg = 1 ]; then rmdir $CG/ev_a $CG/ev_b; fi
# after the mutations, a clean run again: no violation
echo 1 >$EV/enabled
"$SL" -n ev_after spin 1500 & a1=$!
"$SL" -n ev_after duty 1 3 1500 & a2=$!
wait $a1 $a2
echo 0 >$EV/enabled
read_checks
bad=0
for n in $NAMES; do [ "${VIOL[$n]}" = - ] || [ "${VIOL[$n]:-0}" = 0 ] || bad=$((bad + 1)); done
is "$bad" 0 "mutate 0 again: no violation (eligible checked ${CHECKED[eligible]} times)"
# sampled mode: a check every millionth switch checks nothing in a second
echo 1000000 >$EV/check_every
echo 1 >$EV/enabled
"$SL" -n ev_after duty 1 3 1000
echo 0 >$EV/enabled
read_checks
is "${CHECKED[eligible]}" 0 "check_every 1000000: no switch checked in a second"
echo 1 >$EV/check_every
unload
ok '! loaded' "unloaded"
done_testing
