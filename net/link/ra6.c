/* SPDX-License-Identifier: MIT */
/* net/link/ra6.c: router advertisements and the answer to solicitations (RFC
 * 4861 sections 4.1, 4.2, 6.1.1, 6.2; net/link/ra6.h). */
#include "ra6.h"

#include "core/env.h"
#include "eth.h"
#include "ip/ip6.h"
#include "nd6.h"
#include "net.h"
#include "core/wire.h"

#define RA_HDR 16               /* type to retransmission timer */
#define RA_LEN (RA_HDR + 8 + 8 + 32) /* and the link-layer, MTU and prefix options */

static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};

/* Up to span ns, from the clock: routers of one link drift apart (6.2.4). */
static uint64_t jitter(uint64_t now_ns, uint64_t span)
{
    return ((now_ns * 0x9e3779b97f4a7c15ull) >> 16) % span;
}

static void put32(uint8_t *p, uint32_t v)
{
    uint32_t be = net_htonl(v);
    net_memcpy(p, &be, 4);
}

/* From our link-local address (6.1.2), to dst at mac: we are a default
 * router for RA6_LIFETIME_S; the port's MTU; its prefix, on-link, and
 * for SLAAC when it is a /64 (RFC 4862 5.5.3). */
static void send_ra(struct net_stack *s, struct net_iface *ifc, const uint8_t *dst, const uint8_t *mac)
{
    uint8_t m[RA_LEN] = {ND6_RA, 0, 0, 0, IP6_DEFAULT_HLIM, 0, RA6_LIFETIME_S >> 8, RA6_LIFETIME_S & 0xff};
    uint8_t *o = m + RA_HDR; /* (reachable time and retransmission timer: 0, unspecified) */
    o[0] = ND6_OPT_SLLA;
    o[1] = 1;
    net_memcpy(o + 2, ifc->dev->mac, ETH_ALEN);
    o += 8;
    o[0] = ND6_OPT_MTU;
    o[1] = 1;
    put32(o + 4, ifc->mtu);
    o += 8;
    if (ifc->has6) {
        o[0] = ND6_OPT_PREFIX;
        o[1] = 4;
        o[2] = ifc->plen6;
        o[3] = (uint8_t)(0x80 | (ifc->plen6 == 64 ? 0x40 : 0)); /* L, and A */
        put32(o + 4, RA6_VALID_S);
        put32(o + 8, RA6_PREFERRED_S);
        ip6_prefix_of(ifc->addr6, ifc->plen6, o + 16);
        o += 32;
    }
    s->ctr.nd6_tx_ra++;
    nd6_send(s, ifc, ifc->ll6, dst, mac, m, (uint32_t)(o - m));
}

static void send_to_all(struct net_stack *s, struct net_iface *ifc, uint64_t now_ns)
{
    uint8_t gmac[ETH_ALEN];
    nd6_mcast_mac(all_nodes, gmac);
    send_ra(s, ifc, all_nodes, gmac);
    ifc->ra.last_mcast_ns = now_ns;
}

void ra6_enable(struct net_stack *s, struct net_iface *ifc, bool periodic, uint64_t now_ns)
{
    ifc->ra = (struct ra6_state){.on = true, .periodic = periodic, .initial_left = RA6_INITIAL_COUNT};
    if (periodic) {
        ifc->ra.next_ns = now_ns + jitter(now_ns, 1000000000ull);
        net_timer_at(s, ifc->ra.next_ns);
    }
}

void ra6_input(struct net_stack *s, struct net_iface *ifc, const uint8_t src[16], uint8_t hlim,
               const uint8_t *icmp, uint32_t len, uint64_t now_ns)
{
    uint8_t mac[ETH_ALEN];
    bool bad = false;
    s->ctr.nd6_rx_rs++;
    /* 6.1.1: from a neighbour, code 0, 8 bytes at least, good options, and
     * no link-layer address from the unspecified address. */
    bool lla = len >= 8 && nd6_find_lla(icmp + 8, len - 8, ND6_OPT_SLLA, mac, &bad);
    if (hlim != 255 || icmp[1] != 0 || len < 8 || bad || (lla && (ip6_is_unspec(src) || eth_is_mcast(mac)))) {
        s->ctr.nd6_bad++;
        return;
    }
    if (!ifc->ra.on)
        return;
    if (lla) { /* 6.2.6: straight to the host that asked */
        send_ra(s, ifc, src, mac);
        return;
    }
    /* To all nodes, but not more often than every 3 s: later, if needed. */
    if (now_ns - ifc->ra.last_mcast_ns >= RA6_MIN_GAP_NS || ifc->ra.last_mcast_ns == 0) {
        send_to_all(s, ifc, now_ns);
    } else if (ifc->ra.periodic && ifc->ra.next_ns > ifc->ra.last_mcast_ns + RA6_MIN_GAP_NS) {
        ifc->ra.next_ns = ifc->ra.last_mcast_ns + RA6_MIN_GAP_NS;
        net_timer_at(s, ifc->ra.next_ns);
    }
}

uint64_t ra6_timer(struct net_stack *s, struct net_iface *ifc, uint64_t now_ns)
{
    if (!ifc->ra.periodic)
        return UINT64_MAX;
    if (now_ns >= ifc->ra.next_ns) {
        send_to_all(s, ifc, now_ns);
        /* 6.2.4: uniformly between the two intervals; the first few no
         * more than 16 s apart. */
        uint64_t gap = RA6_MIN_INTERVAL_NS + jitter(now_ns, RA6_MAX_INTERVAL_NS - RA6_MIN_INTERVAL_NS);
        if (ifc->ra.initial_left) {
            ifc->ra.initial_left--;
            if (gap > RA6_INITIAL_INTERVAL_NS)
                gap = RA6_INITIAL_INTERVAL_NS;
        }
        ifc->ra.next_ns = now_ns + gap;
    }
    return ifc->ra.next_ns;
}
