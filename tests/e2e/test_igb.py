# SPDX-License-Identifier: MIT
"""tests/e2e/test_igb.py: hayate as a two-port router on Intel 82576 (igb)
NICs, QEMU's `-device igb` (drivers/intel/igb.c). Each port's tap sits in
a namespace of its own; traffic goes only to addresses inside them.

One lab per test, in one pass: ping through the router both ways and to
the router, 10 MB curled through it (sha256 checked), 4 MB over IPv6,
4 MB over IPv6 from the router's own server on each port (TSO6), `app http` on the
router curled from a peer, a burst of 64-byte frames for the forwarding
figure, then the buffer and interface checks. Again with -smp 2.

TX offloads (`check_tx_offloads`): 20 MB from `app http` on each port
(bytes i % 251 checked) leave as TSO frames, UDP echoes with their
checksum offloaded, pings; the driver's `show igb` counters must show
TSO frames (as many as the stack made) cut into segments, checksums done
by the device and almost no context descriptors. Every TCP, UDP and ICMP
frame the router sends during a short curl and the echoes is captured on
the peer's tap and its checksums checked: QEMU hands a tap with vnet
headers the frame with a partial checksum (the pseudo-header sum the
driver left in the field), which Linux then trusts without looking."""
import hashlib
import os
import re
import struct
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402
import nsraw  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))
scapy = pytest.importorskip("scapy.all")
from scapy.all import IP, UDP, Ether  # noqa: E402

CONF = """hostname r1
interface eth0 address 10.0.0.1/24
interface eth0 address 2001:db8::1/64
interface eth1 address 10.0.1.1/24
interface eth1 address 2001:db8:1::1/64
app http port 80
app udp-echo port 7
"""
RX_RING = 512  # drivers/intel/igb_dev.h IGB_RX_RING: each RX queue holds RX_RING - 1 buffers when full
MAX_QUEUES = 8  # drivers/intel/igb.c IGB_MAX_PAIRS: one pair a core
RX_HELD = {"mlx5": 1024}  # drivers/mlx5/mlx5_rxtx.c RQ_SIZE: an RQ holds a buffer in each WQE


@pytest.fixture
def igb_lab(mkiso, request, record_ready):
    labs = []

    def start(smp=1, model="igb", extra=()):
        peers = [netlab.Peer(addrs=[f"10.0.{i}.2/24", f"2001:db8:{i}::2/64"],
                             routes=[f"default via 10.0.{i}.1", f"default via 2001:db8:{i}::1"]) for i in range(2)]
        lab = netlab.Lab(request.node.name, peers, iso=mkiso(CONF), model=model, smp=smp, extra=extra)
        labs.append(lab)
        lab.start(ready=False)
        record_ready(lab.machine)
        return lab

    yield start
    for lab in labs:
        lab.close()


def interfaces(m):
    return m.json("show interfaces json")["interfaces"]


def mac_of(peer):
    out = peer.ip(f"-j link show {peer.tap}").stdout
    return re.search(r'"address":"([0-9a-f:]{17})"', out).group(1)


