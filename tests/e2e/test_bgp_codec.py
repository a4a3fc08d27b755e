# SPDX-License-Identifier: MIT
"""tests/e2e/test_bgp_codec.py: hayate's BGP session and codec (bgp/, run on
a host socket by build/unit/bgp-probe) against the daemons users run, each
from its Debian package in a network namespace behind a veth pair: BIRD 2,
FRR's bgpd, GoBGP and OpenBGPD.

Each daemon announces three IPv4 and two IPv6 prefixes over an IPv4
session; the probe announces 500 IPv4 /24s. Checked: the session reaches
Established with the 4-byte AS capability and both families, the probe
parses every UPDATE with no RFC 7606 reason counted and gets exactly the
daemon's prefixes (End-of-RIB of both families from BIRD; the others send
it only with graceful restart, which the probe does not offer), and the
daemon holds the probe's 500 prefixes. Needs root; skips for
a daemon that is not installed (tools/deps test installs them)."""
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBE = os.path.join(ROOT, "build", "unit", "bgp-probe")
NS, HOST, PEER = "bgpc", "10.77.0.1", "10.77.0.2"
V4 = ["203.0.113.0/24", "192.0.2.0/25", "10.200.0.0/16"]
V6 = ["2001:db8:100::/48", "2001:db8:200::/56"]
ANNOUNCE = 500

pytestmark = [pytest.mark.skipif(os.geteuid() != 0, reason="needs root (namespaces)"),
              pytest.mark.skipif(not os.path.exists(PROBE), reason="make build/unit/bgp-probe")]


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True, **kw).stdout


def ns(cmd, **kw):
    return sh(f"ip netns exec {NS} {cmd}", **kw)


@pytest.fixture
def lab():
    subprocess.run(f"ip netns del {NS}; ip link del vc0", shell=True, capture_output=True)
    sh(f"ip netns add {NS} && ip link add vc0 type veth peer name vc1 && ip link set vc1 netns {NS} && "
       f"ip addr add {HOST}/24 dev vc0 && ip -6 addr add 2001:db8:77::1/64 dev vc0 nodad && ip link set vc0 up")
    ns(f"sh -c 'ip addr add {PEER}/24 dev vc1; ip -6 addr add 2001:db8:77::2/64 dev vc1 nodad; "
       "ip link set vc1 up; ip link set lo up'")
    d = tempfile.mkdtemp(prefix="bgpc.")
    procs = []
    yield d, procs
    for p in procs:
        p.terminate()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            p.kill()
    subprocess.run(f"ip netns pids {NS} | xargs -r kill -9; ip netns del {NS}", shell=True, capture_output=True)
    shutil.rmtree(d, ignore_errors=True)


def run_probe(count_received):
    """The probe against the daemon at PEER; count_received() asks the
    daemon how many of the probe's prefixes it holds, while the session
    lingers. Returns (probe's JSON, the daemon's count)."""
    p = subprocess.Popen([PROBE, PEER, "65002", "65001", HOST, str(ANNOUNCE), "40", "8", str(len(V4) + len(V6))],
                         stdout=subprocess.PIPE, text=True)
    got = None
    line = p.stdout.readline()
    if line.strip() == "ready":
        deadline = time.time() + 6
        while time.time() < deadline:
            got = count_received()
            if got == ANNOUNCE:
                break
            time.sleep(0.5)
        line = p.stdout.readline()
    p.wait(60)
    return json.loads(line), got


def check(r, got, eor=True):
    """Established as offered, every UPDATE clean, exactly the daemon's
    prefixes (ours reflected back, with our AS in the path, apart), and
    the daemon took all of ours."""
    assert r["as4"] and r["mp_v4"] and r["mp_v6"], r
    assert r["reasons"] == {}, r
    assert r["v4"] == len(V4) and r["v6"] == len(V6), r
    assert r["loops"] in (0, ANNOUNCE), r
    if eor:
        assert r["eor4"] and r["eor6"], r
    assert got == ANNOUNCE, got


