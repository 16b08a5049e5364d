#!/usr/bin/env bash
# signals-plot.sh [SERIES] [OUT.png]: the reference workload for the signals
# feature. Boots a stock kernel (default 6.12) in QEMU, runs
# scripts/signals-guest.sh there (a 20% duty task on CPU 1, joined for
# 1.5 s by a nice 0 and a nice 10 busy task; schedlab:signals_task events
# recorded by schedlab run every 10 ms; see docs/signals.md), then draws
# each task's signals over time with schedlab plot (gnuplot; every plot of
# the run in build/signals/plots). Default output: build/signals/signals.png
# (plots/signals_task.png); the image in docs/ was made with
#   bash scripts/signals-plot.sh 6.12 docs/img/signals-reference.png
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:-$SCHEDLAB_SERIES_DEFAULT}
cd "$SCHEDLAB_TOP"
out=${2:-build/signals/signals.png}
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
res=build/signals/guest-$series
bash scripts/vm-run.sh "$series" "$res" scripts/signals-guest.sh
mkdir -p "$(dirname "$out")"
# the run directory recorded in the guest, drawn by schedlab plot: a panel
# per task (pid) in signals_task.png; signals_task.dat is what it drew
rm -rf build/signals/plots
build/host/schedlab plot "$res/run" -f signals -o build/signals/plots
cp build/signals/plots/signals_task.png "$out"
cat "$res/summary.txt"
echo "plot: $out"
