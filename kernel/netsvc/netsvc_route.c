/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_route.c: IPv4 interfaces and routes, and the
 * reclamation of what route changes unlink (the IPv6 side is
 * netsvc_route6.c).
 *
 * Configuration: `interface ethN address A.B.C.D/LEN` gives a port its
 * address and a connected route (`interface ethN ra|mtu N|vlan ID` its
 * other settings); `route P/L via G` and `routes FILE via G` add routes
 * whose next hop is the gateway G on the port whose subnet holds it; the
 * console's `route add` and `route del` do the same at run time.
 *
 * Nothing is shared between cores but the route and next-hop tables,
 * which only core 0 writes; memory those updates unlink is freed once
 * every core has passed a quiescent point (kernel/loop.h), and so is a
 * next hop once no route points at it (net/fwd/nexthop_ref.h: every route
 * through a slot is counted, however it was added). */
#include "netsvc_impl.h"

#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/mem/heap.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/mem/memmap.h"
#include "kernel/platform/multiboot.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "lib/fmt.h"
#include "net/fwd/fwd.h"

#define RECLAIM_PERIOD_NS 10000000ull
#define NETSVC_MTU_MIN 576 /* RFC 791: what every host takes whole (IPv6 wants 1280) */

static struct nexthop_ref nh_refs; /* routes through each of netsvc.nht's slots */

static struct {
    uint64_t route_epoch, nh_stamp, loop_epoch;
    struct netsvc6_mark v6;
    bool pending, again;
} reclaim;
static struct loop_timer reclaim_timer;


/* Route-table memory: rounded to 64 bytes both ways, so a block's size
 * class (and with it its natural alignment) is the same at free time. */
static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }
static void *rt_alloc(void *ctx, size_t size, size_t align) { return heap_alloc(round64(size)); }
static void rt_free(void *ctx, void *p, size_t size) { heap_free(p, round64(size)); }

int netsvc_port_for_gateway(uint32_t gw_be)
{
    int best = -1;
    for (int p = 0; p < NET_MAX_PORTS; p++) {
        uint8_t len = netsvc.addr[p].prefix_len;
        if (!netsvc.addr[p].addr_be || len == 0 || (best >= 0 && len <= netsvc.addr[best].prefix_len))
            continue;
        uint32_t mask = net_htonl(~(0xffffffffu >> len));
        if (((gw_be ^ netsvc.addr[p].addr_be) & mask) == 0)
            best = p;
    }
    return best;
}

/* The port whose connected subnet is addr/len (host order), or -1: the
 * console's routes leave those to the interface's address. */
static int connected_port(uint32_t addr, unsigned len)
{
    for (int p = 0; p < NET_MAX_PORTS; p++)
        if (netsvc.addr[p].addr_be && netsvc.addr[p].prefix_len == len &&
            (net_ntohl(netsvc.addr[p].addr_be) & ~(0xffffffffu >> len)) == addr)
            return p;
    return -1;
}

/* A next hop via gw_be, shared by every route through it. */
static uint32_t nexthop_for(uint32_t gw_be, char *err, size_t errlen)
{
    int port = netsvc_port_for_gateway(gw_be);
    if (port < 0) {
        fmt_snprintf(err, errlen, "no interface's subnet holds the gateway");
        return 0;
    }
    uint32_t all = 0xffffffffu >> netsvc.addr[port].prefix_len, host = net_ntohl(gw_be) & all;
    if (gw_be == netsvc.addr[port].addr_be || host == 0 || host == all) {
        fmt_snprintf(err, errlen, "the gateway is %s's own address, or its subnet's network or broadcast address",
                     netsvc_port_name(port));
        return 0;
    }
    for (uint32_t i = 1; i < netsvc.nht.used; i++) {
        struct nexthop nh = nexthop_get(&netsvc.nht, i);
        if (nh.kind == NEXTHOP_VIA && nh.gw_be == gw_be && nh.port == port)
            return i;
    }
    struct nexthop nh = {.kind = NEXTHOP_VIA, .port = (uint8_t)port, .gw_be = gw_be};
    uint32_t idx = nexthop_add(&netsvc.nht, &nh);
    if (!idx)
        fmt_snprintf(err, errlen, "next-hop table full");
    return idx;
}

