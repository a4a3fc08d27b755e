/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_frame.c: whole frames into net_input, through Ethernet,
 * ARP, IPv4, reassembly (both families), ICMP and UDP, IPv6, ICMPv6,
 * neighbour discovery and router solicitations, and TCP over both (a listener on port 80 that echoes), with
 * the forwarding and route hooks set (both families), time moving, UDP
 * callbacks sending.
 *
 * Input: records of [ctl][len lo][len hi][frame...]. ctl bit 0: port;
 * bit 1: fix up the IPv4 header and ICMP/UDP/TCP checksums, and ICMPv6's
 * and TCP's over IPv6, so
 * mutations get past them; bit 2: PKT_RX_IP_CSUM_OK; bit 3: PKT_RX_L4_CSUM_OK; bits 4-7:
 * time advance in 250 ms steps. After the input the stack lets go of all
 * it holds and every buffer must be back in the pool, or the target
 * aborts. The stack is built once; every input starts from a snapshot of
 * it (tests/support/snapshot.h).
 * Eight full-size frames fit, and the bursts stay short: libFuzzer: -max_len=2048 */
#include <stdlib.h>
#include <string.h>

#include "net/tcp/tcp.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/snapshot.h"

static struct fake_net fn;
static struct snap snap;
static struct tcp_stack tcp;
static uint8_t arena[256 << 10] __attribute__((aligned(64)));
static size_t arena_used;

static void tcp_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    if (tcp_send(c, p, now_ns) != 0)
        pkt_free(p);
}

static void tcp_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns) { tcp_close(c, now_ns); }

static const struct tcp_callbacks tcp_cb = {.recv = tcp_recv, .peer_fin = tcp_fin};

static void udp_cb(void *ctx, struct net_stack *s, const struct udp_meta *m, const uint8_t *data,
                   uint16_t len, struct pkt *p, uint64_t now_ns)
{
    uint32_t src = m->bcast ? 0 : m->dst_be;
    if (m->v6 && p)
        udp_send6(s, p, m->bcast ? NULL : m->dst6, m->src6, m->dport, m->sport, m->port, now_ns);
    else if (m->v6) /* reassembled, longer than a buffer */
        udp_send6_copy(s, data, len, m->bcast ? NULL : m->dst6, m->src6, m->dport, m->sport, m->port, now_ns);
    else if (p && (len & 1))
        udp_send(s, p, src, m->src_be, m->dport, m->sport, now_ns);
    else {
        if (p)
            pkt_free(p);
        udp_send_copy(s, data, len, src, m->src_be, m->dport, m->sport, now_ns);
    }
}

static bool route_cb(void *ctx, uint32_t dst_be, uint16_t *port, uint32_t *gw_be)
{
    if ((net_ntohl(dst_be) >> 24) != 192)
        return false;
    *port = 1;
    *gw_be = FAKE_PEER1;
    return true;
}

/* IPv6: 2001:db8::/64 on port 0, 2001:db8:1::/64 on port 1, and
 * 2001:db8:99::/48 via 2001:db8:1::2 on port 1. */
static bool route6_cb(void *ctx, const uint8_t *dst, const uint8_t *hdr, uint16_t *port, uint8_t *gw)
{
    static const uint8_t net[6] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99}, via[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2};
    static const uint8_t link0[8] = {0x20, 0x01, 0x0d, 0xb8}, link1[8] = {0x20, 0x01, 0x0d, 0xb8, 0, 1};
    memset(gw, 0, 16);
    if (memcmp(dst, link0, 8) == 0 || memcmp(dst, link1, 8) == 0) {
        *port = memcmp(dst, link0, 8) == 0 ? 0 : 1;
        return true;
    }
    if (memcmp(dst, net, 6) != 0)
        return false;
    *port = 1;
    memcpy(gw, via, 16);
    return true;
}

