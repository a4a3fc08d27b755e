#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/fuzz/seeds.py: write starting inputs for the fuzz targets.

Usage: seeds.py NAME DIR. Each seed is a valid input in the target's own
record format (see the header of tests/fuzz/NAME.c), so mutation starts
from frames that get past the first checks."""
import os
import struct
import sys

MAC0 = bytes.fromhex("020000000001")
MAC1 = bytes.fromhex("020000000002")
PEER_MAC = bytes.fromhex("0200000000aa")
BCAST = b"\xff" * 6
ADDR0, ADDR1 = bytes([10, 0, 0, 1]), bytes([10, 0, 1, 1])
PEER, PEER1 = bytes([10, 0, 0, 2]), bytes([10, 0, 1, 2])


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(dst, src, typ, vlan=None):
    if vlan is not None:
        return dst + src + struct.pack("!HHH", 0x8100, vlan, typ)
    return dst + src + struct.pack("!H", typ)


def ip4(src, dst, proto, payload, ident=1, frag=0, ttl=64, opts=b""):
    ihl = 5 + len(opts) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(payload), ident, frag, ttl, proto, 0,
                    src, dst) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def icmp(typ, code, rest, data):
    m = struct.pack("!BBHI", typ, code, 0, rest) + data
    return m[:2] + struct.pack("!H", csum(m)) + m[4:]


def udp(src, dst, sport, dport, data):
    u = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    c = csum(src + dst + struct.pack("!BBH", 0, 17, len(u)) + u) or 0xFFFF
    return u[:6] + struct.pack("!H", c) + u[8:]


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + spa + tha + tpa


def ip6(src, dst, nxt, payload, hlim=64):
    return struct.pack(">IHBB", 6 << 28, len(payload), nxt, hlim) + src + dst + payload


def icmp6(typ, code, rest, data):
    """Checksum left 0: the fix bit fills it in."""
    return struct.pack(">BBHI", typ, code, 0, rest) + data


A6_0 = bytes.fromhex("20010db8000000000000000000000001")
PEER6 = bytes.fromhex("20010db8000000000000000000000002")
FAR6 = bytes.fromhex("20010db8009900000000000000000009")


def rec(frame, port=0, fix=True, time=0):
    return bytes([port | (2 if fix else 0) | time << 4]) + struct.pack("<H", len(frame)) + frame


def frame_seeds():
    ping = icmp(8, 0, 0x10001, b"abcdefgh" * 4)
    big = icmp(8, 0, 0x10002, bytes(range(256)) * 12)
    frags = []
    for off in range(0, len(big), 1480):
        part = big[off:off + 1480]
        mf = 0x2000 if off + 1480 < len(big) else 0
        frags.append(rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, ADDR0, 1, part, 9, mf | off // 8)))
    arp_req = rec(eth(BCAST, PEER_MAC, 0x806) + arp(1, PEER_MAC, PEER, b"\0" * 6, ADDR0))
    syn = tcp(5555, 80, 1000, 0, 2, opts=bytes([2, 4, 5, 0xA0, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7]))
    sn = bytes.fromhex("ff0200000000000000000001ff") + A6_0[13:]
    ns6 = rec(eth(b"\x33\x33" + sn[12:], PEER_MAC, 0x86dd)
              + ip6(PEER6, sn, 58, icmp6(135, 0, 0, A6_0 + b"\x01\x01" + PEER_MAC), hlim=255))
    return {
        "ns6": ns6,
        "ping6": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, A6_0, 58, icmp6(128, 0, 0x10001, b"abcd" * 8))),
        "udp6_echo": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd)
                               + ip6(PEER6, A6_0, 17, struct.pack("!HHHH", 5000, 7, 11, 0) + b"hi!")),
        "forward6": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, FAR6, 58, icmp6(128, 0, 1, b"x" * 16))),
        "forward6_hlim1": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, FAR6, 58, icmp6(128, 0, 1, b"y"), hlim=1)),
        "arp": arp_req,
        "arp_reply": rec(eth(MAC0, PEER_MAC, 0x806) + arp(2, PEER_MAC, PEER, MAC0, ADDR0)),
        "ping": arp_req + rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, ADDR0, 1, ping)),
        "ping_opts": rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, ADDR0, 1, ping, opts=b"\x94\x04\0\0")),
        "ping_frag": arp_req + b"".join(reversed(frags)),
        "udp_echo": arp_req + rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, ADDR0, 17, udp(PEER, ADDR0, 5000, 7, b"hi!"))),
        "udp_noport": rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, ADDR0, 17, udp(PEER, ADDR0, 5000, 99, b"x"))),
        "udp_bcast": rec(eth(BCAST, PEER_MAC, 0x800) + ip4(PEER, b"\xff" * 4, 17, udp(PEER, b"\xff" * 4, 5, 9, b"yo"))),
        "forward": rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, PEER1, 17, udp(PEER, PEER1, 1, 2, b"fwd"))),
        "forward_ttl1": rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, bytes([192, 168, 1, 1]), 1, ping, ttl=1)),
        "forward_route": rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, bytes([192, 168, 1, 1]), 1, ping), time=5),
        "vlan": rec(eth(MAC1, PEER_MAC, 0x800, vlan=7) + ip4(PEER1, ADDR1, 1, ping), port=1),
        "vlan_arp": rec(eth(BCAST, PEER_MAC, 0x806, vlan=7) + arp(1, PEER_MAC, PEER1, b"\0" * 6, ADDR1), port=1),
        "tcp_syn": arp_req + rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, ADDR0, 6, syn)),
        "tcp6_syn": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, A6_0, 6, syn)),
        "tcp6_syn_data": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, A6_0, 6, syn))
        + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, A6_0, 6, tcp(5555, 80, 1001, 0, 0x18, b"echo me")), time=1),
        "tcp6_noport": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, A6_0, 6, tcp(5555, 81, 1, 0, 2))),
        "tcp6_rst": rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, A6_0, 6, tcp(5555, 80, 1, 0, 4))),
        # Path MTU: errors quoting our SYN-ACK (tcp_icmp4, tcp_icmp6).
        "tcp_needfrag": arp_req + rec(eth(MAC0, PEER_MAC, 0x800) + ip4(PEER, ADDR0, 6, syn))
        + rec(eth(MAC0, PEER_MAC, 0x800)
              + ip4(PEER, ADDR0, 1, icmp(3, 4, 1200, ip4(ADDR0, PEER, 6, tcp(80, 5555, 0, 1001, 0x12))[:28]))),
        "tcp6_too_big": ns6 + rec(eth(MAC0, PEER_MAC, 0x86dd) + ip6(PEER6, A6_0, 6, syn))
        + rec(eth(MAC0, PEER_MAC, 0x86dd)
              + ip6(PEER6, A6_0, 58, icmp6(2, 0, 1280, ip6(A6_0, PEER6, 6, tcp(80, 5555, 0, 1001, 0x12))))),
    }


def reasm_rec(ident, off, length, mf, is_udp, ulen=0, time=0, v6=False):
    b0 = ident | (0x20 if mf else 0) | (0x40 if is_udp else 0) | (0x80 if v6 else 0)
    units = (length + 7) // 8
    cut = units * 8 - length
    return bytes([b0, off // 8 & 0xFF, (off // 8 >> 8) | cut << 5, units]) + struct.pack("!HB", ulen,
                                                                                        0xF0 | time if time else 0)


def reasm_seeds():
    total = 3008
    parts = [(0, 1480, True), (1480, 1480, True), (2960, 48, False)]
    parts6 = [(0, 1440, True), (1440, 1440, True), (2880, 48, False)]
    return {
        "udp_in_order": b"".join(reasm_rec(1, o, n, m, True, total) for o, n, m in parts),
        "udp_reversed": b"".join(reasm_rec(2, o, n, m, True, total) for o, n, m in reversed(parts)),
        "icmp_two": reasm_rec(0, 0, 16, True, False) + reasm_rec(0, 16, 8, False, False),
        "timeout": reasm_rec(3, 0, 64, True, True, 100, time=8) + reasm_rec(3, 64, 8, False, True, 0, time=8),
        "many": b"".join(reasm_rec(i % 32, 16 + 8 * (i // 32), 8, True, True) for i in range(200)),
        # IPv6: payloads of at most 1448 bytes a fragment.
        "udp6_in_order": b"".join(reasm_rec(4, o, n, m, True, 2928, v6=True) for o, n, m in parts6),
        "udp6_reversed": b"".join(reasm_rec(5, o, n, m, True, 2928, v6=True) for o, n, m in reversed(parts6)),
        "icmp6_two": reasm_rec(6, 0, 16, True, False, v6=True) + reasm_rec(6, 16, 8, False, False, v6=True),
        "timeout6": reasm_rec(7, 0, 64, True, True, 100, time=8, v6=True) + reasm_rec(7, 64, 8, False, True, 0,
                                                                                    time=8, v6=True),
    }


def tcp(sport, dport, seq, ack, flags, data=b"", opts=b"", wnd=65535):
    hlen = 20 + len(opts)
    return struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, hlen // 4 << 4, flags,
                       wnd, 0, 0) + opts + data


def tcp_rec(seg, rel=True, time=0, app=False, v6=False):
    """fuzz_tcp's record: checksum fixed, sequence numbers relative; over
    IPv6 with bit 15 of the length."""
    ctl = 1 | (2 if rel else 0) | (8 if app else 0) | time << 4
    return bytes([ctl]) + struct.pack("<H", len(seg) | (0x8000 if v6 else 0)) + seg


def tcp_seeds():
    SYN, FIN, RST, PSH, ACK = 2, 1, 4, 8, 16
    syn_opts = bytes([2, 4, 5, 0xB4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7])
    ts = bytes([1, 1, 8, 10, 0, 0, 0, 2, 0, 0, 0, 0])
    sack = bytes([1, 1, 5, 10, 0, 0, 0, 100, 0, 0, 0, 200])
    hs = tcp_rec(tcp(5555, 80, 1000, 0, SYN, opts=syn_opts), rel=False) + tcp_rec(tcp(5555, 80, 0, 1, ACK, opts=ts))
    data = tcp_rec(tcp(5555, 80, 0, 1, ACK | PSH, b"hello world", opts=ts), app=True)
    ooo = tcp_rec(tcp(5555, 80, 100, 1, ACK, b"x" * 50, opts=ts)) + tcp_rec(tcp(5555, 80, 0, 1, ACK, b"y" * 100, opts=ts))
    close = tcp_rec(tcp(5555, 80, 11, 1, ACK | FIN, opts=ts), time=8)
    synack = tcp_rec(tcp(9000, 40000, 7777, 1, SYN | ACK, opts=syn_opts), rel=True)
    active = synack + tcp_rec(tcp(9000, 40000, 0, 0, ACK | PSH, b"from the server", opts=ts), app=True)
    hs6 = (tcp_rec(tcp(5556, 80, 1000, 0, SYN, opts=syn_opts), rel=False, v6=True)
           + tcp_rec(tcp(5556, 80, 0, 1, ACK, opts=ts), v6=True))
    data6 = tcp_rec(tcp(5556, 80, 0, 1, ACK | PSH, b"hello six", opts=ts), app=True, v6=True)
    return {
        "handshake": hs,
        "data": hs + data,
        "ooo": hs + ooo,
        "close": hs + data + close + tcp_rec(tcp(5555, 80, 12, 40, ACK, opts=ts), time=12),
        "rst": hs + tcp_rec(tcp(5555, 80, 0, 0, RST)),
        "sack": hs + data + tcp_rec(tcp(5555, 80, 11, 0, ACK, opts=ts + sack), time=3),
        "active": active,
        "active_close": active + tcp_rec(tcp(9000, 40000, 15, 5, ACK | FIN, opts=ts), time=10),
        "refused": tcp_rec(tcp(9000, 40000, 0, 1, RST | ACK), rel=True),
        "timeouts": hs + data + tcp_rec(tcp(5555, 80, 11, 0, ACK), time=15) * 3,
        "handshake6": hs6,
        "data6": hs6 + data6,
        "sack6": hs6 + data6 + tcp_rec(tcp(5556, 80, 11, 0, ACK, opts=ts + sack), time=3, v6=True),
        "close6": hs6 + data6 + tcp_rec(tcp(5556, 80, 11, 1, ACK | FIN, opts=ts), time=8, v6=True),
        "active6": tcp_rec(tcp(9000, 40000, 7777, 1, SYN | ACK, opts=syn_opts), v6=True)
        + tcp_rec(tcp(9000, 40000, 0, 0, ACK | PSH, b"six", opts=ts), app=True, v6=True),
        "noport6": tcp_rec(tcp(5556, 81, 1, 0, SYN, opts=syn_opts), rel=False, v6=True),
        "both": hs + hs6 + data + data6,
    }


# fuzz_tcp_conn's operations (see the header of tests/fuzz/fuzz_tcp_conn.c).
SYN, FIN, RST, PSH, ACK = 2, 1, 4, 8, 16
WIN = 0xBF          # 64 KB, as the peer's shift says
O_TS, O_SACK, O_MSS, O_WS, O_SACKOK = 1, 2, 4, 8, 16


def seg(flags=ACK, seq=0, ack=0, unit=0, ack_nxt=False, ack_seg=False, win=WIN, opt=O_TS, length=0, ts=1,
        sack=b"", bad=False, nic=False):
    """The peer's segment: seq in unit (0: bytes, 1: 100, 2: segments,
    3: 64 KB) from rcv_nxt; ack from snd_una (snd_nxt), in bytes or
    segments; sack: (left, size) pairs in segments from snd_una."""
    op = unit | (4 if ack_nxt else 0) | (16 if ack_seg else 0) | (0x60 if bad else 0) | (0x80 if nic else 0)
    blocks = b"".join(struct.pack("bB", l, n - 1) for l, n in sack).ljust(6, b"\0")
    if sack:
        opt |= O_SACK | (len(sack) - 1) << 6
    return struct.pack("BBbbBBBB", op, flags, seq, ack, win, opt, length, ts & 0xFF) + blocks


def conn_op(kind, n=0):
    return bytes([kind, n])


def tick(ms_code):
    return conn_op(8, ms_code)


WRITE_64K, ACK_ALL, FULL_SEG = conn_op(9, 255), conn_op(12, WIN), 0x40


def data(n=1):
    return conn_op(13, FULL_SEG) * n


def tcp_conn_seeds():
    grow = conn_op(9, 255) + ACK_ALL + ACK_ALL
    sacks = b"".join(seg(sack=[(1, k)]) for k in range(1, 5))
    fin_wait_2 = bytes([0]) + conn_op(9, 3) + conn_op(10) + ACK_ALL
    time_wait = fin_wait_2 + seg(ACK | FIN)
    reuse = seg(SYN, seq=1, unit=3, opt=O_TS | O_MSS | O_WS | O_SACKOK, ts=2) + seg(ACK, ack_nxt=True)
    return {
        # Start 0: SACK recovery, then its end; and a D-SACK that undoes it.
        "recovery": bytes([0]) + grow + sacks + ACK_ALL,
        "recovery_dsack": bytes([0]) + grow + sacks + seg(sack=[(-1, 1), (1, 4)]) + ACK_ALL
        + seg(sack=[(-1, 1)]),
        # The one retransmission reported duplicate (D-SACK): undone.
        "recovery_undone": bytes([0]) + grow + sacks + seg(ack=5, ack_seg=True, sack=[(0, 1)]) + ACK_ALL,
        # RACK: the last segment SACKed alone, the reordering timer runs out.
        "rack": bytes([0]) + grow + seg(sack=[(10, 1)]) + tick(0x03) + tick(0x13) + ACK_ALL,
        # The tail loss probe, answered; then a timeout, and one more.
        "tlp": bytes([0]) + conn_op(9, 40) + tick(0x02) + ACK_ALL,
        "rto": bytes([0]) + conn_op(9, 40) + tick(0x4F) + tick(0x5F) + tick(0x6F) + ACK_ALL,
        # The peer's window shut: window probes, then it opens.
        "peer_zero_window": bytes([0]) + conn_op(12, 0) + conn_op(9, 20) + tick(0x4F) + tick(0x5F) + ACK_ALL,
        # Our window shut by the application holding what it got, reopened.
        "our_zero_window": bytes([3]) + data(24) + seg(ACK | PSH, length=FULL_SEG) + tick(0x0F)
        + conn_op(11, 0) + data(2),
        # FIN-WAIT-2 with a hole before the peer's data and FIN; its timer
        # waits on; the hole filled: TIME-WAIT, then its end.
        "fin_wait_2_hole": fin_wait_2 + seg(ACK | FIN, seq=2, unit=2, length=FULL_SEG) + tick(0xC5)
        + data(2) + tick(0xC5),
        "time_wait_reuse": time_wait + tick(0x05) + reuse + data(1),
        "time_wait_fin_again": time_wait + seg(ACK | FIN, seq=-1) + tick(0xC5),
        # Keepalive probes unanswered: the connection is given up.
        "keepalive": bytes([0]) + conn_op(14, 4) + tick(0xA0) + tick(0xA0) + tick(0xA0),
        # RFC 5961: a RST and a SYN in the window but not at rcv_nxt.
        "challenge": bytes([0]) + seg(RST, seq=5, opt=0) + seg(SYN, seq=3) + seg(RST) ,
        # PAWS: a timestamp from the past.
        "paws": bytes([0]) + seg(ACK | PSH, length=FULL_SEG, ts=0x3F) + data(1),
        "out_of_order": bytes([0]) + seg(ACK, seq=2, unit=2, length=FULL_SEG) + seg(ACK, seq=1, unit=2, length=FULL_SEG)
        + data(1),
        # NewReno without SACK: three duplicate ACKs, a partial ACK.
        "newreno": bytes([1]) + grow + seg(opt=0) * 4 + seg(ack=1, ack_seg=True, opt=0) + ACK_ALL,
        # The active open, options negotiated by the SYN-ACK.
        "active": bytes([2]) + conn_op(9, 8) + seg(SYN | ACK, ack_nxt=True, opt=O_TS | O_MSS | O_WS | O_SACKOK)
        + data(1) + ACK_ALL,
        "active_plain": bytes([2]) + seg(SYN | ACK, ack_nxt=True, opt=O_MSS | 0x40, win=0xFF) + data(1),
        "active_refused": bytes([2]) + seg(RST | ACK, ack_nxt=True, opt=0),
        # The passive open from the listener, then data both ways.
        "passive": bytes([4]) + seg(SYN, opt=O_TS | O_MSS | O_WS | O_SACKOK) + seg(ACK, ack_nxt=True)
        + conn_op(9, 4) + data(1) + ACK_ALL,
        "close_both": bytes([0]) + data(1) + seg(ACK | FIN) + conn_op(10) + ACK_ALL,
        # Both FINs cross: CLOSING, then TIME-WAIT.
        "closing": bytes([0]) + conn_op(10) + seg(ACK | FIN) + ACK_ALL,
        "abort": bytes([0]) + conn_op(9, 8) + conn_op(10, 1),
        "settings": bytes([0]) + conn_op(15, 0x07) + conn_op(9, 30) + tick(0x0F) + ACK_ALL,
    }


def iperf3_seeds():
    """What iperf3 3.12's client sends: a cookie, parameters, results."""
    cookie = b"abcdefghijklmnopqrstuvwxyz0123456789\0"
    params = (b'{"tcp":true,"omit":0,"time":10,"num":0,"blockcount":0,"parallel":4,"reverse":true,'
              b'"len":131072,"pacing_timer":1000,"client_version":"3.12"}')
    results = (b'{"cpu_util_total":1.5,"cpu_util_user":0.2,"cpu_util_system":1.3,"sender_has_retransmits":1,'
               b'"congestion_used":"cubic","streams":[{"id":1,"bytes":251236688,"retransmits":0,"jitter":0,'
               b'"errors":0,"omitted_errors":0,"packets":0,"omitted_packets":0,"start_time":0,"end_time":2.0}]}')
    return {"cookie": cookie, "params": params, "results": results}


