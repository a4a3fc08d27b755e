#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu/tests/mlx5_vf_check.py [QEMU]: `-device mlx5,vf=on`, the model as a
ConnectX-4 virtual function (qemu/hw/net/mlx5/mlx5_vf.c), over qtest:

1. the PCI function: 15b3:1014 (1018 for device-id=0x1017), no SR-IOV
   capability, FLR; trusted=on without vf=on refused;
2. bring-up with the VF's own page counts (4 boot, 1024 init) and general
   caps without vport_group_manager/eswitch_manager;
3. ACCESS_REG (HOST_ENDIANNESS, PAOS, PMTU, PTYS) refused: BAD_OP, syndrome
   0x6d35000b, vf-port-register-refused counts, no strict counter moves;
4. the vport: MAC, MTU, min_wqe_inline_mode L2, state up; promisc refused
   (BAD_PARAM, 0x6d35000c, vf-promisc-refused) unless trusted=on;
5. the e-switch's multicast filter: a multicast frame dropped
   (vf-mc-filtered) until its MAC is on the allowed list, broadcast always
   passes, a trusted VF takes every multicast frame.
Exits 0 and prints "all passed" when all hold.
"""
import os
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "mlx5"))
import prm  # noqa: E402
from qtest_box import Box, EQ_BASE, Checks, socket_box  # noqa: E402

MAC = bytes.fromhex("525400123456")
PEER = bytes.fromhex("02000000aa01")
MEM = 0x4000000
DBR, CQBUF, RQBUF, RXDATA = MEM, MEM + 0x10000, MEM + 0x20000, MEM + 0x40000
PAGES = 0x8000000
MDNS = bytes.fromhex("01005e0000fb")
V6ALL = bytes.fromhex("333300000001")


def status(out):
    return out[0], struct.unpack(">I", out[4:8])[0]


def strict_counts(b):
    names = [n["name"] for n in b.qmp("qom-list", path="/machine/peripheral/nic0")
             if n["name"].startswith("strict-")]
    return {n: b.count(n) for n in names}


def bring_up(b, chk):
    """ENABLE_HCA .. INIT_HCA as Linux orders it (PRM "Initialization")."""
    b.clock_step(5_000_000)
    b.set_cmdq()

    def run(inp, out_len=16, slot=0):
        return b.cmd(inp, out_len, slot=slot)[1]

    def give(n, base):
        inp = struct.pack(">HHHHII", 0x108, 0, 0, 1, 0, n) + b"".join(
            struct.pack(">Q", base + i * 4096) for i in range(n))
        return run(inp, 16, slot=31)[0]

    chk.ok(run(prm.hdr(0x104))[0] == 0, "ENABLE_HCA")
    boot = struct.unpack(">I", run(prm.hdr(0x107, 1))[12:16])[0]
    chk.ok(boot == 4, f"QUERY_PAGES boot: {boot} (the model's VF count, 4)")
    chk.ok(give(boot, PAGES) == 0, f"MANAGE_PAGES give {boot}")
    cap_max = run(prm.hdr(0x100, 0), 0x1010)[16:]
    cap_cur = run(prm.hdr(0x100, 1), 0x1010)[16:]
    chk.ok(cap_max[0x34] & 0x81 == 0 and cap_cur[0x34] & 0x81 == 0 and cap_max[0x34] & 0x02,
           f"general caps byte 0x34 {cap_max[0x34]:#x}/{cap_cur[0x34]:#x}: no vport_group_manager, "
           f"no eswitch_manager, nic_flow_table kept")
    setcap = bytearray(prm.hdr(0x109, 0) + bytes(cap_cur))
    setcap[16 + 0x34] |= 0x80            # asks for vport_group_manager: not a VF's
    chk.ok(run(bytes(setcap))[0] == 0, "SET_HCA_CAP")
    cur = run(prm.hdr(0x100, 1), 0x1010)[16:]
    chk.ok(cur[0x34] & 0x80 == 0, "SET_HCA_CAP cannot make a VF the vport group manager")
    init = struct.unpack(">I", run(prm.hdr(0x107, 2))[12:16])[0]
    chk.ok(init == 1024, f"QUERY_PAGES init: {init} (the model's VF count, 1024)")
    chk.ok(run(prm.hdr(0x102))[0] == 4, "INIT_HCA before the init pages: bad system state")
    chk.ok(give(init, PAGES + 0x100000) == 0 and b.count("fw-pages") == boot + init,
           f"MANAGE_PAGES give {init}: {b.count('fw-pages')} held")
    chk.ok(run(prm.hdr(0x102))[0] == 0, "INIT_HCA")
    out = run(prm.hdr(0x802))
    uar = struct.unpack(">I", out[8:12])[0]
    eq = bytearray(0x118)
    struct.pack_into(">HHHH", eq, 0, 0x301, 0, 0, 0)
    struct.pack_into(">I", eq, 0x10 + 0x0c, 6 << 24 | uar)      # 64 EQEs
    struct.pack_into(">Q", eq, 0x58, 1 << 0x09)                 # port change
    struct.pack_into(">Q", eq, 0x110, EQ_BASE)
    out = run(bytes(eq))
    chk.ok(out[0] == 0 and uar == 0x10, f"ALLOC_UAR {uar:#x}, CREATE_EQ {out[11]:#x}")
    return uar, out[11]


def port_registers(b, chk):
    """Every ACCESS_REG refused on a VF, counted, never strict."""
    before, strict = b.count("vf-port-register-refused"), strict_counts(b)
    regs = ((0x7004, True, bytes(16), "HOST_ENDIANNESS write"),
            (0x5006, False, bytes([0, 1, 0, 0]).ljust(16, b"\0"), "PAOS read"),
            (0x5003, False, bytes([0, 1, 0, 0]).ljust(16, b"\0"), "PMTU read"),
            (0x5004, False, bytes([0, 1, 0, 4]).ljust(64, b"\0"), "PTYS read"))
    for reg, write, data, what in regs:
        _, out, _ = b.cmd(prm.access_reg(reg, write, data), 0x10 + len(data))
        chk.ok(status(out) == (2, 0x6d35000b), f"ACCESS_REG {what}: status {out[0]:#x} (bad operation), "
                                               f"syndrome {status(out)[1]:#x}")
    got = b.count("vf-port-register-refused") - before
    chk.ok(got == 4 and strict_counts(b) == strict,
           f"vf-port-register-refused +{got} (want +4), no strict counter moved")


def vport(b, chk):
    _, out, _ = b.cmd(prm.hdr(0x754), 0x110)
    v = out[0x10:]
    mtu = struct.unpack(">H", v[0x26:0x28])[0]
    chk.ok(out[0] == 0 and v[0xf6:0xfc] == MAC and v[0] & 7 == 1 and mtu == 1522,
           f"vport context: MAC {v[0xf6:0xfc].hex(':')}, min_wqe_inline_mode {v[0] & 7} (L2), mtu {mtu}")
    _, out, _ = b.cmd(prm.hdr(0x750), 16)
    chk.ok(out[0] == 0 and out[15] & 0xf == 1, "QUERY_VPORT_STATE: up")


def modify_vport(field_select, ctx_f0=0, macs=()):
    """PRM "MODIFY_NIC_VPORT_CONTEXT": field_select at 0x0c, the context at
    0x100 (promisc 31:29 / allowed_list_type 26:24 / size 11:0 of 0xf0),
    the address list from 0x200, the MAC in each entry's last 6 bytes."""
    b = bytearray(0x200 + 8 * len(macs))
    struct.pack_into(">HHHHII", b, 0, 0x755, 0, 0, 0, 0, field_select)
    struct.pack_into(">I", b, 0x100 + 0xf0, ctx_f0)
    for i, m in enumerate(macs):
        b[0x200 + 8 * i + 2:0x200 + 8 * i + 8] = m
    return bytes(b)


