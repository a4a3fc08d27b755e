# SPDX-License-Identifier: MIT
"""tests/e2e/test_bgp_table.py: a real routing table from BIRD into
hayate's FIB over BGP, in QEMU (TCG).

BIRD announces prefixes of ../shared/data's rib-v4-2024 and rib-v6-2024
(the first BGP_TABLE_V4 and BGP_TABLE_V6 of them, 50,000 and 10,000 in
`make test`; `make bgp-table` takes all 901,899 and 160,147) as static
routes via three gateways on the link, picked by a hash of the prefix, so
hayate's FIB holds three next hops (BIRD passes its gateways on as
third-party next hops, RFC 4271 5.1.3). Checked:
- the session comes up and every prefix is received, accepted, best and
  installed (`show bgp summary`'s counts, the FIB's adds, none of them
  still deferred: a burst goes into the route tables as one rebuild);
- convergence, the seconds from Established to the last prefix in the
  FIB, is reported;
- then the LINX update trace (../shared/data, 23,446 announcements and
  withdrawals of a day at LINX) in ten batches, BIRD reconfigured for
  each and sending what changed: hayate holds exactly the table that
  results;
- forwarding does not stop meanwhile: pings from a host on hayate's
  second port to BIRD's address, through hayate, every 0.2 s while the
  table loads and changes, all but two answered;
- `show route` agrees, for BGP_TABLE_CHECKS addresses (1,000; 10,000 in
  make bgp-table), half inside random prefixes of the resulting table
  and half uniform random, with the longest match computed here: prefix
  and next hop.
Skips without ../shared/data or BIRD."""
import gzip
import ipaddress
import os
import random
import subprocess
import sys
import time
import zlib

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402
from test_bgp import HAYATE_AS, PEER_AS, HAVE_BIRD, Daemon, config_ok, daemons, established, until  # noqa: E402,F401

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                    "shared", "data")
N4 = int(os.environ.get("BGP_TABLE_V4", "50000"))
N6 = int(os.environ.get("BGP_TABLE_V6", "10000"))
CHECKS = int(os.environ.get("BGP_TABLE_CHECKS", "1000"))
GW4 = ["10.0.0.3", "10.0.0.4", "10.0.0.5"]
GW6 = ["2001:db8::3", "2001:db8::4", "2001:db8::5"]

pytestmark = [pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable())),
              pytest.mark.skipif(not HAVE_BIRD, reason="no bird (bird2)"),
              pytest.mark.skipif(not os.path.exists(os.path.join(DATA, "rib-v4-2024.txt.gz")),
                                 reason=f"no routing tables in {DATA}")]


def load(name, n):
    with gzip.open(os.path.join(DATA, name), "rt") as f:
        out = []
        for line in f:
            if line.strip():
                out.append(ipaddress.ip_network(line.split()[0]))
                if len(out) == n:
                    break
    return out


def gateway(net, gws):
    return gws[zlib.crc32(str(net).encode()) % len(gws)]


class TableBird(Daemon):
    """BIRD announcing nets4 and nets6 via the gateways gateway() picks;
    announce() changes what it announces (BIRD's reconfiguration sends
    the difference: UPDATEs and withdrawals)."""
    name = "bird"

    def write(self, nets4, nets6):
        me = self.peer.addr(0)
        conf = [f'log "{self.dir}/bird.log" {{ info, warning, error, fatal }};', f"router id {me};",
                "protocol device { scan time 1; }", "protocol static s4 { ipv4;"]
        conf += [f"route {n} via {gateway(n, GW4)};" for n in nets4]
        conf += ["}", "protocol static s6 { ipv6;"]
        conf += [f"route {n} via {gateway(n, GW6)};" for n in nets6]
        conf += ["}", f"""protocol bgp hayate {{
  local {me} as {self.asn}; neighbor 10.0.0.1 as {HAYATE_AS};
  connect delay time 1; connect retry time 3; hold time 240;
  ipv4 {{ import none; export all; }};
  ipv6 {{ import none; export all; }};
}}"""]
        (self.dir / "bird.conf").write_text("\n".join(conf) + "\n")

    def start(self, nets4, nets6):
        self.write(nets4, nets6)
        self.sock = str(self.dir / "bird.ctl")
        self.spawn(["bird", "-f", "-c", str(self.dir / "bird.conf"), "-s", self.sock])
        self.wait_listening(timeout=300)
        return self

    def announce(self, nets4, nets6):
        self.write(nets4, nets6)
        out = self.peer.run(["birdc", "-s", self.sock, "configure"], check=False, timeout=600).stdout
        assert "Reconfigured" in out or "Reconfiguration in progress" in out, out

    def state(self):
        return self.peer.run(["birdc", "-s", self.sock, "show", "protocols", "all", "hayate"],
                             check=False, timeout=10).stdout + self.logs()


