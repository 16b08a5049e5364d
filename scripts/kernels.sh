#!/usr/bin/env bash
# kernels.sh resolve SERIES   print "KVER PKGVERSION" of the newest stock
#                             Debian kernel of that series
# kernels.sh fetch SERIES     download and unpack it (image + headers) into
#                             the cache, extract its BTF; print the directory
# kernels.sh boot-args SERIES the kernel arguments the series boots with in
#                             the harness (vm-run.sh), besides the common ones
#
# SERIES: 6.1 (bookworm), 6.12 (bookworm-backports), 7 (newest 7.x from
# trixie-backports). Point releases come and go, so the newest one the
# archive has today is resolved every time. lab and lab-debug are built
# here from Debian's 7.x source (scripts/build-kernel.sh), cached.
# arm64-6.12, arm64-7: Debian's arm64 kernels of the 6.12 line and the
# newest 7.x (trixie-backports, as 7), from the arm64
# package lists (scripts/apt-foreign.sh; nothing of arm64 is installed on
# the host): its image and headers, with the host's (amd64) kbuild tools
# beside them, so that modules are cross-built with Debian's
# aarch64-linux-gnu-gcc-N (the headers name it).
#
# The fetched directory holds:
#   info          shell variables: KVER PKG PKGVER SUITE KDIR VMLINUZ BTF CC_MAJOR
#                 ARCH CROSS_COMPILE (empty for the host's architecture)
#   root/         every package unpacked (dpkg-deb -x), relative symlinks intact
#   vmlinux.btf   the kernel's raw BTF
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The kernel architecture of a series: arm64-* are arm64, the rest the
# host's (x86).
series_arch() { case "$1" in arm64-*) echo arm64 ;; *) echo x86 ;; esac; }
# apt-cache / apt-get for the series' architecture (ARCH set by the caller)
acache() { if [ "$ARCH" = x86 ]; then apt-cache "$@"; else "$SCHEDLAB_TOP/scripts/apt-foreign.sh" "$ARCH" apt-cache "$@"; fi; }
aget() { if [ "$ARCH" = x86 ]; then apt-get "$@"; else "$SCHEDLAB_TOP/scripts/apt-foreign.sh" "$ARCH" apt-get "$@"; fi; }

newest_image() {	# newest_image REGEX: newest linux-image-* whose headers exist too
	local p kver
	for p in $(acache search --names-only "$1" | awk '{print $1}' | sort -rV); do
		kver=${p#linux-image-}
		if acache show "linux-headers-$kver" >/dev/null 2>&1; then
			echo "$kver"; return 0
		fi
	done
	return 1
}

# lab, lab-debug: kernels built here (scripts/build-kernel.sh); their
# "package version" is the build's cache key
built_series() { case "$1" in lab|lab-debug) return 0 ;; esac; return 1; }

# The lab kernels boot with the series' sched_overutilized_track: their
# root domain's overutilized flag is maintained (and sched_overutilized_tp
# fires) without EAS, where it gates nothing (patches/ 0003), so that
# overutil can compare the kernel's own flag with its rules.
#
# The debug kernel also boots with slub_debug=-: its configuration takes
# the kernel's own kernel/configs/debug.config beside ours (make's
# debug.config target merges every fragment of that name), whose
# SLUB_DEBUG_ON poisons, red-zones and checks every slab object and
# records a stack trace at each allocation and free, all of which KASAN
# and kmemleak already do for the same objects. Off, a system call costs
# about 30% less there (200 opens and reads of a sysfs file under TCG:
# 3.3 s against 4.7 s), and the reliability suite runs that much faster.
# Everything else that file brings (DEBUG_OBJECTS_FREE, PROVE_RCU_LIST,
# DEBUG_VM, ...) stays on.
boot_args() {
	local a=()
	if built_series "$1"; then a+=(sched_overutilized_track); fi
	if [ "$1" = lab-debug ]; then a+=("slub_debug=-"); fi
	echo "${a[*]}"
}

resolve() {
	local series=$1 kver dir
	if built_series "$series"; then
		dir=$("$SCHEDLAB_TOP/scripts/build-kernel.sh" "$series") || die "the $series kernel did not build"
		# shellcheck source=/dev/null
		(. "$dir/info"; echo "$KVER $PKGVER")
		return
	fi
	case "$series" in
	6.1)	kver=$(newest_image '^linux-image-6\.1\.0-[0-9]+-amd64$') ;;
	6.12)	kver=$(newest_image '^linux-image-6\.12\.[0-9]+\+deb12-amd64$') ;;
	7)	kver=$(newest_image '^linux-image-7\.[0-9]+\.[0-9]+\+deb13-amd64$') ;;
	arm64-6.12) kver=$(newest_image '^linux-image-6\.12\.[0-9]+\+deb12-arm64$') ;;
	arm64-7) kver=$(newest_image '^linux-image-7\.[0-9]+\.[0-9]+\+deb13-arm64$') ;;
	*)	die "unknown kernel series '$series' (known: $SCHEDLAB_SERIES_ALL)" ;;
	esac || die "no kernel of series $series in the apt lists (run scripts/setup-host.sh)"
	echo "$kver $(pkgver "linux-image-$kver")"
}

