# SPDX-License-Identifier: MIT
"""tests/e2e/test_bgp.py: hayate's BGP-4 speaker (bgp/, kernel/netsvc/
netsvc_bgp*.c) as a router in QEMU, peering with the daemons users run,
each in the network namespace behind one of hayate's ports (tools/netlab.py).

Checked, with BIRD 2 unless said:
- IPv4 (test_bgp_bird_ipv4): the session reaches Established; BIRD's two
  static prefixes land in hayate's FIB via BIRD's address, and `show bgp
  summary` counts them received, accepted and best, `show bgp route` shows
  the path's attributes; BIRD holds hayate's `bgp network` with hayate as
  next hop, and hayate's own path to it stays best; /metrics counts the
  session and the prefixes; a prefix BIRD stops announcing leaves the FIB; `clear bgp` takes the session down (BIRD sees it
  re-established at a new time) and it comes back with its routes.
- RFC 8212 (test_bgp_bird_rfc8212_no_policy): an eBGP neighbour without
  `import all` / `export all` has its routes seen (received, or counted
  import_denied) but none accepted or in the FIB, and is sent nothing.
- Best path and forwarding (test_bgp_forwarding_follows_best_path): two
  BIRDs behind two ports announce one prefix, the one with the shorter
  AS_PATH losing every later tie-break (higher router ID and address);
  `show bgp route` makes it best and says why, pings from a third port's
  host reach the address on the winner's side only (its ICMP echo count),
  and once the winner withdraws, the other path is best and the traffic
  moves to it; the pings lost meanwhile give data-plane convergence
  (RFC 7747), reported.
- IPv6 (test_bgp_ipv6): IPv6 unicast over the IPv4 session (MP-BGP, RFC
  4760): BIRD's IPv6 prefix lands in hayate's IPv6 FIB via BIRD's IPv6
  address, and BIRD holds hayate's IPv6 `bgp network` via hayate's.
- An IPv6 session (test_bgp_ipv6_session): neighbour and TCP over IPv6,
  routes both ways.
- Other daemons (test_bgp_interop_daemons: FRR's bgpd, GoBGP, OpenBGPD):
  session up with 4-byte AS and IPv4, their prefix in hayate's FIB,
  hayate's network in theirs with hayate as next hop, and hayate's own
  path to it best even when a daemon sends it back (FRR: an AS loop).

Needs root (taps, namespaces); a test skips when its daemon is not
installed (tools/deps test installs them). hayate's console log is
build/test-logs/<test>.log; a daemon's log and config are in the test's
tmp_path, and a failed wait prints both ends' state.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402
import qemu  # noqa: E402

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

HAYATE_AS, PEER_AS, PEER2_AS = 65001, 65002, 65003
NETWORK4, NETWORK6 = "10.99.0.0/24", "2001:db8:99::/48"  # what hayate originates
ESTABLISH_S = 40.0  # session up under TCG, both sides' connect timers included
CONVERGE_S = 20.0   # an UPDATE through, into the FIB or the daemon's RIB

HAVE_BIRD = shutil.which("bird") and shutil.which("birdc")
HAVE_FRR = os.path.exists("/usr/lib/frr/bgpd") and shutil.which("vtysh")
HAVE_GOBGP = shutil.which("gobgpd") and shutil.which("gobgp")
HAVE_OPENBGPD = os.path.exists("/usr/sbin/bgpd") and os.path.exists("/usr/sbin/bgpctl")
needs_bird = pytest.mark.skipif(not HAVE_BIRD, reason="no bird/birdc (bird2)")


def hayate_conf(ports, neighbors, networks=(), extra=""):
    """ports: addresses, one a port ("10.0.0.1/24", or a list for IPv4 and
    IPv6); neighbors: `bgp neighbor` arguments; extra: more statements."""
    lines = ["hostname r1"]
    for i, addrs in enumerate(ports):
        for a in [addrs] if isinstance(addrs, str) else addrs:
            lines.append(f"interface eth{i} address {a}")
    lines += [f"bgp as {HAYATE_AS}", "bgp router-id 10.0.0.1"]
    lines += [f"bgp neighbor {n}" for n in neighbors]
    lines += [f"bgp network {n}" for n in networks]
    return "\n".join(lines) + "\n" + extra


# --- waiting ------------------------------------------------------------------

def until(what, fn, timeout=CONVERGE_S, every=0.25, diag=lambda: ""):
    """fn()'s first truthy value, polled until timeout; else an
    AssertionError naming what was awaited, fn's last answer and diag()."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            last = fn()
        except qemu.QemuError as e:  # e.g. a command hayate does not know (yet)
            last = f"QemuError: {e}"
            if "QEMU is gone" in last or "QEMU exited" in last:
                raise
        else:
            if last:
                return last
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g}s; last: {last!r}\n{diag()}")
        time.sleep(every)


