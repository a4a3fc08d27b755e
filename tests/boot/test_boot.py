# SPDX-License-Identifier: MIT
"""tests/boot/test_boot.py: the real image in QEMU (TCG), seen from its
serial console as a user sees it: banner, ready, the CLI and its line
editing, configuration errors, a fault report, power-off, SMP."""
import os
import re
import time

import pytest

import qemu

SHARED_DATA = os.path.join(os.path.dirname(qemu.ROOT), "shared", "data")
OVMF = "/usr/share/ovmf/OVMF.fd"

VERSION_RX = r"(?m)^hayate \S+ \(commit "  # first line of `show version`


def test_banner_then_ready(machine):
    log = machine.log
    banner = re.search(r"hayate \S+ booting", log)
    assert banner, machine.tail()
    assert banner.start() < log.index(qemu.READY)
    assert machine.prompt == "hayate> "


def test_show_version(machine):
    out = machine.cmd("show version")
    assert re.search(VERSION_RX, out), out


def test_show_version_json(machine):
    v = machine.json("show version json")
    assert v["name"] == "hayate"
    assert isinstance(v["version"], str) and v["version"]
    assert isinstance(v["commit"], str)
    assert v["cpus"] == 1
    # -m 512M: all but firmware holes and what the kernel keeps.
    assert 400 << 20 < v["memory_bytes"] <= 512 << 20
    assert v["uptime_ns"] > 0
    time.sleep(0.05)
    assert machine.json("show version json")["uptime_ns"] > v["uptime_ns"]


def test_help_lists_commands(machine):
    out = machine.cmd("help")
    for c in ("show version", "shutdown", "help"):
        assert c in out, out


def test_backspace(machine):
    # "shw", two rubouts, "how version": the kernel must run "show version".
    assert re.search(VERSION_RX, machine.cmd("shw\x7f\x7fhow version")), machine.tail()
    assert re.search(VERSION_RX, machine.cmd("shx\bow version")), machine.tail()


def test_ctrl_u_erases_line(machine):
    assert re.search(VERSION_RX, machine.cmd("nonsense words\x15show version")), machine.tail()


def test_up_arrow_recalls_history(machine):
    first = machine.json("show version json")
    again = machine.json("\x1b[A")  # ESC [ A: the line above, run again
    assert again["name"] == "hayate" and again["uptime_ns"] > first["uptime_ns"]


def test_unknown_command_keeps_console(machine):
    out = machine.cmd("frobnicate")
    assert "frobnicate" in out  # says which command it did not know
    assert re.search(VERSION_RX, machine.cmd("show version"))


def test_bad_config_line_reported_rest_applies(boot, mkiso):
    iso = mkiso("# a bad line is reported with its number and skipped\n"
                "\n"
                "frobnicate the router\n"
                "hostname r1\n"
                "app http port 80\n"
                "app tcp-echo port 80\n"  # the port is taken: reported
                "app udp-echo port 80\n")  # UDP's is not
    m = boot(iso)
    assert re.search(r"config: line 3: \S", m.log), m.tail()
    assert "config: line 6: port 80 is app http's" in m.log, m.tail()
    assert "config: line 7" not in m.log, m.tail()
    assert m.prompt == "r1> "
    assert m.json("show version json").get("hostname", "r1") == "r1"


