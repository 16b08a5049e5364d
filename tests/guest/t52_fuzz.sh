# The interface fuzzer (sl_fuzz.c), seeded: every sysfs file, every
# debugfs file and /dev/dlparams, as root (also as a SCHED_DEADLINE
# thread, so that reads return values) and as nobody, with every result
# checked against the documented rules; the state (every sysfs value and
# the status report) is the same before and after. Then the same
# operations unchecked but concurrent, from root and nobody, while
# features are enabled and disabled and the module unloaded and loaded.
# SL_FUZZ_OPS (default 2000; 10,000 on the debug kernel) operations per
# interface and run, the SCHED_DEADLINE run at most SL_FUZZ_DEADLINE_OPS
# (default 2000: its thread gets half a CPU, and with 10,000 on the debug
# kernel it alone took over 20 minutes); SL_FUZZ_CONCURRENT_S (default 12;
# 30 on the debug kernel) seconds of the concurrent run, a dozen unloads
# and loads on a stock kernel (the suite runs this short run on five
# kernels; 60 s cost 3 minutes of guest time a check for no more kinds of
# interleaving, and 3,000 operations and 20 s one more);
# SL_FUZZ_SEED replays a run (each run prints its seed).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

ops=${SL_FUZZ_OPS:-2000}
seed=${SL_FUZZ_SEED:-$(( ($(date +%s) << 16) ^ $$ ))}
concurrent_s=${SL_FUZZ_CONCURRENT_S:-12}
diag "seed $seed, $ops operations per interface and run"
FUZZ=$HOSTBIN/sl_fuzz
# every sysfs value, and the status report (read by the shell's read: a
# cat per file was dozens of program starts per call, and even $(<file)
# forks, a quarter of a second on the debug kernel)
state() {
	local f v
	for f in $(find $SYS -type f | sort); do
		v=; IFS= read -r -d '' v <"$f"
		printf '%s=%s\n' "${f#$SYS/}" "${v%$'\n'}"
	done
	v=; IFS= read -r -d '' v <$DBG/status
	printf '%s\n' "${v%$'\n'}"
}
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$DBG/dlparams/stats"; }

load
echo 1 > $SYS/dlparams/enabled
before=$(state)
for run in "root:" "root-deadline:-d" "nobody:-u 65534"; do
	who=${run%%:*} opt=${run#*:} n=$ops
	dl_max=${SL_FUZZ_DEADLINE_OPS:-2000}
	[ "$who" = root-deadline ] && [ "$n" -gt "$dl_max" ] && n=$dl_max
	diag "--- strict, $who ($n operations per interface)"
	t0=$(date +%s)
	out=$("$FUZZ" -s $seed -n $n $opt sysfs debugfs dlparams 2>&1); rc=$?
	tap_lines <<<"$out"
	is "$rc" 0 "sl_fuzz as $who: exit status ($(( $(date +%s) - t0 )) s)"
	seed=$((seed + 1))
done
after=$(state)
is "$after" "$before" "every sysfs value and the status report unchanged by the strict runs"
[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
is "$(stat_of pages)/$(stat_of mappings)" 0/0 "no page or mapping left (pages/mappings)"

diag "--- concurrent: fuzzers as root and nobody, enable/disable, unload/load, ${concurrent_s} s"
t_end=$(( $(date +%s) + concurrent_s ))
pids=()
for opt in "" "-u 65534" "-d"; do
	( while [ "$(date +%s)" -lt $t_end ]; do
		"$FUZZ" -c -s $seed -n 300 $opt sysfs debugfs dlparams >/dev/null 2>&1
		seed=$((seed + 7))
	  done ) &
	pids+=($!)
done
toggles=0 reloads=0 reload_fail=0
while [ "$(date +%s)" -lt $t_end ]; do
	for f in $SYS/*/enabled; do
		echo 1 > "$f" 2>/dev/null && toggles=$((toggles + 1))
	done
	sleep 0.2
	for f in $SYS/*/enabled; do echo 0 > "$f" 2>/dev/null; done
	# unload: refused while /dev/dlparams is open, which the fuzzers keep reopening
	if rmmod schedlab 2>/dev/null; then
		reloads=$((reloads + 1))
		insmod "$KO" enable=dlparams 2>/dev/null || reload_fail=$((reload_fail + 1))
	fi
done
wait "${pids[@]}"
diag "enable rounds $toggles, unloads+loads $reloads"
load
is "$reload_fail" 0 "every load after an unload succeeded ($reloads unloads)"
ok '[ "$toggles" -gt 0 ]' "features were enabled during the concurrent run ($toggles)"
echo 1 > $SYS/dlparams/enabled 2>/dev/null
is "$(stat_of pages)/$(stat_of mappings)" 0/0 "after the concurrent run: no page or mapping left"
for f in $SYS/*/enabled; do echo 0 > "$f" 2>/dev/null; done
unload
ok '! loaded' "unloaded after fuzzing"
done_testing
