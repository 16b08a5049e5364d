#!/usr/bin/env bash
# DKMS: dkms add + build of this tree against an installed stock Debian
# headers package (the newest 6.1, installed with apt), then remove.
# TAP output. Needs root (apt, dkms).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
read -r kver _ < <(bash "$top/scripts/kernels.sh" resolve 6.1)
info=$(bash "$top/scripts/kernels.sh" fetch 6.1 2>/dev/null)
diag "dkms $(dkms --version 2>/dev/null | head -n1), schedlab $ver, headers linux-headers-$kver"

ok 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "linux-headers-$kver" >/tmp/dkms-apt.log 2>&1' \
	"apt-get install linux-headers-$kver"
ok '[ -e "/lib/modules/$kver/build/Makefile" ]' "headers installed at /lib/modules/$kver/build"

# The CI host runs another kernel and has no image of this one installed, so
# name the target's BTF (extracted from its image package) explicitly.
export SCHEDLAB_BTF=$info/vmlinux.btf
dkms remove "schedlab/$ver" --all >/dev/null 2>&1
rm -rf "/usr/src/schedlab-$ver"
mkdir -p "/usr/src/schedlab-$ver"
tar -C "$top" --exclude=./build --exclude=./.git --exclude=./module/generated -cf - . | tar -C "/usr/src/schedlab-$ver" -xf -
ok 'dkms add "schedlab/$ver" >/tmp/dkms-add.log 2>&1' "dkms add schedlab/$ver"
if dkms build "schedlab/$ver" -k "$kver" >/tmp/dkms-build.log 2>&1; then
	_tap_result 1 "dkms build schedlab/$ver -k $kver"
else
	_tap_result 0 "dkms build schedlab/$ver -k $kver"
	sed 's/^/# /' /tmp/dkms-build.log | tail -n 30
	sed 's/^/# /' "/var/lib/dkms/schedlab/$ver/build/make.log" 2>/dev/null | tail -n 30
fi
ko=$(find "/var/lib/dkms/schedlab/$ver/$kver" -name 'schedlab.ko*' 2>/dev/null | head -n1)
ok '[ -n "$ko" ]' "dkms produced schedlab.ko ($ko)"
is "$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{print $1}')" "$kver" "its vermagic names $kver"
ok 'dkms status schedlab 2>/dev/null | grep -q "$kver.*built"' "dkms status says built for $kver"
# the README's step for the command, from the same source tree
dest=$(mktemp -d)
ok 'make -C "/usr/src/schedlab-$ver" install DESTDIR="$dest" >/tmp/dkms-cli.log 2>&1' \
	"make -C /usr/src/schedlab-$ver install (the schedlab command, DESTDIR=$dest)"
ok '[ -f "$dest/usr/local/share/man/man1/schedlab.1" ] && [ -f "$dest/usr/local/share/bash-completion/completions/schedlab" ]' \
	"the man page and the bash completion installed"
ok '"$dest/usr/local/bin/schedlab" help | grep -q "^usage: schedlab"' "the installed schedlab runs (help)"
rm -rf "$dest"
ok 'dkms remove "schedlab/$ver" --all >/dev/null 2>&1' "dkms remove"
rm -rf "/usr/src/schedlab-$ver"
done_testing
