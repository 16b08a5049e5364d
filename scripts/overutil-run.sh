#!/usr/bin/env bash
# overutil-run.sh [WORKLOAD] [SERIES] [CAPACITIES] [OUTDIR]: run an rt-app
# workload of scripts/workloads/ (default bursty) in a stock kernel under
# QEMU (default 6.12) with schedlab's overutil feature on, emulated
# capacities CAPACITIES (default 160,1024: CPU 0 little, CPU 1 big; "real"
# for none), and print the rules' statistics as one table; draw the rules'
# verdicts over time (schedlab:overutil events recorded with trace-cmd) as
# OUTDIR/overutil-WORKLOAD.png, the table in OUTDIR/overutil-WORKLOAD.txt
# (default OUTDIR build/overutil). The files in docs/ were made with
#   bash scripts/overutil-run.sh bursty 6.12 160,1024 docs/img
set -euo pipefail
. "$(dirname "$0")/lib.sh"
wl=${1:-bursty}
series=${2:-$SCHEDLAB_SERIES_DEFAULT}
caps=${3:-160,1024}
[ "$caps" = real ] && caps=
cd "$SCHEDLAB_TOP"
out=${4:-build/overutil}
json=scripts/workloads/$wl.json
[ -f "$json" ] || die "no workload $json"
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
res=build/overutil/guest-$series-$wl
rm -rf "$res"
bash scripts/vm-run.sh "$series" "$res" scripts/overutil-guest.sh "$SCHEDLAB_TOP/$json" "$caps"
mkdir -p "$out" build/overutil
cp "$res/report.txt" "$out/overutil-$wl.txt"
# one step series per scope (cpuN, system) and rule: t_ms on
dat=build/overutil/$wl.dat.d
rm -rf "$dat"; mkdir -p "$dat"
awk -v dir="$dat" '
	match($0, /[0-9]+\.[0-9]+: +overutil: /) {
		ts = substr($0, RSTART, RLENGTH); sub(/:.*/, "", ts); ts += 0
		if (start == "") start = ts
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		scope = v["cpu"] == -1 ? "system" : "cpu" v["cpu"]
		f = dir "/" scope "-" v["rule"]
		# every event is a transition: before the first one the verdict
		# was the opposite (a rule already on when recording began)
		if (!(f in seen)) { seen[f] = 1; printf "0 %d\n", !v["on"] > f }
		printf "%.1f %d\n", (ts - start) * 1000, v["on"] > f
		last = (ts - start) * 1000
	}
	END { print int(last) + 1 > (dir "/end") }' "$res/trace.txt"
end=$(cat "$dat/end" 2>/dev/null || echo 1000)
rules="mainline linger idle dynamic lone all"
scopes="system $(awk '$1 ~ /^cpu[0-9]+$/ && $2 == "on" { print $1 }' "$out/overutil-$wl.txt" | tr '\n' ' ')"
{
	echo "set terminal pngcairo size 1100,$(( 170 * $(echo $scopes | wc -w) + 80 )) font 'sans,9'"
	echo "set output '$out/overutil-$wl.png'"
	echo "set multiplot layout $(echo $scopes | wc -w),1 title 'schedlab overutil: $wl on $(cat "$res/kernel.txt"), capacities ${caps:-real} (a raised line: overutilized)'"
	echo "set termoption noenhanced"
	echo "set xrange [0:$end]; set yrange [-0.5:6]; set grid x"
	echo "set ytics ($(i=0; for r in $rules; do printf "'%s' %d," "$r" $i; i=$((i + 1)); done | sed 's/,$//'))"
	for sc in $scopes; do
		echo "set title '$sc'; set xlabel 'ms'"
		plots=
		i=0
		for r in $rules; do
			f=$dat/$sc-$r
			# no transition recorded: the verdict the report ends with
			# held throughout (on since before recording began, or never)
			if [ ! -f "$f" ]; then
				on=$(awk -v sc="$sc" -v col=$((i + 3)) '$1 == sc && $2 == "on" { print $col; exit }' \
					"$out/overutil-$wl.txt")
				printf "0 %d\n%s %d\n" "${on:-0}" "$end" "${on:-0}" > "$f"
			fi
			tail -1 "$f" | awk -v e="$end" '{ print e, $2 }' >> "$f"
			plots="$plots${plots:+, }'$f' u 1:(\$2 * 0.7 + $i) w steps lw 2 notitle"
			i=$((i + 1))
		done
		echo "plot $plots"
	done
	echo "unset multiplot"
} > build/overutil/plot.gp
gnuplot build/overutil/plot.gp
cat "$out/overutil-$wl.txt"
echo "table: $out/overutil-$wl.txt; plot: $out/overutil-$wl.png"