/* A small router: TTL check, errors, next hop, ARP. */
static void forward_cb(void *ctx, struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    struct ip4_hdr *h = (struct ip4_hdr *)p->data;
    uint16_t port;
    uint32_t nh;
    if (h->ttl <= 1) {
        icmp4_send_time_exceeded(s, p, now_ns);
        pkt_free(p);
        return;
    }
    if (!net_route(s, h->dst_be, &port, &nh)) {
        icmp4_send_unreach(s, p, ICMP4_UNREACH_NET, now_ns);
        pkt_free(p);
        return;
    }
    if (p->len > net_iface_get(s, port)->mtu - 100 && (net_ntohs(h->frag_be) & IP4_DF)) {
        icmp4_send_frag_needed(s, p, (uint16_t)(net_iface_get(s, port)->mtu - 100), now_ns);
        pkt_free(p);
        return;
    }
    h->ttl--;
    arp_output(s, port, nh, p, now_ns);
}

static void setup(void)
{
    net_stack_init(fn.s, &fn.pool, 0);
    net_iface_add(fn.s, &fn.nd[0].dev, 0, FAKE_ADDR0, 24);
    net_iface_add(fn.s, &fn.nd[1].dev, 0, FAKE_ADDR1, 24);
    fn.s->iface[1].vlan_id = 7;
    fn.nd[0].dev.link_up = fn.nd[1].dev.link_up = true;
    fn.nd[1].dev.offloads = NETDEV_OFF_TX_CSUM;
    fn.nd[1].tx_accept = 3;
    net_set_route(fn.s, route_cb, NULL);
    static const uint8_t a0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1}, a1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1};
    net_iface_set_addr6(fn.s, 0, a0, 64);
    net_iface_set_addr6(fn.s, 1, a1, 64);
    ra6_enable(fn.s, &fn.s->iface[0], false, fn.now_ns); /* answers solicitations (unasked ones never end) */
    net_set_route6(fn.s, route6_cb, NULL);
    net_set_forward(fn.s, forward_cb, NULL);
    udp_bind(fn.s, 7, udp_cb, NULL);
    udp_bind(fn.s, 9, udp_cb, NULL);
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.sq_slots = 8;
    cfg.backlog = 2;
    cfg.sndbuf_max = 65536; /* large queues of 64 slots: the arena holds them */
    arena_used = tcp_arena_size(&cfg, 16);
    if (arena_used > sizeof arena || tcp_init(fn.s, &tcp, arena, arena_used, &cfg) == 0)
        abort();
    tcp_listen(fn.s, 80, &tcp_cb, NULL);
    fn.now_ns = 1000000000ull;
    net_poll(fn.s, fn.now_ns);
    net_flush(fn.s);
}

