#!/usr/bin/env bash
# The guest half of `make bench` (see bench.sh): bench-guest.sh dlparams|ctxswitch|mutex
# (and bench-ab.sh's: mutex-ab, ctx-ab)
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
part=${1:?dlparams, ctxswitch, mutex, mutex-ab or ctx-ab}
out=$SCHEDLAB_RESULTS/bench.txt
insmod "$ko"
if [ "$part" = dlparams ]; then
	echo 1 > /sys/kernel/schedlab/dlparams/enabled
	cg=/sys/fs/cgroup/schedlab-bench
	echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $cg
	echo 1 > $cg/cpuset.cpus
	echo root > $cg/cpuset.cpus.partition
	{
		echo "### $(uname -r) (Debian $SCHEDLAB_PKGVER), one boot"
		echo "### dlparams: cost per call of each way to get the leftover runtime and deadline"
		DLPARAMS_CGROUP=$cg build/host/dlparams_bench "$SCHEDLAB_RESULTS/dlparams.json" 41
	} >"$out" 2>&1
	rmdir $cg
	echo 0 > /sys/kernel/schedlab/dlparams/enabled
	rmmod schedlab
	echo "\"dlparams\": $(cat "$SCHEDLAB_RESULTS/dlparams.json")" >"$SCHEDLAB_RESULTS/part.json"
	exit 0
fi

