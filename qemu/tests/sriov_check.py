#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu/tests/sriov_check.py [QEMU]: the 82599 model's SR-IOV rules,
driven register by register through QEMU's qtest protocol (no guest), as
strict_check.py drives the PF's. The PF sits behind a pcie-root-port (its
VFs on its bus); configuration space through ECAM (q35's PCIEXBAR). Checked:
the SR-IOV capability (TotalVFs 63, offset 0x80, stride 2, VF 8086:10ED,
VF BAR0/BAR3 16 KB), RSTI until CTRL_EXT.PFRSTD then RSTD (read to clear),
VFCTRL.RST's RSTD, the mailbox hand-over both ways (VFU/PFU exclusive,
REQ -> PFMBICR and EICR.MAILBOX, STS -> PFSTS), the unlocked-buffer
counters, VF queue registers on their pool's PF queues (GCR_EXT.VT_Mode
32 and 64 pools; queue 64 at 0xD000), VFLR (FLR of a VF: PFVFLRE,
EICR.MAILBOX, PFVFLREC), the switch between pools (frames the PF's pool
sends, looped back by PFDTXGSWC.LBE into the VF pools' rings: RAR +
MPSAR, BAM, Rpl_En and the default pool, AUPE, PFVFRE, PFVFTE,
PFVFSPOOF with SSVPC) and `sriov=off`. Exits 0 when all hold.
Default QEMU: build/qemu/qemu-system-x86_64 (make qemu).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from strict_check import ROOT, Box  # noqa: E402

ECAM = 0xB0000000
WIN = 0xE0000000            # the root port's memory window, 16 MB
PF_BAR0 = WIN
VF_BAR0 = WIN + 0x100000    # 63 x 16 KB
VF_BAR3 = WIN + 0x200000
SRIOV = 0x160
NVFS = 40                   # past 32: VF 32's queue 0 is PF queue 64

# PF registers (8.2.3) and VF registers (8.3)
CTRL_EXT, EICS, GCR_EXT = 0x18, 0x808, 0x11050
PFMAILBOX, PFMBMEM, PFMBICR = 0x4B00, 0x13000, 0x710
PFVFLRE0, PFVFLREC0 = 0x600, 0x700
VFCTRL, VFMBMEM, VFMAILBOX, VFRDBAL0 = 0x0, 0x200, 0x2FC, 0x1000
REQ, VFU, PFU_RO, PFSTS, RSTI, RSTD = 1, 4, 8, 0x10, 0x40, 0x80
STS, PF_VFU, PFU = 1, 4, 8
MAILBOX = 1 << 19


class SriovBox(Box):
    def __init__(self, qemu, nic="ixgbe,id=nic0,bus=rp1,addr=0"):
        self.args = ["-device", "pcie-root-port,id=rp1,bus=pcie.0,addr=4,chassis=1,slot=1",
                     "-device", nic]
        super().__init__(qemu)

    def device_args(self):
        return self.args

    def cfg(self, bus, devfn, reg):
        return ECAM | bus << 20 | devfn << 12 | reg

    def cr(self, bus, devfn, reg):
        return self.qt(f"readl {self.cfg(bus, devfn, reg):#x}")

    def cw(self, bus, devfn, reg, val):
        self.qt(f"writel {self.cfg(bus, devfn, reg):#x} {val:#x}")

    def setup(self):
        # q35 MCH PCIEXBAR (0x60): ECAM at 0xB0000000, 256 buses, enabled
        self.qt(f"outl 0xcf8 {0x80000060:#x}")
        self.qt(f"outl 0xcfc {ECAM | 1:#x}")
        rp = 4 << 3
        self.cw(0, rp, 0x18, 0x00010100)              # buses 0 -> 1..1
        self.cw(0, rp, 0x20, (WIN >> 16) | ((WIN + 0xF00000) & 0xFFF00000))
        self.cw(0, rp, 0x04, 0x6)
        self.cw(1, 0, 0x10, PF_BAR0)
        self.cw(1, 0, 0x14, 0)
        self.cw(1, 0, 0x04, 0x6)

    def vf(self, n, off):
        return VF_BAR0 + 0x4000 * n + off

    def vr(self, n, off):
        return self.qt(f"readl {self.vf(n, off):#x}")

    def vw(self, n, off, val):
        self.qt(f"writel {self.vf(n, off):#x} {val:#x}")


