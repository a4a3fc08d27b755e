# SPDX-License-Identifier: MIT
"""tests/e2e/test_ixgbe_sriov.py: SR-IOV on the 82599 model of our QEMU
build (`make qemu`, qemu/hw/net/ixgbe/): hayate's PF (drivers/intel/ixgbe.c,
ixgbe_sriov.c) offers two VFs (`sriov eth0 vfs 2`), which become eth1 and
eth2 under hayate's own ixgbevf (drivers/intel/ixgbevf.c), the PF behind a
PCIe root port with its VFs on its bus.

The lab is test_sriov.py's: one tap (namespace `wire`, the PF's subnet)
and two macvlan namespaces `a` and `b` on it, each in one VF's subnet, so
that traffic between them crosses the router in on one VF and out on the
other, sorted into pools by destination MAC alone. Checked: the mailbox
negotiation (API 1.3, GET_QUEUES' 4 queues a pool, every multicast), ping
and ping6 to every port, 4 MB VF to VF each way over IPv4 and IPv6, 8 MB
from `app http` on a VF with TSO, `show ixgbe json`'s VF table and
mailbox counters (nothing refused), no frame taken by the wrong pool, every
buffer back, and no strict-model complaint (`-d guest_errors`). With -smp
2 the PF's pool has two queues with RSS inside it, which the router then
narrows to one (every routed port gets the VFs' one pair). Last, the VFs
made untrusted, as a Linux host's are: each names its multicast groups;
and the PF reset under them: they start over."""
import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402
from netlab import qemu  # noqa: E402
from test_sriov import check_buffers_back, check_vf_ports, macvlan_peer, vf_jumbo  # noqa: E402

pytestmark = [pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable())),
              pytest.mark.skipif(qemu.own_qemu_missing() is not None, reason=str(qemu.own_qemu_missing()))]

CONF = """hostname sr
sriov eth0 vfs 2
interface eth0 address 10.0.0.1/24
interface eth1 address 10.0.1.1/24
interface eth1 address 2001:db8:1::a1:1b2/64
interface eth2 address 10.0.2.1/24
interface eth2 address 2001:db8:2::a2:2c3/64
app http port 80
"""
# The VFs' IPv6 addresses end in bytes whose MTA hash (bits 47:36 of
# their solicited-node group's MAC) no other group the VF names shares
# (::1 would hash as all-nodes does): only the group the stack joined lets
# a neighbour solicitation in once the VF is untrusted.
GW6 = ["a1:1b2", "a2:2c3"]
# Each VF: VF_RESET, API_NEGOTIATE (1.3 taken first), GET_QUEUES,
# UPDATE_XCAST (every multicast), SET_LPE.
MESSAGES_PER_VF = 5


@pytest.fixture(params=[1, 2], ids=["smp1", "smp2"])
def ixgbe_sriov_lab(mkiso, request, record_ready, tmp_path):
    log = tmp_path / "qemu-guest-errors.log"
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["10.0.0.2/24"])], iso=mkiso(CONF), model="ixgbe",
                     smp=request.param, extra=["-d", "guest_errors", "-D", str(log)])
    extra = []
    try:
        lab.start(ready=False)
        record_ready(lab.machine)
        extra = [macvlan_peer(lab.peers[0], i, GW6[i]) for i in range(2)]
        yield lab, extra, log, request.param
    finally:
        for p in extra:
            netlab.sh(["ip", "netns", "del", p.ns], check=False)
        lab.close()


def wait_pf_resets(m, n):
    """Until both VFs have started over n times since probe."""
    deadline = time.monotonic() + 20
    while not all(p["counters"]["pf-resets"] == n for p in m.json("show igb json")["ports"] if p["name"] != "eth0"):
        assert time.monotonic() < deadline, m.json("show igb json")
        time.sleep(0.2)


def check_pf_reset(m, wire, a, b, tmp_path, smp):
    """The PF reset under its VFs (`debug ixgbe-reset`), as a host's driver
    does on a link or MTU change: the device clears the VFs' queues and
    raises RSTI, then RSTD; each VF gives its buffers back, starts over
    once the PF is up, and traffic crosses again."""
    out = m.cmd("debug ixgbe-reset eth0", timeout=30)
    assert "eth0: reset, link up" in out, out
    wait_pf_resets(m, 2)
    sr = m.json("show ixgbe json")["ports"][0]["sriov"]
    assert sr["vf-resets"] == 6 and sr["vf-refused"] == 0, sr  # at probe, untrusted, after the reset
    wire.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=30)
    b.run("ping -c 2 -i 0.2 -W 2 10.0.2.1", timeout=30)
    netlab.curl_through(a, b, tmp_path, mb=2, timeout=120)
    check_buffers_back(m, "after the reset", rings=2 + smp)


