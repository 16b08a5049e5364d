#!/usr/bin/env bash
# vm-run.sh SERIES RESULTS_DIR SCRIPT [ARGS...]
#
# Boot the newest stock Debian kernel of SERIES under QEMU (TCG, 2 vCPUs,
# preempt=full) with the host's root shared read-only over virtiofs, run
# "bash SCRIPT ARGS..." as root inside it (paths as on the host), and bring
# back in RESULTS_DIR (shared read-write, /run/schedlab-results in the guest)
# whatever it writes there, plus console.log, dmesg.txt and exit-status.
# An arm64 series boots under qemu-system-aarch64 on the virtual
# big.LITTLE (4 vCPUs, vm-machine.sh) with a Debian arm64 root of its own
# (guest-rootfs.sh) and the work tree shared at its host path, the tools
# cross-built into build/host-arm64 and mounted over build/host: the same
# scripts run unchanged (docs/arm64.md).
#
# Exit status: the script's; 125 if the guest did not finish (boot failure,
# timeout, stall); 124 if the guest's dmesg has an oops, BUG, WARNING,
# lockdep, KASAN or hung-task report (it is printed).
#
# A guest that stops making progress (neither its console nor any file in
# RESULTS_DIR changed for SCHEDLAB_VM_STALL seconds, default 600), or that
# reaches SCHEDLAB_VM_TIMEOUT, is not just killed: every vCPU's state
# (QEMU's "info registers", RIPs named from the guest's kallsyms: it boots
# nokaslr) goes to RESULTS_DIR/vcpus.txt, then an NMI makes the
# guest panic (unknown_nmi_panic) and print every task's stack, the timers
# and every CPU's backtrace (panic_print) to console.log. The virtiofs
# devices run without EVENT_IDX, and vm-init.sh keeps a request going to
# each share: QEMU 7.2's round-robin TCG loses a virtqueue notification now
# and then (docs/design.md, "Lost virtqueue notifications").
#
# Environment variables named SCHEDLAB_TEST_*, SCHEDLAB_BENCH_* or SL_FUZZ_* are exported to
# the guest script. Environment: SCHEDLAB_VM_TIMEOUT (seconds, default 1200), SCHEDLAB_VM_CPUS
# (default 2), SCHEDLAB_VM_MEM (MiB, default 2048), SCHEDLAB_VM_APPEND (extra
# kernel arguments), SCHEDLAB_VM_TCG_THREAD (single or multi, default single).
#
# Why single-threaded TCG: with one host thread per vCPU (thread=multi) a
# guest that flips a static key in hot scheduler code (every tracepoint
# probe registration does) was seen to execute a stale int3 from the
# kernel's text_poke_bp() sequence after the patching had completed:
# "Oops: int3" in try_to_wake_up. Round-robin TCG runs every vCPU on one
# host thread, so cross-CPU code modification is always coherent; the
# vCPUs are still two CPUs to the guest.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=${1:?usage: vm-run.sh SERIES RESULTS_DIR SCRIPT [ARGS...]}
results=${2:?results dir}
shift 2
[ $# -ge 1 ] || die "no script to run in the guest"

info=$("$SCHEDLAB_TOP/scripts/kernels.sh" fetch "$series")
# shellcheck source=/dev/null
. "$info/info"
arch=${ARCH:-x86}

timeout_s=${SCHEDLAB_VM_TIMEOUT:-1200}
stall_s=${SCHEDLAB_VM_STALL:-600}
mem=${SCHEDLAB_VM_MEM:-2048}

run=$(mktemp -d /tmp/schedlab-vm.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT

# The machine (vm-machine.sh): x86 q35 with 2 vCPUs; arm64 the virtual
# big.LITTLE (4 vCPUs) unless SCHEDLAB_VM_PLATFORM says otherwise.
. "$SCHEDLAB_TOP/scripts/vm-machine.sh"
vm_machine "$arch" "$run"
cpus=$smp

# The guest's root. x86: the host's own, read-only, so the guest runs the
# host's programs. Another architecture: a Debian root of its own
# (guest-rootfs.sh), the work tree shared beside it at its host path, the
# tools cross-built against that root into build/host-ARCH, which the
# guest's init mounts over build/host (so the scripts' paths are the
# same), and the kernel's unpacked package at its host path (the tests
# read its config) with its modules at /lib/modules/KVER too.
guestroot=/
if [ "$arch" != x86 ]; then
	guestroot=$("$SCHEDLAB_TOP/scripts/guest-rootfs.sh" "$arch")
	case "$arch" in arm64) gnu=aarch64-linux-gnu ;; esac
	make -s -C "$SCHEDLAB_TOP" tools HOSTBIN="build/host-$arch" \
		CC="$(guest_cc "$arch") --sysroot=$guestroot" \
		PKG_CONFIG_SYSROOT_DIR="$guestroot" \
		PKG_CONFIG_LIBDIR="$guestroot/usr/lib/$gnu/pkgconfig:$guestroot/usr/share/pkgconfig" >&2 ||
		die "the tools did not cross-build for $arch against $guestroot"
	mkdir -p "$SCHEDLAB_TOP/build/host"
	# mount points (the root is read-only in the guest)
	mkdir -p "$guestroot$SCHEDLAB_TOP" "$guestroot$info" "$guestroot/usr/lib/modules/$KVER"
fi

# The initramfs: busybox, our /init and, where this kernel has them as
# modules, virtio_pci and virtiofs (Debian 6.1) and the platform's
# (cpufreq-dt on the big.LITTLE), with their dependencies, in load order.
# Rebuilt when any of these change.
mkdir -p "$run/initrd/bin" "$run/initrd/dev" "$run/initrd/proc" "$run/initrd/sys" "$run/initrd/host"
vm_modules "$info/root" "$KVER" "$run/initrd/modules" virtio_pci virtiofs "${platform_modules[@]}"
initrd_key=$( (cat "$SCHEDLAB_TOP/scripts/vm-init.sh"; readlink -f "$busybox"; stat -c %s "$busybox"; echo "$KVER"; cat "$run/initrd/modules/order" 2>/dev/null || true) | sha256sum | cut -c1-16)
initrd=$SCHEDLAB_CACHE/initramfs-$initrd_key.cpio.gz
if [ ! -f "$initrd" ]; then
	cp "$busybox" "$run/initrd/bin/busybox"
	cp "$SCHEDLAB_TOP/scripts/vm-init.sh" "$run/initrd/init"
	# a name of its own: two guests of one kernel may boot at once
	(cd "$run/initrd" && find . | cpio -o -H newc --quiet | gzip -1) >"$initrd.tmp.$$"
	mv "$initrd.tmp.$$" "$initrd"
fi
rm -rf "$run/initrd"

rm -rf "$results"
mkdir -p "$results"
results=$(cd "$results" && pwd)
{
	printf 'cd %q\n' "$SCHEDLAB_TOP"
	printf 'export SCHEDLAB_KVER=%q SCHEDLAB_PKGVER=%q SCHEDLAB_SERIES=%q\n' "$KVER" "$PKGVER" "$series"
	# the kernel's own modules (locktorture on the built kernels)
	printf 'export SCHEDLAB_MODDIR=%q\n' "$info/root/lib/modules/$KVER"
	# test and bench knobs reach the guest: SCHEDLAB_TEST_*, SCHEDLAB_BENCH_*, SL_FUZZ_*
	for v in $(compgen -e | grep -E '^(SCHEDLAB_TEST_|SCHEDLAB_BENCH_|SL_FUZZ_)'); do
		printf 'export %s=%q\n' "$v" "${!v}"
	done
	printf 'exec bash'; printf ' %q' "$@"; printf '\n'
} >"$results/cmd.sh"
# The kernel's text symbols, for vm-dump.py should the guest stall: from
# the System.map of the kernels built here (nokaslr makes its addresses
# the run-time ones; Debian's packages ship a placeholder); otherwise
# vm-init.sh copies them from /proc/kallsyms, which took the debug kernel
# more than two minutes of every boot.
if [ -s "$KDIR/System.map" ]; then
	grep -E ' [tTwW] ' "$KDIR/System.map" >"$results/kallsyms.txt" || rm -f "$results/kallsyms.txt"
fi

virtiofsd=/usr/lib/qemu/virtiofsd
[ -x "$virtiofsd" ] || virtiofsd=$(command -v virtiofsd) || die "virtiofsd not found"
start_virtiofsd() {	# start_virtiofsd SOCKET SOURCE CACHE
	"$virtiofsd" --socket-path="$1" -o source="$2" -o cache="$3" -o sandbox=chroot \
		>"$run/$(basename "$1").log" 2>&1 &
	pids+=($!)
}
# The root (read-only in the guest, and not changed by the host while the
# guest runs) with cache=auto: names and attributes are trusted for 1 s,
# file data while the file is unchanged. With cache=none every program
# start looked up each path again and read the binary and its libraries
# through the queue; the heartbeat (vm-init.sh) still reaches virtiofsd,
# 5 s apart, past the 1 s. The results share, read by the host while the
# guest writes it, is not cached.
start_virtiofsd "$run/root.sock" "$guestroot" "${SCHEDLAB_VM_ROOT_CACHE:-auto}"
start_virtiofsd "$run/results.sock" "$results" none
socks=(root results)
shares=(-chardev socket,id=vfs0,path="$run/root.sock" -device vhost-user-fs-pci,chardev=vfs0,tag=hostroot,event_idx=off
	-chardev socket,id=vfs1,path="$run/results.sock" -device vhost-user-fs-pci,chardev=vfs1,tag=results,event_idx=off)
if [ "$arch" != x86 ]; then
	# the work tree and the kernel's unpacked package (its config,
	# headers, modules), beside the guest's own root
	start_virtiofsd "$run/top.sock" "$SCHEDLAB_TOP" "${SCHEDLAB_VM_ROOT_CACHE:-auto}"
	start_virtiofsd "$run/kernel.sock" "$info" auto
	socks+=(top kernel)
	shares+=(-chardev socket,id=vfs2,path="$run/top.sock" -device vhost-user-fs-pci,chardev=vfs2,tag=top,event_idx=off
		-chardev socket,id=vfs3,path="$run/kernel.sock" -device vhost-user-fs-pci,chardev=vfs3,tag=kernel,event_idx=off)
fi
for _ in $(seq 300); do
	up=1
	for s in "${socks[@]}"; do [ -S "$run/$s.sock" ] || up=; done
	[ -n "$up" ] && break
	sleep 0.1
done
[ -n "$up" ] || die "virtiofsd did not start: $(cat "$run"/*.sock.log)"

case "$SCHEDLAB_TOP" in *[[:space:]]*) die "the work tree path must not contain spaces: $SCHEDLAB_TOP" ;; esac
# tsc=reliable: under round-robin TCG the vCPUs' TSCs look unsynchronised
# to the kernel's check (6.1 then marks the TSC unstable, falls back to a
# jiffies-granular sched_clock and hpet, and every scheduler clock becomes
# tick-granular). The emulated TSC is in fact one host clock.
# nokaslr: a stalled guest's RIPs are named from System.map (see above).
# unknown_nmi_panic, panic_print=0x45 (tasks, timers, every CPU): what the
# stall watcher's NMI makes the guest print.
append="console=$console panic=-1 preempt=full loglevel=6 nokaslr panic_print=0x45 schedlab.top=$SCHEDLAB_TOP"
if [ "$arch" = x86 ]; then
	append+=" tsc=reliable unknown_nmi_panic=1"
	# the memory virtiofsd shares, as the guest's one NUMA node
	memargs=(-object memory-backend-memfd,id=mem,size="${mem}M",share=on -numa node,memdev=mem)
