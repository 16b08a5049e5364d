#!/usr/bin/env python3
"""vm-dump.py QMP_SOCKET [SYSTEM_MAP]

What vm-run.sh does to a guest that stalled: print, through QEMU's QMP
socket, every vCPU's state (halted or not, registers, local APIC) with each
RIP named from the kernel's System.map (the guest boots nokaslr, so the
link-time addresses are the run-time ones), then inject an NMI. The guest
boots with unknown_nmi_panic and panic_print, so the NMI makes it print
every task's stack and every CPU's backtrace to its console before QEMU
(-no-reboot) exits.
"""
import bisect
import json
import re
import socket
import sys


def load_symbols(path):
    addrs, names = [], []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[1] in "tTwW":
                    addrs.append(int(parts[0], 16))
                    names.append(parts[2])
    except OSError:
        return [], []
    order = sorted(range(len(addrs)), key=addrs.__getitem__)
    return [addrs[i] for i in order], [names[i] for i in order]


def name(addr, addrs, names):
    i = bisect.bisect_right(addrs, addr) - 1
    if i < 0 or addr - addrs[i] > 0x100000:
        return "?"
    return "%s+0x%x" % (names[i], addr - addrs[i])


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.settimeout(30)
        self.sock.connect(path)
        self.f = self.sock.makefile("rw")
        self.f.readline()  # the greeting
        self.call("qmp_capabilities")

    def call(self, cmd, **args):
        msg = {"execute": cmd}
        if args:
            msg["arguments"] = args
        self.f.write(json.dumps(msg) + "\n")
        self.f.flush()
        while True:
            reply = json.loads(self.f.readline())
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                return "error: %s" % reply["error"].get("desc")

    def hmp(self, line):
        return self.call("human-monitor-command", **{"command-line": line})


def main():
    qmp = Qmp(sys.argv[1])
    addrs, names = load_symbols(sys.argv[2] if len(sys.argv) > 2 else "")
    cpus = qmp.call("query-cpus-fast")
    for out in (qmp.hmp("info cpus"), qmp.hmp("info registers -a")):
        for line in str(out).splitlines():
            print(line)
            m = re.match(r"RIP=([0-9a-f]+)", line)
            if m and addrs:
                print("RIP names %s" % name(int(m.group(1), 16), addrs, names))
    if isinstance(cpus, list):
        for cpu in cpus:
            idx = cpu.get("cpu-index")
            print("--- local APIC of CPU %s" % idx)
            print(qmp.hmp("info lapic %s" % idx))
    print("--- inject-nmi: %s" % qmp.call("inject-nmi"))


if __name__ == "__main__":
    main()
