#!/usr/bin/env bash
# vm-smoke.sh SERIES RESULTS_DIR
#
# Boot SERIES' kernel under QEMU/TCG with an initramfs of busybox (of the
# kernel's architecture), the module built for it (scripts/build-module.sh,
# run first) and tests/smoke/smoke.sh as the init's test, and write its TAP
# to RESULTS_DIR/tap.txt (the console to console.log). For kernels whose
# architecture the full harness (vm-run.sh: the host's programs shared into
# the guest) cannot run yet: arm64. Exit status: 0 when the test passed, 1
# when it failed, 125 when the guest did not finish (no end marker: a
# panic, a hang past SCHEDLAB_VM_TIMEOUT seconds, default 900).
#
# arm64: qemu-system-aarch64 -machine virt -cpu max (TCG, one thread, as
# x86), console on the PL011 (ttyAMA0); busybox from Debian's arm64
# busybox-static (downloaded with scripts/apt-foreign.sh, cached).
#
# Platform (SCHEDLAB_VM_PLATFORM): arm64 guests boot on the virtual
# big.LITTLE by default ("biglittle": 4 CPUs, QEMU's device tree plus
# scripts/dt/virt-biglittle.dtsi, and the kernel's own cpufreq-dt module
# with what it depends on in the initramfs, loaded before the test: EAS
# comes up); "virt" boots QEMU's machine as it is (2 equal CPUs, no
# cpufreq). The test programs (tests/smoke/*.c) are built static for the
# guest's architecture with the kernel's cross compiler.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=${1:?usage: vm-smoke.sh SERIES RESULTS_DIR}
results=${2:?usage: vm-smoke.sh SERIES RESULTS_DIR}
info=$("$SCHEDLAB_TOP/scripts/kernels.sh" fetch "$series")
# shellcheck source=/dev/null
. "$info/info"
ko=$SCHEDLAB_TOP/build/$KVER/module/schedlab.ko
[ -f "$ko" ] || die "no module built for $KVER ($ko): run scripts/build-module.sh $series"
mkdir -p "$results"
results=$(cd "$results" && pwd)

