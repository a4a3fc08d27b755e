# SPDX-License-Identifier: MIT
"""tests/e2e/conftest.py: hayate with Linux hosts on its ports.

    def test_ping(netlab):
        lab = netlab(["10.0.0.2/24", "10.0.1.2/24"],          # one peer a port
                     config="interface eth0 address 10.0.0.1/24\\n...")
        lab.peers[0].run("ping -c1 -W2 10.0.0.1")
        lab.machine.json("show interfaces json")

A peer is an address string, a list of them, or a tools/netlab.py Peer
(addresses and routes). Each peer is a network namespace holding the tap of
one guest port; only addresses inside those namespaces are ever targets.
Skips, saying why, where taps or namespaces cannot be had (not root).
Everything is torn down after the test, passed or failed.
"""
import pytest

import netlab as nl


@pytest.fixture(scope="session")
def netlab_ok():
    why = nl.probe()
    if why:
        pytest.skip(f"e2e: {why}")
    nl.remove_stale()  # left by an earlier run that was killed hard


@pytest.fixture
def netlab(request, netlab_ok, iso, mkiso, record_ready):
    """netlab(peers, config=None, files=(), iso=None, ready=True,
    queues=1, model="virtio-net-pci", smp=1, ...) -> a started Lab.
    config (text) builds an image with tools/mkiso, FILEs as modules."""
    labs = []

    def start(peers, config=None, files=(), iso_path=None, ready=True, **kw):
        def peer(p):
            if isinstance(p, nl.Peer):
                return p
            return nl.Peer(addrs=[p] if isinstance(p, str) else list(p))
        if config is not None:
            iso_path = mkiso(config, files)
        name = request.node.name + (f"-{len(labs)}" if labs else "")
        lab = nl.Lab(name, [peer(p) for p in peers], iso=iso_path or iso, **kw)
        labs.append(lab)
        lab.start(ready=False)
        if ready:
            record_ready(lab.machine)
        return lab

    yield start
    for lab in labs:
        lab.close()
