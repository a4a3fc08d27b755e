/* SPDX-License-Identifier: MIT */
/* tools/bench/fwd_bench.c: the forwarding pipeline (net/fwd/fwd.h) on an
 * in-memory NIC (fwd_nic.h), with the full table, beside the same pipeline
 * looking up in DPDK rte_lpm (IPv4: 64-byte frames) and rte_lpm6 (IPv6:
 * 62-byte frames, fwd_bench6.c) in bursts of 1, 8, 32 and 256; ns per
 * packet, packets per second on one core, doorbells per packet.
 *
 *   fwd_bench DATA_DIR [--reps N] [--huge] [--packets N] [--burst N]
 *             [--hayate-only] [--v4-only | --v6-only] [--max-len N] [--in-prefixes K]
 *             [--tag TEXT] [--only bursts|ecmp|capture|floor|acl|scale]
 *
 * --huge: 2 MiB pages for the tables and packet buffers, both sides;
 * --burst: that burst size only; --hayate-only: no DPDK (the kernel-flags
 * build); --only: that set of IPv4 rows alone (no IPv6), for working on
 * one of them; --max-len: only the IPv4 prefixes up to /N (a smaller
 * table: how a frame's cost follows the table's size; the rows' names say
 * it unless --tag does); --in-prefixes: IPv4 traffic to only K random
 * prefixes of the table, all of it loaded (traffic that keeps to fewer
 * destinations, so fewer lines of either table: as route_bench
 * --working-set). Rows: ns per packet and Mpps, each beside rte_lpm
 * or rte_lpm6; TX doorbells per packet beside their bound (one per output
 * port per burst), for IPv4 also RX doorbells beside one per burst. Exits non-zero
 * when a frame left the fast path or a port's count differs between the
 * two sides.
 *
 * The rig: four ports with four gateways each (16 next hops); every prefix
 * of rib-v4-2024 goes to one of them (by a hash of the prefix), loaded into
 * our table with route4_load_text (one text per next hop) and into rte_lpm
 * with the same next hops; the IPv6 half does the same with rib-v6-2024,
 * route6 and rte_lpm6 (IPv4 runs first, all of it, then IPv6). Frames
 * come in on eth0 addressed to random addresses inside random table
 * prefixes (one array, both sides) and go out on all four ports. The
 * device's side (filling RX buffers, completing TX descriptors) runs
 * between chunks of NIC_RING / 2 frames and is not timed; the timed part is
 * the driver (rx_burst, refill, tx_burst, reclaim) and fwd_burst. Sides and
 * burst sizes are interleaved, medians of --reps.
 *
 * Scale (IPv4, bursts of 32, fwd_scale.c): the same on 1, 2, 4, ... cores
 * at once, a rig each on the one table, beside rte_lpm's pipeline so run.
 *
 * ECMP (IPv4, bursts of 32): the same prefixes, each on one of four
 * groups of four paths (one gateway on each port), beside one path a
 * prefix in the same run: what choosing a flow's path costs. Capture: a
 * tap copying every frame sent into a ring (net/capture/capture.h)
 * drained between chunks, beside none: what a capture at line rate costs.
 * Floor (IPv4, bursts of 32): each next hop from a hash of the address,
 * no table, beside our lookup: what the lookup costs a forwarded frame.
 * Access list (IPv4, bursts of 32): 50 rules on eth0's input, an edge
 * router's (bogon sources, ports, a few hosts' services; acl_rules) of which
 * the bench traffic matches only the 50th, a bare permit: the worst case
 * for a walk through the rules, one classification (net/acl/acl.h) for
 * us; beside no list in the same run. Every frame must be counted on that
 * rule and forwarded.
 *
 * DPDK l3fwd (IPv4, bursts of 32, l3fwd_side.c): the example's own
 * lpm_main_loop on ring PMD ports, fed the same frames between chunks,
 * with the same prefixes to the same ports, interleaved with the other
 * sides; its frames per port must equal ours. Beside it, like for like,
 * our pipeline on pointer rings too (fwd_nic.h, nic_pointer_rings): no
 * driver work on either side.
 *
 * The prefixes, the addresses and the rte_lpm build come from
 * route_load.c, as route_bench's do, so the two benchmarks measure the
 * same tables the same way; the EAL arguments are route_bench's (the
 * lcore on the CPU we were started on: eal_lcore_here). */
#include <arpa/inet.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lpm.h>

#include "tools/bench/bench_util.h"
#include "tools/bench/fwd_bench.h"
#include "tools/bench/l3fwd_side.h"
#include "tools/bench/route_load.h"

_Static_assert(L3FWD_PORTS == NPORTS, "l3fwd's ports are the rig's");

