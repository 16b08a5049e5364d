#!/usr/bin/env bash
# get-checkpatch.sh: print the path of the kernel's scripts/checkpatch.pl,
# taken once from Debian's newest linux-source-7.x package into the cache
# (only checkpatch.pl and the data files it reads are unpacked).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/kernel-source.sh"

pkg=$(source_pkg)
dir=$SCHEDLAB_CACHE/checkpatch/$pkg
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	log "unpacking checkpatch.pl from $pkg"
	rm -rf "$dir"; mkdir -p "$dir"
	tar -xJf "$(source_tarball "$pkg")" -C "$dir" --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi
echo "$dir/scripts/checkpatch.pl"
