/* SPDX-License-Identifier: MIT */
/* net/link/arp.c: ARP (RFC 826) over Ethernet: per-port cache, resolution with a
 * bounded wait queue, rate-limited requests (RFC 1122 2.3.2.1), gratuitous
 * ARP (net/link/arp.h). */
#include "arp.h"

#include "core/env.h"
#include "eth.h"
#include "ip/ip4.h"
#include "net.h"
#include "core/wire.h"

_Static_assert(ARP_SETS == 64, "set_of() takes the top 6 bits");

static uint32_t set_of(uint32_t ip_be)
{
    return (ip_be * 2654435761u) >> 26;
}

static struct arp_entry *find(struct net_iface *ifc, uint32_t ip_be)
{
    struct arp_entry *set = &ifc->arp.e[set_of(ip_be) * ARP_WAYS];
    for (int i = 0; i < ARP_WAYS; i++)
        if (set[i].state != ARP_FREE && set[i].ip_be == ip_be)
            return &set[i];
    return NULL;
}

/* A slot for ip_be: a free one, else the stale, else the reachable entry
 * closest to expiry. Entries with waiting packets and static ones are
 * never evicted. */
static struct arp_entry *make(struct net_iface *ifc, uint32_t ip_be)
{
    struct arp_entry *set = &ifc->arp.e[set_of(ip_be) * ARP_WAYS], *victim = NULL;
    for (int i = 0; i < ARP_WAYS; i++) {
        struct arp_entry *e = &set[i];
        if (e->state == ARP_FREE) {
            victim = e;
            break;
        }
        if (e->state == ARP_INCOMPLETE || e->state == ARP_STATIC)
            continue;
        if (victim == NULL || e->state > victim->state ||
            (e->state == victim->state && e->expire_ns < victim->expire_ns))
            victim = e;
    }
    if (victim) {
        uint32_t i = (uint32_t)(victim - ifc->arp.e);
        net_memset(victim, 0, sizeof(*victim));
        victim->ip_be = ip_be;
        ifc->arp.used[i / 64] |= 1ull << (i % 64);
    }
    return victim;
}

static void send_request(struct net_stack *s, struct net_iface *ifc, uint32_t tpa_be)
{
    struct pkt *p = pkt_alloc(s->pool);
    if (p == NULL) {
        s->ctr.arp_no_buf++;
        return;
    }
    struct arp_hdr *a = (struct arp_hdr *)p->data;
    a->htype_be = net_htons(ARP_HTYPE_ETH);
    a->ptype_be = net_htons(ETH_TYPE_IP4);
    a->hlen = ETH_ALEN;
    a->plen = 4;
    a->op_be = net_htons(ARP_OP_REQUEST);
    net_memcpy(a->sha, ifc->dev->mac, ETH_ALEN);
    a->spa_be = ifc->addr_be;
    net_memset(a->tha, 0, ETH_ALEN);
    a->tpa_be = tpa_be;
    p->len = ARP_LEN;
    s->ctr.arp_tx_request++;
    eth_output(s, ifc, eth_bcast_addr, ETH_TYPE_ARP, p);
}

/* Ask again about a stale entry in use, at most once per retry interval. */
static void refresh(struct net_stack *s, struct net_iface *ifc, struct arp_entry *e, uint64_t now_ns)
{
    if (e->req_sent && now_ns - e->req_ns < ARP_RETRY_NS)
        return;
    e->req_sent = true;
    e->req_ns = now_ns;
    send_request(s, ifc, e->ip_be);
}

/* e is due at at: the cache's bound comes down with it, so arp_timer
 * walks the cache only when an entry may be due (net_poll runs every
 * timer whenever any one is due, TCP's every few milliseconds). */
static void expire_at(struct net_iface *ifc, struct arp_entry *e, uint64_t at)
{
    e->expire_ns = at;
    if (at < ifc->arp.next_ns)
        ifc->arp.next_ns = at;
}

/* e's MAC can be used now (a reachable entry past its time turns stale). */
static bool usable(struct net_stack *s, struct net_iface *ifc, struct arp_entry *e, uint64_t now_ns)
{
    if (e->state == ARP_REACHABLE && now_ns >= e->expire_ns) {
        e->state = ARP_STALE;
        expire_at(ifc, e, now_ns + ARP_STALE_NS);
    }
    if (e->state == ARP_STALE)
        refresh(s, ifc, e, now_ns);
    return e->state == ARP_REACHABLE || e->state == ARP_STALE || e->state == ARP_STATIC;
}

