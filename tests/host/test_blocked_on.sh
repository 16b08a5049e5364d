#!/usr/bin/env bash
# blocked-on chains (module/blocked_on_core.c): builds
# tests/host/test_blocked_on.c with the core, checks the core builds
# freestanding and calls nothing, runs the checks. TAP output; arguments
# ignored.
. "$(dirname "$0")/../lib/host_c.sh"

# the core needs nothing outside itself: sl_bo_ is its own prefix
core_test blocked_on sl_bo_
done_testing
