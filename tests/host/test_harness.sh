#!/usr/bin/env bash
# The test plumbing that must not hang or hide a failure, checked on the
# host with stand-ins (TAP output; arguments ignored):
#  - tests/guest/run.sh: a test that hangs (even one ignoring SIGTERM) is
#    killed at SCHEDLAB_TEST_TIMEOUT and counted as a failure, as is one
#    that ends without its plan or with fewer checks than planned;
#  - scripts/bpftrace/mutex_waits.sh, with a stand-in bpftrace on PATH:
#    "attached" only once bpftrace runs its -c command (after attaching);
#    the per-lock lines from bpftrace's maps; SIGTERM to a wrapper started
#    in the background (SIGINT ignored) stops a bpftrace that has not yet
#    installed its handler; one that ignores SIGINT is killed after
#    MUTEX_WAITS_STOP_GRACE; a bad MUTEX_WAITS_STOP_GRACE starts nothing;
#  - scripts/check.sh's tally of a lane: skips apart, each failure named
#    with the test file it came from;
#  - scripts/vm-stall-summary.sh on a crafted panic dump;
#  - scripts/dt/biglittle-dtb.sh: the virtual big.LITTLE's tree from this
#    host's QEMU (arm64 virt, 4 CPUs), read back with fdtget.
. "$(dirname "$0")/../lib/host_c.sh"	# strict mode, TAP, cd to the top, $tmp

# --- tests/guest/run.sh
g=$tmp/guest
mkdir -p "$g/res"
cp tests/guest/run.sh "$g/"
cat >"$g/t1_good.sh" <<'EOF'
echo "ok 1 - first"; echo "ok 2 - second"; echo "1..2"
EOF
cat >"$g/t2_hang.sh" <<'EOF'
trap '' TERM	# inherited by sleep: only SIGKILL ends it
echo "ok 1 - before the hang"
sleep 300
EOF
cat >"$g/t3_noplan.sh" <<'EOF'
echo "ok 1 - then it dies"; exit 3
EOF
cat >"$g/t4_short.sh" <<'EOF'
echo "ok 1 - one"; echo "ok 2 - two"; echo "1..3"
EOF
start=$(date +%s)
SCHEDLAB_RESULTS=$g/res SCHEDLAB_TEST_TIMEOUT=2 bash "$g/run.sh" "" \
	"t1_good.sh t2_hang.sh t3_noplan.sh t4_short.sh" >"$g/out" 2>"$g/err"
rc=$?
took=$(( $(date +%s) - start ))
is "$rc" 1 "run.sh: exit 1 when a test failed"
ok "[ $took -le 40 ]" "run.sh: a hung test ignoring SIGTERM is killed (all four took $took s)"
ok "grep -qx 'not ok 9999 - t2_hang.sh did not finish within 2 s (killed)' '$g/res/tap.txt'" \
	"run.sh: the hung test is a failure"
ok "grep -qx 'ok 1 - before the hang' '$g/res/tap.txt'" "run.sh: the hung test's output is kept"
ok "grep -qx 'not ok 9999 - t3_noplan.sh ended (exit 3) without its plan' '$g/res/tap.txt'" \
	"run.sh: a test ending without its plan is a failure"
ok "grep -qx 'not ok 9999 - t4_short.sh planned 3 checks, ran 2 (exit 0)' '$g/res/tap.txt'" \
	"run.sh: a test running fewer checks than planned is a failure"
is "$(grep -c '^not ok' "$g/res/tap.txt")" 3 "run.sh: no failure added to the good test"
ok "cmp -s '$g/out' '$g/res/tap.txt'" "run.sh: stdout and tap.txt are the same stream"
SCHEDLAB_RESULTS=$g/res bash "$g/run.sh" "" "t1_good.sh" >/dev/null 2>&1
is "$?" 0 "run.sh: exit 0 when every test passed"

