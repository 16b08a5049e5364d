#!/usr/bin/env bash
# The guest half of `make demo` (see demo.sh): a tour of schedlab's
# experiments, driven by the schedlab command, in one boot. Each stop
# prints the commands it runs, their output (trimmed to what matters) and
# a line or two saying what to look at. The transcript is demo.txt in the
# results directory; docs/demo.md is one, kept as the worked example.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
sl=$top/build/host/schedlab
ko=$top/build/$SCHEDLAB_KVER/module/schedlab.ko
out=$SCHEDLAB_RESULTS/demo.txt
CG=/sys/fs/cgroup
exec >"$out" 2>&1

# stop TITLE: a new stop of the tour
stop() { printf '\n=== %s\n\n' "$*"; }
# look TEXT...: what to look at in the output above
look() { printf '\n'; printf '  > %s\n' "$@"; }
# show CMD...: print the command as typed (relative to the tree), run it
show() {
	say "$@"
	"$@"
}
# say CMD...: print the command as typed (paths relative to the tree)
say() {
	local a=("$@") i
	for i in "${!a[@]}"; do a[i]=${a[i]#"$top"/}; done
	a[0]=${a[0]#build/host/}
	printf '$ %s\n' "${a[*]}"
}
# cols COLUMN...: those columns of the table on stdin (the header names
# them; every value is one token, docs/reporting.md), aligned
cols() {
	awk -v want="$*" '
		/^#/ || !NF { next }
		!n { n = split(want, w, " "); for (i = 1; i <= NF; i++) at[$i] = i
		     for (j = 1; j <= n; j++) if (!(w[j] in at)) { print "no column " w[j]; exit 1 } }
		{ line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? " " : "") $(at[w[j]]); print line }' |
		column -t
}
t0=$(date +%s)

stop "schedlab on $(uname -r) (Debian $SCHEDLAB_PKGVER), $(nproc) CPUs"
show insmod "$ko" || exit 1
show "$sl" status
look "every experiment, whether this kernel can run it, and why not where it cannot"

# ---------------------------------------------------------------------------
stop "1. blocked_on: a priority inversion from two renames"
cat <<'EOF'
Two rename loops take the same filesystem mutex on one CPU: a foreground
one (cgroup weight 100, wakes every 1 ms) and a background one (weight 1)
beside two CPU hogs. When the background renamer is preempted while it
holds the mutex, the foreground one waits behind an owner that does not
run: proxy execution would run the owner on the waiter's behalf.

EOF
show "$sl" enable blocked_on >/dev/null
ren=$(mktemp -d)
show "$top/scripts/blocked_on-rename.sh" -t 5 -o "$ren" 2>/dev/null | sed -n '/^fg renamer/,$p'
say "$sl" report blocked_on tasks
"$sl" report blocked_on tasks | cols pid comm waits total_us max_us inversion_us run_local preempted sleeping blocked proxy
if [ "$(awk '/^proxy_exec:/ {print $2}' /sys/kernel/debug/schedlab/status)" = on ]; then
	look "proxy execution is on in this kernel: the fg renamer lends the preempted" \
		"owner its context, and what a stock kernel shows as 'preempted' is 'proxy'"
	say "$sl" report blocked_on stats
	"$sl" report blocked_on stats | grep -E '^proxy_(run_owner|migrate|deact_owner_asleep|handoff) '
	look "the proxy decisions the kernel took (the lab kernel's tracepoint)"
else
	look "the fg renamer's waits: most of their time is 'preempted' (the owner was" \
		"runnable, not running): the time proxy execution would give back"
	say "$sl" report blocked_on inversions
	"$sl" report blocked_on inversions | grep -v '^#' | head -4
	look "rules 0x8: the waiter's cgroup weight is above the owner's; the chain ends" \
		"at the bg renamer, state r (runnable), on the same CPU"
fi
show "$sl" disable blocked_on
rm -rf "$ren"

# ---------------------------------------------------------------------------
stop "2. signals: util_avg against util_burst, nice 0 beside nice 10"
cat <<'EOF'
Two always-running tasks share CPU 1 for 4 s, one at nice 0 and one at
nice 10, beside a periodic task (4 ms every 20 ms) that is there first.
PELT's util_avg measures what a task got; util_burst measures what it
asked for (its clock stops while it waits for the CPU).

EOF
cg=$CG/schedlab-demo
# shared_us FILE: whether the signals tasks report FILE has rows for nice0
# and nice10 and nice10 has been on the CPU's queue (running or waiting)
# 1.5 s (builtins only: columns pid tgid comm ... run_us wait_us by name)
shared_us() {
	local f i run=-1 wait=-1 n0=0 n10=0
	while read -r -a f; do
		[ "${f[0]}" = pid ] && for i in "${!f[@]}"; do
			[ "${f[i]}" = run_us ] && run=$i
			[ "${f[i]}" = wait_us ] && wait=$i
		done
		[ "${f[2]:-}" = nice0 ] && n0=1
		[ "${f[2]:-}" = nice10 ] && [ $run -ge 0 ] && n10=$((f[run] + f[wait]))
	done <"$1"
	[ $n0 = 1 ] && [ $n10 -ge 1500000 ]
}
mkdir -p $cg
show "$sl" enable signals filter_cgroup="$(stat -c %i $cg)" sample_ms=10 >/dev/null
(
	echo $BASHPID >$cg/cgroup.procs
	load=$top/build/host/sl_load
	# (started together, the spinners held back until all have started)
	taskset -c 1 "$load" -n periodic -d 1000 duty 4 20 5500 &
	taskset -c 1 "$load" -n nice0 -d 2500 spin 4000 &
	taskset -c 1 nice -n 10 "$load" -n nice10 -d 2500 spin 4000 &
	# read while the spinners run, once they have shared the CPU for
	# 1.5 s (polled: under load, program starts take their time here)
	for _ in $(seq 60); do
		sleep 0.25
		"$sl" report signals tasks >/tmp/demo-signals.txt
		shared_us /tmp/demo-signals.txt && break
	done
	wait
)
echo '$ schedlab report signals tasks   # once nice10 has been queued 1.5 s'
cols pid comm util_avg util_est burst waiting run_us wait_us </tmp/demo-signals.txt |
	awk 'NR == 1 || $2 ~ /^(periodic|nice0|nice10)$/'
look "util_avg: what each got. nice0 and nice10 settle at their shares of CPU 1" \
	"(by weight, nice10 near a tenth of nice0); 'burst' (util_burst): what each" \
	"asked for, both toward 1024, each would keep a CPU busy; 'waiting': the" \
	"share of time runnable but not running, large for nice10"
show "$sl" disable signals
rmdir $cg

# ---------------------------------------------------------------------------
stop "3. dlparams: a SCHED_DEADLINE thread reads its leftover runtime"
cat <<'EOF'
A control loop with runtime 8 ms every 20 ms: a 3 ms mandatory part, then
1 ms refinement steps for as long as the leftover runtime, read from
/dev/dlparams (mmap, no system call) before each step, covers a step and
a margin.

EOF
show "$sl" enable dlparams >/dev/null
show "$top/build/host/dl_control_loop" 8 2>&1 | tail -6
show "$sl" report dlparams stats
look "each job stops refining when the runtime left (read before each step)" \
	"no longer covers a step and the margin: no step spills into the next" \
	"period; 'publishes': values the switch probe wrote into the thread's page"
show "$sl" disable dlparams

# ---------------------------------------------------------------------------
stop "4. overutil: the overutilized rules side by side on a bursty load"
caps=$(cat /sys/devices/system/cpu/cpu[0-9]*/cpu_capacity 2>/dev/null | sort -un | tr '\n' ' ')
if [ "$(awk '$1 == "kernel_overutilized_flag" { print $2 }' /sys/kernel/debug/schedlab/status)" = yes ] &&
	[ "$(wc -w <<<"$caps")" -gt 1 ]; then
	cat <<EOF
This machine's CPUs have different capacities (${caps% }) and the
kernel runs energy-aware placement, so it maintains its own overutilized
flag: the rules run on the real capacities, beside the kernel's flag. A ui
task on CPU 0 (a little CPU) alternates 320 ms of 87.5% busy with 320 ms
of 12.5% busy; a light task runs on CPU 1 (rt-app, 6 s).

EOF
	show "$sl" enable overutil >/dev/null
	(cd /tmp && rt-app "$top/scripts/workloads/bursty.json" >/tmp/demo-rt-app.log 2>&1)
	echo '$ schedlab report overutil report   # the system rows and the kernel flag'
	"$sl" report overutil report | awk '/^scope/ || $1 == "system" || /kernel flag|flag.s changes|energy-aware/' |
		sed 's/^# *//'
	look "the kernel sets its flag when CPU 0's util passes 80% of its capacity" \
		"and clears it in the quiet phases; schedlab's mainline rule, computed from" \
		"the same signals, changes with it ('mainline agrees at N of M' changes);" \
		"while the flag is set, EAS stops placing tasks by energy"
else
	cat <<'EOF'
CPU 0 is emulated as a little CPU (capacity 160), CPU 1 as a big one
(1024). A ui task on CPU 0 alternates 320 ms of 87.5% busy with 320 ms of
12.5% busy; a light task runs on CPU 1 (rt-app, 6 s). Each rule decides,
from the same signals, when the system is overutilized (energy-aware
placement off).

EOF
	show "$sl" enable overutil capacity=160,1024 >/dev/null
	(cd /tmp && rt-app "$top/scripts/workloads/bursty.json" >/tmp/demo-rt-app.log 2>&1)
	echo '$ schedlab report overutil report   # the system rows'
	"$sl" report overutil report | awk '/^scope/ || $1 == "system"'
	look "mainline and linger turn on in the bursts and off in the quiet phases" \
		"('sets', 'time_us'); 'idle' and 'all', which want CPUs that stop idling," \
		"stay off nearly all the run (the little CPU idles every 16 ms, the big one" \
		"most of the time); 'dynamic' (threshold from the migration margin of" \
		"capacity 160, docs/overutil.md) holds the little CPU overutilized throughout"
fi
show "$sl" disable overutil

# ---------------------------------------------------------------------------
# available FEATURE: whether this kernel can run it (else the status says why)
available() { [ "$(cut -c1 /sys/kernel/schedlab/$1/available)" = 1 ]; }
load=$top/build/host/sl_load

stop "5. eevdf: the EEVDF invariants checked at every context switch"
cat <<'EOF'
At each switch to a fair task the verifier copies what the pick saw (the
picked entity, its queue's sums, the task that left) and checks EEVDF's
invariants on the copy: eligible, earliest eligible deadline, the slice,
the lag clamp, delayed dequeue, the cached sums, the tree's augmented
values. A nice -5 hog, a nice 10 hog and two sleepers share the CPUs for
3 s, with every O(queue) check at every switch; then mutation mode
perturbs the verifier's own copy of one value, never the kernel's.

EOF
if available eevdf; then
	nice -n -5 "$load" -n hog spin 3300 &
	nice -n 10 "$load" -n nice10 spin 3300 &
	sleep 0.3	# the nice values set before the verifier starts (docs/eevdf.md)
	say "$sl" enable eevdf sample_every=1
	"$sl" enable eevdf sample_every=1 >/dev/null
	"$load" -n sleeper duty 2 5 3000 &
	"$load" -n sleeper duty 1 3 3000 &
	wait
	show "$sl" report eevdf checks
	look "every invariant tested thousands of times and none violated: the kernel" \
		"picked as EEVDF says; skipped: picks the kernel may rightly make otherwise" \
		"(run to parity, buddies); '-': a check this kernel has nothing for"
	show "$sl" disable eevdf
	say "$sl" enable eevdf mutate=3
	"$sl" enable eevdf mutate=3 >/dev/null
	"$load" -n hog spin 1000
	show "$sl" disable eevdf
	say "$sl" report eevdf violations
	"$sl" report eevdf violations | cols time_us cpu check pid comm expected actual |
		awk 'NR == 1 || $3 == "slice"' | head -4
	look "mutate=3 sets the copy's deadline to its vruntime: the slice check" \
		"catches it at every switch, with the figures it saw (expected > 0)"
	echo 0 >/sys/kernel/schedlab/eevdf/mutate
else
	echo '$ schedlab status | grep eevdf'
	"$sl" status | grep -w eevdf
	look "this kernel is not EEVDF (6.1): the verifier says so and stays off"
fi

# ---------------------------------------------------------------------------
stop "6. perf: the performance request, the kernel's policy beside two proposals"
cat <<'EOF'
For each CPU: what schedutil would request today (max aggregation of the
uclamp values, headroom 1.25), with a time-based headroom instead, and
with uclamp sum aggregation. The report is read from CPU 0 (a sample
counts its reader on the reader's CPU).
EOF
show "$sl" enable perf >/dev/null
if "$load" -u 256 spin 0 2>/dev/null; then
	printf '%s\n' "On CPU 1 a task capped at uclamp_max 256 runs alone, then a small" \
		"uncapped task (2 ms every 10 ms) joins it." ""

	# (the loads run until killed: a program start takes its time here)
	taskset -c 1 "$load" -n capped -u 256 spin 60000 &
	capped=$!
	sleep 1.5
	say "$sl" report perf cpus
	taskset -c 0 "$sl" report perf cpus | cols cpu util_avg rq_umax max_perf time_perf sum_util sum_perf
	taskset -c 1 "$load" -n small duty 2 10 60000 &
	small=$!
	sleep 0.5
	# a sample while the small task is queued (it runs a fifth of the time)
	for _ in $(seq 20); do
		taskset -c 0 "$sl" report perf cpus >/tmp/demo-perf.txt
		[ "$(cols cpu sum_tasks </tmp/demo-perf.txt | awk '$1 == 1 { print $2 }')" -ge 2 ] 2>/dev/null && break
	done
	kill $capped $small
	wait
	echo '$ schedlab report perf cpus   # while the small task is queued'
	cols cpu util_avg rq_umax max_perf time_perf sum_util sum_perf </tmp/demo-perf.txt
	look "alone, the capped task asks for 256 (max_perf); once an uncapped task is" \
		"queued beside it, max aggregation lifts CPU 1 to the top (1024), while" \
		"sum aggregation asks for the capped task's 256 plus the small task's own" \
		"util; time_perf: the same util with a time-based headroom"
else
	printf '%s\n' "No uclamp in this kernel (no sched_setattr util clamps): an uncapped" \
		"hog on CPU 1 shows the kernel's policy and the time-based headroom." ""
	taskset -c 1 "$load" -n hog spin 60000 &
	hog=$!
	sleep 1
	say "$sl" report perf cpus
	taskset -c 0 "$sl" report perf cpus | cols cpu util_avg eff_util kernel_util max_perf time_perf
	kill $hog
	wait
	look "no uclamp in this kernel: the sum policy is '-'; eff_util, the mirror of" \
		"the kernel's sched_cpu_util(), beside kernel_util, the kernel's own;" \
		"max_perf with headroom 1.25, time_perf with the time-based headroom"
fi
show "$sl" disable perf

stop "done in $(($(date +%s) - t0)) s"
show rmmod schedlab
echo "more: README.md (the schedlab command), docs/*.md (one page per experiment)"
