# SPDX-License-Identifier: MIT
"""tests/e2e/nsraw.py: raw Ethernet sockets inside the test namespaces.

A socket belongs to the network namespace it was created in, and keeps it.
So the test process enters a namespace just long enough to open an
AF_PACKET socket on that namespace's tap, and returns; one thread can then
send on one side of hayate and receive on the other, which lets a sender
keep a bounded window of frames in flight (nothing is lost to a full tap
queue, so a missing frame is hayate's doing). Python 3.11 has no os.setns:
setns(2) is called through libc.
"""
import ctypes
import os
import socket

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")


def raw_socket(ns, ifname, rcvbuf=8 << 20):
    """An AF_PACKET socket bound to ifname inside namespace ns."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        _setns(target)
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.bind((ifname, 0))
        return s
    finally:
        _setns(home)
        os.close(home)
        os.close(target)


def drain(sock, keep):
    """Read every frame waiting on a non-blocking socket; keep(frame) each."""
    n = 0
    while True:
        try:
            frame, addr = sock.recvfrom(65535)
        except BlockingIOError:
            return n
        if addr[2] == socket.PACKET_OUTGOING:
            continue  # our own transmissions, looped back to the socket
        keep(frame)
        n += 1
