/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_route6.c: the network service's IPv6 side.
 *
 * Configuration: `interface ethN address 2001:db8::1/64` gives a port its
 * IPv6 address (the on-link prefix follows from it; every port also has a
 * link-local address from its MAC); `route 2001:db8:2::/48 via
 * 2001:db8::2` and `routes FILE via 2001:db8::2` add routes through a
 * gateway on a port's prefix, as `route add` and `route del` do on the
 * console; `interface ethN ra` sends router advertisements there
 * (net/link/ra6.c). The route table is net/route/route6.h, written by core 0 while
 * every core looks up, and holds the connected prefixes too (gateway all
 * zero), so one longest match decides; next hops (port, gateway) are a
 * small table beside it (net/fwd/nexthop6.h), shared by every core's stack
 * (net_set_route6) and by each core's fast path (fwd_set_route6), each slot
 * counted by the routes through it and freed as IPv4's are (netsvc_route.c,
 * net/fwd/nexthop_ref.h). Transit IPv6 is forwarded on the core that received
 * it: in batches by net/fwd/fwd6.c, and what that leaves to the stack per
 * packet by net/ip/ip6.c. */
#include "netsvc_impl.h"

#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "lib/fmt.h"
#include "kernel/lib.h"
#include "kernel/mem/memmap.h"
#include "kernel/platform/multiboot.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "net/ip/ip.h"
#include "net/fwd/fwd.h"
#include "net/route/route.h"

static struct route6 *rt6;
static struct fwd_nh6_table nh6; /* gateway all zero: on-link (a connected prefix) */
static struct nexthop_ref nh6_refs;
static struct {
    bool set;
    bool ra;                    /* `interface ethN ra`: router advertisements */
    uint8_t plen;
    uint8_t addr[16];
} addr6[NET_MAX_PORTS];

bool netsvc6_port_has_addr(int port) { return port >= 0 && port < NET_MAX_PORTS && addr6[port].set; }

void netsvc6_stats(struct route_stats *st) { route6_stats(rt6, st); }
void netsvc6_set_paths(const struct route_cfg *cfg) { route6_set_paths(rt6, cfg); }

bool netsvc6_port_addr(int port, uint8_t addr[16], uint8_t *plen)
{
    if (!netsvc6_port_has_addr(port))
        return false;
    memcpy(addr, addr6[port].addr, 16);
    *plen = addr6[port].plen;
    return true;
}

/* "ADDRESS/LEN" with host bits allowed. */
static bool parse_ifaddr6(const char *s, uint8_t *a, unsigned *len)
{
    const char *slash = strchr(s, '/');
    unsigned long l;
    if (!slash || config_parse_u32(slash + 1, 128, &l) != 0)
        return false;
    *len = (unsigned)l;
    return route6_parse_addr(s, (size_t)(slash - s), a);
}

/* The next-hop index of (port, gw), made if new. */
static uint32_t nexthop6_on(int port, const uint8_t *gw, char *err, size_t errlen)
{
    uint32_t i = fwd_nh6_add(&nh6, (uint8_t)port, gw);
    if (!i)
        fmt_snprintf(err, errlen, "IPv6 next-hop table full");
    return i;
}

static uint32_t nexthop6_for(const uint8_t *gw, char *err, size_t errlen)
{
    int port = netsvc6_port_for_gateway(gw);
    if (port < 0) {
        fmt_snprintf(err, errlen, "no interface's prefix holds the gateway");
        return 0;
    }
    uint8_t net[16];
    ip6_prefix_of(gw, addr6[port].plen, net);
    if (memcmp(gw, addr6[port].addr, 16) == 0 || memcmp(gw, net, 16) == 0) {
        fmt_snprintf(err, errlen, "the gateway is %s's own address or its subnet-router anycast", netsvc_port_name(port));
        return 0;
    }
    return nexthop6_on(port, gw, err, errlen);
}

