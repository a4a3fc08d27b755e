"""tests/e2e/test_stack.py: the stack below TCP seen from a Linux host on
a tap (issue 5): ping of every size (fragmented both ways at 4000 bytes),
arping, and UDP echo with nc."""
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

CONF = "hostname s1\ninterface eth0 address 10.5.0.1/24\napp udp-echo port 7\n"


@pytest.fixture
def host(mkiso, request):
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["10.5.0.2/24"])], iso=mkiso(CONF))
    lab.start()
    yield lab.peers[0], lab.machine
    lab.close()


@pytest.mark.parametrize("size", [56, 1472, 4000])
def test_ping_sizes(host, size):
    peer, m = host
    before = m.json("show stats json")["counters"]
    out = peer.run(f"ping -c 3 -i 0.2 -W 3 -s {size} 10.5.0.1", timeout=30).stdout
    assert " 0% packet loss" in out, out
    assert re.search(rf"{size + 8} bytes from 10.5.0.1", out), out
    after = m.json("show stats json")["counters"]
    if size == 4000:  # 4028-byte datagrams: 3 fragments each way, 3 times
        assert after["ip4-reasm-ok"] - before["ip4-reasm-ok"] == 3
        assert after["ip4-frag-tx"] - before["ip4-frag-tx"] == 9
    assert after["icmp4-tx-echo-reply"] - before["icmp4-tx-echo-reply"] == 3


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
