#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tools/bench/bgp_ref.py: BGP UPDATE ingest, hayate beside BIRD, on the
same full table (make bench, BENCH=bgp; root: namespaces).

BIRD A (namespace bgpa) holds rib-v4-2024 and rib-v6-2024 as static
routes, each with an AS path derived from its prefix (a few tens of
thousands of distinct paths, as a real table has: UPDATEs carry a few
prefixes each, not thousands). Then:
- the reference: BIRD B (namespace bgpb, over a veth pair) opens its
  session to A; the time from Established to B holding every route is
  BIRD's ingest, prefixes a second, the median of BIRD_RUNS sessions,
  each with B started afresh (as each replay of ours runs on fresh tables);
- the recording: bgp-probe (tools/bgp/probe.c) takes the same table from
  A and writes every byte A sent (BGP_PROBE_RECORD);
- hayate: build/bench/bgp_bench and bgp_bench_kflags replay the recording
  (parse, RIB, decision, FIB) and print their rows beside BIRD's rate.

    bgp_ref.py DATA BUILD [--reps N] [--huge] [--limit N]
--limit: the first N prefixes of each file (a quick look)."""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIRD_RUNS = 3


def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, check=check, capture_output=True, text=True).stdout


def path_of(prefix):
    """2 to 5 ASNs, a function of an origin AS drawn from the prefix's hash:
    3.5 prefixes a path on average, as in a real full table, so UPDATEs
    carry a few prefixes each."""
    origin = zlib.crc32(prefix.encode()) % 300000
    h = zlib.crc32(origin.to_bytes(4, "big"))
    tier1 = (174, 1299, 2914, 3257, 3356, 6453, 6762, 6939)[h & 7]
    n = 1 + (h >> 3) % 4
    mid = [64512 + (h >> (5 + 3 * i)) % 60 for i in range(n - 1)]
    return [tier1] + mid + [65536 + origin]


def bird_conf(d, name, rid, statics, protos):
    conf = os.path.join(d, f"{name}.conf")
    with open(conf, "w") as f:
        f.write(f"router id {rid};\nprotocol device {{}}\n")
        for afi, prefixes in statics:
            f.write(f"protocol static s{afi} {{ {afi};\n")
            for p in prefixes:
                prep = " ".join(f"bgp_path.prepend({a});" for a in reversed(path_of(p)))
                f.write(f"route {p} blackhole {{ {prep} }};\n")
            f.write("}\n")
        f.write(protos)
    return conf


def bgp_proto(name, local, local_as, peer, peer_as, nh6, disabled=False, export=True):
    ex = "export all;" if export else "export none;"
    dis = "disabled;" if disabled else ""
    return f"""protocol bgp {name} {{ {dis}
  local {local} as {local_as}; neighbor {peer} as {peer_as}; hold time 240;
  ipv4 {{ import all; {ex} }};
  ipv6 {{ import all; {ex} next hop address {nh6}; }};
}}
"""


def count(ctl):
    out = sh(f"birdc -s {ctl} show route count", check=False)
    for line in out.splitlines():
        if line.startswith("Total:"):
            return int(line.split()[1])
    return 0


def imported(ctl, proto):
    """Routes proto's channels have imported, from their counters: unlike
    `show route count`, which walks the whole table (a million routes, each
    poll taking the daemon's time from the ingest it is timing)."""
    out = sh(f"birdc -s {ctl} show protocols all {proto}", check=False)
    return sum(int(line.split()[1]) for line in out.splitlines() if line.strip().startswith("Routes:"))


def wait_for(ctl, total, timeout, every, routes=count):
    """Until routes(ctl) reaches total, polled every `every` s."""
    deadline = time.time() + timeout
    while (n := routes(ctl)) < total:
        if time.time() > deadline:
            sys.exit(f"bgp_ref: BIRD at {ctl} holds {n} of {total} routes after {timeout} s")
        time.sleep(every)


def main():
    data, build = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    reps = args[args.index("--reps") + 1] if "--reps" in args else "5"
    limit = int(args[args.index("--limit") + 1]) if "--limit" in args else 0
    if os.geteuid() != 0 or not shutil.which("bird"):
        sys.exit("bgp_ref: needs root and bird (bird2)")
    tables = []
    for afi, fn in (("ipv4", "rib-v4-2024.txt.gz"), ("ipv6", "rib-v6-2024.txt.gz")):
        with gzip.open(os.path.join(data, fn), "rt") as f:
            ps = [line.split()[0] for line in f if line.strip()]
        tables.append((afi, ps[:limit] if limit else ps))
    total = sum(len(p) for _, p in tables)
    d = tempfile.mkdtemp(prefix="bgpbench.")
    ctl_a, ctl_b = os.path.join(d, "a.ctl"), os.path.join(d, "b.ctl")
    sh("ip netns del bgpa; ip netns del bgpb; ip link del vbr0", check=False)
    try:
        sh("ip netns add bgpa && ip netns add bgpb && "
           "ip link add vbr0 type veth peer name vbr1 && ip link set vbr1 netns bgpa && "
           "ip addr add 10.78.0.1/24 dev vbr0 && ip link set vbr0 up && "
           "ip netns exec bgpa ip link add vab0 type veth peer name vab1 && "
           "ip netns exec bgpa ip link set vab1 netns bgpb && "
           "ip netns exec bgpa sh -c 'ip addr add 10.78.0.2/24 dev vbr1; ip -6 addr add 2001:db8:78::2/64 dev vbr1 "
           "nodad; ip link set vbr1 up; ip addr add 10.79.0.1/24 dev vab0; ip -6 addr add 2001:db8:79::1/64 dev vab0 "
           "nodad; ip link set vab0 up; ip link set lo up' && "
           "ip netns exec bgpb sh -c 'ip addr add 10.79.0.2/24 dev vab1; ip -6 addr add 2001:db8:79::2/64 dev vab1 "
           "nodad; ip link set vab1 up; ip link set lo up'")
        conf_a = bird_conf(d, "a", "10.78.0.2", tables,
                           bgp_proto("probe", "10.78.0.2", 65002, "10.78.0.1", 65001, "2001:db8:78::2") +
                           bgp_proto("b", "10.79.0.1", 65002, "10.79.0.2", 65001, "2001:db8:79::1"))
        conf_b = bird_conf(d, "b", "10.79.0.2", [],
                           bgp_proto("a", "10.79.0.2", 65001, "10.79.0.1", 65002, "2001:db8:79::2", disabled=True,
                                     export=False))
        t = time.time()
        sh(f"ip netns exec bgpa bird -c {conf_a} -s {ctl_a} -P {d}/a.pid")
        wait_for(ctl_a, total, 600, 0.5)
        print(f"bgp_ref: BIRD A holds {total} routes ({time.time() - t:.1f} s to load)", file=sys.stderr)
        runs = []
        for _ in range(BIRD_RUNS):  # BIRD's own time moves between sessions: the median of a few, each B fresh
            sh(f"ip netns exec bgpb bird -c {conf_b} -s {ctl_b} -P {d}/b.pid")
            time.sleep(1)
            sh(f"birdc -s {ctl_b} enable a")
            deadline = time.time() + 60
            while "Established" not in sh(f"birdc -s {ctl_b} show protocols a", check=False):
                if time.time() > deadline:
                    sys.exit("bgp_ref: BIRD B's session to A did not come up")
                time.sleep(0.01)
            t0 = time.time()  # from Established, not from `enable` (BIRD's connect delay is not ingest)
            wait_for(ctl_b, total, 600, 0.05, lambda ctl: imported(ctl, "a"))
            runs.append(time.time() - t0)
            version = " ".join(sh(f"birdc -s {ctl_b} show status").split()[:2])  # "BIRD 2.0.12"
            sh(f"birdc -s {ctl_b} down", check=False)  # a B that kept its table would run the next session slower
            deadline = time.time() + 30
            while subprocess.run(["birdc", "-s", ctl_b, "show", "status"], capture_output=True).returncode == 0:
                if time.time() > deadline:
                    sys.exit("bgp_ref: BIRD B did not go down")
                time.sleep(0.1)
        bird_s = sorted(runs)[len(runs) // 2]
        print(f"bgp_ref: BIRD B took {total} routes in {', '.join(f'{x:.2f}' for x in runs)} s: "
              f"median {bird_s:.2f} s", file=sys.stderr)
        stream = os.path.join(d, "table.stream")
        probe = os.path.join(ROOT, "build", "unit", "bgp-probe")
        env = dict(os.environ, BGP_PROBE_RECORD=stream)
        keep = os.environ.get("BGP_STREAM_KEEP")  # a copy of the recording (perf, bgp_bench by hand)
        r = subprocess.run([probe, "10.78.0.2", "65002", "65001", "10.78.0.1", "0", "600", "0", str(total)],
                           env=env, capture_output=True, text=True, timeout=700)
        print(f"bgp_ref: recorded {os.path.getsize(stream)} bytes: {r.stdout.splitlines()[-1]}", file=sys.stderr)
        if keep:
            shutil.copy(stream, keep)
        ref = ["--ref", f"{version} from BIRD over veth", f"{total / bird_s:.0f}"]
        huge = ["--huge"] if "--huge" in args else []
        for prog, tag in (("bgp_bench", ""), ("bgp_bench_kflags", ", kernel flags")):
            out = subprocess.run([os.path.join(build, prog), stream, "--reps", reps, "--tag", tag] + huge + ref,
                                 capture_output=True, text=True)
            sys.stderr.write(out.stderr)
            sys.stdout.write(out.stdout)
            sys.stdout.flush()
    finally:
        sh("ip netns pids bgpa | xargs -r kill; ip netns pids bgpb | xargs -r kill", check=False)
        time.sleep(0.5)
        sh("ip netns del bgpa; ip netns del bgpb; ip link del vbr0", check=False)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