arch=${ARCH:-x86}
platform=${SCHEDLAB_VM_PLATFORM:-}
smp=2
append_platform=
case "$arch" in
arm64)
	qemu=(qemu-system-aarch64 -machine virt -cpu max)
	console=ttyAMA0
	cc=${CROSS_COMPILE}gcc-$CC_MAJOR
	platform=${platform:-biglittle}
	# busybox-static for arm64, unpacked once per package version
	bbver=$("$SCHEDLAB_TOP/scripts/apt-foreign.sh" arm64 apt-cache show --no-all-versions busybox-static |
		awk '/^Version:/ { print $2; exit }')
	[ -n "$bbver" ] || die "no arm64 busybox-static in the package lists"
	bbdir=$SCHEDLAB_CACHE/busybox-arm64-${bbver//[:~]/_}
	if [ ! -x "$bbdir/bin/busybox" ]; then
		log "fetching busybox-static $bbver (arm64)"
		rm -rf "$bbdir.tmp"; mkdir -p "$bbdir.tmp/debs"
		(cd "$bbdir.tmp/debs" && "$SCHEDLAB_TOP/scripts/apt-foreign.sh" arm64 apt-get download -q busybox-static >/dev/null)
		dpkg-deb -x "$bbdir.tmp"/debs/*.deb "$bbdir.tmp"
		rm -rf "$bbdir.tmp/debs" "$bbdir"; mv "$bbdir.tmp" "$bbdir"
	fi
	busybox=$bbdir/bin/busybox
	;;
x86)
	qemu=(qemu-system-x86_64 -machine q35 -cpu max)
	console=ttyS0
	busybox=/bin/busybox
	cc=cc
	platform=${platform:-virt}
	;;
*)	die "vm-smoke: no machine known for $arch" ;;
esac
command -v "${qemu[0]}" >/dev/null || die "${qemu[0]} not found (scripts/setup-host.sh installs it)"
command -v "$cc" >/dev/null || die "$cc not found (scripts/setup-host.sh installs it)"
case "$platform" in
biglittle)
	[ "$arch" = arm64 ] || die "the virtual big.LITTLE is an arm64 virt machine"
	smp=4
	# sched_verbose: the kernel logs when it starts energy-aware scheduling
	append_platform=sched_verbose ;;
virt)	;;
*)	die "unknown SCHEDLAB_VM_PLATFORM '$platform' (biglittle, virt)" ;;
esac

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/root/bin" "$t/root/proc" "$t/root/sys" "$t/root/dev" "$t/root/tmp"
cp "$busybox" "$t/root/bin/busybox"
cp "$ko" "$t/root/schedlab.ko"
cp "$SCHEDLAB_TOP/tests/smoke/smoke.sh" "$SCHEDLAB_TOP/tests/smoke/biglittle.sh" \
	"$SCHEDLAB_TOP/tests/lib/tap.sh" "$t/root/"
echo "$platform" >"$t/root/platform"
for src in "$SCHEDLAB_TOP"/tests/smoke/*.c; do
	"$cc" -static -O2 -Wall -Wextra -Werror -o "$t/root/bin/$(basename "$src" .c)" "$src" ||
		die "$(basename "$src") did not build with $cc"
done
dtb=()
if [ "$platform" = biglittle ]; then
	# QEMU's own tree for exactly this machine, plus the big.LITTLE
	"$SCHEDLAB_TOP/scripts/dt/biglittle-dtb.sh" "$t/biglittle.dtb" \
		"${qemu[@]}" -smp "$smp" -m 1024
	dtb=(-dtb "$t/biglittle.dtb")
	# the kernel's cpufreq-dt and what it depends on (modinfo), in load
	# order, decompressed (busybox's insmod takes a plain .ko)
	root=${KDIR%%/usr/src/*}
	moddir=
	for d in "$root/usr/lib/modules/$KVER" "$root/lib/modules/$KVER"; do
		[ -d "$d/kernel" ] && { moddir=$d; break; }
	done
	[ -n "$moddir" ] || die "no modules of $KVER unpacked under $root"
	mkdir -p "$t/root/modules"
	: >"$t/root/modules/order"
	add_module() {	# add_module NAME: its dependencies first
		local path dep
		path=$(find "$moddir/kernel" -name "$(echo "$1" | sed 's/[-_]/[-_]/g').ko*" | head -n1)
		[ -n "$path" ] || die "$1 is not a module of $KVER"
		for dep in $(/sbin/modinfo -F depends "$path" | tr ',' ' '); do
			add_module "$dep"
		done
		grep -qx "$1.ko" "$t/root/modules/order" && return 0
		case "$path" in
		*.ko.xz)  xz -dc "$path" ;;
		*.ko.zst) zstd -qdc "$path" ;;
		*.ko.gz)  gzip -dc "$path" ;;
		*)	  cat "$path" ;;
		esac >"$t/root/modules/$1.ko"
		echo "$1.ko" >>"$t/root/modules/order"
	}
	add_module cpufreq-dt
fi
cat >"$t/root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
sh /smoke.sh
echo "SMOKE-END rc=$?"
poweroff -f
INIT
chmod +x "$t/root/init"
(cd "$t/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$t/initrd.gz"

timeout_s=${SCHEDLAB_VM_TIMEOUT:-900}
log "booting $KVER ($PKGVER) under ${qemu[0]}/TCG, platform $platform: the smoke test"
rc=0
# loglevel=1: printk stays off the console, which carries the TAP (the
# test reads and prints the kernel log itself)
timeout -k 10 "$timeout_s" "${qemu[@]}" -accel tcg,thread=single -smp "$smp" -m 1024 \
	"${dtb[@]}" -nographic -no-reboot -kernel "$VMLINUZ" -initrd "$t/initrd.gz" \
	-append "console=$console panic=-1 loglevel=1 $append_platform" </dev/null >"$results/console.log" 2>&1 || rc=$?
tr -d '\r' <"$results/console.log" | sed -n '/^TAP version 13$/,/^1\.\.[0-9]*$/p' >"$results/tap.txt"
end=$(tr -d '\r' <"$results/console.log" | sed -n 's/^SMOKE-END rc=//p' | tail -n1)
if [ -z "$end" ]; then
	log "the guest did not finish (qemu exit $rc): the end of its console"
	tail -n 40 "$results/console.log" >&2
	exit 125
fi
[ "$end" = 0 ]