def promisc(b, chk, trusted):
    before, strict = b.count("vf-promisc-refused"), strict_counts(b)
    _, out, _ = b.cmd(modify_vport(1 << 4, 0x6 << 28), 16)        # promisc_uc | promisc_mc
    got = b.count("vf-promisc-refused") - before
    if trusted:
        chk.ok(status(out) == (0, 0) and got == 0, "trusted VF: promisc accepted")
    else:
        chk.ok(status(out) == (3, 0x6d35000c) and got == 1 and strict_counts(b) == strict,
               f"untrusted VF: promisc refused, status {out[0]:#x} syndrome {status(out)[1]:#x}, "
               f"vf-promisc-refused +{got}, not strict")
        _, out, _ = b.cmd(modify_vport(1 << 4, 0), 16)
        chk.ok(out[0] == 0, "untrusted VF: promisc cleared: accepted")


def rx_setup(b, chk, uar, eqn):
    """One CQ, RQ, direct TIR and a wildcard flow entry: every frame the
    vport takes lands in the RQ (16 WQEs posted)."""
    def run(inp):
        _, out, _ = b.cmd(inp, 16)
        return out[0], struct.unpack(">I", out[8:12])[0] & 0xffffff
    b.write(DBR, bytes(0x100))
    b.write(CQBUF, bytes([0xff]) * 2048)
    sts, pd = [], None
    st, pd = run(prm.hdr(0x800))
    sts.append(st)
    st, td = run(prm.hdr(0x816))
    sts.append(st)
    st, cq = run(prm.create_cq(5, uar, eqn, DBR, [CQBUF]))
    sts.append(st)
    st, rq = run(prm.create_wq(0x908, cq, pd, DBR + 0x40, 4, 4, [RQBUF]))
    sts.append(st)
    sts.append(run(prm.modify_wq(0x909, rq, 0, 1))[0])
    st, tir = run(prm.create_tir(td, inline_rqn=rq))
    sts.append(st)
    st, ft = run(prm.create_flow_table(4))
    sts.append(st)
    st, g = run(prm.create_flow_group(ft, 0, 0))
    sts.append(st)
    sts.append(run(prm.set_fte(ft, 0, g, tir))[0])
    sts.append(run(prm.set_root(ft))[0])
    for i in range(16):
        b.write(RQBUF + 16 * i, struct.pack(">IIQ", 2048, prm.RESERVED_LKEY, RXDATA + 0x800 * i))
    b.write(DBR + 0x40, struct.pack(">I", 16))
    chk.ok(sts == [0] * len(sts), f"receive path: PD, TD, CQ, RQ, TIR, flow table/group/entry, root: {sts}")