def config_ok(m):
    """Every configuration line was taken: a `bgp` statement hayate does
    not know fails here, by its line, rather than as a timeout later."""
    bad = [ln for ln in m.log.replace("\r", "").splitlines() if ln.startswith("config: line")]
    assert not bad, "\n".join(bad) + "\n" + m.tail()


def peer_of(m, addr, cmd="show bgp summary json"):
    return next((p for p in m.json(cmd).get("peers", []) if p.get("address") == addr), None)


def established(m, addr, diag=lambda: "", timeout=ESTABLISH_S):
    """hayate's summary row for addr once its state is Established."""
    def up():
        p = peer_of(m, addr)
        return p if p and p.get("state") == "Established" else None
    return until(f"hayate's session with {addr} Established", up, timeout,
                 diag=lambda: m.tail(30) + "\n" + diag())


def route(m, addr):
    """`show route ADDR json`: found, prefix, nexthop, port."""
    return m.json(f"show route {addr} json")


def fib_via(m, addr, nexthops, port, diag=lambda: ""):
    """hayate's FIB entry for addr once it goes via one of nexthops out of port."""
    nexthops = [nexthops] if isinstance(nexthops, str) else list(nexthops)

    def ok():
        r = route(m, addr)
        return r if r.get("found") and r.get("nexthop") in nexthops and r.get("port") == port else None
    return until(f"hayate routes {addr} via {nexthops} on {port}", ok,
                 diag=lambda: f"{route(m, addr)}\n{m.tail()}\n{diag()}")


def fib_gone(m, addr, diag=lambda: ""):
    return until(f"hayate has no route for {addr}", lambda: not route(m, addr)["found"],
                 diag=lambda: f"{route(m, addr)}\n{m.tail()}\n{diag()}")


def own_network_stays_local(m):
    """hayate's own network is best as its own ("local"), whatever a
    neighbour sends back for it (its AS_PATH then holds ours: a loop), and
    is not forwarded to a neighbour."""
    r = m.json(f"show bgp route {NETWORK4} json")
    assert [p["peer"] for p in r["paths"] if p["best"]] == ["local"], r
    assert route(m, "10.99.0.1").get("nexthop") != "10.0.0.2", route(m, "10.99.0.1")


def icmp_echos_in(peer):
    """ICMP echo requests the namespace's stack has received (its own
    /proc/net/snmp): which host got the pings."""
    lines = [ln.split() for ln in peer.run("cat /proc/net/snmp").stdout.splitlines() if ln.startswith("Icmp:")]
    return int(dict(zip(lines[0][1:], lines[1][1:]))["InEchos"])


# --- the daemons --------------------------------------------------------------

