# SPDX-License-Identifier: MIT
"""tests/e2e/test_ecmp.py: equal-cost multipath through hayate in QEMU
(`route P via A via B`, net/fwd/nexthop_group.h, kernel/netsvc/netsvc_paths.c).

eth0: host A sends 64 UDP flows (source ports 20000-20063) to an address
that hosts B1 (eth1) and B2 (eth2) both own, over a two-path route. Checked,
IPv4 and IPv6: every flow reaches exactly one of them, each of its
datagrams there, and both get some; `show route` lists both paths, up.
Then B2 stops answering (its tap down): hayate takes its path out within
seconds (its neighbour no longer answers the probes), `show route` says
so, and every flow reaches B1, those that were there unmoved; B2 back, its
path comes back and each flow returns to where it began.
"""
import json
import os
import sys
import textwrap
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

FLOWS, EACH, PORT0 = 64, 3, 20000
FAMILIES = {
    "ipv4": dict(dst="198.51.100.5", prefix="198.51.100.0/24", gws=("10.0.1.2", "10.0.2.2"), fam="AF_INET"),
    "ipv6": dict(dst="2001:db8:100::5", prefix="2001:db8:100::/48", gws=("2001:db8:b::2", "2001:db8:c::2"),
                 fam="AF_INET6"),
}

RECEIVER = textwrap.dedent("""
    import json, socket, sys, time
    s = socket.socket(socket.{fam}, socket.SOCK_DGRAM)
    s.bind(("{dst}", 9))
    s.settimeout(0.2)
    seen, end = {{}}, time.time() + {secs}
    while time.time() < end:
        try:
            _, a = s.recvfrom(64)
            seen[a[1]] = seen.get(a[1], 0) + 1
        except socket.timeout:
            pass
    print(json.dumps(seen))
""")

SENDER = textwrap.dedent("""
    import socket, time
    socks = []
    for i in range({flows}):
        s = socket.socket(socket.{fam}, socket.SOCK_DGRAM)
        s.bind(("", {port0} + i))
        socks.append(s)
    for k in range({each}):
        for s in socks:
            s.sendto(b"x" * 32, ("{dst}", 9))
            time.sleep(0.002)
""")


def flows_reaching(lab, f, secs=6.0):
    """Send the flows from A; {source port: (host index, datagrams)} as B1
    and B2 saw them."""
    _, b1, b2 = lab.peers[0], lab.peers[1], lab.peers[2]
    rx = [b.popen(["python3", "-c", RECEIVER.format(fam=f["fam"], dst=f["dst"], secs=secs)],
                  stdout=__import__("subprocess").PIPE, text=True) for b in (b1, b2)]
    time.sleep(1.0)  # both bound
    lab.peers[0].run(["python3", "-c", SENDER.format(fam=f["fam"], dst=f["dst"], flows=FLOWS, port0=PORT0,
                                                    each=EACH)], timeout=60)
    got = {}
    for host, p in enumerate(rx):
        out, _ = p.communicate(timeout=secs + 10)
        for port, n in json.loads(out or "{}").items():
            assert int(port) not in got, f"flow {port} reached both hosts"
            got[int(port)] = (host, n)
    return got


def paths(m, dst):
    return m.json(f"show route {dst} json").get("paths", [])


def until(what, fn, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        assert time.monotonic() < deadline, f"{what}: not within {timeout}s; last {v!r}"
        time.sleep(0.5)


def three_ports(netlab, conf, **kw):
    """hayate with conf (and netlab's kw: model, extra...); A on eth0 (its
    default route through hayate), B1 on eth1 and B2 on eth2 (A's subnet
    through hayate), both families."""
    back = ["10.0.0.0/24 via {}", "2001:db8:a::/64 via {}"]
    return netlab([nl.Peer(addrs=["10.0.0.2/24", "2001:db8:a::2/64"],
                           routes=["default via 10.0.0.1", "default via 2001:db8:a::1"]),
                   nl.Peer(addrs=["10.0.1.2/24", "2001:db8:b::2/64"],
                           routes=[back[0].format("10.0.1.1"), back[1].format("2001:db8:b::1")]),
                   nl.Peer(addrs=["10.0.2.2/24", "2001:db8:c::2/64"],
                           routes=[back[0].format("10.0.2.1"), back[1].format("2001:db8:c::1")])], config=conf,
                  **kw)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_ecmp_two_paths(netlab, family, report):
    f = FAMILIES[family]
    conf = "\n".join([
        "hostname r1",
        "interface eth0 address 10.0.0.1/24", "interface eth0 address 2001:db8:a::1/64",
        "interface eth1 address 10.0.1.1/24", "interface eth1 address 2001:db8:b::1/64",
        "interface eth2 address 10.0.2.1/24", "interface eth2 address 2001:db8:c::1/64",
        f"route {f['prefix']} via {f['gws'][0]} via {f['gws'][1]}",
    ]) + "\n"
    lab = three_ports(netlab, conf)
    m = lab.machine
    a, b1, b2 = lab.peers
    for b in (b1, b2):
        b.ip(f"addr add {f['dst']}/{128 if ':' in f['dst'] else 32} dev lo" + (" nodad" if ":" in f["dst"] else ""))
    assert not [ln for ln in m.log.splitlines() if ln.startswith("config: line")], m.tail()

    ps = until("both paths up", lambda: (x := paths(m, f["dst"])) and len(x) == 2 and all(p["up"] for p in x) and x)
    assert sorted(p["nexthop"] for p in ps) == sorted(f["gws"]), ps

    first = flows_reaching(lab, f)
    assert len(first) == FLOWS and all(n == EACH for _, n in first.values()), first
    per_host = [sum(1 for h, _ in first.values() if h == i) for i in (0, 1)]
    assert min(per_host) > 0, per_host

    # B2 stops answering: its path goes, its flows move to B1, B1's stay
    b2.run(f"sysctl -qw net.ipv6.conf.{b2.tap}.keep_addr_on_down=1")  # else Linux drops its IPv6 address
    t0 = time.monotonic()
    b2.ip(f"link set {b2.tap} down")
    until("B2's path marked down", lambda: any(not p["up"] and p["nexthop"] == f["gws"][1]
                                                for p in paths(m, f["dst"])))
    took = time.monotonic() - t0
    second = flows_reaching(lab, f)
    assert len(second) == FLOWS and all(h == 0 for h, _ in second.values()), second
    b2.ip(f"link set {b2.tap} up")
    until("B2's path back", lambda: all(p["up"] for p in paths(m, f["dst"])), timeout=30)
    third = flows_reaching(lab, f)
    assert {p: h for p, (h, _) in third.items()} == {p: h for p, (h, _) in first.items()}, (first, third)
    s = m.json("show route summary json")
    assert s["ecmp_path_downs"] >= 1 and s["ecmp_path_ups"] >= 1, s
    report(f"ECMP ({family}, TCG): {FLOWS} flows over 2 paths, {per_host[0]}/{per_host[1]} per path, each on "
           f"one; a silent next hop taken out {took:.1f} s after it stopped answering, its flows moved, "
           f"every flow back on its path once it answered again")
