# SPDX-License-Identifier: MIT
"""tests/e2e/test_ixgbe.py: hayate as a two-port router on Intel 82599
(X520) ports, the device model of our QEMU build (`make qemu`,
qemu/hw/net/ixgbe/), each port behind a PCIe root port of its own, driven
by drivers/intel/ixgbe.c. The same router pass as on igb (test_igb.py:
pings, curls through and from the router over IPv4 and IPv6, TSO and
checksum offload with every checksum checked on the wire, a forwarding
burst, buffers all back), with -smp 1 and 2 (RSS over two queue pairs).
Then what only the 82599 has: the canary (`show ixgbe json`: the model's
SFP+ module, link registers, no MAC errors) and the model's strict checks
(`-d guest_errors`): hayate's driver breaks none of the datasheet's
orders. Last, the forwarding rate of an ixgbe pair beside a virtio pair
in one machine, the same run, alternating bursts."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402
from netlab import qemu  # noqa: E402  (tools/qemu.py, as netlab has it)
from test_igb import (forward_burst, igb_lab, interfaces, run_router,  # noqa: E402,F401  (igb_lab: the fixture)
                      spread_flows)

pytestmark = [pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable())),
              pytest.mark.skipif(qemu.own_qemu_missing() is not None, reason=str(qemu.own_qemu_missing()))]


def ixgbe_lab(igb_lab, tmp_path, smp):
    log = tmp_path / "qemu-guest-errors.log"
    return igb_lab(smp=smp, model="ixgbe", extra=["-d", "guest_errors", "-D", str(log)]), log


def check_canary(m, log):
    """The boot lines and `show ixgbe json` say what the model is."""
    assert re.search(r'ixgbe 0[12]:00\.0: SFP\+ module: 10GBASE-SR, vendor "[^"]+"', m.log), m.tail()
    ports = m.json("show ixgbe json")["ports"]
    assert [p["name"] for p in ports] == ["eth0", "eth1"], ports
    for p in ports:
        assert p["device-id"] == 0x10fb and p["link-up"] is True, p
        assert p["sfp"]["present"] and p["sfp"]["ten-gig"] and p["sfp"]["checksum-ok"], p["sfp"]
        # The EEPROM's PHY init list has an (empty) sequence for an SR module: type 5 on LAN port 0.
        assert p["sfp"]["init-found"] and p["sfp"]["init-type"] == 5 + p["lan-id"], p["sfp"]
        assert len(p["sfp"]["id-bytes"]) == 192 and p["links"] & (1 << 30), p
        assert p["semaphore-timeouts"] == 0 and p["link-restarts"] == 0, p
        # No MAC-level error; drops for want of room (the forwarding burst
        # offers more than TCG forwards) are the port's rx-miss, no more.
        drops = ("rx_missed_errors", "rx_no_buffer_count", "rx_queue_drops")
        assert all(v == 0 for k, v in p["errors"].items() if k not in drops), p["errors"]
        miss = next(i for i in interfaces(m) if i["name"] == p["name"])["counters"]["rx-miss"]
        assert p["errors"]["rx_missed_errors"] == miss, (p["errors"], miss)
    strict = [line for line in log.read_text().splitlines() if line.startswith("ixgbe")] if log.exists() else []
    assert not strict, strict


def test_ixgbe_router(igb_lab, tmp_path, report):
    lab, log = ixgbe_lab(igb_lab, tmp_path, smp=1)
    m = run_router(lab, tmp_path, report, smp=1, driver="ixgbe")
    check_canary(m, log)


def test_ixgbe_router_smp2(igb_lab, tmp_path, report):
    """Two cores, two queue pairs, RSS on the 82599's MRQC/RETA/RSSRK."""
    lab, log = ixgbe_lab(igb_lab, tmp_path, smp=2)
    m = run_router(lab, tmp_path, report, smp=2, driver="ixgbe")
    per_queue = spread_flows(m, lab.peers[0], "10.0.0.1")
    check_canary(m, log)
    report(f"ixgbe -smp 2: eth0 RX per queue {per_queue}")


BESIDE = """hostname r1
interface eth0 address 10.0.0.1/24
interface eth1 address 10.0.1.1/24
interface eth2 address 10.0.2.1/24
interface eth3 address 10.0.3.1/24
"""


def test_ixgbe_beside_virtio(mkiso, request, record_ready, report):
    """Two virtio ports and two 82599 ports on one hayate: 64-byte bursts
    forwarded virtio to virtio and ixgbe to ixgbe, three rounds each,
    alternating; the medians side by side (TCG: a figure of the emulation
    as much as of the drivers). Counts, not times, are checked: every
    frame forwarded went out with at most one doorbell per burst."""
    peers = [netlab.Peer(addrs=[f"10.0.{i}.2/24"], routes=[f"default via 10.0.{i}.1"]) for i in range(4)]
    models = ["virtio-net-pci"] * 2 + ["ixgbe"] * 2
    lab = netlab.Lab(request.node.name, peers, iso=mkiso(BESIDE), model=models)
    try:
        lab.start(ready=False)
        m = record_ready(lab.machine)
        assert [i["driver"] for i in interfaces(m)] == ["virtio-net"] * 2 + ["ixgbe"] * 2, interfaces(m)
        rates = {"virtio": [], "ixgbe": []}
        for _ in range(3):
            for kind, (a, b) in (("virtio", (0, 1)), ("ixgbe", (2, 3))):
                got, rx, rate, bells = forward_burst(m, peers[a], peers[b], ports=(a, b))
                assert bells <= 1.0, (kind, bells)
                rates[kind].append(rate)
        med = {k: sorted(v)[1] for k, v in rates.items()}
        report(f"forwarding, one machine, same run (TCG, 64-byte bursts, median of 3): virtio {med['virtio']:,.0f} "
               f"packets/s, ixgbe {med['ixgbe']:,.0f} packets/s, ixgbe/virtio {med['ixgbe'] / med['virtio']:.2f}")
    finally:
        lab.close()
