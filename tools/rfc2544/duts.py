# SPDX-License-Identifier: MIT
"""tools/rfc2544/duts.py: the devices under test, each a QEMU guest whose
port A (first port, MAC DUT_MACS[0]) is wired to the tester's eth0 and
port B to its eth1 (wiring.py):

  HayateDut   hayate's image as a router: interface eth0 198.18.0.1/16,
              eth1 198.19.0.1/16, `arp ADDR MAC` for the tester's two
              addresses, and `idle halt`.
  LinuxDut    Debian's kernel with busybox (tools/linux_guest, Router):
              the same addresses, ip_forward=1, permanent neighbours.

Each: start() boots and returns once it forwards; stop() ends it and
returns notes (e.g. its port counters) for the run's log.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, TOOLS)
import linux_guest as lg  # noqa: E402
import qemu  # noqa: E402

from .wiring import DUT_ADDRS, DUT_MACS, TESTER_ADDRS, TESTER_MACS, addr  # noqa: E402

CONFIG_ERROR_RX = re.compile(r"(?m)^config: line (\d+): ([^\r\n]*)")


def mkiso(conf_text, out_iso):
    """tools/mkiso with conf_text beside out_iso (NAME.conf); returns out_iso."""
    conf = os.path.splitext(out_iso)[0] + ".conf"
    with open(conf, "w") as f:
        f.write(conf_text)
    r = subprocess.run([os.path.join(TOOLS, "mkiso"), conf, out_iso], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        raise RuntimeError(f"tools/mkiso {conf}: {r.stderr.strip()}")
    return out_iso


def config_errors(machine):
    """[(line, why)] hayate reported for its configuration while booting."""
    return [(int(n), why) for n, why in CONFIG_ERROR_RX.findall(machine.log)]


def hayate_nics(wires, side, macs):
    return [qemu.Nic("", mac=macs[i], netdev=wires.netdev(side, i)) for i in range(2)]


class HayateDut:
    name = "hayate"

    def __init__(self, wires, out_dir, smp=1, memory="512M", boot_timeout=120):
        self.wires, self.out_dir = wires, out_dir
        self.smp, self.memory, self.boot_timeout = smp, memory, boot_timeout
        self.machine = None
        self.notes = []

    def config(self):
        # idle halt: the DUT sleeps between bursts as Linux does. Under TCG
        # the two guests share the host's two cores, and a DUT polling
        # while idle takes the tester's time (NDR at 64 bytes 4,417
        # frames/s polling, 13,833 halting, of a 14,880 line).
        lines = ["hostname dut", "idle halt",
                 f"interface eth0 address {DUT_ADDRS[0]}",
                 f"interface eth1 address {DUT_ADDRS[1]}"]
        # Static ARP for the tester, which does not answer ARP itself.
        lines += [f"arp {addr(a)} {m}" for a, m in zip(TESTER_ADDRS, TESTER_MACS)]
        return "\n".join(lines) + "\n"

    def start(self):
        iso = mkiso(self.config(), os.path.join(self.out_dir, "dut-hayate.iso"))
        self.machine = qemu.Machine(iso, name="rfc2544-dut-hayate", smp=self.smp,
                                    memory=self.memory,
                                    nics=hayate_nics(self.wires, "dut", DUT_MACS))
        self.machine.start()
        self.machine.wait_ready(self.boot_timeout)
        lines = self.config().splitlines()
        for n, why in config_errors(self.machine):
            line = lines[n - 1] if 0 < n <= len(lines) else "?"
            raise RuntimeError(f"hayate DUT: config line {n} ({line!r}): {why}")
        return self.machine

    def stop(self):
        m = self.machine
        if m is None:
            return self.notes
        try:
            if m.running():
                for port in m.json("show interfaces json").get("interfaces", []):
                    c = port.get("counters", port)
                    self.notes.append(f"{port.get('name', '?')}: rx {c.get('rx-packets')} "
                                      f"tx {c.get('tx-packets')} tx-full {c.get('tx-full')}")
                m.shutdown(30)
        except qemu.QemuError as e:
            self.notes.append(f"shutdown: {str(e).splitlines()[0]}")
        finally:
            m.kill()
        return self.notes


class LinuxDut:
    name = "linux"

    def __init__(self, wires, out_dir, smp=1, memory="512M", boot_timeout=180, static_neigh=True):
        self.wires, self.out_dir = wires, out_dir
        self.smp, self.memory, self.boot_timeout = smp, memory, boot_timeout
        self.static_neigh = static_neigh
        self.guest = None
        self.notes = []

    def router(self):
        neigh = tuple((addr(a), m) for a, m in zip(TESTER_ADDRS, TESTER_MACS)) if self.static_neigh else ()
        return lg.Router(macs=DUT_MACS, addrs=DUT_ADDRS, neighbours=neigh)

    def start(self):
        k = lg.fetch()
        initrd = os.path.join(self.out_dir, "dut-linux.cpio.gz")
        lg.build_initramfs(k, lg.ROUTER_MODULES, self.router().script(), initrd)
        ports = [lg.Port("virtio-net-pci", "", mac=DUT_MACS[i], netdev=self.wires.netdev("dut", i))
                 for i in range(2)]
        argv = lg.qemu_args(k, initrd, ports, memory=self.memory, smp=self.smp)
        self.guest = lg.Guest(argv, name="rfc2544-dut-linux")
        self.guest.start()
        try:
            self.guest.wait_for(lg.ROUTER_READY_RX, self.boot_timeout)
        finally:
            bad = {n: d for n, (s, d) in self.guest.results().items() if s != "PASS"}
        if bad:
            raise RuntimeError(f"Linux DUT: {bad} (log {self.guest.log_path})")
        return self.guest

    def stop(self):
        g = self.guest
        if g is None:
            return self.notes
        try:
            if g.running() and "LG-DONE" not in g.log:
                g.reply("go")
                g.wait_dmesg(30)
            self.notes += [f"{k}: {v}" for k, v in g.values().items() if k.startswith("counters-")]
        except qemu.QemuError as e:
            self.notes.append(f"stop: {str(e).splitlines()[0]}")
        finally:
            g.kill()
        return self.notes


DUTS = {"hayate": HayateDut, "linux": LinuxDut}