def test_conflicting_port_lines_reported(boot, mkiso):
    """A port has one address of each family and a subnet one port: a
    later line that would replace a connected route in use is reported,
    and the first stays in force. A port is the router's or an xconnect's,
    not both (they would split its frames)."""
    nics = []
    for i in range(4):
        nics += ["-netdev", f"user,id=u{i}", "-device", f"virtio-net-pci,netdev=u{i}"]
    m = boot(mkiso("interface eth0 address 10.0.0.1/24\n"
                   "interface eth0 address 10.0.5.1/24\n"
                   "interface eth1 address 10.0.0.2/24\n"
                   "interface eth0 address 2001:db8::1/64\n"
                   "interface eth1 address 2001:db8::2/64\n"
                   "interface eth1 address 10.0.1.1/24\n"
                   "xconnect eth0 eth2\n"
                   "xconnect eth2 eth3\n"
                   "interface eth3 address 10.0.3.1/24\n"
                   "xconnect eth3 eth1\n"), extra=nics)
    assert "config: line 2: eth0 has 10.0.0.1/24 already" in m.log, m.tail()
    assert "config: line 3: eth0 has 10.0.0.1/24 already" in m.log, m.tail()
    assert "config: line 5: eth0 has 2001:db8::1/64 already" in m.log, m.tail()
    assert "config: line 6" not in m.log, m.tail()
    assert "config: line 7: xconnect: eth0 is the router's" in m.log, m.tail()
    assert "config: line 8" not in m.log, m.tail()
    assert "config: line 9: eth3 is an xconnect's" in m.log, m.tail()
    assert "config: line 10: xconnect: eth3 is an xconnect's" in m.log, m.tail()
    assert "10.0.0.0/24 via connected dev eth0" in m.cmd("show route 10.0.0.7"), m.tail()
    assert "no route to 10.0.5.7" in m.cmd("show route 10.0.5.7"), m.tail()
    addrs = [(i["name"], i["address"]) for i in m.json("show interfaces json")["interfaces"]]
    assert addrs == [("eth0", "10.0.0.1/24"), ("eth1", "10.0.1.1/24"), ("eth2", ""), ("eth3", "")], addrs


def test_console_routes_leave_connected_subnets_alone(boot, mkiso):
    """A connected subnet is its interface's: the console neither deletes
    nor overrides it (nothing could bring it back). A gateway is a
    neighbour: not our own address, nor a subnet's network, broadcast or
    anycast address; where subnets nest, the longest holds it."""
    nics = []
    for i in range(2):
        nics += ["-netdev", f"user,id=u{i}", "-device", f"virtio-net-pci,netdev=u{i}"]
    m = boot(mkiso("interface eth0 address 10.0.0.1/16\n"
                   "interface eth1 address 10.0.1.1/24\n"
                   "interface eth0 address 2001:db8::1/64\n"), extra=nics)
    for line, says in (("route del 10.0.0.0/16", "eth0's connected subnet"),
                       ("route add 10.0.1.0/24 via 10.0.0.9", "eth1's connected subnet"),
                       ("route add 10.9.0.0/16 via 10.0.1.1", "eth1's own address"),
                       ("route add 10.9.0.0/16 via 10.0.1.255", "broadcast"),
                       ("route del 2001:db8::/64", "eth0's on-link prefix"),
                       ("route add 2001:db8:9::/48 via 2001:db8::1", "eth0's own address")):
        out = m.cmd(line)
        assert says in out, (line, out)
    assert "10.0.0.0/16 via connected dev eth0" in m.cmd("show route 10.0.0.7")
    assert "10.0.1.0/24 via connected dev eth1" in m.cmd("show route 10.0.1.7")
    m.cmd("route add 10.9.0.0/16 via 10.0.1.2")  # in both subnets: eth1's, the longer
    out = m.cmd("show route 10.9.0.1")
    assert "10.0.1.2" in out and "eth1" in out, out


def test_gateways_come_and_go(boot, mkiso):
    """A gateway's next hop is freed with its last route: more distinct
    gateways than either next-hop table holds (1023 IPv4, 255 IPv6) can
    come and go, one route at a time, with every add taken."""
    m = boot(mkiso("interface eth0 address 10.0.0.1/16\ninterface eth0 address 2001:db8::1/64\n"),
             extra=["-netdev", "user,id=u0", "-device", "virtio-net-pci,netdev=u0"])
    for i in range(1100):
        gw = f"10.0.{4 + i // 250}.{1 + i % 250}"
        out = m.cmd(f"route add 10.9.0.0/16 via {gw}")
        assert "error" not in out.lower() and "full" not in out, (gw, out)
        m.cmd("route del 10.9.0.0/16")
    for i in range(300):
        gw = f"2001:db8::{i + 2:x}"
        out = m.cmd(f"route add 2001:db8:9::/48 via {gw}")
        assert "error" not in out.lower() and "full" not in out, (gw, out)
        m.cmd("route del 2001:db8:9::/48")
    m.cmd("route add 10.9.0.0/16 via 10.0.7.7")
    assert "10.0.7.7" in m.cmd("show route 10.9.0.1")