else
	# the guest's init mounts the tree's share and build/host-ARCH
	append+=" schedlab.arch=$arch schedlab.kernel=$info"
	# the memory virtiofsd shares, as the machine's RAM (no NUMA node,
	# which would change the device tree the platform was made from)
	qemu[2]+=",memory-backend=mem"
	memargs=(-object memory-backend-memfd,id=mem,size="${mem}M",share=on)
fi
append+=" $append_platform $("$SCHEDLAB_TOP/scripts/kernels.sh" boot-args "$series") ${SCHEDLAB_VM_APPEND:-}"
log "booting $KVER ($PKG $PKGVER) under ${qemu[0]}/TCG (thread=${SCHEDLAB_VM_TCG_THREAD:-single}), $cpus vCPUs, platform $platform"
set +e
timeout -k 10 "$((timeout_s + 120))" "${qemu[@]}" \
	-accel tcg,thread="${SCHEDLAB_VM_TCG_THREAD:-single}" -smp "$cpus" -m "$mem" "${memargs[@]}" "${dtb[@]}" \
	"${shares[@]}" \
	-kernel "$VMLINUZ" -initrd "$initrd" -append "$append" \
	-display none -no-reboot -monitor none -qmp unix:"$run/qmp.sock",server=on,wait=off \
	-serial file:"$results/console.log" \
	${SCHEDLAB_VM_QEMU_EXTRA:-} \
	</dev/null >"$run/qemu.log" 2>&1 &
