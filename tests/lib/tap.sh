# TAP helpers for schedlab's shell tests (sourced).
#   ok COND DESC        COND is a shell command; "ok" when it succeeds
#   is GOT WANT DESC    string equality, shows both on failure
#   skip DESC REASON    a test that could not run here (never counted passed)
#   diag TEXT           a comment line
#   done_testing        prints the plan; exit status 0 iff nothing failed
_tap_n=0
_tap_fail=0
echo "TAP version 13"

_tap_result() {	# _tap_result PASS DESC
	_tap_n=$((_tap_n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $_tap_n - $2"
	else
		echo "not ok $_tap_n - $2"
		_tap_fail=$((_tap_fail + 1))
	fi
}
ok() {
	local cond=$1 desc=$2
	if eval "$cond"; then _tap_result 1 "$desc"; else _tap_result 0 "$desc"; diag "failed: $cond"; fi
}
is() {
	if [ "$1" = "$2" ]; then _tap_result 1 "$3"; else _tap_result 0 "$3"; diag "got '$1', want '$2'"; fi
}
skip() {
	_tap_n=$((_tap_n + 1))
	echo "ok $_tap_n - $1 # SKIP $2"
}
diag() { printf '# %s\n' "$@"; }
# tap_lines: turn a C test program's output (tests/lib/tap.h: "ok - ...",
# "not ok - ...", "# ...") on stdin into numbered results; other lines
# become diagnostics.
tap_lines() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) _tap_result 1 "${line#ok - }" ;;
		"not ok - "*) _tap_result 0 "${line#not ok - }" ;;
		"#"*) printf '%s\n' "$line" ;;
		*) diag "$line" ;;
		esac
	done
}
done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_fail" = 0 ]
}
