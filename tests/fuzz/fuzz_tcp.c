/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_tcp.c: TCP segments from the wire into a stack with a
 * listener (port 80) and active opens (port 40000 to 10.0.0.2:9000, and
 * over IPv6 to [2001:db8::2]:9000), applications that write, echo
 * zero-copy and close, and time moving.
 *
 * Input: records of [ctl][len lo][len hi][TCP segment...], each wrapped in
 * Ethernet and IPv4 from 10.0.0.2 to 10.0.0.1, or, with bit 7 of len hi,
 * in IPv6 from 2001:db8::2 to 2001:db8::1. ctl bit 0: fix the TCP
 * checksum; bit 1: sequence and acknowledgment numbers are relative to the
 * connection of that 4-tuple (rcv_nxt, snd_una), so mutations land in the
 * window; bit 2: PKT_RX_L4_CSUM_OK; bit 3: the applications write a little
 * on every connection afterwards; bits 4-7: n, time advances 2^n ms.
 * After each record the connections' invariants are checked
 * (tests/support/tcp_invariants.h); at the end the stack is released and
 * every buffer and connection must be back, or the target aborts. The
 * stack, its ARP and ND entries, the listener and the two SYN-SENT
 * connections are built once; every input starts from a snapshot of them
 * (tests/support/snapshot.h).
 * A few full-size segments fit, and inputs stay fast: libFuzzer: -max_len=2048 */
#include <stdlib.h>
#include <string.h>

#include "net/ip/ip6.h"
#include "net/tcp/tcp_impl.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/snapshot.h"
#include "tests/support/tcp_invariants.h"

#define NCONNS 16

static const uint8_t addr6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t peer6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};

static struct fake_net fn;
static struct tcp_stack tcp;
static void *arena;
static struct snap snap;

static void app_data(struct tcp_conn *c, uint64_t now_ns)
{
    static const char msg[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    tcp_write(c, msg, (uint32_t)(c->lport % sizeof(msg)) + 1, now_ns);
}

static void on_open(void *ctx, struct tcp_conn *c, uint64_t now_ns) { app_data(c, now_ns); }

static void on_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    if ((p->len & 1) && tcp_send(c, p, now_ns) == 0)
        return;
    pkt_free(p);
}

static void on_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns) { tcp_close(c, now_ns); }

static const struct tcp_callbacks cb = {
    .accepted = on_open, .connected = on_open, .recv = on_recv, .peer_fin = on_fin};

/* Ethernet and IPv6 from peer6 to dst around len bytes at l4. */
static size_t wrap6(uint8_t *f, const uint8_t *dmac, const uint8_t *dst, uint8_t hlim, uint8_t next,
                    const uint8_t *l4, size_t len)
{
    size_t n = fake_eth(f, dmac, fake_peer_mac, ETH_TYPE_IP6);
    struct ip6_hdr h = {.vtf_be = net_htonl(6u << 28), .plen_be = net_htons((uint16_t)len), .next = next,
                        .hlim = hlim};
    memcpy(h.src, peer6, 16);
    memcpy(h.dst, dst, 16);
    memcpy(f + n, &h, sizeof(h));
    memmove(f + n + IP6_HDR_LEN, l4, len);
    return n + IP6_HDR_LEN + len;
}