# Context-switch cost of a feature: pipe ping-pong in short rounds, the
# feature off and on in adjacent rounds (order alternating, ABBA), after two
# pairs of warm-up. bench.sh boots this part with one vCPU under QEMU's
# instruction counting (-icount): guest time then advances with the
# instructions executed, so a round's rate measures the instructions a
# round trip costs, free of the host's timing noise (which, under plain
# TCG, moves rates by a factor of two). slowdown = 1 - median over pairs of
# on/off, with the 25th-75th percentile spread.
ctx_rate() { $RUN_WRAP build/host/ctxswitch 0.5 0 | awk '/^round_trips_per_sec/ {print $2}'; }
# The on rounds of the schedlab-run row: the round under `schedlab run`
# (its default features, their events recorded by trace-cmd), a new
# directory each time; the rate is the one ctxswitch measures itself, over
# its own 0.5 s, not the run's setup.
RUN_WRAP=
run_wrap() {
	rm -rf /tmp/bench-run
	build/host/schedlab run -o /tmp/bench-run -- "$@" 2>/dev/null
}
# Contended-mutex throughput: two test-driver workers, one per CPU, taking
# one kernel mutex in a loop for 0.5 s (tests/modules/README.md, storm):
# lock/unlock cycles a second, both together.
TD=/sys/kernel/debug/schedlab_testdrv
mutex_rate() {
	echo "spawn S0 cpu=0 storm m5 500" >$TD/cmd
	echo "spawn S1 cpu=1 storm m5 500" >$TD/cmd
	echo start >$TD/cmd
	echo reset >$TD/cmd
	awk '$3 == "storm" { if (!a || $6 < a) a = $6; if ($7 > b) b = $7; n += $5 }
		END { printf "%.0f\n", n * 1e9 / (b - a) }' $TD/log
}
# The independent observer (scripts/bpftrace/): started once per block of
# rounds (it takes long to start: over a minute in a TCG guest) through
# its wrapper, which says "mutex_waits.sh: attached" once every probe is
# attached (bpftrace's own "Attaching N probes..." comes before that), and
# stopped with SIGTERM (the results are not needed here, only the cost;
# the wrapper kills a bpftrace that does not stop within its grace).
BPF_OBSERVER=scripts/bpftrace/mutex_waits.sh
bpf_pid=
bpf_start() {
	local out=$SCHEDLAB_RESULTS/bpftrace.out err=$SCHEDLAB_RESULTS/bpftrace.err t0=$SECONDS
	bash "$BPF_OBSERVER" >"$out" 2>"$err" &
	bpf_pid=$!
	for _ in $(seq 1200); do
		if grep -q '^mutex_waits.sh: attached' "$err"; then
			echo "# bpftrace attached after $(( SECONDS - t0 )) s" >&2
			return 0
		fi
		kill -0 "$bpf_pid" 2>/dev/null || break
		sleep 0.5
	done
	cat "$err" >&2
	bpf_stop
	return 1
}
bpf_stop() {
	kill -TERM "$bpf_pid" 2>/dev/null || true
	# the wrapper's own grace is 60 s
	for _ in $(seq 180); do kill -0 "$bpf_pid" 2>/dev/null || break; sleep 0.5; done
	kill -KILL "$bpf_pid" 2>/dev/null || true
	wait "$bpf_pid" 2>/dev/null || true
}
TRACING=/sys/kernel/tracing
eevdf_cases() {	# the verifier's rows where this kernel has it
	[ "$(cut -c1 /sys/kernel/schedlab/eevdf/available 2>/dev/null)" = 1 ] && echo eevdf eevdf+every eevdf+sampled
}
dequeue_tp_cases() {	# signals' sched_switch path beside its dequeue path, where it has one
	grep -q 'tracepoint:sched_dequeue_task_tp *yes' /sys/kernel/debug/schedlab/status && echo signals+switch
}
ctx_set() {	# ctx_set CASE 0|1
	case $1 in
	signals+trace)
		echo "$2" > $TRACING/events/schedlab/signals_task/enable
		echo "$2" > $TRACING/events/schedlab/signals_cpu/enable
		echo "$2" > /sys/kernel/schedlab/signals/enabled ;;
	signals+switch)	# signals with its sleeps from sched_switch (sleep_source 0); the
			# signals row takes them from the dequeue where the kernel has
			# sched_dequeue_task_tp (the lab kernel): the two side by side
		echo 0 > /sys/kernel/schedlab/signals/enabled
		echo $((1 - $2)) > /sys/kernel/schedlab/signals/sleep_source
		echo "$2" > /sys/kernel/schedlab/signals/enabled ;;
	signals+deq)	# as signals+trace, with an event at every dequeue too
		echo "$2" > /sys/kernel/schedlab/signals/dequeue_events
		ctx_set signals+trace "$2" ;;
	eevdf+every)	# the verifier with its O(queue) checks at every switch
		echo $(($2 ? 1 : 16)) > /sys/kernel/schedlab/eevdf/sample_every
		echo "$2" > /sys/kernel/schedlab/eevdf/enabled ;;
	eevdf+sampled)	# sampled mode: every check at every 16th switch
		echo $(($2 ? 16 : 1)) > /sys/kernel/schedlab/eevdf/check_every
		echo $(($2 ? 1 : 16)) > /sys/kernel/schedlab/eevdf/sample_every
		echo "$2" > /sys/kernel/schedlab/eevdf/enabled ;;
	schedlab-run)	# the round under schedlab run (see run_wrap)
		if [ "$2" = 1 ]; then RUN_WRAP=run_wrap; else RUN_WRAP=; fi ;;
	perf+trace)	# the perf sampler every 10 ms with its schedlab:perf_cpu events
		echo $(($2 ? 10 : 50)) > /sys/kernel/schedlab/perf/period_ms
		echo "$2" > $TRACING/events/schedlab/perf_cpu/enable
		echo "$2" > /sys/kernel/schedlab/perf/enabled ;;
	all)	# every feature this kernel has, at once
		for f in /sys/kernel/schedlab/*/; do
			[ "$(cut -c1 "$f/available")" = 1 ] && echo "$2" > "$f/enabled"
		done ;;
	all-but-eevdf)	# every feature but the verifier (what schedlab run enables by default)
		for f in /sys/kernel/schedlab/*/; do
			[ "$(basename "$f")" != eevdf ] && [ "$(cut -c1 "$f/available")" = 1 ] &&
				echo "$2" > "$f/enabled"
		done ;;
	all+trace)	# every feature and every schedlab event: what a recording run writes
		ctx_set all "$2"
		echo "$2" > $TRACING/events/schedlab/enable ;;
	*)	echo "$2" > "/sys/kernel/schedlab/$1/enabled" ;;
	esac
	sleep 0.2	# let the toggle's own work (RCU, text patching) settle
}
summary() {	# summary CASE UNIT "OFF RATES" "ON RATES": a JSON line
	python3 - "$@" <<'PY'
import json, statistics, sys
f, unit = sys.argv[1], sys.argv[2]
off, on = [float(x) for x in sys.argv[3].split()], [float(x) for x in sys.argv[4].split()]
r = sorted(b / a for a, b in zip(off, on))
q = statistics.quantiles(r, n=4)
print(json.dumps({"feature": f, "pairs": len(r), "clock": "icount (instructions)", "unit": unit,
                  "off": off, "on": on,
                  "median_off": statistics.median(off), "median_on": statistics.median(on),
                  "slowdown_pct": round(100 * (1 - statistics.median(r)), 2),
                  "slowdown_p25_p75_pct": [round(100 * (1 - q[2]), 2), round(100 * (1 - q[0]), 2)]}))
PY
}
ab_bench() {	# ab_bench CASE PAIRS RATE_FN UNIT: the case off and on in adjacent rounds, ABBA
	local c=$1 n=$2 rate=$3 i off=() on=() r state
	for ((i = -2; i < n; i++)); do
		for state in $(( (i + 2) % 2 )) $(( 1 - (i + 2) % 2 )); do
			ctx_set "$c" $state
			r=$($rate)
			[ $i -ge 0 ] || continue
			if [ $state = 1 ]; then on+=("$r"); else off+=("$r"); fi
		done
	done
	ctx_set "$c" 0
	summary "$c" "$4" "${off[*]}" "${on[*]}"
}
# bpftrace cannot be toggled between rounds: N rounds off, N with the
# observer, N off again; each observed round is paired with the mean of
# the two off rounds at the same distance from the block boundaries.
bpf_bench() {	# bpf_bench N RATE_FN UNIT
	local n=$1 rate=$2 i a=() b=() c=() off=()
	for ((i = 0; i < n; i++)); do a+=("$($rate)"); done
	bpf_start
	for ((i = 0; i < n; i++)); do b+=("$($rate)"); done
	bpf_stop
	for ((i = 0; i < n; i++)); do c+=("$($rate)"); done
	for ((i = 0; i < n; i++)); do
		off+=("$(python3 -c 'import sys; print((float(sys.argv[1]) + float(sys.argv[2])) / 2)' "${a[i]}" "${c[n - 1 - i]}")")
	done
	summary bpftrace "$3" "${off[*]}" "${b[*]}"
}
print_row() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%-15s %14.0f %14.0f %9.2f%% %7.2f..%.2f%%" % (d["feature"], d["median_off"], d["median_on"], d["slowdown_pct"], *d["slowdown_p25_p75_pct"]))' "$1"; }