qpid=$!
pids+=("$qpid")
stalled=
started=$(date +%s)
while kill -0 "$qpid" 2>/dev/null; do
	sleep 5
	now=$(date +%s)
	why=
	if [ $((now - started)) -ge "$timeout_s" ]; then
		why="reached its timeout of $timeout_s s"
	elif [ $((now - started)) -ge "$stall_s" ] &&
		[ -z "$(find "$results" -newermt "@$((now - stall_s))" -print -quit 2>/dev/null)" ]; then
		why="made no progress for $stall_s s (console and results unchanged)"
	fi
	[ -n "$why" ] || continue
	stalled="the guest $why, $((now - started)) s after boot"
	echo "vm-run: $stalled: vCPU state to vcpus.txt, NMI to the guest" >&2
	"$SCHEDLAB_TOP/scripts/vm-dump.py" "$run/qmp.sock" "$results/kallsyms.txt" \
		>"$results/vcpus.txt" 2>&1 || true
	# the guest's panic output, then -no-reboot ends QEMU
	for _ in $(seq 60); do kill -0 "$qpid" 2>/dev/null || break; sleep 1; done
	kill "$qpid" 2>/dev/null
	break
done
wait "$qpid"
qrc=$?
set -e
rm -f "$results/kallsyms.txt"

