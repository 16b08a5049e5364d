#!/bin/busybox sh
# /init of schedlab's test guest (runs from a busybox initramfs).
#
# Mounts the host's root (or the guest's own root, for another architecture)
# read-only over virtiofs at /host, gives it writable
# tmpfs for /tmp, /run, /var/tmp and /root, mounts the guest's own proc, sys,
# dev, debugfs, tracefs and cgroup2 inside it, mounts the results share
# (read-write) at /run/schedlab-results, then runs, chrooted in /host, the
# script the host left there (cmd.sh) and powers off. The script's exit
# status and the guest's dmesg are written to the results share.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

# Modules the kernel has as modules rather than built in (see vm-run.sh).
if [ -f /modules/order ]; then
	for m in $(cat /modules/order); do insmod /modules/$m || echo "schedlab-vm: insmod $m failed"; done
fi

H=/host
mkdir -p $H
mount -t virtiofs -o ro hostroot $H || { echo "schedlab-vm: cannot mount hostroot"; poweroff -f; }
# The work tree may itself live under one of the directories that get a
# tmpfs (a CI clone in /tmp, say): keep it visible by bind-mounting it back.
top=$(sed -n 's/.*schedlab.top=\([^ ]*\).*/\1/p' /proc/cmdline)
mkdir -p /keep
for d in tmp run var/tmp root; do
	keep=
	case "$top" in /$d/*) keep=1; mount -o bind "$H$top" /keep ;; esac
	mount -t tmpfs -o mode=1777 tmpfs $H/$d
	if [ -n "$keep" ]; then
		mkdir -p "$H$top"
		mount -o bind /keep "$H$top"
		umount /keep
	fi
done
# A guest of another architecture than the host's (schedlab.arch=ARCH)
# booted a root of its own (guest-rootfs.sh): the work tree is its own
# share, mounted at its host path, with the tools built for ARCH
# (build/host-ARCH) over build/host; the kernel's unpacked package is a
# share too, at its host path, its modules at /lib/modules/KVER.
arch=$(sed -n 's/.*schedlab.arch=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$arch" ]; then
	mkdir -p "$H$top" 2>/dev/null
	mount -t virtiofs -o ro top "$H$top" || { echo "schedlab-vm: cannot mount the work tree"; poweroff -f; }
	mount -o bind "$H$top/build/host-$arch" "$H$top/build/host" ||
		{ echo "schedlab-vm: no build/host-$arch"; poweroff -f; }
	kernel=$(sed -n 's/.*schedlab.kernel=\([^ ]*\).*/\1/p' /proc/cmdline)
	mount -t virtiofs -o ro kernel "$H$kernel" &&
		mount -o bind "$H$kernel/root/lib/modules/$(uname -r)" "$H/lib/modules/$(uname -r)" ||
		echo "schedlab-vm: the kernel's package is not mounted"
fi
mount -t proc proc $H/proc
mount -t sysfs sys $H/sys
mount -t devtmpfs dev $H/dev
mkdir -p $H/dev/pts $H/dev/shm
ln -sf /proc/self/fd $H/dev/fd
for i in 0 1 2; do ln -sf /proc/self/fd/$i $H/dev/$(echo stdin stdout stderr | cut -d' ' -f$((i + 1))); done
mount -t devpts devpts $H/dev/pts
mount -t tmpfs tmpfs $H/dev/shm
mount -t debugfs debugfs $H/sys/kernel/debug
mount -t tracefs tracefs $H/sys/kernel/tracing 2>/dev/null
mount -t cgroup2 cgroup2 $H/sys/fs/cgroup 2>/dev/null
mkdir -p $H/run/schedlab-results
mount -t virtiofs results $H/run/schedlab-results || { echo "schedlab-vm: cannot mount results"; poweroff -f; }
# the kernel's text symbols (nokaslr: the addresses every boot has), for
# the host to name the vCPUs' RIPs should the guest stall (vm-dump.py),
# unless the host found them in the kernel's System.map (vm-run.sh)
[ -s $H/run/schedlab-results/kallsyms.txt ] ||
	grep -E ' [tTwW] ' /proc/kallsyms > $H/run/schedlab-results/kallsyms.txt

# The virtiofs heartbeat. Debian 12's QEMU (7.2) drops the guest's memory
# barriers under round-robin TCG (fixed in 8.1: "tcg: Do not elide memory
# barriers for !CF_PARALLEL in system mode"), so now and then a virtqueue
# notification between this guest and virtiofsd is lost, either way.
# Without EVENT_IDX (vm-run.sh) the next request moves the queue on again;
# but when every task waits on the share, none comes, and the guest sat
# idle for good. So two shells of this initramfs, 5 s apart, each send a
# request to both shares every 10 s: a stat by a builtin, slept between by
# a builtin read with a timeout, so that no process is started and nothing
# is run from the share (one forked stat every 2 s, tried first, made t62's
# and t70's lone-task and idle-CPU checks fail). A heartbeat whose own
# request is the lost one waits for the other's.
mkfifo /heartbeat.fifo
heartbeat() {
	exec 3<>/heartbeat.fifo
	while :; do
		read -t 10 x <&3
		[ -e $H/usr/. ]
		[ -e $H/run/schedlab-results/. ]
		[ -z "$arch" ] || [ -e "$H$top/." ]
	done
}
heartbeat &
read -t 5 x <>/heartbeat.fifo
heartbeat &

chroot $H /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb SCHEDLAB_GUEST=1 SCHEDLAB_RESULTS=/run/schedlab-results \
	/bin/bash /run/schedlab-results/cmd.sh
echo $? > $H/run/schedlab-results/exit-status
dmesg > $H/run/schedlab-results/dmesg.txt
sync
umount $H/run/schedlab-results
poweroff -f
