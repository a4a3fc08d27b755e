/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/gen.c: the traffic generator's service (gen.h).
 *
 * `gen ports TX RX dst-mac MAC src ADDRESS dst ADDRESS` claims both ports.
 * Core c sends on TX's queue c and counts what arrives on queue c of
 * both ports, so no queue is shared and RSS spreads the returning flows;
 * its frames are stream c, numbered from 0 each trial. A trial:
 * arming (core 0 bumps the trial number; each core clears its counts and
 * says so), sending (from a TSC instant every core sees, each core paced
 * at its share of the rate from that instant, a burst of at most
 * GEN_BURST frames and one doorbell a pass), draining (counting goes on
 * for drain_ns after the last core stopped), done. Frames of an earlier
 * trial still in flight are told apart by the trial number in the stamp's
 * stream field and counted stale. The generator answers ARP for its two
 * addresses, as a tester's emulated hosts do, so a router under test can
 * resolve them (and neighbour solicitations, with IPv6 addresses). */
#include "gen.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/mem/kalloc.h"
#include "kernel/mem/pktmem.h"
#include "kernel/platform/percpu.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "lib/fmt.h"
#include "lib/muldiv.h"
#include "net/core/core.h"
#include "net/link/link.h"
#include "net/route/route.h"
#include "tester/gen_frame.h"

#define GEN_BURST 32
/* The stamp's 16-bit stream field: the trial's low bits above the core. */
#define GEN_STREAM_BITS 6
#define GEN_TRIAL_MASK 0x3ffu
_Static_assert(NETDEV_MAX_QUEUES <= (1u << GEN_STREAM_BITS), "a stream per queue");

enum gen_state { GEN_IDLE, GEN_ARMING, GEN_SENDING, GEN_DRAINING, GEN_DONE };

struct gen_core {
    uint16_t queue;
    _Atomic uint32_t ack;     /* the trial whose counts this core cleared */
    _Atomic uint32_t tx_done; /* the trial this core finished sending */
    uint64_t sent, tx_full, no_buffer, first_tsc, last_tsc;
    uint64_t stale, other, arp_replies;
    struct gen_rx_stream rx[NETDEV_MAX_QUEUES]; /* by the sending core */
};

static struct {
    struct netdev *tx, *rx;
    struct gen_flow_spec flow;
    uint16_t lanes;
    struct gen_core *core[NETDEV_MAX_QUEUES];
    /* The trial: written by core 0 while the cores are not sending. */
    struct gen_trial_spec spec;
    struct gen_tmpl tmpl[3]; /* one size, or IMIX's three */
    uint64_t per_core_rate, per_core_frames, hz;
    _Atomic uint32_t trial;
    _Atomic int state;
    _Atomic uint64_t start_tsc;
    uint64_t end_tsc, drain_end_ns;
} gen;

bool gen_configured(void) { return gen.tx != NULL; }
int gen_trial_state(void) { return gen.state; }
bool gen_trial_running(void)
{
    int s = gen.state;
    return s != GEN_IDLE && s != GEN_DONE;
}

static const struct gen_tmpl *tmpl_for(uint64_t i)
{
    if (gen.spec.size)
        return &gen.tmpl[0];
    uint16_t s = gen_imix_size(i);
    return &gen.tmpl[s == 64 ? 0 : s == 570 ? 1 : 2];
}

/* ---- sending ---- */

/* A frame longer than a buffer: the template's bytes past the first
 * buffer's (gen_tmpl_write wrote those) in more buffers chained to it
 * (pkt.h). false, head's chain freed, when the pool ran dry. */
static bool chain_rest(struct pkt_pool *pool, struct pkt *head, const struct gen_tmpl *t)
{
    struct pkt_chain c = {0};
    pkt_chain_add(&c, head);
    for (uint32_t off = head->len; off < t->len; off += c.tail->len) {
        struct pkt *q = pkt_alloc(pool);
        if (!q) {
            pkt_free_frame(pkt_chain_take(&c));
            return false;
        }
        q->len = (uint16_t)(t->len - off < PKT_DATA_ROOM ? t->len - off : PKT_DATA_ROOM);
        memcpy(q->data, t->frame + off, q->len);
        pkt_chain_add(&c, q);
    }
    return true;
}

