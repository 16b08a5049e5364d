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
CC=${CC:-cc}

if ! out=$($CC -std=gnu11 -O2 -Wall -Wextra -Werror -Imodule -o "$tmp/test_signals" \
	tests/host/test_signals.c module/signals_core.c module/pelt_core.c -lm 2>&1); then
	_tap_result 0 "build tests/host/test_signals"; diag "$out"; done_testing; exit
fi
_tap_result 1 "build tests/host/test_signals"
fpflags=()
if $CC -mgeneral-regs-only -x c -c -o /dev/null /dev/null 2>/dev/null; then
	fpflags=(-mgeneral-regs-only)
fi
ok '$CC -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding "${fpflags[@]}" -Imodule -c -o "$tmp/sc.o" module/signals_core.c' \
	"signals_core.c builds freestanding ${fpflags[*]}"
is "$(nm -u "$tmp/sc.o" 2>/dev/null | awk '{print $2}' | grep -v '^sl_pelt_' | tr '\n' ' ')" "" \
	"signals_core.o calls nothing but the PELT core"

"$tmp/test_signals" >"$tmp/out" 2>&1
rc=$?
while IFS= read -r line; do
	case $line in
	"ok - "*) _tap_result 1 "${line#ok - }" ;;
	"not ok - "*) _tap_result 0 "${line#not ok - }" ;;
	*) diag "${line#\# }" ;;
	esac
done <"$tmp/out"
ok '[ $rc = 0 ] || [ $rc = 1 ]' "test_signals ran to the end (exit $rc)"
done_testing
