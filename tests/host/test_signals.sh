#!/usr/bin/env bash
# signals core (module/signals_core.c): builds tests/host/test_signals.c with
# the core and the PELT core, checks the core builds freestanding, runs the
# checks. TAP output; arguments ignored.
. "$(dirname "$0")/../lib/host_c.sh"

core_test signals sl_pelt_ module/pelt_core.c -lm
done_testing
