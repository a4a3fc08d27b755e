# SPDX-License-Identifier: MIT
"""tests/e2e/test_vlan.py: VLAN sub-interfaces (kernel/netsvc/subif.c,
net_subif_add) on the real image in QEMU.

eth0 carries an untagged address and eth0.100, eth0.200 (IEEE 802.1Q) and
eth0.300.400 (802.1ad QinQ); eth1 is untagged, host B behind it. This
host's kernel has no 802.1Q module, so the VLANs' hosts are played on
eth0's tap by a raw socket (scapy builds and reads the frames; the tag
Linux takes off on receive comes back from PACKET_AUXDATA): each answers
ARP and neighbour solicitations in its VLAN and records what reaches it.

Checked: pings to each sub-interface's address answered in its VLAN
(QinQ: both tags); a host on VLAN 100 and one on VLAN 200 of the same port
reach each other through hayate, and both reach B on eth1, IPv4 and IPv6,
every frame tagged with its VLAN; a capture of one sub-interface shows
its frames alone; a frame of an unknown VLAN is dropped and counted; `show
vlans` counts each sub-interface's frames.
"""
import os
import socket
import struct
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402
import nsraw  # noqa: E402

scapy = pytest.importorskip("scapy.all")
from scapy.all import ARP, ICMP, IP, UDP, Dot1AD, Dot1Q, Ether, ICMPv6EchoReply, ICMPv6EchoRequest  # noqa: E402
from scapy.all import ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, IPv6, Raw  # noqa: E402

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

CONF = """hostname r1
interface eth0 address 10.0.0.1/24
interface eth0.100 address 10.1.100.1/24
interface eth0.100 address 2001:db8:100::1/64
interface eth0.200 address 10.1.200.1/24
interface eth0.200 address 2001:db8:200::1/64
interface eth0.300.400 address 10.3.0.1/24
interface eth1 address 10.0.1.1/24
interface eth1 address 2001:db8:b::1/64
"""

SOL_PACKET, PACKET_AUXDATA, TP_STATUS_VLAN_VALID, TP_STATUS_VLAN_TPID_VALID = 263, 8, 0x10, 0x40


class Host:
    def __init__(self, mac, ip, ip6=None, outer=0, vid=0):
        self.mac, self.ip, self.ip6, self.outer, self.vid = mac, ip, ip6, outer, vid

    def l2(self, dst):
        e = Ether(src=self.mac, dst=dst)
        if self.outer:
            return e / Dot1AD(vlan=self.outer) / Dot1Q(vlan=self.vid)
        return e / Dot1Q(vlan=self.vid) if self.vid else e


