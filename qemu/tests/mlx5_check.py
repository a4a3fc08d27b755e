#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""qemu/tests/mlx5_check.py [QEMU]: the ConnectX-4 model (-device mlx5)
driven over QEMU's qtest protocol, no guest: a command queue and mailboxes
placed in guest memory by qtest writes, the doorbell rung through BAR0.

1. the initialization segment (firmware 14.12.1220, cmd interface 5, the
   `initializing` bit clearing after reset);
2. every command of the real card's trace (tools/mlx5/trace.py) replayed
   in the trace's order, each reply compared with the card's byte for byte
   (inline output, mailbox output, delivery status); inputs the trace did
   not dump (mailboxes of 16..48 bytes) are built here, and EQ buffers are
   ours (their addresses are inputs, not compared);
3. each strict rule broken once: its counter counts exactly one (and the
   card's own sequence breaks none);
4. the Ethernet objects and the data path, with a `-netdev socket` UDP
   peer: a frame sent (IPv4/UDP checksums filled in, LSO in three
   segments), CQEs with owner bits, a CQ overflow, an error CQE; frames
   received through the flow table (dmac group, wildcard group, a root
   table missing on to the next), TIRs (Toeplitz RSS, direct), RQT
   (MODIFY_RQT), a PA mkey, the port change events of set_link; jumbo
   frames: a frame scattered over a WQE's segments (64-byte stride),
   the invalid lkey ending a list, a frame over the port's MTU dropped
   and counted (PPCNT);
5. the page-request hook: the PAGE_REQUEST EQE, QUERY_PAGES, MANAGE_PAGES;
6. TEARDOWN_HCA with every page taken back, DISABLE_HCA, then FLR.
Exits 0 and prints "all passed" when all hold.
Default QEMU: build/qemu/qemu-system-x86_64 (make qemu).
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
import trace as mlx5trace  # noqa: E402
import prm  # noqa: E402
from qtest_box import CMDQ, EQ_BASE, Checks, socket_box  # noqa: E402

OP_MANAGE_PAGES, OP_ACCESS_REG, OP_CREATE_EQ = 0x108, 0x805, 0x301


def sig_rule(e):
    """The returned entry's signature as the card computes it: the entry
    XORs to 0xff with ownership set, output inline bytes 0x28..0x2b out."""
    x = 0xff ^ 1
    for i, v in enumerate(e):
        if i not in (0x3d, 0x3f) and not 0x28 <= i < 0x2c:
            x ^= v
    return x ^ (e[0x3f] & 0xfe)


def replay(b, chk):
    """Every command of the trace, its reply compared with the card's."""
    cmds = mlx5trace.parse()
    chk.ok(len(cmds) == 42, f"trace parsed: {len(cmds)} commands")
    eqs = 0
    for c in cmds:
        inp = bytearray(c.inp.ljust(c.in_len, b"\0"))
        if c.opcode == OP_MANAGE_PAGES and len(c.in_blocks) == 0:
            n = struct.unpack(">I", inp[12:16])[0]
            for i in range(n):     # the trace did not dump these: ours
                inp[16 + 8 * i:24 + 8 * i] = struct.pack(">Q", 0x8000000 + i * 4096)
        if c.opcode == OP_CREATE_EQ:  # our buffer for the EQ (input only)
            inp[0x110:0x118] = struct.pack(">Q", EQ_BASE + eqs * 0x40000)
            eqs += 1
        slot = 31 if c.opcode == OP_MANAGE_PAGES else 0  # as Linux: pages on the last
        entry, out, deliv = b.cmd(bytes(inp), c.out_len, slot=slot, token=c.token,
                                  sig=c.entry_in[0x3d])
        want = c.out[:c.out_len].ljust(c.out_len, b"\0") if c.out_blocks or c.out_len <= 16 \
            else c.out[:16] + out[16:]   # reply mailbox not dumped: inline compared
        # the entry's signature covers our mailbox pointers: compared by the
        # card's rule (sig_rule), which every returned entry of the trace keeps
        same = (out == want and deliv == c.delivery_status and entry[0x3c] == c.entry_out[0x3c]
                and entry[0x3d] == sig_rule(entry) and c.entry_out[0x3d] == sig_rule(c.entry_out))
        diff = ""
        if not same:
            at = next((i for i in range(len(want)) if out[i] != want[i]), None)
            diff = f" first difference at {at:#x}: {out[at:at + 8].hex()} vs {want[at:at + 8].hex()}" \
                if at is not None else f" delivery {deliv:#x}"
        chk.ok(same, f"trace #{c.index} {c.name}({c.opcode:#x}) op_mod {c.op_mod:#x}: "
                     f"{c.out_len} output bytes as the card{diff}")
    return cmds


def strict(b, chk):
    """Each rule once; the counter counts exactly one."""
    def rule(name, what, fn):
        before = b.count(name)
        fn()
        got = b.count(name) - before
        chk.ok(got == 1, f"{what}: {name} +{got} (want +1)")

    def status_of(inp, out_len=16, **kw):
        _, out, deliv = b.cmd(inp, out_len, **kw)
        return deliv, out[0], struct.unpack(">I", out[4:8])[0]

    def hdr(op, op_mod=0, rest=b""):
        return (struct.pack(">HHHH", op, 0, 0, op_mod) + rest).ljust(16, b"\0")

    def not_owned():
        b.write_entry(0, hdr(0x10a), 16, own=0)
        b.doorbell(1)
    rule("strict-doorbell-not-owned", "doorbell for an entry software owns", not_owned)
    rule("strict-bad-entry", "entry type 0x5, not PCIe 0x7",
         lambda: chk.ok(status_of(hdr(0x10a), 0x70, etype=5)[0] == 0x10, "delivery status 0x10 (bad type)"))
    rule("strict-bad-token", "mailbox token differs from the entry's",
         lambda: chk.ok(status_of(hdr(0x10a), 0x70, mb_token=0x55)[0] == 2, "delivery status 2 (token)"))
    rule("strict-bad-block-number", "second mailbox block numbered 7",
         lambda: chk.ok(status_of(hdr(0x100, 1), 0x1010, block_fix={1: 7})[0] == 3,
                        "delivery status 3 (block number)"))
    rule("strict-short-mailbox", "output chain of 1 block where 8 are needed",
         lambda: chk.ok(status_of(hdr(0x100, 1), 0x1010, out_blocks=1)[0] == 4,
                        "delivery status 4 (output pointer)"))
    rule("strict-bad-opcode", "opcode 0x7ff",
         lambda: chk.ok(status_of(hdr(0x7ff))[1] == 2, "status 2 (bad operation)"))
    rule("strict-bad-param", "MANAGE_PAGES give a page at 0x1234 (not 4 KB aligned)",
         lambda: chk.ok(status_of(hdr(0x108, 1, struct.pack(">II", 0, 1)) + struct.pack(">Q", 0x1234),
                                  slot=31)[1:] == (3, 0x6d350004),
                        "status 3 (bad parameter), syndrome 0x6d350004"))
    rule("strict-bad-resource", "DEALLOC_UAR 0x3ff, never allocated",
         lambda: chk.ok(status_of(hdr(0x803, 0, struct.pack(">I", 0x3ff)))[1] == 5,
                        "status 5 (bad resource)"))
    rule("strict-bad-state", "SET_HCA_CAP after INIT_HCA",
         lambda: chk.ok(status_of(hdr(0x109).ljust(0x1010, b"\0"))[1] == 4,
                        "status 4 (bad system state)"))
    rule("strict-bad-doorbell", "EQ doorbell on UAR page 0x40, not allocated",
         lambda: b.mmio_write(0x40 * 4096 + 0x40, 0x10000000))


def page_request(b, chk, pages_eq):
    """The PAGE_REQUEST event (test hook page-request) and the answers."""
    held = b.count("fw-pages")
    eq_buf = EQ_BASE + pages_eq * 0x40000

    def query_regular():
        _, out, _ = b.cmd(struct.pack(">HHHH", 0x107, 0, 0, 3).ljust(16, b"\0"), 16)
        return struct.unpack(">i", out[12:16])[0]

    b.qmp("qom-set", path="/machine/peripheral/nic0", property="page-request", value=5)
    eqe = b.read(eq_buf, 64)
    chk.ok(eqe[1] == 0xb and struct.unpack(">i", eqe[0x24:0x28])[0] == 5 and eqe[0x3f] & 1 == 0,
           f"PAGE_REQUEST EQE for 5 pages, owner 0: {eqe[0:4].hex()} {eqe[0x20:0x28].hex()} {eqe[0x3f]:#x}")
    chk.ok(query_regular() == 5, "QUERY_PAGES regular: 5")
    give = struct.pack(">HHHHII", 0x108, 0, 0, 1, 0, 5) + b"".join(
        struct.pack(">Q", 0x9000000 + i * 4096) for i in range(5))
    _, out, deliv = b.cmd(give, 16, slot=31)
    chk.ok(deliv == 0 and out[0] == 0 and b.count("fw-pages") == held + 5, "MANAGE_PAGES give 5: held +5")
    chk.ok(query_regular() == 0, "QUERY_PAGES regular: 0 after the give")
    b.qmp("qom-set", path="/machine/peripheral/nic0", property="page-request", value=-3)
    eqe = b.read(eq_buf + 64, 64)
    chk.ok(eqe[1] == 0xb and struct.unpack(">i", eqe[0x24:0x28])[0] == -3,
           f"PAGE_REQUEST EQE returning 3 pages: {eqe[0x20:0x28].hex()}")
    take = struct.pack(">HHHHII", 0x108, 0, 0, 2, 0, 3)
    _, out, _ = b.cmd(take, 16 + 24, slot=31)
    n = struct.unpack(">I", out[8:12])[0]
    got = [struct.unpack(">Q", out[16 + 8 * i:24 + 8 * i])[0] for i in range(n)]
    chk.ok(out[0] == 0 and n == 3 and b.count("fw-pages") == held + 2 and
           got == [0x9000000 + i * 4096 for i in (4, 3, 2)],
           f"MANAGE_PAGES take 3: {[hex(g) for g in got]}")
    # EQ consumed up to 2, armed: then 256 unconsumed events overflow once
    b.mmio_write(0x10 * 4096 + 0x40, (0x10 + pages_eq) << 24 | 2)
    before = b.count("strict-eq-overflow")
    for _ in range(257):
        b.qmp("qom-set", path="/machine/peripheral/nic0", property="page-request", value=1)
    chk.ok(b.count("strict-eq-overflow") - before == 1, "EQ of 256 entries: event 257 overflows once")


MAC = bytes.fromhex("525400123456")
PEER = bytes.fromhex("02000000aa01")
KEY = bytes.fromhex("6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c"
                    "6a42b73bbeac01fa")
MEM = 0x4000000                 # the Ethernet test's buffers
DBR = MEM                       # doorbell records: CQs 0x00/0x40, SQ 0x80, RQs 0xc0/0x100
TXCQ, RXCQ, SQBUF, RQBUF = MEM + 0x10000, MEM + 0x11000, MEM + 0x20000, MEM + 0x30000
TXDATA, RXDATA = MEM + 0x40000, MEM + 0x50000
UAR = 0x10


def ip_csum(b):
    b = b + bytes(len(b) % 2)
    s = sum(struct.unpack(f">{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def udp_frame(dst, src, payload, sport=1234, dport=5678, csums=False):
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                               bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])))
    if csums:
        struct.pack_into(">H", ip, 10, 0xffff - ip_csum(bytes(ip)))
        ph = bytes(ip[12:20]) + struct.pack(">BBH", 0, 17, len(udp))
        c = 0xffff - ip_csum(ph + udp) or 0xffff
        udp = udp[:6] + struct.pack(">H", c) + udp[8:]
    return dst + src + b"\x08\x00" + bytes(ip) + udp


