# SPDX-License-Identifier: MIT
"""tests/e2e/test_router6.py: the router's IPv6 side (net/ip/ip6.c, nd6.c,
icmp6.c, kernel/netsvc/netsvc_route6.c) with Linux hosts in namespaces: neighbour
discovery both ways, ping6 to the router's addresses (global,
link-local and Subnet-Router anycast) and through it, the hop limit going down by one, time
exceeded and no-route unreachable from the router, TCP across it with
matching bytes (on the batched fast path), and the counters; IPv4 keeps working beside it;
routes added and deleted on the console (through a new gateway) move
traffic at once. Then the
same on two cores with the device's RSS, where neighbour advertisements
reach another core than the one that asked. Last, router advertisements:
hosts with neither address nor route configure themselves from them."""
import hashlib
import ipaddress
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

CONF = """hostname r6
interface eth0 address 10.0.0.1/24
interface eth0 address 2001:db8::1/64
interface eth1 address 10.0.1.1/24
interface eth1 address 2001:db8:1::1/64
route 2001:db8:99::/48 via 2001:db8:1::2
routes r6.txt via 2001:db8:1::2
"""
ROUTES = "# a routes file: IPv6 prefixes\n2001:db8:98::/48\n2001:db8:97::/48\nnot a prefix\n"


def peers():
    return [netlab.Peer(addrs=["10.0.0.2/24", "2001:db8::2/64"],
                        routes=["default via 10.0.0.1", "default via 2001:db8::1"]),
            netlab.Peer(addrs=["10.0.1.2/24", "2001:db8:1::2/64", "2001:db8:99::2/64", "2001:db8:98::2/64"],
                        routes=["default via 10.0.1.1", "default via 2001:db8:1::1"])]


@pytest.fixture
def r6lab(mkiso, request, tmp_path):
    labs = []
    routes = tmp_path / "r6.txt"
    routes.write_text(ROUTES)

    def start(**kw):
        lab = netlab.Lab(request.node.name, peers(), iso=mkiso(CONF, [routes]), **kw)
        labs.append(lab)
        lab.start()
        return lab
    yield start
    for lab in labs:
        lab.close()


def stats(m):
    return m.json("show stats json")["counters"]


def check_router6(lab, tmp_path):
    left, right = lab.peers
    m = lab.machine
    left.run("ping -6 -c 3 -i 0.2 -W 3 2001:db8::1", timeout=30)
    # Through, by the route, before the right host has said anything: we
    # solicit its gateway address ourselves.
    r = left.run("ping -6 -c 3 -i 0.2 -W 3 2001:db8:99::2", timeout=30)
    assert re.search(r"ttl=63", r.stdout), r.stdout  # one hop: 64 - 1
    right.run("ping -6 -c 2 -i 0.2 -W 3 2001:db8::1", timeout=30)  # our far address, routed inside
    left.run("ping -6 -c 2 -i 0.2 -W 3 2001:db8:98::2", timeout=30)  # by a route from the routes file
    assert "2 IPv6 prefixes from 4 lines" in m.log and "1 bad lines" in m.log, m.tail()
    ll = left.run(f"ip -6 neigh show dev {left.tap}").stdout
    ifs = m.json("show interfaces json")["interfaces"]
    mac = ifs[0]["mac"]
    assert "2001:db8::1" in ll and mac in ll, ll  # it learned our MAC by neighbour discovery
    assert [i["address6"] for i in ifs] == ["2001:db8::1/64", "2001:db8:1::1/64"], ifs
    assert m.json("show route summary json")["prefixes6"] == 5  # 2 connected, 1 route, 2 from the file
    b = bytes.fromhex(mac.replace(":", ""))
    eui = ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + bytes([b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]]))
    left.run(f"ping -6 -c 2 -i 0.2 -W 3 {eui}%{left.tap}", timeout=30)  # the link-local one (RFC 4291 2.5.6)
    for anycast in ("2001:db8::", "2001:db8:1::"):  # each subnet's Subnet-Router anycast (2.6.1), one routed to us
        r = left.run(f"ping -6 -c 2 -i 0.2 -W 3 {anycast}", timeout=30)
        assert "from 2001:db8::1" in r.stdout, r.stdout  # answered from the unicast address (RFC 4443 2.2)
    right.run("ping -6 -c 3 -i 0.2 -W 3 2001:db8::2", timeout=30)  # through, on-link both sides
    r = left.run("ping -6 -c 1 -t 1 -W 3 2001:db8:99::2", check=False, timeout=20)
    assert "Time exceeded" in r.stdout and "2001:db8::1" in r.stdout, r.stdout
    r = left.run("ping -6 -c 1 -W 3 2001:db8:77::1", check=False, timeout=20)
    assert "unreachable" in r.stdout.lower() and "2001:db8::1" in r.stdout, r.stdout
    left.run("ping -c 2 -i 0.2 -W 3 10.0.1.2", timeout=20)  # IPv4 beside it
    # TCP across, IPv6 both ways of the router: a Python server on the right.
    blob = os.urandom(2 << 20)
    (tmp_path / "blob").write_bytes(blob)
    with netlab.http_server(right, "2001:db8:1::2", tmp_path) as url:
        r = left.run(["bash", "-c", f"curl -sS --max-time 60 {url}/blob | sha256sum"], timeout=70)
    assert r.stdout.split()[0] == hashlib.sha256(blob).hexdigest()
    r = m.json("show route 2001:db8:99::5 json")
    assert (r["found"], r["prefix"], r["nexthop"], r["port"]) == (True, "2001:db8:99::/48", "2001:db8:1::2", "eth1"), r
    r = m.json("show route 2001:db8::7 json")
    assert (r["prefix"], r["nexthop"], r["port"]) == ("2001:db8::/64", "connected", "eth0"), r
    assert m.json("show route 2001:db8:77::1 json")["found"] is False
    right_mac = right.run(f"cat /sys/class/net/{right.tap}/address").stdout.strip()
    nb = [e for e in m.json("show neighbors json")["entries"] if e["address"] == "2001:db8:1::2"]
    assert nb and all(e["mac"] == right_mac and e["port"] == "eth1" for e in nb), nb
    c = stats(m)
    # The TCP transfer on the fast path (net/fwd/fwd6.c); what waited for a
    # neighbour and the ICMPv6 errors on the stack's (ip6.c).
    assert c["fwd-fast6"] > 1000 and c["ip6-forwarded"] >= 1, c
    assert c["icmp6-rx-echo"] >= 7 and c["icmp6-tx-error"] >= 2, c
    assert c["nd6-rx-ns"] > 0 and c["nd6-tx-na"] > 0 and c["nd6-tx-ns"] > 0 and c["nd6-rx-na"] > 0, c
    assert c["ip6-hop-limit"] >= 1 and c["ip6-no-route"] >= 1 and c["nd6-bad"] == 0, c
    return c


