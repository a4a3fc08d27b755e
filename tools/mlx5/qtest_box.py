# SPDX-License-Identifier: MIT
"""tools/mlx5/qtest_box.py: a QEMU with one `-device mlx5` behind a
pcie-root-port, driven over the qtest protocol (no guest), with a command
queue in guest memory: the plumbing of qemu/tests/mlx5_check.py.

Guest memory used: the command queue at CMDQ, input mailboxes from IN_MB,
output mailboxes from OUT_MB (1 KB apart, as Linux places them), EQ and
other queue buffers from EQ_BASE. The command queue entry, mailbox block
layout and doorbell: PRM (ConnectX-4, Rev 0.40) "Command Interface".
"""
import base64
import json
import os
import socket
import struct
import subprocess
import tempfile
import time

BAR0 = 0xE0000000          # behind the root port's prefetchable window
RP = 4                     # the root port: bus 0, slot 4; the NIC: bus 1, 0.0
CMDQ = 0x100000
IN_MB = 0x200000
OUT_MB = 0x300000
EQ_BASE = 0x1000000
BLOCK = 576


class Checks:
    """Named checks: each printed, the failures kept."""

    def __init__(self):
        self.fails = []

    def ok(self, cond, what):
        print(f"{'ok  ' if cond else 'FAIL'} {what}")
        if not cond:
            self.fails.append(what)
        return cond


def socket_box(qemu, dev_opts=""):
    """A Box whose NIC is wired to a UDP socket here (-netdev socket):
    (the box, the peer socket, connected to the NIC's end)."""
    peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    peer.bind(("127.0.0.1", 0))
    qport = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    qport.bind(("127.0.0.1", 0))
    qemu_port = qport.getsockname()[1]
    qport.close()
    peer.connect(("127.0.0.1", qemu_port))
    box = Box(qemu, netdev=("-netdev", f"socket,id=n1,udp=127.0.0.1:{peer.getsockname()[1]},"
                                       f"localaddr=127.0.0.1:{qemu_port}"), dev_opts=dev_opts)
    return box, peer