def tcp_frame(dst, src, payload, sport, dport):
    tcp = bytearray(struct.pack(">HHIIBBHHH", sport, dport, 1000, 0, 5 << 4, 0x18, 65535, 0, 0) + payload)
    ip = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 7, 0x4000, 64, 6, 0,
                               bytes([10, 0, 0, 2]), bytes([10, 0, 0, 1])))
    struct.pack_into(">H", ip, 10, 0xffff - ip_csum(bytes(ip)))
    ph = bytes(ip[12:20]) + struct.pack(">BBH", 0, 6, len(tcp))
    struct.pack_into(">H", tcp, 16, 0xffff - ip_csum(ph + bytes(tcp)))
    return dst + src + b"\x08\x00" + bytes(ip) + bytes(tcp)


def tcp6_frame(dst, src, payload, sport, dport):
    tcp = bytearray(struct.pack(">HHIIBBHHH", sport, dport, 1000, 0, 5 << 4, 0x18, 65535, 0, 0) + payload)
    s6, d6 = bytes.fromhex("20010db8000000000000000000000002"), bytes.fromhex("20010db8000000000000000000000001")
    ip = struct.pack(">IHBB16s16s", 6 << 28, len(tcp), 6, 64, s6, d6)
    ph = s6 + d6 + struct.pack(">IxxxB", len(tcp), 6)
    struct.pack_into(">H", tcp, 16, 0xffff - ip_csum(ph + bytes(tcp)))
    return dst + src + b"\x86\xdd" + ip + bytes(tcp)


