#!/usr/bin/env bash
# signals-plot.sh [SERIES] [OUT.png]: the reference workload for the signals
# feature. Boots a stock kernel (default 6.12) in QEMU, runs
# scripts/signals-guest.sh there (a 20% duty task on CPU 1, joined for
# 1.5 s by a nice 0 and a nice 10 busy task; schedlab:signals_task events
# recorded with trace-cmd every 10 ms; see docs/signals.md), then draws
# each task's signals
# over time with gnuplot. Default output: build/signals/signals.png; the
# image in docs/ was made with
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
mkdir -p "$(dirname "$out")" build/signals
# one data file per task: t_ms util_avg util_est model burst waiting time
awk -v dir=build/signals '
	match($0, /[0-9]+\.[0-9]+: +signals_task: +sample /) {
		ts = substr($0, RSTART, RLENGTH); sub(/:.*/, "", ts); ts += 0
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (!(v["comm"] in t0)) { t0[v["comm"]] = ts; names[++k] = v["comm"] }
		if (start == "") start = ts
		printf "%.1f %s %s %s %s %s %s\n", (ts - start) * 1000, v["util_avg"], v["util_est"],
			v["model"], v["util_burst"], v["waiting_avg"], v["time_util"] > (dir "/" v["comm"] ".dat")
	}
	END { for (i = 1; i <= k; i++) print names[i] > (dir "/tasks.txt") }' "$res/trace.txt"
# the workload's tasks (their pids were bash/taskset/nice before exec)
tasks=$(grep -x -e periodic -e nice0 -e nice10 build/signals/tasks.txt | tr '\n' ' ')
{
	echo "set terminal pngcairo size 1100,$(( 300 * $(echo "$tasks" | wc -w) + 60 )) font 'sans,9'"
	echo "set output '$out'"
	echo "set multiplot layout $(echo "$tasks" | wc -w),1 title 'schedlab signals, $(cat "$res/kernel.txt"): CPU 1, sampled every 10 ms'"
	echo "set termoption noenhanced"
	echo "set yrange [0:1100]; set grid; set key outside right; set ylabel 'util (1024 = always)'"
	echo "set xrange [0:$(cat build/signals/*.dat | awk '$1 > m { m = $1 } END { print int(m) + 1 }')]"
	for t in $tasks; do
		echo "set title '$t'; set xlabel 'ms'"
		echo "plot 'build/signals/$t.dat' u 1:2 w l lw 2 t 'util_avg (kernel)', '' u 1:3 w l t 'util_est (kernel)', '' u 1:4 w l dt 2 t 'model (schedlab PELT)', '' u 1:5 w l lw 2 t 'util_burst', '' u 1:6 w l t 'waiting_avg', '' u 1:7 w l dt 3 t 'time-domain util'"
	done
	echo "unset multiplot"
} > build/signals/plot.gp
gnuplot build/signals/plot.gp
cat "$res/summary.txt"
echo "plot: $out"
