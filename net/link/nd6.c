/* SPDX-License-Identifier: MIT */
/* net/link/nd6.c: IPv6 neighbour discovery, address resolution (RFC 4861
 * section 7; net/link/nd6.h). */
#include "nd6.h"

#include "core/env.h"
#include "eth.h"
#include "ip/icmp6.h"
#include "ip/ip6.h"
#include "net.h"
#include "core/wire.h"

#define SETS 16
#define WAYS (ND6_ENTRIES / SETS)
#define NS_LEN 32               /* header, target, source link-layer option */

static struct nd6_entry *set_of(struct net_iface *ifc, const uint8_t *ip)
{
    uint32_t h;
    net_memcpy(&h, ip + 12, 4);
    h *= 0x9e3779b1u;
    return &ifc->nd.e[(h >> 28) % SETS * WAYS];
}

static struct nd6_entry *find(struct net_iface *ifc, const uint8_t *ip)
{
    struct nd6_entry *e = set_of(ifc, ip);
    for (int w = 0; w < WAYS; w++)
        if (e[w].state != ND6_FREE && ip6_eq(e[w].ip, ip))
            return &e[w];
    return NULL;
}

static void forget(struct net_stack *s, struct net_iface *ifc, struct nd6_entry *e)
{
    s->arp_queued -= e->q.len;
    pkt_queue_free(&e->q);
    net_memset(e, 0, sizeof(*e));
    ifc->nd.used &= ~(1ull << (e - ifc->nd.e));
}

/* A way of ip's set for a new entry: a free one, else the stalest STALE
 * one, else (for an entry whose MAC we have) the oldest REACHABLE one.
 * Entries being resolved never take more than WAYS - 1 ways of a set, nor
 * push out a reachable neighbour: packets sent to many addresses of a
 * /64 cannot evict the gateway (RFC 6583). NULL when none may go. */
static struct nd6_entry *make(struct net_stack *s, struct net_iface *ifc, const uint8_t *ip, bool resolving)
{
    struct nd6_entry *e = set_of(ifc, ip), *free = NULL, *stale = NULL, *reach = NULL;
    int incomplete = 0;
    for (int w = 0; w < WAYS; w++) {
        if (e[w].state == ND6_FREE && !free)
            free = &e[w];
        else if (e[w].state == ND6_INCOMPLETE)
            incomplete++;
        else if (e[w].state == ND6_STALE && (!stale || e[w].expire_ns < stale->expire_ns))
            stale = &e[w];
        else if (e[w].state == ND6_REACHABLE && (!reach || e[w].expire_ns < reach->expire_ns))
            reach = &e[w];
    }
    struct nd6_entry *victim = free ? free : stale ? stale : resolving ? NULL : reach;
    if (victim == NULL || (resolving && incomplete >= WAYS - 1))
        return NULL;
    forget(s, ifc, victim);
    net_memcpy(victim->ip, ip, 16);
    ifc->nd.used |= 1ull << (victim - ifc->nd.e);
    return victim;
}

void nd6_mcast_mac(const uint8_t *ip, uint8_t *mac)
{
    mac[0] = 0x33;
    mac[1] = 0x33;
    net_memcpy(mac + 2, ip + 12, 4);
}

/* Our source for a message to or about dst on ifc: link-local for
 * link-local peers or when we have no address there. */
static const uint8_t *source_for(const struct net_iface *ifc, const uint8_t *dst)
{
    return ifc->has6 && !ip6_is_linklocal(dst) ? ifc->addr6 : ifc->ll6;
}

void nd6_send(struct net_stack *s, struct net_iface *ifc, const uint8_t *src, const uint8_t *dst,
              const uint8_t *mac, const uint8_t *body, uint32_t len)
{
    struct pkt *p = pkt_alloc(s->pool);
    if (p == NULL) {
        s->ctr.ip6_out_no_buf++;
        return;
    }
    struct ip6_hdr *h = (struct ip6_hdr *)p->data;
    h->vtf_be = net_htonl(6u << 28);
    h->plen_be = net_htons((uint16_t)len);
    h->next = IP6_PROTO_ICMP6;
    h->hlim = 255;
    net_memcpy(h->src, src, 16);
    net_memcpy(h->dst, dst, 16);
    uint8_t *m = p->data + IP6_HDR_LEN;
    net_memcpy(m, body, len);
    uint16_t c = ip6_l4_csum(src, dst, IP6_PROTO_ICMP6, m, len);
    net_memcpy(m + 2, &c, 2);
    p->len = (uint16_t)(IP6_HDR_LEN + len);
    s->ctr.ip6_tx++;
    eth_output(s, ifc, mac, ETH_TYPE_IP6, p);
}

