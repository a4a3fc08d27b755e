# SPDX-License-Identifier: MIT
"""tools/linux_guest/lab.py: the Linux guest with each NIC port on a host
tap inside a network namespace of its own, as tools/netlab.py does for
hayate (same names, same teardown, same stale clean-up).

    peer = netlab.Peer(addrs=["10.0.0.2/24"])
    lab = GuestLab("igb", [peer], kernel, initrd, model="igb")
    g = lab.start()         # taps, QEMU, namespaces; returns the Guest
    peer.run("ping -c1 -W2 10.0.0.1")
    lab.close()
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import netlab  # noqa: E402
import qemu  # noqa: E402

from guest import Guest, Port, qemu_args  # noqa: E402


class GuestLab(netlab.Lab):
    """netlab.Lab with a Linux guest (guest.Guest) in place of hayate: one
    Port of model a peer, behind root ports rp1, rp2, ..."""

    def __init__(self, name, peers, kernel, initrd, model="igb", qemu_bin=None,
                 memory="512M", smp=1, append="", port_extra="", qemu_extra=()):
        why = netlab.unavailable()
        if why:
            raise RuntimeError(why)
        self.name = name
        self.peers = list(peers)
        for p in self.peers:
            p.ns = p.ns or netlab.unique_name()
            p.tap = p.tap or p.ns
        self.queues = 1
        self.nics = [qemu.Nic(p.tap) for p in self.peers]  # Lab.start reads .queues
        self.ports = [Port(model, p.tap, extra=port_extra) for p in self.peers]
        argv = qemu_args(kernel, initrd, self.ports, qemu_bin=qemu_bin, memory=memory,
                         smp=smp, append=append) + list(qemu_extra)  # e.g. -d guest_errors
        self.machine = Guest(argv, name=name)

    def start(self, ready=False):
        """Taps, QEMU, then each tap into its namespace; the Guest. (No
        "hayate: ready" to wait for: the test follows the LG-* lines.)"""
        super().start(ready=False)
        return self.machine
