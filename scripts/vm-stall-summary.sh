#!/bin/bash
# vm-stall-summary.sh RESULTS_DIR
#
# A stalled guest in a few lines: what each CPU was running when the stall
# watcher's NMI arrived (its RIP and first callers, from the panic's NMI
# backtraces), the tasks that were neither sleeping interruptibly nor idle
# (state and first frames), and QEMU's own view of each vCPU (halted or
# not, RIP named from System.map: see vm-dump.py). vm-run.sh prints the full
# dump; this is what a reader of a long CI log needs first, so make check
# prints it last, beside the failure.
set -u
res=$1
console=$res/console.log
[ -f "$console" ] || { echo "# no console log in $res"; exit 0; }
echo "# stall summary (from the guest's panic dump, then QEMU):"
sed -n '/Kernel panic/,$p' "$console" | awk '
	# strip the timestamp
	{ sub(/^\[[ 0-9.]+\](\[ *[CT][0-9]+\])? */, "") }
	function flush() {
		if (what != "" && (ntask < 12 || kind == "cpu")) {
			print "#   " what ": " (rip != "" ? "at " rip : "") (frames != "" ? (rip != "" ? " <- " : "") frames : "")
			if (kind == "task")
				ntask++
		}
		what = ""; rip = ""; frames = ""; nf = 0; innmi = 0
	}
	/^NMI backtrace for cpu/ { flush(); kind = "cpu"; what = "cpu " $NF; next }
	/^task:/ {
		flush()
		st = $0; sub(/.*state:/, "", st); sub(/ .*/, "", st)
		if (st != "S" && st != "I") {
			kind = "task"
			n = $0; sub(/^task:/, "", n); sub(/ +state:.*/, "", n)
			p = $0; sub(/.* pid:/, "", p); sub(/ .*/, "", p)
			what = "task " n " (pid " p ", state " st ")"
		}
		next
	}
	/^(Sending NMI|Kernel Offset|---\[ end)/ { flush(); next }
	what == "" { next }
	/^<NMI>/ { innmi = 1; next }
	/^<\/NMI>/ { innmi = 0; next }
	/^RIP: / { r = $0; sub(/^RIP: [0-9a-f]+:/, "", r); if (rip == "") rip = r; next }
	innmi || /^\?/ || !/\+0x[0-9a-f]+\/0x/ { next }
	nf < 6 {
		f = $1; sub(/\/0x.*/, "", f)
		frames = frames (nf ? " <- " : "") f
		nf++
	}
	END { flush() }
'
if [ -f "$res/vcpus.txt" ]; then
	awk '/^CPU#/ { cpu = $1 }
	     /^RIP=/ { hlt = $0; sub(/.*HLT=/, "", hlt); sub(/ .*/, "", hlt) }
	     /^RIP names/ { print "#   QEMU " cpu ": " (hlt == "1" ? "halted" : "running") " at " $3 }' \
		"$res/vcpus.txt"
fi
