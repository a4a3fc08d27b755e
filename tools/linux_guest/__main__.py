# SPDX-License-Identifier: MIT
"""tools/linux_guest/__main__.py: `python3 tools/linux_guest CMD`.

  fetch [--update]                 download and unpack (cached); prints the tree
  initrd -m igb -m igbvf [-s SCRIPT] [-p igb=ARGS] -o OUT.cpio.gz
  args --initrd F [--nic MODEL:TAP ...] [--qemu BIN]
                                   the QEMU command line, shell-quoted
  run [-m MOD ...] [-s SCRIPT] [--nic MODEL:TAP ...] [--qemu BIN]
                                   build, boot, print the console, exit with
                                   0 if every LG-RESULT passed; each lg_wait
                                   is answered "go"; log in build/test-logs/
  router --port MAC=ADDR/LEN --port MAC=ADDR/LEN [--neigh ADDR=MAC ...] -o OUT.cpio.gz
                                   the initramfs of a router between two ports
                                   (router.py; tools/rfc2544's Linux DUT);
                                   boot it with `args --initrd OUT.cpio.gz`
"""
import argparse
import os
import shlex
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import linux_guest as lg  # noqa: E402  (this folder, imported as a package)


def _ports(specs):
    out = []
    for s in specs or ():
        model, _, tap = s.partition(":")
        out.append(lg.Port(model, tap))
    return out


def _params(specs):
    """["igb=max_vfs=2"] -> {"igb": "max_vfs=2"}"""
    return dict(s.split("=", 1) for s in specs or ())


def main():
    ap = argparse.ArgumentParser(prog="tools/linux_guest", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch")
    f.add_argument("--update", action="store_true", help="fetch the current kernel even if one is cached")
    for name in ("initrd", "run"):
        p = sub.add_parser(name)
        p.add_argument("-m", "--module", action="append", default=[])
        p.add_argument("-s", "--script", help="sh file run by /init after the modules load")
        p.add_argument("-p", "--param", action="append",
                       help="MODULE=ARGS for its insmod, e.g. igb='max_vfs=2'")
        if name == "initrd":
            p.add_argument("-o", "--out", required=True)
    r = sub.add_parser("router")
    r.add_argument("--port", action="append", required=True, help="MAC=ADDR/LEN, twice")
    r.add_argument("--neigh", action="append", default=[], help="ADDR=MAC, a permanent neighbour")
    r.add_argument("-o", "--out", required=True)
    a = sub.add_parser("args")
    a.add_argument("--initrd", required=True)
    for p in (a, sub.choices["run"]):
        p.add_argument("--nic", action="append", help="MODEL:TAP (a tap that exists)")
        p.add_argument("--qemu", help="QEMU binary (default: Debian's, or $HAYATE_LINUX_QEMU)")
    sub.choices["run"].add_argument("--timeout", type=float, default=300,
                                    help="seconds before QEMU is killed (TCG: a boot takes 5 to 15)")
    args = ap.parse_args()
    try:
        k = lg.fetch(update=getattr(args, "update", False))
    except lg.Unavailable as e:
        print(f"tools/linux_guest: {e}", file=sys.stderr)
        return 2
    if args.cmd == "fetch":
        print(f"{k.version}: {k.root}")
        return 0
    if args.cmd == "args":
        print(shlex.join(lg.qemu_args(k, args.initrd, _ports(args.nic), qemu_bin=args.qemu)))
        return 0
    if args.cmd == "router":
        ports = [p.split("=", 1) for p in args.port]
        if len(ports) != 2:
            print("tools/linux_guest router: give --port twice", file=sys.stderr)
            return 2
        neigh = tuple(tuple(n.split("=", 1)) for n in args.neigh)
        script = lg.Router(macs=tuple(m for m, _ in ports), addrs=tuple(a for _, a in ports),
                           neighbours=neigh).script()
        print("\n".join(lg.build_initramfs(k, lg.ROUTER_MODULES, script, args.out)))
        return 0
    script = open(args.script).read() if args.script else ""
    params = _params(args.param)
    if args.cmd == "initrd":
        order = lg.build_initramfs(k, args.module, script, args.out, params)
        print("\n".join(order))
        return 0
    with tempfile.TemporaryDirectory() as d:
        initrd = os.path.join(d, "initrd.cpio.gz")
        lg.build_initramfs(k, args.module, script, initrd, params)
        argv = lg.qemu_args(k, initrd, _ports(args.nic), qemu_bin=args.qemu)
        g = lg.Guest(argv, name="linux-guest-run", on_output=sys.stdout.buffer.write)
        g.start()
        deadline = time.monotonic() + args.timeout
        try:
            # Answer every lg_wait with "go" until the kernel log is out.
            while True:
                m = g.wait_for(r"(?m)^LG-(WAIT \S+|DMESG-END)", deadline - time.monotonic())
                if m.group(1) == "DMESG-END":
                    break
                g.reply("go")
            rc = g.wait_exit(20)
        except lg.QemuError as e:
            print(f"\ntools/linux_guest: {str(e).splitlines()[0]}")
            rc = None
        finally:
            g.kill()
        sys.stdout.flush()
        results, _, done = lg.parse(g.log)
        bad = [n for n, (s, _) in results.items() if s != "PASS"]
        return 0 if done and not bad and rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
