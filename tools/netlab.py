# SPDX-License-Identifier: MIT
"""tools/netlab.py: Linux peers on hayate's ports, for the e2e tests and `make run`.

Each guest port is a virtio-net (or igb) NIC on a host tap device. Once QEMU
holds the tap, the tap is moved into a network namespace of its own
(`ip link set TAP netns NS`) and keeps carrying frames: each namespace is
then a Linux host wired straight to one hayate port, with its own
addresses and routes, and nothing else on this machine can see the traffic.

    lab = Lab("smoke", [Peer(addrs=["10.0.0.2/24"]), Peer(addrs=["10.0.1.2/24"])])
    m = lab.start()                 # taps, QEMU, namespaces; waits for ready
    lab.peers[0].run("ping -c1 -W1 10.0.0.1")
    lab.close()                     # QEMU, taps and namespaces gone

http_server() serves a directory from a peer for the tests' transfers
(curl_through() checks one end to end).

Needs root, /dev/net/tun and iproute2: see unavailable().
"""
import contextlib
import hashlib
import os
import random
import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass, field

import qemu

# Test resources are named hyt<pid>x<n>, so one whose process is gone
# (a test run killed hard) can be found and removed by a later run.
STALE_RX = re.compile(r"^hyt(\d+)x\d+$")
_serial = 0


def pattern_sha256(n):
    """sha256 of `app http`'s /bytes/n: byte i is i % 251."""
    block = bytes(i % 251 for i in range(251)) * 4096  # a whole number of periods
    h = hashlib.sha256()
    while n >= len(block):
        h.update(block)
        n -= len(block)
    h.update(block[:n])
    return h.hexdigest()


def unavailable():
    """Why taps and namespaces cannot be used here, or None if they can."""
    if os.geteuid() != 0:
        return "needs root (tap devices and network namespaces)"
    if not os.path.exists("/dev/net/tun"):
        return "needs /dev/net/tun (modprobe tun)"
    if not shutil.which("ip"):
        return "needs iproute2 (tools/deps test)"
    return None


_probed = None


def probe():
    """unavailable(), and then whether a tap really moves into a namespace
    here (a container may forbid it): None if it does, else why not."""
    global _probed
    if _probed is None:
        _probed = unavailable() or ""
        if not _probed:
            name = unique_name()
            try:
                sh(["ip", "tuntap", "add", "dev", name, "mode", "tap"])
                sh(["ip", "netns", "add", name])
                sh(["ip", "link", "set", name, "netns", name])
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                _probed = f"cannot put a tap into a network namespace: {e}"
            sh(["ip", "netns", "del", name], check=False)
            sh(["ip", "link", "del", name], check=False)
    return _probed or None


def sh(argv, check=True, timeout=30, **kw):
    """Run a command (list, or str split like a shell) and capture its output."""
    if isinstance(argv, str):
        argv = shlex.split(argv)
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    if check and r.returncode:
        raise RuntimeError(f"{shlex.join(argv)}: status {r.returncode}: {r.stderr.strip()}")
    return r


def carrier_changes(dev):
    with open(f"/sys/class/net/{dev}/carrier_changes") as f:
        return int(f.read())


def unique_name():
    """A fresh hyt<pid>x<n> name, at most 15 characters (IFNAMSIZ)."""
    global _serial
    _serial += 1
    return f"hyt{os.getpid()}x{_serial}"


def remove_stale():
    """Delete test namespaces and taps left by processes that are gone."""
    def dead(name):
        m = STALE_RX.match(name)
        return m and not os.path.exists(f"/proc/{m.group(1)}")
    for ns in sh("ip netns list", check=False).stdout.split():
        if dead(ns):
            sh(["ip", "netns", "del", ns], check=False)
    for ln in sh("ip -o link show type tun", check=False).stdout.splitlines():
        name = ln.split(":")[1].strip().split("@")[0] if ":" in ln else ""
        if dead(name):
            sh(["ip", "link", "del", name], check=False)


@dataclass
class Peer:
    """A namespace with one tap, wired to one hayate port.
    addrs: "10.0.0.2/24" or "2001:db8::2/64"; routes: `ip route add` args;
    accept_ra: IPv6 on, configured by router advertisements (SLAAC, a
    default route) as a Linux host is out of the box."""
    addrs: list = field(default_factory=list)
    routes: list = field(default_factory=list)
    accept_ra: bool = False
    ns: str = ""   # default: a fresh hyt<pid>x<n>
    tap: str = ""  # default: the namespace's name

    def run(self, cmd, check=True, timeout=30, **kw):
        """Run cmd (str or list) inside the namespace; a CompletedProcess."""
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        return sh(["ip", "netns", "exec", self.ns] + argv, check, timeout, **kw)

    def popen(self, cmd, **kw):
        """Start cmd inside the namespace in the background."""
        argv = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        return subprocess.Popen(["ip", "netns", "exec", self.ns] + argv, **kw)

    def ip(self, args, check=True):
        """`ip -n NS args...`"""
        return sh(["ip", "-n", self.ns] + shlex.split(args), check)

    def addr(self, i=0):
        """The i-th address without its prefix length."""
        return self.addrs[i].split("/")[0]


