#!/usr/bin/env bash
# bench-ab.sh SERIES OTHER_TREE: the contended-mutex benchmark of `make bench`
# (blocked_on on) with another tree's build of the module (A: OTHER_TREE,
# e.g. a clone at an older commit) against this tree's (B), the two loaded
# in turn in one instruction-counted boot (ABBA pairs of 0.5 s rounds): the
# way to show that a change to blocked_on's probes does not make them
# slower. Both are built here for SERIES. Results: build/bench-ab/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${1:?SERIES}
other=$(cd "${2:?OTHER_TREE}" && pwd)
cd "$SCHEDLAB_TOP"
bash scripts/setup-host.sh >&2
make -s tools >&2
bash scripts/build-module.sh "$series" >/dev/null
(cd "$other" && bash scripts/build-module.sh "$series" >/dev/null)
. "$(scripts/kernels.sh fetch "$series")/info"
res=build/bench-ab
rm -rf "$res"
mkdir -p "$res"
cp "$other/build/$KVER/module/schedlab.ko" "$res/a.ko"
echo "$(git -C "$other" log -1 --format=%h 2>/dev/null || echo "$other")" >"$res/a.txt"
SCHEDLAB_VM_QEMU_EXTRA="-icount shift=3,sleep=off" \
	bash scripts/vm-run.sh "$series" "$res/run" scripts/bench-guest.sh mutex-ab
cat "$res/run/bench.txt"
