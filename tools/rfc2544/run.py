# SPDX-License-Identifier: MIT
"""tools/rfc2544/run.py: `make rfc2544`. For each DUT in turn (hayate as a
router, then the Linux guest router), boot it and hayate as the tester in
QEMU with the tester's two ports wired to the DUT's (wiring.py), run the
RFC 2544 suite on the tester's console, and write report.json,
report.html and the plots (report.py) into build/rfc2544/.

    python3 tools/rfc2544 [--duts hayate,linux] [--sizes 64,512,1518,imix]
        [--trial-ms 500] [--line-mbps 1000] [--precision-pct 1] [--pdr-pct 0.5]
        [--out build/rfc2544] [--timeout 1800] [--wires tap [--vhost]]
    python3 tools/rfc2544 --check-wiring   # the Linux stand-in tester pings
                                           # through each DUT instead

Exit status 0 when every DUT's suite finished (or, with --check-wiring,
every ping crossed); the report holds the DUTs that finished. Console
logs: build/test-logs/rfc2544-*.log.
"""
import argparse
import os
import sys
import time

from . import report
from .duts import DUTS
from .tester import SIZES, HayateTester, StandInTester, TesterError, suite_command
from .wiring import TapWires, Wires

import qemu  # noqa: E402  tools/qemu.py (tools/ is on the path: __main__.py): the guests' accelerator

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def say(msg):
    print(f"rfc2544: {msg}", flush=True)


def run_one(dut_cls, args, wires, out_dir):
    """Boot the DUT and the tester, run the suite; the DUT's results dict
    (with "name"). The tester is booted after the DUT so that its first
    trial finds the DUT forwarding."""
    dut = dut_cls(wires, out_dir)
    tester = HayateTester(wires, out_dir, smp=args.tester_smp)
    t0 = time.monotonic()
    try:
        dut.start()
        say(f"{dut.name}: DUT up in {time.monotonic() - t0:.1f}s")
        tester.start(dut.name)
        line = suite_command(args.sizes, args.trial_ms, args.line_mbps, args.precision_pct,
                             args.pdr_pct, args.drain_ms, args.repeat)
        say(f"{dut.name}: tester> {line}")
        res = tester.run_suite(line, timeout=args.timeout, progress=lambda m: say(f"{dut.name}: {m}"))
        say(f"{dut.name}: suite done in {time.monotonic() - t0:.1f}s")
        return {"name": dut.name, **res}
    finally:
        tester.stop()
        for note in dut.stop():
            say(f"{dut.name}: {note}")


def check_one(dut_cls, args, wires, out_dir):
    """The stand-in tester's ping through the DUT; True if it crossed."""
    dut = dut_cls(wires, out_dir)
    standin = StandInTester(wires, out_dir)
    t0 = time.monotonic()
    try:
        dut.start()
        say(f"{dut.name}: DUT up in {time.monotonic() - t0:.1f}s")
        out = standin.check(dut.name)
        v = out["values"]
        say(f"{dut.name}: ping 198.18.0.2 -> 198.19.0.2 through the DUT: "
            f"{'PASS' if out['pass'] else 'FAIL'} ({v.get('ping', '?').strip()}; "
            f"{v.get('port-b-rx', '?')} frames in on the stand-in's port B) "
            f"in {time.monotonic() - t0:.1f}s")
        if not out["pass"]:
            bad = {n: d for n, (s, d) in out["results"].items() if s != "PASS"}
            say(f"{dut.name}: failed steps {bad}; log {out['log']}")
        return out["pass"]
    finally:
        standin.stop()
        for note in dut.stop():
            say(f"{dut.name}: {note}")


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="tools/rfc2544", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duts", default="hayate,linux",
                    help=f"comma-separated, in order, from {','.join(DUTS)} (default: both)")
    ap.add_argument("--sizes", default=",".join(SIZES),
                    help="frame sizes, comma-separated (default: all of RFC 2544's and imix)")
    ap.add_argument("--trial-ms", type=int, default=500)
    ap.add_argument("--line-mbps", type=int, default=1000)
    ap.add_argument("--precision-pct", type=float, default=1)
    ap.add_argument("--pdr-pct", type=float, default=0.5)
    ap.add_argument("--drain-ms", type=int, help="counting on after each trial (tester's default: 200)")
    ap.add_argument("--repeat", type=int, default=1, help="each size's tests this many times, figures averaged")
    ap.add_argument("--tester-smp", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=1800, help="seconds for one DUT's suite")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "rfc2544"))
    ap.add_argument("--check-wiring", action="store_true",
                    help="no generator: the Linux stand-in tester pings through each DUT")
    ap.add_argument("--wires", choices=("dgram", "tap"), default="dgram",
                    help="Unix datagram sockets (default, no root) or taps on bridges (root)")
    ap.add_argument("--vhost", action="store_true",
                    help="vhost-net on the taps (with --wires tap; under KVM: HAYATE_ACCEL=kvm)")
    a = ap.parse_args(argv)
    if a.vhost and a.wires != "tap":
        ap.error("--vhost needs --wires tap")
    a.duts = [d for d in a.duts.split(",") if d]
    for d in a.duts:
        if d not in DUTS:
            ap.error(f"--duts: {d!r} is not one of {','.join(DUTS)}")
    a.sizes = [s for s in a.sizes.split(",") if s]
    return a


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not args.check_wiring:
        try:
            import matplotlib  # noqa: F401  the plots; checked before minutes of trials
        except ImportError:
            say(f"needs matplotlib: {sys.executable} -m pip install matplotlib "
                "(Debian's python3: apt-get install python3-matplotlib)")
            return 2
    os.makedirs(args.out, exist_ok=True)
    results, failed = [], []
    say(f"accel {qemu.accel_default()}, wires {args.wires}{', vhost-net' if args.vhost else ''}")
    for name in args.duts:
        with (TapWires(vhost=args.vhost) if args.wires == "tap" else Wires()) as wires:
            try:
                if args.check_wiring:
                    if not check_one(DUTS[name], args, wires, args.out):
                        failed.append(name)
                else:
                    results.append(run_one(DUTS[name], args, wires, args.out))
            except (TesterError, RuntimeError, OSError) as e:
                say(f"{name}: FAILED: {e}")
                failed.append(name)
    if args.check_wiring:
        say(f"wiring: {len(args.duts) - len(failed)} of {len(args.duts)} DUTs forwarded the stand-in's pings")
        return 1 if failed else 0
    if results:
        r = report.build(results, trial_s=args.trial_ms / 1000)
        for p in report.write(r, args.out):
            say(f"wrote {os.path.relpath(p, ROOT)}")
    if failed:
        say(f"no results for {', '.join(failed)}")
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
