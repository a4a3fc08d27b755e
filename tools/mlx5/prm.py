# SPDX-License-Identifier: MIT
"""tools/mlx5/prm.py: command inputs, WQEs and CQE fields of the ConnectX-4
as laid out in the "Mellanox Adapters Programmer's Reference Manual (PRM)"
for ConnectX-4/4 Lx, Rev 0.40: what a test (qemu/tests/mlx5_check.py)
writes to drive the Ethernet objects and the data path. Byte offsets are
into the command's input (inline 16 bytes then mailbox data). Each builder
names its PRM section."""
import struct

RESERVED_LKEY = 0x200   # what the model's QUERY_SPECIAL_CONTEXTS answers


def hdr(op, op_mod=0, rest=b""):
    """PRM "Command Input Header": opcode 31:16 of dword 0, op_mod 15:0 of
    dword 1; command fields from byte 8."""
    return (struct.pack(">HHHH", op, 0, 0, op_mod) + rest).ljust(16, b"\0")


def put(buf, off, fmt, *v):
    struct.pack_into(">" + fmt, buf, off, *v)


def create_cq(log_size, uar, eqn, dbr, pas, log_page_size=0):
    """PRM "CREATE_CQ": cq_context at 0x10, pas at 0x110."""
    b = bytearray(0x110 + 8 * len(pas))
    put(b, 0, "HHHH", 0x400, 0, 0, 0)
    put(b, 0x10 + 0x0c, "I", log_size << 24 | uar)
    put(b, 0x10 + 0x14, "I", eqn)
    put(b, 0x10 + 0x18, "I", log_page_size << 24)
    put(b, 0x10 + 0x38, "Q", dbr)
    for i, p in enumerate(pas):
        put(b, 0x110 + 8 * i, "Q", p)
    return bytes(b)


def create_wq(op, cqn, pd, dbr, log_sz, log_stride, pas, tisn=0, state=0):
    """PRM "CREATE_SQ"/"CREATE_RQ": context at 0x20 (state 23:20, cqn at
    0x08, tis_num_0 at 0x2c for an SQ), wq at 0x50 (pd 0x08, dbr_addr
    0x10, log_wq_stride/pg_sz/sz at 0x20), pas at 0x110."""
    b = bytearray(0x110 + 8 * len(pas))
    put(b, 0, "HHHH", op, 0, 0, 0)
    b[0x21] = state << 4
    put(b, 0x20 + 0x08, "I", cqn)
    if tisn:
        put(b, 0x20 + 0x2c, "I", tisn)
    w = 0x50
    b[w] = 1 << 4                          # wq_type 1: cyclic
    put(b, w + 0x08, "I", pd)
    put(b, w + 0x10, "Q", dbr)
    put(b, w + 0x20, "I", log_stride << 16 | 0 << 8 | log_sz)
    for i, p in enumerate(pas):
        put(b, 0x110 + 8 * i, "Q", p)
    return bytes(b)


def modify_wq(op, num, cur, nxt):
    """PRM "MODIFY_SQ"/"MODIFY_RQ": state 31:28 and number at 0x08, the
    new state in the context at 0x20."""
    b = bytearray(0x20 + 0x30 + 0xc0)
    put(b, 0, "HHHHI", op, 0, 0, 0, cur << 28 | num)
    b[0x21] = nxt << 4
    return bytes(b)


def create_tis(td):
    b = bytearray(0x20 + 0xa0)
    put(b, 0, "HHHH", 0x912, 0, 0, 0)
    put(b, 0x20 + 0x24, "I", td)
    return bytes(b)


def create_rqt(rqns):
    """PRM "CREATE_RQT": rqtc at 0x20, sizes at 0x14/0x18, rq list 0xf0."""
    b = bytearray(0x20 + 0xf0 + 4 * len(rqns))
    put(b, 0, "HHHH", 0x916, 0, 0, 0)
    put(b, 0x20 + 0x14, "I", len(rqns))
    put(b, 0x20 + 0x18, "I", len(rqns))
    for i, r in enumerate(rqns):
        put(b, 0x20 + 0xf0 + 4 * i, "I", r)
    return bytes(b)