def ext_caps(b, bus, devfn):
    caps, off = {}, 0x100
    while off:
        h = b.cr(bus, devfn, off)
        if h in (0, 0xFFFFFFFF):
            break
        caps[h & 0xFFFF] = off
        off = h >> 20
    return caps


MAC_PF, MAC_A, MAC_B = "525400000002", "02000000000a", "02000000000b"
RING, BUFS = 0x100000, 0x200000


def mac_regs(mac):
    m = bytes.fromhex(mac)
    return int.from_bytes(m[:4], "little"), int.from_bytes(m[4:], "little")


class Pools:
    """VT on, 32 pools of 4: VF pools 0 and 1, the PF pool 2 sending from
    its queue 8; each pool's first RX queue an 8-descriptor ring."""

    def __init__(self, b):
        self.b, self.sent = b, 0
        b.w(GCR_EXT, 2)
        b.w(0x8120, 1 << 1)                                 # MTQC.VT_Ena
        self.vtctl(def_pl=2, rpl=True)
        for reg in (0x51E0, 0x8110):                        # PFVFRE, PFVFTE: pools 0-2
            b.w(reg, 0x7)
        b.w(0x8220, 1)                                      # PFDTXGSWC.LBE
        for p in range(3):
            b.w(0xF000 + 4 * p, (1 << 24) | (1 << 27))     # AUPE, BAM
        for i, (mac, pool) in enumerate([(MAC_PF, 2), (MAC_A, 0), (MAC_B, 1)]):
            lo, hi = mac_regs(mac)
            b.w(0xA200 + 8 * i, lo)
            b.w(0xA204 + 8 * i, hi | 1 << 31)
            b.w(0xA600 + 8 * i, 1 << pool)                  # MPSAR_LO
        b.w(0x4A80, 1)                                      # DMATXCTL.TE
        b.w(0x3000, 1)                                      # RXCTRL.RXEN
        for p in range(3):
            q, ring = 4 * p, RING + 0x1000 * p
            for d in range(8):
                b.qt(f"writeq {ring + 16 * d:#x} {BUFS + 0x10000 * p + 0x800 * d:#x}")
            base = 0x1000 + 0x40 * q
            b.w(base, ring)
            b.w(base + 8, 128)
            b.w(base + 0x14, 0x02000002)                    # 2 KB, advanced one buffer
            b.w(base + 0x28, 1 << 25)
            b.w(base + 0x18, 7)
        tq = 0x6000 + 0x40 * 8
        b.w(tq, RING + 0x8000)
        b.w(tq + 8, 128)
        b.w(tq + 0x28, 1 << 25)

    def vtctl(self, def_pl, rpl):
        self.b.w(0x51B0, 1 | def_pl << 7 | (1 << 30 if rpl else 0))

    def heads(self):
        return [self.b.r(0x1000 + 0x40 * 4 * p + 0x10) for p in range(3)]

    def send(self, dst, src=MAC_PF):
        """One 60-byte frame from the PF pool's queue 8; the pools that got it."""
        before = self.heads()
        frame = bytes.fromhex(dst + src + "88b5") + bytes(46)
        buf, d = RING + 0x9000, RING + 0x8000 + 16 * (self.sent % 8)
        self.b.qt(f"write {buf:#x} {len(frame)} 0x{frame.hex()}")
        self.b.qt(f"writeq {d:#x} {buf:#x}")
        self.b.qt(f"writeq {d + 8:#x} {len(frame) | 0x0B << 24:#x}")  # EOP, IFCS, RS
        self.sent += 1
        self.b.w(0x6000 + 0x40 * 8 + 0x18, self.sent % 8)
        return [p for p, (x, y) in enumerate(zip(before, self.heads())) if x != y]