/* A solicitation for target: to its solicited-node group, or to mac
 * (a unicast probe of a stale entry). */
static void send_ns(struct net_stack *s, struct net_iface *ifc, const uint8_t *target, const uint8_t *mac)
{
    uint8_t body[NS_LEN] = {ND6_NS}, dst[16], gmac[6];
    net_memcpy(body + 8, target, 16);
    body[24] = ND6_OPT_SLLA;
    body[25] = 1;
    net_memcpy(body + 26, ifc->dev->mac, ETH_ALEN);
    if (mac) {
        net_memcpy(dst, target, 16);
    } else {
        ip6_solicited_node(target, dst);
        nd6_mcast_mac(dst, gmac);
        mac = gmac;
    }
    s->ctr.nd6_tx_ns++;
    nd6_send(s, ifc, source_for(ifc, target), dst, mac, body, NS_LEN);
}

/* An advertisement of our address target, to dst at mac (solicited), or
 * to all nodes when the solicitation came from the unspecified address. */
static void send_na(struct net_stack *s, struct net_iface *ifc, const uint8_t *target, const uint8_t *dst,
                    const uint8_t *mac)
{
    static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
    uint8_t body[NS_LEN] = {ND6_NA}, gmac[6];
    bool to_all = ip6_is_unspec(dst);
    bool anycast = ip6_eq(target, ifc->sra6); /* 7.2.7: another node may answer for it too */
    body[4] = (uint8_t)((s->route6 ? ND6_NA_ROUTER : 0) | (to_all ? 0 : ND6_NA_SOLICITED) |
                        (anycast ? 0 : ND6_NA_OVERRIDE));
    net_memcpy(body + 8, target, 16);
    body[24] = ND6_OPT_TLLA;
    body[25] = 1;
    net_memcpy(body + 26, ifc->dev->mac, ETH_ALEN);
    if (to_all) {
        dst = all_nodes;
        nd6_mcast_mac(all_nodes, gmac);
        mac = gmac;
    }
    s->ctr.nd6_tx_na++;
    nd6_send(s, ifc, target, dst, mac, body, NS_LEN);
}

/* e is due at at: the cache's bound comes down with it, so nd6_timer
 * walks the cache only when an entry may be due (as net/link/arp.c). */
static void expire_at(struct net_iface *ifc, struct nd6_entry *e, uint64_t at)
{
    e->expire_ns = at;
    if (at < ifc->nd.next_ns)
        ifc->nd.next_ns = at;
}

/* The entry knows its MAC now: send what waited. */
static void resolved(struct net_stack *s, struct net_iface *ifc, struct nd6_entry *e, const uint8_t *mac,
                     uint8_t state, uint64_t now_ns)
{
    net_memcpy(e->mac, mac, ETH_ALEN);
    e->state = state;
    e->tries = 0;
    e->probe_ns = now_ns;
    if (state == ND6_STATIC)
        e->expire_ns = UINT64_MAX;
    else {
        expire_at(ifc, e, now_ns + (state == ND6_REACHABLE ? ND6_REACHABLE_NS : ND6_STALE_NS));
        net_timer_at(s, e->expire_ns);
    }
    s->arp_queued -= e->q.len;
    s->ctr.ip6_tx += eth_output_list(s, ifc, e->mac, ETH_TYPE_IP6, pkt_queue_take(&e->q));
}

/* A resolved entry for nh is being used: a stale one is kept, and probed
 * once it has been stale a while (7.3.3: DELAY_FIRST_PROBE_TIME), then each
 * RetransTimer. After ND6_RETRIES probes unanswered (MAX_UNICAST_SOLICIT)
 * it is forgotten, and false returned: the packet resolves nh anew, by
 * multicast, and so finds a neighbour whose MAC changed without telling. */