class Box:
    def __init__(self, qemu, extra=(), netdev=("-netdev", "user,id=n1"), dev_opts=""):
        self.dir = tempfile.mkdtemp(prefix="mlx5-check-")
        sock = os.path.join(self.dir, "qmp.sock")
        self.log = os.path.join(self.dir, "guest-errors.log")
        self.p = subprocess.Popen(
            [qemu, "-machine", "q35", "-accel", "qtest", "-qtest", "stdio",
             "-display", "none", "-nodefaults", "-m", "512M",
             "-qmp", f"unix:{sock},server=on,wait=off",
             "-d", "guest_errors", "-D", self.log, *netdev,
             "-device", f"pcie-root-port,id=rp1,slot=1,chassis=1,addr={RP}",
             "-device", "mlx5,id=nic0,bus=rp1,addr=0,romfile=,netdev=n1,mac=52:54:00:12:34:56" + dev_opts,
             *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.1)
        self.q = socket.socket(socket.AF_UNIX)
        self.q.connect(sock)
        self.qf = self.q.makefile("rw")
        self.qf.readline()
        self.qmp("qmp_capabilities")
        self.setup_pci()

    # --- transport ---
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
            r = self.p.stdout.readline()
            if not r:
                raise RuntimeError(f"qemu exited at: {line}")
            r = r.split()
            if r and r[0] == "OK":
                return r[1] if len(r) > 1 else None
            if r and r[0] == "FAIL":
                raise RuntimeError(line)

    def write(self, addr, data):
        if data:
            self.qt(f"b64write {addr:#x} {len(data)} {base64.b64encode(data).decode()}")

    def read(self, addr, n):
        return base64.b64decode(self.qt(f"b64read {addr:#x} {n}"))

    def mmio_read(self, off):
        """A 32-bit BAR0 register (big-endian, PRM)."""
        return struct.unpack(">I", self.read(BAR0 + off, 4))[0]

    def mmio_write(self, off, val, size=4):
        self.write(BAR0 + off, val.to_bytes(size, "big"))

    def clock_step(self, ns):
        self.qt(f"clock_step {ns}")

    def count(self, name):
        return self.qmp("qom-get", path="/machine/peripheral/nic0", property=name)

    def cfg(self, bus, dev, reg, val=None, size=4):
        self.qt(f"outl 0xcf8 {0x80000000 | bus << 16 | dev << 11 | (reg & ~3):#x}")
        port = 0xcfc + (reg & 3)
        op = {1: "b", 2: "w", 4: "l"}[size]
        if val is None:
            return int(self.qt(f"in{op} {port:#x}"), 16)
        self.qt(f"out{op} {port:#x} {val:#x}")

    def setup_pci(self):
        """Root port: bus 1, prefetchable window over BAR0; NIC: BAR0."""
        self.cfg(0, RP, 0x18, 0x00010100)              # primary 0, secondary 1, subordinate 1
        self.cfg(0, RP, 0x20, 0x0000fff0)              # no non-prefetchable window
        base = BAR0 >> 16
        self.cfg(0, RP, 0x24, (base + 0x1f0) << 16 | base | 0x00010001)  # 64-bit, 32 MB
        self.cfg(0, RP, 0x28, 0)
        self.cfg(0, RP, 0x2c, 0)
        self.cfg(0, RP, 0x04, 0x6)
        self.cfg(1, 0, 0x10, BAR0 | 0xc)
        self.cfg(1, 0, 0x14, 0)
        self.cfg(1, 0, 0x04, 0x6)
        self.vendor_device = self.cfg(1, 0, 0x00)

    def find_cap(self, cap_id):
        p = self.cfg(1, 0, 0x34, size=1)
        while p:
            h = self.cfg(1, 0, p, size=2)
            if h & 0xff == cap_id:
                return p
            p = h >> 8
        return None

    def flr(self):
        pcie = self.find_cap(0x10)
        self.cfg(1, 0, pcie + 8, 1 << 15, size=2)     # Device Control: Initiate FLR
        self.cfg(1, 0, 0x10, BAR0 | 0xc)
        self.cfg(1, 0, 0x04, 0x6)

    def set_cmdq(self):
        self.mmio_write(0x10, CMDQ >> 32)
        self.mmio_write(0x14, CMDQ & 0xffffffff)

    def doorbell(self, vector):
        self.mmio_write(0x18, vector)

    # --- commands (PRM "Command Queue Entry", "Command Mailbox") ---
    def write_entry(self, slot, inline_in, in_len, out_len=16, in_ptr=0, out_ptr=0,
                    token=1, sig=0, own=1, etype=7):
        e = struct.pack(">B3xIQ", etype, in_len, in_ptr) + inline_in[:16].ljust(16, b"\0")
        e += bytes(16) + struct.pack(">QIBBBB", out_ptr, out_len, token, sig, 0, own)
        self.write(CMDQ + 64 * slot, e)

    def chain(self, base, data, nblocks, token, block_fix=None):
        out = bytearray()
        for i in range(nblocks):
            blk = bytearray(BLOCK)
            chunk = data[i * 512:(i + 1) * 512]
            blk[:len(chunk)] = chunk
            nxt = base + (i + 1) * 1024 if i + 1 < nblocks else 0
            num = (block_fix or {}).get(i, i)
            blk[0x230:0x240] = struct.pack(">QIBBBB", nxt, num, 0, token, 0, 0)
            out += blk.ljust(1024, b"\0")
        self.write(base, bytes(out))

    def cmd(self, inp, out_len, slot=0, token=1, sig=0, etype=7, mb_token=None,
            block_fix=None, out_blocks=None):
        """Run one command; returns (entry, output bytes, delivery status)."""
        in_len = len(inp)
        nin = max(0, -(-(in_len - 16) // 512))
        nout = max(0, -(-(out_len - 16) // 512)) if out_blocks is None else out_blocks
        mt = token if mb_token is None else mb_token
        if nin:
            self.chain(IN_MB, inp[16:], nin, mt)
        if nout:
            self.chain(OUT_MB, b"", nout, mt, block_fix)
        self.write_entry(slot, inp, in_len, out_len, IN_MB if nin else 0,
                         OUT_MB if nout else 0, token, sig, 1, etype)
        self.doorbell(1 << slot)
        e = self.read(CMDQ + 64 * slot, 64)
        out = bytearray(e[0x20:0x30])
        for i in range(nout):
            out += self.read(OUT_MB + i * 1024, 512)
        return e, bytes(out[:out_len]).ljust(out_len, b"\0"), e[0x3f] >> 1

    def close(self):
        self.p.kill()
        self.p.wait()
        return open(self.log).read() if os.path.exists(self.log) else ""