# Two builds of the module A/B on the context-switch ping-pong, the
# feature SCHEDLAB_BENCH_AB_FEATURE on in both (bench-ab.sh; 1 vCPU): each
# round loads one of them, ABBA; "off" is build A.
if [ "$part" = ctx-ab ]; then
	ko_a=build/bench-ab/a.ko
	feat=${SCHEDLAB_BENCH_AB_FEATURE:?the feature}
	ab_load() {	# ab_load 0|1: build A or B (this tree's), the feature on
		rmmod schedlab 2>/dev/null || true
		if [ "$2" = 1 ]; then insmod "$ko"; else insmod "$ko_a"; fi
		echo 1 > "/sys/kernel/schedlab/$feat/enabled"
		sleep 0.2
	}
	ctx_set() { ab_load "$@"; }
	build/host/ctxswitch 2 0 >/dev/null	# warm the translation cache
	{
		echo "### context switches (pipe ping-pong, 1 vCPU, instruction-counted), $feat on: build A ($(cat build/bench-ab/a.txt)) vs this tree's (B), ABBA in one boot"
		printf "%-15s %14s %14s %10s %16s\n" build "median_A/s" "median_B/s" "B slower by" "p25..p75"
		ab_bench "$feat-ab" "${SCHEDLAB_BENCH_PAIRS:-12}" ctx_rate "round trips per sec" >"$SCHEDLAB_RESULTS/ctx-ab.json"
		print_row "$SCHEDLAB_RESULTS/ctx-ab.json"
	} >"$out" 2>&1
	rmmod schedlab
	exit 0
fi
# Two builds of the module A/B on the contended mutex, blocked_on on in
# both (bench-ab.sh): each round loads one of them, ABBA; "off" is build A.
if [ "$part" = mutex-ab ]; then
	ko_a=build/bench-ab/a.ko
	insmod "build/$SCHEDLAB_KVER/tests/modules/schedlab_testdrv.ko"
	ab_load() {	# ab_load 0|1: build A or B (this tree's), blocked_on on
		rmmod schedlab 2>/dev/null || true
		if [ "$2" = 1 ]; then insmod "$ko"; else insmod "$ko_a"; fi
		echo 1 > /sys/kernel/schedlab/blocked_on/enabled
		sleep 0.2
	}
	ctx_set() { ab_load "$@"; }
	mutex_rate >/dev/null	# warm up
	{
		echo "### contended mutex, blocked_on on: build A ($(cat build/bench-ab/a.txt)) vs this tree's (B), ABBA in one boot; 2 vCPUs, instruction-counted"
		printf "%-15s %14s %14s %10s %16s\n" build "median_A/s" "median_B/s" "B slower by" "p25..p75"
		ab_bench blocked_on-ab "${SCHEDLAB_BENCH_PAIRS:-16}" mutex_rate "lock/unlock cycles per sec" >"$SCHEDLAB_RESULTS/mutex-ab.json"
		print_row "$SCHEDLAB_RESULTS/mutex-ab.json"
	} >"$out" 2>&1
	rmmod schedlab
	rmmod schedlab_testdrv
	exit 0
