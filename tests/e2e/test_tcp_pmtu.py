# SPDX-License-Identifier: MIT
"""tests/e2e/test_tcp_pmtu.py: path MTU discovery against Linux routers.

The client sits behind a Linux router whose link to it is 1400 bytes, but
asks for 1460-byte segments (the route's advmss), as a host behind a
tunnel or PPPoE link does. hayate's full-sized segments leave with DF set:
the router drops them and answers "fragmentation needed" (IPv4, RFC 1191)
or "packet too big" (IPv6, RFC 8201). curl must still get every byte,
which it only can once hayate sends smaller segments."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

ADDR4, ADDR6 = "10.9.0.1", "2001:db8:9::1"
CLIENT4, CLIENT6 = "10.10.0.2", "2001:db8:10::2"
CONF = (f"hostname pm\ninterface eth0 address {ADDR4}/24\ninterface eth0 address {ADDR6}/64\n"
        "route 10.10.0.0/24 via 10.9.0.2\nroute 2001:db8:10::/64 via 2001:db8:9::2\napp http port 80\n")
NARROW = 1400
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.fixture(scope="module")
def lab(iso, tmp_path_factory):
    d = tmp_path_factory.mktemp("pmtu")
    conf, out = d / "pmtu.conf", d / "pmtu.iso"
    conf.write_text(CONF)
    subprocess.run([os.path.join(ROOT, "tools", "mkiso"), str(conf), str(out)], check=True, timeout=120)
    router = netlab.Peer(addrs=["10.9.0.2/24", "2001:db8:9::2/64"])
    lab = netlab.Lab("test_tcp_pmtu", [router], iso=str(out))
    client = netlab.unique_name()
    lab.start()
    try:
        # The router's narrow side and the client behind it.
        netlab.sh(["ip", "netns", "add", client])
        netlab.sh(["ip", "-n", router.ns, "link", "add", "narrow", "mtu", str(NARROW), "type", "veth",
                   "peer", "name", "eth0", "mtu", str(NARROW), "netns", client])
        for k in ("net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"):
            router.run(["sysctl", "-qw", k])
        router.ip("addr add 10.10.0.1/24 dev narrow")
        router.ip("addr add 2001:db8:10::1/64 dev narrow nodad")
        router.ip("link set narrow up")
        c = netlab.Peer(ns=client)
        c.ip("link set lo up")
        c.ip(f"addr add {CLIENT4}/24 dev eth0")
        c.ip(f"addr add {CLIENT6}/64 dev eth0 nodad")
        c.ip("link set eth0 up")
        # Ask for segments the narrow link cannot carry.
        c.ip(f"route add default via 10.10.0.1 advmss {1500 - 40}")
        c.ip(f"-6 route add default via 2001:db8:10::1 advmss {1500 - 60}")
        c.run(["ping", "-c", "1", "-W", "5", ADDR4], timeout=10)
        c.run(["ping", "-6", "-c", "1", "-W", "5", ADDR6], timeout=10)
        yield lab, c
    finally:
        netlab.sh(["ip", "netns", "del", client], check=False)
        lab.close()


def counters(m):
    return m.json("show stats json")["counters"]


@pytest.mark.parametrize("family", ["4", "6"])
def test_download_through_narrow_link(lab, family):
    lab, client = lab
    m = lab.machine
    before = counters(m)
    n = 4 << 20
    url = f"http://{ADDR4}/bytes/{n}" if family == "4" else f"http://[{ADDR6}]/bytes/{n}"
    r = client.run(["bash", "-c", f"curl -{family} -sS --max-time 60 {url} | tee >(wc -c >&2) | sha256sum"],
                   timeout=90)
    assert r.stdout.split()[0] == netlab.pattern_sha256(n), r.stderr
    assert r.stderr.strip().endswith(str(n)), r.stderr
    c = counters(m)
    d = {k: c[k] - before.get(k, 0) for k in c}
    print(f"IPv{family}: {d['tcp-pmtu-lowered']} lowered, {d['tcp-icmp-ignored']} errors ignored, "
          f"{d['tcp-retransmit']} retransmitted, {d['tcp-rto']} timeouts")
    assert d["tcp-pmtu-lowered"] == 1, d  # one connection, lowered once
    assert d["tcp-timeout"] == 0 and d["tcp-rst-tx"] == 0, d


@pytest.mark.parametrize("family", ["4", "6"])
def test_download_through_black_hole(lab, family):
    """The same link, but a firewall on the router drops its errors (a
    black hole, RFC 2923 2.1): after three timeouts hayate's segments come
    down to a size every path carries, and curl still gets every byte."""
    lab, client = lab
    m, router = lab.machine, lab.peers[0]
    nft = ["add table inet bh", "add chain inet bh out { type filter hook output priority 0; }",
           "add rule inet bh out icmp type destination-unreachable icmp code frag-needed drop",
           "add rule inet bh out icmpv6 type packet-too-big drop"]
    for rule in nft:
        router.run(["nft", rule])
    try:
        before = counters(m)
        n = 1 << 20
        url = f"http://{ADDR4}/bytes/{n}" if family == "4" else f"http://[{ADDR6}]/bytes/{n}"
        r = client.run(["bash", "-c", f"curl -{family} -sS --max-time 60 {url} | sha256sum"], timeout=90)
        assert r.stdout.split()[0] == netlab.pattern_sha256(n), r.stderr
        c = counters(m)
        d = {k: c[k] - before.get(k, 0) for k in c}
        print(f"IPv{family}: {d['tcp-pmtu-blackhole']} black holes, {d['tcp-rto']} timeouts")
        assert d["tcp-pmtu-blackhole"] == 1 and d["tcp-pmtu-lowered"] == 0, d
        assert d["tcp-timeout"] == 0 and d["tcp-rst-tx"] == 0, d
    finally:
        router.run(["nft", "delete table inet bh"], check=False)