def create_tir(td, inline_rqn=0, rqtn=0, key=b"", selector=0):
    """PRM "CREATE_TIR": tirc at 0x20: disp_type (0 direct, 1 indirect),
    inline_rqn 0x1c, indirect_table 0x20, rx_hash_fn (2 Toeplitz) and
    transport_domain 0x24, key 0x28, outer field selector 0x50."""
    b = bytearray(0x20 + 0xf0)
    put(b, 0, "HHHH", 0x900, 0, 0, 0)
    t = 0x20
    if rqtn:
        b[t + 4] = 1 << 4
        put(b, t + 0x20, "I", rqtn)
        put(b, t + 0x24, "I", 2 << 28 | td)
        b[t + 0x28:t + 0x28 + len(key)] = key
        put(b, t + 0x50, "I", selector)
    else:
        put(b, t + 0x1c, "I", inline_rqn)
        put(b, t + 0x24, "I", td)
    return bytes(b)


def create_flow_table(log_size, level=0):
    b = bytearray(0x40)
    put(b, 0, "HHHH", 0x930, 0, 0, 0)
    b[0x10] = 0                            # NIC receive
    b[0x19] = level
    b[0x1b] = log_size
    return bytes(b)


def create_flow_group(ft, start, end, dmac_mask=None):
    """PRM "CREATE_FLOW_GROUP": criteria on the outer destination MAC
    (fte_match_set_lyr_2_4 dmac at 0x08), or none: the wildcard group."""
    b = bytearray(0x40 + 0x200)
    put(b, 0, "HHHH", 0x933, 0, 0, 0)
    put(b, 0x14, "I", ft)
    put(b, 0x1c, "I", start)
    put(b, 0x24, "I", end)
    if dmac_mask:
        b[0x3f] = 1
        b[0x40 + 0x08:0x40 + 0x0e] = dmac_mask
    return bytes(b)


def set_fte(ft, index, group, tirn, dmac=b""):
    """PRM "SET_FLOW_TABLE_ENTRY": flow_context at 0x40 (group 0x44,
    action 0x4e: 4 forward, dest list size 0x50), match_value at 0x80,
    destination 0x340 (type 2: TIR)."""
    b = bytearray(0x348)
    put(b, 0, "HHHH", 0x936, 0, 0, 0)
    put(b, 0x14, "I", ft)
    put(b, 0x20, "I", index)
    put(b, 0x44, "I", group)
    put(b, 0x4c, "I", 4)
    put(b, 0x50, "I", 1)
    if dmac:
        b[0x80 + 0x08:0x80 + 0x0e] = dmac
    put(b, 0x340, "I", 2 << 24 | tirn)
    return bytes(b)


def set_root(ft):
    b = bytearray(0x40)
    put(b, 0, "HHHH", 0x92f, 0, 0, 0)
    put(b, 0x14, "I", ft)
    return bytes(b)


def access_reg(reg, write, data):
    """PRM "ACCESS_REG": op_mod 0 write / 1 read, register_id at 0x0a."""
    return hdr(0x805, 0 if write else 1, struct.pack(">HHI", 0, reg, 0)) + data


def send_wqe(idx, sqn, frame_hdr, data_len, addr, cs=0, opcode=0x0a, mss=0,
             lkey=RESERVED_LKEY):
    """PRM "Send WQE": control segment (opcode, wqe_index, sqn, ds,
    fm_ce_se 8: CQE always), Ethernet segment (cs_flags 0x14, mss 0x16,
    inline_hdr_sz 0x1c, inline header from 0x1e), one data segment."""
    inl = len(frame_hdr)
    eth = bytearray(16)
    eth[4] = cs
    put(eth, 6, "H", mss)
    put(eth, 12, "H", inl)
    eth[14:16] = frame_hdr[:2]
    rest = frame_hdr[2:]
    rest += bytes(-len(rest) % 16)
    data = struct.pack(">IIQ", data_len, lkey, addr) if data_len else b""
    ds = 1 + 1 + len(rest) // 16 + len(data) // 16
    ctrl = struct.pack(">BHBIBxxBI", 0, idx, opcode, sqn << 8 | ds, 0, 8, 0)
    w = ctrl + bytes(eth) + rest + data
    return w + bytes(-len(w) % 64)


def nop_wqe(idx, sqn):
    return struct.pack(">BHBIBxxBI", 0, idx, 0, sqn << 8 | 1, 0, 8, 0) + bytes(48)


def toeplitz(key, data):
    """PRM "Toeplitz Hash" over data with the 40-byte key."""
    k = int.from_bytes(key, "big")
    kbits = len(key) * 8
    h = 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                pos = i * 8 + b
                h ^= (k >> (kbits - 32 - pos)) & 0xffffffff
    return h
