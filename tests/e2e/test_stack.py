# SPDX-License-Identifier: MIT
"""tests/e2e/test_stack.py: the stack below TCP seen from a Linux host on
a tap (issue 5): ping and ping6 of every size (fragmented both ways at
4000 bytes), arping, and UDP echo with nc, and over IPv6 to the global and
link-local addresses, fragmented too."""
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

CONF = ("hostname s1\ninterface eth0 address 10.5.0.1/24\ninterface eth0 address 2001:db8:5::1/64\n"
        "app udp-echo port 7\n")


@pytest.fixture
def host(mkiso, request):
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["10.5.0.2/24", "2001:db8:5::2/64"])],
                     iso=mkiso(CONF))
    lab.start()
    yield lab.peers[0], lab.machine
    lab.close()


@pytest.mark.parametrize("v", [4, 6])
@pytest.mark.parametrize("size", [56, "mtu", 4000])
def test_ping_sizes(host, size, v):
    peer, m = host
    if size == "mtu":  # the largest unfragmented: 1500 less the IP and ICMP headers
        size = 1472 if v == 4 else 1452
    addr, icmp = ("10.5.0.1", "icmp4") if v == 4 else ("2001:db8:5::1", "icmp6")
    before = m.json("show stats json")["counters"]
    out = peer.run(f"ping -{v} -c 3 -i 0.2 -W 3 -s {size} {addr}", timeout=30).stdout
    assert " 0% packet loss" in out, out
    assert re.search(rf"{size + 8} bytes from {addr}", out), out
    after = m.json("show stats json")["counters"]
    if size == 4000:  # 4008 bytes of ICMP: 3 fragments each way, 3 times
        assert after[f"ip{v}-reasm-ok"] - before[f"ip{v}-reasm-ok"] == 3
        assert after[f"ip{v}-frag-tx"] - before[f"ip{v}-frag-tx"] == 9
    assert after[f"{icmp}-tx-echo-reply"] - before[f"{icmp}-tx-echo-reply"] == 3


def test_jumbo_frames_dropped_whole(host):
    """A host whose link takes 9000 bytes sends frames larger than a buffer:
    the device splits each over several (virtio MRG_RXBUF), the header in the
    first only. Each frame is dropped whole, counted once as rx-error; no
    later buffer of it is read as a frame of its own."""
    peer, m = host

    def rx_error():
        return next(i["counters"]["rx-error"] for i in m.json("show interfaces json")["interfaces"]
                    if i["name"] == "eth0")

    before = rx_error()
    peer.ip(f"link set {peer.tap} mtu 9000")
    try:
        for pattern in ("00", "ff"):  # either way, what follows the first buffer is no header
            out = peer.run(f"ping -c 3 -i 0.2 -W 1 -M do -s 4000 -p {pattern} 10.5.0.1", check=False,
                           timeout=20).stdout
            assert "100% packet loss" in out, out
    finally:
        peer.ip(f"link set {peer.tap} mtu 1500")
    assert rx_error() - before == 6
    out = peer.run("ping -c 2 -i 0.2 -W 3 -s 1472 10.5.0.1", timeout=20).stdout
    assert " 0% packet loss" in out, out


def test_arping(host):
    peer, m = host
    out = peer.run(f"arping -c 3 -w 5 -I {peer.tap} 10.5.0.1", timeout=20).stdout
    # Either arping: iputils ("Unicast reply from 10.5.0.1 [MAC]") or
    # Habets' ("60 bytes from MAC (10.5.0.1)").
    assert re.search(r"reply from 10\.5\.0\.1|bytes from \S+ \(10\.5\.0\.1\)", out, re.I), out
    assert " 0% unanswered" in out or "Received 3 response" in out, out
    mac = next(i["mac"] for i in m.json("show interfaces json")["interfaces"] if i["name"] == "eth0")
    assert mac.lower() in out.lower()


def test_udp_echo_with_nc(host):
    peer, m = host
    lines = [f"line {i} " + "x" * i for i in range(1, 6)]
    got = []
    for ln in lines:  # one datagram each; nc -u prints what comes back
        r = peer.run(["bash", "-c", f"printf '%s\\n' '{ln}' | timeout 2 nc -u -w 1 10.5.0.1 7"], check=False,
                     timeout=10)
        got.append(r.stdout.strip())
    assert got == lines
    assert m.json("show stats json")["counters"]["udp-rx"] >= len(lines)


# Each datagram from a socket of the peer's, its answer checked whole:
# from the address asked, sizes up to a full 1500-byte packet, then two
# that go in fragments (one whole in a buffer of ours, one not).
UDP6_CLIENT = """
import socket, sys
dst, scope = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.settimeout(2)
for n in (0, 1, 100, 1452, 1600, 3000):
    data = bytes(i % 251 for i in range(n))
    addr = (dst, 7, 0, socket.if_nametoindex(scope) if scope else 0)
    for attempt in range(3):
        s.sendto(data, addr)
        try:
            got, frm = s.recvfrom(4000)
            break
        except socket.timeout:
            continue
    else:
        sys.exit(f"no answer for {n} bytes")
    assert got == data and frm[0].split("%")[0] == dst and frm[1] == 7, (n, len(got), frm)
print("ok")
"""