static void send_burst(struct gen_core *gc, uint32_t trial)
{
    uint64_t now = rdtsc(), start = gen.start_tsc;
    if (now < start)
        return;
    /* A burst of frames ends when they have left, or at the trial's end
     * all the same (a port slower than the rate asked never gets there). */
    bool by_count = gen.per_core_frames != 0;
    if (now >= gen.end_tsc || (by_count && gc->sent >= gen.per_core_frames)) {
        gc->tx_done = trial;
        return;
    }
    uint64_t n = GEN_BURST;
    if (gen.per_core_rate) {
        uint64_t due = muldiv64(now - start, gen.per_core_rate, gen.hz);
        n = due > gc->sent ? due - gc->sent : 0;
        if (n > GEN_BURST)
            n = GEN_BURST;
    }
    if (by_count && n > gen.per_core_frames - gc->sent)
        n = gen.per_core_frames - gc->sent;
    if (n == 0)
        return;
    struct pkt *pkts[GEN_BURST];
    struct pkt_pool *pool = pktmem_pool(cpu_index());
    uint32_t got = pkt_alloc_bulk(pool, pkts, (uint32_t)n);
    if (got < n)
        gc->no_buffer += n - got;
    uint64_t stamp_ns = time_ns_at(now);
    uint16_t stream = (uint16_t)((trial & GEN_TRIAL_MASK) << GEN_STREAM_BITS | gc->queue);
    for (uint32_t i = 0; i < got; i++) {
        const struct gen_tmpl *t = tmpl_for(gc->sent + i);
        gen_tmpl_write(t, pkts[i]->data, PKT_DATA_ROOM, (uint32_t)(gc->sent + i), stream, (uint32_t)(gc->sent + i),
                       stamp_ns);
        pkts[i]->len = (uint16_t)(t->len < PKT_DATA_ROOM ? t->len : PKT_DATA_ROOM);
        if (__builtin_expect(t->len > PKT_DATA_ROOM, 0) && !chain_rest(pool, pkts[i], t)) {
            for (uint32_t k = i + 1; k < got; k++) /* the burst ends here: the numbers stay in sequence */
                pkt_free(pkts[k]);
            gc->no_buffer += got - i;
            got = i;
        }
    }
    uint16_t took = netdev_tx_burst(gen.tx, gc->queue, pkts, (uint16_t)got);
    /* What the ring could not take was never sent: its numbers go to the
     * next burst's frames. */
    for (uint32_t i = took; i < got; i++)
        pkt_free_frame(pkts[i]);
    gc->tx_full += got - took;
    if (took) {
        if (!gc->sent)
            gc->first_tsc = now;
        gc->last_tsc = now;
        gc->sent += took;
        loop_note_work(took);
    }
}

/* ---- receiving ---- */

/* An ARP request for one of our addresses, answered in its own buffer on
 * the port it came in by; true when it was one (p is then passed on). */
static bool answer_arp(struct gen_core *gc, struct netdev *dev, struct pkt *p)
{
    if (p->len < ETH_HDR_LEN + ARP_LEN)
        return false;
    struct eth_hdr *e = (struct eth_hdr *)p->data;
    struct arp_hdr *a = (struct arp_hdr *)(p->data + ETH_HDR_LEN);
    if (e->type_be != net_htons(ETH_TYPE_ARP) || a->op_be != net_htons(ARP_OP_REQUEST))
        return false;
    uint32_t mine;
    __builtin_memcpy(&mine, dev == gen.tx ? gen.flow.src : gen.flow.dst, 4);
    if (gen.flow.ip6 || a->tpa_be != mine)
        return false;
    __builtin_memcpy(e->dst, a->sha, ETH_ALEN);
    __builtin_memcpy(e->src, dev->mac, ETH_ALEN);
    arp_make_reply(a, dev->mac, mine);
    if (netdev_tx_burst(dev, gc->queue, &p, 1) == 1)
        gc->arp_replies++;
    else
        pkt_free(p);
    return true;
}

/* A neighbour solicitation for one of our IPv6 addresses (RFC 4861 7.1.1:
 * hop limit 255, code 0, from a unicast source: a duplicate address
 * probe from :: is not answered), answered in its own buffer with a
 * solicited advertisement carrying our MAC (7.2.4); true when it was. */
