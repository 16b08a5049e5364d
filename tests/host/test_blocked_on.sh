#!/usr/bin/env bash
# blocked-on chains (module/blocked_on_core.c): builds
# tests/host/test_blocked_on.c with the core, checks the core builds
# freestanding and calls nothing, runs the checks. TAP output; arguments
# ignored.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/lib/host_c.sh"

host_cc tests/host/test_blocked_on "$tmp/test_blocked_on" \
	tests/host/test_blocked_on.c module/blocked_on_core.c || { done_testing; exit; }
# the core needs nothing outside itself: sl_bo_ is its own prefix
freestanding module/blocked_on_core.c "$tmp/blocked_on_core.o" sl_bo_
run_checks test_blocked_on "$tmp/test_blocked_on"
done_testing