def pool_checks(b, check):
    p = Pools(b)
    got = p.send(MAC_A)
    check("unicast to VF 0's MAC: pool 0 alone (RAR + MPSAR)", got == [0], got)
    got = p.send(MAC_B)
    check("unicast to VF 1's MAC: pool 1 alone", got == [1], got)
    got = p.send("ffffffffffff")
    check("broadcast, Rpl_En: every BAM pool but the sender's", got == [0, 1], got)
    p.vtctl(def_pl=0, rpl=False)
    got = p.send("ffffffffffff")
    check("broadcast without Rpl_En: the default pool alone", got == [0], got)
    p.vtctl(def_pl=2, rpl=True)
    b.w(0xF000 + 4, 1 << 27)                                # pool 1: BAM, no AUPE
    got = p.send("ffffffffffff")
    check("an untagged frame skips a pool without AUPE", got == [0], got)
    b.w(0xF000 + 4, (1 << 24) | (1 << 27))
    b.w(0x51E0, 0x5)                                        # PFVFRE: pool 1 off
    got = p.send(MAC_B)
    check("PFVFRE clear: pool 1 receives nothing", got == [], got)
    b.w(0x51E0, 0x7)
    b.w(0x8200, 1 << 2)                                     # PFVFSPOOF: the PF pool checked
    got = p.send(MAC_A, src="020000000099")
    ssvpc = b.r(0x8780)
    check("anti-spoof: a foreign source MAC is dropped and counted in SSVPC", got == [] and ssvpc == 1,
          f"{got} SSVPC {ssvpc}")
    got = p.send(MAC_A)
    check("anti-spoof: the pool's own MAC passes", got == [0], got)
    b.w(0x8110, 0x3)                                        # PFVFTE: pool 2 may not send
    got = p.send(MAC_A)
    check("PFVFTE clear: the PF pool's frame goes nowhere", got == [], got)