uint32_t netsvc_via(unsigned n, const struct netsvc_via_ops *ops, void *ctx, struct nexthop_ref *refs,
                    unsigned *group, char *err, size_t errlen)
{
    *group = NH_GROUP_MAX;
    if (n == 1)
        return ops->path(ctx, 0, err, errlen);
    uint32_t paths[NH_GROUP_PATHS];
    unsigned made_paths = 0;
    for (; made_paths < n; made_paths++) {
        paths[made_paths] = ops->path(ctx, made_paths, err, errlen);
        for (unsigned j = 0; paths[made_paths] && j < made_paths; j++)
            if (paths[j] == paths[made_paths]) {
                fmt_snprintf(err, errlen, "a gateway given twice");
                paths[made_paths] = 0;
            }
        if (!paths[made_paths])
            break;
    }
    bool made = false;
    uint32_t g = made_paths == n ? ops->group(ctx, paths, n, &made, group) : 0;
    if (made_paths == n && !g)
        fmt_snprintf(err, errlen, "no room for another ECMP group");
    for (unsigned i = 0; i < made_paths; i++) {
        if (made)
            nexthop_ref_get(refs, paths[i]); /* the group's */
        nexthop_ref_get(refs, paths[i]);     /* and a path made for nothing waits to be freed */
        nexthop_ref_put(refs, paths[i]);
    }
    if (!made)
        *group = NH_GROUP_MAX;
    return g;
}

static uint32_t path4(void *ctx, unsigned i, char *err, size_t errlen)
{
    return nexthop_for(((const uint32_t *)ctx)[i], err, errlen);
}

static uint32_t group4(void *ctx, const uint32_t *paths, unsigned n, bool *made, unsigned *group)
{
    uint32_t g = nexthop_group_add(&netsvc.nht, paths, n, made);
    *group = g ? nexthop_get(&netsvc.nht, g).gw_be : NH_GROUP_MAX;
    return g;
}

/* The next hop of a route via gws_be[0..n): the gateway's slot, or the
 * ECMP group of theirs. */
static uint32_t nexthop_via(const uint32_t *gws_be, unsigned n, char *err, size_t errlen)
{
    static const struct netsvc_via_ops ops = {path4, group4};
    unsigned group;
    uint32_t nh = netsvc_via(n, &ops, (void *)gws_be, &nh_refs, &group, err, errlen);
    if (group < NH_GROUP_MAX)
        netsvc_paths_made(false, group);
    return nh;
}

/* After every change to the routes: what it unlinked, route-table memory
 * and next hops left with no route, is freed once every core has passed a
 * quiescent point from here on. */
static void schedule_reclaim(void)
{
    reclaim.route_epoch = route4_epoch(netsvc.rt4);
    reclaim.nh_stamp = nexthop_ref_seal(&nh_refs);
    reclaim.v6 = netsvc6_reclaim_mark();
    reclaim.loop_epoch = loop_quiescent_epoch();
    reclaim.pending = true;
}

/* A slot no core can reach: an ECMP group lets go of its paths, which
 * are freed in a later pass once nothing else holds them. */
static void nh_free(void *ctx, uint32_t idx)
{
    struct nexthop e = nexthop_get(&netsvc.nht, idx);
    if (e.kind == NEXTHOP_GROUP) {
        const struct nh_group *g = &netsvc.nht.groups.g[e.gw_be];
        for (unsigned i = 0; i < g->n; i++)
            nexthop_ref_put(&nh_refs, g->path[i]);
        reclaim.again = true;
    }
    nexthop_del(ctx, idx);
}