def check_untrusted(m, a, b):
    """The VFs made untrusted, as a Linux host's are: the PF tells them to
    start over (a ping without CTS), grants UPDATE_XCAST only the named
    groups (its reply says MULTI), and each VF reports it and names the
    groups the stack listens to, its IPv6 address's solicited-node group
    among them: a neighbour solicitation from a peer with an empty cache
    still gets through to it."""
    out = m.cmd("debug ixgbe-untrust-vfs eth0", timeout=30)
    assert "eth0: 2 VFs untrusted, told to start over" in out, out
    wait_pf_resets(m, 1)
    said = re.findall(r"ixgbevf \S+: the PF gives this VF only the multicast groups it names .*naming the \d+", m.log)
    assert len(said) == 2, m.tail()
    sr = m.json("show ixgbe json")["ports"][0]["sriov"]
    assert [(v["ready"], v["xcast"]) for v in sr["per-vf"]] == [(True, 1)] * 2, sr["per-vf"]
    assert sr["vf-refused"] == 0, sr
    for i, peer in enumerate((a, b)):
        peer.run("ip -6 neigh flush all", timeout=10)
        peer.run(f"ping -6 -c 2 -i 0.2 -W 2 2001:db8:{i + 1}::{GW6[i]}", timeout=20)


def test_ixgbe_sriov_vfs(ixgbe_sriov_lab, tmp_path, report):
    lab, (a, b), log, smp = ixgbe_sriov_lab
    wire, m = lab.peers[0], lab.machine
    assert re.search(r"ixgbe 01:00\.0: 2 VFs, 32 pools of 4 queues; the PF is pool 2", m.log), m.tail()
    for n in ("eth1", "eth2"):
        assert re.search(rf"{n}: ixgbevf at .*link up", m.log), m.tail()
    assert len(re.findall(r"ixgbevf \S+: mailbox API 1\.3, the pool has 4 queues \(we use one\), multicast all",
                          m.log)) == 2, m.tail()
    ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
    assert [ifs[n]["driver"] for n in ("eth0", "eth1", "eth2")] == ["ixgbe", "ixgbevf", "ixgbevf"], ifs
    # The router gives every routed port the fewest pairs any has: the VFs' one.
    assert len({ifs[n]["mac"] for n in ifs}) == 3 and ifs["eth0"]["queues"] == 1, ifs
    elapsed, _ = check_vf_ports(m, ifs, wire, a, b, tmp_path, GW6)

    pf = m.json("show ixgbe json")["ports"][0]
    sr = pf["sriov"]
    assert sr["vfs"] == 2 and sr["queues-per-pool"] == 4, sr
    assert sr["vf-resets"] == 2 and sr["vf-refused"] == 0 and sr["vf-replies-lost"] == 0, sr
    assert sr["vf-messages"] == 2 * MESSAGES_PER_VF, sr
    assert [(v["ready"], v["api"], v["xcast"]) for v in sr["per-vf"]] == [(True, 4, 2)] * 2, sr["per-vf"]
    assert [v["mac"] for v in sr["per-vf"]] == [ifs["eth1"]["mac"], ifs["eth2"]["mac"]], sr["per-vf"]
    stats = m.json("show stats json")["counters"]
    assert stats["eth-not-for-us"] == 0, "a pool took a frame for another MAC"
    check_buffers_back(m, "after the transfers", rings=2 + smp)  # the PF's second ring stays posted
    check_untrusted(m, a, b)
    check_pf_reset(m, wire, a, b, tmp_path, smp)
    strict = [line for line in log.read_text().splitlines() if line.startswith("ixgbe")] if log.exists() else []
    assert not strict, strict
    report(f"ixgbe SR-IOV (-smp {smp}): 2 ixgbevf ports on hayate's 82599 PF (model), API 1.3; 4 MB VF to VF "
           f"through the router in {elapsed:.1f}s (TCG), {sr['vf-messages']} mailbox messages answered")


