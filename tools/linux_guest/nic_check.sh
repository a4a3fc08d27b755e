# SPDX-License-Identifier: MIT
# tools/linux_guest/nic_check.sh: the guest's half of a NIC check (host's
# half: nic_check.py). Sourced by /init after the modules load, with
# PF_DRIVER, VF_DRIVER, NUM_VFS, TCP_BYTES and PORTS set before it. Each step
# reports LG-RESULT lines; lg_wait hands the wire to the host in between.
# Addresses: PF 10.0.0.1/24, the first VF 10.0.1.1/24, the second port's
# PF 10.0.2.1/24; the host is .2 of each (the second port's on its own tap).

# ARP only from the interface holding the address: the PF and the VFs
# share one wire, and the VF's answer must come from the VF.
sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2

PF=$(lg_ifaces "$PF_DRIVER" | head -n 1)
if [ -n "$PF" ]; then
    lg_report pf-probe PASS "$PF $(basename "$(readlink /sys/class/net/$PF/device)")"
else
    lg_report pf-probe FAIL "no interface bound to $PF_DRIVER"
    return 0
fi
lg_value pf-mac "$(cat /sys/class/net/$PF/address)"
ip addr add 10.0.0.1/24 dev "$PF"
ip link set "$PF" up
if lg_wait_carrier "$PF" 30; then
    lg_report pf-link PASS "$(cat /sys/class/net/$PF/speed 2>/dev/null)Mb/s"
else
    lg_report pf-link FAIL "no carrier on $PF in 30 s"
fi
lg_check pf-ping-host ping -c 3 -W 3 10.0.0.2

# Host to guest: the host pings, then sends TCP_BYTES bytes to port 5001.
nc -l -p 5001 > /tmp/rx &
lg_wait pf-ready
wait
lg_value pf-rx "$(wc -c < /tmp/rx) $(sha256sum /tmp/rx | cut -d' ' -f1)"
# Guest to host: TCP_BYTES random bytes to the host's port 5002.
head -c "$TCP_BYTES" /dev/urandom > /tmp/tx
lg_value pf-tx "$(wc -c < /tmp/tx) $(sha256sum /tmp/tx | cut -d' ' -f1)"
lg_wait host-listening
lg_check pf-tcp-to-host nc -w 10 10.0.0.2 5002 < /tmp/tx
# A second port (PORTS=2, behind rp2): probe, link, ping both ways, at
# MTU 1500 and at 9000.
if [ "${PORTS:-1}" -ge 2 ]; then
    PF2=$(lg_ifaces "$PF_DRIVER" | sed -n 2p)
    if [ -n "$PF2" ]; then
        lg_report pf2-probe PASS "$PF2 $(basename "$(readlink /sys/class/net/$PF2/device)")"
        ip addr add 10.0.2.1/24 dev "$PF2"
        ip link set "$PF2" up
        lg_wait_carrier "$PF2" 30 && lg_report pf2-link PASS || lg_report pf2-link FAIL "no carrier on $PF2 in 30 s"
        lg_check pf2-ping-host ping -c 3 -W 3 10.0.2.2
        # Jumbo frames (the host's tap is at 9000 too): a 9000-byte MTU's
        # largest ping each way, whole frames over several RX buffers
        # (busybox's ping sets no DF: the host's, next, does).
        ip link set "$PF2" mtu 9000
        lg_check pf2-jumbo-ping-host ping -c 3 -W 3 -s 8972 10.0.2.2
        lg_wait pf2-ready
    else
        lg_report pf2-probe FAIL "one interface bound to $PF_DRIVER, wanted 2"
    fi
fi
lg_value pf-stats "rx_packets=$(cat /sys/class/net/$PF/statistics/rx_packets) tx_packets=$(cat /sys/class/net/$PF/statistics/tx_packets) rx_errors=$(cat /sys/class/net/$PF/statistics/rx_errors)"

[ "${NUM_VFS:-0}" -gt 0 ] || return 0
# The PF at MTU 9000 before its VFs exist: Linux's ixgbe grants an 82599
# VF jumbo frames only then (its MAXFRS is the port's); igb has no such rule.
ip link set "$PF" mtu 9000
lg_check sriov-numvfs sh -c "echo $NUM_VFS > /sys/class/net/$PF/device/sriov_numvfs"
i=0
while [ $i -lt 100 ]; do
    VFS=$(lg_ifaces "$VF_DRIVER" | tr '\n' ' ')
    [ "$(echo $VFS | wc -w)" -ge "$NUM_VFS" ] && break
    usleep 100000
    i=$((i + 1))
done
lg_value vf-pci "$(for v in $VFS; do basename "$(readlink /sys/class/net/$v/device)"; done | tr '\n' ' ')"
if [ "$(echo $VFS | wc -w)" -eq "$NUM_VFS" ]; then
    lg_report vf-bind PASS "$VFS"
else
    lg_report vf-bind FAIL "$VF_DRIVER bound [$VFS], wanted $NUM_VFS"
    return 0
fi
VF=$(echo $VFS | cut -d' ' -f1)
ip addr add 10.0.1.1/24 dev "$VF"
ip link set "$VF" up
if lg_wait_carrier "$VF" 30; then
    lg_report vf-link PASS
else
    lg_report vf-link FAIL "no carrier on $VF in 30 s"
fi
lg_value vf-mac "$(cat /sys/class/net/$VF/address)"
lg_check vf-ping-host ping -c 3 -W 3 -I "$VF" 10.0.1.2
lg_value vf-rx-before "$(cat /sys/class/net/$VF/statistics/rx_packets)"
# The host pings the VF's address; its rx_packets must move.
lg_wait vf-ready
lg_value vf-rx-after "$(cat /sys/class/net/$VF/statistics/rx_packets)"
# Jumbo frames on the VF (the host's tap is at 9000): the VF driver asks
# its PF for them over the mailbox (SET_LPE); pings of 9000-byte frames
# each way, the host's with DF set.
lg_check vf-mtu-9000 ip link set "$VF" mtu 9000
lg_check vf-jumbo-ping-host ping -c 3 -W 3 -s 8972 -I "$VF" 10.0.1.2
lg_wait vf-jumbo-ready
