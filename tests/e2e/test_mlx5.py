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
traffic flows."""
import os
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402
from netlab import qemu  # noqa: E402
from test_igb import igb_lab, run_router, spread_flows  # noqa: E402,F401  (igb_lab: the fixture)
from test_xconnect import Qmp  # noqa: E402

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
