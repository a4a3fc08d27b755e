# SPDX-License-Identifier: MIT
"""tests/e2e/test_tcp_loss.py: TCP between hayate and real Linux TCP over a
lossy path. Linux brings SACK, timestamps, window scaling, CUBIC and its own
retransmission logic (RACK, tail loss probes); our side must get every byte
through that, in both roles:

  - curl downloads 20 MB of /bytes/N over IPv4 at 1% loss each way, and over
    IPv6 at 3%: our sender's SACK scoreboard, fast recovery and RTO;
  - nc sends 4 MB of random data to tcp-echo at 2% each way: our receiver's
    out-of-order queue and the SACK blocks Linux recovers with (the echo
    also loses packets, so both senders recover at once);
  - iperf3 -R at 2%: the client's sender line shows our retransmissions.

Each checks the bytes (SHA-256 and length), that packets really were
dropped both ways, that our retransmission and recovery counters moved (and
no resets), and afterwards that no connection is left but TIME-WAIT and the
buffer pool is back to what it was (less what the TX ring may still hold).

The path: hayate eth0 -- tap -- namespace R -- veth -- namespace C. C is
the Linux host (curl, nc); R routes between it and hayate. Losses are
nftables rules, `numgen random mod 100 < N counter drop`, in R's forward
hook for C's packets and in C's input hook for hayate's. Why not both in
C: a drop in the sending host's output hook is an error its socket sees;
Linux keeps the segment and sends it again at once, so hayate never sees a
loss. R's veth has TSO and GSO off so hayate's TSO frames reach C cut
into segments, and C's so that C sends one segment a packet: each drop is
one wire-sized segment, not a 64 KB burst.
"""
import hashlib
import json
import os
import shutil
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402

pytestmark = [
    pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable())),
    pytest.mark.skipif(not (shutil.which("nft") and shutil.which("ethtool")),
                       reason="needs nft and ethtool (tools/deps test)"),
]

ADDR4, ADDR6 = "10.12.0.1", "2001:db8:12::1"
CONF = (f"hostname tl\ninterface eth0 address {ADDR4}/24\ninterface eth0 address {ADDR6}/64\n"
        "route 10.12.1.0/24 via 10.12.0.2\nroute 2001:db8:12:1::/64 via 2001:db8:12::2\n"
        "app http port 80\napp tcp-echo port 7\napp iperf3 port 5201\n")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
RULES = """table inet hyloss {{}}
delete table inet hyloss
table inet hyloss {{
  chain {hook} {{
    type filter hook {hook} priority 0;
    {match}meta l4proto tcp counter numgen random mod 100 < {pct} counter drop
  }}
}}
"""


@pytest.fixture(scope="module")
def lab(netlab_ok, iso, tmp_path_factory):
    d = tmp_path_factory.mktemp("tcploss")
    conf, out = d / "tcploss.conf", d / "tcploss.iso"
    conf.write_text(CONF)
    netlab.sh([os.path.join(ROOT, "tools", "mkiso"), str(conf), str(out)], timeout=120, cwd=ROOT)
    lab = netlab.Lab("test_tcp_loss", [netlab.Peer(addrs=["10.12.0.2/24", "2001:db8:12::2/64"])], iso=str(out))
    c = netlab.Peer(addrs=["10.12.1.2/24", "2001:db8:12:1::2/64"], ns=netlab.unique_name())
    lab.start()
    try:
        r = lab.peers[0]
        netlab.sh(["ip", "netns", "add", c.ns])
        netlab.sh(f"ip link add v0 netns {r.ns} type veth peer name v0 netns {c.ns}")
        for ns, addrs in ((r, ["10.12.1.1/24", "2001:db8:12:1::1/64"]), (c, c.addrs)):
            ns.run("ethtool -K v0 tso off gso off")
            for a in addrs:
                ns.ip(f"addr add {a} dev v0" + (" nodad" if ":" in a else ""))
            ns.ip("link set lo up")
            ns.ip("link set v0 up")
        r.run("sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1")
        c.ip("route add default via 10.12.1.1")
        c.ip("-6 route add default via 2001:db8:12:1::1")
        c.run(["ping", "-c1", "-W5", ADDR4], timeout=10)  # ARP and ND both ways, before any loss
        c.run(["ping", "-6", "-c1", "-W5", ADDR6], timeout=10)
        lab.client, lab.free = c, pool_free(lab.machine)
        yield lab
    finally:
        netlab.sh(["ip", "netns", "del", c.ns], check=False)
        lab.close()


