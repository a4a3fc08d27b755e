# SPDX-License-Identifier: MIT
"""tools/linux_guest/guest.py: the QEMU command line for Debian's kernel with
an initramfs, NIC ports behind PCIe root ports, and a running guest whose
console a test reads (LG-* lines, see initramfs.py).

    argv = qemu_args(kernel, "x.cpio.gz", nics=[Port("igb", "tap0")])
    g = Guest(argv, name="linux-igb").start()
    g.wait_step("pf-up", 60)        # LG-WAIT pf-up, then ...
    g.reply("go")                   # ... the guest's lg_wait returns
    res = g.wait_done(60)           # {name: (status, detail)} at LG-DONE
    g.wait_exit(10)                 # 0: the guest powered off

QEMU: Debian's qemu-system-x86_64 unless qemu= (or HAYATE_LINUX_QEMU) names
another, e.g. build/qemu/qemu-system-x86_64 with `-device ixgbe`. A QEMU
built from source does not find Debian's firmware by itself: the -L list
below is always given.
"""
import os
import re
import shlex
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import qemu  # noqa: E402  tools/qemu.py: the console reader and log

FIRMWARE_DIRS = ("/usr/share/seabios", "/usr/share/qemu", "/usr/lib/ipxe/qemu")
# Kernel command line: the console on the first serial port, no mitigation
# work under TCG, warnings only on the console (the whole log is dumped at
# LG-DONE), and a panic ends the run (-no-reboot) instead of hanging it.
APPEND = "console=ttyS0 loglevel=4 mitigations=off panic=-1 nokaslr"
RESULT_RX = re.compile(r"(?m)^LG-RESULT (\S+) (PASS|FAIL) ?([^\r\n]*)")
VALUE_RX = re.compile(r"(?m)^LG-VALUE (\S+) ?([^\r\n]*)")
DONE_RX = re.compile(r"(?m)^LG-DONE pass=(\d+) fail=(\d+)")


def default_qemu():
    return os.environ.get("HAYATE_LINUX_QEMU", "qemu-system-x86_64")


@dataclass
class Port:
    """One NIC port on a host tap, alone behind its own PCIe root port
    (as on a real server; its VFs land on the root port's bus)."""
    model: str          # QEMU device: "igb", later "ixgbe"
    tap: str
    mac: str = ""       # default 52:54:00:4c:47:<index> ("LG")
    extra: str = ""     # more ",key=value" device properties
    netdev: str = ""    # another backend in place of the tap, without its id
                        # (e.g. "dgram,...": a port wired to another guest's)


def port_args(i, port):
    """-device pcie-root-port (rp<i+1>, slot and chassis i+1), the NIC at
    addr 0 of its bus, and its tap netdev."""
    n = i + 1
    mac = port.mac or "52:54:00:4c:47:%02x" % n
    backend = f"tap,id=n{n},ifname={port.tap},script=no,downscript=no,vhost=off"
    if port.netdev:
        backend = f"{port.netdev},id=n{n}"
    return ["-device", f"pcie-root-port,id=rp{n},slot={n},chassis={n}",
            "-netdev", backend,
            "-device", f"{port.model},bus=rp{n},addr=0,romfile=,netdev=n{n},mac={mac}{port.extra}"]


def qemu_args(kernel, initrd, nics=(), qemu_bin=None, memory="512M", smp=1,
              append="", accel=None):
    """The whole QEMU command line: q35, hayate's accelerator (TCG unless
    HAYATE_ACCEL says: nested KVM hangs on these hosts), Debian's firmware
    directories, the kernel and initrd, the serial console on stdio, each
    Port behind its own root port."""
    accel = accel or qemu.accel_default()
    argv = [qemu_bin or default_qemu(), "-machine", "q35", "-accel", accel,
            "-cpu", "host" if accel == "kvm" else "max", "-m", str(memory), "-smp", str(smp)]
    for d in FIRMWARE_DIRS:
        argv += ["-L", d]
    argv += ["-display", "none", "-serial", "stdio", "-monitor", "none", "-no-reboot",
             "-kernel", kernel.vmlinuz, "-initrd", str(initrd),
             "-append", (APPEND + " " + append).strip()]
    if not nics:
        argv += ["-nic", "none"]  # else q35 adds an e1000e of its own
    for i, p in enumerate(nics):
        argv += port_args(i, p)
    return argv


def parse(text):
    """(results {name: (status, detail)}, values {key: value}, done) from
    console text; done is (pass, fail) once LG-DONE was printed, else None.
    Only text before LG-DMESG-BEGIN counts."""
    text = text.replace("\r", "").split("LG-DMESG-BEGIN")[0]
    results = {m.group(1): (m.group(2), m.group(3).strip()) for m in RESULT_RX.finditer(text)}
    values = {m.group(1): m.group(2).strip() for m in VALUE_RX.finditer(text)}
    d = DONE_RX.search(text)
    return results, values, (int(d.group(1)), int(d.group(2))) if d else None


def dmesg(text):
    """The kernel log the guest dumped at the end ('' before that)."""
    text = text.replace("\r", "")
    _, _, rest = text.partition("LG-DMESG-BEGIN\n")
    return rest.partition("LG-DMESG-END")[0]


class Guest(qemu.Machine):
    """A running Linux guest: tools/qemu.py's Machine (console buffer, log
    in build/test-logs/NAME.log, kill on close) with our command line."""

    def __init__(self, argv, name="linux-guest", **kw):
        super().__init__(iso="", name=name, **kw)
        self.argv = list(argv)

    def wait_step(self, tag, timeout=60.0):
        """Wait until the guest's script is blocked in `lg_wait TAG`."""
        self.wait_for(r"(?m)^LG-WAIT " + re.escape(tag) + r"\r?$", timeout)

    def reply(self, line="go"):
        """The line lg_wait reads (it lands in the script's $LG_REPLY)."""
        self.send(line + "\n")

    def results(self):
        return parse(self.log)[0]

    def values(self):
        return parse(self.log)[1]

    def wait_done(self, timeout=60.0):
        """Wait for LG-DONE; the results {name: (status, detail)}."""
        self.wait_for(DONE_RX, timeout)
        return self.results()

    def abort(self, timeout=20.0):
        """End the guest's run from the host: if it sits in lg_wait, it
        reports that step failed and dumps its kernel log; returns the log
        ('' if the guest did not get there in time)."""
        if "LG-DMESG-END" not in self.log:
            if "LG-DONE" not in self.log:
                self.reply("abort")
            try:
                self.wait_for(r"LG-DMESG-END", timeout)
            except qemu.QemuError:
                return ""
        return dmesg(self.log)

    def wait_dmesg(self, timeout=20.0):
        """Wait for the kernel log dump after LG-DONE; returns it."""
        self.wait_for(r"LG-DMESG-END", timeout)
        return dmesg(self.log)

    def command_line(self):
        return shlex.join(self.argv)