# --- scripts/bpftrace/mutex_waits.sh with a stand-in bpftrace
# FAKE_BPFTRACE=maps: like bpftrace 0.17, says "Attaching 7 probes..."
# before it attaches them (1 s here), then runs the -c command (an ELF
# executable, like bpftrace); prints
# its maps when the command ends or on SIGINT. =late: not yet attached
# (exec sleep, no handler of its own). =deaf: ignores SIGINT and never
# gets to start the command.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/bpftrace" <<'FAKE'
#!/usr/bin/env bash
echo "$$ $*" >>"$FAKE_LOG"
maps() {
	printf '%s\n' "" "@waits[0xffff888000000010]: 5" "@waits[0xffff888000000020]: 12" "" \
		"@total_ns[0xffff888000000010]: 500" "@total_ns[0xffff888000000020]: 1200" \
		"@max_ns[0xffff888000000010]: 150" "@max_ns[0xffff888000000020]: 300" \
		"@oncpu_ns[0xffff888000000020]: 100" "@preempted_ns[0xffff888000000020]: 200" \
		"@sleeping_ns[0xffff888000000010]: 500" "@sleeping_ns[0xffff888000000020]: 300" \
		"@unowned_ns[0xffff888000000020]: 600"
}
case $FAKE_BPFTRACE in
maps)
	trap 'maps; exit 0' INT
	echo "Attaching 7 probes..."
	sleep 1
	date +%s%N >"$FAKE_LOG.attached"
	if [ "$1" = -c ]; then
		# bpftrace runs only an ELF executable
		read -r exe _ <<<"$2"
		[ "$(head -c 4 "$exe" | tail -c 3)" = ELF ] ||
			{ echo "ERROR: Failed to fork child: $exe is not executable"; exit 1; }
		$2 &
		wait $!
		maps
	else
		while :; do sleep 0.1; done
	fi ;;
late)	exec sleep 60 ;;
deaf)	trap '' INT
	echo "Attaching 7 probes..."
	while :; do sleep 0.1; done ;;
esac
FAKE
chmod +x "$tmp/bin/bpftrace"
export FAKE_LOG=$tmp/fake.log
MW=$top/scripts/bpftrace/mutex_waits.sh
# mw MODE GRACE WAIT_FOR [OPTION...]: the wrapper in the background (as a
# script starts it: SIGINT ignored), SIGTERM once WAIT_FOR is in its
# stderr (at once if empty) after the stand-in has started; sets mw_rc,
# mw_took, and mw_seen (when WAIT_FOR was seen, ns)
mw() {
	local mode=$1 grace=$2 want=$3 pid
	shift 3
	rm -f "$FAKE_LOG" "$FAKE_LOG.attached"
	FAKE_BPFTRACE=$mode MUTEX_WAITS_STOP_GRACE=$grace PATH=$tmp/bin:$PATH \
		bash "$MW" "$@" >"$tmp/mw.out" 2>"$tmp/mw.err" &
	pid=$!
	for _ in $(seq 200); do
		[ -s "$FAKE_LOG" ] && { [ -z "$want" ] || grep -q "$want" "$tmp/mw.err"; } && break
		sleep 0.05
	done
	mw_seen=$(date +%s%N)
	sleep 0.3
	start=$(date +%s)
	kill -TERM "$pid"
	mw_rc=0
	wait "$pid" || mw_rc=$?
	mw_took=$(( $(date +%s) - start ))
}
mw maps 30 'mutex_waits.sh: attached' -q
is "$mw_rc" 0 "mutex_waits.sh: exit status bpftrace's (0)"
ok "grep -q -- ' -c /bin/sh [^ ]*/attached -q [^ ]*/scripts/bpftrace/mutex_waits.bt\$' '$FAKE_LOG'" \
	"mutex_waits.sh: bpftrace gets its attached-command (-c), the options, the script"
ok "[ -s '$FAKE_LOG.attached' ] && [ \$(cat '$FAKE_LOG.attached') -le $mw_seen ]" \
	"mutex_waits.sh: says 'attached' only once bpftrace runs the command"
is "$(cat "$tmp/mw.out")" "lock 0xffff888000000020 waits 12 total_ns 1200 max_ns 300 oncpu_ns 100 preempted_ns 200 sleeping_ns 300 unowned_ns 600
lock 0xffff888000000010 waits 5 total_ns 500 max_ns 150 oncpu_ns 0 preempted_ns 0 sleeping_ns 500 unowned_ns 0" \
	"mutex_waits.sh: stopped, one line per lock, most waits first, missing parts 0"
ok "grep -qx 'Attaching 7 probes...' '$tmp/mw.err' && ! grep -q '^@' '$tmp/mw.err'" \
	"mutex_waits.sh: bpftrace's messages to stderr, its maps not"
ok "[ $mw_took -le 5 ]" "mutex_waits.sh: stopped in $mw_took s"

