# SPDX-License-Identifier: MIT
"""tools/linux_guest/nic_check.py: a NIC model checked by Linux's own
driver for it: probe, link, ping both ways and TCP both ways on the PF,
then SR-IOV (VFs that the VF driver binds, one of them passing a ping).
The guest's half is nic_check.sh; this is the host's.

    c = NicCheck("igb", "igbvf", num_vfs=2)
    lab = GuestLab(name, c.peers(), kernel, c.initramfs(kernel, path), model="igb")
    out = c.run(lab)                    # raises CheckFailed saying which step
    out.results, out.timings, out.dmesg

Host side: a namespace on each port's tap: the first with 10.0.0.2/24 (the
PF's subnet) and 10.0.1.2/24 (the first VF's), the second (ports=2, a
second port behind rp2: probe, link, ping both ways, also at MTU 9000)
with 10.0.2.2/24.
"""
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import netlab  # noqa: E402
import qemu  # noqa: E402

from initramfs import build_initramfs  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# The host's receiver: TCP_BYTES on port 5002, then "<count> <sha256>".
RECEIVER = """import hashlib, socket, sys
n = int(sys.argv[1]); s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.0.0.2", 5002)); s.listen(1); print("listening", flush=True)
c, _ = s.accept(); c.settimeout(60); h = hashlib.sha256(); got = 0
while got < n:
    b = c.recv(65536)
    if not b: break
    h.update(b); got += len(b)
c.close(); print(got, h.hexdigest(), flush=True)
"""
SENDER = """import socket, sys
n = int(sys.argv[1]); block = bytes(i % 251 for i in range(251)) * 4096
s = socket.create_connection(("10.0.0.1", 5001), timeout=30)
while n > 0:
    s.sendall(block[:n]); n -= min(n, len(block))
s.close()
"""


class CheckFailed(AssertionError):
    pass


@dataclass
class Outcome:
    results: dict = field(default_factory=dict)   # name: (PASS|FAIL, detail)
    values: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)   # step: seconds since QEMU start
    dmesg: str = ""


