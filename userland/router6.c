/* userland/router6.c: the router's IPv6 side (userland/router.h).
 *
 * Configuration: `interface ethN address 2001:db8::1/64` gives a port its
 * IPv6 address (the on-link prefix follows from it; every port also has a
 * link-local address from its MAC); `route 2001:db8:2::/48 via
 * 2001:db8::2` and `routes FILE via 2001:db8::2` add routes through a
 * gateway on a port's prefix, as `route add` and `route del` do on the
 * console; `interface ethN ra` sends router advertisements there
 * (net/ra6.c). The route table is net/route6.h, written by core 0 while
 * every core looks up, and holds the connected prefixes too (gateway all
 * zero), so one longest match decides; next hops (port, gateway) are a
 * small table beside it, only ever appended to, shared by every core's
 * stack (net_set_route6) and by each core's fast path (fwd_set_route6). Transit
 * IPv6 is forwarded on the core that received it: in batches by
 * net/fwd6.c, and what that leaves to the stack per packet by net/ip6.c. */
#include "router.h"

#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/fmt.h"
#include "kernel/lib.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "net/ip6.h"
#include "net/route6.h"

static struct route6 *rt6;
static struct fwd_nh6 nh6[FWD_NH6_MAX]; /* gateway all zero: on-link (a connected prefix) */
/* Next hops in use, 0 ("no route") counted: appended while every core
 * reads, each entry complete before it counts (release). */
static _Atomic uint32_t nnh6 = 1;
static struct {
    bool set;
    bool ra;                    /* `interface ethN ra`: router advertisements */
    uint8_t plen;
    uint8_t addr[16];
} addr6[NET_MAX_PORTS];

bool router6_port_has_addr(int port) { return port >= 0 && port < NET_MAX_PORTS && addr6[port].set; }

void router6_stats(struct route_stats *st) { route6_stats(rt6, st); }

bool router6_port_addr(int port, uint8_t addr[16], uint8_t *plen)
{
    if (!router6_port_has_addr(port))
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
    for (uint32_t i = 1; i < nnh6; i++)
        if (nh6[i].port == port && memcmp(nh6[i].gw, gw, 16) == 0)
            return i;
    if (nnh6 == FWD_NH6_MAX) {
        fmt_snprintf(err, errlen, "IPv6 next-hop table full");
        return 0;
    }
    uint32_t i = nnh6;
    nh6[i].port = (uint8_t)port;
    memcpy(nh6[i].gw, gw, 16);
    atomic_store_explicit(&nnh6, i + 1, memory_order_release);
    return i;
}

static uint32_t nexthop6_for(const uint8_t *gw, char *err, size_t errlen)
{
    int port = -1; /* the longest prefix if they nest, as router.c's port_for_gateway */
    for (int p = 0; p < NET_MAX_PORTS; p++)
        if (addr6[p].set && ip6_prefix_eq(addr6[p].addr, gw, addr6[p].plen) &&
            (port < 0 || addr6[p].plen > addr6[port].plen))
            port = p;
    if (port < 0) {
        fmt_snprintf(err, errlen, "no interface's prefix holds the gateway");
        return 0;
    }
    uint8_t net[16];
    ip6_prefix_of(gw, addr6[port].plen, net);
    if (memcmp(gw, addr6[port].addr, 16) == 0 || memcmp(gw, net, 16) == 0) {
        fmt_snprintf(err, errlen, "the gateway is %s's own address or its subnet-router anycast", ports_get(port)->name);
        return 0;
    }
    return nexthop6_on(port, gw, err, errlen);
}

int router6_interface(int port, const char *arg, char *err, size_t errlen)
{
    uint8_t a[16];
    unsigned len;
    if (!parse_ifaddr6(arg, a, &len) || len == 0 || len > 127 || ip6_is_mcast(a) || ip6_is_unspec(a) ||
        ip6_is_linklocal(a)) {
        fmt_snprintf(err, errlen, "bad address '%s' (a global or unique-local ADDRESS/LEN, LEN 1-127)", arg);
        return -1;
    }
    for (int q = 0; q < NET_MAX_PORTS; q++) /* as IPv4's (router.c) */
        if (addr6[q].set && (q == port || (addr6[q].plen == len && ip6_prefix_eq(addr6[q].addr, a, len)))) {
            char had[48];
            fmt_ip6(had, sizeof had, addr6[q].addr);
            fmt_snprintf(err, errlen, "%s has %s/%u already (one IPv6 address a port, a subnet on one port)",
                         ports_get(q)->name, had, addr6[q].plen);
            return -1;
        }
    addr6[port].set = true;
    addr6[port].plen = (uint8_t)len;
    memcpy(addr6[port].addr, a, 16);
    /* The connected prefix, in the table with the routes: one longest
     * match decides (a more specific static route inside it wins). */
    static const uint8_t on_link[16];
    uint32_t nh = nexthop6_on(port, on_link, err, errlen);
    uint8_t net[16];
    ip6_prefix_of(a, len, net);
    if (!nh || route6_add(rt6, net, len, nh) != ROUTE_OK) {
        if (nh)
            fmt_snprintf(err, errlen, "could not add the connected route");
        return -1;
    }
    return 0;
}

