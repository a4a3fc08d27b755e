# SPDX-License-Identifier: MIT
"""tests/e2e/test_gen.py: hayate's traffic generator (`gen ports`, `gen
run`, `show gen json`: kernel/netsvc/gen.c) through a link model between
its two ports (linkmodel.py: two taps and a thread that drops, duplicates,
swaps or delays known frames). What the generator reports must be
exactly what the link did; a delay it adds is never under-reported; IMIX
is 7:4:1 on the wire; the generator answers ARP for its addresses, so a
router under test can reach it; /metrics of the http app on another
port carries its counts."""
import json
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402
from linkmodel import LinkModel  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

# eth1's MAC as tools/qemu.py gives it: frames go to the receiving port.
CONF = """hostname gen
gen ports eth0 eth1 dst-mac 52:54:00:68:79:01 src 198.18.0.2 dst 198.19.0.2 flows 16
interface eth2 address 10.7.0.1/24
app http port 80
"""


@pytest.fixture
def genlab(mkiso, request, record_ready):
    # eth2: a management port, where /metrics is scraped during a run.
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["198.18.0.1/24"]), netlab.Peer(),
                                         netlab.Peer(addrs=["10.7.0.2/24"])], iso=mkiso(CONF))
    try:
        lab.start(ready=False)
        record_ready(lab.machine)
        yield lab
    finally:
        lab.close()


def run_trial(m, args, timeout=60):
    out = m.cmd("gen run " + args)
    assert "gen run:" not in out, out
    deadline = time.monotonic() + timeout
    while True:
        g = m.json("show gen json")
        if g["state"] == "done":
            return g
        assert time.monotonic() < deadline, g
        time.sleep(0.2)


def link(lab, **kw):
    a, b = lab.peers[:2]
    return LinkModel(a.ns, a.tap, b.ns, b.tap, **kw)


def test_gen_reports_exactly_what_the_link_did(genlab, report):
    m = genlab.machine
    assert "gen: eth0 to eth1, 1 cores, 16 flows" in m.log, m.tail()
    lm = link(genlab, drop=lambda s: s % 100 == 7, dup=lambda s: s % 100 == 30,
              hold=lambda s: s % 100 == 60 and s < 1800)
    try:
        g = run_trial(m, "size 64 rate 1000 ms 2000 drain-ms 1500")
    finally:
        lm.close()
    assert g["sent"] == lm.seen and g["sent"] >= 1900, (g, vars(lm))
    assert (g["lost"], g["duplicated"], g["reordered"], g["late"]) == (lm.dropped, lm.duplicated, lm.swapped, 0), \
        (g, vars(lm))
    assert lm.dropped >= 19 and lm.duplicated >= 19 and lm.swapped >= 18, vars(lm)
    assert g["received"] == lm.passed == g["sent"] - lm.dropped + lm.duplicated, (g, vars(lm))
    assert g["stale"] == 0 and g["tx-full"] == 0 and g["no-buffer"] == 0, g
    assert lm.sizes == {60: lm.seen}, lm.sizes  # 64 bytes on the wire, the FCS not seen on a tap
    lat = g["latency"]
    assert lat["samples"] == g["received"], lat
    assert 0 < lat["min_ns"] <= lat["p50_ns"] <= lat["p90_ns"] <= lat["p99_ns"] <= lat["p999_ns"] <= lat["max_ns"], lat
    report(f"gen through a link model (TCG, 1,000 frames/s for 2 s): sent {g['sent']}, lost {g['lost']}, "
           f"duplicated {g['duplicated']}, reordered {g['reordered']}, as the link did; "
           f"latency p50 {lat['p50_ns'] / 1e6:.2f} ms, p99 {lat['p99_ns'] / 1e6:.2f} ms")
    # /metrics on the management port says the same.
    metrics = genlab.peers[2].run("curl -s --max-time 10 http://10.7.0.1/metrics").stdout
    got = dict(line.split() for line in metrics.splitlines() if line.startswith("hayate_gen_"))
    assert (int(got["hayate_gen_sent"]), int(got["hayate_gen_lost"]), int(got["hayate_gen_duplicated"])) == \
        (g["sent"], g["lost"], g["duplicated"]), metrics
    # /gen serves `show gen json` as it is.
    doc = json.loads(genlab.peers[2].run("curl -s --max-time 10 http://10.7.0.1/gen").stdout)
    assert doc == g, (doc, g)
    # The next trial starts from zero: nothing of this one is counted in it.
    lm = link(genlab)
    try:
        g = run_trial(m, "size 128 rate 500 ms 500 drain-ms 1000")
    finally:
        lm.close()
    assert g["sent"] == lm.seen == g["received"] and g["lost"] == 0 and g["stale"] == 0, (g, vars(lm))


