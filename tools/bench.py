#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/bench.py: `make bench`. Builds the benchmark programs, runs them,
prints each hayate figure beside the reference measured in the same run,
and writes build/bench.json: a list of {"name", "unit", "value",
"reference", "reference_value", "ratio", "cpu", "date"} with ratio = value /
reference_value (so for times and sizes below 1 is better), cpu the
model, core count and cache sizes (lscpu) and date the run's (UTC).

Each benchmark is an entry in BENCHES: a build step (make builds every
program from the host library, build/host/bench*/: `make bench-bins`) and
a run step; the run
prints one JSON object a line (tools/bench/bench_util.h, bench_emit) and
anything else on stderr. To add one, append a Bench. BENCH=NAME[,NAME]
runs only those (route, fwd, tcp, gen, bgp); the table starts with the CPU.

The machine is shared and noisy: each program repeats, interleaves the two
sides and reports medians; as root the programs run at nice -10, and big
tables sit on 2 MiB pages on both sides (1024 pages reserved and left so),
as they do in the kernel.
"""
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "bench")
DATA = os.path.normpath(os.path.join(ROOT, "..", "shared", "data"))
CC = os.environ.get("CC", "clang")
REPS = os.environ.get("BENCH_REPS", "9")
HUGEPAGES = 1024  # 2 GiB: rte_lpm and rte_lpm6 with room to spare


class Bench:
    """A program: build() makes it, run() its argument lists, each run's
    JSON lines collected in order."""

    def __init__(self, name, build, runs, needs_data=True):
        self.name, self.build, self.runs, self.needs_data = name, build, runs, needs_data


def sh(cmd, **kw):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    return subprocess.run(cmd, cwd=ROOT, check=True, **kw)


def make(*programs):
    """build/bench/PROGRAM for each, by the Makefile (its one source list)."""
    sh(["make", "--no-print-directory", f"-j{os.cpu_count() or 1}", "CC=" + CC]
       + [os.path.join("build", "bench", p) for p in programs])


def need_dpdk():
    """DPDK (rte_lpm, rte_lpm6) is the reference of the route and forwarding
    benchmarks: without it they cannot build."""
    subprocess.run(["pkg-config", "--exists", "libdpdk"], check=True)


def build_route_bench():
    """route_bench (-march=native) and route_bench_kflags (the kernel's code
    generation; run --hayate-only)."""
    need_dpdk()
    make("route_bench", "route_bench_kflags")


def cpu_flags():
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def route_runs(huge):
    base = [DATA, "--reps", REPS] + (["--huge"] if huge else [])
    runs = [[os.path.join(BUILD, "route_bench")] + base,
            [os.path.join(BUILD, "route_bench_kflags")] + base + ["--hayate-only",
                                                                   "--tag", ", kernel flags"]]
    flags = cpu_flags()
    if "avx2" in flags:  # each path beside the one the kernel would pick: which wins differs by core
        bench = os.path.join(BUILD, "route_bench")
        avx2 = ", AVX2 path (AVX-512 off)" if "avx512f" in flags else ", AVX2 path"
        runs.append([bench] + base + ["--lookups-only", "--avx2", "--tag", avx2])
        runs.append(["env", "ROUTE_NO_AVX512=1", "ROUTE_NO_AVX2=1", bench]
                    + base + ["--lookups-only", "--tag", ", scalar path (vectors off)"])
    return runs


L3FWD = "/usr/share/dpdk/examples/l3fwd"


def build_fwd_bench():
    """The forwarding pipeline (net/fwd/fwd.h), IPv4 and IPv6, on an in-memory
    NIC, all of net/ in it: -march=native beside rte_lpm and rte_lpm6 and
    (IPv4, bursts of 32) DPDK's own l3fwd, whose files the Makefile
    compiles from dpdk-doc; and the kernel's code generation."""
    need_dpdk()
    if not os.path.exists(os.path.join(L3FWD, "l3fwd_lpm.c")):
        raise RuntimeError(f"{L3FWD} is absent: DPDK's l3fwd example, the forwarding peer, "
                           "comes with dpdk-doc (tools/deps bench; apt-get install dpdk-doc)")
    make("fwd_bench", "fwd_bench_kflags")