class NicCheck:
    def __init__(self, pf_driver, vf_driver="", num_vfs=0, ports=1, tcp_bytes=1 << 20,
                 timeout=90.0, params=None):
        self.pf_driver = pf_driver
        self.params = params or {}  # insmod arguments: {"ixgbe": "allow_unsupported_sfp=1"}
        self.ports = ports
        self.vf_driver = vf_driver
        self.num_vfs = num_vfs
        self.tcp_bytes = tcp_bytes
        self.timeout = timeout  # for each step, under TCG on a busy host

    def peers(self):
        """The host's namespaces, one a port: the first holds the PF's and
        the first VF's subnets, the second (ports=2) 10.0.2.2/24."""
        first = netlab.Peer(addrs=["10.0.0.2/24", "10.0.1.2/24"])
        return [first] + [netlab.Peer(addrs=["10.0.2.2/24"])][:self.ports - 1]

    def script(self):
        with open(os.path.join(HERE, "nic_check.sh")) as f:
            body = f.read()
        return (f"PF_DRIVER={self.pf_driver}\nVF_DRIVER={self.vf_driver}\n"
                f"NUM_VFS={self.num_vfs}\nTCP_BYTES={self.tcp_bytes}\nPORTS={self.ports}\n" + body)

    def initramfs(self, kernel, out):
        mods = [self.pf_driver] + ([self.vf_driver] if self.vf_driver else [])
        build_initramfs(kernel, mods, self.script(), out, self.params)
        return out

    def run(self, lab):
        """Boot lab (a GuestLab on this check's peers()), play the host's part,
        return an Outcome; CheckFailed if any guest step failed or a host
        check did not hold. The lab is left to the caller to close."""
        g = lab.start()
        peer = lab.peers[0]
        for p in lab.peers:  # the jumbo pings of the second port and of the VF (nic_check.sh)
            p.ip(f"link set {p.tap} mtu 9000")
        out = Outcome()
        t = out.timings

        def mark(name):
            t[name] = round(time.monotonic() - g.t0, 2)

        def step(tag):
            # The guest's script gives up (return) after a step that leaves
            # nothing to check: LG-DONE then comes instead of the next wait.
            try:
                m = g.wait_for(r"(?m)^LG-(WAIT " + re.escape(tag) + r"|DONE .*)\r?$", self.timeout)
            except qemu.QemuError as e:
                self._fail(lab, g, [str(e).split("\n")[0]])
            if m.group(1).startswith("DONE"):
                self._fail(lab, g, [f"the guest stopped before {tag}"])
            mark(tag)

        def host(p, cmd):
            r = p.run(cmd, check=False, timeout=60)
            if r.returncode:
                self._fail(lab, g, [f"host {cmd}: status {r.returncode} {r.stdout[-200:]}"])
            return r

        g.wait_for(r"LG-BOOT ", self.timeout)
        mark("boot")
        step("pf-ready")
        host(peer, "ping -c 3 -W 3 10.0.0.1")
        r = peer.run(["python3", "-c", SENDER, str(self.tcp_bytes)], check=False, timeout=120)
        if r.returncode:
            self._fail(lab, g, [f"host sender: {r.stderr.strip()[-300:]}"])
        g.reply()
        want = netlab.pattern_sha256(self.tcp_bytes)
        step("host-listening")
        rx = peer.popen(["python3", "-c", RECEIVER, str(self.tcp_bytes)],
                        stdout=subprocess.PIPE, text=True)
        try:
            if rx.stdout.readline().strip() != "listening":
                self._fail(lab, g, ["the host's receiver did not start"])
            g.reply()
            got, _ = rx.communicate(timeout=120)
        finally:
            rx.kill()
        mark("tcp-to-host")
        if self.ports >= 2:
            step("pf2-ready")
            host(lab.peers[1], "ping -c 3 -W 3 10.0.2.1")
            host(lab.peers[1], "ping -c 3 -W 3 -s 8972 -M do 10.0.2.1")
            g.reply()
        if self.num_vfs:
            step("vf-ready")
            host(peer, "ping -c 3 -W 3 10.0.1.1")
            neigh = peer.ip("neigh show 10.0.1.1").stdout.split()
            g.reply()
            step("vf-jumbo-ready")
            host(peer, "ping -c 3 -W 3 -s 8972 -M do 10.0.1.1")
            g.reply()
        g.wait_done(self.timeout)
        mark("done")
        out.dmesg = g.wait_dmesg(30)
        out.results, out.values = g.results(), g.values()
        problems = []
        if out.values.get("pf-rx") != f"{self.tcp_bytes} {want}":
            problems.append(f"pf-rx: guest got {out.values.get('pf-rx')}, host sent {self.tcp_bytes} {want}")
        if got.strip() != out.values.get("pf-tx"):
            problems.append(f"pf-tx: guest sent {out.values.get('pf-tx')}, host got {got.strip()}")
        if self.num_vfs:
            vmac = out.values.get("vf-mac", "?")
            if vmac not in neigh:
                problems.append(f"the host reached 10.0.1.1 at {neigh}, not the VF's {vmac}")
            before, after = (out.values.get(k, "") for k in ("vf-rx-before", "vf-rx-after"))
            if not (before.isdigit() and after.isdigit() and int(after) > int(before)):
                problems.append(f"the VF's rx_packets did not move while the host pinged it ({before} to {after})")
        if "Call Trace" in out.dmesg:
            problems.append("the guest kernel logged a Call Trace (see the log)")
        if problems or any(s != "PASS" for s, _ in out.results.values()):
            self._fail(lab, g, problems)
        return out

    @staticmethod
    def _fail(lab, g, problems):
        """CheckFailed: what went wrong, every guest step that failed, and
        where the whole console (and the guest's kernel log) is."""
        g.abort()  # the guest's kernel log into the log before the lab kills QEMU
        failed = [f"{n}: {d}" for n, (s, d) in g.results().items() if s != "PASS"]
        raise CheckFailed(f"{lab.name}: " + "; ".join(problems + [x for x in failed if x not in problems])
                          + f"\nconsole and kernel log: {g.log_path}")