def guest_clock_rate(m, seconds=3.0):
    """Guest nanoseconds per host nanosecond: under TCG the guest's TSC,
    calibrated against its HPET while the host is busy, may be off by
    several percent."""
    t0, u0 = time.monotonic(), m.json("show version json")["uptime_ns"]
    time.sleep(seconds)
    t1, u1 = time.monotonic(), m.json("show version json")["uptime_ns"]
    return (u1 - u0) / ((t1 - t0) * 1e9)


def test_gen_latency_of_a_delayed_link(genlab):
    """Every frame held 50 ms: no latency reported below that, in the
    guest's own clock (2% for measuring that clock's rate)."""
    rate = guest_clock_rate(genlab.machine)
    lm = link(genlab, delay_s=0.05)
    try:
        g = run_trial(genlab.machine, "size 64 rate 200 ms 1000 drain-ms 1500")
    finally:
        lm.close()
    lat = g["latency"]
    assert g["received"] == g["sent"] == lm.seen and g["lost"] == 0, (g, vars(lm))
    assert lat["min_ns"] >= 50e6 * rate * 0.98, (lat, rate)


def test_gen_imix_and_arp(genlab):
    m = genlab.machine
    lm = link(genlab)
    try:
        g = run_trial(m, "size imix rate 600 ms 2000 drain-ms 1500")
    finally:
        lm.close()
    assert g["sent"] == g["received"] == lm.seen and g["lost"] == 0, (g, vars(lm))
    periods = lm.seen // 12
    assert lm.sizes.get(60, 0) >= 7 * periods and lm.sizes.get(566, 0) >= 4 * periods \
        and lm.sizes.get(1514, 0) >= periods and sum(lm.sizes.values()) == lm.seen, lm.sizes
    assert set(lm.sizes) <= {60, 566, 1514}, lm.sizes
    # A router resolving the generator's address gets eth0's MAC.
    a = genlab.peers[0]
    a.run("ping -c 1 -W 1 198.18.0.2", check=False)
    neigh = a.run("ip neigh show 198.18.0.2").stdout
    assert "52:54:00:68:79:00" in neigh, neigh
    assert m.json("show gen json")["arp-replies"] >= 1


def rfc2544_through_500fps(genlab, args):
    """`rfc2544 run ARGS` through a link that passes 500 frames a second
    (bursts of 50): the finished `show rfc2544 json`, and the link model."""
    m = genlab.machine
    lm = link(genlab, capacity_pps=500, burst=50)
    try:
        out = m.cmd("rfc2544 run " + args)
        assert "rfc2544" not in out, out
        deadline = time.monotonic() + 240
        while (r := m.json("show rfc2544 json"))["state"] != "done":
            assert time.monotonic() < deadline, r
            time.sleep(1)
    finally:
        lm.close()
    assert r["error"] == "", r
    return r, lm


def test_rfc2544_finds_a_known_capacity(genlab, report):
    """A link that passes 500 frames a second of a 1 Mbit/s line (1,488
    64-byte frames a second): the NDR search ends at most its precision
    (2% of the line) below that, never above; latency, the loss curve and
    back-to-back come out too, in `show rfc2544 json`'s shape."""
    r, lm = rfc2544_through_500fps(genlab,
                                   "sizes 64 trial-ms 1000 drain-ms 400 line-mbps 1 precision-pct 2 pdr-pct 0.5")
    # A remote script fetches the same from the http app.
    assert json.loads(genlab.peers[2].run("curl -s --max-time 10 http://10.7.0.1/rfc2544").stdout) == r
    (t,) = r["throughput"]
    assert t["size"] == 64 and t["line_pps"] == 1488, t
    step = 1488 * 2 // 100
    assert 500 - 2 * step <= t["ndr_pps"] <= 500 + 50, (t, vars(lm))
    assert t["ndr_pps"] <= t["pdr_pps"], t
    assert [l["load_pct"] for l in r["latency"]] == [10, 50, 90, 100], r["latency"]
    losses = [(f["offered_pct"], f["loss_pct"]) for f in r["frame_loss"]]
    assert losses[0][0] == 100 and losses[0][1] > 50 and losses[-1][1] == 0 and losses[-2][1] == 0, losses
    (b2b,) = r["back_to_back"]
    # A burst at line rate of B frames passes 50 + 500 B / 1488: B up to 75,
    # found to within the search's step (2% of a second at line rate).
    assert 75 - 2 * step <= b2b["frames"] <= 150, b2b
    report(f"rfc2544 through a 500 frames/s link (TCG, 1 Mbit/s line, 1 s trials): NDR {t['ndr_pps']}, "
           f"PDR {t['pdr_pps']} frames/s, back-to-back {b2b['frames']} frames, {r['trials']} trials")


