#!/usr/bin/env bash
# perf-plot.sh [SERIES] [OUT.png]: the uclamp scenario of the perf feature
# (docs/perf.md) as a timeline. Boots a stock kernel with uclamp (default
# 7) in QEMU, runs scripts/perf-guest.sh there (a task capped at
# uclamp_max 256 on CPU 1, joined after 1.5 s by an uncapped small periodic
# task; schedlab:perf_cpu recorded every 10 ms by schedlab run), exports
# the run to SQLite (schedlab export) and draws CPU 1's requests with
# gnuplot: max aggregation, sum aggregation, time-based headroom, beside
# the CFS util. Default output: build/perf/perf-uclamp.png.
# The sampler's own CPU is read from another CPU while the sampler sleeps
# (docs/perf.md), so its default clamps do not lift CPU 1's max
# aggregation; before that (2026-12-05) this timeline showed 1024 where
# the capped task alone requests 256. docs/img/perf-uclamp.png is this
# script's output.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:-7}
cd "$SCHEDLAB_TOP"
out=${2:-build/perf/perf-uclamp.png}
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
res=build/perf/guest-$series
rm -rf "$res"
bash scripts/vm-run.sh "$series" "$res" scripts/perf-guest.sh
mkdir -p "$(dirname "$out")" build/perf
db=build/perf/run.sqlite
build/host/schedlab export "$res/run" -o "$db" -f >&2
sqlite3 -separator ' ' "$db" "
	SELECT (ts_ns - (SELECT MIN(ts_ns) FROM perf_cpu)) / 1e9, util_avg, max_perf, sum_perf, time_perf
	FROM perf_cpu WHERE cpu = 1 ORDER BY ts_ns" > build/perf/cpu1.dat
gnuplot <<GP
set terminal pngcairo size 1100,420 font 'sans,9'
set output '$out'
set termoption noenhanced
set title "schedlab perf, $(cat "$res/kernel.txt"): CPU 1, a task capped at uclamp_max 256, joined 1.5 s later by an uncapped small task (2 ms every 10 ms)"
set xlabel 'time (s)'; set ylabel 'performance request (1024 = top)'
set yrange [0:1100]; set grid; set key outside right
plot 'build/perf/cpu1.dat' using 1:3 with steps lw 2 title 'max aggregation (kernel)', \
     '' using 1:4 with steps lw 2 title 'sum aggregation', \
     '' using 1:5 with steps title 'time-based headroom', \
     '' using 1:2 with lines dt 2 title 'CFS util_avg'
GP
echo "$out"