int netsvc6_interface(int port, const char *arg, char *err, size_t errlen)
{
    uint8_t a[16];
    unsigned len;
    if (!parse_ifaddr6(arg, a, &len) || len == 0 || len > 127 || ip6_is_mcast(a) || ip6_is_unspec(a) ||
        ip6_is_linklocal(a)) {
        fmt_snprintf(err, errlen, "bad address '%s' (a global or unique-local ADDRESS/LEN, LEN 1-127)", arg);
        return -1;
    }
    for (int q = 0; q < NET_MAX_PORTS; q++) /* as IPv4's (netsvc_route.c) */
        if (addr6[q].set && (q == port || (addr6[q].plen == len && ip6_prefix_eq(addr6[q].addr, a, len)))) {
            char had[48];
            fmt_ip6(had, sizeof had, addr6[q].addr);
            fmt_snprintf(err, errlen, "%s has %s/%u already (one IPv6 address a port, a subnet on one port)",
                         netsvc_port_name(q), had, addr6[q].plen);
            return -1;
        }
    addr6[port].set = true;
    addr6[port].plen = (uint8_t)len;
    memcpy(addr6[port].addr, a, 16);
    const uint8_t group[6] = {0x33, 0x33, 0xff, a[13], a[14], a[15]}; /* its solicited-node group (RFC 4291 2.7.1, RFC 2464 7) */
    netdev_join_group(netsvc_port_dev(port), group);
    /* The connected prefix, in the table with the routes: one longest
     * match decides (a more specific static route inside it wins). */
    static const uint8_t on_link[16];
    uint32_t nh = nexthop6_on(port, on_link, err, errlen);
    nexthop_ref_get(&nh6_refs, nh); /* held for good: the port keeps its address */
    uint8_t net[16];
    ip6_prefix_of(a, len, net);
    if (!nh || nexthop_ref_route6(&nh6_refs, rt6, net, len, nh) != ROUTE_OK) {
        if (nh)
            fmt_snprintf(err, errlen, "could not add the connected route");
        return -1;
    }
    return 0;
}

void netsvc6_ra(int port) { addr6[port].ra = true; }

static bool parse_gw(const char *s, uint8_t *gw, char *err, size_t errlen)
{
    if (!route6_parse_addr(s, strlen(s), gw) || ip6_is_mcast(gw) || ip6_is_unspec(gw)) {
        fmt_snprintf(err, errlen, "bad gateway '%s'", s);
        return false;
    }
    return true;
}

/* As netsvc_route.c's connected_refused: a port's on-link prefix is its own. */
static bool connected6_refused(const uint8_t *a, unsigned len, char *err, size_t errlen)
{
    for (int p = 0; p < NET_MAX_PORTS; p++)
        if (addr6[p].set && addr6[p].plen == len && ip6_prefix_eq(addr6[p].addr, a, len)) {
            fmt_snprintf(err, errlen, "that is %s's on-link prefix (its interface address makes it)",
                         netsvc_port_name(p));
            return true;
        }
    return false;
}

/* a/len through slot nh (0: its maker said why in err). */
static int route_to(const uint8_t *a, unsigned len, uint32_t nh, char *err, size_t errlen)
{
    if (!nh)
        return -1;
    int rc = nexthop_ref_route6(&nh6_refs, rt6, a, len, nh);
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", rc == ROUTE_ENOMEM ? "out of memory" : "could not add the route");
        return -1;
    }
    return 0;
}

static uint32_t path6(void *ctx, unsigned i, char *err, size_t errlen)
{
    return nexthop6_for(((const uint8_t(*)[16])ctx)[i], err, errlen);
}

static uint32_t group6(void *ctx, const uint32_t *paths, unsigned n, bool *made, unsigned *group)
{
    uint32_t g = fwd_nh6_group_add(&nh6, paths, n, made);
    *group = g ? nh6.e[g].gw[0] : NH_GROUP_MAX;
    return g;
}

/* As netsvc_route.c's nexthop_via: one gateway's slot, or the ECMP group
 * of theirs. */
static uint32_t nexthop6_via(const uint8_t (*gws)[16], unsigned n, char *err, size_t errlen)
{
    static const struct netsvc_via_ops ops = {path6, group6};
    unsigned group;
    uint32_t nh = netsvc_via(n, &ops, (void *)gws, &nh6_refs, &group, err, errlen);
    if (group < NH_GROUP_MAX)
        netsvc_paths_made(true, group);
    return nh;
}