static void fix_checksums(uint8_t *f, size_t len)
{
    size_t l3 = 14;
    if (len >= 18 && f[12] == 0x81 && f[13] == 0x00)
        l3 = 18;
    uint8_t next6 = len >= l3 + 48 ? f[l3 + 6] : 0;
    if ((next6 == IP6_PROTO_ICMP6 || next6 == IP4_PROTO_TCP || next6 == IP4_PROTO_UDP) && (f[l3] >> 4) == 6) {
        uint8_t *ip6 = f + l3, *m = ip6 + 40;
        size_t plen = (size_t)(ip6[4] << 8 | ip6[5]);
        size_t field = next6 == IP4_PROTO_TCP ? 16 : next6 == IP4_PROTO_UDP ? 6 : 2;
        if (l3 + 40 + plen > len || plen < field + 2)
            return;
        uint32_t sum = 0;
        for (int i = 8; i < 40; i += 2)
            sum += (uint32_t)(ip6[i] << 8 | ip6[i + 1]);
        sum += (uint32_t)plen + f[l3 + 6];
        m[field] = m[field + 1] = 0;
        uint16_t c6 = fake_csum(m, plen, sum);
        m[field] = (uint8_t)(c6 >> 8);
        m[field + 1] = (uint8_t)c6;
        return;
    }
    if (len < l3 + 20 || (f[l3] >> 4) != 4)
        return;
    uint8_t *ip = f + l3;
    size_t hlen = (size_t)(ip[0] & 0xf) * 4, tot = (size_t)(ip[2] << 8 | ip[3]);
    if (hlen < 20 || l3 + hlen > len)
        return;
    ip[10] = ip[11] = 0;
    uint16_t c = fake_csum(ip, hlen, 0);
    ip[10] = (uint8_t)(c >> 8);
    ip[11] = (uint8_t)c;
    if (tot < hlen || l3 + tot > len || (ip[6] & 0x3f) || ip[7]) /* whole datagrams only */
        return;
    uint8_t *l4 = ip + hlen;
    size_t l4_len = tot - hlen, field;
    uint32_t sum = 0;
    if (l4_len < 8)
        return;
    if (ip[9] == IP4_PROTO_ICMP)
        field = 2;
    else if (ip[9] == IP4_PROTO_TCP && l4_len >= 20) {
        for (int i = 12; i < 20; i += 2)
            sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
        sum += IP4_PROTO_TCP + (uint32_t)l4_len;
        field = 16;
    } else if (ip[9] == IP4_PROTO_UDP) {
        l4_len = (size_t)(l4[4] << 8 | l4[5]);
        if (l4_len < 8 || l4_len > tot - hlen)
            return;
        for (int i = 12; i < 20; i += 2)
            sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
        sum += IP4_PROTO_UDP + (uint32_t)l4_len;
        field = 6;
    } else
        return;
    l4[field] = l4[field + 1] = 0;
    c = fake_csum(l4, l4_len, sum);
    l4[field] = (uint8_t)(c >> 8);
    l4[field + 1] = (uint8_t)c;
}

/* Past the reassembly timeout nothing may wait for fragments; then the
 * stack (TCP's connections too) lets go of all it holds, and every buffer
 * is back. */
static void finish(void)
{
    fn.now_ns += REASM_TIMEOUT_NS + 1;
    reasm_timer(fn.s, fn.now_ns);
    if (fn.s->reasm.bufs)
        abort();
    net_stack_release(fn.s);
    if (!fake_net_all_free(&fn) || fn.s->arp_queued || tcp.nfree != tcp.nconns)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t frame[PKT_DATA_ROOM];
    if (snap.n == 0) {
        fake_net_init(&fn, 1024);
        setup();
        fake_netdev_clear(&fn.nd[0]);
        fake_netdev_clear(&fn.nd[1]);
        snap_add(&snap, &fn.now_ns, sizeof fn.now_ns);
        snap_add_stack(&snap, fn.s);
        snap_add_pool(&snap, &fn.pool);
        snap_add(&snap, &tcp, sizeof tcp);
        snap_add(&snap, arena, arena_used);
    }
    snap_restore(&snap);
    struct pkt *burst[8];
    uint16_t n = 0;
    while (size >= 3) {
        uint8_t ctl = data[0];
        size_t len = (size_t)(data[1] | data[2] << 8);
        data += 3;
        size -= 3;
        if (len > size)
            len = size;
        if (len > sizeof(frame))
            len = sizeof(frame);
        memcpy(frame, data, len);
        data += len;
        size -= len;
        if (ctl & 2)
            fix_checksums(frame, len);
        struct pkt *p = fake_net_rx(&fn, ctl & 1, frame, len);
        if (p == NULL)
            abort();
        p->flags = (uint16_t)(((ctl & 4) ? PKT_RX_IP_CSUM_OK : 0) | ((ctl & 8) ? PKT_RX_L4_CSUM_OK : 0));
        burst[n++] = p;
        if (n == 8 || (ctl >> 4) || size < 3) {
            net_input(fn.s, burst, n, fn.now_ns);
            n = 0;
            fn.now_ns += (uint64_t)(ctl >> 4) * 250000000ull;
            net_poll(fn.s, fn.now_ns);
            net_flush(fn.s);
            fake_netdev_clear(&fn.nd[0]);
            fake_netdev_clear(&fn.nd[1]);
        }
    }
    if (n)
        net_input(fn.s, burst, n, fn.now_ns);
    finish();
    return 0;
}