def forward_burst(m, left, right, frames=5000, ports=(0, 1)):
    """64-byte UDP frames offered faster than TCG forwards them, from left
    into port ports[0] and out of ports[1] to right: the rate at which they
    arrive, and the out port's TX doorbells per packet."""
    src, dst = left.addr(), right.addr()
    left.run(f"ping -c 1 -W 2 {dst}", timeout=20)
    into, out = ports
    frame = bytes(Ether(dst=interfaces(m)[into]["mac"], src=mac_of(left)) /
                  IP(src=src, dst=dst) / UDP(sport=7777, dport=9) / (b"\0" * 18))
    tx = nsraw.raw_socket(left.ns, left.tap)
    rx = nsraw.raw_socket(right.ns, right.tap, rcvbuf=64 << 20)
    rx.setblocking(False)
    before = interfaces(m)
    times = []
    keep = lambda f: times.append(time.monotonic()) if len(f) >= 42 and f[34:36] == b"\x1e\x61" else None
    for _ in range(frames // 100):
        for _ in range(100):
            tx.send(frame)
        nsraw.drain(rx, keep)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        nsraw.drain(rx, keep)
        time.sleep(0.01)
    tx.close()
    rx.close()
    after = interfaces(m)
    tx1 = after[out]["counters"]["tx-packets"] - before[out]["counters"]["tx-packets"]
    bells = after[out]["counters"]["tx-doorbells"] - before[out]["counters"]["tx-doorbells"]
    rx0 = after[into]["counters"]["rx-packets"] - before[into]["counters"]["rx-packets"]
    assert len(times) > frames // 10 and tx1 >= len(times) and rx0 >= len(times)  # tx1 may hold a reply or two
    rate = (len(times) - 1) / (times[-1] - times[0])
    return len(times), rx0, rate, bells / max(tx1, 1)


def check_buffers_and_counters(m, smp, driver):
    """Every buffer is in its core's pool or posted to an RX ring (full
    again once traffic stops); TX rings are empty by then."""
    ifs = interfaces(m)
    for i in ifs:
        assert i["driver"] == driver and i["link"] is True, i
        assert i["queues"] == min(smp, MAX_QUEUES), i
        c = i["counters"]
        assert c["rx-packets"] > 0 and c["tx-packets"] > 0 and c["rx-error"] == 0, c
        assert i["offloads"]["rss"] is (smp > 1) and i["offloads"]["rx-csum"] is True, i["offloads"]
        assert i["offloads"]["tx-csum"] is True and i["offloads"]["tso4"] is i["offloads"]["tso6"] is True, i["offloads"]
    per_ring = RX_HELD.get(driver, RX_RING - 1)
    want = [len(ifs) * per_ring if core < MAX_QUEUES else 0 for core in range(smp)]  # core q: queue q
    pools = netlab.buffers_settled(m, lambda held: held == want, timeout=5)
    held = [p["total"] - p["free"] for p in pools]
    assert held == want, f"buffers out of the pools {held}, RX rings hold {want}"
    assert all(p["alloc-fail"] == 0 for p in pools), pools


def driver_counters(m, driver):
    """`show igb json` (or ixgbe's): port name -> the ring code's TX offload
    counters."""
    return {p["name"]: p["counters"] for p in m.json(f"show {driver} json")["ports"]}


def ones_sum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def check_frame_csums(frame):
    """An IPv4 frame from the router (no VLAN): the IP header checksum
    holds, and an ICMP checksum holds; a TCP or UDP checksum field holds
    either the final checksum or, where QEMU passed the checksum on to the
    tap's Linux as partial, the pseudo-header sum with the length. Returns
    the L4 protocol."""
    assert frame[12:14] == b"\x08\x00", frame[:14].hex()
    ihl = (frame[14] & 15) * 4
    ip = frame[14:14 + ihl]
    tot = struct.unpack("!H", ip[2:4])[0]
    assert ones_sum(ip) == 0xffff, f"IP header checksum: {ip.hex()}"
    proto, l4 = ip[9], frame[14 + ihl:14 + tot]
    if proto == 1:
        assert ones_sum(l4) == 0xffff, f"ICMP checksum: {l4[:8].hex()}"
    elif proto in (6, 17):
        off = 16 if proto == 6 else 6
        field = struct.unpack("!H", l4[off:off + 2])[0]
        pseudo = ones_sum(ip[12:20] + struct.pack("!BBH", 0, proto, len(l4)))
        zeroed = l4[:off] + b"\0\0" + l4[off + 2:]
        final = 0xffff - ones_sum(struct.pack("!H", pseudo) + zeroed)
        assert field in {final, pseudo} | ({0xffff} if final == 0 else set()), \
            f"proto {proto}: checksum field {field:#06x}, want {final:#06x} or partial {pseudo:#06x}"
    return proto


def udp_echo(peer, addr, payload):
    r = peer.run(["bash", "-c", f"printf '%s' '{payload}' | timeout 3 nc -u -w 1 {addr} 7"], check=False, timeout=10)
    return r.stdout


def check_tx_offloads(m, lab, report, smp, driver):
    """TSO and checksum offload on both ports: data, counters, checksums."""
    left, right = lab.peers
    routers = {"eth0": "10.0.0.1", "eth1": "10.0.1.1"}
    before, stats0 = driver_counters(m, driver), m.json("show stats json")["counters"]
    n = 20 << 20
    for peer, addr in zip((left, right), routers.values()):
        r = peer.run(["bash", "-c", f"curl -sS --max-time 120 http://{addr}/bytes/{n} | sha256sum"], timeout=150)
        assert r.stdout.split()[0] == netlab.pattern_sha256(n), f"/bytes/{n} from {addr}"
    # A short curl, UDP echoes (short ones padded to 60 bytes by the stack)
    # and pings, every frame the router sends captured on left's tap.
    rx = nsraw.raw_socket(left.ns, left.tap, rcvbuf=32 << 20)
    rx.setblocking(False)
    frames = []
    r = left.run(["bash", "-c", "curl -sS --max-time 20 http://10.0.0.1/bytes/300000 | sha256sum"], timeout=30)
    assert r.stdout.split()[0] == netlab.pattern_sha256(300000)
    for payload in ("hi", "x" * 40, "y" * 1400):
        assert udp_echo(left, "10.0.0.1", payload) == payload
    left.run("ping -c 3 -i 0.2 -W 2 10.0.0.1", timeout=20)
    time.sleep(0.2)
    router_mac = bytes.fromhex(next(i["mac"] for i in interfaces(m) if i["name"] == "eth0").replace(":", ""))
    nsraw.drain(rx, lambda f: frames.append(f) if f[6:12] == router_mac and f[12:14] == b"\x08\x00" else None)
    rx.close()
    protos = [check_frame_csums(f) for f in frames]
    assert protos.count(6) >= 5 and protos.count(17) == 3 and protos.count(1) >= 3, protos
    big = sum(1 for f in frames if len(f) > 1514)  # TSO frames QEMU passed on whole (vnet headers)

    after, stats1 = driver_counters(m, driver), m.json("show stats json")["counters"]
    d = {port: {k: after[port][k] - before[port][k] for k in after[port]} for port in routers}
    tso = sum(c["tx-tso-frames"] for c in d.values())
    assert tso == stats1["tcp-tso"] - stats0["tcp-tso"] and tso > 0, (d, stats1["tcp-tso"])
    for port, c in d.items():
        assert c["tx-tso-frames"] > 0 and c["tx-tso-segments"] >= 2 * c["tx-tso-frames"], (port, c)
        assert c["tx-csum-offload"] > 0 and c["tx-csum-software"] == 0 and c["tx-offload-bad"] == 0, (port, c)
        # Same-shape frames reuse a context slot: TCP/IPv4 and UDP/IPv4 need
        # one each on a queue, whatever the number of frames.
        assert c["tx-context-descriptors"] <= 4 * min(smp, MAX_QUEUES), (port, c)
    e0 = d["eth0"]
    report(f"{driver} TX offloads: eth0 sent {e0['tx-tso-frames']} TSO frames for {e0['tx-tso-segments']} segments "
           f"and {e0['tx-csum-offload']} checksummed frames with {e0['tx-context-descriptors']} context "
           f"descriptors; {len(frames)} frames captured, checksums right ({big} whole TSO frames)")


def check_tso6(m, lab, driver):
    """TCP over IPv6 from the router's own `app http`: TSO frames on both
    ports, the bytes right (a wrong prototype header would not be)."""
    before = driver_counters(m, driver)
    n = 4 << 20
    for peer, addr in zip(lab.peers, ("2001:db8::1", "2001:db8:1::1")):
        r = peer.run(["bash", "-c", f"curl -sS --max-time 60 'http://[{addr}]/bytes/{n}' | sha256sum"], timeout=90)
        assert r.stdout.split()[0] == netlab.pattern_sha256(n), f"/bytes/{n} from {addr}"
    after = driver_counters(m, driver)
    for port in ("eth0", "eth1"):
        frames = after[port]["tx-tso-frames"] - before[port]["tx-tso-frames"]
        assert frames > 0 and after[port]["tx-offload-bad"] == 0, (port, before[port], after[port])


def run_router(lab, tmp_path, report, smp, driver="igb"):
    left, right = lab.peers
    m = lab.machine
    assert re.search(rf"eth0: {driver} at .*link up", m.log), m.tail()
    left.run("ping -c 3 -i 0.2 -W 2 10.0.1.2", timeout=20)
    right.run("ping -c 3 -i 0.2 -W 2 10.0.0.2", timeout=20)
    left.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=20)
    right.run("ping -c 2 -i 0.2 -W 2 10.0.0.1", timeout=20)  # the far address is ours too
    elapsed = netlab.curl_through(left, right, tmp_path, timeout=120)
    # IPv6 through on the batched fast path (net/fwd/fwd6.c) with this driver's
    # receive flags and TX checksum offload.
    right.run("ping -6 -c 2 -i 0.2 -W 2 2001:db8::2", timeout=20)
    fast6 = m.json("show stats json")["counters"]["fwd-fast6"]
    netlab.curl_through(left, right, tmp_path, mb=4, timeout=120, addr_index=1)
    assert m.json("show stats json")["counters"]["fwd-fast6"] - fast6 > 1000
    r = right.run(["bash", "-c", "curl -sS --max-time 20 http://10.0.1.1/bytes/100000 | sha256sum"], timeout=30)
    want = hashlib.sha256(bytes(i % 251 for i in range(100000))).hexdigest()
    assert r.stdout.split()[0] == want
    check_tx_offloads(m, lab, report, smp, driver)
    check_tso6(m, lab, driver)
    intel = driver in ("igb", "ixgbe")  # mlx5 asks one completion a burst too (mlx5_rxtx.c), uncounted
    wb0 = driver_counters(m, driver)["eth1"]["tx-writebacks"] if intel else 0
    bells0 = interfaces(m)[1]["counters"]["tx-doorbells"]
    got, rx0, rate, bells = forward_burst(m, left, right)
    writebacks = ""
    if intel:
        wb = driver_counters(m, driver)["eth1"]["tx-writebacks"] - wb0
        bells_rung = interfaces(m)[1]["counters"]["tx-doorbells"] - bells0
        # One RS descriptor a burst (igb_rxtx.c tx_close), not one a frame:
        # as many write-backs asked as doorbells rung (give or take a frame
        # of the router's own, an ARP refresh, between the two reads). The
        # buffers all coming back (below) says the device's DD on those
        # alone completes every frame.
        assert abs(wb - bells_rung) <= 2 and 0 < wb < got / 10, (wb, bells_rung, got)
        writebacks = f" and {wb / got:.3f} descriptor write-backs"
    check_buffers_and_counters(m, smp, driver)
    report(f"{driver} router (-smp {smp}): curl 10 MB through hayate in {elapsed:.1f}s "
           f"({10 * 8 / elapsed:.1f} Mbit/s, TCG); forwarded {got} of 5000 offered 64-byte frames "
           f"({rx0} reached eth0) "
           f"at {rate:,.0f} packets/s, {bells:.3f} tx doorbells{writebacks} per packet")
    return m


