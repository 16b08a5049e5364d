#!/usr/bin/env bash
# The guest half of `make demo` (see demo.sh).
set -euo pipefail
ko=build/$SCHEDLAB_KVER/module/schedlab.ko
out=$SCHEDLAB_RESULTS/demo.txt
{
	echo "### $(uname -r), Debian package version $SCHEDLAB_PKGVER, $(nproc) CPUs"
	echo "### insmod $ko"
	insmod "$ko"
	echo "### cat /sys/kernel/debug/schedlab/status"
	cat /sys/kernel/debug/schedlab/status
	echo "### echo 1 > /sys/kernel/schedlab/cpu_signals/enabled; busy loop pinned to CPU 1 for 2 s"
	echo 1 > /sys/kernel/schedlab/cpu_signals/enabled
	taskset -c 1 sh -c 'while :; do :; done' &
	sleep 2
	echo "### cat /sys/kernel/debug/schedlab/cpu_signals/report"
	cat /sys/kernel/debug/schedlab/cpu_signals/report
	kill $!
	rmmod schedlab
} >"$out" 2>&1
