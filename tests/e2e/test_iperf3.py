# SPDX-License-Identifier: MIT
"""tests/e2e/test_iperf3.py: `app iperf3` against Linux's stock iperf3
client (apps/iperf3.c): normal mode, reverse (-R), both at once
(--bidir) and four parallel streams (-P 4, spread by RSS over two cores),
each with -J output that parses and byte counts that agree; UDP (-u) in
each mode, over IPv4 and IPv6, at the bitrate asked for; afterwards
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

ADDR, ADDR6 = "10.7.0.1", "2001:db8:7::1"
CONF = (f"hostname t1\ninterface eth0 address {ADDR}/24\ninterface eth0 address {ADDR6}/64\n"
        "app iperf3 port 5201\n")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.fixture(scope="module")
def lab(iso, tmp_path_factory):
    d = tmp_path_factory.mktemp("iperf3")
    conf, out = d / "iperf3.conf", d / "iperf3.iso"
    conf.write_text(CONF)
    subprocess.run([os.path.join(ROOT, "tools", "mkiso"), str(conf), str(out)], check=True, timeout=120)
    lab = netlab.Lab("test_iperf3", [netlab.Peer(addrs=["10.7.0.2/24", "2001:db8:7::2/64"])], iso=str(out), queues=2, smp=2,
                     extra=["-global", "virtio-net-pci.rss=on"])
    lab.start()
    peer, m = lab.peers[0], lab.machine
    peer.run(["ping", "-c", "1", "-W", "5", ADDR], timeout=10)  # ARP both ways
    lab.baseline = free_buffers(m)
    yield lab
    lab.close()


def free_buffers(m):
    return [p["free"] for p in m.json("show buffers json")["pools"]]


def settled_free(m, baseline):
    """Each pool's free buffers once within an RX top-up of baseline (or
    after netlab.buffers_settled's timeout)."""
    total = [p["total"] for p in m.json("show buffers json")["pools"]]
    pools = netlab.buffers_settled(m, lambda held: all(
        abs(t - h - b) <= netlab.VIRTIO_RX_SLACK for t, h, b in zip(total, held, baseline)))
    return [p["free"] for p in pools]


def iperf3(peer, *args, timeout=60, addr=ADDR):
    r = peer.run(["timeout", str(timeout), "iperf3", "-c", addr, "-J", *args], check=False, timeout=timeout + 10)
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


def test_bytes_instead_of_time(lab):
    """-n: the client sends "time": 0 and ends the test itself once the
    bytes are sent; the server has no deadline of its own but idleness."""
    rc, res, r = iperf3(lab.peers[0], "-n", "30M")
    assert rc == 0, r.stdout + r.stderr
    sent, received, _ = summary(res)
    assert received == sent >= 30 << 20, (sent, received)


def test_omit(lab):
    """-O 1: the first second is left out of our counts as of the client's,
    which then agree over the -t seconds (but for what moved while the
    client's TEST_RUNNING was on its way: our clocks start apart)."""
    rc, res, r = iperf3(lab.peers[0], "-O", "1", "-t", "2")
    assert rc == 0, r.stdout + r.stderr
    sent, received, _ = summary(res)
    seconds = res["end"]["sum_received"]["seconds"]
    print(f"-O 1 -t 2: sent {sent} received {received} bytes over {seconds:.2f} s")
    assert sent > 0 and abs(received - sent) < sent / 50
    assert 1.8 < seconds < 2.3


def test_reverse(lab):
    rc, res, r = iperf3(lab.peers[0], "-t", "2", "-R")
    assert rc == 0, r.stdout + r.stderr
    assert res["start"]["test_start"]["reverse"] == 1
    sent, received, bps = summary(res)
    print(f"reverse: sent {sent} received {received} bytes, {bps / 1e6:.1f} Mbit/s")
    # The client counts what it read before its TEST_END; what was in flight
    # then (our send queue, its socket buffer) arrives late, uncounted.
    assert 0 < received <= sent


def test_reverse_bitrate(lab):
    # -b paces what we send, per stream as iperf3 does: at 20 Mbit/s for
    # 2 s, two streams send about 10 MB (unpaced, this link carries far
    # more). A bound on bytes, not on time: a slow machine only sends less.
    rc, res, r = iperf3(lab.peers[0], "-t", "2", "-R", "-P", "2", "-b", "20M")
    assert rc == 0, r.stdout + r.stderr
    sent, received, bps = summary(res)
    print(f"-R -b 20M -P 2: sent {sent} received {received} bytes, {bps / 1e6:.1f} Mbit/s")
    assert 0 < received <= sent <= 2 * 20e6 / 8 * 2.5


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


# The datagrams may reach one core's queue and TEST_END the other's: under TCG
# on a loaded 2-core host one vCPU runs up to tens of milliseconds behind the
# other (10 datagrams at 20 Mbit/s, 5.8 ms, were once counted late).
LATE_S = 0.05
late_datagrams = [0]  # so far, in this module: after their test is gone they are strays


def udp_sums(res):
    end = res["end"]
    return end["sum_sent"], end["sum_received"]