pkgver() { acache show --no-all-versions "$1" | awk '/^Version:/ {print $2; exit}'; }

# The packages that make up image + headers: the image (and, for 7.x where the
# image is a meta package, the linux-binary package that holds vmlinuz and,
# on arm64, linux-modules with the modules), the
# headers and what they depend on among linux-headers-* / linux-kbuild-*.
# The kbuild tools run on the host: for another architecture they are the
# host's package of the same name (packages_host).
packages_for() {
	local kver=$1
	echo "linux-image-$kver"
	# 7.x on arm64: the modules are a package of their own too (the
	# big.LITTLE loads cpufreq-dt.ko; the guests mount them)
	acache depends "linux-image-$kver" | awk -v mods="$([ "$ARCH" = x86 ] || echo modules)" \
		'/Depends: linux-binary-/ || (mods != "" && /Depends: linux-modules-/) {print $2}'
	echo "linux-headers-$kver"
	acache depends "linux-headers-$kver" | awk -v kb="$([ "$ARCH" = x86 ] && echo kbuild)" \
		'$1 ~ /Depends:/ && ($2 ~ /^linux-headers-/ || (kb != "" && $2 ~ /^linux-kbuild-/)) {print $2}'
}
packages_host() {
	local kver=$1
	[ "$ARCH" = x86 ] && return 0
	acache depends "linux-headers-$kver" | awk '$1 ~ /Depends:/ && $2 ~ /^linux-kbuild-/ {print $2}'
}

fetch() {
	local series=$1 kver ver dir pkgs p
	if built_series "$series"; then
		"$SCHEDLAB_TOP/scripts/build-kernel.sh" "$series"
		return
	fi
	read -r kver ver < <(resolve "$series")
	dir=$SCHEDLAB_CACHE/kernels/$kver-$ver
	if [ -f "$dir/info" ]; then echo "$dir"; return 0; fi
	log "fetching Debian kernel $kver ($ver)"
	rm -rf "$dir"; mkdir -p "$dir/debs" "$dir/root"
	mapfile -t pkgs < <(packages_for "$kver" | sort -u)
	# apt-get download drops privileges to _apt; let it write here.
	chown _apt "$dir/debs" 2>/dev/null || true
	(cd "$dir/debs" && aget download -q "${pkgs[@]}" >/dev/null)
	mapfile -t pkgs < <(packages_host "$kver" | sort -u)
	[ ${#pkgs[@]} -eq 0 ] || (cd "$dir/debs" && apt-get download -q "${pkgs[@]}" >/dev/null)
	for p in "$dir"/debs/*.deb; do dpkg-deb -x "$p" "$dir/root"; done

	local kdir=$dir/root/usr/src/linux-headers-$kver vmlinuz
	[ -f "$kdir/Makefile" ] || die "headers for $kver not found under $kdir"
	# The headers' top Makefile names its siblings by absolute path
	# (/usr/src/...): point it at the unpacked copy instead.
	sed -i "s|/usr/src/|$dir/root/usr/src/|g" "$kdir/Makefile"
	vmlinuz=
	for p in "$dir/root/boot/vmlinuz-$kver" "$dir/root/usr/lib/modules/$kver/vmlinuz"; do
		[ -f "$p" ] && { vmlinuz=$p; break; }
	done
	[ -n "$vmlinuz" ] || die "no vmlinuz in the packages of $kver"
	if [ -f "$kdir/vmlinux" ]; then
		"$SCHEDLAB_TOP/scripts/extract-btf.sh" "$kdir/vmlinux" "$dir/vmlinux.btf"
	else
		"$SCHEDLAB_TOP/scripts/extract-btf.sh" "$vmlinuz" "$dir/vmlinux.btf"
	fi
	# The compiler the kernel was built with (module builds need the same).
	local cc_major cross=
	cc_major=$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9][0-9][0-9][0-9]$/\1/p' "$kdir/.config")
	[ -n "$cc_major" ] || die "cannot tell which gcc built $kver"
	if [ "$ARCH" != x86 ]; then
		# the headers name the cross compiler (Debian's .kernelvariables)
		cross=$(sed -n 's/^override CROSS_COMPILE *= *//p' "$kdir/.kernelvariables" 2>/dev/null)
		[ -n "$cross" ] || die "the $ARCH headers of $kver do not say their cross compiler (.kernelvariables)"
	fi
	rm -rf "$dir/debs"
	cat >"$dir/info.tmp" <<INFO
KVER='$kver'
PKG='linux-image-$kver'
PKGVER='$ver'
SERIES='$series'
KDIR='$kdir'
VMLINUZ='$vmlinuz'
BTF='$dir/vmlinux.btf'
CC_MAJOR='$cc_major'
ARCH='$([ "$ARCH" = x86 ] || echo "$ARCH")'
CROSS_COMPILE='$cross'
INFO
	mv "$dir/info.tmp" "$dir/info"
	echo "$dir"
}

ARCH=$(series_arch "${2:-}")
case "${1:-}" in
resolve) resolve "${2:?series}" ;;
fetch)	 fetch "${2:?series}" ;;
boot-args) boot_args "${2:?series}" ;;
*)	 echo "usage: $0 resolve|fetch|boot-args SERIES" >&2; exit 2 ;;
esac
