#!/usr/bin/env bash
# overutilized rules (module/overutil_core.c): builds tests/host/test_overutil.c
# with the core and the PELT core, checks the core builds freestanding, runs
# the checks. TAP output; arguments ignored.
. "$(dirname "$0")/../lib/host_c.sh"

core_test overutil sl_pelt_ module/pelt_core.c
done_testing
