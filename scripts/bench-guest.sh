#!/usr/bin/env bash
# The guest half of `make bench` (see bench.sh).
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
out=$SCHEDLAB_RESULTS/bench.txt
insmod "$ko"
echo 1 > /sys/kernel/schedlab/dlparams/enabled
cg=/sys/fs/cgroup/schedlab-bench
echo +cpuset > /sys/fs/cgroup/cgroup.subtree_control
mkdir -p $cg
echo 1 > $cg/cpuset.cpus
echo root > $cg/cpuset.cpus.partition
{
	echo "### $(uname -r) (Debian $SCHEDLAB_PKGVER), one boot"
	echo "### dlparams: cost per call of each way to get the leftover runtime and deadline"
	DLPARAMS_CGROUP=$cg build/host/dlparams_bench "$SCHEDLAB_RESULTS/dlparams.json" 41
} >"$out" 2>&1
rmdir $cg
rmmod schedlab
{
	echo "{"
	echo "  \"kernel\": \"$(uname -r)\","
	echo "  \"package_version\": \"$SCHEDLAB_PKGVER\","
	echo "  \"dlparams\": $(cat "$SCHEDLAB_RESULTS/dlparams.json")"
	echo "}"
} >"$SCHEDLAB_RESULTS/results.json"