void netsvc_reclaim(uint64_t now_ns)
{
    /* While lookups lag behind deferred changes (netsvc_route_defer), the
     * next hops they still return may have no route left in the RIB:
     * none is freed until the rebuild has been published (which seals
     * again). */
    if (reclaim.pending && netsvc_route_deferred() == 0 && loop_quiescent_since(reclaim.loop_epoch)) {
        route4_reclaim(netsvc.rt4, reclaim.route_epoch);
        nexthop_ref_reclaim(&nh_refs, reclaim.nh_stamp, nh_free, &netsvc.nht);
        reclaim.again |= netsvc6_reclaim(reclaim.v6);
        reclaim.pending = false;
        if (reclaim.again) { /* the paths of groups freed just now */
            reclaim.again = false;
            schedule_reclaim();
        }
    }
}

static void reclaim_tick(void *arg, uint64_t now_ns)
{
    netsvc_reclaim(now_ns);
    loop_timer_arm(&reclaim_timer, now_ns + RECLAIM_PERIOD_NS);
}

static const char *route_error(int rc)
{
    return rc == ROUTE_ENOMEM ? "out of memory" : rc == ROUTE_EINVAL ? "bad prefix (host bits set?)"
           : rc == ROUTE_ENOENT ? "no such route" : "failed";
}

/* A connected subnet is the interface's: a static route there would take
 * its on-link hosts away, and nothing could give them back. */
static bool connected_refused(uint32_t addr, unsigned len, char *err, size_t errlen)
{
    int p = connected_port(addr, len);
    if (p >= 0)
        fmt_snprintf(err, errlen, "that is %s's connected subnet (its interface address makes it)", netsvc_port_name(p));
    return p >= 0;
}

int netsvc_route_add(uint32_t addr, unsigned len, uint32_t gw_be, char *err, size_t errlen)
{
    return netsvc_route_add_via(addr, len, &gw_be, 1, err, errlen);
}

int netsvc_route_add_via(uint32_t addr, unsigned len, const uint32_t *gws_be, unsigned n, char *err,
                         size_t errlen)
{
    if (connected_refused(addr, len, err, errlen))
        return -1;
    uint32_t nh = nexthop_via(gws_be, n, err, errlen);
    if (!nh)
        return -1;
    int rc = nexthop_ref_route4(&nh_refs, netsvc.rt4, addr, len, nh);
    schedule_reclaim(); /* a failed add may leave nh unused, to free */
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", route_error(rc));
        return rc;
    }
    return 0;
}

int netsvc_route_del(uint32_t addr, unsigned len, char *err, size_t errlen)
{
    if (connected_refused(addr, len, err, errlen))
        return -1;
    int rc = nexthop_ref_route4(&nh_refs, netsvc.rt4, addr, len, ROUTE_NH_NONE);
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", route_error(rc));
        return rc;
    }
    schedule_reclaim();
    return 0;
}

int netsvc_route_defer(bool on)
{
    int rc4 = route4_defer(netsvc.rt4, on), rc6 = netsvc6_defer(on);
    if (!on)
        schedule_reclaim(); /* what the rebuilds replaced */
    return rc4 ? rc4 : rc6;
}

uint32_t netsvc_route_deferred(void) { return route4_deferred(netsvc.rt4) + netsvc6_deferred(); }

/* A static route is also kept in netsvc.statics, so that BGP neither
 * replaces it nor loses its own route of the same prefix when it goes,
 * and resolves next hops over it. */
_Static_assert(ROUTE_STATIC_GWS == NH_GROUP_PATHS, "a static route's gateways fit its registry entry");

static void static_record(bool v6, const uint8_t *a, unsigned len, const uint8_t *gws, unsigned n)
{
    if (!n)
        route_statics_unset(&netsvc.statics, v6, a, len);
    else if (route_statics_set_gws(&netsvc.statics, v6, a, len, gws, n) != ROUTE_OK)
        kprintf("route: no memory to keep the static route apart: BGP may replace it\n");
    netsvc_bgp_routes_changed(v6, a, len);
}