def test_udp_echo_ipv6(host):
    peer, m = host
    before = m.json("show stats json")["counters"]
    ll = next(i for i in m.json("show interfaces json")["interfaces"] if i["name"] == "eth0")["mac"]
    b = [int(x, 16) for x in ll.split(":")]
    b[0] ^= 2  # RFC 4291 appendix A: the modified EUI-64
    ll6 = "fe80::%x:%x:%x:%x" % (b[0] << 8 | b[1], b[2] << 8 | 0xff, 0xfe << 8 | b[3], b[4] << 8 | b[5])
    for dst, scope in (("2001:db8:5::1", ""), (ll6, peer.tap)):
        r = peer.run(["python3", "-c", UDP6_CLIENT, dst, scope], check=False, timeout=30)
        assert r.stdout.strip() == "ok", (dst, r.stdout, r.stderr)
    c = m.json("show stats json")["counters"]
    assert c["udp-tx"] - before.get("udp-tx", 0) >= 8
    assert c["udp-bad-checksum"] == before.get("udp-bad-checksum", 0)



def test_static_neighbours(mkiso, request):
    """`arp ADDR MAC` and `neighbor ADDR6 MAC [ethN]` (a router facing a
    tester that answers no ARP nor solicitation): the entries are there as
    configured on every core, traffic to the address leaves to that MAC
    with no request for it, and an address in no port's subnet is named at
    boot."""
    conf = ("hostname s1\ninterface eth0 address 10.5.0.1/24\ninterface eth0 address 2001:db8:5::1/64\n"
            "arp 10.5.0.9 02:00:00:00:05:09\narp 192.0.2.9 02:00:00:00:05:10\n"
            "neighbor 2001:db8:5::9 02:00:00:00:05:09\nneighbor fe80::9 02:00:00:00:05:11 eth0\n"
            "neighbor 2001:db8:77::9 02:00:00:00:05:12\n")
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["10.5.0.2/24", "2001:db8:5::2/64"])], iso=mkiso(conf),
                     smp=2, queues=2)
    try:
        lab.start()
        peer, m = lab.peers[0], lab.machine
        assert "router: arp 192.0.2.9: no port's subnet holds it" in m.log, m.tail()
        assert "router: neighbor 2001:db8:77::9: no port's subnet holds it" in m.log, m.tail()
        entries = m.json("show arp json")["entries"]
        statics = [(e["core"], e["mac"], e["state"]) for e in entries if e["address"] == "10.5.0.9"]
        assert statics == [(0, "02:00:00:00:05:09", "static"), (1, "02:00:00:00:05:09", "static")], entries
        entries6 = m.json("show neighbors json")["entries"]
        statics6 = sorted((e["address"], e["core"], e["mac"], e["state"]) for e in entries6 if e["state"] == "static")
        assert statics6 == [(a, c, mac, "static") for a, mac in (("2001:db8:5::9", "02:00:00:00:05:09"),
                                                                  ("fe80::9", "02:00:00:00:05:11")) for c in (0, 1)], \
            entries6
        # The peer takes the addresses (with another MAC) and pings from
        # them: hayate answers to the configured MAC, so the echo replies
        # never reach the peer, and it asks nothing about the addresses.
        peer.ip(f"addr add 10.5.0.9/24 dev {peer.tap}")
        peer.ip(f"addr add 2001:db8:5::9/64 dev {peer.tap} nodad")
        cap = peer.popen(f"tcpdump -l -ni {peer.tap} -e arp or icmp or icmp6", stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
        try:
            time.sleep(1)  # tcpdump listening
            r = peer.run("ping -c 2 -W 1 -I 10.5.0.9 10.5.0.1", check=False, timeout=10)
            r6 = peer.run("ping -6 -c 2 -W 1 -I 2001:db8:5::9 2001:db8:5::1", check=False, timeout=10)
            time.sleep(0.5)
        finally:
            cap.terminate()
        out = cap.communicate(timeout=10)[0]
        assert r.returncode != 0 and r6.returncode != 0, (r.stdout, r6.stdout)
        assert re.search(r"> 02:00:00:00:05:09, .*10\.5\.0\.1 > 10\.5\.0\.9: ICMP echo reply", out), out
        assert re.search(r"> 02:00:00:00:05:09, .*2001:db8:5::1 > 2001:db8:5::9: ICMP6, echo reply", out), out
        assert "who-has 10.5.0.9" not in out and "who has 2001:db8:5::9" not in out, out
        ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
        assert ifs["eth0"]["counters"]["tx-packets"] >= 4, ifs["eth0"]
        entries = m.json("show arp json")["entries"]
        assert [e["mac"] for e in entries if e["address"] == "10.5.0.9"] == ["02:00:00:00:05:09"] * 2, entries
        entries6 = m.json("show neighbors json")["entries"]
        assert [e["mac"] for e in entries6 if e["address"] == "2001:db8:5::9"] == ["02:00:00:00:05:09"] * 2, entries6
    finally:
        lab.close()
