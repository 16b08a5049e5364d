#!/usr/bin/env bash
# buildroot.sh CC_MAJOR [ARCH] print the directory of a build root whose gcc
#                              is gcc-CC_MAJOR (with ARCH, another
#                              architecture: arm64, also Debian's cross
#                              gcc-CC_MAJOR for it), creating it if needed
# buildroot.sh run DIR CMD...  run CMD inside build root DIR, with the work
#                              tree and the cache bind-mounted at their own
#                              paths and /proc mounted (objtool reads it)
#
# Kernels built with the host's gcc need no build root ("host" is printed).
# Newer Debian kernels (trixie, trixie-backports) are built with gcc-14;
# gcc-12 cannot build modules against their headers, so a minimal trixie
# root with gcc-14 is debootstrapped into the cache once. An arm64 7.x
# kernel needs gcc-14-aarch64-linux-gnu beside it, and its kbuild tools
# (the host's architecture, built on trixie) run there too: a root of its
# own, named like the others by its package list.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

suite_for_gcc() {
	case "$1" in
	14) echo trixie ;;
	*) die "no build root known for gcc-$1" ;;
	esac
}

create() {
	local major=$1 arch=${2:-} suite dir cross=
	case "$arch" in
	"" | x86) ;;
	arm64) cross=aarch64-linux-gnu- ;;
	*) die "no cross compiler known for '$arch'" ;;
	esac
	if command -v "${cross}gcc-$major" >/dev/null 2>&1 && command -v "gcc-$major" >/dev/null 2>&1; then
		echo host; return 0
	fi
	suite=$(suite_for_gcc "$major")
	# what module and kernel builds run (python3: libbpf's generated
	# headers; openssl: the kernel's certificate tools); the directory is
	# named by the list, so a changed list makes a new root beside the old
	local pkgs="gcc-$major,gcc,make,libc6-dev,libelf-dev,bc,bison,flex,pahole,kmod,binutils,xz-utils,zstd,python3-minimal,libssl-dev,openssl,cpio,perl"
	[ -z "$cross" ] || pkgs+=",gcc-$major-${cross%-}"
	dir=$SCHEDLAB_CACHE/buildroot-$suite-gcc$major-$(echo "$pkgs" | sha256sum | cut -c1-8)
	if [ -f "$dir/.schedlab-ready" ]; then echo "$dir"; return 0; fi
	log "creating $suite build root with gcc-$major${cross:+ and ${cross}gcc-$major} in $dir"
	rm -rf "$dir"
	debootstrap --variant=minbase \
		--include="$pkgs" \
		"$suite" "$dir" http://deb.debian.org/debian >"$SCHEDLAB_CACHE/debootstrap-$suite.log" 2>&1 ||
		die "debootstrap $suite failed, see $SCHEDLAB_CACHE/debootstrap-$suite.log"
	touch "$dir/.schedlab-ready"
	echo "$dir"
}

run_in() {
	local dir=$1; shift
	if [ "$dir" = host ]; then "$@"; return; fi
	# A private mount namespace: the bind mounts vanish with the command.
	unshare -m -- bash -euc '
		dir=$1; top=$2; cache=$3; shift 3
		for p in "$top" "$cache"; do
			mkdir -p "$dir$p"; mount --bind "$p" "$dir$p"
		done
		mount -t proc proc "$dir/proc"
		exec chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp "$@"
	' run_in "$dir" "$SCHEDLAB_TOP" "$SCHEDLAB_CACHE" "$@"
}

case "${1:-}" in
run)	shift; run_in "$@" ;;
[0-9]*)	# one creator at a time (module and kernel builds may start together)
	mkdir -p "$SCHEDLAB_CACHE"
	exec 9>"$SCHEDLAB_CACHE/.buildroot.lock"
	flock 9
	create "$1" "${2:-}" ;;
*)	echo "usage: $0 CC_MAJOR [ARCH] | run DIR CMD..." >&2; exit 2 ;;
esac
