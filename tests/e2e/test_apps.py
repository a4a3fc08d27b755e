# SPDX-License-Identifier: MIT
"""tests/e2e/test_apps.py: an app serves on every port with an address,
whether or not anything is routed (issue 27): the stack runs on every core
as a kernel service (kernel/netsvc/), and an app is written against
kernel/app.h, not against the router. With one IPv4 address and no route,
`app http` and `app udp-echo` answer there; with no address at all the
apps have nowhere to serve (IPv6, link-local included, is on only where a
port has an IPv6 address: net/ip/ip6.c), and the console says so."""
import netlab as nl

UDP_ECHO = r"""
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
data = b"hayate app, nothing routed"
for attempt in range(10):
    s.sendto(data, (sys.argv[1], 7))
    try:
        got, frm = s.recvfrom(2000)
        break
    except socket.timeout:
        continue
else:
    sys.exit("no answer")
assert got == data and frm[1] == 7, (got, frm)
print("ok")
"""


def test_app_on_one_address_no_routes(netlab):
    """One interface address, no route: the apps start and answer, and
    /metrics serves the whole system's counters (kernel/app.h's app_metric)."""
    lab = netlab(["10.7.0.2/24"], config="hostname a1\ninterface eth0 address 10.7.0.1/24\n"
                 "app http port 80\napp udp-echo port 7\n")
    m, peer = lab.machine, lab.peers[0]
    assert "config: line" not in m.log, m.tail()
    assert "no route to 10.8.0.1" in m.cmd("show route 10.8.0.1")
    n = 1000000
    r = peer.run(["bash", "-c", f"curl -sS --max-time 60 http://10.7.0.1/bytes/{n} | tee >(wc -c >&2) | sha256sum"],
                 timeout=120)
    assert r.stdout.split()[0] == nl.pattern_sha256(n) and r.stderr.strip().endswith(str(n)), r.stderr
    r = peer.run(["python3", "-c", UDP_ECHO, "10.7.0.1"], check=False, timeout=30)
    assert r.stdout.strip() == "ok", r.stdout + r.stderr
    metrics = peer.run("curl -sS --max-time 30 http://10.7.0.1/metrics").stdout
    assert "hayate_tcp_accepted" in metrics and "hayate_fwd_rx" in metrics, metrics[:2000]


def test_apps_without_any_address_say_so(boot, mkiso):
    """No port has an address: nothing can reach the apps, and the console
    says why instead of starting nothing in silence."""
    m = boot(mkiso("hostname a2\napp http port 80\n"))
    assert "netsvc: no port has an address: the apps have nowhere to serve" in m.log, m.tail()
    assert "config: line" not in m.log, m.tail()