class Lab:
    """hayate in QEMU with each port on a tap in its own namespace."""

    def __init__(self, name, peers, iso=qemu.ISO, queues=1, model="virtio-net-pci",
                 **machine_kw):
        why = unavailable()
        if why:
            raise RuntimeError(why)
        self.name = name
        self.peers = list(peers)
        for p in self.peers:
            p.ns = p.ns or unique_name()
            p.tap = p.tap or p.ns
        # queues and model: one for every port, or a list of one a port
        per = list(queues) if isinstance(queues, (list, tuple)) else [queues] * len(self.peers)
        models = list(model) if isinstance(model, (list, tuple)) else [model] * len(self.peers)
        self.nics = [qemu.Nic(p.tap, queues=q, model=mo) for p, q, mo in zip(self.peers, per, models)]
        self.machine = qemu.Machine(iso, name=name, nics=self.nics, **machine_kw)
        self.queues = queues

    def start(self, ready=True):
        """Create the taps, boot, move each tap into its namespace and set it
        up there (before the guest is far enough to send), then wait for
        "hayate: ready" unless ready=False. Returns the Machine."""
        try:
            for p, nic in zip(self.peers, self.nics):
                self._remove(p)  # a leftover of the same name (make run)
                mq = ["multi_queue"] if nic.queues > 1 else []
                sh(["ip", "tuntap", "add", "dev", p.tap, "mode", "tap"] + mq)
            before = [carrier_changes(p.tap) for p in self.peers]
            self.machine.start()
            for p, n in zip(self.peers, before):
                self._wait_attached(p, n)
                self._wire(p)
            if ready:
                self.machine.wait_ready()
        except BaseException:
            self.close()
            raise
        return self.machine

    def _wait_attached(self, p, before, timeout=10.0):
        # A tap moved away before QEMU opened it would make QEMU create a
        # new one of that name here. The tap's carrier comes on as QEMU
        # attaches: wait for that (carrier_changes reads even while down).
        deadline = time.monotonic() + timeout
        while carrier_changes(p.tap) == before:
            if not self.machine.running() or time.monotonic() > deadline:
                raise qemu.QemuError(f"{self.name}: QEMU did not attach to tap {p.tap}\n"
                                     + self.machine.tail())
            time.sleep(0.01)

    def _wire(self, p):
        sh(["ip", "netns", "add", p.ns])
        sh(["ip", "link", "set", p.tap, "netns", p.ns])
        p.ip("link set lo up")
        v6 = any(":" in a for a in p.addrs) or p.accept_ra
        # No IPv6 chatter (router and MLD solicitations) on a v4-only port:
        # tests count packets.
        p.run(["sysctl", "-qw", f"net.ipv6.conf.{p.tap}.disable_ipv6={0 if v6 else 1}"])
        if v6:
            p.run(["sysctl", "-qw", f"net.ipv6.conf.{p.tap}.accept_ra={1 if p.accept_ra else 0}"])
        for a in p.addrs:
            p.ip(f"addr add {a} dev {p.tap}" + (" nodad" if ":" in a else ""))
        p.ip(f"link set {p.tap} up")
        for r in p.routes:
            p.ip(("-6 " if ":" in r else "") + f"route add {r}")

    @staticmethod
    def _remove(p):
        sh(["ip", "netns", "del", p.ns], check=False)  # deletes the tap in it too
        sh(["ip", "link", "del", p.tap], check=False)

    def close(self):
        """QEMU first (it holds the taps), then the namespaces and taps."""
        self.machine.kill()
        for p in self.peers:
            self._remove(p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# Buffers a virtio-net RX ring may lack at any moment: it is topped up once
# REFILL_BATCH (drivers/virtio/virtio_net_dev.h) slots are empty. Its TX
# ring holds none once idle (sent buffers are reclaimed then).
VIRTIO_RX_SLACK = 31


def buffers_settled(m, done, timeout=10.0):
    """`show buffers json`'s pools once done([buffers each holds out]) is
    true, or after timeout: a connection's last ACK, a frame waiting on ARP
    or a TX ring not yet reclaimed holds some a moment longer, a leak for
    good."""
    deadline = time.monotonic() + timeout
    while True:
        pools = m.json("show buffers json")["pools"]
        if done([p["total"] - p["free"] for p in pools]) or time.monotonic() > deadline:
            return pools
        time.sleep(0.2)


@contextlib.contextmanager
def http_server(peer, addr, directory):
    """A Python HTTP server on port 8080 of peer's addr, serving directory;
    yields its URL ("http://host:8080") once it listens. Leaving kills it
    and waits for it to exit, so the next server's wait for a listener
    cannot see this one's socket."""
    srv = peer.popen(f"python3 -m http.server 8080 --bind {addr} --directory {directory}",
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        want = (f"[{addr}]" if ":" in addr else addr) + ":8080"
        for _ in range(300):  # python's start takes seconds on a loaded 2-core machine
            if want in peer.run("ss -ltnH", timeout=5).stdout:
                break
            assert srv.poll() is None, f"http.server on {addr} exited: {srv.returncode}"
            time.sleep(0.1)
        else:
            raise RuntimeError(f"http.server on {addr}:8080 not listening after 30 s")
        yield f"http://{want}"
    finally:
        srv.kill()
        srv.wait()


def curl_through(left, right, tmp_path, mb=10, timeout=240, addr_index=0):
    """curl mb MiB of random bytes from a Python HTTP server on right
    (port 8080 of its address addr_index, IPv4 or IPv6) to left; asserts
    the SHA-256 matches and returns the seconds the transfer took."""
    blob = random.Random(7).randbytes(mb << 20)
    (tmp_path / "blob").write_bytes(blob)
    out = tmp_path / "got"
    with http_server(right, right.addr(addr_index), tmp_path) as url:
        t0 = time.monotonic()
        left.run(f"curl -sS --max-time {timeout} -o {out} {url}/blob", timeout=timeout + 20)
        elapsed = time.monotonic() - t0
    assert hashlib.sha256(out.read_bytes()).hexdigest() == hashlib.sha256(blob).hexdigest()
    return elapsed
