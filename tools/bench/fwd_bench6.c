/* SPDX-License-Identifier: MIT */
/* tools/bench/fwd_bench6.c: the IPv6 half of the forwarding benchmark
 * (fwd_bench.c has the rig, the runs and the rows): net/fwd/fwd6.c's fast path
 * with our route6 table, beside the same pipeline looking up in DPDK
 * rte_lpm6 (fwd_set_lookup6).
 *
 * The rig's four ports get 2001:db8:0:P::1/64 and four gateways each,
 * 2001:db8:0:P::2 to ::5, with the same MACs as the IPv4 gateways; next
 * hop 1 + 4P + G is gateway G on port P. Every prefix of rib-v6-2024 goes
 * to one of the 16 by a hash of the prefix, in both tables. The gateways
 * are put in the neighbour cache before each run the way a neighbour
 * would: a solicitation for our address carrying its link-layer address
 * (RFC 4861 7.2.3), then a solicited advertisement (7.2.5), which leaves
 * the entry REACHABLE so that nothing probes it during the run.
 *
 * Frames are Ethernet + IPv6 + UDP, 62 bytes (no padding: over the
 * 60-byte minimum), from 2001:2::1 (RFC 5180's benchmarking prefix) to
 * random addresses inside random table prefixes (route_load.c's array).
 * Their UDP checksum is left zero: forwarding does not read it. What the
 * fast path leaves to the stack, the stack forwards with the same table
 * (net_set_route6, as apps/router6.c sets it), so it still leaves by
 * the right port; fwd_bench.c's check counts it as a failure all the same.
 *
 * The prefixes, the addresses and the rte_lpm6 build come from
 * route_load.c, as route_bench's do. */
#include <arpa/inet.h>
#include <rte_lpm6.h>

#include "net/ip/ip6.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/fwd_bench.h"
#include "tools/bench/route_load.h"

/* 2001:db8:0:port::host */
static void port_addr6(uint8_t *a, int port, int host)
{
    const uint8_t addr[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, (uint8_t)port, [15] = (uint8_t)host};
    memcpy(a, addr, 16);
}

/* The stack's route for what the fast path leaves to it (net_set_route6),
 * from the same table and next hops, as apps/router6.c does. */
static bool route6_hook(void *ctx, const uint8_t *dst, const uint8_t *hdr, uint16_t *port, uint8_t *gw)
{
    const struct rig *r = ctx;
    const struct fwd_nh6 *nh = fwd_nh6_get(&r->nh6, route6_lookup(r->rt6, dst));
    if (nh == NULL)
        return false;
    *port = nh->port;
    memcpy(gw, nh->gw, 16);
    return true;
}

/* rte_lpm6 answers a signed next hop, -1 for a miss: ours is 0. The two
 * arrays are the same size, and signed and unsigned may alias. */
static void lpm6_lookup(void *ctx, const uint8_t (*addr)[16], uint32_t *nh, uint32_t n)
{
    int32_t *hop = (int32_t *)nh;
    rte_lpm6_lookup_bulk_func(ctx, (uint8_t(*)[RTE_LPM6_IPV6_ADDR_SIZE])addr, hop, n);
    for (uint32_t i = 0; i < n; i++)
        nh[i] = hop[i] < 0 ? 0 : (uint32_t)hop[i];
}

/* Every prefix to next hop 1 + hash % NNH, then into both tables. */
static void load_tables6(struct rig *r, struct route6_prefix *p, size_t n, int only)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t hi, lo;
        memcpy(&hi, p[i].addr, 8);
        memcpy(&lo, p[i].addr + 8, 8);
        p[i].nh = 1 + (uint32_t)((((hi ^ lo) + p[i].len) * 0x9e3779b97f4a7c15ull) >> 40) % NNH;
    }
    double secs;
    r->rt6 = load_v6(p, n, &secs);
    fprintf(stderr, "fwd_bench: v6: %zu prefixes over %d next hops in %.2f s\n", n, NNH, secs);
    if (!only)
        r->lpm6 = load_lpm6(p, n, &secs);
}

/* An Ethernet + IPv6 + UDP frame from 2001:2::1 to eth0, its destination
 * left for the device to fill. */
static void make_template6(struct rig *r)
{
    uint8_t *f = r->tmpl6;
    memset(f, 0, FRAME6_LEN);
    memcpy(f, r->nic[0].dev.mac, 6);
    fwd_bench_mac(f + 6, 0, 0x77);
    f[12] = 0x86, f[13] = 0xdd;
    struct ip6_hdr h = {.vtf_be = htonl(6u << 28), .plen_be = htons(UDP_HDR_LEN), .next = IP4_PROTO_UDP,
                        .hlim = 64, .src = {0x20, 0x01, 0, 0x02, [15] = 1}};
    memcpy(f + 14, &h, sizeof(h));
    uint16_t udp[4] = {htons(1024), htons(9), htons(UDP_HDR_LEN), 0};
    memcpy(f + 14 + IP6_HDR_LEN, udp, sizeof(udp));
}