def test_fault_report(boot):
    m = boot()
    m.send("debug fault page\r")
    m.wait_for(r"system halted", 10)
    log = m.log[m.log.index("debug fault page"):]
    rx = (r"EXCEPTION [^\n]*(page|#PF|14)(?s:.*?)error(?s:.*?)RIP=(?s:.*?)RSP="
          r"(?s:.*?)CR2=(?s:.*?)stack trace:(?s:.*?)system halted")
    assert re.search(rx, log), log
    # The kernel's test fault writes to 0xdead000: CR2 says where.
    assert re.search(r"CR2=0*dead000\b", log), log


def test_shutdown_exits_qemu(boot):
    m = boot()
    t0 = time.monotonic()
    rc = m.shutdown(timeout=10)
    assert qemu.clean_exit(rc)
    assert time.monotonic() - t0 < 10


@pytest.mark.parametrize("cpus", [2, 4])
def test_smp_boots(boot, cpus):
    m = boot(smp=cpus)
    v = m.json("show version json")
    assert v["name"] == "hayate"
    assert v["cpus"] == cpus
    m.shutdown()


def test_many_cores_in_little_memory(boot, mkiso):
    """20 cores in 160 MB: smaller buffer pools, said so, rather than a
    panic; and clear counters, which reaches cores past the 16 that own
    queues, leaves them and the ports' data alone."""
    m = boot(mkiso("interface eth0 address 10.9.0.1/24\n"), smp=20, memory="160M", timeout=120,
             extra=["-netdev", "user,id=u0", "-device", "virtio-net-pci,netdev=u0"])
    assert "more memory would suit 20 cores" in m.log, m.tail()
    m.cmd("clear counters")
    v = m.json("show version json")
    assert v["cpus"] == 20
    i = m.json("show interfaces json")["interfaces"]
    assert i[0]["name"] == "eth0" and i[0]["driver"] == "virtio-net" and i[0]["counters"]["rx-error"] == 0, i
    m.shutdown()


def test_large_module(boot, mkiso, report):
    """A 14 MB routing table (gzip in ../shared/data, unpacked by mkiso)
    loads as a module beside the config, and boot still completes."""
    rib = os.path.join(SHARED_DATA, "rib-v4-2024.txt.gz")
    if not os.path.exists(rib):
        pytest.skip(f"{rib} missing")
    m = boot(mkiso("hostname big\n", files=[rib]), timeout=90)  # GRUB reads 14 MB
    assert m.prompt == "big> "
    report(f"boot with the 14 MB rib-v4-2024.txt module: {m.ready_s:.2f}s to ready")


def test_uefi_boot(boot, report):
    """The image is hybrid: OVMF boots it through GRUB's EFI side."""
    if not os.path.exists(OVMF):
        pytest.skip(f"{OVMF} missing (apt install ovmf)")
    m = boot(extra=["-bios", OVMF], ready=False)
    t = m.wait_ready(timeout=90)  # UEFI firmware under TCG takes seconds
    assert re.search(VERSION_RX, m.cmd("show version"))
    report(f"UEFI (OVMF) boot: {t:.2f}s to ready")
    m.shutdown()


def test_boot_time(boot, report):
    """QEMU start to "hayate: ready", and the part of it that is the kernel
    (boot_ns, from its entry); the rest is QEMU, the firmware and GRUB.
    Checked: each boot reports the kernel's time, and it lies inside the
    whole (a clock the kernel reads wrongly, or calibrates wrongly, shows
    here). The figures themselves are reported, not bounded: TCG on a
    shared machine is too noisy for a bound."""
    times = []
    for _ in range(3):
        m = boot()
        kernel_s = m.json("show version json").get("boot_ns", 0) / 1e9
        times.append((m.ready_s, kernel_s))
        m.kill()
    for whole, kernel_part in times:
        assert 0 < kernel_part < whole, f"kernel boot {kernel_part:.3f}s against {whole:.3f}s in all"
    total, kernel = sorted(times)[1]
    report(f"boot (median of 3): QEMU start to ready {total:.3f}s = "
           f"QEMU + SeaBIOS + GRUB {total - kernel:.3f}s + kernel {kernel:.3f}s")
