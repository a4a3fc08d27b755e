# SPDX-License-Identifier: MIT
"""tests/e2e/test_mlx5.py: hayate as a two-port router on ConnectX-4 ports,
the command-level model of our QEMU build (`make qemu`,
qemu/hw/net/mlx5/, which answers the bring-up as a real card's firmware
did), each port behind a PCIe root port of its own, driven by
drivers/mlx5/. The router pass of the igb and ixgbe tests (test_igb.py:
pings, curls through and from the router over IPv4 and IPv6, TSO and
checksum offload with every checksum checked on the wire, a forwarding
burst, every buffer back), with -smp 1 and 2 (RSS over two queue pairs
through the RQT and the TIRs). Then the canary (`show mlx5 json`: the
recorded card's firmware, capabilities and page counts; no command or
completion error), the model's strict checks (`-d guest_errors`: none
broken), and the firmware asking for pages and giving them back while
traffic flows. Then jumbo frames (test_jumbo.py's checks on three mlx5
ports: receive WQEs of several buffers, a chain sent as one WQE)."""
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402
import netlab as nl  # noqa: E402  (the module, where a test's `netlab` is the fixture)
from netlab import qemu  # noqa: E402
from test_igb import igb_lab, run_router, spread_flows  # noqa: E402,F401  (igb_lab: the fixture)
from test_xconnect import Qmp  # noqa: E402
from test_ecmp import three_ports  # noqa: E402

pytestmark = [pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable())),
              pytest.mark.skipif(qemu.own_qemu_missing() is not None, reason=str(qemu.own_qemu_missing()))]


def mlx5_lab(igb_lab, tmp_path, smp, model="mlx5"):
    log, sock = tmp_path / "qemu-guest-errors.log", str(tmp_path / "qmp.sock")
    lab = igb_lab(smp=smp, model=model, extra=["-d", "guest_errors", "-D", str(log),
                                               "-qmp", f"unix:{sock},server=on,wait=off"])
    return lab, log, sock


def check_canary(m, log, vf=False):
    """The boot line and `show mlx5 json` say what the model answered,
    which is what the recorded ConnectX-4 answered (a VF: the model's own
    page counts); nothing failed."""
    kind = "ConnectX-4 VF" if vf else "ConnectX-4"
    assert re.search(rf"mlx5 0[12]:00\.0: mlx5: {kind} firmware 14\.12\.1220, cmdif 5, ISSI 1", m.log), m.tail()
    ports = m.json("show mlx5 json")["ports"]
    assert [p["name"] for p in ports] == ["eth0", "eth1"], ports
    for p in ports:
        assert p["model"] == "ConnectX-4" and p["vf"] is vf and p["firmware"] == "14.12.1220", p
        assert p["pci_id"] == ("15b3:1014" if vf else "15b3:1013"), p
        assert p["cmdif_rev"] == 5 and p["issi"] == 1 and p["caps"]["port_type"] == 1, p
        assert (p["pages"]["boot"], p["pages"]["init"]) == ((4, 1024) if vf else (6, 12868)), p["pages"]
        assert p["command_errors"] == 0 and p["command_timeouts"] == 0 and p["cqe_errors"] == 0, p
        assert p["health_syndrome"] == 0 and p["vport_state"] == 1, p
    strict = [line for line in log.read_text().splitlines() if line.startswith("mlx5")] if log.exists() else []
    assert not strict, strict[:20]


def test_mlx5_router(igb_lab, tmp_path, report):
    lab, log, _ = mlx5_lab(igb_lab, tmp_path, smp=1)
    m = run_router(lab, tmp_path, report, smp=1, driver="mlx5")
    check_canary(m, log)