class Daemon:
    """A routing daemon in a peer's namespace, peering with hayate at
    hayate_addr. learned(prefix): the next hop it holds for prefix, or None."""
    name = "?"

    def __init__(self, peer, tmp, hayate_addr, asn=PEER_AS):
        self.peer, self.hayate_addr, self.asn = peer, hayate_addr, asn
        self.dir = tmp / f"{self.name}-{peer.ns}"
        self.dir.mkdir()
        os.chmod(self.dir, 0o777)
        self.proc = None

    def spawn(self, argv, **kw):
        self.log = open(self.dir / "stdout.log", "w")
        self.proc = self.peer.popen(argv, stdout=self.log, stderr=subprocess.STDOUT, **kw)

    def wait_listening(self, timeout=20):
        until(f"{self.name} listens on port 179",
              lambda: ":179 " in self.peer.run("ss -ltn").stdout or self.proc.poll() is not None, timeout)
        assert self.proc.poll() is None, f"{self.name} exited {self.proc.returncode}: {self.logs()}"

    def logs(self, n=30):
        out = []
        for f in sorted(self.dir.glob("*.log")):
            out += [f"--- {f.name} ---"] + f.read_text(errors="replace").splitlines()[-n:]
        return "\n".join(out)

    def state(self):
        return self.logs()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        # children it forked (OpenBGPD's engines), still in our namespace
        pids = nl.sh(["ip", "netns", "pids", self.peer.ns], check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), 9)
            except (ProcessLookupError, ValueError):
                pass
        if getattr(self, "log", None):
            self.log.close()


class Bird(Daemon):
    """BIRD 2. statics: {protocol name: [prefixes]} (blackhole routes, one
    static protocol each, so that one can be disabled); prepend: extra
    copies of its AS on what it exports; v6_nexthop: an IPv6 channel too,
    with this next hop; v4_nexthop: the IPv4 channel's next hop (its own
    address unless said)."""
    name = "bird"

    def start(self, statics, prepend=0, v6_nexthop=None, router_id=None, local=None, v4=True, v4_nexthop=None):
        me = local or self.peer.addr(0)
        conf = [f'log "{self.dir}/bird.log" all;', f"router id {router_id or self.peer.addr(0)};",
                "timeformat protocol iso long ms;", "protocol device { scan time 1; }"]
        for pname, prefixes in statics.items():
            fam = "ipv6" if ":" in prefixes[0] else "ipv4"
            conf.append(f"protocol static {pname} {{ {fam}; " +
                        " ".join(f"route {p} blackhole;" for p in prefixes) + " }")
        export = "all"
        if prepend:
            export = "filter { " + f"bgp_path.prepend({self.asn}); " * prepend + "accept; }"
        conf.append(f"""protocol bgp hayate {{
  local {me} as {self.asn};
  neighbor {self.hayate_addr} as {HAYATE_AS};
  connect delay time 1; connect retry time 3; error wait time 1, 5;""")
        if v4:
            hop = f" next hop address {v4_nexthop};" if v4_nexthop else ""
            conf.append(f"  ipv4 {{ import all; export {export};{hop} }};")
        if v6_nexthop:
            conf.append(f"  ipv6 {{ import all; export {export}; next hop address {v6_nexthop}; }};")
        conf.append("}")
        (self.dir / "bird.conf").write_text("\n".join(conf) + "\n")
        self.sock = str(self.dir / "bird.ctl")
        self.spawn(["bird", "-f", "-c", str(self.dir / "bird.conf"), "-s", self.sock])
        self.wait_listening()
        return self

    def birdc(self, cmd):
        # (birdc's status is 1 where BIRD answers with an error, "Network not found")
        return self.peer.run(["birdc", "-s", self.sock] + cmd.split(), check=False, timeout=10).stdout

    def protocol(self):
        """BIRD's line for the session: state, since when (ms), info."""
        return next((ln for ln in self.birdc("show protocols hayate").splitlines()
                     if ln.startswith("hayate ")), "")

    def learned(self, prefix):
        out = self.birdc(f"show route {prefix} protocol hayate")
        m = re.search(r"^" + re.escape(prefix) + r"\s.*\n\s+via (\S+)", out, re.M)
        return m and m.group(1)

    def state(self):
        return (self.birdc("show protocols all hayate") + self.birdc("show route all") + self.logs())


