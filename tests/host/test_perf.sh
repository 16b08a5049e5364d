#!/usr/bin/env bash
# perf policies (module/perf_core.c): builds tests/host/test_perf.c with the
# core and the PELT core, checks the core builds freestanding, runs the
# checks. TAP output; arguments ignored.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/host_c.sh"

host_cc tests/host/test_perf "$tmp/test_perf" \
	tests/host/test_perf.c module/perf_core.c module/pelt_core.c -lm || { done_testing; exit; }
freestanding module/perf_core.c "$tmp/perf_core.o" sl_pelt_
run_checks test_perf "$tmp/test_perf"
done_testing