def fwd_runs(huge):
    """The full rows; the kernel's code generation; and traffic to 1,000 of
    the table's prefixes (the full table loaded), bursts of 32, beside
    rte_lpm's pipeline and l3fwd: where every side's lookup is cached."""
    base = [DATA, "--reps", REPS] + (["--huge"] if huge else [])
    return [[os.path.join(BUILD, "fwd_bench")] + base,
            [os.path.join(BUILD, "fwd_bench_kflags")] + base + ["--hayate-only",
                                                                 "--tag", ", kernel flags"],
            [os.path.join(BUILD, "fwd_bench")] + base + ["--v4-only", "--burst", "32", "--only", "bursts",
                                                         "--in-prefixes", "1000"]]


def build_gen_bench():
    """The traffic generator's TX and RX per frame (tester/, as
    kernel/netsvc/gen.c runs it a burst) on the in-memory NIC, beside
    dpdk-testpmd's txonly and rxonly on net_null, which gen_bench runs
    itself (Debian's dpdk-dev); without testpmd its rows have no reference."""
    if shutil.which("dpdk-testpmd") is None:
        print("bench: gen: dpdk-testpmd is absent (apt-get install dpdk-dev): no reference",
              file=sys.stderr)
    make("gen_bench", "gen_bench_kflags")


def gen_runs(huge):
    base = ["--reps", REPS] + (["--huge"] if huge else [])
    return [[os.path.join(BUILD, "gen_bench")] + base,
            [os.path.join(BUILD, "gen_bench_kflags")] + base + ["--hayate-only",
                                                                 "--tag", ", kernel flags"]]


def build_bgp_bench():
    """BGP UPDATE ingest (bgp_bench, replaying a session bgp-probe records)
    beside BIRD taking the same table from another BIRD: tools/bench/
    bgp_ref.py runs both, as root (namespaces), with bird2 installed."""
    if os.geteuid() != 0 or shutil.which("bird") is None:
        raise RuntimeError("needs root and bird (bird2)")
    make("bgp_bench", "bgp_bench_kflags")
    sh(["make", "--no-print-directory", "build/unit/bgp-probe"])


def bgp_runs(huge):
    return [[sys.executable, os.path.join(ROOT, "tools", "bench", "bgp_ref.py"), DATA, BUILD, "--reps", REPS]
            + (["--huge"] if huge else [])]


sys.path.insert(0, os.path.join(ROOT, "tools", "bench", "tcp"))
import bench_tcp  # noqa: E402 (tools/bench/tcp/bench_tcp.py: hayate's TCP beside lwIP)

BENCHES = [Bench("route", build_route_bench, route_runs), Bench("fwd", build_fwd_bench, fwd_runs),
           Bench("tcp", lambda: bench_tcp.build(ROOT, CC), lambda huge: bench_tcp.runs(BUILD, REPS),
                 needs_data=False),
           Bench("gen", build_gen_bench, gen_runs, needs_data=False), Bench("bgp", build_bgp_bench, bgp_runs)]


def reserve_hugepages():
    """2 MiB pages for both sides if we are root. They stay reserved after
    the run: giving them back could break another benchmark running beside
    this one. Returns True when there are enough."""
    path = "/proc/sys/vm/nr_hugepages"
    try:
        before = int(open(path).read())
        if before < HUGEPAGES and os.geteuid() == 0:
            open(path, "w").write(str(HUGEPAGES))
        if not os.path.ismount("/dev/hugepages") and os.geteuid() == 0:
            os.makedirs("/dev/hugepages", exist_ok=True)
            subprocess.run(["mount", "-t", "hugetlbfs", "nodev", "/dev/hugepages"], check=True)
        free = 0
        for line in open("/proc/meminfo"):
            if line.startswith("HugePages_Free:"):
                free = int(line.split()[1])
        return free >= 512 and os.path.ismount("/dev/hugepages")
    except (OSError, ValueError, subprocess.CalledProcessError):
        return False


def raise_priority():
    """The machine is shared: as root, run the benchmarks at a higher
    priority than the builds and VMs beside them (less noise, not faster)."""
    if os.geteuid() == 0:
        try:
            os.nice(-10)
        except OSError:
            pass


def run_json(cmd):
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                       preexec_fn=raise_priority)
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    if p.returncode != 0:
        print(f"bench: {cmd[0]} exited {p.returncode}", file=sys.stderr)
    return rows, p.returncode


def pair_kernel_flags(rows):
    """A --hayate-only row has no reference: set it to the same figure of
    the -march=native build, to show what the kernel's flags cost."""
    by_name = {r["name"]: r for r in rows}
    for r in rows:
        if r["reference"] == "" and ", kernel flags" in r["name"]:
            native = by_name.get(r["name"].replace(", kernel flags", ""))
            if native:
                r["reference"] = "hayate, -march=native build"
                r["reference_value"] = native["value"]
                r["ratio"] = r["value"] / native["value"] if native["value"] else 0
    return rows