def ethernet(b, chk, peer):
    """Deliverables 4 and 5: the Ethernet objects, a frame sent and one
    received (through flow table, TIR, RQT, Toeplitz hash, RQ)."""
    def run(inp, out_len=16, what=""):
        _, out, deliv = b.cmd(inp, out_len)
        ok = deliv == 0 and out[0] == 0
        chk.ok(ok, f"{what or hex(struct.unpack('>H', inp[:2])[0])}: status {out[0]:#x} "
                   f"syndrome {struct.unpack('>I', out[4:8])[0]:#x}")
        return out, struct.unpack(">I", out[8:12])[0] & 0xffffff

    out, _ = run(prm.hdr(0x203), 16, "QUERY_SPECIAL_CONTEXTS")
    chk.ok(struct.unpack(">I", out[12:16])[0] == prm.RESERVED_LKEY, "resd_lkey 0x200")
    _, pd = run(prm.hdr(0x800), 16, "ALLOC_PD")
    _, td = run(prm.hdr(0x816), 16, "ALLOC_TRANSPORT_DOMAIN")
    out, _ = run(prm.hdr(0x754), 0x10 + 0x100, "QUERY_NIC_VPORT_CONTEXT")
    v = out[0x10:]
    chk.ok(v[0xf6:0xfc] == MAC and v[0] & 7 == 1,
           f"vport context: permanent MAC {v[0xf6:0xfc].hex(':')}, min_wqe_inline_mode {v[0] & 7} (L2)")
    out, _ = run(prm.hdr(0x750), 16, "QUERY_VPORT_STATE")
    chk.ok(out[15] & 0xf == 1, "vport state up")
    out, _ = run(prm.access_reg(0x5006, False, bytes([0, 1, 0, 0]).ljust(16, b"\0")), 0x20, "ACCESS_REG PAOS read")
    chk.ok(out[0x12] & 0xf == 1 and out[0x13] & 0xf == 1, f"PAOS admin up, oper up: {out[0x10:0x14].hex()}")
    out, _ = run(prm.access_reg(0x5004, False, bytes([0, 1, 0, 4]).ljust(64, b"\0")), 0x50, "ACCESS_REG PTYS read")
    cap, oper = struct.unpack(">I", out[0x1c:0x20])[0], struct.unpack(">I", out[0x34:0x38])[0]
    chk.ok(cap == 0x1040 and oper == 0x40, f"PTYS capability {cap:#x} (10GBASE-CR, 40GBASE-CR4), oper {oper:#x}")
    pmtu = bytearray(16)
    pmtu[1] = 1
    struct.pack_into(">I", pmtu, 8, 9000 << 16)
    run(prm.access_reg(0x5003, True, bytes(pmtu)), 0x20, "ACCESS_REG PMTU write 9000")
    out, _ = run(prm.access_reg(0x5003, False, bytes([0, 1, 0, 0]).ljust(16, b"\0")), 0x20, "ACCESS_REG PMTU read")
    chk.ok(struct.unpack(">H", out[0x1c:0x1e])[0] == 9000, "PMTU oper_mtu 9000")

    b.write(DBR, bytes(0x200))
    _, txcq = run(prm.create_cq(4, UAR, 0x13, DBR, [TXCQ]), 16, "CREATE_CQ (TX)")
    _, rxcq = run(prm.create_cq(4, UAR, 0x13, DBR + 0x40, [RXCQ]), 16, "CREATE_CQ (RX)")
    b.write(TXCQ, bytes([0xff]) * 1024)
    b.write(RXCQ, bytes([0xff]) * 1024)
    _, tis = run(prm.create_tis(td), 16, "CREATE_TIS")
    _, small = run(prm.create_cq(2, UAR, 0x13, DBR + 0x180, [MEM + 0x12000]), 16, "CREATE_CQ (4 entries)")
    before = b.count("strict-bad-param")
    _, out, _ = b.cmd(prm.create_wq(0x904, small, pd, DBR + 0x80, 4, 6, [SQBUF], tisn=tis), 16)
    chk.ok(out[0] == 3 and out[4:8] == bytes.fromhex("6d350009") and b.count("strict-bad-param") == before + 1,
           "CREATE_SQ of 16 on a CQ of 4: bad parameter, syndrome 0x6d350009, strict-bad-param +1")
    _, sqn = run(prm.create_wq(0x904, txcq, pd, DBR + 0x80, 4, 6, [SQBUF], tisn=tis), 16, "CREATE_SQ")
    run(prm.modify_wq(0x905, sqn, 0, 1), 16, "MODIFY_SQ RST->RDY")
    rqs = []
    for i in range(2):
        _, rqn = run(prm.create_wq(0x908, rxcq, pd, DBR + 0xc0 + 0x40 * i, 3, 4, [RQBUF + 0x1000 * i]),
                     16, f"CREATE_RQ {i}")
        run(prm.modify_wq(0x909, rqn, 0, 1), 16, f"MODIFY_RQ {i} RST->RDY")
        rqs.append(rqn)
    _, rqt = run(prm.create_rqt(rqs), 16, "CREATE_RQT of 2")
    sel = 0 << 31 | 0 << 30 | 0xf          # IPv4, TCP: src/dst IP, ports
    _, tir_rss = run(prm.create_tir(td, rqtn=rqt, key=KEY, selector=sel), 16, "CREATE_TIR indirect, Toeplitz")
    _, tir_direct = run(prm.create_tir(td, inline_rqn=rqs[0]), 16, "CREATE_TIR direct")
    before = b.count("strict-bad-resource")
    _, out, _ = b.cmd(prm.create_tir(td, rqtn=0x18ff, key=KEY, selector=sel), 16)
    chk.ok(out[0] == 5 and b.count("strict-bad-resource") == before + 1,
           "CREATE_TIR on RQT 0x18ff (none): bad resource, strict-bad-resource +1")
    _, ft = run(prm.create_flow_table(4), 16, "CREATE_FLOW_TABLE")
    _, g_mac = run(prm.create_flow_group(ft, 0, 0, b"\xff" * 6), 16, "CREATE_FLOW_GROUP dmac")
    _, g_all = run(prm.create_flow_group(ft, 1, 1), 16, "CREATE_FLOW_GROUP wildcard")
    run(prm.set_fte(ft, 0, g_mac, tir_rss, MAC), 16, "SET_FLOW_TABLE_ENTRY dmac -> RSS TIR")
    run(prm.set_fte(ft, 1, g_all, tir_direct), 16, "SET_FLOW_TABLE_ENTRY wildcard -> direct TIR")
    run(prm.set_root(ft), 16, "SET_FLOW_TABLE_ROOT")

    # --- transmit: UDP, checksums by the device ---
    def post(idx, wqe, counter):
        b.write(SQBUF + 64 * (idx % 16), wqe[:64])
        if len(wqe) > 64:
            b.write(SQBUF + 64 * ((idx + 1) % 16), wqe[64:128])
        b.write(DBR + 0x84, struct.pack(">I", counter))
        b.write(0xE0000000 + UAR * 4096 + 0x800, wqe[:8])

    frame = udp_frame(PEER, MAC, b"hayate-mlx5-tx" * 8)
    b.write(TXDATA, frame[14:])
    post(0, prm.send_wqe(0, sqn, frame[:14], len(frame) - 14, TXDATA, cs=0xc0), 1)
    peer.settimeout(2)
    try:
        got = peer.recv(65536)
    except socket.timeout:
        got = b""
    want = udp_frame(PEER, MAC, b"hayate-mlx5-tx" * 8, csums=True)
    chk.ok(got == want, f"frame sent, IPv4 and UDP checksums filled in ({len(got)} bytes)")
    cqe = b.read(TXCQ, 64)
    chk.ok(cqe[0x3f] == 0x00 and cqe[0x3c:0x3e] == b"\0\0" and cqe[0x38:0x3c] == struct.pack(">I", sqn),
           f"TX CQE: opcode 0 owner 0, wqe_counter 0, sqn: {cqe[0x38:0x40].hex()}")

    # LSO: 3000 bytes of TCP payload at MSS 1000: three frames
    payload = bytes(range(256)) * 11 + bytes(184)
    big = tcp_frame(PEER, MAC, payload[:3000], 80, 4321)
    b.write(TXDATA, big[54:])
    post(1, prm.send_wqe(1, sqn, big[:54], len(big) - 54, TXDATA, cs=0xc0, opcode=0x0e, mss=1000), 3)
    segs = []
    try:
        for _ in range(3):
            segs.append(peer.recv(65536))
    except socket.timeout:
        pass
    chk.ok(len(segs) == 3 and all(len(s) == 54 + 1000 for s in segs) and
           b"".join(s[54:] for s in segs) == payload[:3000] and
           all(ip_csum(s[14:34]) == 0xffff for s in segs),
           f"LSO: {len(segs)} segments of {[len(s) for s in segs]} bytes, IP checksums valid")

    # 14 NOPs fill the 16-entry CQ (never consumed); the 17th CQE overflows
    before = b.count("strict-cq-overflow")
    for i in range(14):
        post(3 + i, prm.nop_wqe(3 + i, sqn), 4 + i)
    post(17, prm.nop_wqe(17, sqn), 18)
    chk.ok(b.count("strict-cq-overflow") == before + 1, "CQ of 16, 17th CQE: strict-cq-overflow +1")
    b.write(DBR, struct.pack(">I", 16))        # software consumed the 16 written
    before = b.count("strict-bad-wqe")
    post(18, prm.send_wqe(18, sqn, frame[:14], 10, TXDATA, lkey=0x5), 19)
    cqe = b.read(TXCQ, 64)     # CQE 16: slot 0 again, owner 1 (second pass)
    chk.ok(cqe[0x3f] == 0xd1 and cqe[0x37] == 0x04 and b.count("strict-bad-wqe") == before + 1,
           f"data segment with lkey 0x5: error CQE (0xd, owner 1, syndrome 0x4), strict-bad-wqe +1: {cqe[0x34:0x40].hex()}")

    # --- receive: no buffer, then RSS to the hashed RQ ---
    def wait_rx(name, before):
        for _ in range(100):
            if b.count(name) != before:
                return True
            time.sleep(0.02)
        return False

    rx = tcp_frame(MAC, PEER, b"hayate-mlx5-rx" * 4, 40000, 80)
    before = b.count("rx-out-of-buffer")
    peer.send(rx)
    chk.ok(wait_rx("rx-out-of-buffer", before), "frame with no RQ WQE posted: rx-out-of-buffer +1")
    for i in range(2):
        b.write(RQBUF + 0x1000 * i, struct.pack(">IIQ", 2048, prm.RESERVED_LKEY, RXDATA + 0x1000 * i))
        b.write(DBR + 0xc0 + 0x40 * i, struct.pack(">I", 1))
    before = b.count("rx-packets")
    peer.send(rx)
    chk.ok(wait_rx("rx-packets", before), "frame received")
    # the reference hash against the Microsoft RSS verification vectors
    v6 = bytes.fromhex("3ffe250102001fff0000000000000007" "3ffe2501020000030000000000000001")
    chk.ok((prm.toeplitz(KEY, bytes([66, 9, 149, 187, 161, 142, 100, 80]) + bytes.fromhex("0aea06e6")),
            prm.toeplitz(KEY, v6), prm.toeplitz(KEY, v6 + bytes.fromhex("0aea06e6"))) ==
           (0x51ccc178, 0x2cc18cd5, 0x40207d3d), "Toeplitz reference: the Microsoft RSS vectors")
    h = prm.toeplitz(KEY, rx[26:30] + rx[30:34] + rx[34:36] + rx[36:38])
    q = h % 2
    cqe = b.read(RXCQ, 64)
    data = b.read(RXDATA + 0x1000 * q, len(rx))
    chk.ok(data == rx, f"frame in RQ {q} (hash {h:#010x} % 2)")
    chk.ok(cqe[0x3f] == 0x20 and struct.unpack(">I", cqe[0x2c:0x30])[0] == len(rx) and
           struct.unpack(">I", cqe[0x0c:0x10])[0] == h and cqe[0x1c] & 6 == 6 and
           struct.unpack(">I", cqe[0x38:0x3c])[0] == rqs[q],
           f"RX CQE: opcode 2 owner 0, byte count {len(rx)}, hash, l3_ok l4_ok, rqn: "
           f"{cqe[0x0c:0x10].hex()} {cqe[0x1c]:#x} {cqe[0x2c:0x30].hex()} {cqe[0x38:0x40].hex()}")

    # a broadcast ARP: not our MAC, so the wildcard entry, the direct TIR, RQ 0
    slot = 1 if q == 0 else 0
    b.write(RQBUF + 16 * slot, struct.pack(">IIQ", 2048, prm.RESERVED_LKEY, RXDATA + 0x8000))
    b.write(DBR + 0xc0, struct.pack(">I", slot + 1))
    arp = b"\xff" * 6 + PEER + b"\x08\x06" + bytes(28)
    before = b.count("rx-packets")
    peer.send(arp)
    wait_rx("rx-packets", before)
    cqe = b.read(RXCQ + 64, 64)
    chk.ok(b.read(RXDATA + 0x8000, len(arp)) == arp and cqe[0x3f] == 0x20 and
           struct.unpack(">I", cqe[0x38:0x3c])[0] == rqs[0] and cqe[0x3c:0x3e] == struct.pack(">H", slot),
           f"broadcast ARP through the wildcard group and the direct TIR to RQ 0 (WQE {slot})")
    return dict(pd=pd, sqn=sqn, rqs=rqs, rqt=rqt, tir=tir_rss, post=post, wait_rx=wait_rx, frame=frame, rxcq=rxcq)


