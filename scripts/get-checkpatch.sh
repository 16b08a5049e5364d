#!/usr/bin/env bash
# get-checkpatch.sh: print the path of the kernel's scripts/checkpatch.pl,
# taken once from Debian's newest linux-source-7.x package into the cache
# (only checkpatch.pl and the data files it reads are unpacked).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pkg=$(apt-cache search --names-only '^linux-source-7\.[0-9]+$' | awk '{print $1}' | sort -V | tail -n1)
[ -n "$pkg" ] || die "no linux-source-7.x package in the apt lists"
dir=$SCHEDLAB_CACHE/checkpatch/$pkg
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	log "unpacking checkpatch.pl from $pkg"
	rm -rf "$dir"; mkdir -p "$dir/deb"
	chown _apt "$dir/deb" 2>/dev/null || true
	(cd "$dir/deb" && apt-get download -q "$pkg" >/dev/null)
	dpkg-deb --fsys-tarfile "$dir"/deb/*.deb | tar -x -C "$dir/deb" --wildcards './usr/src/linux-source-*.tar.xz'
	tar -xJf "$dir"/deb/usr/src/linux-source-*.tar.xz -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	rm -rf "$dir/deb"
fi
echo "$dir/scripts/checkpatch.pl"
