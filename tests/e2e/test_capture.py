# SPDX-License-Identifier: MIT
"""tests/e2e/test_capture.py: packet capture (kernel/netsvc/capture.c) on
the real image in QEMU, with host A on eth0 and host B on eth1.

- The console: `capture eth0 rx count 3 match proto icmp` prints a line
  for each of A's pings to B, as tcpdump would, then its summary; a
  `drop` capture names why a datagram to nowhere was dropped, IPv4 and
  IPv6.
- The http app: /capture.pcap streams pcapng that tshark reads: the
  pings forwarded out of eth1, on interface eth1, outbound; a drop with
  its reason as the packet's comment; a second capture while one runs is
  refused (409).
"""
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402

pytestmark = [pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable())),
              pytest.mark.skipif(not shutil.which("tshark"), reason="no tshark (tools/deps test)")]

CONF = """hostname r1
interface eth0 address 10.0.0.1/24
interface eth0 address 2001:db8:a::1/64
interface eth1 address 10.0.1.1/24
app http port 8080
"""


def lab_of(netlab):
    return netlab([nl.Peer(addrs=["10.0.0.2/24", "2001:db8:a::2/64"],
                          routes=["default via 10.0.0.1", "default via 2001:db8:a::1"]),
                   nl.Peer(addrs=["10.0.1.2/24"], routes=["default via 10.0.1.1"])], config=CONF)


def test_capture_console(netlab):
    lab = lab_of(netlab)
    m, a = lab.machine, lab.peers[0]
    a.run("ping -c 1 -W 2 10.0.1.2", timeout=10)  # ARP both ways, before the capture
    out = m.cmd("capture eth0 rx count 3 match proto icmp")
    assert "capture:" not in out, out
    a.run("ping -c 3 -i 0.3 -W 2 10.0.1.2", timeout=20)
    for _ in range(3):
        m.wait_for(r"\d+\.\d{6} eth0 rx IP 10\.0\.0\.2 > 10\.0\.1\.2: ICMP type 8, length 84\r?\n", 10)
    m.wait_for(r"capture: 3 packets, 0 not kept", 10)

    m.cmd("capture eth0 drop count 1")
    a.run("ping -c 1 -W 1 192.0.2.1", check=False, timeout=10)
    m.wait_for(r"eth0 drop IP 10\.0\.0\.2 > 192\.0\.2\.1: ICMP type 8, length 84 \(fwd-no-route\)", 10)
    m.wait_for(r"capture: 1 packets", 10)
    m.cmd("capture eth0 drop count 1 match proto icmp6")
    a.run("ping -6 -c 1 -W 1 2001:db8:ffff::1", check=False, timeout=10)
    m.wait_for(r"eth0 drop IP6 2001:db8:a::2 > 2001:db8:ffff::1: ICMP6 type 128, length 104 \(ip6-no-route\)", 10)
    m.wait_for(r"capture: 1 packets", 10)
    assert "capture: none running" in m.cmd("capture stop")


def tshark(path, *fields):
    out = subprocess.run(["tshark", "-r", str(path), "-T", "fields"] + [x for f in fields for x in ("-e", f)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [ln.split("\t") for ln in out.stdout.splitlines()]


def test_capture_pcap_over_http(netlab, tmp_path, report):
    lab = lab_of(netlab)
    m, a = lab.machine, lab.peers[0]
    a.run("ping -c 1 -W 2 10.0.1.2", timeout=10)
    pcap = tmp_path / "tx.pcapng"
    curl = a.popen(["curl", "-sS", "-o", str(pcap), "--max-time", "60",
                    "http://10.0.0.1:8080/capture.pcap?port=eth1&dir=tx&count=10&proto=icmp"],
                   stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)  # the capture is on
    busy = a.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}",
                  "http://10.0.0.1:8080/capture.pcap?port=eth0"], check=False, timeout=20).stdout
    assert busy == "409", busy
    t0 = time.monotonic()
    a.run("ping -c 10 -i 0.2 -W 2 10.0.1.2", timeout=30)
    assert curl.wait(timeout=30) == 0, curl.stderr.read()
    took = time.monotonic() - t0
    rows = tshark(pcap, "frame.interface_name", "frame.packet_flags_direction", "ip.src", "ip.dst", "icmp.type")
    assert len(rows) == 10, rows
    assert all(r[0] == "eth1" and r[2:] == ["10.0.0.2", "10.0.1.2", "8"] for r in rows), rows
    assert all(r[1] in ("2", "0x00000002", "0x2") for r in rows), rows  # outbound

    drop = tmp_path / "drop.pcapng"
    curl = a.popen(["curl", "-sS", "-o", str(drop), "--max-time", "60",
                    "http://10.0.0.1:8080/capture.pcap?port=eth0&dir=drop&count=1"], stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    a.run("ping -c 1 -W 1 192.0.2.1", check=False, timeout=10)
    assert curl.wait(timeout=30) == 0, curl.stderr.read()
    rows = tshark(drop, "frame.comment", "ip.dst")
    assert rows == [["fwd-no-route", "192.0.2.1"]], rows
    report(f"capture: 10 forwarded pings out of eth1 served as pcapng by the http app and read by tshark "
           f"(capture done {took:.1f} s after the first ping), a drop with its reason as the packet comment")
