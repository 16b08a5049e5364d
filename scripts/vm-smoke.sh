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
cc=$(guest_cc "$arch")
command -v "$cc" >/dev/null || die "$cc not found (scripts/setup-host.sh installs it)"
. "$SCHEDLAB_TOP/scripts/vm-machine.sh"
mem=1024
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
vm_machine "$arch" "$t"
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
# the platform's modules (cpufreq-dt), loaded by the test (smoke.sh)
vm_modules "${KDIR%%/usr/src/*}" "$KVER" "$t/root/modules" "${platform_modules[@]}"
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
timeout -k 10 "$timeout_s" "${qemu[@]}" -accel tcg,thread=single -smp "$smp" -m "$mem" \
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
