# SPDX-License-Identifier: MIT
"""tests/e2e/test_acl.py: access lists (net/acl/acl.h, kernel/netsvc/acl.c)
on the real image in QEMU, host A on eth0 and host B on eth1, neither with
a firewall of its own.

- Forwarding: eth0's input list denies UDP to ports 5000-5010 (both
  families) and ICMPv6 to B, eth1's output list UDP from source port 4444:
  what they deny never reaches B and is counted on its rule, what they
  permit does, over IPv4 and IPv6, on the fast path and (a fragmented
  datagram) the slow one.
- The router itself: `acl control` lets A's subnets reach the http app
  and answers pings from there only; B's are dropped and counted, ND still
  works; a rule added at the console lets B in at once, and deleted
  shuts B out again, the other rules' counts kept.
"""
import os
import subprocess
import sys
import textwrap
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

CONF = """hostname r1
interface eth0 address 10.0.0.1/24
interface eth0 address 2001:db8:a::1/64
interface eth1 address 10.0.1.1/24
interface eth1 address 2001:db8:b::1/64
acl EDGE deny proto udp dport 5000-5010
acl EDGE deny proto icmp6 dst 2001:db8:b::2
acl EDGE permit
acl TOB deny proto udp sport 4444
acl TOB permit
acl MGMT permit src 10.0.0.0/24
acl MGMT permit src 2001:db8:a::/64
interface eth0 acl in EDGE
interface eth1 acl out TOB
acl control MGMT
app http port 8080
"""

RECEIVER = textwrap.dedent("""
    import socket, sys
    s = socket.socket(socket.{fam}, socket.SOCK_DGRAM)
    s.bind(("", {port}))
    s.settimeout({secs})
    n = 0
    try:
        while True:
            s.recv(65535)
            n += 1
    except socket.timeout:
        pass
    print(n)
""")

SENDER = textwrap.dedent("""
    import socket, time
    s = socket.socket(socket.{fam}, socket.SOCK_DGRAM)
    s.bind(("", {sport}))
    for _ in range({count}):
        s.sendto(b"x" * {size}, ("{dst}", {port}))
        time.sleep(0.01)
""")


def udp(lab, dst, port, count=5, sport=0, size=32, secs=2.0):
    """A sends count datagrams to B's dst:port; how many B received."""
    fam = "AF_INET6" if ":" in dst else "AF_INET"
    a, b = lab.peers
    rx = b.popen(["python3", "-c", RECEIVER.format(fam=fam, port=port, secs=secs)], stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    a.run(["python3", "-c", SENDER.format(fam=fam, sport=sport, count=count, size=size, dst=dst, port=port)],
          timeout=30)
    out, _ = rx.communicate(timeout=secs + 10)
    return int(out.strip() or 0)


def hits(m, name):
    acl = [x for x in m.json("show acl json")["acls"] if x["name"] == name][0]
    return [r["hits"] for r in acl["rules"]]


def counter(m, name):
    return m.json("show stats json")["counters"][name]


@pytest.fixture
def lab(netlab):
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24", "2001:db8:a::2/64"],
                          routes=["default via 10.0.0.1", "default via 2001:db8:a::1"]),
                  nl.Peer(addrs=["10.0.1.2/24", "2001:db8:b::2/64"],
                          routes=["default via 10.0.1.1", "default via 2001:db8:b::1"])], config=CONF)
    assert not [ln for ln in lab.machine.log.splitlines() if ln.startswith("config: line")], lab.machine.tail()
    assert "acl: EDGE: 3 rules" in lab.machine.log, lab.machine.tail()
    a = lab.peers[0]
    a.run("ping -c 1 -W 2 10.0.1.2", timeout=10)  # neighbours resolved: what follows takes the fast path
    a.run("ping -6 -c 1 -W 2 2001:db8:b::1", timeout=10)
    return lab


def test_acl_forwarding(lab, report):
    m, a = lab.machine, lab.peers[0]
    before = hits(m, "EDGE")
    assert udp(lab, "10.0.1.2", 5005) == 0
    assert udp(lab, "2001:db8:b::2", 5010) == 0
    assert udp(lab, "10.0.1.2", 6000) == 5
    assert udp(lab, "2001:db8:b::2", 6000) == 5
    assert udp(lab, "10.0.1.2", 4999, size=3000) == 5  # fragments, permitted: B reassembles them
    assert udp(lab, "10.0.1.2", 5001, count=3, size=3000) == 0  # the first fragment's ports deny it
    after = hits(m, "EDGE")
    assert after[0] - before[0] == 5 + 5 + 3, (before, after)
    assert after[3] == 0, after  # the implicit deny: nothing reached it
    assert a.run("ping -6 -c 2 -W 1 2001:db8:b::2", check=False, timeout=10).returncode != 0
    assert hits(m, "EDGE")[1] - before[1] == 2
    assert a.run("ping -c 2 -W 2 10.0.1.2", timeout=10).returncode == 0
    # eth1's output list: a source port it denies
    tob = hits(m, "TOB")
    assert udp(lab, "10.0.1.2", 6001, sport=4444) == 0
    assert udp(lab, "2001:db8:b::2", 6001, sport=4444) == 0
    assert hits(m, "TOB")[0] - tob[0] == 10
    assert counter(m, "acl-in-deny") >= 15 and counter(m, "acl-out-deny") == 10
    report("ACL (TCG): UDP, ICMPv6 and a fragmented datagram denied at eth0's input and counted on their "
           "rules, a source port at eth1's output, IPv4 and IPv6; permitted traffic unharmed")


def test_acl_control_plane(lab):
    m, (a, b) = lab.machine, lab.peers
    url = "http://{}:8080/"
    assert a.run(["curl", "-sS", "-o", "/dev/null", "--max-time", "10", url.format("10.0.0.1")],
                 timeout=20).returncode == 0
    assert a.run(["curl", "-sS", "-g", "-o", "/dev/null", "--max-time", "10", url.format("[2001:db8:a::1]")],
                 timeout=20).returncode == 0
    denied = counter(m, "acl-control-deny")
    assert b.run(["curl", "-sS", "-o", "/dev/null", "--max-time", "3", url.format("10.0.1.1")],
                 check=False, timeout=20).returncode != 0
    assert b.run("ping -c 1 -W 1 10.0.1.1", check=False, timeout=10).returncode != 0
    assert b.run("ping -6 -c 1 -W 1 2001:db8:b::1", check=False, timeout=10).returncode != 0
    assert "lladdr" in b.run("ip -6 neigh show 2001:db8:b::1", timeout=10).stdout  # ND answered all the same
    assert counter(m, "acl-control-deny") > denied
    implicit = hits(m, "MGMT")[2]
    assert implicit > 0
    # A rule added at the console: B is let in at once, the counts kept
    m.cmd("acl MGMT permit src 10.0.1.0/24")
    assert b.run(["curl", "-sS", "-o", "/dev/null", "--max-time", "10", url.format("10.0.1.1")],
                 timeout=20).returncode == 0
    h = hits(m, "MGMT")
    assert h[2] > 0 and h[3] >= implicit, h
    # ... and deleted again: B is out, the other rules' counts kept
    m.cmd("acl MGMT delete 3")
    assert b.run(["curl", "-sS", "-o", "/dev/null", "--max-time", "3", url.format("10.0.1.1")],
                 check=False, timeout=20).returncode != 0
    after = hits(m, "MGMT")
    assert len(after) == 3 and after[0] == h[0] and after[1] == h[1] and after[2] > h[3], (h, after)