def check_live_routes6(lab):
    """`route add` and `route del` on the console move IPv6 traffic at
    once, on every core: through a gateway no route used before, a next
    hop the fast path learns of while it runs."""
    left, right = lab.peers
    m = lab.machine
    right.ip("-6 addr add 2001:db8:55::5/128 dev lo")
    right.ip(f"-6 addr add 2001:db8:1::3/64 dev {right.tap} nodad")
    r = left.run("ping -6 -c 1 -W 3 2001:db8:55::5", check=False, timeout=20)
    assert "unreachable" in r.stdout.lower(), r.stdout
    out = m.cmd("route add 2001:db8:55::/48 via 2001:db8:1::3")
    assert "route add" not in out, out
    r = m.json("show route 2001:db8:55::5 json")
    assert (r["found"], r["prefix"], r["nexthop"], r["port"]) == (True, "2001:db8:55::/48", "2001:db8:1::3", "eth1"), r
    fast = stats(m)["fwd-fast6"]
    left.run("ping -6 -c 20 -i 0.05 -W 3 2001:db8:55::5", timeout=30)
    assert stats(m)["fwd-fast6"] - fast >= 30, "requests and replies on the fast path, the first few aside"
    assert "bad gateway" in m.cmd("route add 2001:db8:56::/48 via 10.0.1.2")
    assert "no such route" in m.cmd("route del 2001:db8:57::/48")
    out = m.cmd("route del 2001:db8:55::/48")
    assert "route del" not in out, out
    assert m.json("show route 2001:db8:55::5 json")["found"] is False
    r = left.run("ping -6 -c 1 -W 3 2001:db8:55::5", check=False, timeout=20)
    assert "unreachable" in r.stdout.lower(), r.stdout


def test_ipv6_router(r6lab, tmp_path):
    lab = r6lab()
    check_router6(lab, tmp_path)
    check_live_routes6(lab)


def test_ipv6_router_two_cores_rss(r6lab, tmp_path):
    lab = r6lab(smp=2, queues=2, extra=["-global", "virtio-net-pci.rss=on"])
    c = check_router6(lab, tmp_path)
    check_live_routes6(lab)
    pq = [q["rx-packets"] for q in lab.machine.json("show interfaces json")["interfaces"][0]["per-queue"]]
    print(f"ipv6 -smp 2: eth0 RX per queue {pq}, nd6-learned-remote {c['nd6-learned-remote']}")


RA_CONF = """hostname ra
interface eth0 address 2001:db8:a::1/64
interface eth0 ra
interface eth1 address 2001:db8:b::1/64
interface eth1 ra
"""


def slaac_addr(peer, prefix):
    """The peer's address in prefix from a router advertisement, once it
    has passed duplicate address detection (None after 10 s)."""
    net = ipaddress.ip_network(prefix)
    for _ in range(40):
        out = peer.run("ip -6 -o addr show scope global").stdout
        for ln in out.splitlines():
            a = ipaddress.ip_interface(ln.split()[3])
            if a.ip in net and "tentative" not in ln and "dynamic" in ln:
                return str(a.ip)
        time.sleep(0.25)
    return None


def test_router_advertisements(mkiso, request):
    """Linux hosts as they come (accept_ra, no address, no route) on both
    sides: each makes an address from the advertised /64 and takes the
    router's link-local address as its default route, and they reach each
    other through it."""
    with netlab.Lab(request.node.name, [netlab.Peer(accept_ra=True), netlab.Peer(accept_ra=True)],
                    iso=mkiso(RA_CONF)) as lab:
        lab.start()
        left, right = lab.peers
        a, b = slaac_addr(left, "2001:db8:a::/64"), slaac_addr(right, "2001:db8:b::/64")
        assert a and b, (left.run("ip -6 addr").stdout, right.run("ip -6 addr").stdout)
        route = left.run("ip -6 route show default").stdout
        assert "proto ra" in route and "via fe80::" in route, route
        out = left.run(f"ping -6 -c 3 -i 0.2 -W 3 {b}", timeout=20).stdout
        assert " 0% packet loss" in out, out
        c = stats(lab.machine)
        assert c["nd6-tx-ra"] >= 2 and c["nd6-rx-rs"] >= 1 and c["nd6-bad"] == 0, c
        print(f"SLAAC: {a} and {b}; {route.strip()}")
