#!/usr/bin/env bash
# signals core (module/signals_core.c): builds tests/host/test_signals.c with
# the core and the PELT core, checks the core builds freestanding, runs the
# checks. TAP output; arguments ignored.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/host_c.sh"

host_cc tests/host/test_signals "$tmp/test_signals" \
	tests/host/test_signals.c module/signals_core.c module/pelt_core.c -lm || { done_testing; exit; }
freestanding module/signals_core.c "$tmp/signals_core.o" sl_pelt_
run_checks test_signals "$tmp/test_signals"
done_testing
