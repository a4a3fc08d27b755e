/* SPDX-License-Identifier: MIT */
/* net/ip/reasm.c: IPv4 and IPv6 reassembly for local delivery (RFC 791
 * section 3.2, RFC 815, RFC 8200 section 4.5; overlaps rejected as RFC 5722
 * says) (net/ip/reasm.h). */
#include "reasm.h"

#include <stddef.h>

#include "core/csum.h"
#include "core/env.h"
#include "icmp4.h"
#include "icmp6.h"
#include "ip4.h"
#include "ip6.h"
#include "net.h"

_Static_assert(REASM_MAX_FRAGS < REASM_MAX_BUFS, "one datagram cannot fill the budget");

/* Each family's counters, by offset into struct net_counters. */
static const struct {
    size_t ok, overlap, duplicate, inconsistent, too_many, evicted, timeout;
} ctr_of[2] = {
#define REASM_CTRS(f)                                                                                  \
    {offsetof(struct net_counters, f##_reasm_ok), offsetof(struct net_counters, f##_reasm_overlap),    \
     offsetof(struct net_counters, f##_reasm_duplicate), offsetof(struct net_counters, f##_reasm_inconsistent), \
     offsetof(struct net_counters, f##_reasm_too_many), \
     offsetof(struct net_counters, f##_reasm_evicted), offsetof(struct net_counters, f##_reasm_timeout)}
    REASM_CTRS(ip4),
    REASM_CTRS(ip6),
#undef REASM_CTRS
};
#define COUNT(s, sl, which) ((*(uint64_t *)((char *)&(s)->ctr + ctr_of[(sl)->v6].which))++)

/* Where a held fragment's payload is and what part of the datagram it is. */
struct frag {
    uint32_t hlen, off, len;
    bool more;
};

static struct frag frag_of(const struct reasm_slot *sl, const struct pkt *p)
{
    if (sl->v6) {
        uint16_t offlg_be;
        net_memcpy(&offlg_be, p->data + IP6_HDR_LEN + 2, 2);
        uint16_t offlg = net_ntohs(offlg_be);
        uint32_t hlen = IP6_HDR_LEN + IP6_FRAG_HDR_LEN;
        return (struct frag){hlen, offlg & 0xfff8u, p->len - hlen, offlg & 1};
    }
    const struct ip4_hdr *h = (const struct ip4_hdr *)p->data;
    uint32_t hlen = ip4_hdr_len(h);
    return (struct frag){hlen, ip4_frag_off(h), p->len - hlen, ip4_more_frags(h)};
}

static void slot_free(struct net_stack *s, struct reasm_slot *sl)
{
    for (struct pkt *f = sl->frags, *next; f; f = next) {
        next = f->next;
        pkt_free(f);
    }
    s->reasm.bufs -= sl->nfrags;
    net_memset(sl, 0, sizeof(*sl));
}

/* The used slot that expires first, other than keep. */
static struct reasm_slot *oldest(struct net_stack *s, const struct reasm_slot *keep)
{
    struct reasm_slot *o = NULL;
    for (int i = 0; i < REASM_SLOTS; i++) {
        struct reasm_slot *sl = &s->reasm.slot[i];
        if (sl->used && sl != keep && (o == NULL || sl->expire_ns < o->expire_ns))
            o = sl;
    }
    return o;
}

/* The slot of key's datagram (IPv4: source, destination, protocol, id;
 * IPv6: source, destination, id), made if new; the oldest datagram gives
 * way when the table is full. */
static struct reasm_slot *slot_get(struct net_stack *s, const struct reasm_slot *key, uint64_t now_ns)
{
    struct reasm_slot *free_sl = NULL;
    for (int i = 0; i < REASM_SLOTS; i++) {
        struct reasm_slot *sl = &s->reasm.slot[i];
        if (!sl->used) {
            if (free_sl == NULL)
                free_sl = sl;
        } else if (sl->id == key->id && sl->v6 == key->v6 && sl->proto == key->proto &&
                   net_memcmp(sl->src, key->src, 16) == 0 && net_memcmp(sl->dst, key->dst, 16) == 0)
            return sl;
    }
    if (free_sl == NULL) {
        free_sl = oldest(s, NULL);
        COUNT(s, free_sl, evicted);
        slot_free(s, free_sl);
    }
    *free_sl = *key;
    free_sl->used = true;
    free_sl->expire_ns = now_ns + REASM_TIMEOUT_NS;
    net_timer_at(s, free_sl->expire_ns);
    return free_sl;
}

/* sl's payloads into buf after the first fragment's hlen bytes of header. */
static void gather(const struct reasm_slot *sl, uint8_t *buf, uint32_t hlen)
{
    net_memcpy(buf, sl->frags->data, hlen);
    for (const struct pkt *f = sl->frags; f; f = f->next) {
        struct frag g = frag_of(sl, f);
        net_memcpy(buf + hlen + g.off, f->data + g.hlen, g.len);
    }
}

/* The whole IPv4 datagram into the scratch area, delivered from there. */
static void complete4(struct net_stack *s, struct reasm_slot *sl, uint64_t now_ns)
{
    const struct pkt *first = sl->frags;
    uint32_t hlen = frag_of(sl, first).hlen, tot = hlen + sl->end_len;
    uint8_t *buf = s->reasm.buf;

    if (tot > IP4_MAX_LEN) { /* a longer first header than the last one's */
        COUNT(s, sl, inconsistent);
        slot_free(s, sl);
        return;
    }
    gather(sl, buf, hlen);
    struct ip4_hdr *h = (struct ip4_hdr *)buf;
    h->len_be = net_htons((uint16_t)tot);
    h->frag_be = 0;
    h->csum = 0;
    h->csum = csum_finish(csum_partial(h, hlen, 0));
    struct ip4_rx rx = {
        .iph = buf,
        .l4 = buf + hlen,
        .l4_len = (uint16_t)sl->end_len,
        .port = first->port,
        .src_be = h->src_be,
        .dst_be = h->dst_be,
        .l2_flags = first->user,
        .proto = h->proto,
        .bcast = net_addr_is_bcast(s, h->dst_be),
        .reasm = true,
    };
    slot_free(s, sl);
    s->ctr.ip4_reasm_ok++;
    ip4_deliver(s, &rx, now_ns);
}

/* The IPv6 datagram: the first fragment's header, its Fragment header's
 * next header in place of 44 (the unfragmentable part is the fixed header
 * alone: ip6.c sends nothing else here), then the payload. */
static void complete6(struct net_stack *s, struct reasm_slot *sl, uint64_t now_ns)
{
    const struct pkt *first = sl->frags;
    uint8_t *buf = s->reasm.buf;
    if (sl->end_len > 0xffff) { /* RFC 8200 4.5: longer than the payload length can say */
        COUNT(s, sl, inconsistent);
        slot_free(s, sl);
        return;
    }
    gather(sl, buf, IP6_HDR_LEN);
    struct ip6_hdr *h = (struct ip6_hdr *)buf;
    h->next = first->data[IP6_HDR_LEN];
    h->plen_be = net_htons((uint16_t)sl->end_len);
    uint16_t port = first->port;
    uint32_t l2_flags = first->user, len = IP6_HDR_LEN + sl->end_len;
    slot_free(s, sl);
    s->ctr.ip6_reasm_ok++;
    ip6_deliver_flat(s, &s->iface[port], buf, len, l2_flags, now_ns);
}

/* Place p in sl's offset-ordered list; false on overlap or disagreement
 * (counted; the caller drops the datagram). */
enum insert { INSERTED, DUPLICATE, REFUSED };

/* p into sl's list, in order. An exact copy of a fragment held (the
 * network duplicated it) is dropped alone, as RFC 8200 4.5 allows and
 * Linux does; any other overlap drops the datagram (RFC 5722). */
static enum insert insert(struct net_stack *s, struct reasm_slot *sl, struct pkt *p)
{
    struct frag g = frag_of(sl, p);
    uint32_t off = g.off, end = g.off + g.len, prev_end = 0;
    bool last = !g.more;
    struct pkt **pp = &sl->frags, *tail = NULL;

    while (*pp && frag_of(sl, *pp).off < off) {
        tail = *pp;
        struct frag t = frag_of(sl, tail);
        prev_end = t.off + t.len;
        pp = &tail->next;
    }
    struct frag next = *pp ? frag_of(sl, *pp) : (struct frag){.off = UINT32_MAX};
    if (prev_end <= off && next.off == off && next.len == g.len && next.more == g.more) {
        COUNT(s, sl, duplicate);
        return DUPLICATE;
    }
    if (prev_end > off || next.off < end) {
        COUNT(s, sl, overlap);
        return REFUSED;
    }
    for (struct pkt *f = *pp; f; f = f->next)
        tail = f;
    uint32_t tail_end = 0;
    if (tail) {
        struct frag t = frag_of(sl, tail);
        tail_end = t.off + t.len;
    }
    if ((sl->have_last && (last ? end != sl->end_len : end > sl->end_len)) ||
        (last && !sl->have_last && tail_end > end)) {
        COUNT(s, sl, inconsistent);
        return REFUSED;
    }
    p->next = *pp;
    *pp = p;
    sl->nfrags++;
    s->reasm.bufs++;
    sl->got_len += end - off;
    if (last) {
        sl->have_last = true;
        sl->end_len = end;
    }
    return INSERTED;
}

static void input(struct net_stack *s, const struct reasm_slot *key, struct pkt *p, uint64_t now_ns)
{
    struct reasm_slot *sl = slot_get(s, key, now_ns);

    /* Others hold what sl does not (MAX_FRAGS < MAX_BUFS), so this ends. */
    while (s->reasm.bufs >= REASM_MAX_BUFS) {
        struct reasm_slot *o = oldest(s, sl);
        if (o == NULL)
            break;
        COUNT(s, o, evicted);
        slot_free(s, o);
    }
    if (sl->nfrags >= REASM_MAX_FRAGS) {
        COUNT(s, sl, too_many);
        goto drop;
    }
    enum insert r = insert(s, sl, p);
    if (r == DUPLICATE) {
        pkt_free(p);
        return;
    }
    if (r == REFUSED)
        goto drop;
    if (sl->have_last && sl->got_len == sl->end_len) {
        if (sl->v6)
            complete6(s, sl, now_ns);
        else
            complete4(s, sl, now_ns);
    }
    return;
drop:
    slot_free(s, sl);
    pkt_free(p);
}

void reasm_input4(struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    const struct ip4_hdr *h = (const struct ip4_hdr *)p->data;
    struct reasm_slot key = {.id = h->id_be, .proto = h->proto};
    net_memcpy(key.src, &h->src_be, 4);
    net_memcpy(key.dst, &h->dst_be, 4);
    input(s, &key, p, now_ns);
}

void reasm_input6(struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    const struct ip6_hdr *h = (const struct ip6_hdr *)p->data;
    struct reasm_slot key = {.v6 = true};
    net_memcpy(&key.id, p->data + IP6_HDR_LEN + 4, 4);
    net_memcpy(key.src, h->src, 16);
    net_memcpy(key.dst, h->dst, 16);
    input(s, &key, p, now_ns);
}

uint64_t reasm_timer(struct net_stack *s, uint64_t now_ns)
{
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < REASM_SLOTS; i++) {
        struct reasm_slot *sl = &s->reasm.slot[i];
        if (!sl->used)
            continue;
        if (now_ns < sl->expire_ns) {
            if (sl->expire_ns < next)
                next = sl->expire_ns;
            continue;
        }
        COUNT(s, sl, timeout);
        const struct pkt *f = sl->frags;
        if (f && frag_of(sl, f).off == 0) { /* RFC 792, RFC 8200 4.5: only with the first */
            if (sl->v6)
                icmp6_send_error(s, &s->iface[f->port], f, ICMP6_TIME_EXCEEDED, 1, 0, now_ns);
            else
                icmp4_send_error(s, f->data, f->len, f->port, f->user, ICMP4_TIME_EXCEEDED, ICMP4_EXC_REASM,
                                 0, now_ns);
        }
        slot_free(s, sl);
    }
    return next;
}

void reasm_release(struct net_stack *s)
{
    for (int i = 0; i < REASM_SLOTS; i++)
        if (s->reasm.slot[i].used)
            slot_free(s, &s->reasm.slot[i]);
}
