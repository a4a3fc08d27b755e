# SPDX-License-Identifier: MIT
"""tests/e2e/test_sriov.py: SR-IOV on QEMU's 82576 (`-device igb`): the PF
(drivers/intel/igb.c, igb_sriov.c) offers two VFs (`sriov eth0 vfs 2`),
which become eth1 and eth2 (drivers/intel/igbvf.c), each with its own MAC
on the one wire.

The wire is one tap. Its namespace (`wire`) holds the PF's subnet; two
more namespaces, `a` and `b`, sit on the same tap through macvlan
interfaces, each in one VF's subnet with the router as default gateway.
So a curl from b to a crosses the router in on VF 1 and out on VF 0: only
the device's sorting of frames by destination MAC into pools, and the
mailbox that set it up, get them there. Checked: ping and ping6 to every
port (IPv6 neighbour discovery needs multicast in the VF pools), 4 MB
through the router over IPv4 and IPv6 with the SHA-256, 8 MB from
`app http` on a VF (TSO on the VF's queue, bytes i % 251), the PF's
mailbox counters, that no port took a frame addressed to another
(eth-not-for-us), and every buffer back. Then the PF is reset under its
VFs (`debug igb-reset`) and both start over. A bad `sriov` line is
reported and the next one still applies. Then two PFs with 7 and 2 VFs:
eleven ports. Last, the VFs at MTU 9000 (vf_jumbo, shared with
test_ixgbe_sriov.py)."""
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

CONF = """hostname sr
sriov eth0 vfs 64
sriov eth0 vfs 2
interface eth0 address 10.0.0.1/24
interface eth1 address 10.0.1.1/24
interface eth1 address 2001:db8:1::1/64
interface eth2 address 10.0.2.1/24
interface eth2 address 2001:db8:2::1/64
app http port 80
"""
RX_RING = 512  # drivers/intel/igb_dev.h IGB_RX_RING: each port's one RX queue holds RX_RING - 1 buffers


def macvlan_peer(wire, i, gw6="1"):
    """A namespace on wire's tap through a macvlan of its own, in VF i's
    subnet (10.0.(i+1).0/24, 2001:db8:(i+1)::/64) behind the router, whose
    address there ends in gw6."""
    p = netlab.Peer(addrs=[f"10.0.{i + 1}.2/24", f"2001:db8:{i + 1}::2/64"], ns=netlab.unique_name(), tap=f"mv{i}")
    netlab.sh(["ip", "netns", "add", p.ns])
    wire.ip(f"link add link {wire.tap} name {p.tap} type macvlan mode bridge")
    wire.ip(f"link set {p.tap} netns {p.ns}")
    p.run("sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0")
    p.ip(f"link set {p.tap} up")
    p.ip("link set lo up")
    for a in p.addrs:
        p.ip(f"addr add {a} dev {p.tap} nodad")
    p.ip(f"route add default via 10.0.{i + 1}.1")
    p.ip(f"-6 route add default via 2001:db8:{i + 1}::{gw6}")
    return p


@pytest.fixture(params=[1, 2], ids=["smp1", "smp2"])
def sriov_lab(mkiso, request, record_ready):
    """One PF's port, and its two VFs, on a single queue pair each: on
    -smp 2 core 0 serves them all, core 1 nothing of theirs."""
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["10.0.0.2/24"])], iso=mkiso(CONF), model="igb",
                     smp=request.param)
    extra = []
    try:
        lab.start(ready=False)
        record_ready(lab.machine)
        extra = [macvlan_peer(lab.peers[0], i) for i in range(2)]
        yield lab, extra
    finally:
        for p in extra:
            netlab.sh(["ip", "netns", "del", p.ns], check=False)
        lab.close()


def check_buffers_back(m, when, rings=3):
    """Every buffer back in its pool but those the RX rings hold, once the
    count settles; who held them if it does not."""
    want = rings * (RX_RING - 1)
    pools = netlab.buffers_settled(m, lambda held: sum(held) == want)
    held = sum(p["total"] - p["free"] for p in pools)
    if held != want:
        print(pools, m.cmd("show tcp"), m.cmd("show arp json"), m.cmd("show neighbors json"), sep="\n")
    assert held == want, f"{when}: {held} buffers out of the pools, RX rings hold {want}"