def http_seeds():
    """Requests as clients send them, in chunks of a length byte and data."""
    def chunks(b, n=40):
        return b"".join(bytes([len(b[i:i + n])]) + b[i:i + n] for i in range(0, len(b), n))
    get = b"GET /bytes/3000 HTTP/1.1\r\nHost: x\r\n\r\n"
    return {
        "get": chunks(get, 255),
        "pipelined": chunks(get + b"HEAD / HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n", 7),
        "body": chunks(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789GET / HTTP/1.0\r\n\r\n"),
        "chunked": chunks(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
        "bare_lf": chunks(b"GET /bytes/5 HTTP/1.1\nHost: x\n\nGET /nope HTTP/1.1\n\n"),
        "keepalive10": chunks(b"GET /bytes/1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" * 3, 100),
    }


def http_pipe_seeds():
    """fuzz_http_pipe's ops (tests/fuzz/fuzz_http_pipe.c): requests from
    tokens (tests/support/http_pipe_model.h), cut into segments."""
    def req(method=0, version=0, lines=0, target=0, n=0, hdr=1, bad=0, rng=0, blen=0, p=0):
        return bytes([p << 3, method | version << 3 | lines << 6, target | n << 4, hdr, bad | rng << 3 | blen << 6])

    def send(n, shift=0):
        return bytes([1 | shift << 3, n - 1])

    def time(k):
        return bytes([2 | k << 3])

    def read(on):
        return bytes([3 | on << 3])

    fin, rst, rest = b"\x04", b"\x05", b"\x07"
    host, ka, close, length, bad, rng = 1, 4, 8, 16, 32, 64
    mixed = (req(target=2, n=9) + req(method=1) + req(target=1) + req(target=7)
             + req(method=2, hdr=host | length, blen=2) + req(target=3, n=6, version=1, hdr=ka))
    return {
        "get": req() + rest + read(1) + time(6),
        "pipelined_cut": mixed + b"".join(send(7) + time(2) for _ in range(40)) + read(1) + time(8),
        "window_closed": read(0) + req(target=2, n=12) + req(target=0) + rest + time(10) + read(1) + time(10),
        "ranges": b"".join(req(target=2, n=6, hdr=host | rng, rng=k) for k in range(8)) + rest + read(1),
        "ranges_small": b"".join(req(target=2, n=1, hdr=host | rng, rng=k) for k in range(8)) + rest + read(1),
        "http10": req(version=1, hdr=0) + req(version=1, hdr=ka, target=2, n=3) + rest + read(1),
        "bad_version": req(version=4) + req() + rest + read(1),
        "no_host": req(hdr=0) + rest + read(1),
        "bad_headers": b"".join(req(hdr=host | bad, bad=k) for k in range(7)) + rest + read(1),
        "body_skipped": req(method=2, hdr=host | length, blen=3) + req(target=2, n=1) + rest + read(1),
        "chunked": req(method=2, hdr=host | bad, bad=5) + req() + rest + read(1),
        "long_431": req(hdr=host | bad, bad=7, p=3) + rest + read(1),
        "long_fits": req(hdr=host | bad, bad=7, p=1) + req(lines=2) + rest + read(1),
        "bare_lf": req(lines=2, target=2, n=4) + req(lines=3) + rest + read(1),
        "close": req(hdr=host | close) + req() + rest + read(1),
        "fin": mixed + send(100, 1) + fin + read(1) + time(8),
        "rst": mixed + send(60) + time(3) + rst,
        "junk": req() + bytes([6 | 9 << 3]) + b"GARBAGE\r\n\r\n" + rest + read(1),
        "idle": req() + rest + read(1) + time(15) * 20,
    }


def gen_seeds():
    """A stamped IPv4 frame (tester/gen_frame.h's stamp), a tagged IPv6
    one, and sequences with gaps, duplicates and swaps."""
    stamp = struct.pack("<HHIQ", 0x4e47, 1, 5, 123456789)
    mac_a, mac_b = bytes.fromhex("020000000001"), bytes.fromhex("020000000002")
    v4 = eth(mac_b, mac_a, 0x0800) + ip4(bytes([198, 18, 0, 1]), bytes([198, 19, 0, 1]), 17,
                                          udp(bytes([198, 18, 0, 1]), bytes([198, 19, 0, 1]), 1024, 7, stamp))
    src6, dst6 = bytes.fromhex("20010db8000100000000000000001000"), bytes.fromhex("20010db8000200000000000000000099")
    v6 = eth(mac_b, mac_a, 0x86dd, vlan=5) + ip6(src6, dst6, 17, struct.pack("!HHHH", 1024, 7, 8 + 16, 0) + stamp)
    seqs = struct.pack("<I", 0xfffffff0) + bytes([0, 1, 2, 4, 3, 5, 5, 9, 7, 8, 200, 10])
    return {"v4": v4, "v6": v6, "seqs": seqs}


def bgp_seeds():
    """BGP messages as speakers send them (RFC 4271 4, RFC 4760, RFC 5492),
    each alone and all of them as one stream."""
    def msg(typ, body):
        return b"\xff" * 16 + struct.pack("!HB", 19 + len(body), typ) + body

    def attr(flags, typ, val):
        if len(val) > 255:
            return struct.pack("!BBH", flags | 0x10, typ, len(val)) + val
        return struct.pack("!BBB", flags, typ, len(val)) + val

    def update(attrs, nlri=b"", wd=b""):
        return msg(2, struct.pack("!H", len(wd)) + wd + struct.pack("!H", len(attrs)) + attrs + nlri)

    caps = (bytes([1, 4, 0, 1, 0, 1]) + bytes([1, 4, 0, 2, 0, 1]) + bytes([2, 0])
            + bytes([65, 4]) + struct.pack("!I", 4200000001))
    open_ = msg(1, struct.pack("!BHHIBBB", 4, 23456, 90, 0xc0000201, len(caps) + 2, 2, len(caps)) + caps)
    keepalive = msg(4, b"")
    origin = attr(0x40, 1, b"\x00")
    path4 = attr(0x40, 2, bytes([2, 2]) + struct.pack("!II", 65000, 4200000001))
    path2 = attr(0x40, 2, bytes([2, 3]) + struct.pack("!HHH", 65000, 23456, 64512))
    as4path = attr(0xc0, 17, bytes([2, 2]) + struct.pack("!II", 4200000001, 64512))
    v4 = update(origin + path4 + attr(0x40, 3, bytes([192, 0, 2, 1])) + attr(0x80, 4, struct.pack("!I", 100))
                + attr(0x40, 5, struct.pack("!I", 200)) + attr(0xc0, 7, struct.pack("!I", 65000) + bytes(4))
                + attr(0xc0, 8, struct.pack("!HHHH", 65000, 1, 65000, 2)) + attr(0xe0, 99, b"xy"),
                nlri=bytes([24, 198, 51, 100, 16, 10, 1, 0]), wd=bytes([32, 203, 0, 113, 9]))
    v4_old = update(origin + path2 + attr(0x40, 3, bytes([10, 0, 0, 1])) + as4path
                    + attr(0xc0, 7, struct.pack("!H", 23456) + bytes(4))
                    + attr(0xc0, 18, struct.pack("!I", 4200000009) + bytes(4)), nlri=bytes([8, 10]))
    nh6 = bytes.fromhex("20010db8000000000000000000000001") + bytes.fromhex("fe800000000000000000000000000001")
    nlri6 = bytes([48]) + bytes.fromhex("20010db80001") + bytes([64]) + bytes.fromhex("20010db800020000")
    mp_reach = attr(0x80, 14, struct.pack("!HBB", 2, 1, 32) + nh6 + b"\x00" + nlri6)
    v6 = update(mp_reach + origin + path4 + attr(0x40, 6, b""))
    mp_unreach = update(attr(0x80, 15, struct.pack("!HB", 2, 1) + nlri6))
    eor6 = update(attr(0x80, 15, struct.pack("!HB", 2, 1)))
    notification = msg(3, bytes([6, 2, 4]) + b"bye!")
    refresh = msg(5, struct.pack("!HBB", 2, 0, 1))
    seeds = {"open": open_, "keepalive": keepalive, "update_v4": v4, "update_v4_old_speaker": v4_old,
             "update_v6_mp_reach": v6, "update_mp_unreach": mp_unreach, "eor_v6": eor6, "eor_v4": update(b""),
             "notification": notification, "route_refresh": refresh}
    seeds["stream"] = open_ + keepalive + v4 + v6 + mp_unreach + refresh + notification
    return seeds


def acl_seeds():
    """fuzz_acl's inputs (tests/fuzz/fuzz_acl.c): [ctl][aim][edges] then an
    IPv4 or IPv6 datagram; ctl bit 2 IPv6, bit 3 aim at rule aim."""
    src4, dst4 = bytes([198, 51, 100, 7]), bytes([192, 0, 2, 1])
    src6, dst6 = bytes.fromhex("20010db8000100000000000000000001"), bytes.fromhex("20010db8000000000000000000000053")

    def rec(datagram, lst=0, v6=False, aim=None, edges=0):
        ctl = lst | (4 if v6 else 0) | (8 if aim is not None else 0)
        return bytes([ctl, aim or 0, edges]) + datagram

    def ext(nxt, units=0):
        """Hop-by-hop, routing or destination options: PadN inside."""
        n = 8 * (1 + units)
        return bytes([nxt, units, 1, n - 4]) + bytes(n - 4)

    def frag6(nxt, off8, more):
        return struct.pack("!BBHI", nxt, 0, off8 << 3 | (1 if more else 0), 0xdeadbeef)

    syn = tcp(40000, 443, 1, 0, 2)
    dns = udp(src4, dst4, 5353, 53, b"q")
    seeds = {
        "tcp4": rec(ip4(src4, dst4, 6, syn)),
        "udp4": rec(ip4(src4, dst4, 17, dns), lst=1),
        "udp4_opts": rec(ip4(src4, dst4, 17, dns, opts=b"\x01" * 8), lst=2),
        "icmp4": rec(ip4(src4, bytes([203, 0, 113, 1]), 1, icmp(8, 0, 1, b"ping"))),
        "frag4_first": rec(ip4(src4, dst4, 17, dns, frag=0x2000)),
        "frag4_later": rec(ip4(src4, dst4, 17, dns, frag=0x2000 | 185), lst=3),
        "gre4": rec(ip4(src4, dst4, 47, b"\0" * 8)),
        "tcp4_cut": rec(ip4(src4, dst4, 6, syn)[:22], lst=1),
        "tcp6": rec(ip6(src6, dst6, 6, syn), v6=True),
        "udp6": rec(ip6(src6, dst6, 17, struct.pack("!HHHH", 5353, 53, 9, 0) + b"q"), v6=True, lst=3),
        "icmp6": rec(ip6(bytes.fromhex("fe800000000000000000000000000001"), dst6, 58, icmp6(128, 0, 1, b"x")),
                     v6=True),
        "ext6": rec(ip6(src6, dst6, 0, ext(60) + ext(43, 1) + ext(6) + syn), v6=True),
        "frag6_first": rec(ip6(src6, dst6, 44, frag6(17, 0, True) + struct.pack("!HHHH", 1, 53, 8, 0)), v6=True),
        "frag6_later": rec(ip6(src6, dst6, 0, ext(44) + frag6(6, 181, False) + syn), v6=True, lst=2),
        "ah6": rec(ip6(src6, dst6, 51, bytes([17, 4]) + bytes(22) + struct.pack("!HHHH", 1, 53, 8, 0)), v6=True),
        "chain9": rec(ip6(src6, dst6, 60, b"".join(ext(60) for _ in range(8)) + ext(17) + dns), v6=True),
    }
    for lst in range(4):
        for k, edges in enumerate((0x00, 0x55, 0xaa, 0xff)):
            seeds[f"aim4_{lst}_{k}"] = rec(ip4(src4, dst4, 6, syn), lst=lst, aim=k * 17 + lst, edges=edges)
            seeds[f"aim6_{lst}_{k}"] = rec(ip6(src6, dst6, 17, dns), v6=True, lst=lst, aim=k * 13 + lst,
                                           edges=edges)
    return seeds


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    seeds = {"fuzz_frame": frame_seeds, "fuzz_reasm": reasm_seeds, "fuzz_tcp": tcp_seeds,
             "fuzz_tcp_conn": tcp_conn_seeds, "fuzz_iperf3": iperf3_seeds, "fuzz_http": http_seeds,
             "fuzz_http_pipe": http_pipe_seeds, "fuzz_gen": gen_seeds,
             "fuzz_bgp": bgp_seeds, "fuzz_acl": acl_seeds}.get(name, lambda: {"bytes": bytes(range(64)) * 3})()
    for k, v in seeds.items():
        with open(os.path.join(out, "seed_" + k), "wb") as f:
            f.write(v)


if __name__ == "__main__":
    main()
