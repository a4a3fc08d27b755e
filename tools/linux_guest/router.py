# SPDX-License-Identifier: MIT
"""tools/linux_guest/router.py: the Linux guest as an IPv4 router between
two virtio-net ports (the Linux DUT of `make rfc2544`), and as a stand-in
tester that pings through a router (a wiring check while hayate's
generator is not there). Both find their ports by MAC, so the host says
which port is which, whatever order the kernel probes them in.

    r = Router(macs=(M0, M1), addrs=("198.18.0.1/24", "198.19.0.1/24"),
               neighbours=(("198.18.0.2", T0), ("198.19.0.2", T1)))
    build_initramfs(kernel, MODULES, r.script(), "r.cpio.gz")
    g = Guest(qemu_args(kernel, "r.cpio.gz", ports), name="linux-router")
    g.start(); g.wait_for(READY_RX, 120)   # "LG-ROUTER ready eth0 eth1"
    ...                                    # traffic
    g.reply("go"); g.wait_dmesg()          # counters, LG-DONE, kernel log, off

The stand-in (StandIn) holds both tester addresses on its two ports and
routes each to the other through the router (policy routing: the local
table moved after two rules for its own traffic), pings, and reports
LG-RESULT through-dut PASS|FAIL.
"""
from dataclasses import dataclass

MODULES = ["virtio_pci", "virtio_net"]
READY_RX = r"(?m)^LG-ROUTER ready (\S+) (\S+)\r?$"

# Shell helpers shared by both roles: the interface with a MAC, IPv6 off
# (no router or MLD solicitations among the frames the tester counts),
# a port up with its address, counters as LG-VALUEs.
COMMON = r"""
lg_iface_by_mac() {
    for d in /sys/class/net/*; do
        [ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && basename "$d" && return 0
    done
    return 1
}
echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
lg_port_up() {  # IFACE ADDR/LEN
    ip addr add "$2" dev "$1" && ip link set "$1" up && lg_wait_carrier "$1" 30
}
lg_neigh() {  # IFACE ADDR MAC: a permanent entry (busybox ip may lack neigh add)
    ip neigh replace "$2" lladdr "$3" dev "$1" nud permanent 2>/dev/null ||
        arp -i "$1" -s "$2" "$3"
    ip neigh show "$2" dev "$1" | grep -q PERMANENT
}
lg_counters() {
    for i in "$@"; do
        s=/sys/class/net/$i/statistics
        lg_value "counters-$i" "rx=$(cat $s/rx_packets) tx=$(cat $s/tx_packets) rx_dropped=$(cat $s/rx_dropped) tx_dropped=$(cat $s/tx_dropped)"
    done
}
"""


@dataclass
class Router:
    """Two ports (by MAC) with an address each, IPv4 forwarding, permanent
    neighbour entries for the peers: the DUT of tools/rfc2544."""
    macs: tuple          # (port A's MAC, port B's)
    addrs: tuple         # ("198.18.0.1/24", "198.19.0.1/24")
    neighbours: tuple = ()  # ((addr, mac) on port A, (addr, mac) on port B); () learns by ARP

    def script(self):
        lines = [COMMON,
                 f'A=$(lg_iface_by_mac {self.macs[0]}) && B=$(lg_iface_by_mac {self.macs[1]}) ||'
                 ' { lg_report ports FAIL "no interface with the MACs given"; return; }',
                 'lg_report ports PASS "$A $B"',
                 f'lg_check port-a lg_port_up "$A" {self.addrs[0]}',
                 f'lg_check port-b lg_port_up "$B" {self.addrs[1]}',
                 "echo 1 > /proc/sys/net/ipv4/ip_forward",
                 # Full-rate trials fill the backlog: room for a burst.
                 "echo 10000 > /proc/sys/net/core/netdev_max_backlog"]
        for port, (addr, mac) in zip(("$A", "$B"), self.neighbours):
            lines.append(f'lg_check neigh-{addr} lg_neigh "{port}" {addr} {mac}')
        lines += ['lg_check forwarding grep -qx 1 /proc/sys/net/ipv4/ip_forward',
                  'echo "LG-ROUTER ready $A $B"',
                  "lg_wait traffic-done",
                  'lg_counters "$A" "$B"']
        return "\n".join(lines) + "\n"


@dataclass
class StandIn:
    """A stand-in tester: port A (by MAC) holds src, port B dst; frames
    from src to dst leave by A towards gw_a and those back by B towards
    gw_b, so a ping crosses the router both ways (LG-RESULT through-dut)."""
    macs: tuple          # (port A's MAC, port B's)
    addrs: tuple         # ("198.18.0.2/24", "198.19.0.2/24")
    gateways: tuple      # ("198.18.0.1", "198.19.0.1")
    count: int = 5

    def script(self):
        src, dst = (a.split("/")[0] for a in self.addrs)
        gw_a, gw_b = self.gateways
        return COMMON + "\n".join([
            f'A=$(lg_iface_by_mac {self.macs[0]}) && B=$(lg_iface_by_mac {self.macs[1]}) ||'
            ' { lg_report ports FAIL "no interface with the MACs given"; return; }',
            'lg_report ports PASS "$A $B"',
            # Frames from one of our addresses arrive at the other port:
            # not martians here, and no reverse-path check.
            "for c in all default; do echo 1 > /proc/sys/net/ipv4/conf/$c/accept_local;"
            " echo 0 > /proc/sys/net/ipv4/conf/$c/rp_filter; done",
            f'lg_check port-a lg_port_up "$A" {self.addrs[0]}',
            f'lg_check port-b lg_port_up "$B" {self.addrs[1]}',
            'for i in "$A" "$B"; do echo 1 > /proc/sys/net/ipv4/conf/$i/accept_local;'
            ' echo 0 > /proc/sys/net/ipv4/conf/$i/rp_filter; done',
            # Our own traffic to the other address goes out through the
            # router (rules 10, 11 for locally sent frames: iif lo); what
            # arrives from it is delivered (the local table, now rule 1000).
            f'lg_check rules sh -c "ip rule add pref 1000 table local && ip rule del pref 0 &&'
            f' ip rule add pref 10 to {dst} iif lo table 100 &&'
            f' ip rule add pref 11 to {src} iif lo table 101 &&'
            f' ip route add {dst}/32 via {gw_a} dev $A table 100 &&'
            f' ip route add {src}/32 via {gw_b} dev $B table 101"',
            'rx0=$(cat /sys/class/net/$B/statistics/rx_packets)',
            # The first ping may wait for ARP on both sides of the router.
            f"ping -c 1 -W 3 -I {src} {dst} >/dev/null 2>&1",
            f"out=$(ping -c {self.count} -W 2 -I {src} {dst} 2>&1)",
            'rx1=$(cat /sys/class/net/$B/statistics/rx_packets)',
            'lg_value ping "$(echo "$out" | tail -n 2 | tr \'\\n\' \' \')"',
            'lg_value port-b-rx "$((rx1 - rx0))"',
            f'case "$out" in *" {self.count} packets received"*) lg_report through-dut PASS;;'
            ' *) lg_report through-dut FAIL "$(echo "$out" | tail -n 2 | tr \'\\n\' \' \')";; esac',
            'lg_counters "$A" "$B"',
        ]) + "\n"
