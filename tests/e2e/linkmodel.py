# SPDX-License-Identifier: MIT
"""tests/e2e/linkmodel.py: a link between two taps, in two namespaces,
that drops, duplicates, reorders or delays known frames of hayate's
generator (tester/gen_frame.h's stamp) and says exactly what it did, for
the generator's accounting to be checked against.

A thread enters each namespace in turn (setns affects the calling thread
alone) to bind a packet socket to each tap; the sockets keep their
namespaces. Frames that carry no stamp are not passed on."""
import ctypes
import os
import select
import socket
import struct
import threading
import time

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
MAGIC = 0x4E47


def _enter_netns(ns):
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")
    finally:
        os.close(fd)


def stamp(frame):
    """(stream, seq) of a stamped IPv4 or IPv6 UDP frame, or None."""
    if len(frame) >= 14 + 20 + 8 + 16 and frame[12:14] == b"\x08\x00" and frame[23] == 17:
        off = 14 + (frame[14] & 15) * 4 + 8
    elif len(frame) >= 14 + 40 + 8 + 16 and frame[12:14] == b"\x86\xdd" and frame[20] == 17:
        off = 14 + 40 + 8
    else:
        return None
    magic, stream, seq, _ = struct.unpack_from("<HHIQ", frame, off)
    return (stream, seq) if magic == MAGIC else None


class LinkModel:
    """Frames from tap a (namespace ns_a) to tap b (ns_b). drop, dup and
    hold take a sequence number: hold(seq) keeps the frame until the next
    one has gone (a swap); delay_s holds every frame that long;
    capacity_pps passes at most that many frames a second (a token bucket
    of depth burst), as a device under test of known capacity."""

    def __init__(self, ns_a, tap_a, ns_b, tap_b, drop=None, dup=None, hold=None, delay_s=0.0,
                 capacity_pps=0, burst=100):
        self.drop, self.dup, self.hold = drop or (lambda s: False), dup or (lambda s: False), hold or (lambda s: False)
        self.delay_s = delay_s
        self.capacity_pps, self.burst = capacity_pps, burst
        self.over_capacity = 0
        self.seen = self.dropped = self.duplicated = self.swapped = self.passed = 0
        self.sizes = {}
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error = None
        self._thread = threading.Thread(target=self._run, args=(ns_a, tap_a, ns_b, tap_b), daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("link model did not start")
        if self._error:
            raise self._error

    def _run(self, ns_a, tap_a, ns_b, tap_b):
        try:
            _enter_netns(ns_a)
            rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
            rx.bind((tap_a, 0))
            _enter_netns(ns_b)
            tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            tx.bind((tap_b, 0))
        except OSError as e:
            self._error = e
            self._ready.set()
            return
        self._ready.set()
        held, delayed = None, []
        tokens, last = float(self.burst), time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            while delayed and delayed[0][0] <= now:
                tx.send(delayed.pop(0)[1])
            timeout = max(0.0, delayed[0][0] - now) if delayed else 0.05
            if not select.select([rx], [], [], min(timeout, 0.05))[0]:
                continue
            frame, addr = rx.recvfrom(16384)  # (jumbo frames: test_gen_jumbo_frames)
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            st = stamp(frame)
            if st is None:
                continue
            seq = st[1]
            self.seen += 1
            self.sizes[len(frame)] = self.sizes.get(len(frame), 0) + 1
            if self.drop(seq):
                self.dropped += 1
                continue
            if self.capacity_pps:
                t = time.monotonic()
                tokens, last = min(float(self.burst), tokens + (t - last) * self.capacity_pps), t
                if tokens < 1:
                    self.over_capacity += 1
                    continue
                tokens -= 1
            if self.delay_s:
                delayed.append((time.monotonic() + self.delay_s, frame))
                self.passed += 1
                continue
            if held is None and self.hold(seq):
                held = frame
                continue
            out = [frame]
            if self.dup(seq):
                out.append(frame)
                self.duplicated += 1
            if held is not None:
                out.append(held)
                held = None
                self.swapped += 1
            for f in out:
                tx.send(f)
                self.passed += 1
        for _, f in delayed:
            tx.send(f)
        if held is not None:
            tx.send(held)
        rx.close()
        tx.close()

    def close(self):
        self._stop.set()
        self._thread.join(5)