int netsvc6_route(const char *prefix, const char *const *vias, unsigned n, char *err, size_t errlen)
{
    uint8_t a[16], gws[NH_GROUP_PATHS][16];
    unsigned len;
    if (!route6_parse(prefix, strlen(prefix), a, &len)) {
        fmt_snprintf(err, errlen, "bad prefix '%s' (host bits must be zero)", prefix);
        return -1;
    }
    for (unsigned i = 0; i < n && i < NH_GROUP_PATHS; i++)
        if (!parse_gw(vias[i], gws[i], err, errlen))
            return -1;
    if (connected6_refused(a, len, err, errlen))
        return -1;
    return route_to(a, len, nexthop6_via((const uint8_t(*)[16])gws, n, err, errlen), err, errlen);
}

int netsvc6_port_for_gateway(const uint8_t *gw)
{
    int port = -1; /* the longest prefix if they nest, as netsvc_route.c's port_for_gateway */
    for (int p = 0; p < NET_MAX_PORTS; p++)
        if (addr6[p].set && ip6_prefix_eq(addr6[p].addr, gw, addr6[p].plen) &&
            (port < 0 || addr6[p].plen > addr6[port].plen))
            port = p;
    return port;
}

int netsvc6_route_set(const uint8_t *a, unsigned len, const uint8_t *gw, int port, char *err, size_t errlen)
{
    if (connected6_refused(a, len, err, errlen))
        return -1;
    return route_to(a, len, port >= 0 ? nexthop6_on(port, gw, err, errlen) : nexthop6_for(gw, err, errlen), err,
                    errlen);
}

int netsvc6_route_set_via(const uint8_t *a, unsigned len, const uint8_t (*gws)[16], unsigned n, char *err,
                          size_t errlen)
{
    if (connected6_refused(a, len, err, errlen))
        return -1;
    return route_to(a, len, nexthop6_via(gws, n, err, errlen), err, errlen);
}

int netsvc6_route_unset(const uint8_t *a, unsigned len, char *err, size_t errlen)
{
    if (connected6_refused(a, len, err, errlen))
        return -1;
    int rc = nexthop_ref_route6(&nh6_refs, rt6, a, len, ROUTE_NH_NONE);
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", rc == ROUTE_ENOENT ? "no such route" : "could not delete the route");
        return -1;
    }
    return 0;
}

int netsvc6_route_del(const char *prefix, char *err, size_t errlen)
{
    uint8_t a[16];
    unsigned len;
    if (!route6_parse(prefix, strlen(prefix), a, &len)) {
        fmt_snprintf(err, errlen, "bad prefix '%s' (host bits must be zero)", prefix);
        return -1;
    }
    return netsvc6_route_unset(a, len, err, errlen);
}

int netsvc6_defer(bool on) { return route6_defer(rt6, on); }
uint32_t netsvc6_deferred(void) { return route6_deferred(rt6); }

struct netsvc6_mark netsvc6_reclaim_mark(void)
{
    return (struct netsvc6_mark){route6_epoch(rt6), nexthop_ref_seal(&nh6_refs)};
}

static bool group_freed;

/* As netsvc_route.c's nh_free: a group lets go of its paths. */
static void nh6_free(void *ctx, uint32_t idx)
{
    if (nh6.e[idx].port == FWD_NH6_GROUP) {
        const struct nh_group *g = &nh6.groups.g[nh6.e[idx].gw[0] % NH_GROUP_MAX];
        for (unsigned i = 0; i < g->n; i++)
            nexthop_ref_put(&nh6_refs, g->path[i]);
        group_freed = true;
    }
    fwd_nh6_del(ctx, idx);
}

bool netsvc6_reclaim(struct netsvc6_mark m)
{
    group_freed = false;
    route6_reclaim(rt6, m.route_epoch);
    nexthop_ref_reclaim(&nh6_refs, m.nh_stamp, nh6_free, &nh6);
    return group_freed;
}

struct fwd_nh6_table *netsvc6_nexthops(void) { return &nh6; }

