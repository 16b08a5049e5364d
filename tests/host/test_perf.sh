#!/usr/bin/env bash
# perf policies (module/perf_core.c): builds tests/host/test_perf.c with the
# core and the PELT core, checks the core builds freestanding, runs the
# checks. TAP output; arguments ignored.
. "$(dirname "$0")/../lib/host_c.sh"

core_test perf sl_pelt_ module/pelt_core.c -lm
done_testing