static void mcast_mac(uint32_t ip_be, uint8_t *mac)
{
    uint32_t a = net_ntohl(ip_be);
    mac[0] = 0x01;
    mac[1] = 0x00;
    mac[2] = 0x5e;
    mac[3] = (uint8_t)((a >> 16) & 0x7f);
    mac[4] = (uint8_t)(a >> 8);
    mac[5] = (uint8_t)a;
}

const uint8_t *arp_lookup(struct net_stack *s, uint16_t port, uint32_t nh_be, uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, port);
    if (ifc == NULL)
        return NULL;
    if (nh_be == ifc->bcast_be || ip4_is_limited_bcast(nh_be))
        return eth_bcast_addr;
    struct arp_entry *e = find(ifc, nh_be);
    return e && usable(s, ifc, e, now_ns) ? e->mac : NULL;
}

/* A new entry for ip_be, its first request sent; NULL when its set is
 * full (counted). */
static struct arp_entry *resolve(struct net_stack *s, struct net_iface *ifc, uint32_t ip_be, uint64_t now_ns)
{
    struct arp_entry *e = make(ifc, ip_be);
    if (e == NULL) {
        s->ctr.arp_cache_full++;
        return NULL;
    }
    e->state = ARP_INCOMPLETE;
    e->tries = 1;
    e->req_sent = true;
    e->req_ns = now_ns;
    expire_at(ifc, e, now_ns + ARP_RETRY_NS);
    net_timer_at(s, e->expire_ns);
    send_request(s, ifc, ip_be);
    return e;
}

static int enqueue(struct net_stack *s, struct arp_entry *e, struct pkt *p)
{
    if (e->q.len >= ARP_QUEUE_PER_DEST || s->arp_queued >= ARP_QUEUE_MAX) {
        s->ctr.arp_queue_full++;
        pkt_free(p);
        return -1;
    }
    pkt_queue_push(&e->q, p);
    s->arp_queued++;
    return 1;
}

int arp_output(struct net_stack *s, uint16_t port, uint32_t nh_be, struct pkt *p, uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, port);
    if (ifc == NULL) {
        s->ctr.eth_no_iface++;
        pkt_free(p);
        return -1;
    }
    if (ip4_is_mcast(nh_be)) {
        uint8_t mac[ETH_ALEN];
        mcast_mac(nh_be, mac);
        eth_output(s, ifc, mac, ETH_TYPE_IP4, p);
        return 0;
    }
    const uint8_t *mac = arp_lookup(s, port, nh_be, now_ns);
    if (mac) {
        eth_output(s, ifc, mac, ETH_TYPE_IP4, p);
        return 0;
    }
    struct arp_entry *e = find(ifc, nh_be);
    if (e == NULL && (e = resolve(s, ifc, nh_be, now_ns)) == NULL) {
        pkt_free(p);
        return -1;
    }
    return enqueue(s, e, p);
}

uint64_t arp_probe(struct net_stack *s, uint16_t port, uint32_t ip_be, uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, port);
    if (ifc == NULL || !ifc->addr_be)
        return 0;
    struct arp_entry *e = find(ifc, ip_be);
    if (e == NULL) {
        resolve(s, ifc, ip_be, now_ns);
        return 0;
    }
    if (e->state == ARP_STATIC)
        return now_ns;
    if (e->state == ARP_INCOMPLETE)
        return 0; /* its own requests are out */
    send_request(s, ifc, ip_be); /* the answer, to us, confirms it (learn) */
    return e->state == ARP_REACHABLE ? e->expire_ns - ARP_REACHABLE_NS : 0;
}

/* RFC 826 "merge": the sender's address is now known; release its queue. */
static void learn(struct net_stack *s, struct net_iface *ifc, struct arp_entry *e, const uint8_t *mac,
                  uint64_t now_ns)
{
    net_memcpy(e->mac, mac, ETH_ALEN);
    e->state = ARP_REACHABLE;
    e->tries = 0;
    e->req_sent = false;
    expire_at(ifc, e, now_ns + ARP_REACHABLE_NS);
    net_timer_at(s, e->expire_ns);
    s->arp_queued -= e->q.len;
    eth_output_list(s, ifc, e->mac, ETH_TYPE_IP4, pkt_queue_take(&e->q));
}

