#!/usr/bin/env bash
# guest-rootfs.sh ARCH: print the path of a Debian root of ARCH (arm64) for
# the test guests of that architecture, making it first if need be.
#
# An x86 guest runs the host's own programs (vm-run.sh shares the host's
# root); a guest of another architecture needs a root of its own. This one
# is bookworm's, the distribution of the arm64 6.12 kernels: the packages
# the guest scripts run (bash, coreutils, gawk, util-linux, procps, kmod,
# trace-cmd, rt-app, python3, sqlite3, ...) and the libraries and headers
# the tools are cross-built against (vm-run.sh: make tools with this root
# as the compiler's --sysroot), resolved by apt from ARCH's package lists
# (apt-foreign.sh) and unpacked, not installed: no maintainer script runs
# (nothing of ARCH can run on the host). What those scripts would have
# made and the guest needs is made here: the merged /usr, the users and
# groups of base-passwd, the awk alternative.
#
# Cached under SCHEDLAB_CACHE by a hash of this script (the package list
# is in it) and the package versions apt resolves; a new version of any
# package makes a new root. Several guests share one root read-only.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:?usage: guest-rootfs.sh ARCH}
case "$arch" in arm64) gnu=aarch64-linux-gnu ;; *) die "guest-rootfs: no root known for '$arch' (known: arm64)" ;; esac

# What the guest scripts run, then what the tools link against.
pkgs=(bash coreutils gawk grep sed findutils diffutils util-linux mount procps kmod
	bsdextrautils dash debianutils base-files base-passwd libc-bin tar gzip xz-utils
	trace-cmd rt-app python3 sqlite3 iproute2 dwarves
	libc6-dev libtracecmd-dev libtracefs-dev libtraceevent-dev libsqlite3-dev
	libjson-c-dev)

apt_foreign() { "$SCHEDLAB_TOP/scripts/apt-foreign.sh" "$arch" "$@"; }
# apt resolves the set against an empty status (nothing is installed in
# the private state): every package the list needs, one of each alternative
plan=$(apt_foreign apt-get install -s -q --no-install-recommends "${pkgs[@]}" |
	awk '$1 == "Inst" { print $2, $3 }' | tr -d '()' | sort)
[ -n "$plan" ] || die "guest-rootfs: apt resolved nothing for $arch"
key=$( (cat "$0"; echo "$plan") | sha256sum | cut -c1-16)
root=$SCHEDLAB_CACHE/rootfs-$arch-$key
if [ -f "$root/.complete" ]; then
	echo "$root"
	exit 0
fi

exec 8>"$SCHEDLAB_CACHE/rootfs-$arch.lock"
flock 8
if [ ! -f "$root/.complete" ]; then
	log "guest-rootfs: unpacking $(wc -l <<<"$plan") Debian $arch packages"
	tmp=$root.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp/debs" "$tmp/root/usr/bin" "$tmp/root/usr/sbin" "$tmp/root/usr/lib"
	(cd "$tmp/debs" && apt_foreign apt-get download -q $(awk '{ print $1 ":'"$arch"'=" $2 }' <<<"$plan") >/dev/null)
	r=$tmp/root
	# the merged /usr of a bookworm debootstrap; packages that still ship
	# /bin or /lib land in /usr through these links
	ln -s usr/bin "$r/bin"
	ln -s usr/sbin "$r/sbin"
	ln -s usr/lib "$r/lib"
	for d in "$tmp"/debs/*.deb; do
		dpkg-deb --fsys-tarfile "$d" | tar -x --keep-directory-symlink -C "$r"
	done
	# the dynamic loader at the path the ELF interpreter names
	[ -e "$r/lib/ld-linux-aarch64.so.1" ] || die "guest-rootfs: no dynamic loader in the unpacked libc6"
	# base-passwd's and base-files' postinst
	cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd"
	cp "$r/usr/share/base-passwd/group.master" "$r/etc/group"
	: >"$r/etc/shadow"
	[ -e "$r/etc/hostname" ] || echo schedlab-guest >"$r/etc/hostname"
	# update-alternatives' links the guest scripts use
	ln -sf gawk "$r/usr/bin/awk"
	[ -e "$r/usr/bin/sh" ] || ln -s dash "$r/usr/bin/sh"
	# mount points of the guest's init (vm-init.sh)
	mkdir -p "$r"/{proc,sys,dev,tmp,run,root,var/tmp,home}
	[ -x "$r/usr/bin/bash" ] && [ -x "$r/usr/bin/trace-cmd" ] && [ -x "$r/usr/bin/rt-app" ] ||
		die "guest-rootfs: bash, trace-cmd or rt-app missing after unpacking"
	echo "$plan" >"$r/.packages"
	touch "$r/.complete"
	rm -rf "$root"
	mv "$r" "$root"
	rm -rf "$tmp"
	# roots of other package sets, unused for 6 hours (a guest booted on
	# one lasts well under that)
	find "$SCHEDLAB_CACHE" -maxdepth 1 -name "rootfs-$arch-*" ! -name "*.tmp" ! -path "$root" \
		-mmin +360 -exec rm -rf {} + 2>/dev/null || true
fi
echo "$root"
