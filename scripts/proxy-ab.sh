#!/usr/bin/env bash
# proxy-ab.sh [-r ROUNDS] [-t SECONDS] [-o OUTDIR] [-a]: proxy execution off and
# on, side by side, on the lab kernel (patches/, built with
# CONFIG_SCHED_PROXY_EXEC=y). Each round boots it twice, with
# sched_proxy_exec=0 and =1 (the order alternating from round to round:
# off-on, on-off, ...), and runs scripts/proxy-ab-guest.sh there: the
# rename scenario (scripts/blocked_on-rename.sh, SECONDS long, default 8)
# and the test driver's chain D -> C -> B -> A whose owner a SCHED_FIFO hog
# preempts on the waiter's CPU, with blocked_on on. Prints one table: per
# measure its median over the rounds with the range (min..max) for each
# side, and the median of the per-round ratios on/off with their range.
# OUTDIR (default build/proxy-ab) receives the table (proxy-ab.md), the
# figure (proxy-ab.png), each boot's results (rROUND-off/, rROUND-on/) and
# results.dat. -a only makes the table and the figure again from the last
# run's boots (build/proxy-ab/runs). The files in docs/ were made with
#   bash scripts/proxy-ab.sh -r 5
# (build/proxy-ab/proxy-ab.png copied to docs/img/, its table into
# docs/proxy-ab.md).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$SCHEDLAB_TOP"
rounds=3 secs=8 out=build/proxy-ab again=0
while getopts r:t:o:ah opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	a) again=1 ;;
	*) echo "usage: proxy-ab.sh [-r ROUNDS] [-t SECONDS] [-o OUTDIR] [-a]" >&2; exit 2 ;;
	esac
done
[[ $rounds =~ ^[0-9]+$ ]] && [ "$rounds" -ge 1 ] && [ "$rounds" -le 20 ] || die "-r ROUNDS: 1 to 20"
[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -ge 2 ] && [ "$secs" -le 120 ] || die "-t SECONDS: 2 to 120"
mkdir -p "$out"
runs=build/proxy-ab/runs
if [ $again = 1 ]; then
	rounds=$(find "$runs" -maxdepth 1 -name 'r*-off' -type d | wc -l)
	secs=$(awk '$1 == "rename_fg_seconds" {printf "%.0f", $2; exit}' "$runs/r1-off/results.txt")
	[ "$rounds" -ge 1 ] || die "no runs in $runs"
else
	bash scripts/setup-host.sh >&2
	make -s tools >&2
	bash scripts/build-module.sh lab >/dev/null
	rm -rf "$runs"; mkdir -p "$runs"
fi
for r in $( [ $again = 1 ] || seq "$rounds"); do
	order="0 1"
	[ $((r % 2)) = 0 ] && order="1 0"
	for p in $order; do
		side=off; [ "$p" = 1 ] && side=on
		log "round $r: proxy execution $side"
		SCHEDLAB_VM_APPEND="sched_proxy_exec=$p" SCHEDLAB_VM_TIMEOUT=900 \
			bash scripts/vm-run.sh lab "$runs/r$r-$side" scripts/proxy-ab-guest.sh "$secs" >"$runs/r$r-$side.log" 2>&1 ||
			die "round $r ($side) failed: $runs/r$r-$side.log"
		got=$(awk '$1 == "proxy_exec" {print $2}' "$runs/r$r-$side/results.txt")
		[ "$got" = "$side" ] || die "round $r: booted for proxy $side, the module says '$got'"
	done
done

# results.dat: "round side key value", then the table
for d in "$runs"/r*-o*/; do
	d=${d%/}
	b=$(basename "$d")
	awk -v r="${b%%-*}" -v s="${b#*-}" '{ print substr(r, 2), s, $1, $2 }' "$d/results.txt"
done >"$out/results.dat"
kernel=$(awk '$1 == "kernel" {print $2; exit}' "$runs/r1-off/results.txt")
python3 - "$out/results.dat" "$out/proxy-ab.md" "$rounds" "$secs" "$kernel" <<'PYEOF'
import sys, statistics
path, md, rounds, secs, kernel = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
v = {}
for line in open(path):
    r, s, k, x = line.split()[:4]
    try:
        v[(k, s, int(r))] = float(x)
    except ValueError:
        pass
def per(k, s):
    return [v[(k, s, r)] for r in range(1, rounds + 1) if (k, s, r) in v]
def share(k, s, tot):
    return [100 * v[(k, s, r)] / v[(tot, s, r)] for r in range(1, rounds + 1)
            if (k, s, r) in v and v.get((tot, s, r))]
