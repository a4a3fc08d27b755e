# SPDX-License-Identifier: MIT
"""tools/linux_guest: Debian's Linux kernel (its own ixgbe, ixgbevf, igb,
igbvf, mlx5_core drivers) booted in QEMU from a busybox initramfs, as an
independent driver for NIC models. See docs/linux-guest.md.

    import linux_guest as lg
    k = lg.fetch()                                    # fetch.py
    lg.build_initramfs(k, ["igb", "igbvf"], script, "x.cpio.gz")  # initramfs.py
    argv = lg.qemu_args(k, "x.cpio.gz", [lg.Port("igb", "tap0")])  # guest.py
    lab = lg.GuestLab("name", peers, k, "x.cpio.gz", model="igb")  # lab.py
    lg.Router(macs, addrs, neighbours).script()       # router.py: a router

Command line: python3 tools/linux_guest --help
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fetch import CACHE, Kernel, Unavailable, cached, fetch  # noqa: E402,F401
from initramfs import build_initramfs  # noqa: E402,F401
from guest import (FIRMWARE_DIRS, Guest, Port, default_qemu, dmesg, parse,  # noqa: E402,F401
                   port_args, qemu_args)
from lab import GuestLab  # noqa: E402,F401
from qemu import QemuError  # noqa: E402,F401  tools/qemu.py's: a wait that ran out
from nic_check import CheckFailed, NicCheck  # noqa: E402,F401
from router import MODULES as ROUTER_MODULES, READY_RX as ROUTER_READY_RX, Router, StandIn  # noqa: E402,F401