def test_mlx5_router_smp2(igb_lab, tmp_path, report):
    """Two cores, two queue pairs: the RQT over both RQs, the TIRs' Toeplitz hash."""
    lab, log, _ = mlx5_lab(igb_lab, tmp_path, smp=2)
    m = run_router(lab, tmp_path, report, smp=2, driver="mlx5")
    per_queue = spread_flows(m, lab.peers[0], "10.0.0.1")
    check_canary(m, log)
    report(f"mlx5 -smp 2: eth0 RX per queue {per_queue}")


def test_mlx5_page_requests_while_traffic_flows(igb_lab, tmp_path, report):
    """The firmware asks for 300 more pages, then gives 200 back, while a
    curl runs through: hayate gives and takes them from its status poll
    (the page-request events of its EQ), and the transfer is whole."""
    lab, log, sock = mlx5_lab(igb_lab, tmp_path, smp=1)
    m = lab.machine
    left = lab.peers[0]
    qmp = Qmp(sock)
    try:
        before = m.json("show mlx5 json")["ports"][0]["pages"]
        n = 16 << 20
        curl = left.popen(["bash", "-c", f"curl -sS --max-time 120 http://10.0.0.1/bytes/{n} | sha256sum"],
                          stdout=subprocess.PIPE, text=True)
        time.sleep(1)  # the transfer under way
        qmp.execute("qom-set", path="/machine/peripheral/nic0", property="page-request", value=300)
        time.sleep(1)
        qmp.execute("qom-set", path="/machine/peripheral/nic0", property="page-request", value=-200)
        out = curl.communicate(timeout=150)[0]
        assert curl.returncode == 0 and out.split()[0] == netlab.pattern_sha256(n), out
        deadline = time.monotonic() + 10
        while True:
            after = m.json("show mlx5 json")["ports"][0]["pages"]
            if after["taken"] - before["taken"] == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert after["given"] - before["given"] == 300 and after["taken"] - before["taken"] == 200, (before, after)
        assert after["requests"] - before["requests"] == 2 and after["held"] == before["held"] + 200, (before, after)
    finally:
        qmp.sock.close()
    check_canary(m, log)
    report(f"mlx5 page requests under traffic: +300 given, 200 taken back, {after['held']} held for the firmware")


def test_mlx5_vf_router(igb_lab, tmp_path, report):
    """hayate as a guest on two ConnectX-4 VFs (the model's VF mode, its
    host's trust not given): the same router pass. A VF has no port
    registers (the driver asks none) and its eswitch passes it only the
    multicast MACs of its vport's list, so neighbour discovery works only
    because the driver lists every group it joins."""
    lab, log, _ = mlx5_lab(igb_lab, tmp_path, smp=1, model="mlx5,vf=on")
    m = run_router(lab, tmp_path, report, smp=1, driver="mlx5")
    check_canary(m, log, vf=True)
    for p in m.json("show mlx5 json")["ports"]:
        assert p["speed_mbps"] == 0 and p["port_max_mtu"] == 0, p  # no PTYS nor PMTU on a VF
        assert p["vport_mtu"] == 1522 and p["rq_wqe_buffers"] == 1, p  # the host's MTU: 1500, no jumbo frames
    assert all(i["max-mtu"] == 1500 for i in m.json("show interfaces json")["interfaces"])


def test_mlx5_vf_untrusted_refuses_promiscuous(igb_lab, mkiso, request, tmp_path):
    """An xconnect needs promiscuous ports; an untrusted VF's host refuses
    that: the port is named at boot, and the canary keeps the refusal."""
    lab = netlab.Lab(request.node.name, [netlab.Peer(), netlab.Peer()], iso=mkiso("hostname x1\nxconnect eth0 eth1\n"),
                     model="mlx5,vf=on")
    try:
        m = lab.start()
        assert "eth0 (mlx5) takes only frames to its own MAC: others will not cross" in m.log, m.tail()
        p = m.json("show mlx5 json")["ports"][0]
        assert p["last_error"]["command"] == "MODIFY_NIC_VPORT_CONTEXT" and p["last_error"]["status"] == 3, p
    finally:
        lab.close()


