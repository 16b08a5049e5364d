#!/usr/bin/env bash
# build-kernel.sh SERIES   build (once) the kernel of a built series and
#                          print its directory, laid out like a fetched
#                          stock kernel's (see kernels.sh): info, root/,
#                          vmlinux.btf
# build-kernel.sh key SERIES   print the cache key only
#
# SERIES:
#   lab        Debian's newest linux-source-7.x (the source of the stock 7.x
#              kernel the suite boots) + the series in patches/ (git
#              format-patch files, applied in name order; the cover letter
#              has no diff), configured as x86_64 defconfig +
#              kvm_guest.config + scripts/kconfig/lab.config
#   lab-debug  the same + scripts/kconfig/debug.config (KASAN, lockdep, ...)
#
# Built with the compiler of Debian's 7.x kernels (gcc-14, in the trixie
# build root) and cached under $SCHEDLAB_CACHE/built-kernels/ by a hash of
# what decides the result: the source package and its version, the
# patches, the fragments, this script and kernel-source.sh. A cold build takes about 30
# minutes on 2 cores (lab-debug longer); nothing is rebuilt while the key
# stays the same. The build tree is the KDIR modules are built against.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kernel-source.sh"

CC_MAJOR=14

fragments() {	# fragments SERIES: the config fragments, in merge order
	case "$1" in
	lab)		echo "$SCHEDLAB_TOP/scripts/kconfig/lab.config" ;;
	lab-debug)	echo "$SCHEDLAB_TOP/scripts/kconfig/lab.config $SCHEDLAB_TOP/scripts/kconfig/debug.config" ;;
	*)		die "unknown built kernel series '$1' (known: lab lab-debug)" ;;
	esac
}

key() {
	local series=$1 pkg ver
	pkg=$(source_pkg)
	ver=$(source_version "$pkg")
	{
		echo "$series $pkg $ver gcc-$CC_MAJOR"
		# shellcheck disable=SC2046
		cat $(fragments "$series") $(series_patches) "$SCHEDLAB_TOP/scripts/build-kernel.sh" \
			"$SCHEDLAB_TOP/scripts/kernel-source.sh"
	} | sha256sum | cut -c1-16
}

build() {
	local series=$1 k dir pkg tarball src root kver f
	k=$(key "$series")
	dir=$SCHEDLAB_CACHE/built-kernels/$series-$k
	if [ -f "$dir/info" ]; then echo "$dir"; return 0; fi
	pkg=$(source_pkg)
	tarball=$(source_tarball "$pkg")
	root=$("$SCHEDLAB_TOP/scripts/buildroot.sh" "$CC_MAJOR")
	log "building the $series kernel from $pkg into $dir (key $k)"
	rm -rf "$dir"; mkdir -p "$dir"
	src=$dir/src
	mkdir -p "$src"
	tar -xJf "$tarball" -C "$src" --strip-components=1
	for f in $(series_patches); do
		log "applying $(basename "$f")"
		patch -d "$src" -p1 --no-backup-if-mismatch -s <"$f" || die "$(basename "$f") does not apply"
	done
	# shellcheck disable=SC2046
	cp $(fragments "$series") "$src/arch/x86/configs/" 2>/dev/null || true
	local frag_names=""
	for f in $(fragments "$series"); do frag_names+=" $(basename "$f")"; done
	local mk=(make -C "$src" CC="gcc-$CC_MAJOR" HOSTCC="gcc-$CC_MAJOR" -j"$(nproc)")
	"$SCHEDLAB_TOP/scripts/buildroot.sh" run "$root" "${mk[@]}" defconfig kvm_guest.config $frag_names \
		>"$dir/build.log" 2>&1 || die "configuring failed: $dir/build.log"
	# every fragment line must have taken (a missing dependency drops one silently)
	local missing=0 line name
	while read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		name=${line%%=*}
		if [ "${line#*=}" = n ]; then
			grep -q "^$name=" "$src/.config" && { log "not off: $line"; missing=1; }
		else
			grep -qx "$line" "$src/.config" || { log "not taken: $line ($(grep "^$name=" "$src/.config" || echo unset))"; missing=1; }
		fi
	done < <(cat $(fragments "$series") | grep -v '^#' | awk -F= '{v[$1] = $0} END {for (k in v) print v[k]}')
	[ "$missing" = 0 ] || die "the $series config lacks fragment lines (above)"
	"$SCHEDLAB_TOP/scripts/buildroot.sh" run "$root" "${mk[@]}" bzImage modules \
		>>"$dir/build.log" 2>&1 || die "build failed: tail $dir/build.log"
	mkdir -p "$dir/root"
	"$SCHEDLAB_TOP/scripts/buildroot.sh" run "$root" "${mk[@]}" INSTALL_MOD_PATH="$dir/root" \
		INSTALL_MOD_STRIP=1 modules_install >>"$dir/build.log" 2>&1 || die "modules_install failed"
	kver=$(cat "$src/include/config/kernel.release")
	"$SCHEDLAB_TOP/scripts/extract-btf.sh" "$src/vmlinux" "$dir/vmlinux.btf"
	cat >"$dir/info.tmp" <<INFO
KVER='$kver'
PKG='$pkg+schedlab-$series'
PKGVER='$k'
SERIES='$series'
KDIR='$src'
VMLINUZ='$src/arch/x86/boot/bzImage'
BTF='$dir/vmlinux.btf'
CC_MAJOR='$CC_MAJOR'
INFO
	mv "$dir/info.tmp" "$dir/info"
	log "built $kver"
	echo "$dir"
}

case "${1:-}" in
key)	key "${2:?series}" ;;
lab|lab-debug) build "$1" ;;
*)	echo "usage: $0 lab|lab-debug | key SERIES" >&2; exit 2 ;;
esac
