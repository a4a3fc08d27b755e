# SPDX-License-Identifier: MIT
"""tests/e2e/test_tcp6.py: TCP over IPv6 seen from a Linux host on a tap:
curl -6 downloads 10 MB from `app http` and every byte checks out, a few
curls at once, nc -6 is echoed by `app tcp-echo`, iperf3 -6 runs against
`app iperf3`, and `show tcp` shows [addr]:port. One guest for the module:
the listeners serve both families on the same ports."""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab  # noqa: E402

pytestmark = pytest.mark.skipif(netlab.unavailable() is not None, reason=str(netlab.unavailable()))

ADDR4, ADDR6 = "10.8.0.1", "2001:db8:6::1"
CONF = (f"hostname t6\ninterface eth0 address {ADDR4}/24\ninterface eth0 address {ADDR6}/64\n"
        "app http port 80\napp tcp-echo port 7\napp iperf3 port 5201\n")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.fixture(scope="module")
def lab(iso, tmp_path_factory):
    d = tmp_path_factory.mktemp("tcp6")
    conf, out = d / "tcp6.conf", d / "tcp6.iso"
    conf.write_text(CONF)
    subprocess.run([os.path.join(ROOT, "tools", "mkiso"), str(conf), str(out)], check=True, timeout=120)
    lab = netlab.Lab("test_tcp6", [netlab.Peer(addrs=["10.8.0.2/24", "2001:db8:6::2/64"])], iso=str(out))
    lab.start()
    lab.peers[0].run(["ping", "-6", "-c", "1", "-W", "5", ADDR6], timeout=10)  # neighbours both ways
    yield lab
    lab.close()


def counters(m):
    return m.json("show stats json")["counters"]


def test_curl6_10mb(lab):
    peer, m = lab.peers[0], lab.machine
    before = counters(m)
    n = 10485760
    r = peer.run(["bash", "-c", f"curl -6 -sS --max-time 120 http://[{ADDR6}]/bytes/{n} | tee >(wc -c >&2) | sha256sum"],
                 timeout=150)
    assert r.stdout.split()[0] == netlab.pattern_sha256(n), r.stderr
    assert r.stderr.strip().endswith(str(n)), r.stderr
    c = counters(m)
    d = {k: c[k] - before.get(k, 0) for k in c}
    assert d["tcp-accepted"] == 1 and d["tcp-bad-checksum"] == 0 and d["tcp-rst-tx"] == 0, d
    assert d["tcp-rx"] > 0 and d["tcp-tx"] > 7000, d  # 10 MB in 1428-byte segments at most
    assert d["ip6-tx"] >= d["tcp-tx"] and d["ip4-tx"] == 0, d
    # QEMU's tap offers HOST_TSO6: the body leaves as TSO frames.
    eth0 = m.json("show interfaces json")["interfaces"][0]
    print(f"tso6 {eth0['offloads']['tso6']}: {d['tcp-tso']} TSO frames, {d['tcp-tx']} segments")
    if eth0["offloads"]["tso6"]:
        assert d["tcp-tso"] > 0 and d["tcp-tx"] >= 2 * d["tcp-tso"], d


def test_concurrent_curls6(lab):
    peer, m = lab.peers[0], lab.machine
    before = counters(m)["tcp-accepted"]
    script = (f"for i in $(seq 20); do curl -6 -sS --max-time 60 -o /dev/null -w '%{{http_code}} %{{size_download}}\\n' "
              f"http://[{ADDR6}]/bytes/$((i * 5000)) & done; wait")
    r = peer.run(["bash", "-c", script], timeout=120)
    got = sorted(tuple(map(int, line.split())) for line in r.stdout.splitlines())
    assert got == [(200, i * 5000) for i in range(1, 21)], r.stdout + r.stderr
    assert counters(m)["tcp-accepted"] - before == 20
    # And IPv4 to the same listener, beside it.
    r = peer.run(["curl", "-4", "-sS", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                  f"http://{ADDR4}/bytes/1000"], timeout=40)
    assert r.stdout == "200 1000", r.stdout + r.stderr


def test_nc6_echo_and_show_tcp(lab):
    peer, m = lab.peers[0], lab.machine
    data = os.urandom(50000).hex()
    r = peer.run(["timeout", "60", "nc", "-6", "-N", ADDR6, "7"], input=data, timeout=90)
    assert r.stdout == data
    nc = peer.popen(["nc", "-6", "-N", ADDR6, "7"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        nc.stdin.write(b"hi\n")
        nc.stdin.flush()
        assert nc.stdout.readline() == b"hi\n"
        conns = m.json("show tcp json")["connections"]
        live = [c for c in conns if c["local"] == f"[{ADDR6}]:7" and c["remote"].startswith("[2001:db8:6::2]:")]
        assert len(live) == 1, conns
        assert live[0]["state"] == "ESTABLISHED" and live[0]["mss"] == 1440 and live[0]["sack"], live[0]
        assert f"[{ADDR6}]:7" in m.cmd("show tcp")
    finally:
        nc.stdin.close()
        nc.wait(timeout=20)


def test_iperf3_6(lab):
    peer, m = lab.peers[0], lab.machine
    before = counters(m)
    r = peer.run(["timeout", "40", "iperf3", "-6", "-c", ADDR6, "-t", "2", "-J"], check=False, timeout=50)
    assert r.returncode == 0, r.stdout + r.stderr
    end = json.loads(r.stdout)["end"]
    assert end["sum_received"]["bytes"] > 0
    print(f"iperf3 -6: {end['sum_received']['bits_per_second'] / 1e6:.1f} Mbit/s")
    c = counters(m)
    d = {k: c[k] - before.get(k, 0) for k in c}
    assert d["tcp-rx"] > 1000 and d["tcp-bad-checksum"] == 0, d
