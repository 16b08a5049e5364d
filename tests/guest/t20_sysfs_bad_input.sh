# Every sysfs attribute rejects bad values with EINVAL and keeps its state;
# writes by an unprivileged user are refused; bad module parameters fail the
# load.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

load
# Each attribute costs three program starts (under emulation each is a
# fraction of a second; a cat per read made this the suite's longest
# test): the modes from one stat, reads by the shell, every bad value and
# the zero-length write in one sysfs_write, the unprivileged write in one.
declare -A mode
while read -r m p; do mode[$p]=$m; done < <(stat -c '%a %n' "$SYS"/*/*)
bad_common=("abc" $'\n' "1x" " 1" "0x10" "1.5" "99999999999999999999999" "-99999999999999999999999" "@4096" "1 2" "+")
for f in "$SYS"/*/; do
	feat=$(basename "$f")
	for attr in "$f"*; do
		a=$(basename "$attr")
		if [ "${mode[$attr]}" = 444 ]; then
			is "$($SYSFS_WRITE "$attr" 1)" EACCES "$feat/$a is read-only (EACCES)"
			continue
		fi
		common=("${bad_common[@]}")
		case $feat/$a in
		*/enabled)		extra=("2" "-1") ;;
		signals/max_tasks)	extra=("-1" "0" "15" "65537") ;;
		signals/check_model)	extra=("2" "-1") ;;
		signals/dequeue_events)	extra=("2" "-1") ;;
		signals/sleep_source)	extra=("2" "-1") ;;
		signals/filter_pid)	extra=("-1" "4194305") ;;
		signals/filter_cgroup)	extra=("-1") ;;
		signals/filter_comm)	# a string: at most 15 printable ASCII characters
			common=("sixteen_chars_xx" $'a\tb' $'\x01' $'a\n\n' $'\x7f' $'caf\xc3\xa9' "@300")
			extra=() ;;
		overutil/linger_*_ticks) extra=("-1" "1001") ;;
		overutil/drive)		# "off" or a rule's name, nothing else
			extra=("Off" "mainline " "mainlinex" "linger,all" "sixteen_chars_xx") ;;
		perf/max_freq_khz)	extra=("-1" "0" "100000001") ;;
		perf/nr_opps)		extra=("-1" "65") ;;
		perf/update_delay_us)	extra=("-1" "1000001") ;;
		blocked_on/min_wait_us)	extra=("-1" "10000001") ;;
		blocked_on/rules)	extra=("0" "16" "-1") ;;
		blocked_on/max_tasks)	extra=("0" "15" "8193" "-1") ;;
		eevdf/sample_every)	extra=("0" "-1" "1000001") ;;
		eevdf/check_every)	extra=("0" "-1" "1000001") ;;
		eevdf/keep)		extra=("-1" "4097") ;;
		eevdf/mutate)		extra=("-1" "12") ;;
		overutil/capacity)	# per CPU 0..1024, comma-separated, one entry per CPU at most
			common=("abc" "1025" "160,,1024" "," "160," ",160" "-1" "160 1024" "0x10"
				"$(printf '1,%.0s' $(seq 1 $(( $(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1 ))))1" "99999" $'160

')
			extra=() ;;
		*)			extra=("-1" "0" "10001" "9223372036854775807") ;;	# *_ms are 1..10000
		esac
		before=$(<"$attr")
		# the bad values, then a zero-length write, which never reaches
		# the attribute (sysfs drops it)
		mapfile -t res < <($SYSFS_WRITE "$attr" "${common[@]}" "${extra[@]}" "")
		zero=${res[-1]:-none}
		unset 'res[-1]'
		declare -A seen=()
		for r in "${res[@]}"; do seen[$r]=$(( ${seen[$r]:-0} + 1 )); done
		got=""
		for r in "${!seen[@]}"; do got+="${seen[$r]} $r;"; done
		unset seen
		is "$got" "$(( ${#common[@]} + ${#extra[@]} )) EINVAL;" "$feat/$a: every bad value gets EINVAL"
		is "$zero" ok "$feat/$a: zero-length write is a no-op"
		is "$(<"$attr")" "$before" "$feat/$a unchanged after bad and zero-length writes"
		# Unprivileged writers are refused by the file mode.
		r=$(sysfs_write_as_nobody "$attr" "$before" || true)
		is "$r" EACCES "$feat/$a: write as nobody gets EACCES"
	done
done
# Good values still work (so the above is not just a dead file).
is "$($SYSFS_WRITE $SYS/cpu_signals/period_ms 250)" ok "period_ms=250 accepted"
is "$(<$SYS/cpu_signals/period_ms)" 250 "period_ms reads back 250"
is "$($SYSFS_WRITE $SYS/cpu_signals/period_ms $'100\n')" ok "period_ms=100 with newline accepted"
is "$($SYSFS_WRITE $SYS/cpu_signals/enabled 1)" ok "enabled=1 accepted"
is "$(<$SYS/cpu_signals/enabled)" 1 "enabled reads back 1"
is "$($SYSFS_WRITE $SYS/cpu_signals/enabled 1)" ok "enabled=1 again is idempotent"
is "$($SYSFS_WRITE $SYS/cpu_signals/enabled 0)" ok "enabled=0 accepted"
is "$(<$SYS/cpu_signals/enabled)" 0 "enabled reads back 0"

# The string parameter: good values, and clearing it.
is "$($SYSFS_WRITE $SYS/signals/filter_comm $'sl_x\n')" ok "filter_comm=sl_x accepted"
is "$(<$SYS/signals/filter_comm)" sl_x "filter_comm reads back sl_x"
is "$($SYSFS_WRITE $SYS/signals/filter_comm fifteen_chars_x)" ok "filter_comm of 15 characters accepted"
is "$($SYSFS_WRITE $SYS/signals/filter_comm $'\n')" ok "filter_comm cleared by a lone newline"
is "$(<$SYS/signals/filter_comm)" "" "filter_comm reads back empty"

# overutil's drive: a rule is taken only where the kernel has the series'
# hook; "off" always.
if echo "$(<$DBG/status)" | grep -Eq '^  tracepoint:sched_cpu_overutilized_tp +yes'; then
	is "$($SYSFS_WRITE $SYS/overutil/drive $'linger\n')" ok "drive=linger accepted (the kernel has the hook)"
	is "$(<$SYS/overutil/drive)" linger "drive reads back linger"
else
	is "$($SYSFS_WRITE $SYS/overutil/drive linger)" EOPNOTSUPP "drive=linger: EOPNOTSUPP without the hook"
	is "$(<$SYS/overutil/drive)" off "drive still off"
fi
is "$($SYSFS_WRITE $SYS/overutil/drive off)" ok "drive=off accepted"
is "$(<$SYS/overutil/drive)" off "drive reads back off"

# Module parameter: an unknown or empty-named feature fails the load.
unload
is "$($LOAD_MODULE "$KO" enable=no_such_feature)" EINVAL "load with enable=no_such_feature fails with EINVAL"
ok '! loaded && [ ! -e $SYS ]' "and leaves nothing loaded"
ok 'dmesg | grep -q "unknown feature .no_such_feature."' "dmesg names the unknown feature"
is "$($LOAD_MODULE "$KO" enable=,cpu_signals,)" ok "load with enable=,cpu_signals, (empty names ignored)"
is "$(cat $SYS/cpu_signals/enabled 2>/dev/null)" 1 "cpu_signals enabled at load"
unload
done_testing