static void setup(void)
{
    net_stack_init(fn.s, &fn.pool, 0);
    net_iface_add(fn.s, &fn.nd[0].dev, 0, FAKE_ADDR0, 24);
    net_iface_set_addr6(fn.s, 0, addr6, 64);
    fn.nd[0].dev.link_up = true;
    fn.now_ns = 1000000000ull;
    net_poll(fn.s, fn.now_ns);
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.sq_slots = 16;
    cfg.ooo_max = 8;
    cfg.backlog = 4;
    cfg.rcvbuf = 8192;
    cfg.sndbuf = 8192;
    cfg.sndbuf_max = 65536; /* large queues of 64 slots: the arena holds them */
    size_t bytes = tcp_arena_size(&cfg, NCONNS);
    arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (arena == NULL || tcp_init(fn.s, &tcp, arena, bytes, &cfg) != NCONNS)
        abort();
    tcp_listen(fn.s, 80, &cb, NULL);
    tcp_connect_from(fn.s, 40000, FAKE_PEER, 9000, &cb, NULL, fn.now_ns);
    /* The peer's MAC, both families, so segments leave at once. */
    fake_net_learn_peer(&fn);
    fake_net_learn_peer6(&fn, addr6, peer6);
    tcp_connect6_from(fn.s, 40000, peer6, 9000, &cb, NULL, fn.now_ns);
    net_flush(fn.s);
    fake_netdev_clear(&fn.nd[0]);
    snap_add(&snap, &fn.now_ns, sizeof fn.now_ns);
    snap_add_stack(&snap, fn.s);
    snap_add_pool(&snap, &fn.pool);
    snap_add(&snap, &tcp, sizeof tcp);
    snap_add(&snap, arena, bytes);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static void relative(uint8_t *t, size_t len, bool v6)
{
    if (len < 20)
        return;
    uint16_t sport = (uint16_t)(t[0] << 8 | t[1]), dport = (uint16_t)(t[2] << 8 | t[3]);
    struct tcp_conn *c = v6 ? tcp_conn_lookup6(&tcp, addr6, peer6, dport, sport)
                            : tcp_conn_lookup(&tcp, FAKE_ADDR0, FAKE_PEER, dport, sport);
    if (c == NULL)
        return;
    put32(t + 4, get32(t + 4) + c->rcv_nxt);
    put32(t + 8, get32(t + 8) + c->snd_una);
}

static void fix_csum(uint8_t *t, size_t len, bool v6)
{
    uint8_t ph[12];
    uint32_t src = FAKE_PEER, dst = FAKE_ADDR0, sum = 0;
    if (len < 18)
        return;
    if (v6) {
        t[16] = t[17] = 0;
        uint16_t c6 = ip6_l4_csum(peer6, addr6, IP4_PROTO_TCP, t, (uint32_t)len);
        memcpy(t + 16, &c6, 2);
        return;
    }
    memcpy(ph, &src, 4);
    memcpy(ph + 4, &dst, 4);
    ph[8] = 0;
    ph[9] = IP4_PROTO_TCP;
    ph[10] = (uint8_t)(len >> 8);
    ph[11] = (uint8_t)len;
    for (int i = 0; i < 12; i += 2)
        sum += (uint32_t)(ph[i] << 8 | ph[i + 1]);
    t[16] = t[17] = 0;
    uint16_t c = fake_csum(t, len, sum);
    t[16] = (uint8_t)(c >> 8);
    t[17] = (uint8_t)c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t frame[PKT_DATA_ROOM];
    if (snap.n == 0) {
        fake_net_init(&fn, 512);
        setup();
    }
    snap_restore(&snap);
    while (size >= 3) {
        uint8_t ctl = data[0];
        bool v6 = (data[2] & 0x80) != 0;
        size_t len = (size_t)(data[1] | (data[2] & 0x7f) << 8);
        data += 3;
        size -= 3;
        if (len > size)
            len = size;
        if (len > PKT_DATA_ROOM - 54)
            len = PKT_DATA_ROOM - 54;
        uint8_t *t = frame + (v6 ? 54 : 34);
        memcpy(t, data, len);
        data += len;
        size -= len;
        if (ctl & 2)
            relative(t, len, v6);
        if (ctl & 1)
            fix_csum(t, len, v6);
        size_t n = v6 ? wrap6(frame, fn.nd[0].dev.mac, addr6, 64, IP4_PROTO_TCP, t, len)
                      : fake_frame_ip4(frame, IP4_PROTO_TCP, 1, 0x4000, t, len);
        struct pkt *p = fake_net_rx(&fn, 0, frame, n);
        if (p == NULL)
            abort();
        p->flags = (ctl & 4) ? PKT_RX_L4_CSUM_OK : 0;
        net_input(fn.s, &p, 1, fn.now_ns);
        if (ctl & 8) {
            uint32_t idx = 0;
            struct tcp_conn *c;
            while ((c = tcp_conn_next(&tcp, &idx)) != NULL)
                if (c->state == TCP_ESTABLISHED || c->state == TCP_CLOSE_WAIT)
                    app_data(c, fn.now_ns);
        }
        if (ctl >> 4) {
            fn.now_ns += 1000000ull << (ctl >> 4);
            net_poll(fn.s, fn.now_ns);
        }
        net_flush(fn.s);
        fake_netdev_clear(&fn.nd[0]);
        tcp_check_invariants(&tcp);
    }
    net_stack_release(fn.s);
    net_flush(fn.s);
    fake_netdev_clear(&fn.nd[0]);
    if (fn.pool.nfree != fn.pool.total || tcp.nfree != NCONNS)
        abort();
    return 0;
}
