#!/usr/bin/env bash
# overutilized rules (module/overutil_core.c): builds tests/host/test_overutil.c
# with the core and the PELT core, checks the core builds freestanding, runs
# the checks. TAP output; arguments ignored.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/host_c.sh"

host_cc tests/host/test_overutil "$tmp/test_overutil" \
	tests/host/test_overutil.c module/overutil_core.c module/pelt_core.c || { done_testing; exit; }
freestanding module/overutil_core.c "$tmp/overutil_core.o" sl_pelt_
run_checks test_overutil "$tmp/test_overutil"
done_testing