/* Fixed-format checks; false when p is to be dropped (counted). */
static bool valid(struct net_stack *s, const struct pkt *p)
{
    const struct arp_hdr *a = (const struct arp_hdr *)p->data;
    if (p->len < 8)
        s->ctr.arp_truncated++;
    else if (net_ntohs(a->htype_be) != ARP_HTYPE_ETH)
        s->ctr.arp_bad_htype++;
    else if (net_ntohs(a->ptype_be) != ETH_TYPE_IP4)
        s->ctr.arp_bad_ptype++;
    else if (a->hlen != ETH_ALEN)
        s->ctr.arp_bad_hlen++;
    else if (a->plen != 4)
        s->ctr.arp_bad_plen++;
    else if (p->len < ARP_LEN)
        s->ctr.arp_truncated++;
    else if (a->op_be != net_htons(ARP_OP_REQUEST) && a->op_be != net_htons(ARP_OP_REPLY))
        s->ctr.arp_bad_op++;
    else
        return true;
    return false;
}

/* A sender no host can have: a group MAC, or an address that is not a
 * unicast host's (0.0.0.0 only in a request: an RFC 5227 probe). */
static bool bad_sender(const struct net_iface *ifc, const struct arp_hdr *a)
{
    uint32_t spa = a->spa_be;
    if (eth_is_mcast(a->sha))
        return true;
    if (spa == 0)
        return a->op_be != net_htons(ARP_OP_REQUEST);
    return ip4_is_mcast(spa) || ip4_is_class_e(spa) || ip4_is_loopback(spa) || ip4_is_zeronet(spa) ||
           spa == ifc->bcast_be;
}

void arp_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    struct arp_hdr *a = (struct arp_hdr *)p->data;
    if (!valid(s, p))
        goto drop;
    bool request = a->op_be == net_htons(ARP_OP_REQUEST);
    if (request)
        s->ctr.arp_rx_request++;
    else
        s->ctr.arp_rx_reply++;
    if (bad_sender(ifc, a)) {
        s->ctr.arp_bad_sender++;
        goto drop;
    }
    if (ifc->addr_be == 0) {
        s->ctr.arp_not_for_us++;
        goto drop;
    }
    if (a->spa_be == ifc->addr_be) {
        s->ctr.arp_addr_conflict++;
        goto drop;
    }
    bool for_us = a->tpa_be == ifc->addr_be;
    struct arp_entry *e = a->spa_be ? find(ifc, a->spa_be) : NULL;
    if (e == NULL && for_us && a->spa_be) {
        e = make(ifc, a->spa_be);
        if (e == NULL)
            s->ctr.arp_cache_full++; /* answered all the same */
    }
    if (e && e->state != ARP_STATIC)
        learn(s, ifc, e, a->sha, now_ns);
    if ((e || for_us) && a->spa_be && s->arp_seen)
        s->arp_seen(s->arp_seen_ctx, ifc->port, a->spa_be, a->sha);
    if (!for_us) {
        s->ctr.arp_not_for_us++;
        goto drop;
    }
    if (!request) {
        pkt_free(p);
        return;
    }
    /* Answer in place: the request becomes the reply. */
    arp_make_reply(a, ifc->dev->mac, ifc->addr_be);
    p->len = ARP_LEN;
    p->flags = 0;
    s->ctr.arp_tx_reply++;
    eth_output(s, ifc, a->tha, ETH_TYPE_ARP, p);
    return;
drop:
    pkt_free(p);
}

void arp_make_reply(struct arp_hdr *a, const uint8_t mac[6], uint32_t ip_be)
{
    a->op_be = net_htons(ARP_OP_REPLY);
    net_memcpy(a->tha, a->sha, ETH_ALEN);
    a->tpa_be = a->spa_be;
    net_memcpy(a->sha, mac, ETH_ALEN);
    a->spa_be = ip_be;
}

void arp_learn_remote(struct net_stack *s, uint16_t port, uint32_t ip_be, const uint8_t *mac, uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, port);
    struct arp_entry *e = ifc && ifc->addr_be ? find(ifc, ip_be) : NULL;
    if (e == NULL || e->state == ARP_STATIC || eth_is_mcast(mac))
        return;
    s->ctr.arp_learned_remote++;
    learn(s, ifc, e, mac, now_ns);
}

void arp_announce(struct net_stack *s, struct net_iface *ifc)
{
    if (ifc->addr_be)
        send_request(s, ifc, ifc->addr_be);
}

