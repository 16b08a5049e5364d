#!/usr/bin/env bash
# eevdf core (module/eevdf_core.c): builds tests/host/test_eevdf.c with the
# core, checks the core builds freestanding and calls nothing, runs the
# checks. TAP output; arguments ignored.
. "$(dirname "$0")/../lib/host_c.sh"

core_test eevdf ""
done_testing