static bool answer_ns(struct gen_core *gc, struct netdev *dev, struct pkt *p)
{
    enum { L3 = ETH_HDR_LEN, L4 = ETH_HDR_LEN + IP6_HDR_LEN, NA_LEN = 4 + 4 + 16 + 8 };
    if (!gen.flow.ip6 || p->len < L4 + 24)
        return false;
    struct eth_hdr *e = (struct eth_hdr *)p->data;
    struct ip6_hdr *h = (struct ip6_hdr *)(p->data + L3);
    uint8_t *icmp = p->data + L4;
    const uint8_t *mine = dev == gen.tx ? gen.flow.src : gen.flow.dst;
    static const uint8_t unspecified[16];
    if (e->type_be != net_htons(ETH_TYPE_IP6) || h->next != IP6_PROTO_ICMP6 || h->hlim != 255 ||
        icmp[0] != ND6_NS || icmp[1] != 0 || memcmp(icmp + 8, mine, 16) != 0 ||
        memcmp(h->src, unspecified, 16) == 0)
        return false;
    __builtin_memcpy(e->dst, e->src, ETH_ALEN);
    __builtin_memcpy(e->src, dev->mac, ETH_ALEN);
    __builtin_memcpy(h->dst, h->src, 16);
    __builtin_memcpy(h->src, mine, 16);
    h->plen_be = net_htons(NA_LEN);
    icmp[0] = ND6_NA;
    icmp[2] = icmp[3] = 0;
    icmp[4] = ND6_NA_SOLICITED | ND6_NA_OVERRIDE;
    icmp[5] = icmp[6] = icmp[7] = 0;
    /* target (icmp + 8) stays; then the target link-layer address option */
    icmp[24] = ND6_OPT_TLLA;
    icmp[25] = 1;
    __builtin_memcpy(icmp + 26, dev->mac, ETH_ALEN);
    uint32_t sum = csum_partial(h->src, 32, 0);
    sum = csum_add(sum, net_htons(NA_LEN));
    sum = csum_add(sum, net_htons(IP6_PROTO_ICMP6));
    uint16_t c = csum_finish(csum_partial(icmp, NA_LEN, sum));
    __builtin_memcpy(icmp + 2, &c, 2);
    p->len = L4 + NA_LEN;
    if (netdev_tx_burst(dev, gc->queue, &p, 1) == 1)
        gc->arp_replies++;
    else
        pkt_free(p);
    return true;
}

static void receive(struct gen_core *gc, struct netdev *dev, uint32_t trial)
{
    struct pkt *pkts[GEN_BURST];
    uint16_t n = netdev_rx_burst(dev, gc->queue, pkts, GEN_BURST);
    if (!n)
        return;
    loop_note_work(n);
    uint64_t now_ns = time_now_ns();
    for (uint16_t i = 0; i < n; i++) {
        struct pkt *p = pkts[i];
        struct gen_stamp st;
        if (!gen_stamp_parse(p->data, p->len, &st)) { /* (the stamp is in a chain's first buffer) */
            if ((p->flags & PKT_F_CHAIN) || (!answer_arp(gc, dev, p) && !answer_ns(gc, dev, p))) {
                gc->other++;
                pkt_free_frame(p);
            }
            continue;
        }
        uint16_t from = st.stream & ((1u << GEN_STREAM_BITS) - 1);
        if ((st.stream >> GEN_STREAM_BITS) != (trial & GEN_TRIAL_MASK) || from >= gen.lanes)
            gc->stale++;
        else
            gen_rx_account(&gc->rx[from], st.seq, now_ns > st.ticks ? now_ns - st.ticks : 0);
        pkt_free_frame(p);
    }
}

static void clear_core(struct gen_core *gc)
{
    gc->sent = gc->tx_full = gc->no_buffer = gc->first_tsc = gc->last_tsc = 0;
    gc->stale = gc->other = gc->arp_replies = 0;
    for (unsigned s = 0; s < NETDEV_MAX_QUEUES; s++)
        gen_rx_stream_clear(&gc->rx[s]);
}

static void gen_poll(void *arg, uint64_t now_ns)
{
    struct gen_core *gc = arg;
    uint32_t trial = gen.trial;
    if (gc->ack != trial) {
        clear_core(gc);
        gc->ack = trial;
    }
    receive(gc, gen.rx, trial);
    receive(gc, gen.tx, trial);
    if (gen.state == GEN_SENDING && gc->tx_done != trial)
        send_burst(gc, trial);
}

/* ---- the trial, on core 0 ---- */