CONF64 = CONF.replace("sriov eth0 vfs 2", "sriov eth0 vfs 33")


def test_ixgbe_sriov_64_pools(mkiso, record_ready, tmp_path, report):
    """33 VFs: past 31, hayate's PF takes 64 pools of 2 queues (GCR_EXT
    VT_Mode 64, MRQC VMDq+RSS 64); VF n is pool n and the PF pool 33, whose
    queues 66 and 67 live in the second RX queue block (0x0D000). The VFs
    that become ports (eth1..eth15: hayate has 16 ports) start, and
    traffic crosses the PF and two VFs: pings to
    the PF and to VF 0 and VF 1, VF to VF through the router, 2 MB of HTTP
    between the two VF subnets; no strict-model complaint."""
    log = tmp_path / "qemu-guest-errors.log"
    lab = netlab.Lab("ixgbe-sriov-64", [netlab.Peer(addrs=["10.0.0.2/24"])], iso=mkiso(CONF64), model="ixgbe",
                     smp=1, extra=["-d", "guest_errors", "-D", str(log)])
    extra = []
    try:
        lab.start(ready=False)
        record_ready(lab.machine)
        m, wire = lab.machine, lab.peers[0]
        assert re.search(r"ixgbe 01:00\.0: 33 VFs, 64 pools of 2 queues; the PF is pool 33", m.log), m.tail()
        ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
        # 16 ports at most (kernel/ports.h PORTS_MAX): the PF and the first
        # 15 VFs become ports; the other 18 VFs are there, unprobed.
        vfs = [n for n in ifs if ifs[n]["driver"] == "ixgbevf"]
        assert len(vfs) == 15, ifs.keys()
        assert len(re.findall(r"ixgbevf \S+: mailbox API 1\.3, the pool has 2 queues", m.log)) == 15, m.tail()
        extra = [macvlan_peer(wire, i, GW6[i]) for i in range(2)]
        a, b = extra
        start = time.monotonic()
        wire.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=30)
        a.run("ping -c 2 -i 0.2 -W 2 10.0.1.1", timeout=30)
        b.run("ping -c 2 -i 0.2 -W 2 10.0.2.1", timeout=30)
        a.run("ping -c 2 -i 0.2 -W 2 10.0.2.2", timeout=30)  # VF to VF through the router
        netlab.curl_through(a, b, tmp_path, mb=2, timeout=120)
        elapsed = time.monotonic() - start
        sr = m.json("show ixgbe json")["ports"][0]["sriov"]
        assert sr["vfs"] == 33 and sr["queues-per-pool"] == 2 and sr["vf-refused"] == 0, sr
        assert m.json("show stats json")["counters"]["eth-not-for-us"] == 0
    finally:
        for p in extra:
            netlab.sh(["ip", "netns", "del", p.ns], check=False)
        lab.close()
    strict = [line for line in log.read_text().splitlines() if line.startswith("ixgbe")] if log.exists() else []
    assert not strict, strict
    report(f"ixgbe SR-IOV 64 pools: 33 VFs (15 ixgbevf ports), the PF in pool 33 (queues 66-67); "
           f"pings and 2 MB VF to VF in {elapsed:.1f}s (TCG)")



def test_ixgbe_sriov_jumbo(mkiso, record_ready, tmp_path, report):
    """test_sriov.py's VF jumbo-frame check on the 82599: hayate's PF
    answers SET_LPE past 1522 (a VF of API 1.1 or later) by raising the
    port's MAXFRS with HLREG0.JUMBOEN; its own MTU stays 1500."""
    log = tmp_path / "qemu-guest-errors.log"
    secs = vf_jumbo(mkiso, record_ready, tmp_path, CONF, "ixgbe", GW6,
                    "ixgbe 01:00.0: a VF asked for frames of up to 9026 bytes: MAXFRS raised",
                    extra=["-d", "guest_errors", "-D", str(log)])
    strict = [line for line in log.read_text().splitlines() if line.startswith("ixgbe")] if log.exists() else []
    assert not strict, strict
    report(f"ixgbe SR-IOV jumbo: two ixgbevf ports at MTU 9000 on hayate's PF (model): 9000-byte pings VF to VF, "
           f"both families, and 10 MiB over HTTP in {secs:.1f}s (TCG)")