def wait_listening(timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if ":179 " in ns("ss -ltn"):
            return
        time.sleep(0.2)
    raise AssertionError("the daemon does not listen on 179")


@pytest.mark.skipif(not shutil.which("bird"), reason="no bird (bird2)")
def test_bird(lab):
    d, procs = lab
    conf = os.path.join(d, "bird.conf")
    sock = os.path.join(d, "bird.ctl")
    routes4 = " ".join(f"route {p} blackhole;" for p in V4)
    routes6 = " ".join(f"route {p} blackhole;" for p in V6)
    open(conf, "w").write(f"""router id {PEER};
protocol device {{}}
protocol static s4 {{ ipv4; {routes4} }}
protocol static s6 {{ ipv6; {routes6} }}
protocol bgp probe {{
  local {PEER} as 65002;
  neighbor {HOST} as 65001;
  ipv4 {{ import all; export all; }};
  ipv6 {{ import all; export all; next hop address 2001:db8:77::2; }};
}}
""")
    procs.append(subprocess.Popen(["ip", "netns", "exec", NS, "bird", "-f", "-c", conf, "-s", sock]))
    wait_listening()

    def count():
        out = ns(f"birdc -s {sock} show route count protocol probe")
        return int(out.split(" of ")[0].split()[-1]) if " of " in out else 0
    r, got = run_probe(count)
    check(r, got)


@pytest.mark.skipif(not os.path.exists("/usr/lib/frr/bgpd"), reason="no frr")
def test_frr(lab):
    d, procs = lab
    conf = os.path.join(d, "bgpd.conf")
    nets4 = "\n".join(f"  network {p}" for p in V4)
    nets6 = "\n".join(f"  network {p}" for p in V6)
    open(conf, "w").write(f"""frr defaults traditional
hostname frr
router bgp 65002
 bgp router-id {PEER}
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor {HOST} remote-as 65001
 address-family ipv4 unicast
{nets4}
 exit-address-family
 address-family ipv6 unicast
  neighbor {HOST} activate
{nets6}
 exit-address-family
""")
    os.chmod(d, 0o777)
    procs.append(subprocess.Popen(["ip", "netns", "exec", NS, "/usr/lib/frr/bgpd", "-f", conf, "-Z", "-S",
                                   "-i", os.path.join(d, "bgpd.pid"), "--vty_socket", d, "-u", "root", "-g", "root"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait_listening()

    def count():
        out = json.loads(ns(f"vtysh --vty_socket {d} -d bgpd -c 'show bgp ipv4 unicast summary json'"))
        return out.get("peers", {}).get(HOST, {}).get("pfxRcd", 0)
    r, got = run_probe(count)
    check(r, got, eor=False)  # End-of-RIB comes only with graceful restart (RFC 4724), not offered


@pytest.mark.skipif(not shutil.which("gobgpd"), reason="no gobgpd")
def test_gobgp(lab):
    d, procs = lab
    conf = os.path.join(d, "gobgpd.toml")
    open(conf, "w").write(f"""[global.config]
  as = 65002
  router-id = "{PEER}"
[[neighbors]]
  [neighbors.config]
    neighbor-address = "{HOST}"
    peer-as = 65001
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
""")
    procs.append(subprocess.Popen(["ip", "netns", "exec", NS, "gobgpd", "-f", conf, "-t", "toml"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait_listening()
    for p in V4:
        ns(f"gobgp global rib add {p} -a ipv4")
    for p in V6:
        ns(f"gobgp global rib add {p} nexthop 2001:db8:77::2 -a ipv6")

    def count():
        out = ns(f"gobgp neighbor {HOST} adj-in -a ipv4")
        return sum(1 for line in out.splitlines() if "198." in line)
    r, got = run_probe(count)
    check(r, got, eor=False)  # End-of-RIB comes only with graceful restart (RFC 4724), not offered


@pytest.mark.skipif(not os.path.exists("/usr/sbin/bgpd") or not os.path.exists("/usr/sbin/bgpctl"),
                    reason="no openbgpd")
def test_openbgpd(lab):
    d, procs = lab
    conf = os.path.join(d, "bgpd.conf")
    sock = os.path.join(d, "bgpd.sock")
    nets = "\n".join(f"network {p}" for p in V4 + V6)
    open(conf, "w").write(f"""AS 65002
router-id {PEER}
socket "{sock}"
fib-update no
{nets}
neighbor {HOST} {{
  remote-as 65001
  announce IPv4 unicast
  announce IPv6 unicast
}}
allow from any
allow to any
""")
    os.chmod(conf, 0o600)
    os.makedirs("/run/openbgpd", exist_ok=True)  # its engines chroot there (the _openbgpd user's home)
    procs.append(subprocess.Popen(["ip", "netns", "exec", NS, "/usr/sbin/bgpd", "-d", "-f", conf],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait_listening()

    def count():
        out = ns(f"bgpctl -s {sock} show rib neighbor {HOST}")
        return sum(1 for line in out.splitlines() if "198." in line)
    r, got = run_probe(count)
    check(r, got, eor=False)  # End-of-RIB comes only with graceful restart (RFC 4724), not offered