int netsvc_route_change(const char *prefix, const char *const *vias, unsigned nvia, char *err, size_t errlen)
{
    if (nvia > NH_GROUP_PATHS) {
        fmt_snprintf(err, errlen, "at most %u gateways a route", NH_GROUP_PATHS);
        return -1;
    }
    if (strchr(prefix, ':')) {
        uint8_t a[16], gws[NH_GROUP_PATHS][16];
        unsigned len, n = 0;
        int rc = nvia ? netsvc6_route(prefix, vias, nvia, err, errlen) : netsvc6_route_del(prefix, err, errlen);
        schedule_reclaim();
        while (n < nvia && route6_parse_addr(vias[n], strlen(vias[n]), gws[n])) /* all parse: it was taken */
            n++;
        if (rc == 0 && route6_parse(prefix, strlen(prefix), a, &len))
            static_record(true, a, len, gws[0], n);
        return rc;
    }
    uint32_t addr, gws_be[NH_GROUP_PATHS];
    unsigned len;
    if (!route4_parse(prefix, strlen(prefix), &addr, &len)) {
        fmt_snprintf(err, errlen, "bad prefix '%s' (host bits must be zero)", prefix);
        return -1;
    }
    for (unsigned i = 0; i < nvia; i++) {
        uint32_t gw;
        if (!route4_parse_addr(vias[i], strlen(vias[i]), &gw)) {
            fmt_snprintf(err, errlen, "bad gateway '%s'", vias[i]);
            return -1;
        }
        gws_be[i] = net_htonl(gw);
    }
    uint32_t a_be = net_htonl(addr);
    int rc = nvia ? netsvc_route_add_via(addr, len, gws_be, nvia, err, errlen) : netsvc_route_del(addr, len, err, errlen);
    if (rc == 0)
        static_record(false, (const uint8_t *)&a_be, len, (const uint8_t *)gws_be, nvia);
    return rc;
}

/* "via G [via G ...]" at argv[0..argc): the gateways into vias; their
 * count, or -1. */
int netsvc_parse_vias(int argc, char **argv, const char **vias)
{
    if (argc < 2 || argc % 2 || argc / 2 > NH_GROUP_PATHS)
        return -1;
    for (int i = 0; i < argc; i += 2) {
        if (strcmp(argv[i], "via") != 0)
            return -1;
        vias[i / 2] = argv[i + 1];
    }
    return argc / 2;
}

static bool parse_addr(const char *s, uint32_t *host)
{
    return route4_parse_addr(s, strlen(s), host);
}

/* "A.B.C.D/LEN" with host bits allowed (an interface address). */
static bool parse_ifaddr(const char *s, uint32_t *host, unsigned *len)
{
    const char *slash = s;
    while (*slash && *slash != '/')
        slash++;
    unsigned long l;
    if (*slash != '/' || config_parse_u32(slash + 1, 32, &l) != 0)
        return false;
    *len = (unsigned)l;
    return route4_parse_addr(s, (size_t)(slash - s), host);
}

