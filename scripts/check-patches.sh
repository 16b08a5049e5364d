#!/usr/bin/env bash
# check-patches.sh: the companion series (patches/) applies to the
# resolved kernel source one patch at a time, and after every patch the
# objects of the C files it touches compile, with -Werror, configured as
# the lab kernel (defconfig + kvm_guest.config + scripts/kconfig/lab.config)
# and built with the lab kernel's compiler. Headers a patch touches are
# covered by the objects of the same patch that include them.
#
# Prints one TAP line per patch and step ("ok - 0001-x applies", "ok -
# 0001-x compiles: kernel/sched/core.o ..."). A run is a partial kernel
# build (about 3 minutes on 2 cores, mostly `make prepare`), so its report
# is cached like the kernel builds, by a hash of what decides it (the
# source package and version, the patches, the fragment, the compiler,
# this script and kernel-source.sh); a cached report says so.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kernel-source.sh"

CC_MAJOR=14
pkg=$(source_pkg)
ver=$(source_version "$pkg")
mapfile -t series < <(series_patches)
[ ${#series[@]} -gt 0 ] || die "no patches in $SCHEDLAB_TOP/patches"
fragment=$SCHEDLAB_TOP/scripts/kconfig/lab.config
key=$({
	echo "$pkg $ver gcc-$CC_MAJOR"
	cat "${series[@]}" "$fragment" "$0" "$SCHEDLAB_TOP/scripts/kernel-source.sh"
} | sha256sum | cut -c1-16)
dir=$SCHEDLAB_CACHE/patch-check/$key
if [ -f "$dir/report" ]; then
	echo "# cached report of $(cat "$dir/when") for key $key ($pkg $ver)"
	cat "$dir/report"
	exit "$(cat "$dir/rc")"
fi

tarball=$(source_tarball "$pkg")
root=$("$SCHEDLAB_TOP/scripts/buildroot.sh" "$CC_MAJOR")
work=$SCHEDLAB_CACHE/patch-check/work-$$
rm -rf "$dir" "$work"; mkdir -p "$work/src"
trap 'rm -rf "$work"' EXIT
src=$work/src
log "checking ${#series[@]} patches against $pkg $ver (key $key)"
tar -xJf "$tarball" -C "$src" --strip-components=1
cp "$fragment" "$src/arch/x86/configs/"
mk=(make -C "$src" CC="gcc-$CC_MAJOR" HOSTCC="gcc-$CC_MAJOR" -j"$(nproc)")
"$SCHEDLAB_TOP/scripts/buildroot.sh" run "$root" "${mk[@]}" defconfig kvm_guest.config \
	"$(basename "$fragment")" >"$work/log" 2>&1 || { tail -n 20 "$work/log"; die "configuring failed"; }

rc=0
: >"$work/report"
for p in "${series[@]}"; do
	name=$(basename "$p" .patch)
	if patch -d "$src" -p1 --no-backup-if-mismatch -s <"$p" >"$work/patch.out" 2>&1; then
		echo "ok - $name applies" >>"$work/report"
	else
		echo "not ok - $name applies" >>"$work/report"
		sed 's/^/# /' "$work/patch.out" >>"$work/report"
		rc=1; break
	fi
	# the objects of the C files this patch touches
	mapfile -t objs < <(sed -n 's|^+++ b/\(.*\)\.c$|\1.o|p' "$p" | sort -u)
	if [ ${#objs[@]} -eq 0 ]; then
		echo "not ok - $name compiles: it touches no C file to compile" >>"$work/report"
		rc=1; continue
	fi
	if "$SCHEDLAB_TOP/scripts/buildroot.sh" run "$root" "${mk[@]}" KCFLAGS=-Werror "${objs[@]}" \
		>"$work/make.out" 2>&1; then
		echo "ok - $name compiles: ${objs[*]}" >>"$work/report"
	else
		echo "not ok - $name compiles: ${objs[*]}" >>"$work/report"
		grep -E 'error|warning' "$work/make.out" | head -n 20 | sed 's/^/# /' >>"$work/report"
		rc=1
	fi
done
mkdir -p "$dir"
mv "$work/report" "$dir/report"
date -u +%FT%TZ >"$dir/when"
echo "$rc" >"$dir/rc"
cat "$dir/report"
exit "$rc"