if [ ! -f "$results/exit-status" ]; then
	echo "vm-run: the guest did not finish (qemu exit $qrc${stalled:+; $stalled}); console and qemu output:" >&2
	if [ -n "$stalled" ]; then
		# the panic's dump: the tasks that were not sleeping interruptibly
		# (their stacks say where they wait), the CPUs' backtraces
		sed -n '/Kernel panic/,$p' "$results/console.log" |
			awk '/\] task:/ { keep = ($0 !~ /state:[SI] /)
			                   if (!keep && $0 !~ /task:(kworker|ksoftirq|rcu|migration|cpuhp|idle_inject|kthreadd|pool_)/) print }
			     /NMI backtrace for cpu|Kernel panic/ { keep = 1 }
			     keep && !/Code:|R[A-Z0-9]+: |Hardware name|^\[[ 0-9.]+\]  \? / { print }' |
			head -n 300 >&2
		echo "vm-run: vCPUs (vcpus.txt):" >&2
		grep -E '^(CPU#|RIP)' "$results/vcpus.txt" | head -n 20 >&2 || true
	fi
	tail -n 60 "$results/console.log" >&2 2>/dev/null || true
	cat "$run/qemu.log" >&2
	exit 125
fi
rc=$(cat "$results/exit-status")
splat='(BUG:|WARNING:|Oops|general protection fault|Kernel panic|KASAN|UBSAN|possible recursive locking|possible circular locking|lockdep is turned off|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked for more than|detected (expedited )?stalls? on|self-detected stall|refcount_t:|list_add corruption|list_del corruption|kmemleak: [0-9]+ new suspected)'
if grep -Eq "$splat" "$results/dmesg.txt"; then
	echo "vm-run: kernel splat in the guest's dmesg:" >&2
	grep -En -A25 "$splat" "$results/dmesg.txt" | head -n 120 >&2
	exit 124
fi
exit "$rc"