rows = [
    ("rename: fg rename latency p50 (us)", "rename_fg_lat_us_p50", None),
    ("rename: fg rename latency p99 (us)", "rename_fg_lat_us_p99", None),
    ("rename: fg rename latency p99.9 (us)", "rename_fg_lat_us_p999", None),
    ("rename: fg rename latency max (us)", "rename_fg_lat_us_max", None),
    ("rename: fg renames/s", "rename_fg_rate", None),
    ("rename: bg renames/s (beside 2 hogs, cpu.weight 1)", "rename_bg_rate", None),
    ("rename: fg wait behind a preempted owner (% of its wait)", "rename_fg_wait_preempted", "rename_fg_wait_total_us"),
    ("rename: fg wait with its owner run as its proxy (%)", "rename_fg_wait_proxy", "rename_fg_wait_total_us"),
    ("rename: proxy decisions: owner run", "rename_decisions_run_owner", None),
    ("rename: proxy decisions: owner asleep, donor deactivated", "rename_decisions_deact_owner_asleep", None),
    ("rename: proxy decisions: mutex handed to the donor", "rename_decisions_handoff", None),
    ("chain: D's wait (us)", "chain_d_wait_us", None),
    ("chain: B's wait behind a preempted owner (%)", "chain_b_wait_preempted", "chain_b_wait_total_us"),
    ("chain: B's wait with its owner run as a proxy (%)", "chain_b_wait_proxy", "chain_b_wait_total_us"),
    ("chain: proxy decisions: owner run", "chain_decisions_run_owner", None),
]
for s in ("off", "on"):
    for r in range(1, rounds + 1):
        for who in ("fg", "bg"):
            n, t = v.get(("rename_%s_renames" % who, s, r)), v.get(("rename_%s_seconds" % who, s, r))
            if n is not None and t:
                v[("rename_%s_rate" % who, s, r)] = n / t
def fmt(xs):
    if not xs:
        return "-"
    m = statistics.median(xs)
    f = (lambda x: "%.0f" % x) if max(abs(x) for x in xs) >= 100 else (lambda x: "%.1f" % x)
    return "%s (%s..%s)" % (f(m), f(min(xs)), f(max(xs)))
out = ["| measure | proxy off: median (range) | proxy on: median (range) | on/off: median (range) |",
       "| --- | --- | --- | --- |"]
plot = []
for label, k, tot in rows:
    a = share(k, "off", tot) if tot else per(k, "off")
    b = share(k, "on", tot) if tot else per(k, "on")
    ratios = []
    for r in range(1, rounds + 1):
        if tot:
            ka, kb = v.get((k, "off", r)), v.get((k, "on", r))
            ta, tb = v.get((tot, "off", r)), v.get((tot, "on", r))
            if ka is not None and kb is not None and ta and tb and ka:
                ratios.append((kb / tb) / (ka / ta))
        elif v.get((k, "off", r)) and (k, "on", r) in v:
            ratios.append(v[(k, "on", r)] / v[(k, "off", r)])
    rt = "%.2f (%.2f..%.2f)" % (statistics.median(ratios), min(ratios), max(ratios)) if ratios else "-"
    out.append("| %s | %s | %s | %s |" % (label, fmt(a), fmt(b), rt))
    plot.append((label, a, b))
hdr = ("proxy execution off and on, %d rounds (boots alternating off-on, on-off), "
       "%s s of renames each, on %s (QEMU TCG, 2 vCPUs)" % (rounds, secs, kernel))
open(md, "w").write(hdr + "\n\n" + "\n".join(out) + "\n")
print(hdr)
print("\n".join(out))
with open(md.replace(".md", ".plot.dat"), "w") as f:
    short = ["p50", "p99", "p99.9", "max", "fg renamer: preempted", "fg renamer: proxy",
             "chain, B: preempted", "chain, B: proxy"]
    for i, (label, a, b) in enumerate(plot[:4] + plot[6:8] + plot[12:14]):
        f.write("%d \"%s\" %s %s %s %s %s %s\n" % (
            i, short[i],
            statistics.median(a) if a else 0, min(a) if a else 0, max(a) if a else 0,
            statistics.median(b) if b else 0, min(b) if b else 0, max(b) if b else 0))
PYEOF
pd=$out/proxy-ab.plot.dat
gnuplot <<GP
set terminal pngcairo size 1100,700 font 'sans,9'
set output '$out/proxy-ab.png'
set termoption noenhanced
set multiplot layout 2,1 title "schedlab: proxy execution off and on, $kernel, $rounds rounds (bars: median, whiskers: range)"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.7 border -1
set grid y
set key top left
set title 'the foreground renamer: rename latency (us, log scale)'
set logscale y
plot '$pd' every ::0::3 u 3:4:5:xtic(2) t 'proxy off', '' every ::0::3 u 6:7:8 t 'proxy on'
unset logscale y
set yrange [0:100]
set title 'share of the wait (%): owner preempted, or run as the waiter''s proxy'
plot '$pd' every ::4::7 u 3:4:5:xtic(2) t 'proxy off', '' every ::4::7 u 6:7:8 t 'proxy on'
unset multiplot
GP
log "table: $out/proxy-ab.md, figure: $out/proxy-ab.png"