/* `interface ethN address A.B.C.D/LEN` for port p. */
static int interface4(int p, const char *arg, char *err, size_t errlen)
{
    uint32_t a;
    unsigned len;
    if (!parse_ifaddr(arg, &a, &len) || len == 0 || len > 30) {
        fmt_snprintf(err, errlen, "bad address '%s' (A.B.C.D/LEN, LEN 1-30)", arg);
        return -1;
    }
    uint32_t net = a & ~(0xffffffffu >> len);
    /* One address a port, and a subnet on one port: either way the later
     * line's connected route would replace one in use. */
    for (int q = 0; q < NET_MAX_PORTS; q++) {
        uint32_t other = net_ntohl(netsvc.addr[q].addr_be), olen = netsvc.addr[q].prefix_len;
        if (other && (q == p || (olen == len && (other & ~(0xffffffffu >> olen)) == net))) {
            char had[16];
            fmt_ip(had, sizeof had, netsvc.addr[q].addr_be);
            fmt_snprintf(err, errlen, "%s has %s/%u already (one IPv4 address a port, a subnet on one port)",
                         netsvc_port_name(q), had, olen);
            return -1;
        }
    }
    netsvc.addr[p].addr_be = net_htonl(a);
    netsvc.addr[p].prefix_len = (uint8_t)len;
    /* The connected route: on-link destinations, no gateway. */
    struct nexthop nh = {.kind = NEXTHOP_VIA, .port = (uint8_t)p, .gw_be = 0};
    if (!netsvc.connected_nh[p]) {
        netsvc.connected_nh[p] = nexthop_add(&netsvc.nht, &nh);
        if (!netsvc.connected_nh[p]) {
            fmt_snprintf(err, errlen, "next-hop table full");
            return -1;
        }
        nexthop_ref_get(&nh_refs, netsvc.connected_nh[p]); /* held for good: the port keeps its address */
    }
    int rc = nexthop_ref_route4(&nh_refs, netsvc.rt4, net, len, netsvc.connected_nh[p]);
    schedule_reclaim(); /* the connected route may have replaced a static one */
    return rc == ROUTE_OK ? 0 : -1;
}

static int stmt_interface(int argc, char **argv, char *err, size_t errlen)
{
    bool ra = argc == 3 && strcmp(argv[2], "ra") == 0, mtu = argc == 4 && strcmp(argv[2], "mtu") == 0;
    bool vlan = argc == 4 && strcmp(argv[2], "vlan") == 0, acl = argc == 5 && strcmp(argv[2], "acl") == 0;
    if (!ra && !mtu && !vlan && !acl && (argc != 4 || strcmp(argv[2], "address") != 0)) {
        fmt_snprintf(err, errlen, "usage: interface PORT address A.B.C.D/LEN|X:X::X/LEN, interface PORT ra, "
                                  "interface PORT mtu N, interface PORT vlan ID, or interface PORT acl in|out NAME "
                                  "(PORT: ethN, or ethN.VID / ethN.OUTER.VID for a VLAN sub-interface)");
        return -1;
    }
    int p = netsvc_port_index(argv[1], !vlan);
    if (p < 0) {
        fmt_snprintf(err, errlen, "no port '%s'%s", argv[1],
                     strchr(argv[1], '.') ? " (ethN.VID or ethN.OUTER.VID, VIDs 1-4094, at most 16)" : "");
        return -1;
    }
    if (acl)
        return netsvc_acl_bind(p, argv[3], argv[4], err, errlen);
    if (ra) {
        netsvc6_ra(p);
        return 0;
    }
    if (vlan) { /* IEEE 802.1Q: 0 is "no VLAN", 4095 reserved */
        unsigned long v;
        if (config_parse_u32(argv[3], 4094, &v) != 0 || v == 0) {
            fmt_snprintf(err, errlen, "bad VLAN '%s' (1 to 4094)", argv[3]);
            return -1;
        }
        netsvc.addr[p].vlan = (uint16_t)v;
        return 0;
    }
    if (mtu) {
        unsigned long v;
        if (config_parse_u32(argv[3], NETDEV_MTU_MAX, &v) != 0 || v < NETSVC_MTU_MIN) {
            fmt_snprintf(err, errlen, "bad MTU '%s' (%u to %u, over %u where the port's driver takes it)", argv[3],
                         NETSVC_MTU_MIN, NETDEV_MTU_MAX, NET_MTU_DEFAULT);
            return -1;
        }
        netsvc.addr[p].mtu = (uint16_t)v;
        return 0;
    }
    /* An address makes the service poll the port (ra, vlan and mtu alone do not). */
    const char *holder = ports_holder(netsvc_port_dev(p));
    if (holder && holder != netsvc_holder) {
        fmt_snprintf(err, errlen, "%s is %s's", argv[1], holder);
        return -1;
    }
    bool v6 = strchr(argv[3], ':') != NULL;
    int rc = v6 ? netsvc6_interface(p, argv[3], err, errlen) : interface4(p, argv[3], err, errlen);
    if (v6)
        schedule_reclaim(); /* the connected route may have replaced a static one */
    if (rc == 0)
        ports_claim(netsvc_port_dev(p), netsvc_holder);
    return rc;
}

