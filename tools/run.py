#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/run.py (`make run`): boot build/hayate.iso in QEMU with two ports,
each wired to a Linux network namespace, and hand over the console.

Interactive (stdin a terminal): raw passthrough until `shutdown` or Ctrl-].
Otherwise (CI, a pipe): boot, `show version`, `shutdown`, never waiting on
input. Namespaces and taps are removed on the way out, whatever happens.
"""
import argparse
import os
import select
import signal
import sys
import termios
import tty

import netlab
import qemu

CTRL_RBRACKET = b"\x1d"
# The two ports and the Linux host on each; hayate's side comes from the
# configuration (tools/run.conf, which `make run` boots).
PORTS = [
    # port,  namespace,  peer address,  hayate's address, route to the far side
    ("eth0", "hy-left", "10.0.0.2/24", "10.0.0.1", "10.0.1.0/24 via 10.0.0.1"),
    ("eth1", "hy-right", "10.0.1.2/24", "10.0.1.1", "10.0.0.0/24 via 10.0.1.1"),
]


def explain(args, lab):
    acc = qemu.accel_default()
    print(f"hayate in QEMU ({acc}, {args.smp} CPUs, {args.memory}), console on this terminal.")
    if lab is None:
        return
    print("hayate is a router between two Linux hosts. Each of its ports is a tap")
    print("device in a network namespace of its own: a host wired straight to it.\n")
    print(f"  {'port':<6}{'namespace':<11}{'Linux peer':<14}{'hayate':<10}")
    for port, ns, peer, hayate, _ in PORTS:
        print(f"  {port:<6}{ns:<11}{peer:<14}{hayate:<10}")
    left, right = PORTS[0], PORTS[1]
    tries = [(f"ip netns exec {left[1]} ping {left[3]}", f"hayate's {left[0]}"),
             (f"ip netns exec {left[1]} ping {right[2].split('/')[0]}", f"through hayate to {right[1]}"),
             (f"ip netns exec {left[1]} traceroute -n {right[2].split('/')[0]}", "hayate is the first hop"),
             (f"ip netns exec {left[1]} nc -u {left[3]} 7", "app udp-echo echoes each line"),
             (f"ip netns exec {left[1]} ping -6 2001:db8:1::1", "IPv6: hayate's eth1, by the route its RA gave"),
             (f"ip netns exec {right[1]} tcpdump -ni {right[1]}", f"what hayate sends on {right[0]}")]
    print("\nTry, from another terminal:")
    for c, why in tries:
        print(f"  {c:<45} # {why}")
    print("Console: help, show interfaces, show stats, show arp, show route 10.0.1.2,")
    print("route add 10.2.0.0/16 via 10.0.1.2, shutdown. Ctrl-] leaves (and stops QEMU).\n")


def interact(m):
    """Raw passthrough: keys to the guest, its output straight out."""
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setraw(fd)
    try:
        while m.running():
            r, _, _ = select.select([fd], [], [], 0.2)
            if not r:
                continue
            data = os.read(fd, 1024)
            if not data or CTRL_RBRACKET in data:
                m.send(data.split(CTRL_RBRACKET)[0])
                return "left the console (Ctrl-])"
            m.send(data)
        return f"QEMU exited (status {m.wait_exit(1)})"
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("iso", nargs="?", default=qemu.ISO)
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--memory", default="512M")
    args = ap.parse_args()
    if qemu.accel_default() == "kvm" and not os.access("/dev/kvm", os.W_OK):
        print("run: HAYATE_ACCEL=kvm but /dev/kvm is not usable: using tcg")
        os.environ["HAYATE_ACCEL"] = "tcg"
    interactive = sys.stdin.isatty()
    out = sys.stdout.buffer

    def echo(data):
        out.write(data)
        out.flush()

    # Leave through the finally below on kill or hang-up too.
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, lambda *_: sys.exit(1))

    why = netlab.unavailable()
    lab = None
    kw = dict(smp=args.smp, memory=args.memory, on_output=echo)
    if why:
        print(f"run: no network ports: {why}.")
        print("  As root, `make run` puts each hayate port on a tap device in its own")
        print("  network namespace (hy-left, hy-right) with a Linux host on it.")
        m = qemu.Machine(args.iso, name="run", **kw)
    else:
        peers = [netlab.Peer(addrs=[peer], routes=[route], ns=ns, accept_ra=True)
                 for _, ns, peer, _, route in PORTS]
        lab = netlab.Lab("run", peers, iso=args.iso, **kw)
        m = lab.machine
    explain(args, lab)
    try:
        if lab:
            lab.start(ready=False)
        else:
            m.start()
        if interactive:
            status = interact(m)
            print(f"\r\nrun: {status}")
            return 0
        m.wait_ready()
        m.cmd("show version")
        m.shutdown()
        print(f"\nrun: booted in {m.ready_s:.2f}s; shut down (not a terminal, so no console)")
        return 0
    except qemu.QemuError as e:
        print(f"\nrun: {e}\nrun: full console log: {m.log_path}")
        return 1
    finally:
        if lab:
            lab.close()
        else:
            m.kill()


if __name__ == "__main__":
    sys.exit(main())