class Frr(Daemon):
    """FRR's bgpd alone (-Z: no zebra, no kernel routes)."""
    name = "frr"

    def start(self, networks):
        nets = "\n".join(f"  network {p}" for p in networks)
        (self.dir / "bgpd.conf").write_text(f"""frr defaults traditional
hostname frr
log file {self.dir}/bgpd.log
router bgp {self.asn}
 bgp router-id {self.peer.addr(0)}
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor {self.hayate_addr} remote-as {HAYATE_AS}
 neighbor {self.hayate_addr} timers connect 3
 address-family ipv4 unicast
{nets}
 exit-address-family
""")
        self.spawn(["/usr/lib/frr/bgpd", "-f", str(self.dir / "bgpd.conf"), "-Z", "-S",
                    "-i", str(self.dir / "bgpd.pid"), "--vty_socket", str(self.dir), "-u", "root", "-g", "root"])
        self.wait_listening()
        return self

    def vtysh(self, cmd):
        return self.peer.run(["vtysh", "--vty_socket", str(self.dir), "-d", "bgpd", "-c", cmd], check=False,
                             timeout=10).stdout

    def learned(self, prefix):
        out = self.vtysh(f"show bgp ipv4 unicast {prefix} json")
        paths = json.loads(out or "{}").get("paths", [])
        hops = [h.get("ip") for p in paths for h in p.get("nexthops", [])]
        return hops[0] if hops else None

    def state(self):
        return self.vtysh("show bgp summary") + self.vtysh("show bgp ipv4 unicast") + self.logs()


class GoBgp(Daemon):
    name = "gobgp"

    def start(self, networks):
        (self.dir / "gobgpd.toml").write_text(f"""[global.config]
  as = {self.asn}
  router-id = "{self.peer.addr(0)}"
[[neighbors]]
  [neighbors.config]
    neighbor-address = "{self.hayate_addr}"
    peer-as = {HAYATE_AS}
  [neighbors.timers.config]
    connect-retry = 3
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
""")
        self.spawn(["gobgpd", "-f", str(self.dir / "gobgpd.toml"), "-t", "toml"])
        self.wait_listening()
        for p in networks:
            self.gobgp(f"global rib add {p} -a ipv4")
        return self

    def gobgp(self, cmd):
        return self.peer.run(["gobgp"] + cmd.split(), check=False, timeout=10).stdout

    def learned(self, prefix):
        m = re.search(re.escape(prefix) + r"\s+(\S+)", self.gobgp(f"neighbor {self.hayate_addr} adj-in -a ipv4"))
        return m and m.group(1)

    def state(self):
        return self.gobgp(f"neighbor {self.hayate_addr}") + self.gobgp("global rib -a ipv4") + self.logs()


class OpenBgpd(Daemon):
    name = "openbgpd"

    def start(self, networks):
        self.sock = str(self.dir / "bgpd.sock")
        conf = self.dir / "bgpd.conf"
        nets = "\n".join(f"network {p}" for p in networks)
        conf.write_text(f"""AS {self.asn}
router-id {self.peer.addr(0)}
socket "{self.sock}"
fib-update no
{nets}
neighbor {self.hayate_addr} {{
  remote-as {HAYATE_AS}
  announce IPv4 unicast
}}
allow from any
allow to any
""")
        os.chmod(conf, 0o600)
        os.makedirs("/run/openbgpd", exist_ok=True)  # its engines chroot there
        self.spawn(["/usr/sbin/bgpd", "-d", "-v", "-f", str(conf)])
        self.wait_listening()
        return self

    def bgpctl(self, cmd):
        return self.peer.run(["bgpctl", "-s", self.sock] + cmd.split(), check=False, timeout=10).stdout

    def learned(self, prefix):
        m = re.search(re.escape(prefix) + r"\s+(\S+)", self.bgpctl(f"show rib neighbor {self.hayate_addr} in"))
        return m and m.group(1)

    def state(self):
        return self.bgpctl("show neighbor") + self.bgpctl("show rib") + self.logs()


