# SPDX-License-Identifier: MIT
"""tests/e2e/test_sriov_root_port.py: SR-IOV as on real servers, each
82576 (`-device igb`) behind a PCIe root port of its own
(tools/qemu.py topology="root-port"), its VFs on the port's bus.

SeaBIOS sizes the root port's windows for the PF's BARs and never sizes VF
BARs; the VFs' BARs must lie inside a window of the port or the port does
not route their registers (before drivers/pci/pci_bridge.c, hayate put
them below the lowest BAR in the system and the VFs' mailbox never
answered). Checked: the VFs' BARs lie inside their port's windows
(`show pci json`), the VFs answer (reset, MAC, link), and pass traffic as
on the flat topology (tests/e2e/test_sriov.py): ping, ping6, VF to VF
through the router over IPv4, no frame taken for another MAC, every buffer
back. Then a PF behind a PCIe switch (root port, switch upstream and
downstream ports: three bridges above it). Two PFs behind two root ports,
7 and 2 VFs, are test_sriov.py's eleven-port test on this topology."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402
from test_sriov import CONF, check_buffers_back, macvlan_peer  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

IGBVF_DEVICE = 0x10CA  # QEMU's 82576 VF


def check_vf_bars_routed(m, nvfs):
    """Each VF BAR inside an open window of every bridge above its bus; the
    bridges' windows apart, but for one inside the window of a bridge
    above it."""
    pci = m.json("show pci json")
    bridges = pci["bridges"]
    vfs = [d for d in pci["devices"] if d["device"] == IGBVF_DEVICE]
    assert len(vfs) == nvfs, pci
    for d in vfs:
        bus = int(d["address"].split(":")[1], 16)
        above = [b for b in bridges if b["secondary"] <= bus <= b["subordinate"]]
        assert above, (d, bridges)
        for bar in d["bars"]:
            lo, hi = bar["address"], bar["address"] + bar["size"]
            for b in above:
                assert any(w["open"] and w["base"] <= lo and hi <= w["end"]
                           for w in (b["memory"], b["prefetchable"])), (d["address"], bar, b)
    def below(inner, outer):  # inner sits on a bus behind outer
        return outer["secondary"] <= int(inner["address"].split(":")[1], 16) <= outer["subordinate"]

    windows = [(w["base"], w["end"], b) for b in bridges for w in (b["memory"], b["prefetchable"]) if w["open"]]
    for i, (lo, hi, b) in enumerate(windows):
        for lo2, hi2, b2 in windows[i + 1:]:
            if hi <= lo2 or hi2 <= lo:
                continue
            # Overlapping windows: only a bridge's inside its parent's.
            nested = (below(b2, b) and lo <= lo2 and hi2 <= hi) or (below(b, b2) and lo2 <= lo and hi <= hi2)
            assert nested, f"windows of {b['address']} and {b2['address']} overlap: {windows}"
    return pci


def test_sriov_behind_a_root_port(mkiso, request, record_ready, tmp_path, report):
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["10.0.0.2/24"])], iso=mkiso(CONF), model="igb",
                     topology="root-port")
    extra = []
    try:
        lab.start(ready=False)
        m = record_ready(lab.machine)
        extra = [macvlan_peer(lab.peers[0], i) for i in range(2)]
        a, b = extra
        wire = lab.peers[0]
        assert re.search(r"eth0: igb at 01:00\.0, .*link up", m.log), m.tail()
        assert re.search(r"eth1: igbvf at 01:10\.0, .*link up", m.log), m.tail()
        assert re.search(r"eth2: igbvf at 01:10\.2, .*link up", m.log), m.tail()
        assert "did not answer" not in m.log, m.tail()
        pci = check_vf_bars_routed(m, 2)
        ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
        assert [ifs[n]["driver"] for n in ("eth0", "eth1", "eth2")] == ["igb", "igbvf", "igbvf"], ifs
        assert len({ifs[n]["mac"] for n in ifs}) == 3, ifs

        wire.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=20)
        a.run("ping -c 2 -i 0.2 -W 2 10.0.1.1", timeout=20)
        b.run("ping -6 -c 2 -i 0.2 -W 2 2001:db8:2::1", timeout=20)
        a.run("ping -c 2 -i 0.2 -W 2 10.0.2.2", timeout=20)  # VF to VF through the router
        elapsed = netlab.curl_through(a, b, tmp_path, mb=4, timeout=120)
        c = {p["name"]: p for p in m.json("show igb json")["ports"]}["eth0"]["counters"]
        assert c["vf-resets"] == 2 and c["vf-refused"] == 0 and c["vf-replies-lost"] == 0, c
        assert m.json("show stats json")["counters"]["eth-not-for-us"] == 0
        check_buffers_back(m, "after the transfers")
        rp = pci["bridges"][0]
        report(f"SR-IOV behind a PCIe root port: 2 igbvf ports on bus 1, 4 MB VF to VF in {elapsed:.1f}s (TCG); "
               f"root port windows memory {rp['memory']['base']:#x}-{rp['memory']['end']:#x}, "
               f"prefetchable {rp['prefetchable']['base']:#x}-{rp['prefetchable']['end']:#x}")
    finally:
        for p in extra:
            netlab.sh(["ip", "netns", "del", p.ns], check=False)
        lab.close()


SWITCHED = """sriov eth0 vfs 7
interface eth0 address 10.0.0.1/24
interface eth7 address 10.0.7.1/24
"""


def test_sriov_behind_a_switch(mkiso, request, record_ready):
    """A PF behind a PCIe switch on a root port (bus 3): its seven VFs'
    BARs inside the windows of all three bridges above, and the VFs
    answering on the wire."""
    peer = netlab.Peer(addrs=["10.0.0.2/24", "10.0.7.2/24"])
    lab = netlab.Lab(request.node.name, [peer], iso=mkiso(SWITCHED), model="igb", topology="switch")
    try:
        lab.start(ready=False)
        m = record_ready(lab.machine)
        assert "did not answer" not in m.log, m.tail()
        assert re.search(r"eth0: igb at 03:00\.0, .*link up", m.log), m.tail()
        assert re.search(r"eth7: igbvf at 03:11\.4, .*link up", m.log), m.tail()
        pci = check_vf_bars_routed(m, 7)
        assert len(pci["bridges"]) == 3, pci["bridges"]
        peer.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=20)
        peer.run("ping -c 2 -i 0.2 -W 2 10.0.7.1", timeout=20)
    finally:
        lab.close()