def check_pf_reset(m, wire, a, b, tmp_path):
    """The PF reset under its VFs, as a host's driver does on a link or MTU
    change: the device clears the VFs' queues and pools; each VF sees the
    PF reset (RSTI, RSTD), gives its buffers back and starts over."""
    out = m.cmd("debug igb-reset eth0", timeout=30)
    assert "eth0: reset, link up" in out, out
    deadline = time.monotonic() + 20
    while True:
        ports = {p["name"]: p["counters"] for p in m.json("show igb json")["ports"]}
        if all(ports[n]["pf-resets"] == 1 for n in ("eth1", "eth2")) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert ports["eth1"]["pf-resets"] == ports["eth2"]["pf-resets"] == 1, ports
    assert ports["eth0"]["vf-resets"] == 4 and ports["eth0"]["vf-refused"] == 0, ports["eth0"]
    wire.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=30)
    b.run("ping -c 2 -i 0.2 -W 2 10.0.2.1", timeout=30)
    netlab.curl_through(a, b, tmp_path, mb=2, timeout=120)
    check_buffers_back(m, "after the reset")


def check_vf_ports(m, ifs, wire, a, b, tmp_path, addr6=("1", "1")):
    """The router pass over two VF ports eth1 and eth2 (VF i's address in
    2001:db8:(i+1)::/64 ends in addr6[i]): pings and ping6 to every port,
    VF to VF through the router, the neighbours learned the VFs' own MACs,
    4 MB each way over IPv4 and IPv6, 8 MB from `app http` on a VF with
    TSO. Returns the first transfer's time and VF 0's `show igb` counters."""
    for n in ("eth1", "eth2"):
        o = ifs[n]["offloads"]
        assert ifs[n]["link"] is True and ifs[n]["queues"] == 1 and o["tso4"] and o["tso6"] and o["rx-csum"], ifs[n]
    wire.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=20)
    a.run("ping -c 2 -i 0.2 -W 2 10.0.1.1", timeout=20)
    b.run(f"ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::{addr6[1]}", timeout=20)  # ND: multicast into a VF pool
    a.run("ping -c 2 -i 0.2 -W 2 10.0.2.2", timeout=20)  # VF to VF through the router
    neigh = a.run("ip neigh show 10.0.1.1", timeout=10).stdout
    assert ifs["eth1"]["mac"] in neigh, (neigh, ifs["eth1"]["mac"])
    elapsed = netlab.curl_through(a, b, tmp_path, mb=4, timeout=120)
    netlab.curl_through(b, a, tmp_path, mb=4, timeout=120, addr_index=1)
    before = {p["name"]: p["counters"] for p in m.json("show igb json")["ports"]}
    n = 8 << 20
    r = a.run(["bash", "-c", f"curl -sS --max-time 120 http://10.0.1.1/bytes/{n} | sha256sum"], timeout=150)
    assert r.stdout.split()[0] == netlab.pattern_sha256(n)
    vf0 = {p["name"]: p["counters"] for p in m.json("show igb json")["ports"]}["eth1"]
    assert vf0["tx-tso-frames"] - before["eth1"]["tx-tso-frames"] > 0 and vf0["tx-offload-bad"] == 0, vf0
    return elapsed, vf0


def test_sriov_vfs(sriov_lab, tmp_path, report):
    lab, (a, b) = sriov_lab
    wire, m = lab.peers[0], lab.machine
    assert re.search(r"config: line 2: usage: sriov ethN vfs K \(K at most 63\)", m.log), m.tail()
    assert re.search(r"eth1: igbvf at 00:13\.0, .*link up", m.log), m.tail()
    assert re.search(r"eth2: igbvf at 00:13\.2, .*link up", m.log), m.tail()
    ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
    assert [ifs[n]["driver"] for n in ("eth0", "eth1", "eth2")] == ["igb", "igbvf", "igbvf"], ifs
    assert len({ifs[n]["mac"] for n in ifs}) == 3, ifs
    elapsed, vf0 = check_vf_ports(m, ifs, wire, a, b, tmp_path)
    ports = {p["name"]: p for p in m.json("show igb json")["ports"]}
    pf = ports["eth0"]
    assert pf["vfs"] == 2 and ports["eth1"]["vfs"] == 0, pf
    c = pf["counters"]
    # Each VF: VF_RESET, then SET_PROMISC (every multicast) and SET_LPE.
    assert c["vf-resets"] == 2 and c["vf-messages"] == 6 and c["vf-refused"] == 0 and c["vf-replies-lost"] == 0, c
    stats = m.json("show stats json")["counters"]
    assert stats["eth-not-for-us"] == 0, "a pool took a frame for another MAC"
    check_buffers_back(m, "after the transfers")
    check_pf_reset(m, wire, a, b, tmp_path)
    report(f"SR-IOV: 2 igbvf ports on one 82576 PF; 4 MB VF to VF through the router in {elapsed:.1f}s (TCG), "
           f"{vf0['tx-tso-frames']} TSO frames from a VF, {c['vf-messages']} mailbox messages answered")