int netsvc6_routes(const char *file, const char *via, char *err, size_t errlen)
{
    uint8_t gw[16];
    if (!parse_gw(via, gw, err, errlen))
        return -1;
    const struct boot_module *m = multiboot_module(file);
    if (!m) {
        fmt_snprintf(err, errlen, "no module '%s' (tools/mkiso CONFIG OUT.iso FILE)", file);
        return -1;
    }
    uint32_t nh = nexthop6_for(gw, err, errlen);
    if (!nh)
        return -1;
    struct route_load_stats st = {0};
    uint64_t t0 = time_now_ns();
    nexthop_ref_get(&nh6_refs, nh); /* for the load: a file with no prefix leaves it unused, to free */
    int rc = route6_load_text(rt6, phys_to_virt(m->start), m->end - m->start, nh, &st, nexthop_ref_set, &nh6_refs);
    nexthop_ref_load_end(&nh6_refs, st.published);
    nexthop_ref_put(&nh6_refs, nh);
    kprintf("routes: %s: %u IPv6 prefixes from %u lines in %lu ms, %u bad lines%s\n", file, st.added, st.lines,
            (time_now_ns() - t0) / 1000000, st.bad, st.bad ? " (skipped)" : "");
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "could not load the routes");
        return -1;
    }
    return 0;
}

/* net_route6_fn: the longest match's port and gateway; of an ECMP group,
 * the path the fast path takes for the same flow. The entry is read in the
 * same pass as the lookup that gave its index (nexthop6.h). */
static bool lookup(void *ctx, const uint8_t *dst, const uint8_t *hdr, uint16_t *port, uint8_t *gw)
{
    const struct fwd_nh6 *nh = fwd_nh6_get(&nh6, route6_lookup(rt6, dst));
    if (nh && nh->port == FWD_NH6_GROUP)
        nh = fwd_nh6_get(&nh6, fwd_nh6_pick(&nh6, nh, hdr ? nh_flow_hash6(hdr) : nh_flow_hash_dst(dst, 16)));
    if (nh == NULL)
        return false;
    *port = nh->port;
    memcpy(gw, nh->gw, 16);
    return true;
}

bool netsvc6_route_of(const uint8_t *dst, uint8_t *prefix, unsigned *len, uint16_t *port, uint8_t *gw, int *group)
{
    const struct fwd_nh6 *nh = fwd_nh6_get(&nh6, route6_match(rt6, dst, len));
    *group = nh && nh->port == FWD_NH6_GROUP ? nh->gw[0] : -1;
    if (*group >= 0)
        nh = fwd_nh6_get(&nh6, fwd_nh6_pick(&nh6, nh, nh_flow_hash_dst(dst, 16)));
    if (nh == NULL)
        return false;
    *port = nh->port;
    memcpy(gw, nh->gw, 16);
    ip6_prefix_of(dst, *len, prefix);
    return true;
}

void netsvc6_core_setup(struct netsvc_core *rc)
{
    bool any = false;
    for (int p = 0; p < NET_MAX_PORTS; p++) {
        struct net_iface *ifc = net_iface_get(&rc->stack, (uint16_t)p);
        if (addr6[p].ra && !addr6[p].set && rc->cpu == 0)
            kprintf("router: eth%d has no IPv6 address: no router advertisements\n", p);
        if (!addr6[p].set || ifc == NULL)
            continue;
        net_iface_set_addr6(&rc->stack, (uint16_t)p, addr6[p].addr, addr6[p].plen);
        if (addr6[p].ra) /* every core answers solicitations; core 0 advertises unasked */
            ra6_enable(&rc->stack, ifc, rc->cpu == 0, time_now_ns());
        any = true;
    }
    if (any) { /* IPv6 forwarding only where it is configured */
        net_set_route6(&rc->stack, lookup, NULL);
        fwd_set_route6(&rc->fwd, rt6, &nh6);
        fwd_sync(&rc->fwd, &rc->stack);
    }
}

void netsvc6_init(const struct route_cfg *cfg)
{
    rt6 = route6_create(cfg);
    if (!rt6)
        panic("router: no memory for the IPv6 route table");
    fwd_nh6_init(&nh6);
    nexthop_ref_init(&nh6_refs, FWD_NH6_MAX);
}