static void gen_control(void *arg, uint64_t now_ns)
{
    uint32_t trial = gen.trial;
    switch ((int)gen.state) {
    case GEN_ARMING:
        for (unsigned c = 0; c < gen.lanes; c++)
            if (gen.core[c]->ack != trial)
                return;
        /* A millisecond ahead: every core sees the start before it passes. */
        gen.start_tsc = rdtsc() + gen.hz / 1000;
        gen.end_tsc = gen.start_tsc + muldiv64(gen.spec.duration_ns, gen.hz, 1000000000u);
        gen.state = GEN_SENDING;
        return;
    case GEN_SENDING:
        for (unsigned c = 0; c < gen.lanes; c++)
            if (gen.core[c]->tx_done != trial)
                return;
        gen.drain_end_ns = now_ns + gen.spec.drain_ns;
        gen.state = GEN_DRAINING;
        return;
    case GEN_DRAINING:
        if (now_ns >= gen.drain_end_ns)
            gen.state = GEN_DONE;
        return;
    default:
        return;
    }
}

int gen_trial_start(const struct gen_trial_spec *t, char *err, unsigned errlen)
{
    if (!gen.tx) {
        fmt_snprintf(err, errlen, "no generator: configure `gen ports TX RX ...`");
        return -1;
    }
    if (gen_trial_running()) {
        fmt_snprintf(err, errlen, "a trial is running");
        return -1;
    }
    static const uint16_t imix[3] = {64, 570, 1518};
    uint32_t biggest = t->size ? t->size : imix[2];
    const struct netdev *narrow = gen.rx->mtu < gen.tx->mtu ? gen.rx : gen.tx;
    if (biggest > narrow->mtu + ETH_HDR_LEN + GEN_FCS_LEN && biggest <= GEN_MAX_FRAME) {
        /* The port would send it (or the peer drop it) as too long. */
        fmt_snprintf(err, errlen, "frames of %u bytes are over %s's MTU of %u (`interface %s mtu %u`)", biggest,
                     narrow->name, narrow->mtu, narrow->name, biggest - ETH_HDR_LEN - GEN_FCS_LEN);
        return -1;
    }
    for (int i = 0; i < (t->size ? 1 : 3); i++)
        if (gen_tmpl_build(&gen.tmpl[i], &gen.flow, t->size ? t->size : imix[i]) != 0) {
            fmt_snprintf(err, errlen, "frames of %u bytes cannot be sent (%u to %u)", t->size,
                         gen.flow.ip6 ? GEN_MIN_FRAME6 : GEN_MIN_FRAME4, GEN_MAX_FRAME);
            return -1;
        }
    gen.spec = *t;
    gen.per_core_rate = t->rate_pps ? (t->rate_pps + gen.lanes - 1) / gen.lanes : 0;
    gen.per_core_frames = t->frames ? (t->frames + gen.lanes - 1) / gen.lanes : 0;
    gen.start_tsc = UINT64_MAX;
    gen.trial = gen.trial + 1;
    gen.state = GEN_ARMING;
    return 0;
}

void gen_trial_result(struct gen_result *r)
{
    /* Read-only sums of every core's counts: the console and the http
     * app (any core) may ask at once. */
    *r = (struct gen_result){0};
    lat_hist_clear(&r->lat);
    uint64_t first = UINT64_MAX, last = 0;
    for (unsigned s = 0; s < gen.lanes; s++) {
        uint64_t rx = 0, dup = 0;
        for (unsigned c = 0; c < gen.lanes; c++) {
            const struct gen_rx_stream *st = &gen.core[c]->rx[s];
            rx += st->rx;
            dup += st->dup;
            r->reordered += st->reordered;
            r->too_late += st->too_late;
            lat_hist_merge(&r->lat, &st->lat);
        }
        r->sent += gen.core[s]->sent;
        r->received += rx;
        r->dup += dup;
        r->lost += (int64_t)gen.core[s]->sent - (int64_t)(rx - dup);
    }
    for (unsigned c = 0; c < gen.lanes; c++) {
        struct gen_core *gc = gen.core[c];
        r->stale += gc->stale;
        r->other += gc->other;
        r->arp_replies += gc->arp_replies;
        r->tx_full += gc->tx_full;
        r->no_buffer += gc->no_buffer;
        if (gc->sent && gc->first_tsc < first)
            first = gc->first_tsc;
        if (gc->last_tsc > last)
            last = gc->last_tsc;
    }
    r->tx_ns = last > first && first != UINT64_MAX ? time_tsc_to_ns(last - first) : 0;
}

/* What /metrics serves of the generator (the http app, any core): plain
 * sums of every core's counts, read where they lie. */