static int stmt_route(int argc, char **argv, char *err, size_t errlen)
{
    const char *vias[NH_GROUP_PATHS];
    int n = argc >= 2 ? netsvc_parse_vias(argc - 2, argv + 2, vias) : -1;
    if (n < 0) {
        fmt_snprintf(err, errlen, "usage: route PREFIX/LEN via ADDRESS [via ADDRESS ...] (at most %u)", NH_GROUP_PATHS);
        return -1;
    }
    return netsvc_route_change(argv[1], vias, (unsigned)n, err, errlen);
}

static int stmt_routes(int argc, char **argv, char *err, size_t errlen)
{
    uint32_t gw;
    if (argc == 4 && strcmp(argv[2], "via") == 0 && strchr(argv[3], ':')) {
        int rc = netsvc6_routes(argv[1], argv[3], err, errlen);
        schedule_reclaim();
        return rc;
    }
    if (argc != 4 || strcmp(argv[2], "via") != 0 || !parse_addr(argv[3], &gw)) {
        fmt_snprintf(err, errlen, "usage: routes FILE via ADDRESS");
        return -1;
    }
    const struct boot_module *m = multiboot_module(argv[1]);
    if (!m) {
        fmt_snprintf(err, errlen, "no module '%s' (tools/mkiso CONFIG OUT.iso FILE)", argv[1]);
        return -1;
    }
    uint32_t nh = nexthop_for(net_htonl(gw), err, errlen);
    if (!nh)
        return -1;
    struct route_load_stats st = {0};
    uint64_t t0 = time_now_ns();
    nexthop_ref_get(&nh_refs, nh); /* for the load: a file with no prefix leaves it unused, to free */
    int rc = route4_load_text(netsvc.rt4, phys_to_virt(m->start), m->end - m->start, nh, &st, nexthop_ref_set,
                              &nh_refs);
    nexthop_ref_load_end(&nh_refs, st.published);
    nexthop_ref_put(&nh_refs, nh);
    schedule_reclaim(); /* the routes it replaced */
    uint64_t ms = (time_now_ns() - t0) / 1000000;
    kprintf("routes: %s: %u prefixes from %u lines in %lu ms, %u bad lines%s\n", argv[1], st.added, st.lines, ms,
            st.bad, st.bad ? " (skipped)" : "");
    if (st.bad)
        kprintf("routes: %s: first bad line %u\n", argv[1], st.first_bad_line);
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", route_error(rc));
        return -1;
    }
    return 0;
}

void netsvc_route_init(void)
{
    struct route_cfg cfg = {.alloc = {rt_alloc, rt_free, 0}}, cfg6 = cfg;
    netsvc_lookups_init(&cfg, &cfg6);
    netsvc.rt4 = route4_create(&cfg);
    if (!netsvc.rt4)
        panic("router: no memory for the route table");
    nexthop_init(&netsvc.nht);
    nexthop_ref_init(&nh_refs, NEXTHOP_MAX);
    route_statics_init(&netsvc.statics, &cfg.alloc);
    netsvc6_init(&cfg6);
    loop_timer_init(&reclaim_timer, reclaim_tick, 0);
    config_register("interface", stmt_interface);
    config_register("route", stmt_route);
    config_register("routes", stmt_routes);
}

void netsvc_route_start(void) { loop_timer_arm(&reclaim_timer, time_now_ns() + RECLAIM_PERIOD_NS); }