@pytest.fixture
def daemons():
    """Daemons a test started, stopped before its lab goes (request this
    fixture after netlab)."""
    started = []
    yield started
    for d in reversed(started):
        d.stop()


def daemon_diag(d):
    """The daemon's side, for a failed wait (hayate's is added by the wait)."""
    return lambda: f"--- {d.name} ---\n{d.state()}"


def daemon_learned(d, prefix, nexthop):
    return until(f"{d.name} holds {prefix} via {nexthop}", lambda: d.learned(prefix) == nexthop,
                 diag=lambda: f"{d.name} has {prefix} via {d.learned(prefix)}\n{d.state()}")


# --- the tests ----------------------------------------------------------------

@needs_bird
def test_bgp_bird_ipv4(netlab, daemons, tmp_path):
    """BIRD (AS 65002) on eth0 announces 203.0.113.0/24 and 198.51.100.0/24
    (two static protocols); hayate (AS 65001) originates 10.99.0.0/24."""
    m_conf = hayate_conf(["10.0.0.1/24"], [f"10.0.0.2 as {PEER_AS} import all export all"], [NETWORK4],
                         extra="app http port 8080\n")
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24"])], config=m_conf)
    m, peer = lab.machine, lab.peers[0]
    bird = Bird(peer, tmp_path, "10.0.0.1")
    daemons.append(bird)
    bird.start({"s_a": ["203.0.113.0/24"], "s_b": ["198.51.100.0/24"]})
    peer.run("ping -c 1 -W 2 10.0.0.1", timeout=10)  # the wire, before BGP
    config_ok(m)
    diag = daemon_diag(bird)

    p = established(m, "10.0.0.2", diag)
    assert p["as"] == PEER_AS, p
    fib_via(m, "203.0.113.5", "10.0.0.2", "eth0", diag)
    r = fib_via(m, "198.51.100.5", "10.0.0.2", "eth0", diag)
    assert r["prefix"] == "198.51.100.0/24", r
    until("hayate counts 2 prefixes received, accepted and best from BIRD",
          lambda: (q := peer_of(m, "10.0.0.2")) and (q["received"], q["accepted"], q["best"]) == (2, 2, 2) and q,
          diag=lambda: str(peer_of(m, "10.0.0.2")))
    s = m.json("show bgp summary json")
    assert s["as"] == HAYATE_AS and s["router_id"] == "10.0.0.1" and s["prefixes"] == 3, s
    r = m.json("show bgp route 203.0.113.0/24 json")
    assert [(p["peer"], p["as_path"], p["next_hop"], p["origin"], p["best"]) for p in r["paths"]] == \
        [("10.0.0.2", "65002", "10.0.0.2", "IGP", True)], r
    daemon_learned(bird, NETWORK4, "10.0.0.1")
    own_network_stays_local(m)
    metrics = peer.run("curl -sS http://10.0.0.1:8080/metrics", timeout=20).stdout
    assert "hayate_bgp_established 1\n" in metrics and "hayate_bgp_prefixes 3\n" in metrics, metrics

    # BIRD stops announcing one: hayate's FIB loses it, keeps the other.
    bird.birdc("disable s_b")
    fib_gone(m, "198.51.100.5", diag)
    assert m.json("show bgp route 198.51.100.0/24 json")["paths"] == []
    assert route(m, "203.0.113.5")["nexthop"] == "10.0.0.2"

    # clear bgp: down (BIRD's session starts over at a new time), up, routes back.
    before = bird.protocol()
    assert "Established" in before, before
    m.cmd("clear bgp 10.0.0.2")
    until("BIRD sees the session re-established after `clear bgp`",
          lambda: (ln := bird.protocol()) != before and "Established" in ln and ln,
          timeout=ESTABLISH_S, diag=lambda: f"before: {before}\n{m.tail()}\n{bird.state()}")
    p = established(m, "10.0.0.2", diag)
    fib_via(m, "203.0.113.5", "10.0.0.2", "eth0", diag)
    assert not route(m, "198.51.100.5")["found"]
    until("hayate counts 1 prefix from BIRD after the reset",
          lambda: (q := peer_of(m, "10.0.0.2")) and q["accepted"] == 1 and q,
          diag=lambda: str(peer_of(m, "10.0.0.2")))
    daemon_learned(bird, NETWORK4, "10.0.0.1")


