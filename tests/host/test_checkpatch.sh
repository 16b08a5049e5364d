#!/usr/bin/env bash
# Kernel code is checkpatch-clean: module/ and tests/modules/ sources with
# checkpatch.pl --no-tree -f, and every patch of the companion series in
# patches/ with --strict. One TAP line per file.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"

cp=$(bash scripts/get-checkpatch.sh) || { _tap_result 0 "get checkpatch.pl"; done_testing; exit; }
diag "checkpatch: $cp"
# The tree is not a kernel tree: no git-based or MAINTAINERS checks.
# ALLOC_WITH_SIZEOF asks for kzalloc_obj(), which the 6.x kernels schedlab
# supports do not have.
opts=(--no-tree --terse --show-types --ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,ALLOC_WITH_SIZEOF)
# checkpatch exits non-zero on any error or warning (and check, with --strict)
files=$(ls module/*.[ch] tests/modules/*.[ch] 2>/dev/null)
for f in $files; do
	if out=$(perl "$cp" "${opts[@]}" -f "$f" 2>&1); then _tap_result 1 "checkpatch $f"; else _tap_result 0 "checkpatch $f"; diag "$out"; fi
done
# A patch is read from stdin: checkpatch takes a file that git tracks for a
# source file (-f), whatever its name. The cover letter has no diff
# (test_patches checks it).
for p in patches/*.patch; do
	[ -e "$p" ] || continue
	case $p in */0000-cover-letter.patch) continue ;; esac
	if out=$(perl "$cp" --strict --terse --no-tree - <"$p" 2>&1); then _tap_result 1 "checkpatch --strict $p"; else _tap_result 0 "checkpatch --strict $p"; diag "$out"; fi
done
done_testing