static int reps = 7;
static const char *tag = "";
static int bursts[] = {1, 8, 32, 256};
static int nbursts = 4;
static const char *only_rows; /* --only: that set of IPv4 rows alone */

/* Whether --only leaves the IPv4 rows of this name to run. */
static int wanted(const char *rows_name)
{
    return only_rows == NULL || !strcmp(only_rows, rows_name);
}

/* Whether DPDK l3fwd runs: IPv4 rows of bursts of 32 (its only size). */
static int l3fwd_wanted(int only)
{
    return !only && wanted("bursts") && (nbursts > 1 || bursts[0] == 32);
}

static uint32_t be(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    return htonl((uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d);
}

/* The gateways ask for our address: their entries land in each port's ARP
 * cache (and the replies go out and are completed). */
static void learn_gateways(struct rig *r, uint64_t now_ns)
{
    for (int p = 0; p < NPORTS; p++)
        for (int g = 0; g < GW_PER_PORT; g++) {
            uint8_t f[64] = {0}, mac[6];
            fwd_bench_mac(mac, p, 2 + g);
            memset(f, 0xff, 6);
            memcpy(f + 6, mac, 6);
            f[12] = 0x08, f[13] = 0x06;
            struct arp_hdr a = {htons(ARP_HTYPE_ETH), htons(ETH_TYPE_IP4), 6, 4, htons(ARP_OP_REQUEST),
                                {0}, be(10, 0, (uint8_t)p, (uint8_t)(2 + g)), {0}, be(10, 0, (uint8_t)p, 1)};
            memcpy(a.sha, mac, 6);
            memcpy(f + 14, &a, sizeof(a));
            nic_receive_frame(&r->nic[p], f, 60);
            struct pkt *pk[4];
            uint16_t n = netdev_rx_burst(&r->nic[p].dev, 0, pk, 4);
            net_input(r->s, pk, n, now_ns);
        }
    net_flush(r->s);
    for (int p = 0; p < NPORTS; p++)
        nic_transmit(&r->nic[p]);
}

/* An Ethernet + IPv4 + UDP frame from 198.18.0.1 to eth0, its destination
 * and header checksum left for the device to fill. */
static void make_template(struct rig *r)
{
    uint8_t *f = r->tmpl, src_mac[6];
    memset(f, 0, FRAME_LEN);
    memcpy(f, r->nic[0].dev.mac, 6);
    fwd_bench_mac(src_mac, 0, 0x77);
    memcpy(f + 6, src_mac, 6);
    f[12] = 0x08;
    struct ip4_hdr h = {0x45, 0, htons(FRAME_LEN - 14), 0, 0, 64, IP4_PROTO_UDP, 0, be(198, 18, 0, 1), 0};
    memcpy(f + 14, &h, sizeof(h));
    uint16_t udp[4] = {htons(1024), htons(9), htons(FRAME_LEN - 34), 0};
    memcpy(f + 34, udp, sizeof(udp));
    r->tmpl_base = csum_partial(&h, sizeof(h), 0);
}

/* Every prefix to next hop nh[hash % NNH]: NNH texts for route4_load_text,
 * and the same next hops in p[] for rte_lpm. */
static void load_tables(struct rig *r, struct route4_prefix *p, size_t n, int only)
{
    char **text = calloc(NNH, sizeof(*text));
    size_t *len = calloc(NNH, sizeof(*len)), cap = n * 20 / NNH + 4096;
    for (int k = 0; k < NNH; k++)
        text[k] = malloc(cap * 2);
    for (size_t i = 0; i < n; i++) {
        uint32_t k = (uint32_t)((p[i].addr * 0x9e3779b97f4a7c15ull + p[i].len) >> 40) % NNH;
        p[i].nh = r->nh[k];
        len[k] += (size_t)sprintf(text[k] + len[k], "%u.%u.%u.%u/%u\n", p[i].addr >> 24, (p[i].addr >> 16) & 255,
                                  (p[i].addr >> 8) & 255, p[i].addr & 255, p[i].len);
    }
    struct route_cfg cfg = bench_route_cfg(ROUTE_V4);
    r->rt = route4_create(&cfg);
    double t0 = bench_now();
    for (int k = 0; k < NNH; k++) {
        struct route_load_stats st;
        if (route4_load_text(r->rt, text[k], len[k], r->nh[k], &st, NULL, NULL) != ROUTE_OK || st.bad) {
            fprintf(stderr, "fwd_bench: route4_load_text failed\n");
            exit(1);
        }
        free(text[k]);
    }
    fprintf(stderr, "fwd_bench: %zu prefixes over %d next hops in %.2f s\n", n, NNH, bench_now() - t0);
    double secs;
    if (!only)
        r->lpm = load_lpm(p, n, &secs);
    free(text);
    free(len);
}

/* The ECMP table: prefix i's next hop k (of NNH) becomes group k % 4,
 * whose paths are gateway k % 4 of each port. */
static void load_ecmp(struct rig *r, const struct route4_prefix *p, size_t n)
{
    uint32_t groups[4];
    for (int g = 0; g < 4; g++) {
        uint32_t paths[NPORTS];
        bool made;
        for (int port = 0; port < NPORTS; port++)
            paths[port] = r->nh[port * GW_PER_PORT + g];
        groups[g] = nexthop_group_add(&r->nht, paths, NPORTS, &made);
    }
    struct route_cfg cfg = bench_route_cfg(ROUTE_V4);
    r->rt_ecmp = route4_create(&cfg);
    route4_defer(r->rt_ecmp, true);
    for (size_t i = 0; i < n; i++) {
        int k = 0;
        while (k < NNH && r->nh[k] != p[i].nh)
            k++;
        if (!groups[k % 4] || route4_add(r->rt_ecmp, p[i].addr, p[i].len, groups[k % 4]) != ROUTE_OK) {
            fprintf(stderr, "fwd_bench: the ECMP table could not be made\n");
            exit(1);
        }
    }
    route4_defer(r->rt_ecmp, false);
}

/* DPDK l3fwd's side: each prefix to the port of the next hop it has here,
 * that port's first gateway as its one next hop. */
static void setup_l3fwd(struct rig *r, const struct route4_prefix *p, size_t n)
{
    uint8_t *port = malloc(n), mac[NPORTS][6], gw[NPORTS][6];
    for (size_t i = 0; i < n; i++)
        port[i] = nexthop_get(&r->nht, p[i].nh).port;
    for (int k = 0; k < NPORTS; k++) {
        fwd_bench_mac(mac[k], k, 1);
        fwd_bench_mac(gw[k], k, 2);
    }
    l3fwd_side_setup(p, port, n, (const uint8_t(*)[6])mac, (const uint8_t(*)[6])gw);
    free(port);
}

/* --max-len: only the table's prefixes up to this length (IPv4). */
static unsigned max_len = 32;
static size_t in_prefixes; /* --in-prefixes; 0: all */

/* The IPv4 tables, both sides, and the destinations. */
static void setup4(struct rig *r, const char *dir, int only)
{
    char path[4096];
    size_t n;
    snprintf(path, sizeof(path), "%s/rib-v4-2024.txt.gz", dir);
    struct route4_prefix *p = read_v4(path, &n);
    if (p == NULL) {
        fprintf(stderr, "fwd_bench: cannot read %s\n", path);
        exit(1);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) /* --max-len */
        if (p[i].len <= max_len)
            p[k++] = p[i];
    n = k;
    load_tables(r, p, n, only);
    struct route_stats st;
    route4_stats(r->rt, &st);
    fprintf(stderr, "fwd_bench: IPv4: %zu prefixes up to /%u, our table %.2f MiB\n", n, max_len,
            (double)st.fib_bytes / 1048576);
    load_ecmp(r, p, n);
    if (l3fwd_wanted(only))
        setup_l3fwd(r, p, n);
    uint32_t *uni = malloc(NADDR * 4), *in = malloc(NADDR * 4);
    if (in_prefixes && in_prefixes < n) {
        v4_shuffle_first(p, n, in_prefixes);
        n = in_prefixes;
    }
    v4_addresses(p, n, uni, in);
    r->dst_be = malloc(NADDR * 4);
    for (uint32_t i = 0; i < NADDR; i++)
        r->dst_be[i] = htonl(in[i]);
    free(uni);
    free(in);
    free(p);
}

/* Buffers, the stack, four ports with an IPv4 address and four gateways
 * each (the same next-hop numbers on every rig). */
static void setup_ports(struct rig *r)
{
    size_t bytes = (size_t)POOL_BUFS * PKT_BUF_SIZE;
    r->mem = bench_alloc(NULL, bytes, PKT_BUF_SIZE);
    memset(r->mem, 0, bytes);
    pkt_pool_init(&r->pool, r->mem, 0x100000000ull, bytes);
    r->s = calloc(1, sizeof(*r->s));
    net_stack_init(r->s, &r->pool, 0);
    nexthop_init(&r->nht);
    for (int port = 0; port < NPORTS; port++) {
        uint8_t mac[6];
        fwd_bench_mac(mac, port, 1);
        nic_init(&r->nic[port], (uint16_t)port, mac, &r->pool, 0x100000000ull);
        net_iface_add(r->s, &r->nic[port].dev, 0, be(10, 0, (uint8_t)port, 1), 24);
        for (int g = 0; g < GW_PER_PORT; g++) {
            struct nexthop nh = {.kind = NEXTHOP_VIA, .port = (uint8_t)port, .gw_be = be(10, 0, (uint8_t)port, (uint8_t)(2 + g))};
            r->nh[port * GW_PER_PORT + g] = nexthop_add(&r->nht, &nh);
        }
    }
}

static void setup_fwd(struct rig *r)
{
    r->f = aligned_alloc(64, (sizeof(*r->f) + 63) / 64 * 64);
    fwd_init(r->f, r->rt, &r->nht);
    fwd_attach(r->f, r->s);
    make_template(r);
}

/* The rig: setup_ports, then the IPv4 tables unless v4 is 0 (then rt is
 * NULL and no IPv4 frame may come), then the pipeline. */
static void setup(struct rig *r, const char *dir, int only, int v4)
{
    setup_ports(r);
    if (v4)
        setup4(r, dir, only);
    setup_fwd(r);
}

void fwd_bench_core_rig(struct rig *r, const struct rig *first)
{
    setup_ports(r);
    r->rt = first->rt;
    r->lpm = first->lpm;
    r->dst_be = first->dst_be;
    setup_fwd(r);
}

static void lpm_lookup(void *ctx, const uint32_t *addr, uint32_t *nh, uint32_t n)
{
    rte_lpm_lookup_bulk((const struct rte_lpm *)ctx, addr, nh, n);
    for (uint32_t i = 0; i < n; i++) /* a hit has bit 24 set */
        nh[i] = nh[i] & RTE_LPM_LOOKUP_SUCCESS ? nh[i] & 0x00ffffffu : 0;
}

/* NO_LOOKUP's: one of the rig's next hops (ctx, NNH of them) from a
 * multiplicative hash of the address, no memory read. */
static void hash_lookup(void *ctx, const uint32_t *addr, uint32_t *nh, uint32_t n)
{
    const uint32_t *hops = ctx;
    for (uint32_t i = 0; i < n; i++)
        nh[i] = hops[(addr[i] * 0x9e3779b9u >> 16) % NNH];
}

static uint64_t now_ns(void)
{
    return (uint64_t)(bench_now() * 1e9);
}

static void ecmp_lookup(void *ctx, const uint32_t *addr, uint32_t *nh, uint32_t n)
{
    route4_lookup_burst(ctx, addr, nh, n);
}

/* A capture of every frame sent, as kernel/netsvc/capture.c's tap: the
 * filter, then a copy into the ring or a count when it is full. */
static struct cap_ring cap_ring;
static struct cap_filter cap_all = {.ports = ~0u, .dirs = CAP_TX, .proto = -1, .l4port = -1};

static void cap_tap(void *ctx, uint16_t port, uint8_t dir, struct pkt *const *p, uint16_t n, const char *why)
{
    for (uint16_t i = 0; i < n; i++)
        if ((cap_all.dirs & dir) && cap_match(&cap_all, p[i]->data, p[i]->len))
            cap_put(&cap_ring, 0, port, dir, why, p[i]);
}

/* npkts frames through the pipeline in bursts of b, IPv6 with v6: side
 * selects the lookup (our table, rte_lpm or rte_lpm6, our ECMP table).
 * fast counts the frames of that family on the fast path. */
struct result fwd_bench_run(struct rig *r, int b, int side, int v6, uint64_t npkts)
{
    struct result res = {0};
    struct pkt *pkts[256];
    if (v6) {
        fwd_bench6_prepare(r, side == LPM, now_ns());
    } else {
        if (side == ECMP)
            fwd_set_lookup4(r->f, ecmp_lookup, r->rt_ecmp);
        else if (side == NO_LOOKUP)
            fwd_set_lookup4(r->f, hash_lookup, r->nh);
        else
            fwd_set_lookup4(r->f, side == LPM ? lpm_lookup : NULL, r->lpm);
        learn_gateways(r, now_ns());
    }
    if (side == CAPTURE && !cap_ring.r)
        cap_ring.r = calloc(CAP_RING, sizeof(struct cap_rec));
    fwd_acl_bind(r, v6 ? OURS : side);
    if (side == ACL) /* shared: other sides leave it alone (fwd_scale.c runs them on many cores) */
        fwd_acl_reset();
    atomic_store(&r->s->tap, side == CAPTURE ? cap_tap : NULL);
    uint64_t lost0 = side == CAPTURE ? cap_ring.lost : 0;
    uint64_t db_tx = 0, db_rx = r->nic[0].rx_doorbells, sent[NPORTS];
    memset(&r->f->ctr, 0, sizeof(r->f->ctr));
    for (int p = 0; p < NPORTS; p++) {
        db_tx += r->nic[p].tx_doorbells;
        sent[p] = r->nic[p].tx_packets;
    }
    for (int p = 0; p < NPORTS; p++)
        nic_pointer_rings(&r->nic[p], side == RINGS);
    double t = 0;
    uint32_t pos = 0;
    while (res.pkts < npkts && !(res.pkts && r->stop && atomic_load_explicit(r->stop, memory_order_relaxed))) {
        uint32_t got = v6 ? fwd_bench6_receive(r, res.pkts, CHUNK)
                          : nic_receive(&r->nic[0], r->tmpl, FRAME_LEN, r->tmpl_base, r->dst_be + pos, CHUNK);
        pos = (pos + CHUNK) % NADDR;
        uint64_t now = now_ns();
        double t0 = bench_now();
        for (uint32_t done = 0; done < got;) {
            uint16_t n = netdev_rx_burst(&r->nic[0].dev, 0, pkts, (uint16_t)b);
            fwd_burst(r->f, r->s, pkts, n, now);
            done += n;
        }
        t += bench_now() - t0;
        for (int p = 0; p < NPORTS; p++)
            nic_transmit(&r->nic[p]);
        if (side == CAPTURE) /* the reader, on another core */
            atomic_store(&cap_ring.tail, atomic_load(&cap_ring.head));
        res.pkts += got;
    }
    for (int p = 0; p < NPORTS; p++)
        nic_pointer_rings(&r->nic[p], false);
    res.cap_lost = side == CAPTURE ? cap_ring.lost - lost0 : 0;
    atomic_store(&r->s->tap, NULL);
    res.ns_per_pkt = t * 1e9 / (double)res.pkts;
    res.rx_doorbells = r->nic[0].rx_doorbells - db_rx;
    for (int p = 0; p < NPORTS; p++) {
        res.tx_doorbells += r->nic[p].tx_doorbells;
        res.per_port[p] = r->nic[p].tx_packets - sent[p];
    }
    res.tx_doorbells -= db_tx;
    res.fast = v6 ? r->f->ctr.fast6 : r->f->ctr.fast;
    res.to_stack = r->f->ctr.to_stack;
    if (side == ACL)
        fwd_acl_hits(&res.acl_last, &res.acl_other);
    return res;
}

/* The bound on TX doorbells: for bursts of b over the address array, the
 * number of distinct output ports in each burst, summed; computed from
 * the lookups alone. Per packet. */
static double doorbell_bound(struct rig *r, int b, uint64_t npkts)
{
    uint32_t host[256], nh[256];
    uint64_t ports = 0;
    for (uint64_t i = 0; i < npkts; i += (uint64_t)b) {
        for (int k = 0; k < b; k++)
            host[k] = ntohl(r->dst_be[(i + (uint64_t)k) % NADDR]);
        route4_lookup_burst(r->rt, host, nh, (size_t)b);
        uint32_t seen = 0;
        for (int k = 0; k < b; k++)
            seen |= 1u << nexthop_get(&r->nht, nh[k]).port;
        ports += (uint64_t)__builtin_popcount(seen);
    }
    return (double)ports / (double)npkts;
}

/* Every frame of both sides on the fast path, and each port's count the
 * same on both: else say what differs. */
static int check(const struct result *h, const struct result *l, int v6, int b, int only)
{
    const char *fam = v6 ? "IPv6" : "IPv4", *ref = v6 ? "rte_lpm6" : "rte_lpm";
    int bad = 0;
    for (int side = 0; side < (only ? 1 : 2); side++) {
        const struct result *x = side ? l : h;
        if (x->fast != x->pkts) {
            fprintf(stderr, "fwd_bench: %s burst %d, %s lookup: %llu of %llu on the fast path, %llu to the stack\n",
                    fam, b, side ? ref : "our", (unsigned long long)x->fast, (unsigned long long)x->pkts,
                    (unsigned long long)x->to_stack);
            bad = 1;
        }
    }
    if (!only && memcmp(h->per_port, l->per_port, sizeof(h->per_port)) != 0) {
        fprintf(stderr, "fwd_bench: %s burst %d: frames per port differ from %s's:", fam, b, ref);
        for (int p = 0; p < NPORTS; p++)
            fprintf(stderr, " eth%d %llu/%llu", p, (unsigned long long)h->per_port[p],
                    (unsigned long long)l->per_port[p]);
        fprintf(stderr, "\n");
        bad = 1;
    }
    return bad;
}

/* l3fwd's frames all out, TTL and MACs rewritten, and as many on each
 * port as ours. */
static int check_l3fwd(const struct result *h, const struct l3fwd_result *l)
{
    if (l->forwarded == l->pkts && l->bad == 0 && !memcmp(h->per_port, l->per_port, sizeof(h->per_port)))
        return 0;
    fprintf(stderr, "fwd_bench: IPv4 burst 32, DPDK l3fwd: %llu of %llu frames out, %llu badly rewritten; per port:",
            (unsigned long long)l->forwarded, (unsigned long long)l->pkts, (unsigned long long)l->bad);
    for (int p = 0; p < NPORTS; p++)
        fprintf(stderr, " eth%d %llu/%llu", p, (unsigned long long)h->per_port[p],
                (unsigned long long)l->per_port[p]);
    fprintf(stderr, "\n");
    return 1;
}

/* One family's rows (IPv6 with v6): both sides and every burst size
 * interleaved, medians of reps; for IPv4 bursts of 32 DPDK l3fwd is a
 * third side, in turn with them. Returns non-zero when a check failed. */
static int rows(struct rig *r, int v6, int only, uint64_t npkts)
{
    static double ns[4][4][64]; /* ours, rte_lpm's, l3fwd's, ours on pointer rings */
    struct result last[2][4], ringed = {0};
    struct l3fwd_result l3 = {0};
    const char *row = v6 ? "fwd6 62B" : "fwd 64B", *db = v6 ? "fwd6" : "fwd";
    const char *ref = only ? "" : v6 ? "rte_lpm6, same pipeline" : "rte_lpm, same pipeline";
    int bad = 0, sides = only ? 1 : 2, with_l3fwd = !v6 && l3fwd_wanted(only);
    for (int side = 0; side < sides; side++) /* warm up */
        fwd_bench_run(r, 32, side, v6, npkts / 4);
    struct l3fwd_feed feed = {r->tmpl, FRAME_LEN, r->tmpl_base, r->dst_be, NADDR, CHUNK};
    if (with_l3fwd)
        l3fwd_side_run(&feed, npkts / 4);
    for (int rep = 0; rep < reps; rep++)
        for (int bi = 0; bi < nbursts; bi++) {
            int n = sides + 2 * (with_l3fwd && bursts[bi] == 32);
            for (int k = 0; k < n; k++) {
                int side = (rep + bi + k) % n; /* turn about which side goes first */
                if (side == 2) {
                    l3 = l3fwd_side_run(&feed, npkts);
                    ns[2][bi][rep] = l3.ns_per_pkt;
                    continue;
                }
                if (side == 3) {
                    ringed = fwd_bench_run(r, 32, RINGS, 0, npkts);
                    ns[3][bi][rep] = ringed.ns_per_pkt;
                    continue;
                }
                last[side][bi] = fwd_bench_run(r, bursts[bi], side, v6, npkts);
                ns[side][bi][rep] = last[side][bi].ns_per_pkt;
            }
        }
    for (int bi = 0; bi < nbursts; bi++) {
        struct result *h = &last[0][bi];
        bad |= check(h, &last[1][bi], v6, bursts[bi], only);
        char name[128];
        double hn = bench_median(ns[0][bi], reps), ln = only ? 0 : bench_median(ns[1][bi], reps);
        snprintf(name, sizeof(name), "%s burst %d, full table%s", row, bursts[bi], tag);
        bench_emit(name, "ns/packet", hn, ref, ln);
        snprintf(name, sizeof(name), "%s burst %d, full table, rate%s", row, bursts[bi], tag);
        bench_emit(name, "Mpps/core", 1e3 / hn, ref, only ? 0 : 1e3 / ln);
        if (only)
            continue;
        if (with_l3fwd && bursts[bi] == 32) {
            const char *l3ref = "DPDK l3fwd (its lpm_main_loop, ring PMD ports), same run";
            double l3n = bench_median(ns[2][bi], reps);
            bad |= check_l3fwd(h, &l3);
            snprintf(name, sizeof(name), "%s burst 32, full table, hayate vs DPDK l3fwd%s", row, tag);
            bench_emit(name, "ns/packet", hn, l3ref, l3n);
            snprintf(name, sizeof(name), "%s burst 32, full table, rate, hayate vs DPDK l3fwd%s", row, tag);
            bench_emit(name, "Mpps/core", 1e3 / hn, l3ref, 1e3 / l3n);
            /* Like for like: our pipeline on pointer rings too, no driver work on either side */
            double rn = bench_median(ns[3][bi], reps);
            bad |= ringed.fast != ringed.pkts || memcmp(ringed.per_port, h->per_port, sizeof(h->per_port));
            snprintf(name, sizeof(name), "%s burst 32, full table, both on pointer rings, hayate vs DPDK l3fwd%s",
                     row, tag);
            bench_emit(name, "ns/packet", rn, l3ref, l3n);
        }
        double bound = v6 ? fwd_bench6_tx_bound(r, bursts[bi], h->pkts) : doorbell_bound(r, bursts[bi], h->pkts);
        snprintf(name, sizeof(name), "%s TX doorbells, burst %d", db, bursts[bi]);
        bench_emit(name, "per packet", (double)h->tx_doorbells / (double)h->pkts,
                   "bound: one per output port per burst", bound);
        if (v6) /* the same RX side as IPv4's */
            continue;
        snprintf(name, sizeof(name), "fwd RX doorbells, burst %d", bursts[bi]);
        bench_emit(name, "per packet", (double)h->rx_doorbells / (double)h->pkts, "one per burst",
                   1.0 / bursts[bi]);
    }
    return bad;
}

/* side beside OURS, bursts of 32, interleaved: ns a packet of each,
 * the last run of side. */
static struct result beside(struct rig *r, int side, uint64_t npkts, double *ns_side, double *ns_ours)
{
    double ns[2][64];
    struct result last[2];
    for (int rep = 0; rep < reps; rep++)
        for (int k = 0; k < 2; k++) {
            int which = (rep + k) & 1;
            last[which] = fwd_bench_run(r, 32, which ? side : OURS, 0, npkts);
            ns[which][rep] = last[which].ns_per_pkt;
        }
    *ns_side = bench_median(ns[1], reps);
    *ns_ours = bench_median(ns[0], reps);
    return last[1];
}

/* A capture of every frame sent (ring drained between chunks, what does
 * not fit counted) beside none. */
static int capture_rows(struct rig *r, uint64_t npkts)
{
    double on, off;
    struct result res = beside(r, CAPTURE, npkts, &on, &off);
    int bad = res.fast != res.pkts;
    char name[128];
    snprintf(name, sizeof(name), "fwd 64B burst 32, full table, capturing every frame%s", tag);
    bench_emit(name, "ns/packet", on, "no capture, same run", off);
    snprintf(name, sizeof(name), "capture: frames counted, not kept (ring %d, drained each %d)%s", CAP_RING, CHUNK,
             tag);
    bench_emit(name, "per packet", (double)res.cap_lost / (double)res.pkts, "", 0);
    return bad;
}

/* ECMP beside one path a prefix, bursts of 32, interleaved: every frame
 * on the fast path and every port used. */
static int ecmp_rows(struct rig *r, uint64_t npkts)
{
    double ns[2];
    struct result e = beside(r, ECMP, npkts, &ns[1], &ns[0]);
    int bad = e.fast != e.pkts;
    for (int p = 0; p < NPORTS; p++)
        bad |= e.per_port[p] < e.pkts / NPORTS / 2;
    if (bad)
        fprintf(stderr, "fwd_bench: ECMP: %llu of %llu on the fast path, or a port left out\n",
                (unsigned long long)e.fast, (unsigned long long)e.pkts);
    char name[128];
    snprintf(name, sizeof(name), "fwd 64B burst 32, full table, ECMP over 4 paths%s", tag);
    bench_emit(name, "ns/packet", ns[1], "one path a prefix, same run", ns[0]);
    return bad;
}

/* 50 access-list rules on eth0's input (the traffic matching the last)
 * beside none, bursts of 32, interleaved: every frame counted on the last
 * rule, none on another, and every frame forwarded on the fast path. */
static int acl_rows(struct rig *r, uint64_t npkts)
{
    double ns[2];
    struct result a = beside(r, ACL, npkts, &ns[1], &ns[0]);
    int bad = a.fast != a.pkts || a.acl_last != a.pkts || a.acl_other != 0;
    for (int p = 0; p < NPORTS; p++)
        bad |= a.per_port[p] < a.pkts / NPORTS / 2;
    if (bad)
        fprintf(stderr, "fwd_bench: ACL: %llu frames, %llu on the fast path, %llu on the last rule, %llu on "
                        "others, or a port left out\n",
                (unsigned long long)a.pkts, (unsigned long long)a.fast, (unsigned long long)a.acl_last,
                (unsigned long long)a.acl_other);
    char name[128];
    snprintf(name, sizeof(name), "fwd 64B burst 32, full table, %zu ACL rules on the input%s", fwd_acl_nrules, tag);
    bench_emit(name, "ns/packet", ns[1], "no access list, same run", ns[0]);
    return bad;
}

/* The pipeline with no lookup (NO_LOOKUP) beside ours, bursts of 32,
 * interleaved: what the lookup, its loads and its lines in the caches,
 * cost a forwarded frame. Every frame must be forwarded. */
static int floor_rows(struct rig *r, uint64_t npkts)
{
    double ns[2];
    struct result f = beside(r, NO_LOOKUP, npkts, &ns[1], &ns[0]);
    int bad = f.fast != f.pkts;
    if (bad)
        fprintf(stderr, "fwd_bench: no lookup: %llu of %llu on the fast path\n", (unsigned long long)f.fast,
                (unsigned long long)f.pkts);
    char name[128];
    snprintf(name, sizeof(name), "fwd 64B burst 32, next hop from a hash, no lookup (the pipeline's floor)%s", tag);
    bench_emit(name, "ns/packet", ns[1], "with our lookup, full table, same run", ns[0]);
    return bad;
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    uint64_t npkts = 1u << 22;
    int only = 0, v4 = 1, v6 = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--huge"))
            bench_huge = 1;
        else if (!strcmp(argv[i], "--burst") && i + 1 < argc) /* one size only */
            bursts[0] = atoi(argv[++i]), nbursts = 1;
        else if (!strcmp(argv[i], "--hayate-only"))
            only = 1;
        else if (!strcmp(argv[i], "--v4-only"))
            v6 = 0;
        else if (!strcmp(argv[i], "--v6-only"))
            v4 = 0;
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
            tag = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only_rows = argv[++i], v6 = 0;
        else if (!strcmp(argv[i], "--max-len") && i + 1 < argc)
            max_len = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--in-prefixes") && i + 1 < argc)
            in_prefixes = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--packets") && i + 1 < argc)
            npkts = strtoull(argv[++i], NULL, 0);
        else
            dir = argv[i];
    }
    if (dir == NULL || reps < 1 || reps > 64 || npkts < CHUNK || npkts > NADDR || bursts[0] < 1 ||
        bursts[0] > 256 || CHUNK % bursts[0] || !(v4 || v6) || max_len < 8 || max_len > 32 ||
        !(wanted("bursts") || wanted("ecmp") || wanted("capture") || wanted("floor") || wanted("acl") ||
          wanted("scale"))) {
        fprintf(stderr, "usage: fwd_bench DATA_DIR [--reps N] [--huge] [--packets N] [--burst N] "
                        "[--hayate-only] [--v4-only | --v6-only] [--max-len N] [--in-prefixes K] "
                        "[--tag TEXT] [--only bursts|ecmp|capture|floor|acl|scale]\n");
        return 2;
    }
    static char len_tag[64];
    if (max_len < 32 && !*tag)
        snprintf(len_tag, sizeof(len_tag), ", prefixes up to /%u", max_len), tag = len_tag;
    else if (in_prefixes && !*tag)
        snprintf(len_tag, sizeof(len_tag), ", traffic in %zu of its prefixes", in_prefixes), tag = len_tag;
    npkts = npkts / CHUNK * CHUNK;
    fwd_scale_note_cpus();
    char lcores[32];
    eal_lcore_here(lcores, sizeof(lcores));
    char *eal[] = {"fwd_bench", "--no-pci", "--no-shconf", "--log-level=error", "--lcores", lcores,
                   "-m", "1024", "--no-huge"};
    if (!only && rte_eal_init(bench_huge ? 6 : 9, eal) < 0) {
        fprintf(stderr, "fwd_bench: rte_eal_init: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    fprintf(stderr, "fwd_bench: %s pages for tables and buffers, both sides\n", bench_huge ? "2 MiB" : "4 KiB");
    static struct rig r;
    setup(&r, dir, only, v4);
    int bad = 0;
    if (v4) {
        if (wanted("bursts"))
            bad |= rows(&r, 0, only, npkts);
        if (wanted("ecmp"))
            bad |= ecmp_rows(&r, npkts);
        if (wanted("capture"))
            bad |= capture_rows(&r, npkts);
        if (wanted("floor"))
            bad |= floor_rows(&r, npkts);
        if (wanted("acl")) {
            fwd_acl_make(&r);
            bad |= acl_rows(&r, npkts);
            fwd_acl_bind(&r, OURS);
        }
        if (wanted("scale"))
            bad |= fwd_scale_rows(&r, reps, npkts, only, tag);
    }
    if (v6) {
        fwd_bench6_setup(&r, dir, only);
        bad |= rows(&r, 1, only, npkts);
        fwd_bench6_free(&r);
    }
    if (!only) {
        if (r.lpm)
            rte_lpm_free(r.lpm);
        if (v4 && l3fwd_wanted(only))
            l3fwd_side_free();
        rte_eal_cleanup();
    }
    return bad;
}
