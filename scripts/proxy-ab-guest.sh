#!/usr/bin/env bash
# The guest half of scripts/proxy-ab.sh: proxy-ab-guest.sh SECONDS
# One round on the side this boot is (sched_proxy_exec on the command
# line): the rename scenario (scripts/blocked_on-rename.sh, SECONDS long)
# and the test driver's chain D -> C -> B -> A with a hog (as in
# tests/guest/t84_blocked_on_proxy.sh), both with blocked_on on. Writes
# "key value" lines to $SCHEDLAB_RESULTS/results.txt and the raw reports
# beside it.
set -euo pipefail
secs=${1:?usage: proxy-ab-guest.sh SECONDS}
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
tdko=build/$SCHEDLAB_KVER/tests/modules/schedlab_testdrv.ko
out=$SCHEDLAB_RESULTS
dbg=/sys/kernel/debug/schedlab
bd=$dbg/blocked_on
res() { echo "$1 $2" >>"$out/results.txt"; }
# a column of a report row: col FILE KEYCOL KEY COL
col() {
	awk -v kc="$2" -v k="$3" -v c="$4" '
		/^#/ || !NF { next }
		!nh && $1 == kc { nh = NF; for (i = 1; i <= NF; i++) n[$i] = i; next }
		nh && $(n[kc]) "" == k "" { sh = NF - nh; print (n[c] <= 2 ? $(n[c]) : $(n[c] + sh)); exit }' "$1"
}
stat() { awk -v k="$1" '$1 == k {print $2}' "$2"; }

insmod "$ko"
: >"$out/results.txt"
res proxy_exec "$(awk '/^proxy_exec:/ {print $2}' $dbg/status)"
res kernel "$(uname -r)"

# --- 1. the rename scenario --------------------------------------------------
bash scripts/blocked_on-rename.sh -c 1 -t "$secs" -o "$out/rename" \
	>"$out/rename-summary.txt" 2>"$out/rename-stderr.txt"
cp $bd/stats "$out/rename/stats.txt"
read -r fg bg < <(sed -nE 's/.*fg renamer ([0-9]+), bg renamer ([0-9]+).*/\1 \2/p' "$out/rename-stderr.txt")
while read -r who k v; do
	case $k in
	renames|seconds|lat_us_*) res "rename_${who}_$k" "$v" ;;
	esac
done <"$out/rename/renames.txt"
for c in total_us preempted proxy run_local sleeping proxy_runs; do
	res "rename_fg_wait_$c" "$(col "$out/rename/tasks.txt" pid "$fg" "$c")"
done
for d in run_owner migrate deact_waking deact_no_owner deact_owner_asleep return handoff; do
	res "rename_decisions_$d" "$(stat "proxy_$d" "$out/rename/stats.txt")"
done

# --- 2. the test driver's chain with a hog -------------------------------------
insmod "$tdko"
td=/sys/kernel/debug/schedlab_testdrv
echo 1 >$bd/reset
echo 'spawn A cpu=1 policy=other nice=19 lock m0; busy 1200; unlock m0' >$td/cmd
echo 'spawn B cpu=1 policy=other nice=0 lock m1; wait A 0; lock m0; unlock m0; unlock m1' >$td/cmd
echo 'spawn C cpu=1 policy=other nice=0 lock m2; wait B 0; sleep 50; lock m1; unlock m1; unlock m2' >$td/cmd
echo 'spawn D cpu=1 policy=fifo prio=20 wait C 0; sleep 100; lock m2; unlock m2' >$td/cmd
echo 'spawn H cpu=1 policy=fifo prio=10 wait A 0; sleep 300; busy 600' >$td/cmd
echo start >$td/cmd
echo reset >$td/cmd
cp $td/log "$out/chain-driver.txt"
cp $bd/tasks "$out/chain-tasks.txt"
cp $bd/stats "$out/chain-stats.txt"
pid_of() { awk -v n="$1" '$1 == n && $2 ~ /^pid=/ { sub("pid=", "", $2); print $2; exit }' "$out/chain-driver.txt"; }
step_us() { awk -v n="$1" -v s="$2" '$1 == n && $2 == s { print int(($7 - $6) / 1000); exit }' "$out/chain-driver.txt"; }
res chain_d_wait_us "$(step_us D 2)"
res chain_b_wait_us "$(step_us B 2)"
for c in total_us preempted proxy; do
	res "chain_b_wait_$c" "$(col "$out/chain-tasks.txt" pid "$(pid_of B)" "$c")"
done
res chain_d_proxy_runs "$(col "$out/chain-tasks.txt" pid "$(pid_of D)" proxy_runs)"
for d in run_owner migrate deact_owner_asleep handoff; do
	res "chain_decisions_$d" "$(stat "proxy_$d" "$out/chain-stats.txt")"
done
rmmod schedlab_testdrv
echo 0 >/sys/kernel/schedlab/blocked_on/enabled
rmmod schedlab
