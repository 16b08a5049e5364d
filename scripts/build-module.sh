#!/usr/bin/env bash
# build-module.sh SERIES [OUTDIR]
#
# Build schedlab.ko (and the test-only modules under tests/modules/, if any)
# for the newest stock Debian kernel of SERIES, with the compiler that kernel
# was built with, warnings as errors. The sources are copied to OUTDIR
# (default build/<kver>/) so that several kernels can be built side by side.
# Prints OUTDIR.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

series=${1:?usage: build-module.sh SERIES [OUTDIR]}
kdir_info=$("$SCHEDLAB_TOP/scripts/kernels.sh" fetch "$series")
# shellcheck source=/dev/null
. "$kdir_info/info"
out=${2:-$SCHEDLAB_TOP/build/$KVER}
root=$("$SCHEDLAB_TOP/scripts/buildroot.sh" "$CC_MAJOR" "${ARCH:-}")

mkdir -p "$out"
# A copy of what a module build reads; stale objects of an older copy stay
# (Kbuild rebuilds what changed).
for d in module include tools/btf-layout scripts tests/modules; do
	[ -d "$SCHEDLAB_TOP/$d" ] || continue
	mkdir -p "$out/$d"
	cp -a "$SCHEDLAB_TOP/$d/." "$out/$d/"
done

# Another architecture's kernel (ARCH, CROSS_COMPILE in its info): the
# module is cross-built with Debian's cross gcc of the same version; the
# host tools (btf_layout, kbuild's) stay the host's.
# A native kernel's info sets ARCH and CROSS_COMPILE empty: they leave the
# environment, where an exported empty ARCH would override Kbuild's own.
[ -n "${ARCH:-}" ] || unset ARCH CROSS_COMPILE
cc=${CROSS_COMPILE:-}gcc-$CC_MAJOR
cross=()
[ -z "${ARCH:-}" ] || cross=(ARCH="$ARCH" CROSS_COMPILE="$CROSS_COMPILE")
command -v "$cc" >/dev/null 2>&1 || [ "$root" != host ] || die "$cc not found (scripts/setup-host.sh installs it)"
log "building schedlab for $KVER with $cc ($([ "$root" = host ] && echo host || echo "build root $(basename "$root")"))"
mk=(make -s -C "$out/module" KDIR="$KDIR" BTF="$BTF" "${cross[@]}" CC="$cc" HOSTCC="gcc-$CC_MAJOR")
"$SCHEDLAB_TOP/scripts/buildroot.sh" run "$root" "${mk[@]}" >&2
if [ -f "$out/tests/modules/Makefile" ]; then
	"$SCHEDLAB_TOP/scripts/buildroot.sh" run "$root" \
		make -s -C "$out/tests/modules" KDIR="$KDIR" "${cross[@]}" CC="$cc" >&2
fi
echo "$out"