def counters(m):
    return m.json("show stats json")["counters"]


def pool_free(m):
    return sum(p["free"] for p in m.json("show buffers json")["pools"])


def linux_mib(c):
    """C's own TCP counters (its namespace's, absolute)."""
    return json.loads(c.run("nstat -az -s -j").stdout)["kernel"]


def set_loss(lab, pct):
    """Drop pct% of TCP packets each way; the counters start from zero."""
    lab.peers[0].run(["nft", "-f", "-"], input=RULES.format(hook="forward", match='iifname "v0" ', pct=pct))
    lab.client.run(["nft", "-f", "-"], input=RULES.format(hook="input", match="", pct=pct))


def drops(lab):
    """{"to": (seen, dropped) of C's packets to hayate, "from": of hayate's}."""
    def one(ns):
        out = json.loads(ns.run("nft -j list table inet hyloss").stdout)["nftables"]
        rule = next(o["rule"] for o in out if "rule" in o)
        return tuple(e["counter"]["packets"] for e in rule["expr"] if "counter" in e)
    return {"to": one(lab.peers[0]), "from": one(lab.client)}


def check_recovered(lab, before, what, seconds, report):
    """Losses both ways, our recovery counters moved, no resets; then the
    connection ends (TIME-WAIT at most) and the pool has its buffers back."""
    m = lab.machine
    after = counters(m)
    d = {k: after[k] - before.get(k, 0) for k in after}
    dr = drops(lab)
    assert dr["to"][1] > 0 and dr["from"][1] > 0, dr
    assert d["tcp-retransmit"] > 0 and d["tcp-fast-recovery"] > 0, d  # SACK recovery, not timeouts alone
    for k in ("tcp-rst-rx", "tcp-timeout", "tcp-bad-checksum", "tcp-no-buf"):
        assert d[k] == 0, (k, d)
    # No connection reset; a reset may only answer a stray segment after the
    # close (our ACK of the peer's FIN lost: its FIN again once we are gone).
    assert d["tcp-rst-tx"] <= d["tcp-listen-drop"], d
    set_loss(lab, 0)
    deadline = time.monotonic() + 20
    while True:
        mine = [x for x in m.json("show tcp json")["connections"]
                if x["remote"].startswith(("10.12.1.2:", "[2001:db8:12:1::2]:"))]
        free = pool_free(m)
        settled = all(x["state"] == "TIME-WAIT" for x in mine) and free >= lab.free - netlab.VIRTIO_RX_SLACK
        if settled or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    report(f"tcp loss, {what}: {seconds:.1f}s; dropped {dr['to'][1]} of {dr['to'][0]} packets to hayate, "
           f"{dr['from'][1]} of {dr['from'][0]} from it; retransmit {d['tcp-retransmit']}, "
           f"fast-recovery {d['tcp-fast-recovery']}, rto {d['tcp-rto']}, "
           f"lost-retransmit {d['tcp-lost-retransmit']}, ooo-queued {d['tcp-ooo-queued']}, "
           f"ooo-drop {d['tcp-ooo-drop']}, dup-ack {d['tcp-dup-ack']}; buffers free {free} (at start {lab.free})")
    assert all(x["state"] == "TIME-WAIT" for x in mine), mine
    assert free >= lab.free - netlab.VIRTIO_RX_SLACK, (free, lab.free, m.cmd("show buffers"))
    return d