def ethernet_more(b, chk, peer, x):
    """What Linux's mlx5e leans on: an SQ recovered from ERR, a PA mkey,
    a root table whose miss chains on, MODIFY_RQT, the port change event."""
    def run(inp, out_len=16):
        _, out, _ = b.cmd(inp, out_len)
        return out[0], struct.unpack(">I", out[8:12])[0] & 0xffffff
    mkc = bytearray(0x10 + 0x40)
    struct.pack_into(">HHHH", mkc, 0, 0x200, 0, 0, 0)
    mkc[0x10 + 7] = 0x5a                                   # mkey_7_0
    struct.pack_into(">I", mkc, 0x10 + 0x0c, 1 << 31 | x["pd"])   # length64, pd
    st, idx = run(bytes(mkc))
    key = idx << 8 | 0x5a
    ok = st == 0
    for cur, nxt in ((3, 0), (0, 1)):
        ok &= run(prm.modify_wq(0x905, x["sqn"], cur, nxt))[0] == 0
    before = b.count("tx-packets")
    x["post"](0, prm.send_wqe(0, x["sqn"], x["frame"][:14], len(x["frame"]) - 14, TXDATA, lkey=key), 1)
    got = peer.recv(65536) if b.count("tx-packets") > before else b""
    chk.ok(ok and len(got) == len(x["frame"]), f"SQ ERR -> RST -> RDY, then a frame through mkey {key:#x}")
    # a short UDP datagram padded to 60 bytes: the checksum covers the
    # datagram, the padding goes out as it came
    short = udp_frame(PEER, MAC, b"hi")
    padded = short + b"\xee" * (60 - len(short))
    b.write(TXDATA, padded[14:])
    x["post"](1, prm.send_wqe(1, x["sqn"], padded[:14], len(padded) - 14, TXDATA, cs=0xc0), 2)
    got = peer.recv(65536)
    want = udp_frame(PEER, MAC, b"hi", csums=True) + b"\xee" * (60 - len(short))
    chk.ok(got == want, f"padded 60-byte UDP frame: checksums over the datagram, padding kept ({len(got)} bytes)")
    # LSO over IPv6: 2500 bytes of TCP at MSS 1000
    payload = bytes(range(250)) * 10
    big = tcp6_frame(PEER, MAC, payload, 80, 4322)
    b.write(TXDATA, big[74:])
    x["post"](2, prm.send_wqe(2, x["sqn"], big[:74], len(big) - 74, TXDATA, cs=0x80, opcode=0x0e, mss=1000), 4)
    segs = []
    try:
        for _ in range(3):
            segs.append(peer.recv(65536))
    except socket.timeout:
        pass
    def tcp6_ok(s):
        return ip_csum(s[22:54] + struct.pack(">IxxxB", len(s) - 54, 6) + s[54:]) == 0xffff
    chk.ok([len(s) for s in segs] == [1074, 1074, 574] and b"".join(s[74:] for s in segs) == payload and
           all(struct.unpack(">H", s[18:20])[0] == len(s) - 54 and tcp6_ok(s) for s in segs),
           f"LSO over IPv6: {[len(s) for s in segs]} bytes, payload lengths {[s[18:20].hex() for s in segs]}, "
           f"TCP checksums {[tcp6_ok(s) for s in segs]}")
    # one IPv6/TCP frame, TCP checksum by the device
    syn = bytearray(tcp6_frame(PEER, MAC, b"", 80, 4323))
    syn[70:72] = b"\0\0"
    b.write(TXDATA, bytes(syn[14:]))
    x["post"](4, prm.send_wqe(4, x["sqn"], bytes(syn[:14]), len(syn) - 14, TXDATA, cs=0x80), 5)
    got = peer.recv(65536)
    chk.ok(got == tcp6_frame(PEER, MAC, b"", 80, 4323), f"IPv6/TCP frame, checksum by the device: {got[70:72].hex()}")

    st1, ft2 = run(prm.create_flow_table(4, level=1))
    st2, g = run(prm.create_flow_group(ft2, 0, 0, b"\xff" * 6))
    st3, _ = run(prm.set_fte(ft2, 0, g, x["tir"], MAC))
    root = bytearray(prm.create_flow_table(2, level=0))
    root[0x18] = 1                                          # table_miss_action: go on
    struct.pack_into(">I", root, 0x1c, ft2)
    st4, ft1 = run(bytes(root))
    st5, _ = run(prm.set_root(ft1))
    rqt = bytearray(prm.create_rqt([x["rqs"][1]]))
    struct.pack_into(">HHHHI", rqt, 0, 0x917, 0, 0, 0, x["rqt"])
    struct.pack_into(">Q", rqt, 0x10, 1)                    # modify_bitmask: the RQ list
    st6, _ = run(bytes(rqt))
    b.write(RQBUF + 0x1000 + 16, struct.pack(">IIQ", 2048, prm.RESERVED_LKEY, RXDATA + 0x9000))
    b.write(DBR + 0x100, struct.pack(">I", 2))
    rx = tcp_frame(MAC, PEER, b"miss-chain", 40001, 80)
    before = b.count("rx-packets")
    peer.send(rx)
    x["wait_rx"]("rx-packets", before)
    chk.ok((st1, st2, st3, st4, st5, st6) == (0,) * 6 and b.read(RXDATA + 0x9000, len(rx)) == rx,
           "root table with no entry misses on to the next, MODIFY_RQT to RQ 1 alone: frame in RQ 1")
    # IPv6/TCP received: checksums verified, header types in the CQE
    b.write(RQBUF + 0x1000 + 32, struct.pack(">IIQ", 2048, prm.RESERVED_LKEY, RXDATA + 0xa000))
    b.write(DBR + 0x100, struct.pack(">I", 3))
    rx6 = tcp6_frame(MAC, PEER, b"v6", 40002, 80)
    before = b.count("rx-packets")
    peer.send(rx6)
    x["wait_rx"]("rx-packets", before)
    cqe = b.read(RXCQ + 64 * 3, 64)
    chk.ok(b.read(RXDATA + 0xa000, len(rx6)) == rx6 and cqe[0x1c] & 6 == 6 and cqe[0x1d] == 0x44,
           f"IPv6/TCP received: l3_ok l4_ok {cqe[0x1c]:#x}, l4/l3 types {cqe[0x1d]:#x} (TCP, IPv6)")

    async_eq = EQ_BASE + 1 * 0x40000                        # the trace's second EQ (0x11)
    b.qmp("set_link", name="nic0", up=False)
    b.qmp("set_link", name="nic0", up=True)
    e1, e2 = b.read(async_eq, 64), b.read(async_eq + 64, 64)
    chk.ok((e1[1], e1[3], e1[0x28], e2[1], e2[3]) == (9, 1, 0x10, 9, 4),
           f"set_link off/on: port change events down (1) then up (4): {e1[:4].hex()} {e2[:4].hex()}")


