#!/usr/bin/env bash
# eevdf core (module/eevdf_core.c): builds tests/host/test_eevdf.c with the
# core, checks the core builds freestanding and calls nothing, runs the
# checks. TAP output; arguments ignored.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/host_c.sh"

host_cc tests/host/test_eevdf "$tmp/test_eevdf" \
	tests/host/test_eevdf.c module/eevdf_core.c || { done_testing; exit; }
freestanding module/eevdf_core.c "$tmp/eevdf_core.o"
run_checks test_eevdf "$tmp/test_eevdf"
done_testing
