/* net/ip4_reasm.c: IPv4 reassembly for local delivery (RFC 791 section 3.2,
 * RFC 815; overlaps rejected as RFC 5722 does for IPv6) (net/ip4_reasm.h). */
#include "ip4_reasm.h"

#include "csum.h"
#include "env.h"
#include "icmp4.h"
#include "ip4.h"
#include "net.h"

_Static_assert(IP4_REASM_MAX_FRAGS < IP4_REASM_MAX_BUFS, "one datagram cannot fill the budget");

static const struct ip4_hdr *hdr_of(const struct pkt *p)
{
    return (const struct ip4_hdr *)p->data;
}

static uint32_t payload_len(const struct pkt *p)
{
    return p->len - ip4_hdr_len(hdr_of(p));
}

static uint32_t frag_end(const struct pkt *p)
{
    return ip4_frag_off(hdr_of(p)) + payload_len(p);
}

static void slot_free(struct net_stack *s, struct ip4_reasm_slot *sl)
{
    for (struct pkt *f = sl->frags, *next; f; f = next) {
        next = f->next;
        pkt_free(f);
    }
    s->reasm.bufs -= sl->nfrags;
    net_memset(sl, 0, sizeof(*sl));
}

/* The used slot that expires first, other than keep. */
static struct ip4_reasm_slot *oldest(struct net_stack *s, const struct ip4_reasm_slot *keep)
{
    struct ip4_reasm_slot *o = NULL;
    for (int i = 0; i < IP4_REASM_SLOTS; i++) {
        struct ip4_reasm_slot *sl = &s->reasm.slot[i];
        if (sl->used && sl != keep && (o == NULL || sl->expire_ns < o->expire_ns))
            o = sl;
    }
    return o;
}

/* The slot of h's datagram (RFC 791: source, destination, protocol, id),
 * made if new; the oldest datagram gives way when the table is full. */
static struct ip4_reasm_slot *slot_get(struct net_stack *s, const struct ip4_hdr *h, uint64_t now_ns)
{
    struct ip4_reasm_slot *free_sl = NULL;
    for (int i = 0; i < IP4_REASM_SLOTS; i++) {
        struct ip4_reasm_slot *sl = &s->reasm.slot[i];
        if (!sl->used) {
            if (free_sl == NULL)
                free_sl = sl;
        } else if (sl->id_be == h->id_be && sl->src_be == h->src_be && sl->dst_be == h->dst_be &&
                   sl->proto == h->proto)
            return sl;
    }
    if (free_sl == NULL) {
        free_sl = oldest(s, NULL);
        s->ctr.ip4_reasm_evicted++;
        slot_free(s, free_sl);
    }
    free_sl->used = true;
    free_sl->src_be = h->src_be;
    free_sl->dst_be = h->dst_be;
    free_sl->id_be = h->id_be;
    free_sl->proto = h->proto;
    free_sl->expire_ns = now_ns + IP4_REASM_TIMEOUT_NS;
    net_timer_at(s, free_sl->expire_ns);
    return free_sl;
}

/* Copy the whole datagram into the scratch area and deliver it. */
static void complete(struct net_stack *s, struct ip4_reasm_slot *sl, uint64_t now_ns)
{
    const struct pkt *first = sl->frags;
    uint32_t hlen = ip4_hdr_len(hdr_of(first)), tot = hlen + sl->end_len;
    uint8_t *buf = s->reasm.buf;

    if (tot > IP4_MAX_LEN) { /* a longer first header than the last one's */
        s->ctr.ip4_reasm_inconsistent++;
        slot_free(s, sl);
        return;
    }
    net_memcpy(buf, first->data, hlen);
    for (const struct pkt *f = sl->frags; f; f = f->next)
        net_memcpy(buf + hlen + ip4_frag_off(hdr_of(f)), f->data + ip4_hdr_len(hdr_of(f)), payload_len(f));
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

/* Place p in sl's offset-ordered list; false on overlap or disagreement
 * (counted; the caller drops the datagram). */
static bool insert(struct net_stack *s, struct ip4_reasm_slot *sl, struct pkt *p)
{
    uint32_t off = ip4_frag_off(hdr_of(p)), end = frag_end(p), prev_end = 0;
    bool last = !ip4_more_frags(hdr_of(p));
    struct pkt **pp = &sl->frags, *tail = NULL;

    while (*pp && ip4_frag_off(hdr_of(*pp)) < off) {
        tail = *pp;
        prev_end = frag_end(tail);
        pp = &tail->next;
    }
    if (prev_end > off || (*pp && ip4_frag_off(hdr_of(*pp)) < end)) {
        s->ctr.ip4_reasm_overlap++;
        return false;
    }
    for (struct pkt *f = *pp; f; f = f->next)
        tail = f;
    if ((sl->have_last && (last ? end != sl->end_len : end > sl->end_len)) ||
        (last && !sl->have_last && tail && frag_end(tail) > end)) {
        s->ctr.ip4_reasm_inconsistent++;
        return false;
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
    return true;
}

void ip4_reasm_input(struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    struct ip4_reasm_slot *sl = slot_get(s, hdr_of(p), now_ns);

    /* Others hold what sl does not (MAX_FRAGS < MAX_BUFS), so this ends. */
    while (s->reasm.bufs >= IP4_REASM_MAX_BUFS) {
        struct ip4_reasm_slot *o = oldest(s, sl);
        if (o == NULL)
            break;
        s->ctr.ip4_reasm_evicted++;
        slot_free(s, o);
    }
    if (sl->nfrags >= IP4_REASM_MAX_FRAGS) {
        s->ctr.ip4_reasm_too_many++;
        goto drop;
    }
    if (!insert(s, sl, p))
        goto drop;
    if (sl->have_last && sl->got_len == sl->end_len)
        complete(s, sl, now_ns);
    return;
drop:
    slot_free(s, sl);
    pkt_free(p);
}

uint64_t ip4_reasm_timer(struct net_stack *s, uint64_t now_ns)
{
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < IP4_REASM_SLOTS; i++) {
        struct ip4_reasm_slot *sl = &s->reasm.slot[i];
        if (!sl->used)
            continue;
        if (now_ns < sl->expire_ns) {
            if (sl->expire_ns < next)
                next = sl->expire_ns;
            continue;
        }
        s->ctr.ip4_reasm_timeout++;
        const struct pkt *f = sl->frags;
        if (f && ip4_frag_off(hdr_of(f)) == 0) /* RFC 792: only with the first */
            icmp4_send_error(s, f->data, f->len, f->port, f->user, ICMP4_TIME_EXCEEDED, ICMP4_EXC_REASM, 0,
                             now_ns);
        slot_free(s, sl);
    }
    return next;
}

void ip4_reasm_release(struct net_stack *s)
{
    for (int i = 0; i < IP4_REASM_SLOTS; i++)
        if (s->reasm.slot[i].used)
            slot_free(s, &s->reasm.slot[i]);
}