static bool use(struct net_stack *s, struct net_iface *ifc, struct nd6_entry *e, const uint8_t *nh, uint64_t now_ns)
{
    if (e->state != ND6_STALE)
        return true;
    expire_at(ifc, e, now_ns + ND6_STALE_NS); /* kept while used */
    if (now_ns < e->probe_ns + (e->tries ? ND6_RETRY_NS : ND6_DELAY_NS))
        return true;
    if (e->tries >= ND6_RETRIES) {
        s->ctr.nd6_probe_failed++;
        forget(s, ifc, e);
        return false;
    }
    e->tries++;
    e->probe_ns = now_ns;
    send_ns(s, ifc, nh, e->mac); /* its answer makes it reachable again */
    return true;
}

const uint8_t *nd6_lookup(struct net_stack *s, struct net_iface *ifc, const uint8_t nh[16], uint64_t now_ns)
{
    struct nd6_entry *e = ip6_is_mcast(nh) ? NULL : find(ifc, nh);
    if (e == NULL || e->state == ND6_INCOMPLETE || !use(s, ifc, e, nh, now_ns))
        return NULL;
    return e->mac;
}

/* A new entry for nh, its first solicitation sent; NULL when none may be
 * made (counted). */
static struct nd6_entry *resolve(struct net_stack *s, struct net_iface *ifc, const uint8_t *nh, uint64_t now_ns)
{
    struct nd6_entry *e = make(s, ifc, nh, true);
    if (e == NULL) {
        s->ctr.nd6_cache_full++;
        return NULL;
    }
    e->state = ND6_INCOMPLETE;
    e->tries = 1;
    e->probe_ns = now_ns;
    expire_at(ifc, e, now_ns + ND6_RETRY_NS);
    net_timer_at(s, e->expire_ns);
    send_ns(s, ifc, nh, NULL);
    return e;
}

uint64_t nd6_probe(struct net_stack *s, struct net_iface *ifc, const uint8_t ip[16], uint64_t now_ns)
{
    struct nd6_entry *e = find(ifc, ip);
    if (e == NULL) {
        resolve(s, ifc, ip, now_ns);
        return 0;
    }
    if (e->state == ND6_STATIC)
        return now_ns;
    if (e->state == ND6_INCOMPLETE)
        return 0; /* its own solicitations are out */
    send_ns(s, ifc, ip, e->mac); /* unicast, as 7.3.3's probes: a solicited answer confirms it */
    return e->state == ND6_REACHABLE ? e->expire_ns - ND6_REACHABLE_NS : 0;
}

int nd6_output(struct net_stack *s, struct net_iface *ifc, const uint8_t nh[16], struct pkt *p, uint64_t now_ns)
{
    uint8_t mac[6];
    if (ip6_is_mcast(nh)) {
        nd6_mcast_mac(nh, mac);
        s->ctr.ip6_tx++;
        eth_output(s, ifc, mac, ETH_TYPE_IP6, p);
        return 0;
    }
    struct nd6_entry *e = find(ifc, nh);
    if (e && e->state != ND6_INCOMPLETE) {
        if (use(s, ifc, e, nh, now_ns)) {
            s->ctr.ip6_tx++;
            eth_output(s, ifc, e->mac, ETH_TYPE_IP6, p);
            return 0;
        }
        e = NULL; /* forgotten: resolved again below */
    }
    if (e == NULL && (e = resolve(s, ifc, nh, now_ns)) == NULL) {
        pkt_free(p);
        return -1;
    }
    if (e->q.len >= ND6_QUEUE_PER_DEST || s->arp_queued >= ARP_QUEUE_MAX) { /* one budget with ARP */
        s->ctr.nd6_queue_full++;
        pkt_free(p);
        return -1;
    }
    pkt_queue_push(&e->q, p);
    s->arp_queued++;
    return 1;
}

bool nd6_find_lla(const uint8_t *o, uint32_t len, uint8_t want, uint8_t *mac, bool *bad)
{
    bool found = false;
    while (len >= 2) {
        uint32_t olen = o[1] * 8u;
        if (olen == 0 || olen > len) {
            *bad = true;
            return false;
        }
        if (o[0] == want && olen >= 8) {
            net_memcpy(mac, o + 2, ETH_ALEN);
            found = true;
        }
        o += olen;
        len -= olen;
    }
    if (len)
        *bad = true;
    return found;
}

/* A target we answer for on ifc: its addresses, and its subnet's anycast
 * (RFC 4861 7.2.4; answered at once, without 7.2.7's random delay). */