fi
if [ "$part" = mutex ]; then
	insmod "build/$SCHEDLAB_KVER/tests/modules/schedlab_testdrv.ko"
	mutex_rate >/dev/null	# warm up
	{
		echo "### contended mutex (two workers on two CPUs, one kernel mutex; 2 vCPUs, instruction-counted guest), cycles/s off vs on in adjacent 0.5 s rounds"
		printf "%-15s %14s %14s %10s %16s\n" observer "median_off/s" "median_on/s" slowdown "p25..p75"
		ab_bench blocked_on 8 mutex_rate "lock/unlock cycles per sec" >"$SCHEDLAB_RESULTS/mutex-blocked_on.json"
		print_row "$SCHEDLAB_RESULTS/mutex-blocked_on.json"
		bpf_bench 8 mutex_rate "lock/unlock cycles per sec" >"$SCHEDLAB_RESULTS/mutex-bpftrace.json"
		print_row "$SCHEDLAB_RESULTS/mutex-bpftrace.json"
		echo "# bpftrace: $BPF_OBSERVER, the independent observer (8 rounds off, 8 observed, 8 off)"
	} >"$out" 2>&1
	rmmod schedlab_testdrv
	rmmod schedlab
	echo "\"mutex\": [$(cat "$SCHEDLAB_RESULTS"/mutex-*.json | paste -sd,)]" >"$SCHEDLAB_RESULTS/part.json"
	exit 0
fi
build/host/ctxswitch 2 0 >/dev/null	# warm the translation cache
{
	echo "### context switches (pipe ping-pong, 1 vCPU, instruction-counted guest), feature off vs on in adjacent 0.5 s rounds (ABBA)"
	printf "%-15s %14s %14s %10s %16s\n" feature "median_off/s" "median_on/s" slowdown "p25..p75"
	for c in ${SCHEDLAB_BENCH_CASES:-dlparams signals $(dequeue_tp_cases) signals+trace signals+deq overutil blocked_on $(eevdf_cases) perf perf+trace all all-but-eevdf all+trace schedlab-run}; do
		ab_bench $c 10 ctx_rate "round trips per sec" >"$SCHEDLAB_RESULTS/ctx-$c.json"
		print_row "$SCHEDLAB_RESULTS/ctx-$c.json"
	done
	if [ -z "${SCHEDLAB_BENCH_CASES:-}" ]; then
		bpf_bench 10 ctx_rate "round trips per sec" >"$SCHEDLAB_RESULTS/ctx-bpftrace.json"
		print_row "$SCHEDLAB_RESULTS/ctx-bpftrace.json"
	fi
	echo "# signals+trace: signals with its schedlab:signals_task/signals_cpu events written to the ring buffer (samples every sample_ms)"
	echo "# signals+deq: the same with dequeue_events=1 (an event at every dequeue of a tracked task, the old default)"
	echo "# eevdf: the verifier at its default (O(1) checks at every switch, O(queue) ones every 16th); eevdf+every: O(queue) at every switch; eevdf+sampled: sampled mode, every check at every 16th switch"
	echo "# perf: the periodic sampler at its default (every 50 ms, a walk over every thread); perf+trace: every 10 ms with its schedlab:perf_cpu events"
	echo "# all-but-eevdf: every available feature but the verifier, at their defaults"
	echo "# schedlab-run: each on round under schedlab run (every available feature but the opt-in eevdf, their events recorded by trace-cmd)"
	echo "# all+trace: every available feature and every schedlab:* event, as a recording run has them"
	echo "# bpftrace: the independent blocked_on observer $BPF_OBSERVER (10 rounds off, 10 observed, 10 off)"
} >"$out" 2>&1
rmmod schedlab
echo "\"ctxswitch\": [$(cat "$SCHEDLAB_RESULTS"/ctx-*.json | paste -sd,)]" >"$SCHEDLAB_RESULTS/part.json"
