#!/usr/bin/env bash
# check.sh [SERIES...]: the whole test suite (what `make check` runs).
#
#  1. host: set-up (apt), host tools, host unit tests (TAP);
#  2. DKMS: dkms add/build of this tree against an installed headers package;
#  3. per kernel series (default: 6.1 6.12 7): resolve and fetch the newest
#     stock Debian kernel, build the module with its compiler, boot it in
#     QEMU and run tests/guest/ inside it.
# Prints every TAP stream, a summary per section, and last the line
# "N passed, M failed" (skips are counted apart, never as passed).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$SCHEDLAB_TOP"

series=("$@")
[ ${#series[@]} -gt 0 ] || read -r -a series <<<"$SCHEDLAB_SERIES_ALL"
out=build/check
rm -rf "$out"; mkdir -p "$out"

total_pass=0 total_fail=0 total_skip=0
summary=()

# count FILE NAME: tally a TAP stream
count() {
	local f=$1 name=$2 p s fl
	p=$(grep -Ec '^ok [0-9]+' "$f" || true)
	s=$(grep -Ec '^ok [0-9]+ .*# SKIP' "$f" || true)
	fl=$(grep -Ec '^not ok [0-9]+' "$f" || true)
	p=$((p - s))
	total_pass=$((total_pass + p)); total_fail=$((total_fail + fl)); total_skip=$((total_skip + s))
	summary+=("$(printf '%-58s %4d passed, %d failed, %d skipped' "$name" "$p" "$fl" "$s")")
}
# fail NAME WHY: a section that could not run counts as one failure
fail() {
	total_fail=$((total_fail + 1))
	summary+=("$(printf '%-58s FAILED: %s' "$1" "$2")")
	echo "not ok - $1: $2"
}

t0=$(date +%s)
echo "=== host set-up"
bash scripts/setup-host.sh || { fail "host set-up" "scripts/setup-host.sh failed"; }
make -s tools || fail "host tools" "make tools failed"

echo "=== host unit tests"
for t in tests/host/test_*.sh; do
	name=$(basename "$t" .sh)
	bash "$t" "$SCHEDLAB_TOP/build/host/btf_layout" 2>&1 | tee "$out/$name.tap"
	count "$out/$name.tap" "host: $name"
done

for s in "${series[@]}"; do
	read -r kver pkgver < <(bash scripts/kernels.sh resolve "$s") || { fail "kernel $s" "cannot resolve"; continue; }
	name="guest: linux-image-$kver $pkgver"
	echo "=== $name"
	if ! bdir=$(bash scripts/build-module.sh "$s"); then
		fail "$name" "module build failed"; continue
	fi
	info=$(bash scripts/kernels.sh fetch "$s")
	# shellcheck source=/dev/null
	. "$info/info"
	SCHEDLAB_KO_DIR=$bdir
	res=$out/guest-$s
	SCHEDLAB_VM_TIMEOUT=${SCHEDLAB_VM_TIMEOUT:-1500} \
	bash scripts/vm-run.sh "$s" "$res" tests/guest/run.sh "$KDIR/.config"
	rc=$?
	[ -f "$res/tap.txt" ] && cat "$res/tap.txt"
	if [ -f "$res/tap.txt" ]; then count "$res/tap.txt" "$name"; fi
	case $rc in
	0) ;;
	124) fail "$name" "kernel splat in dmesg (see above)" ;;
	125) fail "$name" "guest did not finish" ;;
	*) [ -f "$res/tap.txt" ] || fail "$name" "guest tests exited $rc" ;;
	esac
done

echo
echo "=== summary ($(( $(date +%s) - t0 )) s)"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
