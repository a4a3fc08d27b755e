#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu/tests/strict_check.py [QEMU]: the 82599 model's strict checks and
EEPROM, driven register by register through QEMU's qtest protocol (no
guest). Each datasheet rule is broken once and the matching qom counter
must count it; the same steps done in order must not count; the EEPROM
read through EERD must carry a valid checksum. Exits 0 when all hold.
Default QEMU: build/qemu/qemu-system-x86_64 (make qemu).
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAR0 = 0xE0000000
DEV = 4  # q35 bus 0, slot 4


class Box:
    def __init__(self, qemu):
        self.dir = tempfile.mkdtemp(prefix="ixgbe-strict-")
        sock = os.path.join(self.dir, "qmp.sock")
        self.log = os.path.join(self.dir, "guest-errors.log")
        self.p = subprocess.Popen(
            [qemu, "-machine", "q35", "-accel", "qtest", "-qtest", "stdio",
             "-display", "none", "-nodefaults", "-m", "128M",
             "-qmp", f"unix:{sock},server=on,wait=off",
             "-d", "guest_errors", "-D", self.log,
             *self.device_args()],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        self.q = socket.socket(socket.AF_UNIX)
        self.q.connect(sock)
        self.qf = self.q.makefile("rw")
        self.qf.readline()  # greeting
        self.qmp("qmp_capabilities")

    def device_args(self):
        """The devices on the command line (sriov_check.py puts its own)."""
        # on pcie.0 at slot 4 the 63 VFs would not fit the bus: no SR-IOV
        return ["-device", f"ixgbe,id=nic0,addr={DEV},sriov=off"]

    def qmp(self, cmd, **args):
        self.qf.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
        self.qf.flush()
        while True:
            r = json.loads(self.qf.readline())
            if "return" in r or "error" in r:
                return r.get("return", r.get("error"))

    def qt(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        while True:
            r = self.p.stdout.readline().split()
            if r and r[0] == "OK":
                return int(r[1], 16) if len(r) > 1 else None
            if r and r[0] == "FAIL":
                raise RuntimeError(line)

    def cfg_write(self, reg, val):
        self.qt(f"outl 0xcf8 {0x80000000 | DEV << 11 | reg:#x}")
        self.qt(f"outl 0xcfc {val:#x}")

    def r(self, off):
        return self.qt(f"readl {BAR0 + off:#x}")

    def w(self, off, val):
        self.qt(f"writel {BAR0 + off:#x} {val:#x}")

    def count(self, name):
        return self.qmp("qom-get", path="/machine/peripheral/nic0", property=name)

    def close(self):
        self.p.kill()
        self.p.wait()


def main():
    qemu = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "qemu", "qemu-system-x86_64")
    b = Box(qemu)
    fails = []

    def expect(what, name, want):
        got = b.count(name)
        ok = got == want
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {name} = {got} (want {want})")
        if not ok:
            fails.append(what)

    b.cfg_write(0x10, BAR0)   # BAR0 low (64-bit BAR)
    b.cfg_write(0x14, 0)
    b.cfg_write(0x04, 0x6)    # memory space, bus master
    CTRL, STATUS, SWSM, SW_FW_SYNC, EERD = 0x0, 0x8, 0x10140, 0x10160, 0x10014
    TDT0, TXDCTL0, DMATXCTL, RDT0, RXDCTL0, RDLEN0 = 0x6018, 0x6028, 0x4A80, 0x1018, 0x1028, 0x1008

    # 4.6.3.2: reset with the PCIe master still enabled, then done right
    b.w(CTRL, 1 << 26)
    expect("CTRL.RST without master disable", "strict-reset-while-master", 1)
    b.w(CTRL, 1 << 2)
    if b.r(STATUS) & (1 << 19):
        fails.append("STATUS.GIO still set after CTRL.GIO_DIS")
    b.w(CTRL, (1 << 2) | (1 << 26))
    expect("CTRL.RST after master disable", "strict-reset-while-master", 1)
    if b.r(CTRL) & (1 << 26):
        fails.append("CTRL.RST did not self-clear")

    # 4.6.8: TXDCTL.ENABLE before DMATXCTL.TE; a tail moved on a disabled queue
    b.w(TDT0, 5)
    expect("TDT moved, queue disabled", "strict-tail-before-enable", 1)
    b.w(TDT0, 0)   # back to the head: an empty ring, as the per-queue init sets it
    expect("TDT set to TDH, queue disabled", "strict-tail-before-enable", 1)
    b.w(TXDCTL0, 1 << 25)
    expect("TXDCTL.ENABLE before DMATXCTL.TE", "strict-tx-enable-before-te", 1)
    if not b.r(TXDCTL0) & (1 << 25):
        fails.append("TXDCTL.ENABLE does not read back")
    b.w(TXDCTL0, 0)
    b.w(DMATXCTL, 1)
    b.w(TXDCTL0, 1 << 25)
    expect("TXDCTL.ENABLE after DMATXCTL.TE", "strict-tx-enable-before-te", 1)

    # 4.6.7: RXDCTL.ENABLE with no ring, RDT moved before the enable
    b.w(RDT0, 3)
    expect("RDT moved, queue disabled", "strict-tail-before-enable", 2)
    b.w(RXDCTL0, 1 << 25)
    expect("RXDCTL.ENABLE with RDLEN 0", "strict-rx-enable-unready", 1)

    # 10.5.x: SW_FW_SYNC only under SWSM.SWESMBI
    b.w(SW_FW_SYNC, 1)
    expect("SW_FW_SYNC without the SWSM semaphore", "strict-semaphore-misuse", 1)
    if b.r(SWSM) & 1:
        fails.append("SWSM.SMBI set before anyone read it")
    if not b.r(SWSM) & 1:
        fails.append("reading SWSM did not take SMBI")
    b.w(SWSM, 0x3)
    b.w(SW_FW_SYNC, 0)
    b.w(SWSM, 0)
    expect("SW_FW_SYNC under SWSM.SWESMBI", "strict-semaphore-misuse", 1)

    # chapter 6: the EEPROM through EERD, its checksum 0xBABA
    def word(a):
        b.w(EERD, a << 2 | 1)
        v = b.r(EERD)
        if not v & 2:
            fails.append(f"EERD word {a:#x}: DONE not set")
        return v >> 16
    total = sum(word(a) for a in range(0x40))
    for p in range(0x03, 0x0F):
        ptr = word(p)
        if ptr in (0, 0xFFFF):
            continue
        n = word(ptr)
        if n not in (0, 0xFFFF):
            total += sum(word(a) for a in range(ptr + 1, ptr + n + 1))
    ok = total & 0xFFFF == 0xBABA
    print(f"{'ok  ' if ok else 'FAIL'} EEPROM checksum: sum {total & 0xFFFF:#06x} (want 0xbaba)")
    if not ok:
        fails.append("EEPROM checksum")
    ral, rah = b.r(0x5400), b.r(0x5404)
    ok = rah & (1 << 31) and (ral or rah & 0xFFFF)
    print(f"{'ok  ' if ok else 'FAIL'} RAR0 loaded from the EEPROM: {ral:#010x} {rah:#010x}")
    if not ok:
        fails.append("RAR0")

    b.close()
    print(open(b.log).read().strip())
    print("strict_check:", "FAIL " + ", ".join(fails) if fails else "all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
