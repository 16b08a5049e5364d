#!/usr/bin/env bash
# Install what schedlab's build, VM harness and tests need on a Debian 12
# host, from nothing. Idempotent: re-running it only checks.
#
# Adds the suites that carry the kernels the test matrix boots (bookworm
# itself for 6.1, bookworm-backports for 6.12, trixie-backports for 7.x,
# trixie for the gcc-14 build root) pinned at priority 100, so nothing on the
# host is upgraded from them unless asked for by name.
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "setup-host: must run as root" >&2; exit 1; }

list=/etc/apt/sources.list.d/schedlab-kernels.sources
pin=/etc/apt/preferences.d/schedlab-kernels
stamp=/var/lib/schedlab-setup.stamp
want_stamp="v4"

if [ ! -f "$list" ]; then
	cat >"$list" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports trixie trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi
if [ ! -f "$pin" ]; then
	cat >"$pin" <<'PIN'
Package: *
Pin: release n=bookworm-backports
Pin-Priority: 100

Package: *
Pin: release n=trixie
Pin-Priority: 100

Package: *
Pin: release n=trixie-backports
Pin-Priority: 100
PIN
fi

pkgs=(
	build-essential bc bison flex libelf-dev kmod cpio
	dwarves			# pahole: module BTF
	qemu-system-x86 qemu-utils
	qemu-system-arm		# arm64 kernels (vm-smoke.sh)
	busybox-static
	debootstrap
	dkms
	python3
	zstd xz-utils
	trace-cmd libtracecmd-dev libtraceevent-dev libtracefs-dev	# schedlab run: reads trace.dat (the -dev package does not pull its headers' own)
	libsqlite3-dev libjson-c-dev sqlite3	# schedlab export; t92 queries with sqlite3
	gnuplot-nox		# schedlab plot, signals-plot.sh, overutil-run.sh
	rt-app			# overutil workloads (scripts/workloads/)
	bpftrace		# blocked_on's independent observer (scripts/bpftrace/)
	gcc-12-aarch64-linux-gnu binutils-aarch64-linux-gnu	# arm64 kernels: modules cross-built (kernels.sh arm64-*)
	libc6-dev-arm64-cross	# arm64 guests' test programs, static (tests/smoke/)
	device-tree-compiler	# the virtual big.LITTLE (scripts/dt/)
	pkg-config		# the tools cross-built against the arm64 guest root (vm-run.sh)
)

if [ "$(cat "$stamp" 2>/dev/null)" = "$want_stamp" ] && \
   dpkg-query -W -f='${Status}\n' "${pkgs[@]}" 2>/dev/null | grep -vq 'install ok installed' ; then
	:
fi

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

# Always refresh the lists at most once an hour: the kernel matrix resolves
# the newest point release from them.
lists_age=$(( $(date +%s) - $(stat -c %Y /var/lib/apt/lists/partial 2>/dev/null || echo 0) ))
if [ ${#missing[@]} -gt 0 ] || [ "$lists_age" -gt 3600 ] || ! apt-cache policy | grep -q trixie-backports; then
	apt-get update -qq
	touch /var/lib/apt/lists/partial
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup-host: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "$want_stamp" >"$stamp"
echo "setup-host: ok"