int arp_add_static(struct net_stack *s, uint16_t port, uint32_t ip_be, const uint8_t mac[6])
{
    struct net_iface *ifc = net_iface_get(s, port);
    if (ifc == NULL || ifc->addr_be == 0)
        return -1;
    struct arp_entry *e = find(ifc, ip_be);
    if (e == NULL && (e = make(ifc, ip_be)) == NULL)
        return -1;
    net_memcpy(e->mac, mac, ETH_ALEN);
    e->state = ARP_STATIC;
    e->tries = 0;
    e->req_sent = false;
    e->expire_ns = UINT64_MAX;
    s->arp_queued -= e->q.len;
    eth_output_list(s, ifc, e->mac, ETH_TYPE_IP4, pkt_queue_take(&e->q));
    return 0;
}

static void forget(struct net_stack *s, struct net_iface *ifc, struct arp_entry *e)
{
    uint32_t i = (uint32_t)(e - ifc->arp.e);
    s->arp_queued -= e->q.len;
    pkt_queue_free(&e->q);
    net_memset(e, 0, sizeof(*e));
    ifc->arp.used[i / 64] &= ~(1ull << (i % 64));
}

/* The next entry in use, from bitmap word *w on (*bits: what is left of a
 * copy of that word, so an entry freed or made meanwhile is seen once or
 * not at all), or NULL. */
static struct arp_entry *next_used(struct net_iface *ifc, uint32_t *w, uint64_t *bits)
{
    while (*bits == 0) {
        if (++*w >= ARP_SETS * ARP_WAYS / 64)
            return NULL;
        *bits = ifc->arp.used[*w];
    }
    uint32_t i = *w * 64 + (uint32_t)__builtin_ctzll(*bits);
    *bits &= *bits - 1;
    return &ifc->arp.e[i];
}

uint64_t arp_timer(struct net_stack *s, struct net_iface *ifc, uint64_t now_ns)
{
    if (now_ns < ifc->arp.next_ns)
        return ifc->arp.next_ns;
    ifc->arp.next_ns = UINT64_MAX; /* an entry made meanwhile lowers it (expire_at) */
    uint64_t next = UINT64_MAX, bits = ifc->arp.used[0];
    uint32_t w = 0;
    for (struct arp_entry *e; (e = next_used(ifc, &w, &bits)) != NULL;) {
        if (e->state == ARP_FREE)
            continue;
        if (now_ns >= e->expire_ns) {
            if (e->state == ARP_INCOMPLETE && e->tries < ARP_RETRIES) {
                e->tries++;
                e->req_ns = now_ns;
                e->expire_ns = now_ns + ARP_RETRY_NS;
                send_request(s, ifc, e->ip_be);
            } else if (e->state == ARP_INCOMPLETE) {
                s->ctr.arp_timeout_drop += e->q.len;
                forget(s, ifc, e);
                continue;
            } else if (e->state == ARP_REACHABLE) {
                e->state = ARP_STALE;
                e->expire_ns = now_ns + ARP_STALE_NS;
            } else {
                forget(s, ifc, e);
                continue;
            }
        }
        if (e->expire_ns < next)
            next = e->expire_ns;
    }
    if (next < ifc->arp.next_ns)
        ifc->arp.next_ns = next;
    return ifc->arp.next_ns;
}

void arp_release(struct net_stack *s, struct net_iface *ifc)
{
    uint64_t bits = ifc->arp.used[0];
    uint32_t w = 0;
    for (struct arp_entry *e; (e = next_used(ifc, &w, &bits)) != NULL;)
        forget(s, ifc, e);
}

bool arp_entry_next(const struct net_stack *s, uint16_t port, uint32_t *idx, struct arp_info *out)
{
    if (port >= s->nports || s->iface[port].dev == NULL)
        return false;
    const struct arp_cache *c = &s->iface[port].arp;
    for (; *idx < ARP_SETS * ARP_WAYS; (*idx)++) {
        const struct arp_entry *e = &c->e[*idx];
        if (e->state == ARP_FREE)
            continue;
        out->ip_be = e->ip_be;
        net_memcpy(out->mac, e->mac, ETH_ALEN);
        out->state = e->state;
        out->qlen = e->q.len;
        out->expire_ns = e->expire_ns;
        (*idx)++;
        return true;
    }
    return false;
}

const char *arp_state_name(uint8_t state)
{
    static const char *const names[] = {"free", "incomplete", "reachable", "stale", "static"};
    return state < 5 ? names[state] : "?";
}