bool gen_metric(uint32_t idx, const char **name, uint64_t *value)
{
    static const char *const names[] = {"gen-sent", "gen-received", "gen-lost", "gen-duplicated",
                                        "gen-reordered", "gen-stale", "gen-other"};
    if (!gen.tx || idx >= sizeof names / sizeof names[0])
        return false;
    uint64_t v[7] = {0};
    for (unsigned c = 0; c < gen.lanes; c++) {
        const struct gen_core *gc = gen.core[c];
        v[0] += gc->sent;
        v[5] += gc->stale;
        v[6] += gc->other;
        for (unsigned st = 0; st < gen.lanes; st++) {
            v[1] += gc->rx[st].rx;
            v[3] += gc->rx[st].dup;
            v[4] += gc->rx[st].reordered;
        }
    }
    /* Lost so far: sent less arrived once, never below 0 while in flight. */
    v[2] = v[0] > v[1] - v[3] ? v[0] - (v[1] - v[3]) : 0;
    *name = names[idx];
    *value = v[idx];
    return true;
}

/* ---- configuration ---- */

/* An IPv4 or IPv6 address; *v6 says which. */
static bool parse_ip(const char *s, uint8_t out[16], bool *v6)
{
    *v6 = strchr(s, ':') != NULL;
    if (*v6)
        return route6_parse_addr(s, strlen(s), out);
    uint32_t host;
    if (!route4_parse_addr(s, strlen(s), &host))
        return false;
    uint32_t be = net_htonl(host);
    __builtin_memcpy(out, &be, 4);
    return true;
}

static int stmt_gen(int argc, char **argv, char *err, size_t errlen)
{
    if (argc < 4 || strcmp(argv[1], "ports") != 0) {
        fmt_snprintf(err, errlen, "usage: gen ports TX RX dst-mac MAC src A.B.C.D dst A.B.C.D [flows N]");
        return -1;
    }
    if (gen.tx) {
        fmt_snprintf(err, errlen, "gen: one generator only");
        return -1;
    }
    struct gen_flow_spec f = {.flows = 256, .seed = 1};
    bool mac = false, src = false, dst = false, src6 = false, dst6 = false;
    for (int i = 4; i + 1 < argc; i += 2) {
        unsigned long v;
        if (strcmp(argv[i], "dst-mac") == 0 && config_parse_mac(argv[i + 1], f.dst_mac) == 0)
            mac = true;
        else if (strcmp(argv[i], "src") == 0 && parse_ip(argv[i + 1], f.src, &src6))
            src = true;
        else if (strcmp(argv[i], "dst") == 0 && parse_ip(argv[i + 1], f.dst, &dst6))
            dst = true;
        else if (strcmp(argv[i], "flows") == 0 && config_parse_u32(argv[i + 1], 65536, &v) == 0 && v)
            f.flows = (uint32_t)v;
        else {
            fmt_snprintf(err, errlen, "gen: bad '%s %s'", argv[i], argv[i + 1]);
            return -1;
        }
    }
    if (!mac || !src || !dst || (argc - 4) % 2 || src6 != dst6) {
        fmt_snprintf(err, errlen, "gen: dst-mac, src and dst (both IPv4 or both IPv6) are needed");
        return -1;
    }
    f.ip6 = src6;
    struct netdev *tx, *rx;
    if (ports_claim_pair("gen", "the generator", argv[2], argv[3], &tx, &rx, err, errlen) != 0)
        return -1;
    __builtin_memcpy(f.src_mac, tx->mac, 6);
    gen.tx = tx;
    gen.rx = rx;
    gen.flow = f;
    gen.hz = time_tsc_hz();
    gen.lanes = tx->nqueues < rx->nqueues ? tx->nqueues : rx->nqueues;
    for (uint16_t q = 0; q < gen.lanes; q++) {
        struct gen_core *gc = kalloc(sizeof *gc);
        gc->queue = q;
        clear_core(gc);
        gen.core[q] = gc;
        char *name = kalloc(32);
        fmt_snprintf(name, 32, "gen %s-%s q%u", tx->name, rx->name, q);
        if (loop_add_poller(q, name, gen_poll, gc) != 0) {
            fmt_snprintf(err, errlen, "gen: no room for a poller on core %u", q);
            return -1;
        }
    }
    if (loop_add_poller(0, "gen control", gen_control, NULL) != 0 || rfc2544_start_polling() != 0) {
        fmt_snprintf(err, errlen, "gen: no room for a poller on core 0");
        return -1;
    }
    kprintf("gen: %s to %s, %u cores, %u flows\n", tx->name, rx->name, gen.lanes, f.flows);
    return 0;
}

void gen_init(void)
{
    config_register("gen", stmt_gen);
    gen_cmds_init();
    rfc2544_init();
}