def counted_all_but_late(sent, got):
    """What we counted is what the client sent, but for the datagrams of its
    last LATE_S (arriving after its TEST_END, counted by no iperf3 server), and
    no gap in the sequence. Keeps the tally of those late ones."""
    late = max(8, sent["packets"] * LATE_S / sent["seconds"])
    late_datagrams[0] += max(0, sent["packets"] - got["packets"])
    return sent["packets"] - late <= got["packets"] <= sent["packets"] and got["lost_packets"] == 0


@pytest.mark.parametrize("addr", [ADDR, ADDR6])
def test_udp(lab, addr):
    """-u -b 20M: the datagrams the client sent are the ones we count (none
    lost on a tap), at the rate asked for, with a jitter. Those still on
    their way when the client's TEST_END comes are not counted (nor are
    they by iperf3's own server), and not lost either."""
    rc, res, r = iperf3(lab.peers[0], "-u", "-b", "20M", "-t", "2", addr=addr)
    assert rc == 0, r.stdout + r.stderr
    sent, got = udp_sums(res)
    print(f"-u {addr}: sent {sent['packets']} datagrams, we got {got['packets']} "
          f"({got['lost_packets']} lost), jitter {got['jitter_ms']:.3f} ms, {got['bits_per_second'] / 1e6:.1f} Mbit/s")
    assert counted_all_but_late(sent, got), (sent, got)
    assert sent["packets"] > 1000
    assert 15e6 < got["bits_per_second"] < 25e6
    assert got["jitter_ms"] > 0


def test_udp_reverse(lab):
    """-u -R -b 20M: we send at the bitrate asked for, numbered, and the
    client finds no gap (what was in flight at the end arrives late)."""
    rc, res, r = iperf3(lab.peers[0], "-u", "-R", "-b", "20M", "-t", "2")
    assert rc == 0, r.stdout + r.stderr
    sent, got = udp_sums(res)
    print(f"-u -R: we sent {sent['packets']} datagrams at {sent['bits_per_second'] / 1e6:.1f} Mbit/s, "
          f"the client got {got['packets']} ({got['lost_packets']} lost), jitter {got['jitter_ms']:.3f} ms")
    assert 15e6 < sent["bits_per_second"] < 25e6
    assert 0 < got["packets"] <= sent["packets"] and got["lost_packets"] == 0


def test_udp_parallel_bidir(lab):
    """-u --bidir -P 2 and -u -P 4 (streams on both cores), datagrams of
    8000 bytes (fragmented both ways) with 64-bit counters; our text too."""
    rc, res, r = iperf3(lab.peers[0], "-u", "--bidir", "-P", "2", "-b", "5M", "-t", "2", "-l", "8000",
                        "--udp-counters-64bit")
    assert rc == 0, r.stdout + r.stderr
    end = res["end"]
    sent, got = udp_sums(res)
    back = end["sum_received_bidir_reverse"]
    print(f"-u --bidir -P 2: to us {sent['packets']} sent, {got['packets']} got; from us {back['packets']} got, "
          f"{back['lost_packets']} lost")
    assert counted_all_but_late(sent, got), (sent, got)
    assert back["packets"] > 0 and back["lost_packets"] == 0
    rc, res, r = iperf3(lab.peers[0], "-u", "-P", "4", "-b", "5M", "-t", "1")
    assert rc == 0, r.stdout + r.stderr
    sent, got = udp_sums(res)
    assert counted_all_but_late(sent, got), (sent, got)
    r = lab.peers[0].run(["timeout", "30", "iperf3", "-c", ADDR, "-u", "-t", "1", "--get-server-output"],
                         check=False, timeout=40)
    late_datagrams[0] += 8  # as counted_all_but_late allows; the text gives no count
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Jitter    Lost/Total Datagrams" in r.stdout.split("Server output:")[1]


def test_nothing_left(lab):
    """After the tests (module order: last), no test and no connection is
    left, and every buffer is back but for what an RX ring may lack before
    its next top-up: the same after more tests, not more. No stray
    datagram, but for UDP tests' late ones that came after their test."""
    m = lab.machine
    deadline = time.monotonic() + 20
    while True:
        st = m.json("show iperf3 json")
        if (st["connections"] == 0 and st["active"] == 0) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    free = settled_free(m, lab.baseline)
    print(f"iperf3: {st}, free buffers {free} (at start {lab.baseline})")
    assert st["connections"] == 0 and st["active"] == 0
    assert st["bad"] == 0 and st["udp-stray"] <= late_datagrams[0], (st, late_datagrams)
    assert all(abs(b - f) <= netlab.VIRTIO_RX_SLACK for b, f in zip(lab.baseline, free))
    for _ in range(3):
        for extra in ([], ["-R"], ["--bidir"], ["-u", "-R", "-b", "5M"]):
            rc, _, r = iperf3(lab.peers[0], "-t", "1", "-P", "2", *extra)
            assert rc == 0, r.stdout + r.stderr
    time.sleep(1)
    assert m.json("show iperf3 json")["connections"] == 0
    again = settled_free(m, lab.baseline)
    print(f"after 12 more tests: free buffers {again}")
    assert all(abs(b - f) <= netlab.VIRTIO_RX_SLACK for b, f in zip(lab.baseline, again))
    assert all(p["alloc-fail"] == 0 for p in m.json("show buffers json")["pools"])
