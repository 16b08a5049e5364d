#!/usr/bin/env bash
# Runs every in-guest test (tests/guest/t*.sh) in order; each prints TAP.
# Output goes to stdout and to $SCHEDLAB_RESULTS/tap.txt.
set -u
cd "$(dirname "$0")"
out=${SCHEDLAB_RESULTS:-/tmp}/tap.txt
: >"$out"
echo "# guest: $(uname -r) ($(uname -v))" | tee -a "$out"
rc=0
export SCHEDLAB_KCONFIG=${1:-}
for t in ${2:-t*.sh}; do
	echo "# --- $t" | tee -a "$out"
	# To a file, not a pipe: a process a failed test leaves behind must
	# not keep the runner waiting for end-of-file.
	start=$(date +%s)
	log=${SCHEDLAB_RESULTS:-/tmp}/$t.log	# readable from the host while it runs
	timeout 600 bash "$t" >"$log" 2>&1 || rc=1
	tee -a "$out" <"$log"
	echo "# $t took $(( $(date +%s) - start )) s" | tee -a "$out"
done
lsmod | grep -q '^schedlab ' && rmmod schedlab
exit $rc
