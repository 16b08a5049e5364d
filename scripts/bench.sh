#!/usr/bin/env bash
# bench.sh [SERIES]: what `make bench` runs. In one boot of a stock kernel
# (default: newest 7.x, which has SCHED_GETATTR_FLAG_DL_DYNAMIC), run each
# benchmark with its paths interleaved and print ratios; results go to
# build/bench/results.json. TCG timings are slow and noisy: only the ratios
# measured in one boot mean something.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:-7}
cd "$SCHEDLAB_TOP"
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
res=build/bench/guest
bash scripts/vm-run.sh "$series" "$res" scripts/bench-guest.sh
mkdir -p build/bench
cp "$res/results.json" build/bench/results.json
cat "$res/bench.txt"
echo "results: build/bench/results.json"
