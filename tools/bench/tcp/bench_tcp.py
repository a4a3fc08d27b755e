# SPDX-License-Identifier: MIT
"""tools/bench/tcp/bench_tcp.py: the TCP benchmark's build and runs for
tools/bench.py (hayate's TCP beside lwIP 2.1.3; see tcp_bench.c).

`make build/bench/tcp_bench` links tcp_bench.c with the host library (the
kernel's code generation, build/host/bench-kernel/) and the two lwIP
objects, which the Makefile has this file build: `bench_tcp.py BUILD_DIR`.

lwIP comes from Debian's source package, fetched at benchmark time into
build/bench/lwip-src (`apt-get source lwip`; tools/deps bench adds the
deb-src line it needs), never committed. Its objects are linked into one
and every global symbol renamed twice (a_..., b_...), giving two separate
instances in one process, as hayate has two struct net_stack."""
import os
import shutil
import subprocess
import sys

LWIP_FILES = ["core/init.c", "core/def.c", "core/inet_chksum.c", "core/ip.c", "core/mem.c", "core/memp.c",
              "core/netif.c", "core/pbuf.c", "core/tcp.c", "core/tcp_in.c", "core/tcp_out.c",
              "core/timeouts.c", "core/sys.c", "core/stats.c", "core/ipv4/etharp.c", "core/ipv4/icmp.c",
              "core/ipv4/ip4.c", "core/ipv4/ip4_addr.c", "core/ipv4/ip4_frag.c", "netif/ethernet.c"]
# Both stacks get the same code generation (the Makefile's
# HOST_CFLAGS_bench-tcp, which our side is built with).
CFLAGS = ["-O2", "-march=x86-64", "-gdwarf-4", "-std=gnu11"]


def _sh(cmd, root, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, cwd=kw.pop("cwd", root), check=True, **kw)


def lwip_tree(build):
    """src/ of lwIP 2.1.3, fetched if absent."""
    where = os.path.join(build, "lwip-src")
    os.makedirs(where, exist_ok=True)

    def find():
        for d in sorted(os.listdir(where)):
            src = os.path.join(where, d, "src")
            if d.startswith("lwip-") and os.path.exists(os.path.join(src, "core", "tcp.c")):
                return src
        return None

    src = find()
    if src is None:
        _sh(["apt-get", "source", "lwip"], where, cwd=where)
        src = find()
    if src is None:
        raise RuntimeError("lwIP source not found after apt-get source lwip")
    return src


def build_lwip(root, build_dir, cc):
    """lwip_a.o and lwip_b.o in build_dir/lwip: two renamed instances."""
    src = lwip_tree(build_dir)
    out = os.path.join(build_dir, "lwip")
    os.makedirs(out, exist_ok=True)
    objs = []
    for f in LWIP_FILES + [os.path.join(root, "tools/bench/tcp/lwip_side.c")]:
        path = f if os.path.isabs(f) else os.path.join(src, f)
        obj = os.path.join(out, os.path.basename(f)[:-2] + ".o")
        _sh([cc] + CFLAGS + ["-w", "-Itools/bench/tcp", "-I" + os.path.join(src, "include"), "-c", path,
                             "-o", obj], root)
        objs.append(obj)
    whole = os.path.join(out, "lwip_all.o")
    _sh(["ld", "-r", "-o", whole] + objs, root)
    syms = subprocess.run(["nm", "-g", "--defined-only", whole], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    for p in ("a", "b"):
        mapf = os.path.join(out, p + ".map")
        with open(mapf, "w") as f:
            for line in syms:
                parts = line.split()
                if len(parts) == 3:
                    f.write(f"{parts[2]} {p}_{parts[2]}\n")
        _sh(["objcopy", "--redefine-syms=" + mapf, whole, os.path.join(out, f"lwip_{p}.o")], root)


def build(root, cc):
    """build/bench/tcp_bench (the Makefile builds lwIP through build_lwip)."""
    _sh(["make", "--no-print-directory", f"-j{os.cpu_count() or 1}", "CC=" + cc, "build/bench/tcp_bench"], root)


def runs(build_dir, reps):
    prog = os.path.join(build_dir, "tcp_bench")
    r = [[prog, "--reps", str(reps), "--seconds", "0.5"], [prog, "--sweep", "--reps", str(reps), "--seconds", "0.5"],
         [prog, "--cores", "--reps", str(reps), "--seconds", "0.5"]]
    if shutil.which("valgrind"):
        r.append([prog, "--callgrind", "100000"])
    return r


if __name__ == "__main__":
    build_lwip(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
               os.path.abspath(sys.argv[1]), os.environ.get("CC", "clang"))
