#!/usr/bin/env bash
# PELT core (module/pelt_core.c) and the pelt CLI (tools/pelt): builds both
# into a temp dir, runs tests/host/test_pelt.c (the core and the CLI's
# margin tables against the response-time RFC's published table and a
# floating-point reference) and checks the CLI's
# other commands and its argument errors. TAP output; arguments ignored.
. "$(dirname "$0")/../lib/host_c.sh"

# the CLI with its documented build line, the test as gnu11 with libm
if ! out=$($CC -O2 -Wall -Wextra -Werror -Imodule -o "$tmp/pelt" tools/pelt/pelt.c module/pelt_core.c 2>&1); then
	_tap_result 0 "build tools/pelt/pelt"; diag "$out"; done_testing; exit
fi
_tap_result 1 "build tools/pelt/pelt"
host_cc tests/host/test_pelt "$tmp/test_pelt" tests/host/test_pelt.c module/pelt_core.c -lm ||
	{ done_testing; exit; }
freestanding module/pelt_core.c "$tmp/pelt_core.o"
# the C tests against a floating-point reference
run_checks test_pelt "$tmp/test_pelt" "$tmp/pelt"

# rampup and util-after against the closed forms (period 2^20 ns)
p=$tmp/pelt
near() {	# near GOT WANT TOL
	awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= t) }'
}
ramp_ref() {	# ms from 0 to util $1: 32 * log2(1024 / (1024 - u)) periods
	awk -v u="$1" 'BEGIN { printf "%.3f", 32 * log(1024 / (1024 - u)) / log(2) * 1.048576 }'
}
after_ref() {	# util from $1 after $2 ms
	awk -v u="$1" -v ms="$2" 'BEGIN { printf "%.3f", 1024 - (1024 - u) * 0.5 ^ (ms / 1.048576 / 32) }'
}
for u in 100 512 900; do
	got=$("$p" rampup $u) want=$(ramp_ref $u)
	ok 'near "$got" "$want" 1.1' "pelt rampup $u: $got ms, closed form $want (within a period)"
done
ok '[[ "$("$p" rampup 512)" =~ ^[0-9]+\.[0-9]$ ]]' "pelt rampup prints ms with one decimal"
is "$("$p" rampup 0)" "0.0" "pelt rampup 0"
for args in "0 10" "0 33.5" "300 4" "700 1" "1000 20"; do
	set -- $args
	got=$("$p" util-after "$1" "$2") want=$(after_ref "$1" "$2")
	ok 'near "$got" "$want" 2' "pelt util-after $1 $2: $got, closed form $want (within 2)"
done
is "$("$p" util-after 345 0)" "345" "pelt util-after with 0 ms keeps util"
ok '"$p" --help | grep -q "^usage: pelt"' "pelt --help: usage, exit 0"

# bad input: message on stderr, exit 2
bad() {	# bad DESC ARGS...
	local desc=$1 err rc
	shift
	err=$("$p" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 2 ] && [ -n "$err" ]; then _tap_result 1 "bad input exits 2: $desc"
	else _tap_result 0 "bad input exits 2: $desc"; diag "pelt $* -> exit $rc, stderr '$err'"; fi
}
bad "no command"
bad "unknown subcommand" frobnicate
bad "rampup without UTIL" rampup
bad "rampup non-number" rampup abc
bad "rampup trailing junk" rampup 12x
bad "rampup negative" rampup -5
bad "rampup util > 1024" rampup 1025
bad "rampup extra argument" rampup 10 20
bad "util-after non-number ms" util-after 100 soon
bad "util-after negative ms" util-after 100 -1
bad "util-after util > 1024" util-after 2000 4
bad "util-after missing ms" util-after 100
bad "margin --tick-ms negative" margin --tick-ms -4
bad "margin --tick-ms non-number" margin --tick-ms fast
bad "margin --tick-ms without value" margin --tick-ms
bad "margin --cap negative" margin --cap -16
bad "margin --cap > 1024" margin --cap 2048
bad "margin --cap non-number" margin --cap big
bad "margin unknown option" margin --hz 250
bad "margin --rfc-caps with a value" margin --rfc-caps=1
bad "margin --tick-ms too long" margin --tick-ms 1001

done_testing
