# SPDX-License-Identifier: MIT
"""tools/rfc2544/tester.py: the tester side.

  HayateTester  hayate's image as the tester: the configuration statement
                `gen ports eth0 eth1 dst-mac DUT_A_MAC src 198.18.0.2 dst
                198.19.0.2`, then on the console `rfc2544 run ...` and
                `show rfc2544 json` polled until "state" is "done"; its JSON
                is one DUT entry of report.json less "name".
  StandInTester The Linux guest (tools/linux_guest StandIn) holding both
                tester addresses, pinging one from the other through the
                DUT: a check of the wiring and of the DUT's forwarding both
                ways, for when the generator is not in the image.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import linux_guest as lg  # noqa: E402
import qemu  # noqa: E402

from .duts import config_errors, hayate_nics, mkiso  # noqa: E402
from .wiring import DUT_ADDRS, DUT_MACS, TESTER_ADDRS, TESTER_MACS, addr  # noqa: E402

SIZES = ("64", "128", "256", "512", "1024", "1280", "1518", "imix")


class TesterError(RuntimeError):
    pass


def suite_command(sizes=SIZES, trial_ms=500, line_mbps=1000, precision_pct=1, pdr_pct=0.5,
                  drain_ms=None, repeat=1):
    """The console line that starts the suite (drain-ms: the tester's
    default unless given)."""
    return (f"rfc2544 run sizes {','.join(str(s) for s in sizes)} trial-ms {trial_ms} "
            + (f"drain-ms {drain_ms} " if drain_ms is not None else "")
            + f"line-mbps {line_mbps} precision-pct {precision_pct:g} pdr-pct {pdr_pct:g} repeat {repeat}")


class HayateTester:
    name = "tester"

    def __init__(self, wires, out_dir, smp=1, memory="512M", boot_timeout=120):
        self.wires, self.out_dir = wires, out_dir
        self.smp, self.memory, self.boot_timeout = smp, memory, boot_timeout
        self.machine = None

    @staticmethod
    def config():
        return ("hostname tester\n"
                f"gen ports eth0 eth1 dst-mac {DUT_MACS[0]} "
                f"src {addr(TESTER_ADDRS[0])} dst {addr(TESTER_ADDRS[1])}\n")

    def start(self, label):
        iso = mkiso(self.config(), os.path.join(self.out_dir, "tester.iso"))  # today's hayate.elf
        self.machine = qemu.Machine(iso, name=f"rfc2544-tester-{label}", smp=self.smp,
                                    memory=self.memory,
                                    nics=hayate_nics(self.wires, "tester", TESTER_MACS))
        self.machine.start()
        self.machine.wait_ready(self.boot_timeout)
        errs = config_errors(self.machine)
        if errs:
            raise TesterError("this hayate has no generator: the tester's configuration was refused: "
                              + "; ".join(f"line {n}: {why}" for n, why in errs)
                              + f" (console: {self.machine.log_path})")
        return self.machine

    def run_suite(self, line, timeout=1800, poll_s=2.0, progress=None):
        """Start the suite (line: suite_command()), poll until done; the
        result dict without "state"."""
        m = self.machine
        out = m.cmd(line, timeout=30)
        if "try 'help'" in out or out.lower().startswith(("usage", "error", "rfc2544: ")):
            raise TesterError(f"{line!r}: {out.strip()}")
        deadline = time.monotonic() + timeout
        last = None
        while True:
            try:
                res = m.json("show rfc2544 json", timeout=30)
            except qemu.QemuError as e:
                raise TesterError(f"show rfc2544 json: {str(e).splitlines()[0]} "
                                  f"(console: {m.log_path})")
            state = res.get("state")
            if res.get("error"):
                raise TesterError(f"the suite failed in state {state!r}: {res['error']}")
            if state == "done":
                return {k: v for k, v in res.items() if k != "state"}
            if state in ("error", "failed", "aborted", "idle"):
                raise TesterError(f"the suite ended in state {state!r}: {json.dumps(res)[:500]}")
            if progress and state != last:
                progress(f"tester: {state} (trial {res.get('trials', '?')})")
            last = state
            if time.monotonic() > deadline:
                raise TesterError(f"the suite is not done after {timeout}s (state {state!r})")
            time.sleep(poll_s)

    def stop(self):
        m = self.machine
        if m is None:
            return
        try:
            if m.running():
                m.shutdown(30)
        except qemu.QemuError:
            pass
        finally:
            m.kill()


class StandInTester:
    name = "stand-in"

    def __init__(self, wires, out_dir, memory="512M", timeout=240, count=5):
        self.wires, self.out_dir = wires, out_dir
        self.memory, self.timeout, self.count = memory, timeout, count
        self.guest = None

    def check(self, label):
        """Boot, ping through the DUT; {"pass": bool, "results", "values"}."""
        k = lg.fetch()
        initrd = os.path.join(self.out_dir, "standin.cpio.gz")
        s = lg.StandIn(macs=TESTER_MACS, addrs=TESTER_ADDRS,
                       gateways=tuple(addr(a) for a in DUT_ADDRS), count=self.count)
        lg.build_initramfs(k, lg.ROUTER_MODULES, s.script(), initrd)
        ports = [lg.Port("virtio-net-pci", "", mac=TESTER_MACS[i],
                         netdev=self.wires.netdev("tester", i)) for i in range(2)]
        self.guest = g = lg.Guest(lg.qemu_args(k, initrd, ports, memory=self.memory),
                                  name=f"rfc2544-standin-{label}")
        g.start()
        try:
            g.wait_done(self.timeout)
            results, values = g.results(), g.values()
        finally:
            g.kill()
        ok = results.get("through-dut", ("FAIL",))[0] == "PASS" and \
            all(s == "PASS" for s, _ in results.values())
        return {"pass": ok, "results": results, "values": values, "log": g.log_path}

    def stop(self):
        if self.guest:
            self.guest.kill()
