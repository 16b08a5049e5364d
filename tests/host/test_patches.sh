#!/usr/bin/env bash
# The companion kernel series (patches/): a cover letter and patches in
# git format-patch form whose messages say why (a body before the diff)
# and carry a Signed-off-by, numbered without gaps; the series applies to
# the resolved kernel source patch by patch and compiles after every
# patch (scripts/check-patches.sh, cached by a hash of its inputs).
# checkpatch --strict runs in test_checkpatch.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"

mapfile -t series < <(ls patches/[0-9][0-9][0-9][0-9]-*.patch 2>/dev/null | grep -v '/0000-cover-letter\.patch$' | sort)
n=${#series[@]}
ok "[ $n -ge 1 ]" "patches/ holds a series ($n patches)"
cover=patches/0000-cover-letter.patch
ok "[ -f $cover ]" "the series has a cover letter"
ok "! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' $cover" "the cover letter is written (no format-patch placeholders)"
ok "grep -q '^Subject: \[PATCH 0/$n\] ' $cover" "the cover letter says 0/$n"
ok "[ \$(sed -n '/^Subject:/,/^[a-zA-Z0-9 ]* ([0-9]*):\$/p' $cover | grep -c .) -ge 10 ]" \
	"the cover letter explains the series (10 lines or more)"

i=0
for p in "${series[@]}"; do
	i=$((i + 1))
	name=$(basename "$p" .patch)
	ok "[ '${name%%-*}' = '$(printf %04d $i)' ]" "$name: numbered in sequence"
	ok "grep -q '^Subject: \[PATCH $i/$n\] [a-z/_-]*: ' $p" "$name: subject [PATCH $i/$n] with a subsystem prefix"
	# the message body: lines after the Subject header block, before '---'
	body=$(awk 'f==0 && /^$/ {f=1; next} f==1 && /^---$/ {exit} f==1' "$p")
	words=$(grep -v '^Signed-off-by:' <<<"$body" | wc -w)
	ok "[ $words -ge 60 ]" "$name: its message says why ($words words)"
	ok "grep -q '^Signed-off-by: [^<]* <[^@>]*@[^>]*>\$' <<<\"\$body\"" "$name: Signed-off-by"
	ok "grep -q '^diff --git ' $p" "$name: has a diff"
done

out=$(bash scripts/check-patches.sh 2>&1)
rc=$?
tap_lines <<<"$out"
ok "[ $rc = 0 ]" "scripts/check-patches.sh: the series applies and compiles after every patch"
for p in "${series[@]}"; do
	name=$(basename "$p" .patch)
	ok "grep -q '^ok - $name compiles: ' <<<\"\$out\"" "$name: compile result reported"
done
done_testing
