# SPDX-License-Identifier: MIT
"""tools/rfc2544/wiring.py: two QEMU guests, tester and DUT, each with two
virtio-net ports, tester port i wired to DUT port i.

A wire is a pair of QEMU `-netdev dgram` backends on Unix datagram
sockets in a private folder: each side binds its own socket and sends to
the other's, one Ethernet frame a datagram. Nothing leaves the machine,
no root is needed (no taps), and no UDP port can collide with another
run. A frame sent before the other side is up is dropped, as on a cable
not yet plugged in.

Addresses (RFC 2544 appendix C's benchmarking network 198.18.0.0/15,
a /16 a side as there):

    tester eth0 198.18.0.2 --- wire 0 --- DUT port A 198.18.0.1/16
    tester eth1 198.19.0.2 --- wire 1 --- DUT port B 198.19.0.1/16

/16, not /24: the generator's flows vary the source's last 16 bits
upwards from 198.18.0.2 (`gen ports ... flows 256`: up to 198.18.1.1), and
on a /24 one of them is 198.18.0.255, the subnet's broadcast address,
which hayate (rightly, RFC 1812 5.3.7) will not forward (ip4-bad-source):
1 frame in 256 lost at any rate, and no NDR at all.

Every port has a fixed MAC, so each side can be told the other's.
TapWires makes the same wires of taps on bridges (root), for vhost-net.
"""
import os
import shutil
import subprocess
import tempfile

TESTER_MACS = ("52:54:00:72:54:00", "52:54:00:72:54:01")  # "rT"
DUT_MACS = ("52:54:00:72:44:00", "52:54:00:72:44:01")     # "rD"
TESTER_ADDRS = ("198.18.0.2/16", "198.19.0.2/16")
DUT_ADDRS = ("198.18.0.1/16", "198.19.0.1/16")


def addr(a):
    """"198.18.0.2/24" -> "198.18.0.2" """
    return a.split("/")[0]


class Wires:
    """The socket folder; netdev(side, i) is the backend spec (without its
    id) for port i of side "tester" or "dut"."""

    SIDES = ("tester", "dut")

    def __init__(self, ports=2):
        self.ports = ports
        # Short and comma-free: a Unix socket path has 108 bytes, and QEMU
        # splits its options at commas.
        self.dir = tempfile.mkdtemp(prefix="hy2544-", dir="/tmp")

    def path(self, side, i):
        return os.path.join(self.dir, f"{side[0]}{i}")

    def netdev(self, side, i):
        if side not in self.SIDES:
            raise ValueError(f"side {side!r}: one of {self.SIDES}")
        other = self.SIDES[1 - self.SIDES.index(side)]
        for p in (self.path(side, i),):
            if os.path.exists(p):  # a QEMU of an earlier run on this folder
                os.unlink(p)
        return (f"dgram,local.type=unix,local.path={self.path(side, i)},"
                f"remote.type=unix,remote.path={self.path(other, i)}")

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class TapWires:
    """The same wires as taps, each pair on a Linux bridge of its own
    (root): the backend vhost-net needs, which a `dgram` socket is not.
    With vhost, the kernel moves the frames between tap and guest (needs
    /dev/vhost-net; under KVM, the setup #34 asks to compare hayate and
    Linux on). The host sends nothing on them: no IPv6, no STP."""

    SIDES = Wires.SIDES

    def __init__(self, ports=2, vhost=False):
        if vhost and not os.path.exists("/dev/vhost-net"):
            raise RuntimeError("vhost-net: no /dev/vhost-net here (modprobe vhost_net)")
        self.ports, self.vhost = ports, vhost
        tag = f"hy{os.getpid() % 100000}"  # interface names: 15 bytes at most
        self.bridges = [f"{tag}w{i}" for i in range(ports)]
        self.taps = {(s, i): f"{tag}{s[0]}{i}" for s in self.SIDES for i in range(ports)}
        try:
            for i, br in enumerate(self.bridges):
                _ip("link", "add", br, "type", "bridge", "stp_state", "0", "forward_delay", "0",
                    "mcast_snooping", "0")
                _no_ipv6(br)
                for s in self.SIDES:
                    tap = self.taps[(s, i)]
                    _ip("tuntap", "add", "dev", tap, "mode", "tap")
                    _no_ipv6(tap)
                    _ip("link", "set", tap, "master", br, "up")
                _ip("link", "set", br, "up")
        except BaseException:
            self.close()
            raise

    def netdev(self, side, i):
        if side not in self.SIDES:
            raise ValueError(f"side {side!r}: one of {self.SIDES}")
        return (f"tap,ifname={self.taps[(side, i)]},script=no,downscript=no,"
                f"vhost={'on' if self.vhost else 'off'}")

    def close(self):
        for name in list(self.taps.values()) + self.bridges:
            subprocess.run(["ip", "link", "del", name], capture_output=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _ip(*args):
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {r.stderr.strip()}")


def _no_ipv6(dev):
    with open(f"/proc/sys/net/ipv6/conf/{dev}/disable_ipv6", "w") as f:
        f.write("1")