def cpu_info():
    """The CPU the figures were measured on: model, cores, caches (lscpu).
    Each cache's size is one instance's, with its ways (lscpu -C): the
    totals lscpu prints by default add up the cores' L2s."""
    def lscpu(*args):
        return subprocess.run(["lscpu", *args], stdout=subprocess.PIPE, text=True, check=True,
                              env=dict(os.environ, LC_ALL="C")).stdout
    try:
        out = lscpu()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    f = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    get = lambda k: " ".join(f.get(k, "?").split())  # noqa: E731
    try:
        rows = [line.split() for line in lscpu("-C=NAME,ONE-SIZE,WAYS").splitlines()[1:]]
        caches = "caches, one instance each: " + ", ".join(
            f"{r[0]} {r[1]} {r[2]}-way" for r in rows if len(r) == 3 and r[0] != "L1i")
    except (OSError, subprocess.CalledProcessError):  # an lscpu without -C: its totals
        caches = f"L1d {get('L1d cache')}, L2 {get('L2 cache')}, L3 {get('L3 cache')}"
    return (f"{get('Model name')} (family {get('CPU family')} model {get('Model')}), "
            f"{get('CPU(s)')} CPUs; {caches}")


def fmt(v):
    return f"{v:.4g}" if isinstance(v, (int, float)) else str(v)


def print_table(rows):
    w = max([len(r["name"]) for r in rows] + [10])
    print(f"\n{'benchmark':<{w}}  {'hayate':>10}  {'reference':>10}  {'ratio':>7}  "
          f"unit, reference")
    for r in rows:
        print(f"{r['name']:<{w}}  {fmt(r['value']):>10}  {fmt(r['reference_value']):>10}  "
              f"{fmt(r['ratio']):>7}  {r['unit']}, {r['reference']}")


def print_l3fwd(rows):
    """Issue #34's target, said once: hayate ahead of DPDK's l3fwd per core
    (64-byte frames, bursts of 32, full table, same run), with our driver
    on the NIC model, and with both on pointer rings (like for like)."""
    for r in rows:
        for start, how in (("fwd 64B burst 32, full table, hayate vs DPDK l3fwd", "our NIC model's driver"),
                           ("fwd 64B burst 32, full table, both on pointer rings, hayate vs DPDK l3fwd",
                            "both on pointer rings")):
            if r["name"].startswith(start) and r["unit"] == "ns/packet":
                verdict = "ahead" if 0 < r["ratio"] < 1 else "not ahead"
                print(f"hayate vs DPDK l3fwd, {how}{r['name'][len(start):]}: {fmt(r['value'])} against "
                      f"{fmt(r['reference_value'])} "
                      f"ns a packet, ratio {fmt(r['ratio'])}: {verdict} (target: below 1)")


def main():
    deps = os.path.join(ROOT, "tools", "deps")
    if os.access(deps, os.X_OK):
        sh([deps, "bench"])
    if shutil.which("pkg-config") is None:
        sys.exit("bench: pkg-config and libdpdk-dev are needed: apt-get install libdpdk-dev pkg-config")
    have_data = os.path.exists(os.path.join(DATA, "rib-v4-2024.txt.gz"))
    huge = reserve_hugepages()
    print(f"bench: {'2 MiB' if huge else '4 KiB'} pages for big tables, both sides",
          file=sys.stderr)
    rows, failed = [], 0
    only = [n for n in os.environ.get("BENCH", "").split(",") if n]
    for b in BENCHES:
        if only and b.name not in only:
            continue
        if b.needs_data and not have_data:
            print(f"bench: {b.name}: skipped: {DATA} is absent", file=sys.stderr)
            continue
        try:
            b.build()
        except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
            print(f"bench: {b.name}: skipped: {e}", file=sys.stderr)
            failed += 1
            continue
        for cmd in b.runs(huge):
            got, rc = run_json(cmd)
            rows += got
            failed += rc != 0
    rows = pair_kernel_flags(rows)
    cpu, when = cpu_info(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for r in rows:  # each figure says where and when, so that machines are never mixed up
        r["cpu"], r["date"] = cpu, when
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "bench.json"), "w") as f:
        json.dump(rows, f, indent=1)
    print(f"\ncpu: {cpu}")
    print_table(rows)
    print_l3fwd(rows)
    print(f"\nwrote build/bench.json ({len(rows)} figures)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