static bool ours(const struct net_iface *ifc, const uint8_t *a)
{
    return ip6_eq(a, ifc->ll6) ||
           (ifc->has6 && (ip6_eq(a, ifc->addr6) || (!ip6_is_unspec(ifc->sra6) && ip6_eq(a, ifc->sra6))));
}

static void seen(struct net_stack *s, struct net_iface *ifc, const uint8_t *ip, const uint8_t *mac)
{
    if (s->nd6_seen)
        s->nd6_seen(s->nd6_seen_ctx, ifc->port, ip, mac);
}

void nd6_input(struct net_stack *s, struct net_iface *ifc, const uint8_t src[16], const uint8_t dst[16],
               uint8_t hlim, const uint8_t *icmp, uint32_t len, uint64_t now_ns)
{
    bool ns = icmp[0] == ND6_NS, bad = false;
    uint8_t mac[6];
    if (ns)
        s->ctr.nd6_rx_ns++;
    else
        s->ctr.nd6_rx_na++;
    /* 7.1.1, 7.1.2: from a neighbour (hop limit 255), code 0, 24 bytes at
     * least, a unicast target. */
    if (hlim != 255 || icmp[1] != 0 || len < 24 || ip6_is_mcast(icmp + 8)) {
        s->ctr.nd6_bad++;
        return;
    }
    const uint8_t *target = icmp + 8;
    bool lla = nd6_find_lla(icmp + 24, len - 24, ns ? ND6_OPT_SLLA : ND6_OPT_TLLA, mac, &bad);
    if (bad || (lla && eth_is_mcast(mac))) {
        s->ctr.nd6_bad++;
        return;
    }
    if (ns) {
        bool dad = ip6_is_unspec(src);
        if (dad && (lla || !ip6_is_mcast(dst))) { /* 7.1.1 */
            s->ctr.nd6_bad++;
            return;
        }
        if (!ours(ifc, target))
            return;
        if (!dad && lla) { /* 7.2.3: the sender's address, stale until confirmed */
            struct nd6_entry *e = find(ifc, src);
            if (e == NULL && (e = make(s, ifc, src, false)) == NULL)
                s->ctr.nd6_cache_full++;
            if (e && e->state != ND6_STATIC &&
                (e->state == ND6_INCOMPLETE || e->state == ND6_FREE || net_memcmp(e->mac, mac, 6) != 0))
                resolved(s, ifc, e, mac, ND6_STALE, now_ns);
            seen(s, ifc, src, mac);
        }
        if (!dad && !lla && ip6_is_mcast(dst)) /* nothing to answer to */
            return;
        struct nd6_entry *e = dad ? NULL : find(ifc, src);
        if (!dad && !lla && (e == NULL || e->state == ND6_INCOMPLETE)) {
            send_ns(s, ifc, src, NULL); /* a unicast solicitation without the option: learn it first */
            return;
        }
        send_na(s, ifc, target, src, dad ? NULL : (lla ? mac : e->mac));
        return;
    }
    if ((icmp[4] & ND6_NA_SOLICITED) && ip6_is_mcast(dst)) { /* 7.1.2 */
        s->ctr.nd6_bad++;
        return;
    }
    if (lla) /* another core may be the one that asked */
        seen(s, ifc, target, mac);
    struct nd6_entry *e = find(ifc, target);
    if (e == NULL || e->state == ND6_STATIC)
        return; /* 7.2.5: news about a stranger makes no entry; a configured one stays */
    bool solicited = icmp[4] & ND6_NA_SOLICITED, changed = lla && net_memcmp(e->mac, mac, ETH_ALEN) != 0;
    if (e->state == ND6_INCOMPLETE) {
        if (lla)
            resolved(s, ifc, e, mac, solicited ? ND6_REACHABLE : ND6_STALE, now_ns);
        return;
    }
    if (changed && !(icmp[4] & ND6_NA_OVERRIDE)) { /* keep the address we have, but doubt it */
        if (e->state == ND6_REACHABLE) {
            e->state = ND6_STALE;
            e->probe_ns = now_ns;
            expire_at(ifc, e, now_ns + ND6_STALE_NS);
        }
        return;
    }
    if (changed || solicited) { /* a solicited answer confirms it, option or not */
        uint8_t m[ETH_ALEN];
        net_memcpy(m, changed ? mac : e->mac, ETH_ALEN);
        resolved(s, ifc, e, m, solicited ? ND6_REACHABLE : ND6_STALE, now_ns);
    }
}

