/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_icmp.c: ICMP errors about our own segments (RFC 1122 4.2.3.9).
 *
 * What TCP acts on is path MTU discovery: our segments leave with DF set
 * (and IPv6 routers never fragment), so a link narrower than ours on the
 * way drops them and says so with "fragmentation needed" (RFC 1191) or
 * "packet too big" (RFC 8201). Without acting on it the connection stalls
 * for good once its segments are full-sized. The segment size comes down
 * to fit, and what was in flight at the old size is sent again at once,
 * as Linux's tcp_simple_retransmit does: a drop for size is no sign of
 * congestion, so cwnd stays.
 *
 * Soft errors (unreachable, time exceeded) change nothing: RFC 1122 and
 * RFC 5461 leave a synchronized connection to its own timers.
 *
 * An error counts only when the sequence number it quotes is one we have
 * sent and not yet had acknowledged (RFC 5927 4.1), so a blind attacker
 * cannot shrink segments; nor do we go below 552 bytes for IPv4 (Linux's
 * min_pmtu) or 1280 for IPv6 (RFC 8201 4).
 *
 * Where the errors never come (a firewall drops them: a black hole, RFC
 * 2923 2.1), full-sized segments time out again and again. After
 * TCP_BLACKHOLE_RTOS timeouts in a row of a segment larger than a base
 * size that every path carries, the segment size comes down to it, as
 * Linux's does with tcp_mtu_probing=1 (RFC 4821's search_low: 1024 bytes
 * of payload; for IPv6, all that its minimum MTU of 1280 holds). The size
 * is per connection. Black holes come and go (a route changes): every
 * pmtu_probe_ns (10 minutes, Linux's tcp_probe_interval) the size before
 * the cut is tried again, in RFC 4821's spirit but without its separate
 * probe segments: the data goes at that size, and if the path still drops
 * it, TCP_BLACKHOLE_RTOS timeouts bring it down again (a second or two of
 * stall every 10 minutes). */
#include "net.h"
#include "tcp_impl.h"
#include "core/wire.h"

#define PMTU4_MIN 552
#define BASE_MSS4 1024
#define BASE_MSS6 (IP6_MIN_MTU - IP6_HDR_LEN - TCP_HDR_LEN)

/* The path to c takes at most mtu bytes of IP (ip_hdr of them header),
 * says an error quoting c's TCP header th (at least 8 bytes): believed
 * when th's sequence number is in flight. c NULL: no such connection. */
static void pmtu_lower(struct net_stack *s, struct tcp_conn *c, const uint8_t *th, uint32_t mtu, uint32_t ip_hdr,
                       uint64_t now_ns)
{
    uint32_t seq_be;
    net_memcpy(&seq_be, th + 4, 4);
    uint32_t seq = net_ntohl(seq_be), mss = mtu - ip_hdr - TCP_HDR_LEN;
    if (c == NULL || !tcp_synchronized(c->state) || c->state == TCP_TIME_WAIT || SEQ_LT(seq, c->snd_una) ||
        !SEQ_LT(seq, c->snd_nxt) || mss >= c->mss || (c->flags & TCP_CF_BUSY)) {
        s->ctr.tcp_icmp_ignored++;
        return;
    }
    s->ctr.tcp_pmtu_lowered++;
    tcp_conn_set_mss(c, (uint16_t)mss);
    c->flags |= TCP_CF_BUSY;
    if (tcp_sack_mark_oversize(c, c->seg_size)) {
        c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING; /* Karn: what comes back may be for either */
        c->rto_at = 0;                           /* tcp_output sends and re-arms */
    }
    tcp_conn_unbusy(c, now_ns);
}

/* The quoted TCP header's ports (th: at least 8 bytes). */
static void quoted_ports(const uint8_t *th, uint16_t *sport, uint16_t *dport)
{
    uint16_t a, b;
    net_memcpy(&a, th, 2);
    net_memcpy(&b, th + 2, 2);
    *sport = net_ntohs(a);
    *dport = net_ntohs(b);
}

void tcp_icmp4(struct net_stack *s, const uint8_t *q, uint32_t avail, uint8_t type, uint8_t code,
               uint32_t rest_be, uint64_t now_ns)
{
    const struct ip4_hdr *ip = (const struct ip4_hdr *)q;
    uint32_t ihl = avail >= IP4_HDR_LEN ? (uint32_t)(q[0] & 0x0f) * 4 : 0;
    uint32_t mtu = net_ntohl(rest_be) & 0xffff; /* RFC 1191 4: the low 16 bits */
    /* Others are soft errors; mtu 0 is a pre-RFC 1191 router's, no size to go by. */
    if (type != ICMP4_UNREACH || code != ICMP4_UNREACH_NEEDFRAG || mtu == 0 ||
        ihl < IP4_HDR_LEN || (q[0] >> 4) != 4 || avail < ihl + 8 || ip->proto != IP4_PROTO_TCP) {
        s->ctr.tcp_icmp_ignored++;
        return;
    }
    uint16_t sport, dport;
    quoted_ports(q + ihl, &sport, &dport);
    pmtu_lower(s, tcp_conn_lookup(s->tcp, ip->src_be, ip->dst_be, sport, dport), q + ihl,
               mtu < PMTU4_MIN ? PMTU4_MIN : mtu, IP4_HDR_LEN, now_ns);
}

void tcp_icmp6(struct net_stack *s, const uint8_t *q, uint32_t avail, uint8_t type, uint32_t mtu,
               uint64_t now_ns)
{
    const struct ip6_hdr *ip = (const struct ip6_hdr *)q;
    if (type != ICMP6_TOO_BIG || avail < IP6_HDR_LEN + 8 || (q[0] >> 4) != 6 ||
        ip->next != IP4_PROTO_TCP) {
        s->ctr.tcp_icmp_ignored++;
        return;
    }
    uint16_t sport, dport;
    quoted_ports(q + IP6_HDR_LEN, &sport, &dport);
    pmtu_lower(s, tcp_conn_lookup6(s->tcp, ip->src, ip->dst, sport, dport), q + IP6_HDR_LEN,
               mtu < IP6_MIN_MTU ? IP6_MIN_MTU : mtu, IP6_HDR_LEN, now_ns);
}

void tcp_pmtu_blackhole(struct tcp_conn *c, uint64_t now_ns)
{
    uint16_t base = (c->flags & TCP_CF_IP6) ? BASE_MSS6 : BASE_MSS4;
    uint32_t base_seg = base - ((c->flags & TCP_CF_TS) ? TCP_TS_ALIGNED_LEN : 0u);
    if (c->mss <= base || tcp_sent_slots(c) == 0)
        return;
    const struct tcp_seg *sg = tcp_sq_at(c, 0);
    uint32_t from = SEQ_GT(c->snd_una, sg->seq) ? c->snd_una : sg->seq;
    /* What times out is small: not a matter of size. Unless a probe
     * raised the size: slots queued before it are small, but TSO cuts
     * their frames at the new size. */
    if (sg->seq + sg->len - from <= base_seg && !c->mss_probe)
        return;
    if (!c->mss_probe)
        c->mss_probe = c->mss;
    c->pmtu_probe_at = now_ns + c->t->cfg.pmtu_probe_ns;
    tcp_conn_set_mss(c, base);
    c->t->s->ctr.tcp_pmtu_blackhole++;
}

void tcp_pmtu_probe(struct tcp_conn *c)
{
    c->pmtu_probe_at = 0;
    if (!tcp_synchronized(c->state) || c->state == TCP_TIME_WAIT || c->mss_probe <= c->mss)
        return;
    tcp_conn_set_mss(c, c->mss_probe);
    c->t->s->ctr.tcp_pmtu_probe++;
}