def main():
    qemu = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "qemu", "qemu-system-x86_64")
    fails = []

    def check(what, ok, got=""):
        print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + str(got) if got != '' else ''}")
        if not ok:
            fails.append(what)

    b = SriovBox(qemu)
    b.setup()
    expect = lambda what, name, want: check(f"{what}: {name} = {b.count(name)} (want {want})",
                                           b.count(name) == want)

    # 9.4.4: the capability
    caps = ext_caps(b, 1, 0)
    check("SR-IOV capability at 0x160", caps.get(0x10) == SRIOV, {hex(k): hex(v) for k, v in caps.items()})
    total = b.cr(1, 0, SRIOV + 0x0C) >> 16
    off_stride = b.cr(1, 0, SRIOV + 0x14)
    did = b.cr(1, 0, SRIOV + 0x18) >> 16
    check("TotalVFs 63", total == 63, total)
    check("VF offset 0x80, stride 2 (QEMU: VFs on the PF's bus)", off_stride == 0x00020080, hex(off_stride))
    check("VF device ID 0x10ED", did == 0x10ED, hex(did))

    # VFs enabled: NumVFs, VF BAR0 and BAR3, VF Enable + VF MSE
    b.cw(1, 0, SRIOV + 0x10, NVFS)
    b.cw(1, 0, SRIOV + 0x24, VF_BAR0)
    b.cw(1, 0, SRIOV + 0x28, 0)
    b.cw(1, 0, SRIOV + 0x30, VF_BAR3)
    b.cw(1, 0, SRIOV + 0x34, 0)
    b.cw(1, 0, SRIOV + 0x08, 0x9)                 # VFE | VF MSE
    for n in range(NVFS):                          # QEMU maps a VF's BARs by its own
        b.cw(1, 0x80 + 2 * n, 0x04, 0x6)          # Command register (as Linux sets it)
    status = b.r(0x8)
    check("STATUS.IOV with VFs on", status & (1 << 18), hex(status))

    # 7.10.2.x: RSTI until the PF says PFRSTD, then RSTD once
    check("VFMAILBOX.RSTI before PFRSTD", b.vr(1, VFMAILBOX) & RSTI)
    b.w(CTRL_EXT, 1 << 14)
    m1, m2 = b.vr(1, VFMAILBOX), b.vr(1, VFMAILBOX)
    check("PFRSTD: RSTI clear, RSTD set, RSTD clears on read", not m1 & RSTI and m1 & RSTD and not m2 & RSTD,
          f"{m1:#x} {m2:#x}")
    b.vw(1, VFCTRL, 1 << 26)
    check("VFCTRL.RST: RSTD", b.vr(1, VFMAILBOX) & RSTD)

    # VF -> PF: VFU excludes PFU; REQ sets PFMBICR and EICR.MAILBOX
    b.vw(1, VFMAILBOX, VFU)
    check("VFU taken", b.vr(1, VFMAILBOX) & VFU)
    b.w(PFMAILBOX + 4, PFU)
    pf = b.r(PFMAILBOX + 4)
    check("PFU refused while the VF holds the buffer", pf & PF_VFU and not pf & PFU, hex(pf))
    b.vw(1, VFMBMEM, 0x12345678)
    check("VFMBMEM is PFMBMEM(1)", b.r(PFMBMEM + 0x40) == 0x12345678)
    b.vw(1, VFMAILBOX, REQ)
    icr, eics = b.r(PFMBICR), b.r(EICS)
    check("REQ: PFMBICR VFREQ bit 1, EICR.MAILBOX", icr & 2 and eics & MAILBOX, f"{icr:#x} {eics:#x}")
    check("REQ without VFU released the buffer", not b.vr(1, VFMAILBOX) & VFU)
    b.w(PFMBICR, 2)
    check("PFMBICR write 1 to clear", not b.r(PFMBICR) & 2)

    # PF -> VF: PFU excludes VFU; STS sets PFSTS (read to clear)
    b.w(PFMAILBOX + 4, PFU)
    check("PFU taken", b.r(PFMAILBOX + 4) & PFU)
    b.vw(1, VFMAILBOX, VFU)
    m = b.vr(1, VFMAILBOX)
    check("VFU refused while the PF holds the buffer", m & PFU_RO and not m & VFU, hex(m))
    b.w(PFMBMEM + 0x40, 0x1)
    expect("PFMBMEM under PFU", "strict-pfmbmem-unlocked", 0)
    b.w(PFMAILBOX + 4, STS)
    m1, m2 = b.vr(1, VFMAILBOX), b.vr(1, VFMAILBOX)
    check("STS: PFSTS once, PFU released", m1 & PFSTS and not m2 & PFSTS and not m1 & PFU_RO, f"{m1:#x} {m2:#x}")

    # the buffer written unlocked: kept, and counted (7.10.2.x)
    b.w(PFMBMEM + 0x40 * 2, 0xABCD)
    expect("PFMBMEM without PFU", "strict-pfmbmem-unlocked", 1)
    check("... and kept", b.vr(2, VFMBMEM) == 0xABCD)
    b.vw(2, VFMBMEM + 4, 0x1)
    expect("VFMBMEM without VFU", "strict-vfmbmem-unlocked", 1)

    # GCR_EXT.VT_Mode: VF n's queue i is PF queue n * qpp + i
    b.w(GCR_EXT, 2)                                # 32 pools of 4
    b.vw(1, VFRDBAL0 + 0x40, 0x11180)
    got = b.r(0x1000 + 0x40 * 5)
    check("VT 32: VF 1 queue 1 is PF RX queue 5", got == 0x11180, hex(got))
    b.vw(1, VFRDBAL0 + 0x40 * 4, 0x80)
    expect("VT 32: VF queue 4 is past the pool", "strict-vf-unmapped", 1)
    b.w(GCR_EXT, 3)                                # 64 pools of 2
    b.vw(1, 0x2000 + 0x40, 0x22200)               # VFTDBAL(1)
    got = b.r(0x6000 + 0x40 * 3)
    check("VT 64: VF 1 TX queue 1 is PF TX queue 3", got == 0x22200, hex(got))
    b.vw(32, VFRDBAL0, 0x33300)
    got = b.r(0xD000)
    check("VT 64: VF 32 queue 0 is PF RX queue 64, at 0xD000", got == 0x33300, hex(got))

    # VFLR: an FLR of VF 1's function (PCIe Device Control bit 15)
    b.r(0x800)                                     # EICR read clears it
    vf1 = 0x80 + 2 * 1
    b.cw(1, vf1, 0xA0 + 8, b.cr(1, vf1, 0xA0 + 8) | 1 << 15)
    lre, eics = b.r(PFVFLRE0), b.r(EICS)
    check("FLR of VF 1: PFVFLRE bit 1, EICR.MAILBOX", lre & 2 and eics & MAILBOX, f"{lre:#x} {eics:#x}")
    b.w(PFVFLREC0, 2)
    check("PFVFLREC clears it", not b.r(PFVFLRE0) & 2)

    expect("no other complaint", "strict-other", 0)
    b.close()
    print(open(b.log).read().strip())

    # 7.10.3: the switch between pools, frames sent by the PF's pool and
    # looped back (PFDTXGSWC.LBE) into the VFs' pools' rings
    b = SriovBox(qemu)
    b.setup()
    pool_checks(b, check)
    expect("no complaint on the pool steps", "strict-other", 0)
    b.close()
    print(open(b.log).read().strip())

    # sriov=off: no capability
    b = SriovBox(qemu, nic="ixgbe,id=nic0,bus=rp1,addr=0,sriov=off")
    b.setup()
    caps = ext_caps(b, 1, 0)
    check("sriov=off: no SR-IOV capability", 0x10 not in caps, {hex(k): hex(v) for k, v in caps.items()})
    b.close()

    print("sriov_check:", "FAIL " + ", ".join(fails) if fails else "all passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
