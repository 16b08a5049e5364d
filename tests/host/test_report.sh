#!/usr/bin/env bash
# The reporting convention's byte rules (module/report_core.h): the text
# token rule, and the JSON string escaper decoded by Python's json module
# (every byte 0..255 between a quote and a backslash must come back as the
# code point of its value). TAP output; arguments ignored.
. "$(dirname "$0")/../lib/host_c.sh"

host_cc tests/host/test_report "$tmp/test_report" tests/host/test_report.c || { done_testing; exit; }
run_checks test_report "$tmp/test_report"
"$tmp/test_report" json >"$tmp/doc.json"
res=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bad = [i for i, (s, b) in enumerate(zip(d["strings"], d["bytes"])) if [ord(ch) for ch in s] != b]
print(len(d["strings"]), len(bad), bad[:5])' "$tmp/doc.json" 2>&1)
is "$res" "256 0 []" "json: all 256 bytes decode back to themselves through Python's json (strings, mismatches)"
done_testing