@needs_bird
def test_bgp_bird_rfc8212_no_policy(netlab, daemons, tmp_path):
    """No `import all` / `export all` on an eBGP neighbour: BIRD's routes
    arrive (counted received or import_denied) but none is accepted or in
    the FIB, and hayate's network is not sent (RFC 8212)."""
    m_conf = hayate_conf(["10.0.0.1/24"], [f"10.0.0.2 as {PEER_AS}"], [NETWORK4])
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24"])], config=m_conf)
    m, peer = lab.machine, lab.peers[0]
    bird = Bird(peer, tmp_path, "10.0.0.1")
    daemons.append(bird)
    bird.start({"s_a": ["203.0.113.0/24", "198.51.100.0/24"]})
    config_ok(m)
    diag = daemon_diag(bird)
    established(m, "10.0.0.2", diag)
    # Seen and refused: in `received` (an Adj-RIB-In kept before policy) or
    # in the neighbour's import_denied count (refused before it).
    n = until("hayate has seen BIRD's 2 prefixes (received, or import_denied)",
              lambda: (n := peer_of(m, "10.0.0.2", "show bgp neighbors json"))
              and 2 in (n["received"], n["errors"].get("import_denied")) and n,
              diag=lambda: f"{peer_of(m, '10.0.0.2', 'show bgp neighbors json')}\n{diag()}")
    assert n["accepted"] == 0 and n["best"] == 0, n
    assert (n["import"], n["export"]) == ("none", "none"), n
    assert n.get("prefixes_out", 0) == 0, n
    for a in ("203.0.113.5", "198.51.100.5"):
        assert not route(m, a)["found"], route(m, a)
    assert bird.learned(NETWORK4) is None, bird.birdc(f"show route {NETWORK4} all")
    assert re.search(r"Routes:\s+0 imported", bird.birdc("show protocols all hayate")), bird.state()