def test_rfc2544_repetitions_are_averaged(genlab):
    """`repeat 2`: each size's tests run twice and each figure is the mean
    of the two, with the least and the most beside it; every repetition
    found the link's capacity (500 frames a second and a 50-frame burst:
    up to 666 a second over a 0.3 s trial)."""
    r, _ = rfc2544_through_500fps(genlab, "sizes 64 trial-ms 300 drain-ms 200 line-mbps 1 precision-pct 10 repeat 2")
    assert r["repetitions"] == 2, r
    (t,) = r["throughput"]
    step = 1488 * 10 // 100
    assert 500 - 2 * step <= t["ndr_pps_min"] <= t["ndr_pps"] <= t["ndr_pps_max"] <= 666, t
    assert t["ndr_pps"] in ((t["ndr_pps_min"] + t["ndr_pps_max"]) // 2, (t["ndr_pps_min"] + t["ndr_pps_max"] + 1) // 2)
    (b2b,) = r["back_to_back"]
    assert b2b["frames_min"] <= b2b["frames"] <= b2b["frames_max"], b2b
    assert [l["load_pct"] for l in r["latency"]] == [10, 50, 90, 100], r["latency"]
    losses = [(f["offered_pct"], f["loss_pct"]) for f in r["frame_loss"]]
    assert losses[0][0] == 100 and losses[0][1] > 50 and losses[-1][1] == 0, losses


CONF6 = """hostname gen6
gen ports eth0 eth1 dst-mac 52:54:00:68:79:01 src 2001:db8:18::2 dst 2001:db8:19::2 flows 16
"""


def test_gen_ipv6_and_neighbour_discovery(mkiso, request):
    """IPv6 frames (82 bytes the smallest: the stamp after a 40-byte
    header) counted back exactly, and a neighbour solicitation for the
    generator's address answered with eth0's MAC."""
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["2001:db8:18::1/64"]), netlab.Peer()],
                     iso=mkiso(CONF6))
    try:
        lab.start()
        m = lab.machine
        out = m.cmd("gen run size 64 rate 100 ms 500")
        assert "frames of 64 bytes cannot be sent (82 to 9234)" in out, out
        lm = link(lab)
        try:
            g = run_trial(m, "size 128 rate 500 ms 1000 drain-ms 1000")
        finally:
            lm.close()
        assert g["sent"] == g["received"] == lm.seen and g["lost"] == 0 and g["sent"] >= 400, (g, vars(lm))
        assert lm.sizes == {124: lm.seen}, lm.sizes
        a = lab.peers[0]
        a.run("ping -6 -c 1 -W 1 2001:db8:18::2", check=False)
        neigh = a.run("ip -6 neigh show 2001:db8:18::2").stdout
        assert "52:54:00:68:79:00" in neigh, neigh
    finally:
        lab.close()


def test_gen_jumbo_frames(mkiso, request, record_ready):
    """Frames of 9018 bytes (a 9000-byte MTU's), each a chain of buffers
    leaving eth0 and arriving on eth1 (kernel/netsvc/gen.c chain_rest),
    counted back one for one with what the link saw, none lost; a size over
    the ports' MTU is refused by name (`interface ethN mtu`), with no
    address on the generator's ports (the MTU statement applies all the
    same)."""
    conf = "hostname gen\ngen ports eth0 eth1 dst-mac 52:54:00:68:79:01 src 198.18.0.2 dst 198.19.0.2 flows 16\n" \
           "interface eth0 mtu 9000\ninterface eth1 mtu 9000\n"
    lab = netlab.Lab(request.node.name, [netlab.Peer(addrs=["198.18.0.1/24"]), netlab.Peer()], iso=mkiso(conf))
    try:
        lab.start(ready=False)
        record_ready(lab.machine)
        m = lab.machine
        for p in lab.peers:
            p.ip(f"link set {p.tap} mtu 9000")
        out = m.cmd("gen run size 9100 rate 100 ms 500")
        assert "frames of 9100 bytes are over eth0's MTU of 9000 (`interface eth0 mtu 9082`)" in out, out
        held0 = sum(p["total"] - p["free"] for p in m.json("show buffers json")["pools"])
        lm = link(lab)
        try:
            g = run_trial(m, "size 9018 rate 300 ms 2000 drain-ms 1500")
        finally:
            lm.close()
        assert g["sent"] == g["received"] == lm.seen and g["lost"] == 0 and g["sent"] >= 500, (g, vars(lm))
        assert lm.sizes == {9014: lm.seen}, lm.sizes
        held = sum(p["total"] - p["free"] for p in m.json("show buffers json")["pools"])
        # each chain freed whole: what the rings hold, and what TX reclaims lazily
        assert held <= held0 + 64, f"{held} buffers out of the pools after the trial, {held0} before"
    finally:
        lab.close()
