# SPDX-License-Identifier: MIT
"""tests/e2e/test_virtio_packed.py: virtio-net over packed virtqueues
(VIRTIO_F_RING_PACKED, virtio 1.2 2.8; drivers/virtio/virtqueue_packed.c),
which QEMU offers with `packed=on`: hayate as a two-port router on two
cores with two queue pairs a port and the device's RSS. Checked: every
port negotiated the packed ring; pings; 10 MB through the router and
20 MB from `app http` with TSO chains (SHA-256 checked), after a device
reset forced on a packed TX ring (`debug virtio-break`), drained and
restarted with no buffer lost. The reset with two queue pairs and RSS
once overran the control buffer (the RSS command is 309 bytes) and
crashed the other port: this test found it."""
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

CONF = """interface eth0 address 10.0.0.1/24
interface eth1 address 10.0.1.1/24
app http port 80
"""

def buffers_held(m):
    return sum(p["total"] - p["free"] for p in m.json("show buffers json")["pools"])


def test_packed_ring_router(netlab, tmp_path, report):
    peers = [nl.Peer(addrs=["10.0.0.2/24"], routes=["default via 10.0.0.1"]),
             nl.Peer(addrs=["10.0.1.2/24"], routes=["default via 10.0.1.1"])]
    lab = netlab(peers, config=CONF, smp=2, queues=2,
                 extra=["-global", "virtio-net-pci.packed=on", "-global", "virtio-net-pci.rss=on"])
    left, right = lab.peers
    m = lab.machine
    ifs = m.json("show interfaces json")["interfaces"]
    assert [i["virtio-ring"] for i in ifs] == ["packed", "packed"], ifs
    assert all(i["queues"] == 2 and i["offloads"]["tso4"] for i in ifs), ifs
    assert "(packed ring)" in m.cmd("show interfaces")
    left.run("ping -c 3 -i 0.2 -W 2 10.0.1.2", timeout=20)
    held = buffers_held(m)
    m.cmd("debug virtio-break eth0")
    m.wait_for(r"eth0: device restarted", timeout=10)
    m.wait_for(r"eth0: link up", timeout=10)
    left.run("ping -c 3 -i 0.2 -W 2 10.0.1.2", timeout=20)
    # The reset gave back what eth0's rings held and posted its RX rings
    # anew: a leak would be a ring's worth more; the RX rings differ by the
    # few frames each took since its last top-up.
    after = buffers_held(m)
    assert after <= held + 16, f"{after} buffers out of the pools after the reset, {held} before"
    elapsed = nl.curl_through(left, right, tmp_path, mb=10, timeout=120)
    n = 20 << 20
    r = left.run(["bash", "-c", f"curl -sS --max-time 120 http://10.0.0.1/bytes/{n} | sha256sum"], timeout=150)
    assert r.stdout.split()[0] == nl.pattern_sha256(n)
    tso = m.json("show stats json")["counters"]["tcp-tso"]
    assert tso > 0
    c = {i["name"]: i["counters"] for i in m.json("show interfaces json")["interfaces"]}
    assert c["eth0"]["rx-error"] == 0 and c["eth1"]["rx-error"] == 0, c
    report(f"virtio packed ring: 10 MB through the router in {elapsed:.1f}s (TCG, -smp 2), "
           f"{tso} TSO frames, after a forced device reset ({held} buffers out before it, {after} after)")