def download(lab, report, pct, url, what):
    """curl fetches 20 MB of url at pct% loss each way; the bytes check out."""
    m, c = lab.machine, lab.client
    set_loss(lab, pct)
    before, n, t0 = counters(m), 20 << 20, time.monotonic()
    r = c.run(["bash", "-c", f"curl -sS --max-time 150 {url}/bytes/{n} | tee >(wc -c >&2) | sha256sum"], timeout=180)
    seconds = time.monotonic() - t0
    assert r.stdout.split()[0] == netlab.pattern_sha256(n), r.stderr
    assert r.stderr.strip().endswith(str(n)), r.stderr
    return check_recovered(lab, before, what, seconds, report)


def test_download_ipv4_1pct(lab, report):
    download(lab, report, 1, f"http://{ADDR4}", "curl 20 MB, IPv4, 1% each way")


def test_download_ipv6_3pct(lab, report):
    d = download(lab, report, 3, f"-6 http://[{ADDR6}]", "curl -6 20 MB, IPv6, 3% each way")
    assert d["ip6-tx"] >= d["tcp-tx"] and d["ip4-tx"] == 0, d


def test_upload_echo_2pct(lab, report, tmp_path):
    """Linux sends, we receive out of order and SACK: Linux's recoveries
    count on our SACK blocks, and it never sees them taken back."""
    m, c = lab.machine, lab.client
    data = os.urandom(4 << 20)
    (tmp_path / "up").write_bytes(data)
    set_loss(lab, 2)
    before, mib0, t0 = counters(m), linux_mib(c), time.monotonic()
    r = c.run(["bash", "-c", f"timeout 150 nc -N {ADDR4} 7 < {tmp_path / 'up'} | tee >(wc -c >&2) | sha256sum"],
              timeout=180)
    seconds = time.monotonic() - t0
    assert r.stdout.split()[0] == hashlib.sha256(data).hexdigest(), r.stderr
    assert r.stderr.strip().endswith(str(len(data))), r.stderr
    mib = {k: v - mib0.get(k, 0) for k, v in linux_mib(c).items()}
    report(f"tcp loss, nc 4 MB to tcp-echo: Linux sent {mib.get('TcpOutSegs', 0)} segments, retransmitted "
           f"{mib.get('TcpRetransSegs', 0)}, SACK recoveries {mib.get('TcpExtTCPSackRecovery', 0)}, "
           f"timeouts {mib.get('TcpExtTCPTimeouts', 0)}")
    d = check_recovered(lab, before, "nc 4 MB echoed, IPv4, 2% each way", seconds, report)
    assert d["tcp-ooo-queued"] > 0, d
    assert mib.get("TcpExtTCPSackRecovery", 0) > 0 and mib.get("TcpExtTCPSACKReneging", 0) == 0, mib


def test_iperf3_reverse_reports_retransmits(lab, report):
    """iperf3 -R: we send, and the client's Retr column is the segments our
    connection sent again (no more than the stack's count, which also has
    the control connection's)."""
    m, c = lab.machine, lab.client
    set_loss(lab, 2)
    before, t0 = counters(m), time.monotonic()
    r = c.run(["timeout", "60", "iperf3", "-c", ADDR4, "-J", "-R", "-t", "3"], check=False, timeout=70)
    seconds = time.monotonic() - t0
    assert r.returncode == 0, r.stdout + r.stderr
    end = json.loads(r.stdout)["end"]
    retr = end["sum_sent"]["retransmits"]
    d = check_recovered(lab, before, "iperf3 -R 3 s, IPv4, 2% each way", seconds, report)
    report(f"tcp loss, iperf3 -R: {end['sum_received']['bits_per_second'] / 1e6:.1f} Mbit/s, Retr {retr}")
    assert 0 < retr <= d["tcp-retransmit"], (retr, d["tcp-retransmit"])
    assert end["streams"][0]["sender"]["retransmits"] == retr
