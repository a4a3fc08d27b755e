# SPDX-License-Identifier: MIT
"""tests/e2e/test_jumbo.py: jumbo frames through hayate in QEMU
(`interface ethN mtu 9000`; frames chained over buffers, net/fwd), on
virtio-net (mergeable RX buffers), on igb (QEMU's 82576: RCTL.LPE,
RLPML, 1 KiB buffers, a frame over several descriptors) and on ixgbe (our
82599 model, `make qemu`: HLREG0.JUMBOEN, MAXFRS, the same rings; its
strict checks, `-d guest_errors`, stay silent).

A on eth0 and B on eth1 with MTU 9000 taps, C on eth2 at 1500. Checked,
IPv4 and IPv6: `ping -M do` with the largest payload a 9000-byte MTU takes
crosses from A to B and back; the same to C gets "fragmentation needed" /
"packet too big" naming 1500 (Linux's ping says so and its route cache
keeps it); without DF, hayate fragments the datagram for C and C's answer
comes back. The jumbo frames went by the fast path, and every buffer
came back (each port reset: `debug virtio-break`, `debug igb-reset`,
`debug ixgbe-reset`).
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402
from netlab import qemu  # noqa: E402  (tools/qemu.py, as netlab has it)
from test_ecmp import three_ports  # noqa: E402

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

CONF = "\n".join([
    "hostname r1",
    "interface eth0 address 10.0.0.1/24", "interface eth0 address 2001:db8:a::1/64", "interface eth0 mtu 9000",
    "interface eth1 address 10.0.1.1/24", "interface eth1 address 2001:db8:b::1/64", "interface eth1 mtu 9000",
    "interface eth2 address 10.0.2.1/24", "interface eth2 address 2001:db8:c::1/64",
]) + "\n"


MODELS = ["virtio-net-pci", "igb",
          pytest.param("ixgbe", marks=pytest.mark.skipif(qemu.own_qemu_missing() is not None,
                                                         reason=str(qemu.own_qemu_missing())))]


def reset_ports(m, model):
    """Reset every port, which gives back what its rings hold (TX is
    reclaimed lazily) and posts its RX ring anew; then the buffers out of
    the pools: a chain not freed whole shows as more than before."""
    for i in range(3):
        if model in ("igb", "ixgbe"):  # cmd_debug_reset: brought up again, the MTU kept
            out = m.cmd(f"debug {model}-reset eth{i}", timeout=30)
            assert f"eth{i}: reset, link up" in out, out
        else:
            m.cmd(f"debug virtio-break eth{i}")
            m.wait_for(rf"eth{i}: device restarted", timeout=10)
            m.wait_for(rf"eth{i}: link up", timeout=10)
    return sum(p["total"] - p["free"] for p in m.json("show buffers json")["pools"])


def ping(peer, dst, size, df=True, count=3):
    argv = ["ping", "-6" if ":" in dst else "-4", "-c", str(count), "-i", "0.3", "-W", "3", "-s", str(size),
            "-M", "do" if df else "dont", dst]
    return peer.run(argv, check=False, timeout=60)


def received(out):
    """Replies from `ping` output's summary line."""
    for ln in out.splitlines():
        if "received" in ln:
            return int(ln.split(",")[1].split()[0])
    return 0


@pytest.fixture(params=MODELS)
def lab(netlab, request, tmp_path):
    kw = {}
    if request.param == "ixgbe":  # the model's log of what a real 82599 would refuse
        kw["extra"] = ["-d", "guest_errors", "-D", str(tmp_path / "qemu-guest-errors.log")]
    lab = three_ports(netlab, CONF, model=request.param, **kw)
    lab.model = request.param
    for p in lab.peers[:2]:
        p.ip(f"link set {p.tap} mtu 9000")
    assert not [ln for ln in lab.machine.log.splitlines() if ln.startswith("config: line")], lab.machine.tail()
    return lab