def jumbo(b, chk, peer, x):
    """Jumbo frames (PRM "Receive WQE Format", "Work Queue Format", "PMTU -
    Port MTU Register"): an RQ of 64-byte WQEs, a frame scattered over a
    WQE's segments in order with byte_cnt the whole frame's, the list
    ending at the invalid lkey, a stride over max_wqe_sz_rq refused, and
    a frame over the port's MTU dropped and counted (PPCNT)."""
    def run(inp, out_len=16):
        _, out, _ = b.cmd(inp, out_len)
        return out[0], struct.unpack(">I", out[8:12])[0] & 0xffffff

    def seg(n, addr, lkey=prm.RESERVED_LKEY):
        return struct.pack(">IIQ", n, lkey, addr)

    def pmtu(mtu):
        r = bytearray(16)
        r[1] = 1
        struct.pack_into(">I", r, 8, mtu << 16)
        return run(prm.access_reg(0x5003, True, bytes(r)), 0x20)[0]

    def cqe(i):
        c = b.read(RXCQ + 64 * i, 64)
        return c[0x3f], struct.unpack(">I", c[0x2c:0x30])[0], c[0x37], c[0x3c:0x3e]

    before = b.count("strict-bad-param")
    _, out, _ = b.cmd(prm.create_wq(0x908, x["rxcq"], x["pd"], DBR + 0x140, 2, 10, [RQBUF + 0x2000]), 16)
    chk.ok(out[0] == 3 and b.count("strict-bad-param") == before + 1,
           "CREATE_RQ of 1 KB WQEs (max_wqe_sz_rq 512): bad parameter, strict-bad-param +1")
    rqring, data = RQBUF + 0x2000, RXDATA + 0x10000
    st1, rqn = run(prm.create_wq(0x908, x["rxcq"], x["pd"], DBR + 0x140, 3, 6, [rqring]))
    st2, _ = run(prm.modify_wq(0x909, rqn, 0, 1))
    rqt = bytearray(prm.create_rqt([rqn]))
    struct.pack_into(">HHHHI", rqt, 0, 0x917, 0, 0, 0, x["rqt"])
    struct.pack_into(">Q", rqt, 0x10, 1)
    st3, _ = run(bytes(rqt))
    # WQE 0: three 2 KB segments, then the invalid lkey; WQE 1: two; WQE 2:
    # 1 KB, the invalid lkey, then a 4 KB segment the list never reaches
    b.write(rqring, seg(2048, data) + seg(2048, data + 0x1000) + seg(2048, data + 0x2000) + seg(0, 0, 0x100))
    b.write(rqring + 64, seg(2048, data + 0x3000) + seg(2048, data + 0x4000) + seg(0, 0, 0x100))
    b.write(rqring + 128, seg(1024, data + 0x5000) + seg(0, 0, 0x100) + seg(4096, data + 0x6000))
    b.write(DBR + 0x140, struct.pack(">I", 3))
    big = tcp_frame(MAC, PEER, bytes(range(256)) * 19 + bytes(range(82)), 40003, 80)   # 5000 bytes
    before = b.count("rx-packets")
    peer.send(big)
    x["wait_rx"]("rx-packets", before)
    op, n, _, wqe = cqe(4)
    got = b.read(data, 2048) + b.read(data + 0x1000, 2048) + b.read(data + 0x2000, len(big) - 4096)
    chk.ok((st1, st2, st3) == (0, 0, 0) and op == 0x20 and n == len(big) == 5000 and got == big and wqe == b"\0\0",
           f"5000-byte frame over WQE 0's three segments in order, byte_cnt {n}")

    before = (b.count("rx-frame-too-long"), b.count("rx-packets"))
    st4 = pmtu(4000)
    peer.send(tcp_frame(MAC, PEER, bytes(3997 - 54), 40004, 80))
    ok = x["wait_rx"]("rx-frame-too-long", before[0])
    peer.send(tcp_frame(MAC, PEER, bytes(3996 - 54), 40005, 80))
    x["wait_rx"]("rx-packets", before[1])
    op, n, _, wqe = cqe(5)
    ppcnt = bytearray(0x100)
    ppcnt[1] = 1                                            # local_port; grp 0: IEEE 802.3
    _, out, _ = b.cmd(prm.access_reg(0x5008, False, bytes(ppcnt)), 0x110)
    too_long = struct.unpack(">Q", out[0x10 + 0x68:0x10 + 0x70])[0]
    chk.ok(st4 == 0 and ok and b.count("rx-frame-too-long") == before[0] + 1 and too_long == before[0] + 1 and
           op == 0x20 and n == 3996 and wqe == b"\0\1",
           f"PMTU 4000: a 3997-byte frame (4001 with FCS) dropped, rx-frame-too-long +1, PPCNT "
           f"a_frame_too_long_errors {too_long}; 3996 bytes taken by WQE 1 (byte_cnt {n})")

    before = b.count("strict-bad-wqe")
    peer.send(tcp_frame(MAC, PEER, bytes(2000 - 54), 40006, 80))
    x["wait_rx"]("strict-bad-wqe", before)
    op, _, synd, wqe = cqe(6)
    chk.ok(op == 0xe0 and synd == 0x01 and wqe == b"\0\2" and b.count("strict-bad-wqe") == before + 1,
           f"2000 bytes on WQE 2 (1 KB, then the invalid lkey): local length error CQE, syndrome {synd:#x}")
    pmtu(9000)


