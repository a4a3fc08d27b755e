"""tests/e2e/test_iperf3.py: `app iperf3` against Linux's stock iperf3
client (userland/iperf3.c): normal mode, reverse (-R), both at once
(--bidir) and four parallel streams (-P 4, spread by RSS over two cores),
each with -J output that parses and byte counts that agree; UDP refused
without a hang; afterwards
every buffer back and no connection left open. One lab (two cores, two
queues) for the module: QEMU under TCG is slow to boot."""
import json
import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import netlab  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

ADDR = "10.7.0.1"
CONF = f"hostname t1\ninterface eth0 address {ADDR}/24\napp iperf3 port 5201\n"
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.fixture(scope="module")
def lab(iso, tmp_path_factory):
    d = tmp_path_factory.mktemp("iperf3")
    conf, out = d / "iperf3.conf", d / "iperf3.iso"
    conf.write_text(CONF)
    subprocess.run([os.path.join(ROOT, "tools", "mkiso"), str(conf), str(out)], check=True, timeout=120)
    lab = netlab.Lab("test_iperf3", [netlab.Peer(addrs=["10.7.0.2/24"])], iso=str(out), queues=2, smp=2,
                     extra=["-global", "virtio-net-pci.rss=on"])
    lab.start()
    peer, m = lab.peers[0], lab.machine
    peer.run(["ping", "-c", "1", "-W", "5", ADDR], timeout=10)  # ARP both ways
    lab.baseline = free_buffers(m)
    yield lab
    lab.close()


def free_buffers(m):
    return [p["free"] for p in m.json("show buffers json")["pools"]]


def iperf3(peer, *args, timeout=60):
    r = peer.run(["timeout", str(timeout), "iperf3", "-c", ADDR, "-J", *args], check=False, timeout=timeout + 10)
    return r.returncode, json.loads(r.stdout), r


def summary(res):
    end = res["end"]
    return end["sum_sent"]["bytes"], end["sum_received"]["bytes"], end["sum_received"]["bits_per_second"]


def test_normal(lab):
    rc, res, r = iperf3(lab.peers[0], "-t", "2")
    assert rc == 0, r.stdout + r.stderr
    sent, received, bps = summary(res)
    print(f"normal: sent {sent} received {received} bytes, {bps / 1e6:.1f} Mbit/s")
    assert received > 0 and received == sent
    assert res["end"]["streams"][0]["receiver"]["bytes"] == received
    assert lab.machine.json("show iperf3 json")["tests"] >= 1


def test_reverse(lab):
    rc, res, r = iperf3(lab.peers[0], "-t", "2", "-R")
    assert rc == 0, r.stdout + r.stderr
    assert res["start"]["test_start"]["reverse"] == 1
    sent, received, bps = summary(res)
    print(f"reverse: sent {sent} received {received} bytes, {bps / 1e6:.1f} Mbit/s")
    # The client counts what it read before its TEST_END; what was in flight
    # then (our send queue, its socket buffer) arrives late, uncounted.
    assert 0 < received <= sent


def test_parallel(lab):
    rc, res, r = iperf3(lab.peers[0], "-t", "2", "-P", "4")
    assert rc == 0, r.stdout + r.stderr
    sent, received, bps = summary(res)
    streams = res["end"]["streams"]
    print(f"-P 4: sent {sent} received {received} bytes, {bps / 1e6:.1f} Mbit/s, "
          f"per stream {[s['receiver']['bytes'] for s in streams]}")
    assert len(streams) == 4 and received == sent > 0
    assert all(s["receiver"]["bytes"] > 0 for s in streams)


def rx_per_queue(m):
    return [q["rx-packets"] for q in m.json("show interfaces json")["interfaces"][0]["per-queue"]]


def test_streams_on_both_cores(lab):
    """16 streams: the device's RSS puts some on each core (all on one: 1
    in 2^15), so a test's control connection and its streams are spread
    over cores, and the counts still agree."""
    m = lab.machine
    before = rx_per_queue(m)
    rc, res, r = iperf3(lab.peers[0], "-t", "1", "-P", "16")
    assert rc == 0, r.stdout + r.stderr
    sent, received, _ = summary(res)
    assert received == sent > 0
    grew = [a - b for a, b in zip(rx_per_queue(m), before)]
    print(f"-P 16: RX per queue {grew}")
    assert len(grew) == 2 and min(grew) > 16, grew


def test_text_output(lab):
    r = lab.peers[0].run(["timeout", "30", "iperf3", "-c", ADDR, "-t", "1", "-P", "2", "-R"], check=False,
                         timeout=40)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "receiver" in r.stdout and "sender" in r.stdout and "iperf Done." in r.stdout


def test_bidir(lab):
    """--bidir -P 2: two streams each way at once. What the client sent is
    what we count; what we sent arrives (the client stops reading at its
    TEST_END, so it may have read less than we report acknowledged)."""
    rc, res, r = iperf3(lab.peers[0], "-t", "2", "--bidir", "-P", "2")
    assert rc == 0, r.stdout + r.stderr
    end = res["end"]
    sent, received, _ = summary(res)
    back_sent, back_received = end["sum_sent_bidir_reverse"]["bytes"], end["sum_received_bidir_reverse"]["bytes"]
    print(f"--bidir: to us {sent} sent, {received} received; from us {back_sent} sent, {back_received} received")
    assert len(end["streams"]) == 4
    assert received == sent > 0
    assert 0 < back_received <= back_sent
    assert all(s["receiver"]["bytes"] > 0 for s in end["streams"])
    r = lab.peers[0].run(["timeout", "30", "iperf3", "-c", ADDR, "-t", "1", "--bidir", "--get-server-output"],
                         check=False, timeout=40)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "][RX-S]" in r.stdout and "][TX-S]" in r.stdout


def test_udp_refused(lab):
    t0 = time.monotonic()
    r = lab.peers[0].run(["timeout", "20", "iperf3", "-c", ADDR, "-u", "-t", "1"], check=False, timeout=30)
    print((r.stdout + r.stderr).strip().splitlines()[-1])
    assert r.returncode not in (0, 124), r.stdout + r.stderr
    assert "not implemented" in r.stdout + r.stderr
    assert time.monotonic() - t0 < 15


TX_RING = 256  # QEMU's virtio-net default queue size


def test_nothing_left(lab):
    """After the tests (module order: last), no test and no connection is
    left, and every buffer is back: but for what the TX rings still hold
    (virtio-net's driver reclaims sent buffers only when it needs the room),
    which is the same after more tests, not more. (Either way: buffers on
    the rings at the baseline may have come back since.)"""
    m = lab.machine
    deadline = time.monotonic() + 20
    while True:
        st = m.json("show iperf3 json")
        if (st["connections"] == 0 and st["active"] == 0) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    free = free_buffers(m)
    print(f"iperf3: {st}, free buffers {free} (at start {lab.baseline})")
    assert st["connections"] == 0 and st["active"] == 0
    assert st["bad"] == 0
    assert all(abs(b - f) <= TX_RING for b, f in zip(lab.baseline, free))
    for _ in range(3):
        for extra in ([], ["-R"], ["--bidir"]):
            rc, _, r = iperf3(lab.peers[0], "-t", "1", "-P", "2", *extra)
            assert rc == 0, r.stdout + r.stderr
    time.sleep(1)
    assert m.json("show iperf3 json")["connections"] == 0
    again = free_buffers(m)
    print(f"after 9 more tests: free buffers {again}")
    assert all(abs(b - f) <= TX_RING for b, f in zip(lab.baseline, again))
    assert all(p["alloc-fail"] == 0 for p in m.json("show buffers json")["pools"])