@needs_bird
def test_bgp_forwarding_follows_best_path(netlab, daemons, tmp_path, report):
    """eth0: BIRD A (AS 65002, 10.0.0.2) announces 203.0.113.0/24 with
    AS_PATH 65002 65002 65002; eth1: BIRD B (AS 65003, 10.0.1.2) with
    AS_PATH 65003, and B loses every later tie-break (router ID, address).
    eth2: a host that pings 203.0.113.5, which both A and B own."""
    m_conf = hayate_conf(["10.0.0.1/24", "10.0.1.1/24", "10.0.2.1/24"],
                         [f"10.0.0.2 as {PEER_AS} import all", f"10.0.1.2 as {PEER2_AS} import all"])
    back = "10.0.2.0/24 via {}"
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24"], routes=[back.format("10.0.0.1")]),
                  nl.Peer(addrs=["10.0.1.2/24"], routes=[back.format("10.0.1.1")]),
                  nl.Peer(addrs=["10.0.2.2/24"], routes=["default via 10.0.2.1"])], config=m_conf)
    m = lab.machine
    a_ns, b_ns, host = lab.peers
    for p in (a_ns, b_ns):
        p.ip("addr add 203.0.113.5/32 dev lo")
    a = Bird(a_ns, tmp_path, "10.0.0.1", PEER_AS)
    b = Bird(b_ns, tmp_path, "10.0.1.1", PEER2_AS)
    daemons += [a, b]
    a.start({"s_a": ["203.0.113.0/24"]}, prepend=2)
    b.start({"s_b": ["203.0.113.0/24"]}, router_id="10.255.0.1")
    config_ok(m)
    diag = lambda: f"--- A ---\n{a.state()}\n--- B ---\n{b.state()}"
    established(m, "10.0.0.2", diag)
    established(m, "10.0.1.2", diag)

    def both_paths():
        r = m.json("show bgp route 203.0.113.0/24 json")
        return r if len(r.get("paths", [])) == 2 else None
    r = until("hayate holds both paths for 203.0.113.0/24", both_paths, diag=lambda: m.tail() + diag())
    best = [p for p in r["paths"] if p["best"]]
    assert len(best) == 1 and best[0]["peer"] == "10.0.1.2", r
    by_peer = {p["peer"]: p for p in r["paths"]}
    assert by_peer["10.0.1.2"]["as_path"] == "65003", r
    assert by_peer["10.0.0.2"]["as_path"] == "65002 65002 65002", r
    assert by_peer["10.0.1.2"]["next_hop"] == "10.0.1.2" and by_peer["10.0.0.2"]["next_hop"] == "10.0.0.2", r
    assert any("as path" in p.get("why", "").lower().replace("_", " ") for p in r["paths"]), r
    fib_via(m, "203.0.113.5", "10.0.1.2", "eth1", diag)

    def pings_reach(winner, loser):
        w0, l0 = icmp_echos_in(winner), icmp_echos_in(loser)
        out = host.run("ping -c 10 -i 0.1 -W 2 203.0.113.5", check=False, timeout=30).stdout
        assert " 0% packet loss" in out, out + m.tail()
        w, lo = icmp_echos_in(winner) - w0, icmp_echos_in(loser) - l0
        assert w >= 10 and lo == 0, f"echo requests: winner {w}, loser {lo}"
    pings_reach(b_ns, a_ns)

    # B loses the destination and withdraws it: A's longer path is best,
    # and the traffic follows. Data-plane convergence as RFC 7747 measures
    # it, by loss: a ping every 10 ms through the change; the longest time
    # between two answers bounds how long packets were lost.
    stream = host.popen(["ping", "-D", "-i", "0.01", "-W", "1", "203.0.113.5"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.5)
    b_ns.ip("addr del 203.0.113.5/32 dev lo")
    b.birdc("disable s_b")
    r = until("A's path alone and best",
              lambda: (r := m.json("show bgp route 203.0.113.0/24 json"))
              and [(p["peer"], p["best"]) for p in r.get("paths", [])] == [("10.0.0.2", True)] and r,
              diag=lambda: m.tail() + diag())
    fib_via(m, "203.0.113.5", "10.0.0.2", "eth0", diag)
    a0 = icmp_echos_in(a_ns)
    until("the ping stream reaches A's side", lambda: icmp_echos_in(a_ns) > a0 + 5, diag=diag)
    stream.send_signal(2)
    out = stream.communicate(timeout=10)[0]
    sent, got = (int(x) for x in re.search(r"(\d+) packets transmitted, (\d+) received", out).groups())
    stamps = [float(x) for x in re.findall(r"^\[(\d+\.\d+)\] \d+ bytes from", out, re.M)]
    gap = max(b - a for a, b in zip(stamps, stamps[1:]))
    report(f"BGP data-plane convergence after a withdrawal (the best path's peer loses the destination and "
           f"withdraws it, hayate moves to the other peer's; TCG): {sent - got} of {sent} pings lost, the "
           f"longest time between answers {gap * 1000:.0f} ms (pings every 10 ms)")
    pings_reach(a_ns, b_ns)


@needs_bird
def test_bgp_ipv6(netlab, daemons, tmp_path):
    """IPv6 unicast over the IPv4 session (MP-BGP): BIRD's 2001:db8:100::/48
    in hayate's IPv6 FIB via BIRD's IPv6 address (or its link-local one),
    hayate's 2001:db8:99::/48 in BIRD's via hayate's 2001:db8::1."""
    m_conf = hayate_conf([["10.0.0.1/24", "2001:db8::1/64"]], [f"10.0.0.2 as {PEER_AS} import all export all"],
                         [NETWORK6])
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24", "2001:db8::2/64"])], config=m_conf)
    m, peer = lab.machine, lab.peers[0]
    bird = Bird(peer, tmp_path, "10.0.0.1")
    daemons.append(bird)
    bird.start({"s6": ["2001:db8:100::/48"]}, v6_nexthop="2001:db8::2")
    peer.run("ping -6 -c 1 -W 2 2001:db8::1", timeout=10)
    config_ok(m)
    diag = daemon_diag(bird)
    established(m, "10.0.0.2", diag)
    n = peer_of(m, "10.0.0.2", "show bgp neighbors json")
    assert n["ipv6"] and n["ipv4"], n
    lladdr = re.search(r"inet6 (fe80::[0-9a-f:]+)/64", peer.ip(f"-6 addr show dev {peer.tap}").stdout)
    r = fib_via(m, "2001:db8:100::1", ["2001:db8::2"] + ([lladdr.group(1)] if lladdr else []), "eth0", diag)
    assert r["prefix"] == "2001:db8:100::/48", r
    daemon_learned(bird, NETWORK6, "2001:db8::1")


@needs_bird
def test_bgp_ipv6_session(netlab, daemons, tmp_path):
    """A session over IPv6 (neighbor 2001:db8::2, its TCP over IPv6):
    BIRD's IPv6 prefix in hayate's FIB, hayate's in BIRD's."""
    m_conf = hayate_conf([["10.0.0.1/24", "2001:db8::1/64"]], [f"2001:db8::2 as {PEER_AS} import all export all"],
                         [NETWORK6])
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24", "2001:db8::2/64"])], config=m_conf)
    m, peer = lab.machine, lab.peers[0]
    bird = Bird(peer, tmp_path, "2001:db8::1")
    daemons.append(bird)
    bird.start({"s6": ["2001:db8:100::/48"]}, v6_nexthop="2001:db8::2", local="2001:db8::2", v4=False)
    peer.run("ping -6 -c 1 -W 2 2001:db8::1", timeout=10)
    config_ok(m)
    diag = daemon_diag(bird)
    p = established(m, "2001:db8::2", diag)
    assert p["as"] == PEER_AS, p
    r = fib_via(m, "2001:db8:100::1", "2001:db8::2", "eth0", diag)
    assert r["prefix"] == "2001:db8:100::/48", r
    daemon_learned(bird, NETWORK6, "2001:db8::1")


INTEROP = {"frr": (Frr, HAVE_FRR), "gobgp": (GoBgp, HAVE_GOBGP), "openbgpd": (OpenBgpd, HAVE_OPENBGPD)}


@pytest.mark.parametrize("daemon", [pytest.param(k, marks=pytest.mark.skipif(not have, reason=f"no {k}"))
                                    for k, (_, have) in INTEROP.items()])
def test_bgp_interop_daemons(netlab, daemons, tmp_path, daemon):
    """The daemon (AS 65002) on eth0 announces 203.0.113.0/24; hayate
    originates 10.99.0.0/24. FRR sends that back (AS_PATH 65002 65001):
    hayate's own path must stay best."""
    m_conf = hayate_conf(["10.0.0.1/24"], [f"10.0.0.2 as {PEER_AS} import all export all"], [NETWORK4])
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24"])], config=m_conf)
    m, peer = lab.machine, lab.peers[0]
    d = INTEROP[daemon][0](peer, tmp_path, "10.0.0.1")
    daemons.append(d)
    d.start(["203.0.113.0/24"])
    config_ok(m)
    diag = daemon_diag(d)
    established(m, "10.0.0.2", diag)
    n = peer_of(m, "10.0.0.2", "show bgp neighbors json")
    assert n["as4"] and n["ipv4"] and n["as"] == PEER_AS, n
    r = fib_via(m, "203.0.113.5", "10.0.0.2", "eth0", diag)
    assert r["prefix"] == "203.0.113.0/24", r
    daemon_learned(d, NETWORK4, "10.0.0.1")
    own_network_stays_local(m)