def deliver(b, peer, dst):
    """Send a frame to dst; returns 'rx' (received), 'filtered' or None."""
    frame = dst + PEER + b"\x08\x00" + bytes(46)
    rx, filt = b.count("rx-packets"), b.count("vf-mc-filtered")
    peer.send(frame)
    for _ in range(100):
        if b.count("rx-packets") != rx:
            return "rx"
        if b.count("vf-mc-filtered") != filt:
            return "filtered"
        time.sleep(0.02)
    return None


def multicast(b, chk, peer, trusted):
    if trusted:
        chk.ok(deliver(b, peer, MDNS) == "rx", "trusted VF: a multicast frame off the list is received")
        return
    chk.ok(deliver(b, peer, MDNS) == "filtered", "01:00:5e:00:00:fb not on the list: dropped, vf-mc-filtered +1")
    chk.ok(deliver(b, peer, V6ALL) == "filtered", "33:33:00:00:00:01 not on the list: dropped")
    chk.ok(deliver(b, peer, b"\xff" * 6) == "rx", "broadcast: received")
    chk.ok(deliver(b, peer, MAC) == "rx", "unicast to the VF's MAC: received")
    _, out, _ = b.cmd(modify_vport(1 << 2, 1 << 24 | 2, (MDNS, V6ALL)), 16)
    chk.ok(out[0] == 0, "MODIFY_NIC_VPORT_CONTEXT addresses_list: multicast list of 2")
    q = bytearray(prm.hdr(0x754))
    q[0x0c] = 1                                                # allowed_list_type multicast
    _, out, _ = b.cmd(bytes(q), 0x110 + 8 * 4)
    v = out[0x10:]
    n = struct.unpack(">H", v[0xf2:0xf4])[0] & 0xfff
    chk.ok(v[0xf0] & 7 == 1 and n == 2 and v[0x102:0x108] == MDNS and v[0x10a:0x110] == V6ALL,
           f"QUERY_NIC_VPORT_CONTEXT multicast list: {n} entries")
    chk.ok(deliver(b, peer, MDNS) == "rx", "01:00:5e:00:00:fb on the list: received")
    chk.ok(deliver(b, peer, V6ALL) == "rx", "33:33:00:00:00:01 on the list: received")
    chk.ok(deliver(b, peer, bytes.fromhex("333300000002")) == "filtered", "33:33:00:00:00:02 off the list: dropped")


