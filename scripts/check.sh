#!/usr/bin/env bash
# check.sh [SERIES...]: the whole test suite (what `make check` runs).
#
#  1. host: set-up (apt), host tools, host unit tests (TAP);
#  2. DKMS: dkms add/build of this tree against an installed headers package;
#  3. per guest job (default: $SCHEDLAB_CHECK_JOBS; an argument is a series
#     or a job): resolve and fetch the newest stock Debian kernel (or build
#     the lab kernels), build the module with its compiler, boot it in QEMU
#     and run tests/guest/ inside it; two guests at a time
#     (SCHEDLAB_GUEST_JOBS).
# Prints every TAP stream, a summary per section, and last the line
# "N passed, M failed" (skips are counted apart, never as passed).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$SCHEDLAB_TOP"

series=("$@")
[ ${#series[@]} -gt 0 ] || read -r -a series <<<"$SCHEDLAB_CHECK_JOBS"
out=build/check
rm -rf "$out"; mkdir -p "$out"

total_pass=0 total_fail=0 total_skip=0
summary=() failures=()

# count FILE NAME: tally a TAP stream
count() {
	local f=$1 name=$2 p s fl
	p=$(grep -Ec '^ok [0-9]+' "$f" || true)
	s=$(grep -Ec '^ok [0-9]+ .*# SKIP' "$f" || true)
	fl=$(grep -Ec '^not ok [0-9]+' "$f" || true)
	p=$((p - s))
	total_pass=$((total_pass + p)); total_fail=$((total_fail + fl)); total_skip=$((total_skip + s))
	summary+=("$(printf '%-58s %4d passed, %d failed, %d skipped' "$name" "$p" "$fl" "$s")")
	# each failure with the test file it came from (a guest TAP marks
	# each file with "# --- NAME"), so the summary alone says what failed
	[ "$fl" = 0 ] || mapfile -t -O "${#failures[@]}" failures < <(awk -v n="$name" '
		/^# --- / { cur = $3 }
		/^not ok [0-9]+/ { print n ": " (cur != "" ? cur ": " : "") $0 }' "$f" | cut -c1-200)
}
# fail NAME WHY: a section that could not run counts as one failure
fail() {
	total_fail=$((total_fail + 1))
	summary+=("$(printf '%-58s FAILED: %s' "$1" "$2")")
	echo "not ok - $1: $2"
}

t0=$(date +%s)
echo "=== host set-up"
bash scripts/setup-host.sh || { fail "host set-up" "scripts/setup-host.sh failed"; }
make -s tools || fail "host tools" "make tools failed"


# The guest suites, two at a time (each guest is one TCG thread: one host
# core). Each writes to its own directory; the results are printed in
# order once all have finished. A job is a series (its whole suite) or
# SERIES:PART (a series name may have dots: 6.12):
#   (none)         the whole suite, tests/guest/t*.sh (lab: the kernel
#                  with the series, t62 right after t10 as in :hooks,
#                  without t40 and t52, which lab-debug runs harder on
#                  the same source: r10's 200 reloads with every feature,
#                  t52 with 10,000 operations per interface)
#   :core          (6.1, 6.12, 7: the stock x86 kernels) the suite but for
#                  four long tests (about 5 minutes a kernel) that run on
#                  lab, the 7.3 source with the series: t82 renames and
#                  t83 10,000 threads (workloads), t91 recording and t92
#                  export (the command, whose kernel side t90 checks);
#                  t95 (the demo) stays on every kernel; t90 (every
#                  report's JSON: the same rendering everywhere, the
#                  facts differ with the features a kernel has) on the
#                  oldest (6.1: no eevdf) and on lab (every feature)
#   6.12:core      Debian's x86 6.12, beside the arm64 6.12 of :biglittle
#                  (the same kernel source): what :biglittle does not
#                  run there, t20, t61, t71, t81, t84 (blocked_on's
#                  chains and inversions, with and without a driver's
#                  ground truth), with t10 (status, detection and the
#                  layout from this kernel's BTF) and t52 (the fuzzer's
#                  shorter run, on every stock kernel). What :biglittle
#                  runs there (t30, t50-t51, t60, t62, t65, t70, t72,
#                  t80, t95) differs on x86 only where x86 has no EAS,
#                  which 7:core shows on 7.3; t40 (reloads) runs on 6.1
#                  and, harder, r10 on lab-debug (about 5.5 minutes; the
#                  whole :core list was 13)
#   7:core         the newest stock 7.x: the :core list but for what the
#                  lab kernel (the same 7.3 source) runs and the series
#                  does not touch: t20 (sysfs parsing), t40 (reloads, r10
#                  on lab-debug), t81 (the contention storm; lab runs it
#                  and t83's scale test), t90 (the reports' JSON) and t95
#                  (the demo); what depends on the kernel's configuration
#                  (Debian's, not lab's: t10 status, t30, t50-t51
#                  dlparams and its VMA operations, t52 the fuzzer's
#                  shorter run, t6x, t7x, t80 and t84 without proxy
#                  execution built) stays
#   :hooks         the lab kernel: what the series changes (t10 status,
#                  t60-t61 signals with its sleeps from the dequeue
#                  tracepoint, t62 perf with the lab kernel's uclamp,
#                  t65 eevdf under proxy execution, t7x overutil with the
#                  kernel's own flag and drive, t8x blocked_on with proxy
#                  execution; not in the default jobs, which run lab's
#                  whole suite)
#   :a, :b         the lab kernel's whole suite in two guests (t1..t6,
#                  t7..t9; not in the default jobs)
#   :noproxy       booted with sched_proxy_exec=0: the blocked_on scenarios
#                  (t80, t84) as a kernel without proxy execution shows them
#   lab-debug:reload  the reliability suite under KASAN, lockdep, UBSAN,
#                  kmemleak, part 1: r10 (200 load/enable-all/unload
#                  cycles under load, about 19 minutes with the boot)
#   lab-debug:stress  part 2: r30 (lock torture), t51 (/dev/dlparams's page
#                  under every VMA road, 50 rounds as nobody and as root
#                  where KASAN catches the first double close, and a
#                  deadline thread's page) and
#                  t52 with 10,000 operations per interface as root and as
#                  nobody (about 16 minutes)
#   :smoke         (arm64-6.12, arm64-7) the module cross-built for Debian's arm64
#                  kernel, booted under qemu-system-aarch64 with a busybox
#                  initramfs: tests/smoke/smoke.sh (load, detection, every
#                  feature enabled and read, unload; on the big.LITTLE,
#                  EAS placement and the kernel's flag; scripts/vm-smoke.sh;
#                  arm64-6.12's is not in the default jobs: :biglittle
#                  runs the guest suite on that kernel and machine)
#   :biglittle     (arm64-6.12) the guest suite on the virtual big.LITTLE
#                  (4 CPUs, EAS on; vm-run.sh with the Debian arm64 root
#                  and cross-built tools), the :core list but for t84
#                  (6.12:core runs it on the same source) and t20
#                  (sysfs parsing, the same C on every architecture), t61,
#                  t71 and t81: t71 offlines CPU 1 of a two-CPU scenario
#                  (a hog on each CPU, the all-CPUs rule on); t61's 48
#                  threads waking for 3 s are not all started within their
#                  3 s on 4 vCPUs sharing one TCG thread; t81 asks 10,000
#                  contended waits a second of the emulated machine (6,498
#                  there); and for time, t40 (reloads: every test loads
#                  and unloads) and t90 (the reports' JSON, the same code
#                  on every architecture: 3 minutes there); all seven
#                  run on x86 6.12 (about 16 minutes with the boot)
#   :eas           (arm64-7) the newest 7.x on the big.LITTLE: what differs
#                  from 6.12 there (t10 status; t62 perf, with uclamp,
#                  which Debian's arm64 6.12 lacks; t70 and t72, the
#                  overutilized rules against the kernel's flag under EAS;
#                  t52, the fuzzer's shorter run, as on every stock kernel);
#                  with :smoke, about 5 minutes
# The order of the jobs (SCHEDLAB_CHECK_JOBS) is for two slots, the second
# free once the host tests are done (about 1.5 minutes): the longest first
# (lane minutes in the clean-clone runs of 2026-12-07: lab-debug:reload
# 21 to 23, lab 17 to 18, lab-debug:stress 16.5 to 17.3, biglittle 16 to
# 17, 6.1 13 to 13.7, 7 10 to 11, eas 7.5, 6.12 about 7 since it runs
# what biglittle does not, noproxy 1.4, smoke 0.9), with one rule learnt
# from the run on 9bf9fe3: the two debug lanes never side by side (run
# together, each took 5 to 9% longer). reload first, beside the host
# tests, then 6.1; lab takes 6.1's slot, stress reload's, after it. The
# clean-clone run of 3558edd (6.1 first, then reload; 6.12 with t40 and
# t80) took 58.5 minutes, 58.8 simulated from its lane times (6.1 13.75,
# reload 23.1, lab 18.0, stress 16.9, biglittle 16.3, 7 9.65, 6.12 7.0,
# eas 7.5, noproxy and smoke 2.5); this order with 6.12 at 5.5: about 57.
# CI took 63.8 minutes on 2220378 with the 6.12 lane whole (61.7
# simulated), 56.1 on 1779441 (this order). With t51 in the stress lane
# (599139b, clean clone): 55.8 minutes; reload 21.3, 6.1 13.0, lab 17.2,
# stress 18.0, biglittle 16.3, 7 9.3, 6.12 5.1, eas 6.8.
tests_for() {
	case "$1" in
	*:reload) echo "r10_*.sh" ;;
	*:stress) echo "r30_*.sh t51_*.sh t52_*.sh" ;;
	# t62 (perf's clamp sums, which any other task on its CPU disturbs)
	# right after t10, as before t60-t61 (thousands of threads) joined
	*:hooks) echo "t10_*.sh t62_*.sh t6[01]_*.sh t65_*.sh t7*.sh t8*.sh" ;;
	lab) echo "t10_*.sh t62_*.sh t[23]*.sh t5[01]_*.sh t6[01]_*.sh t65_*.sh t[7-9]*.sh" ;;
	7:core) echo "t1*.sh t3*.sh t5*.sh t[67]*.sh t80_*.sh t84_*.sh" ;;
	6.12:core) echo "t10_*.sh t20_*.sh t52_*.sh t61_*.sh t71_*.sh t81_*.sh t84_*.sh" ;;
	*:core) echo "t[1-7]*.sh t80_*.sh t81_*.sh t84_*.sh t90_*.sh t95_*.sh" ;;
	*:a) echo "t[1-6]*.sh" ;;
	*:b) echo "t[7-9]*.sh" ;;
	*:noproxy) echo "t80_*.sh t84_*.sh" ;;
	*:smoke) echo "tests/smoke/smoke.sh" ;;
	*:eas) echo "t10_*.sh t52_*.sh t62_*.sh t70_*.sh t72_*.sh" ;;
	*:biglittle) echo "t1*.sh t3*.sh t5*.sh t60_*.sh t62_*.sh t65_*.sh t70_*.sh t72_*.sh t80_*.sh t95_*.sh" ;;
	*) echo "t*.sh" ;;
	esac
}
append_for() { case "$1" in *:noproxy) echo "sched_proxy_exec=0" ;; esac; }
# prepare SERIES LOG: resolve (or build) its kernel and build the module,
# once per run: jobs of one series share it, and a module being loaded by
# one job's guest is never rebuilt under it; prints "KVER PKGVER"
prepare() {
	local s=$1 log=$2 kver pkgver
	(
		flock 9
		if [ ! -f "$out/prepared-$s" ]; then
			read -r kver pkgver < <(bash scripts/kernels.sh resolve "$s" 2>>"$log") || exit 1
			[ -n "$kver" ] || exit 1
			bash scripts/build-module.sh "$s" >/dev/null 2>>"$log" || exit 2
			echo "$kver $pkgver" >"$out/prepared-$s"
		fi
	) 9>"$out/lock-$s" || return $?
	cat "$out/prepared-$s"
}
guest_job() {	# guest_job JOB DIR: build, boot, test; DIR/{name,rc,build.log}
	local job=$1 s=${1%%:*} res=$2 kver pkgver info rc part="" prc
	[ "$s" = "$job" ] || part=" (${job#*:}: $(tests_for "$job") $(append_for "$job"))"
	mkdir -p "$res"
	prepare "$s" "$res/build.log" >"$res/prepared"
	prc=$?
	read -r kver pkgver <"$res/prepared" || true
	if [ "$prc" = 1 ] || [ -z "$kver" ]; then
		echo "kernel $s" >"$res/name"; echo resolve >"$res/rc"; return
	fi
	echo "guest: linux-image-$kver $pkgver$part" >"$res/name"
	if [ "$prc" != 0 ]; then
		echo build >"$res/rc"; return
	fi
	if [ "${job#*:}" = smoke ]; then
		bash scripts/vm-smoke.sh "$s" "$res/vm" >"$res/vm.log" 2>&1
		echo $? >"$res/rc"
		return
	fi
	info=$(bash scripts/kernels.sh fetch "$s" 2>>"$res/build.log")
	(
		# shellcheck source=/dev/null
		. "$info/info"
		if [ "$s" = lab-debug ]; then
			export SL_FUZZ_OPS=${SL_FUZZ_OPS:-10000}
			export SL_FUZZ_CONCURRENT_S=${SL_FUZZ_CONCURRENT_S:-30}
			export SL_FUZZ_DEADLINE_OPS=${SL_FUZZ_DEADLINE_OPS:-500}
			export SCHEDLAB_TEST_TORTURE_S=${SCHEDLAB_TEST_TORTURE_S:-15}
			export SCHEDLAB_TEST_VMA_ROUNDS=${SCHEDLAB_TEST_VMA_ROUNDS:-50}
			export SCHEDLAB_TEST_TIMEOUT=${SCHEDLAB_TEST_TIMEOUT:-3000}
		fi
		# a stall (no console or result output) is 10 minutes; on the
		# debug kernel one fuzzer run alone may print nothing for longer
		SCHEDLAB_VM_STALL=${SCHEDLAB_VM_STALL:-$([ "$s" = lab-debug ] && echo 1800 || echo 600)} \
		SCHEDLAB_VM_TIMEOUT=${SCHEDLAB_VM_TIMEOUT:-$([ "$s" = lab-debug ] && echo 4500 || echo 2700)} \
		SCHEDLAB_VM_APPEND="$(append_for "$job") ${SCHEDLAB_VM_APPEND:-}" \
		bash scripts/vm-run.sh "$s" "$res/vm" tests/guest/run.sh "$KDIR/.config" "$(tests_for "$job")" \
			>"$res/vm.log" 2>&1
	)
	rc=$?
	echo "$rc" >"$res/rc"
}
jobs_max=${SCHEDLAB_GUEST_JOBS:-2}
launch() {	# launch JOB: start it in the background, once a slot is free
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
	echo "=== guest $1: started ($(date +%T))"
	guest_job "$1" "$out/guest-${1//:/-}" &
}
# The first guest starts now: the host tests are mostly one
# process at a time, and the other core would wait for them (1.5 to 6
# minutes).
next=0
if [ ${#series[@]} -gt 0 ] && [ "$jobs_max" -gt 1 ]; then
	launch "${series[0]}"
	next=1
fi
echo "=== host unit tests"
for t in tests/host/test_*.sh; do
	name=$(basename "$t" .sh)
	bash "$t" "$SCHEDLAB_TOP/build/host/btf_layout" 2>&1 | tee "$out/$name.tap"
	count "$out/$name.tap" "host: $name"
done
echo "=== host unit tests: done ($(date +%T))"
for s in "${series[@]:next}"; do launch "$s"; done
wait
for s in "${series[@]}"; do
	res=$out/guest-${s//:/-}
	name=$(cat "$res/name" 2>/dev/null || echo "kernel $s")
	echo "=== $name"
	rc=$(cat "$res/rc" 2>/dev/null || echo none)
	case $rc in
	resolve) cat "$res/build.log"; fail "$name" "cannot resolve"; continue ;;
	build) cat "$res/build.log"; fail "$name" "module build failed"; continue ;;
	none) fail "$name" "no result"; continue ;;
	esac
	tail -n 30 "$res/vm.log" | grep -E 'splat|BUG|WARNING|KASAN|lockdep|timeout|did not' || true
	[ -f "$res/vm/tap.txt" ] && cat "$res/vm/tap.txt"
	if [ -f "$res/vm/tap.txt" ]; then count "$res/vm/tap.txt" "$name"; fi
	case $rc in
	0) ;;
	124) sed -n '/splat/,$p' "$res/vm.log" | head -n 80; fail "$name" "kernel splat in dmesg (see above)" ;;
	125)
		# vm-run's account (a stall: the guest's stuck tasks and CPUs,
		# see vm-run.sh); then, nearest the failure line where a
		# shortened log keeps it, the test it was in, as far as it got,
		# and what each CPU and each stuck task was doing
		sed -n '/did not finish/,$p' "$res/vm.log" | head -n 160
		cur=$(sed -n 's/^# --- //p' "$res/vm/tap.txt" 2>/dev/null | tail -n1)
		if [ -n "$cur" ] && [ -f "$res/vm/$cur.log" ]; then
			echo "# $cur, unfinished; the end of its output:"
			tail -n 12 "$res/vm/$cur.log" | sed 's/^/#   /'
		fi
		bash scripts/vm-stall-summary.sh "$res/vm"
		fail "$name" "guest did not finish${cur:+ (in $cur)}" ;;
	*) [ -f "$res/vm/tap.txt" ] || fail "$name" "guest tests exited $rc" ;;
	esac
done

echo
echo "=== summary ($(( $(date +%s) - t0 )) s)"
printf '%s\n' "${summary[@]}"
[ ${#failures[@]} = 0 ] || { echo "failed:"; printf '  %s\n' "${failures[@]}"; }
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