def pci(b, chk, qemu):
    """The PCI function: IDs, BAR0 32 MB 64-bit, MSI-X, FLR capable; the
    device-id property."""
    chk.ok(b.vendor_device == 0x101315b3, f"vendor:device {b.vendor_device & 0xffff:04x}:"
                                          f"{b.vendor_device >> 16:04x}")
    b.cfg(1, 0, 0x10, 0xffffffff)
    b.cfg(1, 0, 0x14, 0xffffffff)
    lo, hi = b.cfg(1, 0, 0x10), b.cfg(1, 0, 0x14)
    size = (~((hi << 32) | (lo & ~0xf)) & (2 ** 64 - 1)) + 1
    b.cfg(1, 0, 0x10, 0xE0000000 | 0xc)
    b.cfg(1, 0, 0x14, 0)
    chk.ok(lo & 0x6 == 0x4 and size == 32 << 20, f"BAR0 64-bit, {size >> 20} MB")
    msix = b.find_cap(0x11)
    chk.ok(msix is not None and (b.cfg(1, 0, msix, size=4) >> 16) & 0x7ff == 63,
           "MSI-X capability, 64 vectors")
    pcie = b.find_cap(0x10)
    chk.ok(b.cfg(1, 0, pcie + 4) & (1 << 28) != 0, "PCIe Device Capabilities: FLR")
    for did, ok in ((0x1017, True), (0x1234, False)):
        r = subprocess.run([qemu, "-machine", "q35", "-display", "none", "-nodefaults", "-S",
                            "-device", f"mlx5,device-id={did:#x}", "-qmp", "stdio"],
                           input='{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n',
                           capture_output=True, text=True, timeout=30)
        chk.ok((r.returncode == 0) == ok, f"device-id={did:#x} {'accepted' if ok else 'refused'}")