def linx_batches(n=10):
    """The LINX update trace (announce or withdraw a prefix a line) in n
    batches by time, each {prefix: announced}: the last word of a
    prefix's in a batch wins."""
    with gzip.open(os.path.join(DATA, "linx-update-v4-20141217.txt.gz"), "rt") as f:
        rows = [line.split() for line in f if line.strip()]
    t0, t1 = int(rows[0][0]), int(rows[-1][0]) + 1
    out = [dict() for _ in range(n)]
    for t, op, prefix, _ in rows:
        out[(int(t) - t0) * n // (t1 - t0)][ipaddress.ip_network(prefix)] = op == "a"
    return out


def longest(tables, addr):
    """The longest prefix of tables (by length, sets of networks) holding addr."""
    for plen in sorted(tables, reverse=True):
        net = ipaddress.ip_network(f"{addr}/{plen}", strict=False)
        if net in tables[plen]:
            return net
    return None


def by_length(nets):
    t = {}
    for n in nets:
        t.setdefault(n.prefixlen, set()).add(n)
    return t


def test_bgp_table_from_bird(netlab, daemons, tmp_path, report):
    nets4, nets6 = load("rib-v4-2024.txt.gz", N4), load("rib-v6-2024.txt.gz", N6)
    conf = "\n".join(["hostname r1", "interface eth0 address 10.0.0.1/24", "interface eth0 address 2001:db8::1/64",
                      "interface eth1 address 10.1.0.1/24", f"bgp as {HAYATE_AS}", "bgp router-id 10.0.0.1",
                      f"bgp neighbor 10.0.0.2 as {PEER_AS} import all"]) + "\n"
    memory = "512M" if N4 + N6 <= 200000 else "2G"
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24", "2001:db8::2/64"]), nl.Peer(addrs=["10.1.0.2/24"])], config=conf,
                 memory=memory)
    m, peer, host = lab.machine, lab.peers[0], lab.peers[1]
    host.run("ip route add 10.0.0.0/24 via 10.1.0.1")
    peer.run("ip route add 10.1.0.0/24 via 10.0.0.1")
    config_ok(m)
    bird = TableBird(peer, tmp_path, "10.0.0.1")
    daemons.append(bird)
    bird.start(nets4, nets6)
    diag = lambda: bird.state()  # noqa: E731
    established(m, "10.0.0.2", diag, timeout=120)
    t0 = time.monotonic()
    ping = host.popen(["ping", "-i", "0.2", "-W", "1", "10.0.0.2"], stdout=subprocess.PIPE, text=True)
    n4, n6 = len(nets4), len(nets6)  # the files may hold fewer than asked (make bgp-table asks for more)
    want = n4 + n6

    def loaded():
        s = m.json("show bgp summary json")
        return s if s["prefixes"] == want and s["fib_adds"] >= want and s["fib_deferred"] == 0 else None
    s = until(f"hayate holds all {want} prefixes, each in the FIB", loaded, timeout=60 + want / 200, every=1,
              diag=lambda: f"{m.json('show bgp summary json')}\n{m.tail(20)}\n{diag()}")
    seconds = time.monotonic() - t0
    p = s["peers"][0]
    assert (p["received"], p["accepted"], p["best"]) == (want, want, want), p
    assert s["fib_errors"] == 0, s

    # Then a day's churn at LINX, BIRD reconfigured batch by batch: it
    # sends what changed, hayate follows.
    table4 = set(nets4)
    t1 = time.monotonic()
    updates0 = p["updates_in"]
    for batch in linx_batches():
        for net, announced in batch.items():
            (table4.add if announced else table4.discard)(net)
        bird.announce(sorted(table4, key=lambda n: (int(n.network_address), n.prefixlen)), nets6)
    want = len(table4) + len(nets6)

    def settled():
        """loaded(), and no UPDATE for a second (a count may pass through
        the final one on the way)."""
        a = loaded()
        time.sleep(1)
        b = loaded()
        return b if a and b and a["peers"][0]["updates_in"] == b["peers"][0]["updates_in"] else None
    s = until(f"hayate holds the {want} prefixes after the LINX trace", settled, timeout=120, every=1,
              diag=lambda: f"{m.json('show bgp summary json')}\n{m.tail(20)}\n{diag()}")
    trace_s = time.monotonic() - t1 - 1
    p = s["peers"][0]
    assert (p["received"], p["best"]) == (want, want) and s["fib_errors"] == 0, s
    nets4 = sorted(table4, key=lambda n: (int(n.network_address), n.prefixlen))

    time.sleep(1)
    ping.terminate()
    out = ping.communicate(timeout=10)[0]
    answered = sum(1 for ln in out.splitlines() if "bytes from" in ln)
    seqs = [int(ln.split("icmp_seq=")[1].split()[0]) for ln in out.splitlines() if "bytes from" in ln]
    lost = (max(seqs) - len(seqs)) if seqs else -1
    assert seqs and lost <= 2, f"forwarding stopped while the table loaded: {answered} answered, {lost} lost\n{out}"

    rng = random.Random(7)
    t4, t6 = by_length(nets4), by_length(nets6)
    addrs = []
    for i in range(CHECKS):
        v6 = i % 5 == 4
        nets = nets6 if v6 else nets4
        if i % 2:
            n = rng.choice(nets)
            addrs.append(n.network_address + rng.randrange(n.num_addresses))
        else:
            addrs.append(ipaddress.ip_address(rng.getrandbits(128 if v6 else 32)) if not v6 else
                         ipaddress.ip_address((0x2 << 124) | rng.getrandbits(124)))
    bad = []
    for a in addrs:
        want_net = longest(t6 if a.version == 6 else t4, a)
        r = m.json(f"show route {a} json")
        if want_net is None:
            # no table prefix: hayate's answer is its connected route or none
            ok = not r.get("found") or r.get("nexthop") not in GW4 + GW6
        else:
            gw = gateway(want_net, GW6 if a.version == 6 else GW4)
            ok = r.get("found") and r.get("prefix") == str(want_net) and r.get("nexthop") == gw
        if not ok:
            bad.append((str(a), str(want_net), r))
    assert not bad, f"{len(bad)} of {len(addrs)} lookups disagree, e.g. {bad[:5]}"
    report(f"BGP table from BIRD under TCG: {n4} IPv4 + {n6} IPv6 prefixes in the FIB "
           f"{seconds:.1f} s after Established ({(n4 + n6) / seconds:.0f} prefixes/s); then the LINX trace "
           f"(23,446 announcements and withdrawals in 10 reconfigurations of BIRD, "
           f"{p['updates_in'] - updates0} UPDATEs), BIRD reconfigured and hayate following in {trace_s:.1f} s; "
           f"{answered} pings answered "
           f"and {lost} lost meanwhile; {len(addrs)} lookups agree with the longest match; "
           f"RIB {s['rib_bytes'] >> 20} MB, {s['attribute_sets']} attribute sets, {s['fib_rebuilds']} FIB rebuilds")
