#!/usr/bin/env bash
# The workload tools on the host: rename_loop's output, its -l latency
# percentiles (nearest rank, ordered, the maximum the largest), bad
# arguments.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/lib/tap.sh"
cd "$top"
make -s tools >/dev/null || { _tap_result 0 "make tools"; done_testing; exit; }
RL=build/host/rename_loop
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$($RL -l "$tmp" 0.3 x)
rc=$?
is "$rc" 0 "rename_loop -l exits 0"
val() { awk -v k="$1" '$1 == k {print $2}' <<<"$out"; }
ok "[ \"\$(val renames)\" -gt 10 ]" "it renamed ($(val renames) times in $(val seconds) s)"
ok "awk -v a=$(val lat_us_p50) -v b=$(val lat_us_p99) -v c=$(val lat_us_p999) -v d=$(val lat_us_max) 'BEGIN { exit !(a > 0 && a <= b && b <= c && c <= d) }'" \
	"percentiles ordered: p50 $(val lat_us_p50) <= p99 $(val lat_us_p99) <= p99.9 $(val lat_us_p999) <= max $(val lat_us_max) us"
# (ls of two directories prints their names, which mktemp may have given an x)
is "$(find "$tmp/a" "$tmp/b" -mindepth 1 | wc -l)" 0 "its directory removed at the end"
out=$($RL "$tmp" 0.1 y)
ok "! grep -q lat_us <<<\"\$out\"" "without -l: no latency lines"
$RL -p -1 "$tmp" 1 2>/dev/null; is "$?" 2 "-p -1: exit 2"
$RL -q "$tmp" 1 2>/dev/null; is "$?" 2 "an unknown option: exit 2"
$RL "$tmp" 0 2>/dev/null; is "$?" 2 "SECONDS 0: exit 2"
done_testing