void nd6_learn_remote(struct net_stack *s, uint16_t port, const uint8_t ip[16], const uint8_t mac[6],
                      uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, port);
    struct nd6_entry *e = ifc ? find(ifc, ip) : NULL;
    if (e == NULL || e->state == ND6_STATIC || eth_is_mcast(mac))
        return;
    s->ctr.nd6_learned_remote++;
    resolved(s, ifc, e, mac, ND6_REACHABLE, now_ns);
}

int nd6_add_static(struct net_stack *s, uint16_t port, const uint8_t ip[16], const uint8_t mac[6], uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, port);
    if (ifc == NULL || ip6_is_mcast(ip) || eth_is_mcast(mac))
        return -1;
    struct nd6_entry *e = find(ifc, ip);
    if (e == NULL && (e = make(s, ifc, ip, false)) == NULL)
        return -1;
    resolved(s, ifc, e, mac, ND6_STATIC, now_ns);
    return 0;
}

/* No answer (or a stale entry unused for long): forget it; each packet
 * that waited gets an address unreachable (RFC 4861 7.2.2, RFC 4443 3.1
 * code 3), rate-limited like every error. */
static void give_up(struct net_stack *s, struct net_iface *ifc, struct nd6_entry *e, uint64_t now_ns)
{
    s->ctr.nd6_failed += e->q.len;
    s->arp_queued -= e->q.len;
    struct pkt *q = pkt_queue_take(&e->q);
    forget(s, ifc, e);
    while (q) {
        struct pkt *next = q->next;
        q->next = NULL;
        /* Address unreachable to a forwarded packet's source (RFC 4443
         * 3.1), from the port it came in on (its RX metadata). Our own
         * packets have no such port, and an error to ourselves would say
         * nothing: dropped, counted above. */
        struct net_iface *in = net_iface_get(s, q->port);
        if (!ip6_is_ours(s, ((const struct ip6_hdr *)q->data)->src))
            icmp6_send_error(s, in && in->has6 ? in : ifc, q, ICMP6_UNREACH, 3, 0, now_ns);
        pkt_free(q);
        q = next;
    }
}

uint64_t nd6_timer(struct net_stack *s, struct net_iface *ifc, uint64_t now_ns)
{
    if (now_ns < ifc->nd.next_ns)
        return ifc->nd.next_ns;
    ifc->nd.next_ns = UINT64_MAX; /* an entry made meanwhile lowers it (expire_at) */
    uint64_t next = UINT64_MAX;
    for (uint64_t bits = ifc->nd.used; bits; bits &= bits - 1) { /* a copy: see each entry once */
        struct nd6_entry *e = &ifc->nd.e[__builtin_ctzll(bits)];
        if (e->state == ND6_FREE)
            continue;
        if (now_ns >= e->expire_ns) {
            if (e->state == ND6_INCOMPLETE && e->tries < ND6_RETRIES) {
                e->tries++;
                e->probe_ns = now_ns;
                e->expire_ns = now_ns + ND6_RETRY_NS;
                send_ns(s, ifc, e->ip, NULL);
            } else if (e->state == ND6_REACHABLE) {
                e->state = ND6_STALE;
                e->probe_ns = now_ns;
                e->expire_ns = now_ns + ND6_STALE_NS;
            } else {
                give_up(s, ifc, e, now_ns);
                continue;
            }
        }
        if (e->expire_ns < next)
            next = e->expire_ns;
    }
    if (next < ifc->nd.next_ns)
        ifc->nd.next_ns = next;
    return ifc->nd.next_ns;
}

void nd6_release(struct net_stack *s, struct net_iface *ifc)
{
    for (uint64_t bits = ifc->nd.used; bits; bits &= bits - 1)
        forget(s, ifc, &ifc->nd.e[__builtin_ctzll(bits)]);
}

bool nd6_entry_next(const struct net_stack *s, uint16_t port, uint32_t *idx, struct nd6_entry *out)
{
    if (port >= NET_MAX_PORTS || s->iface[port].dev == NULL)
        return false;
    for (; *idx < ND6_ENTRIES; (*idx)++) {
        const struct nd6_entry *e = &s->iface[port].nd.e[*idx];
        if (e->state != ND6_FREE) {
            *out = *e;
            out->q.head = out->q.tail = NULL;
            (*idx)++;
            return true;
        }
    }
    return false;
}