class Vlans:
    """The VLANs' hosts on one raw socket: answers ARP, ND and IPv6 echo
    requests for them, keeps every other frame that reaches one as (outer,
    vid, scapy packet)."""

    def __init__(self, ns, tap, hosts):
        self.s = nsraw.raw_socket(ns, tap)
        self.s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        self.s.settimeout(0.2)
        self.hosts, self.got, self.stop = hosts, [], False
        self.t = threading.Thread(target=self.loop, daemon=True)
        self.t.start()

    def send(self, pkt):
        self.s.send(bytes(pkt))

    def recv(self):
        data, anc, _, _ = self.s.recvmsg(65535, socket.CMSG_SPACE(20))
        for level, kind, val in anc:  # struct tpacket_auxdata: the tag Linux took off
            if level == SOL_PACKET and kind == PACKET_AUXDATA and len(val) >= 20:
                status, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", val[:20])
                if status & TP_STATUS_VLAN_VALID:
                    tpid = tpid if status & TP_STATUS_VLAN_TPID_VALID and tpid else 0x8100
                    data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
        return data

    def loop(self):
        while not self.stop:
            try:
                data = self.recv()
            except (socket.timeout, OSError):
                continue
            p = Ether(data)
            tags = [layer.vlan for layer in (p.getlayer(Dot1AD), p.getlayer(Dot1Q)) if layer is not None]
            outer, vid = (tags[0], tags[1]) if len(tags) == 2 else (0, tags[0] if tags else 0)
            for h in self.hosts:
                if (h.outer, h.vid) != (outer, vid):
                    continue
                if ARP in p and p[ARP].op == 1 and p[ARP].pdst == h.ip:
                    self.send(h.l2(p.src) / ARP(op=2, hwsrc=h.mac, psrc=h.ip, hwdst=p.src, pdst=p[ARP].psrc))
                elif ICMPv6ND_NS in p and h.ip6 and p[ICMPv6ND_NS].tgt == h.ip6:
                    self.send(h.l2(p.src) / IPv6(src=h.ip6, dst=p[IPv6].src) /
                              ICMPv6ND_NA(tgt=h.ip6, R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=h.mac))
                elif p.dst == h.mac and ICMPv6EchoRequest in p and p[IPv6].dst == h.ip6:
                    self.send(h.l2(p.src) / IPv6(src=h.ip6, dst=p[IPv6].src) /
                              ICMPv6EchoReply(id=p[ICMPv6EchoRequest].id, seq=p[ICMPv6EchoRequest].seq,
                                              data=p[ICMPv6EchoRequest].data))
                elif p.dst == h.mac:
                    self.got.append((outer, vid, p))

    def wait(self, what, fn, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            hits = [g for g in list(self.got) if fn(g)]
            if hits:
                return hits
            time.sleep(0.05)
        raise AssertionError(f"{what}: nothing within {timeout}s; got {[(o, v, p.summary()) for o, v, p in self.got]}")

    def close(self):
        self.stop = True
        self.t.join(2)
        self.s.close()


H100 = Host("02:00:00:00:01:00", "10.1.100.2", "2001:db8:100::2", vid=100)
H200 = Host("02:00:00:00:02:00", "10.1.200.2", "2001:db8:200::2", vid=200)
HQ = Host("02:00:00:00:03:00", "10.3.0.2", outer=300, vid=400)


def test_vlan_subinterfaces(netlab, report):
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24"], routes=[]),
                  nl.Peer(addrs=["10.0.1.2/24", "2001:db8:b::2/64"],
                          routes=["10.1.0.0/16 via 10.0.1.1", "2001:db8::/32 via 2001:db8:b::1"])], config=CONF)
    m, a, b = lab.machine, lab.peers[0], lab.peers[1]
    assert not [ln for ln in m.log.splitlines() if ln.startswith("config: line")], m.tail()
    mac0 = m.json("show interfaces json")["interfaces"][0]["mac"]
    v = Vlans(a.ns, a.tap, [H100, H200, HQ])
    try:
        # each sub-interface answers in its own VLAN, QinQ with both tags;
        # a capture of eth0.200 shows its two frames, none of VLAN 100's before
        out = m.cmd("capture eth0.200 count 2 match proto icmp")
        assert "capture:" not in out, out
        for h, dst in ((H100, "10.1.100.1"), (H200, "10.1.200.1"), (HQ, "10.3.0.1")):
            v.send(h.l2(mac0) / IP(src=h.ip, dst=dst) / ICMP(id=7, seq=h.vid))
            v.wait(f"echo reply from {dst}", lambda g, h=h, dst=dst: (g[0], g[1]) == (h.outer, h.vid) and
                   ICMP in g[2] and g[2][ICMP].type == 0 and g[2][IP].src == dst)
        m.wait_for(r"eth0 rx IP 10\.1\.200\.2 > 10\.1\.200\.1: ICMP type 8, length \d+ \(vlan 200\)", 10)
        m.wait_for(r"eth0 tx IP 10\.1\.200\.1 > 10\.1\.200\.2: ICMP type 0, length \d+ \(vlan 200\)", 10)
        m.wait_for(r"capture: 2 packets", 10)
        v.send(H100.l2(mac0) / IPv6(src=H100.ip6, dst="2001:db8:100::1") / ICMPv6EchoRequest(id=8, seq=1))
        v.wait("IPv6 echo reply on VLAN 100", lambda g: g[1] == 100 and ICMPv6EchoReply in g[2])

        # VLAN 100 -> VLAN 200 on the same port, and back: tagged as they leave
        for src, dst in ((H100, H200), (H200, H100)):
            v.send(src.l2(mac0) / IP(src=src.ip, dst=dst.ip, ttl=9) / UDP(sport=1000 + src.vid, dport=9) / Raw(b"x" * 20))
            got = v.wait(f"UDP {src.vid} -> {dst.vid}", lambda g, src=src, dst=dst: g[1] == dst.vid and UDP in g[2] and
                         g[2][UDP].sport == 1000 + src.vid)
            assert got[0][2][IP].ttl == 8 and got[0][2].src == mac0
            v.send(src.l2(mac0) / IPv6(src=src.ip6, dst=dst.ip6, hlim=9) / UDP(sport=2000 + src.vid, dport=9))
            got = v.wait(f"IPv6 UDP {src.vid} -> {dst.vid}", lambda g, src=src, dst=dst: g[1] == dst.vid and
                         UDP in g[2] and g[2][UDP].sport == 2000 + src.vid)
            assert got[0][2][IPv6].hlim == 8

        # VLAN 100 <-> B on eth1, untagged there
        v.send(H100.l2(mac0) / IP(src=H100.ip, dst="10.0.1.2") / ICMP(id=9, seq=1))
        v.wait("B's echo reply back on VLAN 100", lambda g: g[1] == 100 and ICMP in g[2] and g[2][ICMP].type == 0 and
               g[2][IP].src == "10.0.1.2")
        assert b.run(["ping", "-6", "-c", "1", "-W", "3", H200.ip6], check=False, timeout=10).returncode == 0

        # an unknown VLAN: dropped, counted
        drops = m.json("show stats json")["counters"]["eth-vlan-drop"]
        v.send(Host("02:00:00:00:09:00", "10.9.0.2", vid=999).l2(mac0) / IP(src="10.9.0.2", dst="10.1.100.1") / ICMP())
        deadline = time.monotonic() + 10
        while m.json("show stats json")["counters"]["eth-vlan-drop"] == drops:
            assert time.monotonic() < deadline, "no eth-vlan-drop for VLAN 999"
            time.sleep(0.3)
    finally:
        v.close()
    assert m.json("show interfaces json")["interfaces"][0]["subinterfaces"] == "eth0.100 eth0.200 eth0.300.400"
    vl = {x["name"]: x for x in m.json("show vlans json")["vlans"]}
    assert set(vl) == {"eth0.100", "eth0.200", "eth0.300.400"}, vl
    assert vl["eth0.300.400"]["outer_vid"] == 300 and vl["eth0.300.400"]["vid"] == 400
    assert all(x["rx_packets"] > 0 and x["tx_packets"] > 0 for x in vl.values()), vl
    report("VLAN sub-interfaces (TCG): eth0.100, eth0.200 and QinQ eth0.300.400 beside eth0's own address; pings "
           "answered in each VLAN, VLAN 100 <-> 200 on one port and VLAN <-> eth1, IPv4 and IPv6, tags right, an "
           "unknown VLAN dropped and counted")
