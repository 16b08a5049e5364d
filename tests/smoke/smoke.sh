# The smoke test of a kernel the full guest suite does not run on yet (an
# arm64 kernel: the suite's programs are the host's, x86). It runs as the
# guest's init under busybox sh, from an initramfs that holds only busybox,
# this script, tests/lib/tap.sh and the module built for that kernel
# (scripts/vm-smoke.sh), and prints TAP on the console:
#  - the module loads; the status report names this kernel and the layout
#    generated from its BTF; struct rq is found (runqueues) and verified;
#  - every feature is available, as on the x86 kernels of the same version
#    (the capabilities are printed);
#  - each available feature enables, runs 1 s with a load on every CPU,
#    and reads back: every readable file of its debugfs directory reads
#    without an error, and disables;
#  - on the virtual big.LITTLE (/platform), the platform and EAS checks of
#    biglittle.sh: the kernel's view before the module loads, schedlab's
#    beside it after the features ran;
#  - the module unloads, and the kernel log holds no warning, BUG or splat.
. /tap.sh
platform=$(cat /platform 2>/dev/null)

SYS=/sys/kernel/schedlab
DBG=/sys/kernel/debug/schedlab

diag "kernel: $(uname -r) ($(uname -m)), platform ${platform:-virt}"
if [ "$platform" = biglittle ]; then
	. /biglittle.sh
	bl_platform
fi
dmesg -c >/dev/null
ok "insmod /schedlab.ko" "the module loads"
st=$(cat $DBG/status 2>/dev/null)
echo "$st" | sed 's/^/# /'
ok "echo \"\$st\" | grep -q '^kernel: $(uname -r) '" "the status report names this kernel"
ok "echo \"\$st\" | grep -q '^layout: generated from the BTF of $(uname -r)\$'" "the layout was generated from this kernel's BTF"
ok "echo \"\$st\" | grep -qE '^  runqueues +yes .*rq->cpu verified on [0-9]+ CPUs'" "struct rq found and verified on every CPU"

# every feature the module has is available here, as on the x86 kernels of
# the same version (a feature that cannot be says why in the status)
for f in $(echo "$st" | awk '/^features:/ { on = 1; next } on && /^  [a-z_]+ +available=/ { print $1 }'); do
	is "$(cat $SYS/$f/available 2>/dev/null)" 1 "$f: available ($(echo "$st" | awk -v f="$f" '$1 == f { $1 = $2 = $3 = ""; sub(/^ +/, ""); print; exit }'))"
done
ok "[ $(ls -d $SYS/*/ | wc -l) -ge 7 ]" "seven features or more registered: $(ls $SYS | tr '\n' ' ')"

# every available feature: enable, load, read every report, disable
for d in $SYS/*/; do
	f=$(basename "$d")
	[ "$(cat "$d/available")" = 1 ] || continue
	ok "echo 1 > $d/enabled" "$f: enabled"
	i=0
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$cpu" sh -c 'end=$(($(date +%s) + 1)); while [ $(date +%s) -lt $end ]; do :; done' &
		i=$((i + 1))
	done
	wait
	bad=
	n=0
	for r in "$DBG/$f"/*; do
		[ -f "$r" ] || continue
		# write-only files (reset) are not reports
		[ "$(stat -c %a "$r" | cut -c1)" -ge 4 ] || continue
		n=$((n + 1))
		cat "$r" >/dev/null 2>/tmp/err || bad="$bad $(basename "$r"): $(cat /tmp/err)"
	done
	ok "[ $n -gt 0 ] && [ -z \"$bad\" ]" "$f: its $n reports read$bad"
	ok "echo 0 > $d/enabled" "$f: disabled"
done

[ "$platform" = biglittle ] && bl_features
ok "rmmod schedlab" "the module unloads"
log=$(dmesg)
splat=$(echo "$log" | grep -E 'WARNING:|BUG:|Oops|Call trace:|general protection|UBSAN|KASAN' | head -n 5)
echo "$log" | sed 's/^/# dmesg: /' | tail -n 20
ok "[ -z \"\$splat\" ]" "no warning or splat in the kernel log${splat:+: $splat}"
done_testing