def spread_flows(m, left, addr):
    """16 TCP flows from left to the router's addr: RSS spreads them over
    both queue pairs of eth0. Returns eth0's RX packets per queue."""
    for port in range(20000, 20016):
        r = left.run(["bash", "-c", f"curl -sS --local-port {port} --max-time 20 http://{addr}/bytes/1000 | wc -c"],
                     timeout=30)
        assert r.stdout.strip() == "1000"
    per_queue = [q["rx-packets"] for q in interfaces(m)[0]["per-queue"]]
    assert len(per_queue) == 2 and min(per_queue) > 0, per_queue
    return per_queue


def test_igb_router(igb_lab, tmp_path, report):
    lab = igb_lab()
    run_router(lab, tmp_path, report, smp=1)


def test_igb_router_smp2(igb_lab, tmp_path, report):
    """Two cores, two queue pairs, RSS: flows land on both cores, and core
    1 resolves its next hops although every ARP reply arrives on queue 0
    (core 0 passes what it learns on: kernel/netsvc/netsvc_neigh.c)."""
    lab = igb_lab(smp=2)
    m = run_router(lab, tmp_path, report, smp=2)
    per_queue = spread_flows(m, lab.peers[0], "10.0.1.1")
    c = m.json("show stats json")["counters"]
    assert c["arp-learned-remote"] > 0, c
    report(f"igb -smp 2: eth0 RX per queue {per_queue}, {c['arp-learned-remote']} ARP entries learned "
           f"from the other core")