MANY = """sriov eth0 vfs 9
sriov eth1 vfs 2
interface eth0 address 10.0.0.1/24
interface eth1 address 10.1.0.1/24
interface eth8 address 10.0.8.1/24
interface eth10 address 10.1.10.1/24
"""


@pytest.mark.parametrize("topology", ["flat", "root-port"])
def test_sriov_two_pfs_eleven_ports(mkiso, request, record_ready, topology):
    """Two PFs offering 7 (9 asked: an igb offers no more) and 2 VFs:
    eleven ports, past the 8 the stack once took; each PF's VFs answer on
    its own wire (VF BARs placed twice).
    Behind two root ports too: every VF BAR inside its own port's windows
    and the ports' windows apart (test_sriov_root_port.py)."""
    peers = [netlab.Peer(addrs=["10.0.0.2/24", "10.0.8.2/24"]), netlab.Peer(addrs=["10.1.0.2/24", "10.1.10.2/24"])]
    lab = netlab.Lab(request.node.name, peers, iso=mkiso(MANY), model="igb", topology=topology)
    try:
        lab.start(ready=False)
        m = record_ready(lab.machine)
        assert "config: line" not in m.log and "did not answer" not in m.log, m.tail()
        assert "eth0: sriov: igb offers at most 7 VFs, 9 asked" in m.log, m.tail()
        ifs = m.json("show interfaces json")["interfaces"]
        assert [i["driver"] for i in ifs] == ["igb"] * 2 + ["igbvf"] * 9, ifs
        assert all(i["link"] for i in ifs) and len({i["mac"] for i in ifs}) == 11, ifs
        if topology == "root-port":
            from test_sriov_root_port import check_vf_bars_routed
            check_vf_bars_routed(m, 9)
        for peer, addr in ((peers[0], "10.0.0.1"), (peers[0], "10.0.8.1"), (peers[1], "10.1.0.1"),
                           (peers[1], "10.1.10.1")):
            peer.run(f"ping -c 2 -i 0.2 -W 2 {addr}", timeout=20)
        ports = {p["name"]: p for p in m.json("show igb json")["ports"]}
        assert ports["eth0"]["vfs"] == 7 and ports["eth0"]["counters"]["vf-resets"] == 7, ports["eth0"]
        assert ports["eth1"]["vfs"] == 2 and ports["eth1"]["counters"]["vf-resets"] == 2, ports["eth1"]
    finally:
        lab.close()


MIXED = """sriov eth0 vfs 1
interface eth0 address 10.0.0.1/24
interface eth1 address 10.0.1.1/24
interface eth2 address 10.0.2.1/24
"""


