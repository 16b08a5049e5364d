# /dev/dlparams's mapped page under every VMA operation (dlparams_vma.c):
# as an unprivileged user, the fork (MADV_DOFORK), mremap, MADV_DONTNEED
# and mprotect roads, 200 rounds each (SCHEDLAB_TEST_VMA_ROUNDS: the debug
# kernel's suite runs 50, where KASAN and the object debugging catch the
# first double close; the panic this guards against came within 50), leave the kernel and the counters
# intact; as root, a SCHED_DEADLINE thread's page keeps describing it
# through them and says when it is no longer refreshed; who may read whose
# values (own thread yes, another user's no, root yes).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"

# a hang fails with the stage it hung in, before run.sh's limit
export DLPARAMS_VMA_WATCHDOG_S=240
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$DBG/dlparams/stats"; }

load
echo 1 > $SYS/dlparams/enabled
rounds=${SCHEDLAB_TEST_VMA_ROUNDS:-200}
for who in 65534 0; do
	diag "--- roads as uid $who"
	out=$("$HOSTBIN/dlparams_vma" -u $who roads "$rounds" 2>&1); rc=$?
	tap_lines <<<"$out"
	is "$rc" 0 "dlparams_vma roads as uid $who: exit status"
	is "$(stat_of pages)/$(stat_of mappings)" 0/0 "uid $who: no page or mapping left (pages/mappings)"
done
diag "--- a deadline thread's page"
out=$("$HOSTBIN/dlparams_vma" deadline $SYS/dlparams/enabled 2>&1); rc=$?
tap_lines <<<"$out"
is "$rc" 0 "dlparams_vma deadline: exit status"
diag "--- who may read whose values"
out=$("$HOSTBIN/dlparams_vma" access 2>&1); rc=$?
tap_lines <<<"$out"
is "$rc" 0 "dlparams_vma access: exit status"
sed 's/^/# /' "$DBG/dlparams/stats"
ok '[ "$(stat_of marks)" -ge 3 ]' "pages marked not updated ($(stat_of marks))"
is "$(stat_of pages)/$(stat_of mappings)" 0/0 "no page or mapping left (pages/mappings)"
echo 0 > $SYS/dlparams/enabled
unload
ok '! loaded' "unloaded after every road"
done_testing