JUMBO_CONF = "\n".join([
    "hostname r1",
    "interface eth0 address 10.0.0.1/24", "interface eth0 address 2001:db8:a::1/64", "interface eth0 mtu 9000",
    "interface eth1 address 10.0.1.1/24", "interface eth1 address 2001:db8:b::1/64", "interface eth1 mtu 9000",
    "interface eth2 address 10.0.2.1/24", "interface eth2 address 2001:db8:c::1/64",
]) + "\n"
RQ_RING = 16384  # drivers/mlx5/mlx5_rxtx.c RQ_BYTES: an RQ's WQEs fill 16 KiB, whatever their stride


def ping(peer, dst, size, df=True, count=3):
    argv = ["ping", "-6" if ":" in dst else "-4", "-c", str(count), "-i", "0.3", "-W", "3", "-s", str(size),
            "-M", "do" if df else "dont", dst]
    r = peer.run(argv, check=False, timeout=60)
    got = [int(ln.split(",")[1].split()[0]) for ln in r.stdout.splitlines() if "received" in ln]
    return (got[0] if got else 0), r.stdout + r.stderr


def test_mlx5_jumbo(netlab, tmp_path, report):
    """Jumbo frames on ConnectX-4 ports: A on eth0 and B on eth1 at MTU
    9000, C on eth2 at 1500. `interface ethN mtu 9000` makes the driver set
    the port's PMTU and the vport's MTU and bring the function up again
    with receive WQEs of five buffers (a frame scattered over them, chained
    by byte_cnt); a jumbo frame leaves as one send WQE of a data segment a
    buffer. 9000-byte pings with DF cross A to B (IPv4 and IPv6) and a
    10 MiB HTTP transfer at MTU 9000; C's port answers frag needed / too
    big, and fragments without DF. A frame over the port's MTU goes no
    further than the model's MAC (counted there). Every buffer comes back
    (an RQ holds 5 a WQE on a jumbo port, 1 on the other), and no command,
    completion or strict rule failed."""
    log, sock = tmp_path / "qemu-guest-errors.log", str(tmp_path / "qmp.sock")
    lab = three_ports(netlab, JUMBO_CONF, model="mlx5",
                      extra=["-d", "guest_errors", "-D", str(log), "-qmp", f"unix:{sock},server=on,wait=off"])
    m = lab.machine
    a, b, c = lab.peers
    for p in (a, b):
        p.ip(f"link set {p.tap} mtu 9000")
    assert not [ln for ln in m.log.splitlines() if ln.startswith("config: line")], m.tail()
    for i in (0, 1):
        assert f"eth{i}: mtu 9000: receive WQEs of 5 buffers" in m.log, m.tail()
    ifs = {i["name"]: i for i in m.json("show interfaces json")["interfaces"]}
    assert [ifs[f"eth{i}"]["mtu"] for i in range(3)] == [9000, 9000, 1500], ifs
    assert all(ifs[f"eth{i}"]["max-mtu"] == 9216 for i in range(3)), ifs  # PMTU max_mtu 9978 - 26, NETDEV_MTU_MAX
    ports = {p["name"]: p for p in m.json("show mlx5 json")["ports"]}
    for name, mtu, bufs, wqe in (("eth0", 9000, 5, 128), ("eth1", 9000, 5, 128), ("eth2", 1500, 1, 16)):
        p = ports[name]
        assert (p["mtu"], p["vport_mtu"], p["rq_wqe_buffers"], p["rq_wqe_bytes"]) == (mtu, mtu + 26, bufs, wqe), p
    for dst in ("10.0.1.2", "2001:db8:b::2", "10.0.2.2", "2001:db8:c::2"):  # neighbours resolved
        ping(a, dst, 56, count=1)
    fast0 = m.json("show stats json")["counters"]["fwd-fast"]

    for dst, size in (("10.0.1.2", 8972), ("2001:db8:b::2", 8952)):
        got, out = ping(a, dst, size)
        assert got == 3, out
    fast = m.json("show stats json")["counters"]["fwd-fast"] - fast0
    assert fast >= 12, fast  # 3 echoes and 3 replies a family, on the fast path
    secs = nl.curl_through(a, b, tmp_path, mb=10, timeout=120)

    got, out = ping(a, "10.0.2.2", 8972)
    assert got == 0 and ("mtu = 1500" in out or "mtu=1500" in out), out
    got, out = ping(a, "2001:db8:c::2", 8952)
    assert got == 0 and ("mtu = 1500" in out or "mtu=1500" in out or "too big" in out.lower()), out
    a.run(["ip", "route", "flush", "cache"], check=False)
    got, out = ping(a, "10.0.2.2", 8972, df=False)
    assert got == 3, out
    fwd = m.json("show stats json")["counters"]
    assert fwd["fwd-frag-needed"] >= 1 and fwd["fwd-fragmented"] >= 3, fwd

    # over the port's MTU (PMTU 9026: the IP MTU, Ethernet, two tags, FCS):
    # the model's MAC drops it, as a real port does
    qmp = Qmp(sock)
    try:
        too_long0 = qmp.execute("qom-get", path="/machine/peripheral/nic0", property="rx-frame-too-long")["return"]
        a.ip(f"link set {a.tap} mtu 9100")
        got, out = ping(a, "10.0.1.2", 9072, count=2)
        a.ip(f"link set {a.tap} mtu 9000")
        too_long = qmp.execute("qom-get", path="/machine/peripheral/nic0", property="rx-frame-too-long")["return"]
    finally:
        qmp.sock.close()
    assert got == 0 and too_long - too_long0 == 2, (out, too_long0, too_long)

    for i in m.json("show interfaces json")["interfaces"]:
        assert i["driver"] == "mlx5" and i["link"] is True and i["counters"]["rx-error"] == 0, i
    ports = m.json("show mlx5 json")["ports"]
    for p in ports:
        assert p["command_errors"] == 0 and p["cqe_errors"] == 0 and p["resets"] == 0, p
        assert p["counters"]["tx-offload-bad"] == 0, p
    want = [sum(p["rq_wqe_buffers"] * RQ_RING // p["rq_wqe_bytes"] for p in ports)]  # 640 + 640 + 1024
    pools = nl.buffers_settled(m, lambda held: held == want)
    held = [p["total"] - p["free"] for p in pools]
    assert held == want == [2304], f"buffers out of the pools {held}, RQs hold {want}"
    assert all(p["alloc-fail"] == 0 for p in pools), pools

    # a reset (as the health watch does) keeps the MTU: the RQs made again
    # of five-buffer WQEs, every buffer of the old ones back
    assert "eth0: reset, link up" in m.cmd("debug mlx5-reset eth0", timeout=60)
    p0 = m.json("show mlx5 json")["ports"][0]
    assert (p0["resets"], p0["mtu"], p0["rq_wqe_buffers"], p0["vport_mtu"]) == (1, 9000, 5, 9026), p0
    got, out = ping(a, "10.0.1.2", 8972)
    assert got == 3, out
    pools = nl.buffers_settled(m, lambda held: held == want)
    assert [p["total"] - p["free"] for p in pools] == want, pools
    strict = [line for line in log.read_text().splitlines() if line.startswith("mlx5")] if log.exists() else []
    assert not strict, strict[:20]
    report(f"mlx5 jumbo frames: 9000-byte pings crossed on the fast path ({fast} frames), 10 MiB over HTTP at MTU "
           f"9000 in {secs:.1f}s; RQ WQEs of 5 buffers on the jumbo ports; 1500-byte port: frag needed / too big, "
           f"{fwd['fwd-fragmented']} datagrams fragmented; frames over PMTU dropped at the port; {held[0]} buffers "
           f"held, as the RQs post")