void fwd_bench6_setup(struct rig *r, const char *dir, int only)
{
    char path[4096];
    size_t n;
    snprintf(path, sizeof(path), "%s/rib-v6-2024.txt.gz", dir);
    struct route6_prefix *p = read_v6(path, &n);
    if (p == NULL) {
        fprintf(stderr, "fwd_bench: cannot read %s\n", path);
        exit(1);
    }
    fwd_nh6_init(&r->nh6);
    for (int port = 0; port < NPORTS; port++) {
        uint8_t a[16];
        port_addr6(a, port, 1);
        if (net_iface_set_addr6(r->s, (uint16_t)port, a, 64) != 0) {
            fprintf(stderr, "fwd_bench: net_iface_set_addr6 eth%d failed\n", port);
            exit(1);
        }
        for (int g = 0; g < GW_PER_PORT; g++) {
            uint8_t gw[16];
            port_addr6(gw, port, 2 + g);
            fwd_nh6_set(&r->nh6, (uint32_t)(1 + port * GW_PER_PORT + g), (uint8_t)port, gw);
        }
    }
    load_tables6(r, p, n, only);
    uint8_t(*uni)[16] = malloc(NADDR6 * 16);
    r->dst6 = malloc(NADDR6 * 16);
    v6_addresses(p, n, uni, r->dst6);
    free(uni);
    free(p);
    net_set_route6(r->s, route6_hook, r);
    fwd_set_route6(r->f, r->rt6, &r->nh6);
    fwd_sync(r->f, r->s);
    make_template6(r);
}

void fwd_bench6_free(struct rig *r)
{
    route6_destroy(r->rt6);
    if (r->lpm6)
        rte_lpm6_free(r->lpm6);
    free(r->dst6);
}

/* Gateway g on port sends a neighbour solicitation (ND6_NS) for our
 * address with its link-layer address, or a solicited advertisement
 * (ND6_NA) for its own with its link-layer address, to our address; the
 * stack takes it (and answers the solicitation). */
static void from_gateway(struct rig *r, int port, int g, uint8_t type, uint64_t now_ns)
{
    uint8_t f[14 + IP6_HDR_LEN + 32] = {0}, mac[6], *m = f + 14 + IP6_HDR_LEN;
    struct ip6_hdr h = {.vtf_be = htonl(6u << 28), .plen_be = htons(32), .next = IP6_PROTO_ICMP6, .hlim = 255};
    port_addr6(h.src, port, 2 + g);
    port_addr6(h.dst, port, 1);
    fwd_bench_mac(mac, port, 2 + g);
    memcpy(f, r->nic[port].dev.mac, 6);
    memcpy(f + 6, mac, 6);
    f[12] = 0x86, f[13] = 0xdd;
    memcpy(f + 14, &h, sizeof(h));
    m[0] = type;
    if (type == ND6_NA)
        m[4] = ND6_NA_SOLICITED | ND6_NA_OVERRIDE;
    memcpy(m + 8, type == ND6_NS ? h.dst : h.src, 16); /* the target */
    m[24] = type == ND6_NS ? ND6_OPT_SLLA : ND6_OPT_TLLA;
    m[25] = 1; /* 8 bytes */
    memcpy(m + 26, mac, 6);
    uint16_t c = ip6_l4_csum(h.src, h.dst, IP6_PROTO_ICMP6, m, 32);
    memcpy(m + 2, &c, 2);
    nic_receive_frame(&r->nic[port], f, sizeof(f));
    struct pkt *pk[4];
    uint16_t k = netdev_rx_burst(&r->nic[port].dev, 0, pk, 4);
    net_input(r->s, pk, k, now_ns);
}

void fwd_bench6_prepare(struct rig *r, int lpm, uint64_t now_ns)
{
    fwd_set_lookup6(r->f, lpm ? lpm6_lookup : NULL, r->lpm6);
    for (int p = 0; p < NPORTS; p++)
        for (int g = 0; g < GW_PER_PORT; g++) {
            from_gateway(r, p, g, ND6_NS, now_ns);
            from_gateway(r, p, g, ND6_NA, now_ns);
        }
    net_flush(r->s);
    for (int p = 0; p < NPORTS; p++)
        nic_transmit(&r->nic[p]);
}

uint32_t fwd_bench6_receive(struct rig *r, uint64_t pos, uint32_t max)
{
    uint32_t at = (uint32_t)(pos % NADDR6);
    if (max > NADDR6 - at)
        max = NADDR6 - at;
    return nic_receive6(&r->nic[0], r->tmpl6, FRAME6_LEN, r->dst6 + at, max);
}

double fwd_bench6_tx_bound(struct rig *r, int b, uint64_t npkts)
{
    uint32_t nh[256];
    uint64_t ports = 0;
    for (uint64_t i = 0; i < npkts; i += (uint64_t)b) { /* b divides NADDR6: no burst wraps */
        route6_lookup_burst(r->rt6, (const uint8_t(*)[16])(r->dst6 + i % NADDR6), nh, (size_t)b);
        uint32_t seen = 0;
        for (int k = 0; k < b; k++)
            seen |= 1u << (nh[k] && nh[k] <= NNH ? r->nh6.e[nh[k]].port : 0);
        ports += (uint64_t)__builtin_popcount(seen);
    }
    return (double)ports / (double)npkts;
}
