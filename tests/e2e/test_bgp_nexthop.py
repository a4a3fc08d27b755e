# SPDX-License-Identifier: MIT
"""tests/e2e/test_bgp_nexthop.py: BGP next hops that are not on a link of
hayate's, resolved over static routes (RFC 4271 5.1.3, 9.1.2.1), resolved
again when those change, and a static route of a BGP prefix winning over
BGP's (administrative distance), in both families.

eth0: BIRD, an iBGP neighbour (AS 65001 as hayate), announces
198.51.100.0/24 with next hop 10.9.9.9 and 2001:db8:100::/48 with next
hop 2001:db8:9::9, neither on any link. eth1: host B owns 198.51.100.5
and 2001:db8:100::5, reached through it. Checked, each family:
- no static route: the path is held, not reachable, not best, not in the FIB;
- `route add` of the next hop's subnet via B: reachable at IGP cost 1,
  best, in the FIB via B; BIRD's host pings B's address through hayate
  (IPv4: B's echo count);
- that static route to another gateway: the FIB follows; to two (ECMP):
  the BGP route's FIB entry has both;
- a static route of the BGP prefix itself wins (`show bgp route` says so),
  survives BIRD withdrawing the prefix and announcing it again, and once it
  is deleted BGP's route is back in the FIB;
- the next hop's static route deleted: unreachable again, out of the FIB.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402
from test_bgp import (HAYATE_AS, Bird, config_ok, daemon_diag, daemons, established, fib_gone, fib_via,  # noqa: E402,F401
                      hayate_conf, icmp_echos_in, needs_bird, route, until)

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

FAMILIES = {
    # prefix, an address in it, BIRD's next hop, the static route holding it, B, another gateway
    "ipv4": ("198.51.100.0/24", "198.51.100.5", "10.9.9.9", "10.9.9.0/24", "10.0.1.2", "10.0.1.3", "10.0.1.4"),
    "ipv6": ("2001:db8:100::/48", "2001:db8:100::5", "2001:db8:9::9", "2001:db8:9::/48", "2001:db8:b::2",
             "2001:db8:b::3", "2001:db8:b::4"),
}


def bgp_path(m, prefix):
    """hayate's one path for prefix (from BIRD), and the route's JSON."""
    r = m.json(f"show bgp route {prefix} json")
    paths = r.get("paths", [])
    return (paths[0] if len(paths) == 1 else None), r


@needs_bird
def test_bgp_nexthop_over_static_routes(netlab, daemons, tmp_path):
    m_conf = hayate_conf([["10.0.0.1/24", "2001:db8:a::1/64"], ["10.0.1.1/24", "2001:db8:b::1/64"]],
                         [f"10.0.0.2 as {HAYATE_AS}"])
    lab = netlab([nl.Peer(addrs=["10.0.0.2/24", "2001:db8:a::2/64"],
                          routes=["198.51.100.0/24 via 10.0.0.1", "2001:db8:100::/48 via 2001:db8:a::1"]),
                  nl.Peer(addrs=["10.0.1.2/24", "2001:db8:b::2/64"],
                          routes=["10.0.0.0/24 via 10.0.1.1", "2001:db8:a::/64 via 2001:db8:b::1"])],
                 config=m_conf)
    m = lab.machine
    a_ns, b_ns = lab.peers
    b_ns.ip("addr add 198.51.100.5/32 dev lo")
    b_ns.ip("-6 addr add 2001:db8:100::5/128 dev lo")
    bird = Bird(a_ns, tmp_path, "10.0.0.1", HAYATE_AS)
    daemons.append(bird)
    bird.start({"s4": ["198.51.100.0/24"], "s6": ["2001:db8:100::/48"]}, v4_nexthop="10.9.9.9",
               v6_nexthop="2001:db8:9::9")
    config_ok(m)
    diag = daemon_diag(bird)
    established(m, "10.0.0.2", diag)

    for fam, (prefix, addr, nh, nh_net, gw_b, gw_other, gw_static) in FAMILIES.items():
        ping = "ping -c 5 -i 0.2 -W 2 " + ("-6 " if fam == "ipv6" else "") + addr
        # no route to the next hop: held, not usable
        p, r = until(f"{fam}: hayate holds BIRD's path to {prefix} via {nh}",
                     lambda: (x := bgp_path(m, prefix)) and x[0] and x[0]["next_hop"] == nh and x,
                     diag=lambda: m.tail() + diag())
        assert not p["reachable"] and not p["best"] and p["why"] == "next hop unreachable", r
        assert not route(m, addr)["found"], route(m, addr)

        # resolved over a static route: best, in the FIB via its gateway, traffic through
        m.cmd(f"route add {nh_net} via {gw_b}")
        fib_via(m, addr, gw_b, "eth1", diag)
        p, r = bgp_path(m, prefix)
        assert p["reachable"] and p["best"] and p["igp_cost"] == 1 and not r["static_wins"], r
        echos = icmp_echos_in(b_ns)
        out = a_ns.run(ping, check=False, timeout=30).stdout
        assert " 0% packet loss" in out, out + m.tail()
        if fam == "ipv4":
            assert icmp_echos_in(b_ns) - echos >= 5

        # the static route moves: the FIB follows; over two gateways, both
        m.cmd(f"route add {nh_net} via {gw_other}")
        fib_via(m, addr, gw_other, "eth1", diag)
        m.cmd(f"route add {nh_net} via {gw_b} via {gw_other}")
        until(f"{fam}: {prefix} over both of the static route's gateways",
              lambda: sorted(p["nexthop"] for p in route(m, addr).get("paths", [])) == sorted([gw_b, gw_other]),
              diag=lambda: f"{route(m, addr)}\n" + m.tail() + diag())
        m.cmd(f"route add {nh_net} via {gw_b}")
        fib_via(m, addr, gw_b, "eth1", diag)

        # a static route of the prefix itself wins, and outlives BGP's withdrawal
        m.cmd(f"route add {prefix} via {gw_static}")
        fib_via(m, addr, gw_static, "eth1", diag)
        assert bgp_path(m, prefix)[1]["static_wins"], bgp_path(m, prefix)
        proto = "s4" if fam == "ipv4" else "s6"
        bird.birdc(f"disable {proto}")
        until(f"{fam}: BIRD's withdrawal of {prefix} reaches hayate", lambda: bgp_path(m, prefix)[1]["paths"] == [],
              diag=lambda: m.tail() + diag())
        assert route(m, addr)["nexthop"] == gw_static, route(m, addr)
        bird.birdc(f"enable {proto}")
        until(f"{fam}: BIRD announces {prefix} again", lambda: (x := bgp_path(m, prefix)[0]) and x["best"],
              diag=lambda: m.tail() + diag())
        assert route(m, addr)["nexthop"] == gw_static, route(m, addr)
        m.cmd(f"route del {prefix}")
        fib_via(m, addr, gw_b, "eth1", diag)

        # the next hop's route goes: so does BGP's
        m.cmd(f"route del {nh_net}")
        fib_gone(m, addr, diag)
        p, r = bgp_path(m, prefix)
        assert not p["reachable"] and not p["best"], r

    s = m.json("show bgp summary json")
    assert s["fib_static_wins"] >= 2 and s["nexthop_changes"] >= 8, s