def teardown(b, chk):
    """TEARDOWN_HCA, every page taken back, DISABLE_HCA (PRM "Teardown")."""
    _, out, _ = b.cmd(prm.hdr(0x103), 16)
    chk.ok(out[0] == 0, "TEARDOWN_HCA")
    held = b.count("fw-pages")
    _, out, _ = b.cmd(struct.pack(">HHHHII", 0x108, 0, 0, 2, 0, held), 16 + 8 * held, slot=31)
    n = struct.unpack(">I", out[8:12])[0]
    chk.ok(out[0] == 0 and n == held and b.count("fw-pages") == 0,
           f"MANAGE_PAGES take {held}: {n} returned, none held")
    _, out, _ = b.cmd(prm.hdr(0x105), 16)
    _, out2, _ = b.cmd(prm.hdr(0x802), 16)
    chk.ok(out[0] == 0 and out2[0] == 4, "DISABLE_HCA; then ALLOC_UAR is refused (bad state)")


def main():
    qemu = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "qemu", "qemu-system-x86_64")
    chk = Checks()
    b, peer = socket_box(qemu)
    pci(b, chk, qemu)
    fw = b.mmio_read(0x0)
    cmdif = b.mmio_read(0x4)
    chk.ok((fw & 0xffff, fw >> 16, cmdif & 0xffff, cmdif >> 16) == (14, 12, 1220, 5),
           f"firmware {fw & 0xffff}.{fw >> 16}.{cmdif & 0xffff}, cmd interface {cmdif >> 16}")
    chk.ok(b.mmio_read(0x1fc) >> 31 == 1, "initializing reads 1 after reset")
    before = b.count("strict-cmd-while-initializing")
    b.doorbell(1)
    chk.ok(b.count("strict-cmd-while-initializing") == before + 1,
           "doorbell while initializing: strict-cmd-while-initializing +1")
    b.clock_step(5_000_000)
    chk.ok(b.mmio_read(0x1fc) >> 31 == 0, "initializing reads 0 after 5 ms")
    b.set_cmdq()
    lo = b.mmio_read(0x14)
    chk.ok(lo & 0xff == 0x56 and lo & ~0xfff == CMDQ, f"cmdq_phy_addr_lo {lo:#x}: log size 5, stride 6")

    # before ENABLE_HCA: only ENABLE_HCA and QUERY_ISSI
    before = b.count("strict-bad-state")
    _, out, _ = b.cmd(struct.pack(">HHHH", 0x107, 0, 0, 1).ljust(16, b"\0"), 16)
    chk.ok(out[0] == 4 and b.count("strict-bad-state") == before + 1,
           "QUERY_PAGES before ENABLE_HCA: status 4, strict-bad-state +1")

    names = [n for n in b.qmp("qom-list", path="/machine/peripheral/nic0") if n["name"].startswith("strict-")]
    before = {n["name"]: b.count(n["name"]) for n in names}
    replay(b, chk)
    moved = {k: b.count(k) - v for k, v in before.items() if b.count(k) != v}
    chk.ok(len(before) == 14 and not moved, f"the card's sequence breaks no rule: {len(before)} strict "
                                          f"counters, moved: {moved or 'none'}")
    strict(b, chk)
    x = ethernet(b, chk, peer)
    ethernet_more(b, chk, peer, x)
    jumbo(b, chk, peer, x)
    page_request(b, chk, pages_eq=2)   # the trace's third EQ (0x12) takes type 0xb

    teardown(b, chk)

    # function-level reset: PCIe device control bit 15
    b.flr()
    chk.ok(b.mmio_read(0x1fc) >> 31 == 1 and b.mmio_read(0x10) == 0 and b.mmio_read(0x14) & ~0xfff == 0,
           "FLR: initializing again, command queue address cleared")
    chk.ok(b.count("fw-pages") == 0, "FLR: the pages given are forgotten")

    log = b.close()
    print(log.strip())
    print("mlx5_check:", "FAIL " + "; ".join(chk.fails) if chk.fails else "all passed")
    return 1 if chk.fails else 0


if __name__ == "__main__":
    sys.exit(main())
