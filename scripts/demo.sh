#!/usr/bin/env bash
# demo.sh [SERIES]: what `make demo` runs. Boots a stock Debian kernel
# (default 6.12) in QEMU, loads schedlab and tours its experiments with the
# schedlab command (scripts/demo-guest.sh); prints the transcript.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:-$SCHEDLAB_SERIES_DEFAULT}
cd "$SCHEDLAB_TOP"
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
res=build/demo-$series
bash scripts/vm-run.sh "$series" "$res" scripts/demo-guest.sh
cat "$res/demo.txt"
