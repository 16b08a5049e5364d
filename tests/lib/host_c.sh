#!/usr/bin/env bash
# Helpers for the host tests (the kernel-agnostic cores' and the
# harness's). Sourced first thing by a tests/host/test_*.sh: strict mode,
# tests/lib/tap.sh, the work directory at the top of the tree, a temporary
# directory $tmp removed at exit.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}

# host_cc DESC OUT SRC... [LIBS]: build a host test with the project's
# flags; one TAP result; returns 1 (after its output) if the build failed.
host_cc() {
	local desc=$1 out=$2 msg
	shift 2
	if msg=$($CC -std=gnu11 -O2 -Wall -Wextra -Werror -Imodule -o "$out" "$@" 2>&1); then
		_tap_result 1 "build $desc"
	else
		_tap_result 0 "build $desc"; diag "$msg"; return 1
	fi
}

# freestanding SRC OBJ [ALLOWED_PREFIX]: kernel-style code builds without
# libc, without floating point (general registers only where the compiler
# has the option), and calls nothing outside itself but ALLOWED_PREFIX*.
freestanding() {
	local src=$1 obj=$2 allow=${3:-} fpflags=()
	if $CC -mgeneral-regs-only -x c -c -o /dev/null /dev/null 2>/dev/null; then
		fpflags=(-mgeneral-regs-only)
	fi
	ok '$CC -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding "${fpflags[@]}" -Imodule -c -o "$obj" "$src"' \
		"$(basename "$src") builds freestanding ${fpflags[*]}"
	is "$(nm -u "$obj" 2>/dev/null | awk '{print $2}' | { if [ -n "$allow" ]; then grep -v "^$allow"; else cat; fi; } | tr '\n' ' ')" "" \
		"$(basename "$obj") calls nothing outside itself${allow:+ but $allow*}"
}

# run_checks NAME PROG ARGS...: run a C test program (tests/lib/tap.h) and
# number its results; it must run to the end (exit 0 or 1).
run_checks() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1); rc=$?
	tap_lines <<<"$out"
	ok '[ $rc = 0 ] || [ $rc = 1 ]' "$name ran to the end (exit $rc)"
}

# core_test NAME ALLOWED_PREFIX [SRC_OR_LIB...]: the usual test of the core
# module/NAME_core.c: tests/host/test_NAME.c built with it (and the extra
# sources and libraries), the core built freestanding (calling nothing but
# ALLOWED_PREFIX*, "" for nothing), the checks run.
core_test() {
	local name=$1 allow=$2
	shift 2
	host_cc "tests/host/test_$name" "$tmp/test_$name" \
		"tests/host/test_$name.c" "module/${name}_core.c" "$@" || return 0
	freestanding "module/${name}_core.c" "$tmp/${name}_core.o" "$allow"
	run_checks "test_$name" "$tmp/test_$name"
}