def run_vf(qemu, chk, trusted):
    b, peer = socket_box(qemu, dev_opts=",vf=on" + (",trusted=on" if trusted else ""))
    print(f"--- vf=on{',trusted=on' if trusted else ''}")
    try:
        if not trusted:
            chk.ok(b.vendor_device == 0x101415b3, f"vendor:device {b.vendor_device & 0xffff:04x}:"
                                                  f"{b.vendor_device >> 16:04x} (ConnectX-4 VF)")
            # extended capabilities through MMCONFIG: the q35 host bridge's
            # PCIEXBAR (0x60) at 0xb0000000, as firmware would set it
            b.cfg(0, 0, 0x64, 0)
            b.cfg(0, 0, 0x60, 0xb0000001)
            ext, sriov, n = 0x100, False, 0
            while ext and n < 48:
                h = struct.unpack("<I", b.read(0xb0000000 + (1 << 20) + ext, 4))[0]
                sriov |= h & 0xffff == 0x10
                ext, n = h >> 20, n + 1
            pcie = b.find_cap(0x10)
            mmcfg_id = struct.unpack("<I", b.read(0xb0000000 + (1 << 20), 4))[0]
            chk.ok(mmcfg_id == b.vendor_device and not sriov and b.cfg(1, 0, pcie + 4) & (1 << 28) != 0,
                   f"no SR-IOV extended capability (MMCONFIG reads ID {mmcfg_id:#x}); FLR")
            chk.ok(b.mmio_read(0) == 12 << 16 | 14, f"BAR0 the PF's layout: fw_rev at 0 ({b.mmio_read(0):#x})")
        strict = strict_counts(b)
        uar, eqn = bring_up(b, chk)
        if not trusted:
            port_registers(b, chk)
            vport(b, chk)
        promisc(b, chk, trusted)
        rx_setup(b, chk, uar, eqn)
        multicast(b, chk, peer, trusted)
        moved = {k: v - strict[k] for k, v in strict_counts(b).items() if v != strict[k]}
        chk.ok(not moved or moved == {"strict-bad-state": 1},
               f"strict counters moved only by the early INIT_HCA: {moved}")
        b.flr()
        chk.ok(b.count("fw-pages") == 0 and b.mmio_read(0x1fc) >> 31 == 1, "FLR: pages forgotten, initializing")
    finally:
        log = b.close()
    print(log.strip())


def main():
    qemu = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "qemu", "qemu-system-x86_64")
    chk = Checks()
    run_vf(qemu, chk, trusted=False)
    run_vf(qemu, chk, trusted=True)
    b = Box(qemu, dev_opts=",vf=on,device-id=0x1017")
    chk.ok(b.vendor_device >> 16 == 0x1018, f"vf=on,device-id=0x1017: device {b.vendor_device >> 16:04x} (5 VF)")
    b.close()
    r = subprocess.run([qemu, "-machine", "q35", "-display", "none", "-nodefaults", "-S",
                        "-device", "mlx5,trusted=on", "-qmp", "stdio"],
                       input='{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n',
                       capture_output=True, text=True, timeout=30)
    chk.ok(r.returncode != 0, "trusted=on without vf=on: refused")
    print("mlx5_vf_check:", "FAIL " + "; ".join(chk.fails) if chk.fails else "all passed")
    return 1 if chk.fails else 0


if __name__ == "__main__":
    sys.exit(main())