def test_sriov_beside_an_rss_port(mkiso, request, record_ready, tmp_path):
    """On -smp 2 the second PF has two queue pairs with RSS, the first PF
    (with a VF) and the VF one each. A core sends only where it has a
    queue, so flows RSS put on core 1 could not leave by eth0 and were
    dropped (fwd-bad-nexthop): half the connections hung. The router now
    steers every routed port onto the queues all of them have."""
    peers = [netlab.Peer(addrs=["10.0.0.2/24", "10.0.2.2/24"], routes=["10.0.1.0/24 via 10.0.0.1"]),
             netlab.Peer(addrs=["10.0.1.2/24"], routes=["default via 10.0.1.1"])]
    lab = netlab.Lab(request.node.name, peers, iso=mkiso(MIXED), model="igb", smp=2, queues=2)
    try:
        lab.start(ready=False)
        m = record_ready(lab.machine)
        assert "router: eth1: 1 queue pairs of 2" in m.log, m.tail()
        ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
        assert [ifs[n]["queues"] for n in ("eth0", "eth1", "eth2")] == [1, 1, 1], ifs
        for _ in range(6):  # different source ports: RSS would spread them over both queues
            netlab.curl_through(peers[1], peers[0], tmp_path, mb=1, timeout=30)
        c = m.json("show stats json")["counters"]
        assert c["fwd-bad-nexthop"] == 0 and c["fwd-fast"] > 1000, c
    finally:
        lab.close()


def vf_jumbo(mkiso, record_ready, tmp_path, conf, model, gw6, pf_line, extra=()):
    """Jumbo frames on hayate's VF ports (conf's eth1 and eth2 at MTU 9000,
    the PF's eth0 at 1500): each VF's set_mtu asks its PF (SET_LPE) for
    frames of 9000 + 26 bytes, the PF lets them through (pf_line says how)
    and each VF restarts its queue on 1 KiB buffers, chained. The largest
    ping a 9000-byte MTU takes, DF set, crosses from one VF's subnet to the
    other's through the router, IPv4 and IPv6, and 10 MiB over HTTP; no
    frame is dropped as malformed. Returns the HTTP transfer's seconds."""
    conf += "interface eth1 mtu 9000\ninterface eth2 mtu 9000\n"
    lab = netlab.Lab(f"{model}-sriov-jumbo", [netlab.Peer(addrs=["10.0.0.2/24"])], iso=mkiso(conf), model=model,
                     smp=1, extra=list(extra))
    peers = []
    try:
        lab.start(ready=False)
        record_ready(lab.machine)
        m, wire = lab.machine, lab.peers[0]
        wire.ip(f"link set {wire.tap} mtu 9000")
        peers = [macvlan_peer(wire, i, gw6[i]) for i in range(2)]
        a, b = peers
        for p in peers:
            p.ip(f"link set {p.tap} mtu 9000")
        ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
        assert [ifs[n]["mtu"] for n in ("eth0", "eth1", "eth2")] == [1500, 9000, 9000], ifs
        assert pf_line in m.log, m.tail()
        assert len(re.findall(r"eth[12]: mtu 9000: frames up to 9022 bytes, over 1 KiB buffers", m.log)) == 2, m.tail()
        dst6 = "2001:db8:2::2"
        for dst in ("10.0.2.2", dst6):  # the neighbours resolved: a jumbo frame cannot wait for them
            a.run(["ping", "-c", "1", "-W", "3", dst], timeout=30)
        for dst, size in (("10.0.2.2", 8972), (dst6, 8952)):
            r = a.run(["ping", "-c", "3", "-i", "0.3", "-W", "3", "-s", str(size), "-M", "do", dst], timeout=60)
            assert " 0% packet loss" in r.stdout, r.stdout
        secs = netlab.curl_through(a, b, tmp_path, mb=10, timeout=120)
        errors = {i["name"]: i["counters"]["rx-error"] for i in m.json("show interfaces json")["interfaces"]}
        assert not any(errors.values()), errors
        return secs
    finally:
        for p in peers:
            netlab.sh(["ip", "netns", "del", p.ns], check=False)
        lab.close()


def test_sriov_jumbo(mkiso, record_ready, tmp_path, report):
    """vf_jumbo on QEMU's 82576: hayate's PF answers SET_LPE past 1522 with
    the VF's pool's VMOLR.RLPML and LPE, and raises the port's RLPML with
    RCTL.LPE; its own pool stays at 1522."""
    secs = vf_jumbo(mkiso, record_ready, tmp_path, CONF, "igb", ["1", "1"],
                    "igb 00:03.0: a VF asked for frames of up to 9026 bytes: RLPML raised")
    report(f"igb SR-IOV jumbo: two igbvf ports at MTU 9000 on hayate's PF (QEMU's 82576): 9000-byte pings VF to VF, "
           f"both families, and 10 MiB over HTTP in {secs:.1f}s (TCG)")