mw maps 30 '' -c /bin/true
is "$mw_rc" 0 "mutex_waits.sh -c CMD: runs to the command's end (status 0)"
is "$(grep -o -- ' -c ' "$FAKE_LOG" | wc -l)" 1 "mutex_waits.sh -c CMD: the user's -c, not its own"
ok "grep -q -- ' -c /bin/true [^ ]*/mutex_waits.bt\$' '$FAKE_LOG' && [ \$(wc -l <'$tmp/mw.out') = 2 ]" \
	"mutex_waits.sh -c CMD: ... and the results"

mw late 30 ''
is "$mw_rc" 130 "mutex_waits.sh: a bpftrace not yet attached ends at SIGINT (status 130)"
ok "[ $mw_took -le 10 ]" "mutex_waits.sh: ... at once, not after the grace ($mw_took s)"

mw deaf 1 Attaching
is "$mw_rc" 137 "mutex_waits.sh: a bpftrace ignoring SIGINT is killed (status 137)"
ok "[ $mw_took -le 10 ]" "mutex_waits.sh: ... after MUTEX_WAITS_STOP_GRACE=1 ($mw_took s)"
ok "grep -q 'still running 1 s after the stop: killed' '$tmp/mw.err'" "mutex_waits.sh: ... and says so"
ok "[ ! -s '$tmp/mw.out' ] && ! grep -q 'mutex_waits.sh: attached' '$tmp/mw.err'" \
	"mutex_waits.sh: ... with no results, never attached"

: >"$FAKE_LOG"
FAKE_BPFTRACE=maps MUTEX_WAITS_STOP_GRACE=1m PATH=$tmp/bin:$PATH bash "$MW" >/dev/null 2>"$tmp/mw.err"
is "$?" 2 "mutex_waits.sh: MUTEX_WAITS_STOP_GRACE=1m is refused (status 2)"
ok "[ ! -s '$FAKE_LOG' ] && grep -q 'not a number' '$tmp/mw.err'" "mutex_waits.sh: ... before bpftrace starts, with a message"
# --- scripts/check.sh's tally: every failed check named with its test
cat >"$tmp/lane.tap" <<'EOF'
# --- t10_a.sh
ok 1 - fine
not ok 2 - broken in a
# --- t20_b.sh
ok 1 - skipped # SKIP why
not ok 3 - broken in b
EOF
tally=$(
	total_pass=0 total_fail=0 total_skip=0 summary=() failures=()
	eval "$(sed -n '/^count() {/,/^}/p' scripts/check.sh)"
	count "$tmp/lane.tap" lane
	printf '%s\n' "$total_pass $total_fail $total_skip" "${failures[@]}"
)
is "$tally" "1 2 1
lane: t10_a.sh: not ok 2 - broken in a
lane: t20_b.sh: not ok 3 - broken in b" "check.sh: a lane's tally (1 passed, 2 failed, 1 skipped) and each failure with its test file"

