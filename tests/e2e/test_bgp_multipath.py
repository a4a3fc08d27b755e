# SPDX-License-Identifier: MIT
"""tests/e2e/test_bgp_multipath.py: BGP multipath (`bgp multipath N`:
bgp_rib_multipath, an ECMP group in the FIB) with two BIRD neighbours.

eth0: host A sends flows. eth1 and eth2: a BIRD each, both in AS 65002,
both announcing 198.51.100.0/24 and 2001:db8:100::/48 with the same
attributes (their router IDs alone would tell them apart), and each
owning 198.51.100.5 and 2001:db8:100::5. Checked, each family:
`show bgp route` marks both paths as forwarded on, the FIB entry has two
paths, 64 flows from A reach both BIRDs and each flow one of them; one
BIRD withdraws: a single path via the other, every flow there; it
announces again: two paths again.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import netlab as nl  # noqa: E402
from test_bgp import PEER_AS, Bird, config_ok, daemon_diag, daemons, established, hayate_conf, needs_bird, until  # noqa: E402,F401
from test_ecmp import FLOWS, flows_reaching, three_ports  # noqa: E402

pytestmark = pytest.mark.skipif(nl.unavailable() is not None, reason=str(nl.unavailable()))

FAMILIES = {
    "ipv4": dict(prefix="198.51.100.0/24", dst="198.51.100.5", gws=("10.0.1.2", "10.0.2.2"), fam="AF_INET",
                 proto="s4"),
    "ipv6": dict(prefix="2001:db8:100::/48", dst="2001:db8:100::5", gws=("2001:db8:b::2", "2001:db8:c::2"),
                 fam="AF_INET6", proto="s6"),
}


def paths(m, dst):
    r = m.json(f"show route {dst} json")
    return sorted(p["nexthop"] for p in r.get("paths", [])) or ([r["nexthop"]] if r.get("found") else [])


@needs_bird
def test_bgp_multipath_two_birds(netlab, daemons, tmp_path, report):
    conf = hayate_conf([["10.0.0.1/24", "2001:db8:a::1/64"], ["10.0.1.1/24", "2001:db8:b::1/64"],
                        ["10.0.2.1/24", "2001:db8:c::1/64"]],
                       [f"{gw} as {PEER_AS} import all export none" for gw in ("10.0.1.2", "10.0.2.2")],
                       extra="bgp multipath 4\n")
    lab = three_ports(netlab, conf)
    m = lab.machine
    config_ok(m)
    birds = []
    for peer, ours, v6 in zip(lab.peers[1:], ("10.0.1.1", "10.0.2.1"), ("2001:db8:b::2", "2001:db8:c::2")):
        peer.ip("addr add 198.51.100.5/32 dev lo")
        peer.ip("-6 addr add 2001:db8:100::5/128 dev lo nodad")
        bird = Bird(peer, tmp_path, ours, PEER_AS)
        daemons.append(bird)
        bird.start({"s4": ["198.51.100.0/24"], "s6": ["2001:db8:100::/48"]}, v6_nexthop=v6)
        birds.append(bird)
    diag = lambda: m.tail() + "".join(daemon_diag(b)() for b in birds)  # noqa: E731
    for gw in ("10.0.1.2", "10.0.2.2"):
        established(m, gw, diag)

    for fam, f in FAMILIES.items():
        both = sorted(f["gws"])
        until(f"{fam}: two paths in the FIB for {f['prefix']}", lambda: paths(m, f["dst"]) == both, diag=diag)
        r = m.json(f"show bgp route {f['prefix']} json")
        assert len(r["paths"]) == 2 and all(p["multipath"] for p in r["paths"]), r
        got = flows_reaching(lab, f)
        assert len(got) == FLOWS, got
        per_bird = [sum(1 for h, _ in got.values() if h == i) for i in (0, 1)]
        assert min(per_bird) > 0, per_bird

        birds[1].birdc(f"disable {f['proto']}")
        until(f"{fam}: one path after BIRD 2's withdrawal", lambda: paths(m, f["dst"]) == [f["gws"][0]], diag=diag)
        got = flows_reaching(lab, f)
        assert len(got) == FLOWS and all(h == 0 for h, _ in got.values()), got
        birds[1].birdc(f"enable {f['proto']}")
        until(f"{fam}: two paths again", lambda: paths(m, f["dst"]) == both, diag=diag)
        report(f"BGP multipath ({fam}, TCG): two BIRDs' equal paths in one ECMP group, {per_bird[0]}/{per_bird[1]} "
               f"of {FLOWS} flows; one withdrawn: every flow on the other; back: two paths")
    assert m.json("show bgp summary json")["multipath_fallbacks"] == 0
