#!/usr/bin/env bash
# biglittle-dtb.sh OUT.dtb QEMU ARGS...
#
# The virtual big.LITTLE's device tree for the QEMU machine that
# "QEMU ARGS..." start (e.g. qemu-system-aarch64 -machine virt -cpu max
# -smp 4 -m 1024): QEMU's own tree for exactly that machine (dumpdtb: its
# memory map, interrupt controller and devices as this QEMU version makes
# them), decompiled, with virt-biglittle.dtsi (beside this script) applied
# on top, compiled to OUT.dtb for -dtb. Needs dtc (device-tree-compiler).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: biglittle-dtb.sh OUT.dtb QEMU ARGS...}
shift
[ $# -gt 0 ] || { echo "usage: biglittle-dtb.sh OUT.dtb QEMU ARGS..." >&2; exit 2; }
command -v dtc >/dev/null || { echo "biglittle-dtb: dtc not found (scripts/setup-host.sh installs device-tree-compiler)" >&2; exit 1; }

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# the machine's own tree: -machine TYPE becomes -machine TYPE,dumpdtb=FILE
args=() dumped=
while [ $# -gt 0 ]; do
	if [ "$1" = -machine ] && [ $# -ge 2 ]; then
		args+=(-machine "$2,dumpdtb=$t/qemu.dtb"); dumped=1; shift 2
	else
		args+=("$1"); shift
	fi
done
[ -n "$dumped" ] || { echo "biglittle-dtb: no -machine in the QEMU arguments" >&2; exit 2; }
"${args[@]}" -nographic </dev/null >"$t/qemu.log" 2>&1 || true
[ -s "$t/qemu.dtb" ] || { echo "biglittle-dtb: QEMU did not dump its tree:" >&2; cat "$t/qemu.log" >&2; exit 1; }
dtc -q -I dtb -O dts -o "$t/qemu.dts" "$t/qemu.dtb"
printf '/include/ "%s"\n/include/ "%s"\n' "$t/qemu.dts" "$here/virt-biglittle.dtsi" >"$t/top.dts"
dtc -q -I dts -O dtb -o "$out" "$t/top.dts"