# --- scripts/vm-stall-summary.sh: a stalled guest in a few lines, from a
# panic dump in the two formats seen (with and without the printk caller)
st=$tmp/stall
mkdir -p "$st"
cat >"$st/console.log" <<'EOF'
[  100.000000] ok before the stall
[  207.366423] Kernel panic - not syncing: NMI: Not continuing
[  207.366500] Call Trace:
[  207.366600]  <NMI>
[  207.366700]  vpanic+0x2de/0x340
[  207.366800]  </NMI>
[  207.402251] NMI backtrace for cpu 1
[  207.402300] RIP: 0010:pv_native_safe_halt+0xf/0x20
[  207.402400] Code: 22 d7 c3 cc
[  207.402500]  ? pv_native_safe_halt+0xf/0x20
[  207.402600]  <TASK>
[  207.402700]  default_idle+0x9/0x20
[  207.402800]  do_idle+0x26b/0x2a0
[  207.402900]  </TASK>
[  207.409508][    T1] task:init            state:S stack:0     pid:1     tgid:1     ppid:0      task_flags:0x400100 flags:0x00080000
[  207.409600][    T1]  schedule+0x28/0xa0
[  207.588482][    C0] task:dlparams_vma    state:R  running task     stack:0     pid:1813  tgid:1813  ppid:1812   task_flags:0x400100 flags:0x00080000
[  207.589049][    C0]  <TASK>
[  207.589119][    C0]  __schedule+0x52a/0x1080
[  207.589253][    C0]  ? update_curr+0x1/0x2
[  207.589377][    C0]  preempt_schedule+0x31/0x50
[  207.589528][    C0]  __sched_setscheduler+0x963/0xd10
[  207.592754][    C0] RIP: 0033:0x7f298a1d3829
[  207.594256][    C0]  </TASK>
[  207.594300] task:cat             state:D stack:0     pid:200   tgid:200   ppid:1     task_flags:0x0 flags:0x0
[  207.594400]  __schedule+0x1/0x2
[  207.594500]  io_schedule+0x1/0x2
[  207.594518] Sched Debug Version: v0.11, 7.3.4+deb13-amd64 #1
EOF
cat >"$st/vcpus.txt" <<'EOF'
CPU#0
RIP=ffffffff821b8d0f RFL=00000212 [----A--] CPL=0 II=0 A20=1 SMM=0 HLT=1
RIP names pv_native_safe_halt+0xf
CPU#1
RIP=ffffffff81000000 RFL=00000212 [----A--] CPL=0 II=0 A20=1 SMM=0 HLT=0
RIP names queued_spin_lock_slowpath+0x2fb
EOF
is "$(bash scripts/vm-stall-summary.sh "$st")" "# stall summary (from the guest's panic dump, then QEMU):
#   cpu 1: at pv_native_safe_halt+0xf/0x20 <- default_idle+0x9 <- do_idle+0x26b
#   task dlparams_vma (pid 1813, state R): at 0x7f298a1d3829 <- __schedule+0x52a <- preempt_schedule+0x31 <- __sched_setscheduler+0x963
#   task cat (pid 200, state D): __schedule+0x1 <- io_schedule+0x1
#   QEMU CPU#0: halted at pv_native_safe_halt+0xf
#   QEMU CPU#1: running at queued_spin_lock_slowpath+0x2fb" \
	"vm-stall-summary.sh: each CPU's backtrace, the tasks not asleep (S, I left out), QEMU's vCPUs"
is "$(bash scripts/vm-stall-summary.sh "$tmp/nothing")" "# no console log in $tmp/nothing" \
	"vm-stall-summary.sh: a guest without a console log says so"

# --- scripts/dt/biglittle-dtb.sh
if command -v qemu-system-aarch64 >/dev/null && command -v fdtget >/dev/null; then
	dtb=$tmp/bl.dtb
	ok "bash scripts/dt/biglittle-dtb.sh '$dtb' qemu-system-aarch64 -machine virt -cpu max -smp 4 -m 1024" \
		"biglittle-dtb.sh: builds the tree on QEMU's own"
	caps= tabs=
	for c in 0 1 2 3; do
		caps="$caps $(fdtget "$dtb" /cpus/cpu@$c capacity-dmips-mhz 2>/dev/null)"
		tabs="$tabs $(fdtget -t x "$dtb" /cpus/cpu@$c operating-points-v2 2>/dev/null)"
	done
	is "$caps" " 400 400 750 1024" "biglittle-dtb.sh: capacity-dmips-mhz of cpu0..3"
	is "$(echo $tabs | tr ' ' '\n' | sort -u | wc -l)" 3 "biglittle-dtb.sh: three OPP tables (little, mid, big) among the cpus"
	n=0
	for c in 0 1 2 3; do
		ph=$(fdtget -t x "$dtb" /cpus/cpu@$c operating-points-v2)
		for node in $(fdtget -l "$dtb" /); do
			[ "$(fdtget -t x "$dtb" "/$node" phandle 2>/dev/null)" = "$ph" ] || continue
			fdtget -p "$dtb" "/$node" | grep -qx opp-shared &&
				[ -n "$(fdtget "$dtb" "/$node/$(fdtget -l "$dtb" "/$node" | head -n1)" opp-microvolt)" ] &&
				[ -n "$(fdtget "$dtb" /cpus/cpu@$c dynamic-power-coefficient)" ] && n=$((n + 1))
		done
	done
	is "$n" 4 "biglittle-dtb.sh: every cpu's table is shared, has voltages, and the cpu a power coefficient (an energy model)"
	is "$(fdtget "$dtb" /pl011@9000000 compatible 2>/dev/null | cut -d' ' -f1)" arm,pl011 "biglittle-dtb.sh: QEMU's devices kept"
	bash scripts/dt/biglittle-dtb.sh "$tmp/x.dtb" qemu-system-aarch64 -cpu max >/dev/null 2>&1
	is "$?" 2 "biglittle-dtb.sh: QEMU arguments without -machine: exit 2"
else
	skip "biglittle-dtb.sh" "no qemu-system-aarch64 or fdtget (scripts/setup-host.sh installs them)"
fi

done_testing