def test_jumbo_ping_crosses_and_narrower_port_says_so(lab, report, tmp_path):
    m = lab.machine
    a, b, c = lab.peers
    ports = {p["name"]: p for p in m.json("show interfaces json")["interfaces"]}
    assert [ports[f"eth{i}"]["mtu"] for i in range(3)] == [9000, 9000, 1500], ports
    assert ports["eth0"]["max-mtu"] >= 9000, ports["eth0"]
    held0 = reset_ports(m, lab.model)
    # warm the neighbour caches with small pings: a jumbo frame to a neighbour
    # not yet resolved is dropped (it cannot wait in the ARP/ND queue)
    for dst in ("10.0.1.2", "2001:db8:b::2", "10.0.2.2", "2001:db8:c::2"):
        ping(a, dst, 56, count=1)
    # a full 1500-byte frame for the router itself on a jumbo port (over two
    # of igb's 1 KiB buffers, put back into one: the stack takes one)
    for dst, size in (("10.0.0.1", 1472), ("2001:db8:a::1", 1452)):
        r = ping(a, dst, size)
        assert received(r.stdout) == 3, r.stdout + r.stderr
    fast0 = m.json("show stats json")["counters"]["fwd-fast"]

    for dst, size in (("10.0.1.2", 8972), ("2001:db8:b::2", 8952)):
        r = ping(a, dst, size)
        assert received(r.stdout) == 3, r.stdout + r.stderr
    fast = m.json("show stats json")["counters"]["fwd-fast"] - fast0
    assert fast >= 12, fast  # 3 echoes and 3 replies a family, each on the fast path

    # TCP at a 9000-byte MTU (8948-byte segments, their checksums left to
    # the NIC by the sender: summed across the chain where needed)
    jumbo_rx0 = m.json("show stats json")["counters"]["fwd-fast"]
    secs = nl.curl_through(a, b, tmp_path, mb=10, timeout=120)
    tcp_fast = m.json("show stats json")["counters"]["fwd-fast"] - jumbo_rx0

    r = ping(a, "10.0.2.2", 8972)
    out = r.stdout + r.stderr
    assert received(r.stdout) == 0 and ("mtu = 1500" in out or "mtu=1500" in out), out
    assert "mtu 1500" in a.run(["ip", "route", "get", "10.0.2.2"]).stdout
    r = ping(a, "2001:db8:c::2", 8952)
    out = r.stdout + r.stderr
    assert received(r.stdout) == 0 and ("mtu = 1500" in out or "mtu=1500" in out or "too big" in out.lower()), out
    assert "mtu 1500" in a.run(["ip", "-6", "route", "get", "2001:db8:c::2"]).stdout

    # no DF: hayate cuts the jumbo datagram for C; C's answer comes in fragments
    a.run(["ip", "route", "flush", "cache"], check=False)
    r = ping(a, "10.0.2.2", 8972, df=False)
    assert received(r.stdout) == 3, r.stdout + r.stderr
    fwd = m.json("show stats json")["counters"]
    assert fwd["fwd-frag-needed"] >= 1 and fwd["fwd-fragmented"] >= 3, fwd
    report(f"jumbo frames ({lab.model}, TCG): 9000-byte pings crossed on the fast path ({fast} frames); "
           f"10 MiB over HTTP at MTU 9000 in {secs:.1f}s ({tcp_fast} frames); 1500-byte port: frag needed / too big, "
           f"{fwd['fwd-fragmented']} datagrams cut into {fwd['fwd-frag-tx']} fragments")
    errors = [p["counters"]["rx-error"] for p in m.json("show interfaces json")["interfaces"]]
    assert errors == [0, 0, 0], f"frames dropped as malformed, by port: {errors}"
    held = reset_ports(m, lab.model)  # within a frame or two in flight; a lost chain is 5 buffers (igb: 10)
    assert held < held0 + 5, f"{held} buffers out of the pools after the resets, {held0} at the start"
    log = tmp_path / "qemu-guest-errors.log"
    strict = [ln for ln in log.read_text().splitlines() if ln.startswith("ixgbe")] if log.exists() else []
    assert not strict, strict