void router6_ra(int port) { addr6[port].ra = true; }

static bool parse_gw(const char *s, uint8_t *gw, char *err, size_t errlen)
{
    if (!route6_parse_addr(s, strlen(s), gw) || ip6_is_mcast(gw) || ip6_is_unspec(gw)) {
        fmt_snprintf(err, errlen, "bad gateway '%s'", s);
        return false;
    }
    return true;
}

/* As router.c's connected_refused: a port's on-link prefix is its own. */
static bool connected6_refused(const uint8_t *a, unsigned len, char *err, size_t errlen)
{
    for (int p = 0; p < NET_MAX_PORTS; p++)
        if (addr6[p].set && addr6[p].plen == len && ip6_prefix_eq(addr6[p].addr, a, len)) {
            fmt_snprintf(err, errlen, "that is %s's on-link prefix (its interface address makes it)",
                         ports_get(p)->name);
            return true;
        }
    return false;
}

int router6_route(const char *prefix, const char *via, char *err, size_t errlen)
{
    uint8_t a[16], gw[16];
    unsigned len;
    if (!route6_parse(prefix, strlen(prefix), a, &len)) {
        fmt_snprintf(err, errlen, "bad prefix '%s' (host bits must be zero)", prefix);
        return -1;
    }
    if (connected6_refused(a, len, err, errlen) || !parse_gw(via, gw, err, errlen))
        return -1;
    uint32_t nh = nexthop6_for(gw, err, errlen);
    if (!nh)
        return -1;
    int rc = route6_add(rt6, a, len, nh);
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", rc == ROUTE_ENOMEM ? "out of memory" : "could not add the route");
        return -1;
    }
    return 0;
}

int router6_route_del(const char *prefix, char *err, size_t errlen)
{
    uint8_t a[16];
    unsigned len;
    if (!route6_parse(prefix, strlen(prefix), a, &len)) {
        fmt_snprintf(err, errlen, "bad prefix '%s' (host bits must be zero)", prefix);
        return -1;
    }
    if (connected6_refused(a, len, err, errlen))
        return -1;
    int rc = route6_del(rt6, a, len);
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", rc == ROUTE_ENOENT ? "no such route" : "could not delete the route");
        return -1;
    }
    return 0;
}

uint64_t router6_epoch(void) { return route6_epoch(rt6); }
void router6_reclaim(uint64_t epoch) { route6_reclaim(rt6, epoch); }

int router6_routes(const char *file, const char *via, char *err, size_t errlen)
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
    int rc = route6_load_text(rt6, phys_to_virt(m->start), m->end - m->start, nh, &st);
    kprintf("routes: %s: %u IPv6 prefixes from %u lines in %lu ms, %u bad lines%s\n", file, st.added, st.lines,
            (time_now_ns() - t0) / 1000000, st.bad, st.bad ? " (skipped)" : "");
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "could not load the routes");
        return -1;
    }
    return 0;
}

/* net_route6_fn: the longest match's port and gateway. */
static bool lookup(void *ctx, const uint8_t *dst, uint16_t *port, uint8_t *gw)
{
    uint32_t nh = route6_lookup(rt6, dst);
    if (nh == ROUTE_NH_NONE || nh >= atomic_load_explicit(&nnh6, memory_order_acquire))
        return false;
    *port = nh6[nh].port;
    memcpy(gw, nh6[nh].gw, 16);
    return true;
}

bool router6_route_of(const uint8_t *dst, uint8_t *prefix, unsigned *len, uint16_t *port, uint8_t *gw)
{
    uint32_t nh = route6_match(rt6, dst, len);
    if (nh == ROUTE_NH_NONE || nh >= atomic_load_explicit(&nnh6, memory_order_acquire))
        return false;
    *port = nh6[nh].port;
    memcpy(gw, nh6[nh].gw, 16);
    ip6_prefix_of(dst, *len, prefix);
    return true;
}

void router6_core_setup(struct router_core *rc)
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
        fwd_set_route6(&rc->fwd, rt6, nh6, &nnh6);
        fwd_sync(&rc->fwd, &rc->stack);
    }
}

void router6_init(const struct route_cfg *cfg)
{
    rt6 = route6_create(cfg);
    if (!rt6)
        panic("router: no memory for the IPv6 route table");
}
