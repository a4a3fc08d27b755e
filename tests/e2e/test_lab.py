# SPDX-License-Identifier: MIT
"""tests/e2e/test_lab.py: the e2e plumbing itself (tests/e2e/conftest.py,
tools/netlab.py): every guest port ends up on a live tap inside its own
namespace, configured, and nothing is left behind."""
import netlab as nl


def links(ns=None):
    return nl.sh(["ip"] + (["-n", ns] if ns else []) + ["-o", "link", "show"]).stdout


def test_ports_wired_into_namespaces(netlab):
    lab = netlab(["10.0.0.2/24", "10.0.1.2/24"])
    for p in lab.peers:
        ln = [x for x in links(p.ns).splitlines() if f" {p.tap}:" in x]
        # QEMU holds the tap, so it has carrier (LOWER_UP) in its namespace.
        assert ln and "LOWER_UP" in ln[0] and ",UP" in ln[0], links(p.ns)
        assert p.addrs[0] in p.ip(f"-o addr show dev {p.tap}").stdout
        assert f" {p.tap}:" not in links()  # moved out of the host's namespace
    assert lab.machine.cmd("show version")


def test_routes_and_multiqueue(netlab):
    peer = nl.Peer(addrs=["10.9.0.2/24", "2001:db8:9::2/64"],
                   routes=["10.8.0.0/16 via 10.9.0.1", "2001:db8:8::/48 via 2001:db8:9::1"])
    lab = netlab([peer], queues=4, smp=2)
    assert "10.8.0.0/16 via 10.9.0.1" in peer.ip("route show").stdout
    assert "2001:db8:8::/48 via 2001:db8:9::1" in peer.ip("-6 route show").stdout
    assert "multi_queue" in peer.ip(f"-d link show {peer.tap}").stdout


def test_cleanup(netlab):
    lab = netlab(["10.0.0.2/24"], ready=False)
    ns = lab.peers[0].ns
    lab.close()
    assert ns not in nl.sh("ip netns list").stdout
    assert f" {ns}:" not in links()
