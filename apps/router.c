/* apps/router.c: the router (DESIGN.md, "Configuration file"); its
 * IPv6 side is router6.c.
 *
 * Configuration: `interface ethN address A.B.C.D/LEN` gives a port its
 * address and a connected route; `route P/L via G` and `routes FILE via G`
 * add routes whose next hop is the gateway G on the port whose subnet holds
 * it; `app NAME port N` runs an application on every core's stack;
 * `tcp window KB` and `tcp connections N` size TCP (each core's table is
 * otherwise sized from the memory free at boot: tcp_conns_apply).
 *
 * Data path: core c polls queue c of every routed port, hands each burst
 * to the forwarding path (net/fwd/fwd.h: lookup, rewrite, one TX burst per
 * output port; to-us traffic into the core's stack), then lets the stack
 * run its timers. Nothing is shared between cores but the route and
 * next-hop tables, which only core 0 writes; memory those updates unlink
 * is freed once every core has passed a quiescent point (kernel/loop.h),
 * and so is a next hop once no route points at it (net/fwd/nexthop_ref.h:
 * every route through a slot is counted, however it was added). */
#include "router.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/config.h"
#include "kernel/console.h"
#include "lib/fmt.h"
#include "kernel/heap.h"
#include "kernel/kalloc.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/memmap.h"
#include "kernel/multiboot.h"
#include "kernel/percpu.h"
#include "kernel/pktmem.h"
#include "kernel/pmm.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "kernel/random.h"
#include "net/fwd/nexthop_ref.h"
#include "apps/http.h"
#include "apps/iperf3.h"
#include "apps/pingpong.h"
#include "apps/tcp_echo.h"
#include "apps/udp_echo.h"

#define ROUTER_BURST FWD_BURST_MAX
_Static_assert(PORTS_MAX <= NET_MAX_PORTS, "every port the kernel finds can be routed");
#define RECLAIM_PERIOD_NS 10000000ull
#define MAX_APPS 8
#define TCP_CONNS_DEFAULT 1024 /* a core, where memory allows; more where an eighth of it holds them, */
#define TCP_CONNS_DEFAULT_MAX 16384 /* up to this many (a router's memory is not all for TCP) */
#define TCP_CONNS_MIN 8
#define TCP_CONNS_MAX 65536
#define ROUTER_MTU_MIN 576 /* RFC 791: what every host takes whole (IPv6 wants 1280) */

struct router router;

struct app_def {
    const char *name;
    int (*start)(struct net_stack *s, uint16_t port);
    bool tcp, udp;              /* what it takes the port of */
};

static const struct app_def app_defs[] = {
    {"udp-echo", udp_echo_start, false, true},
    {"tcp-echo", tcp_echo_start, true, false},
    {"http", http_start, true, false},
    {"pingpong", pingpong_server_start, true, false},
    {"iperf3", iperf3_start, true, true},
};

static struct tcp_config tcp_cfg;
static struct tcp_rss_reta tcp_reta, tcp_reta6; /* IPv4's, IPv6's */
static uint32_t tcp_window;     /* `tcp window KB`, in bytes (0: the default) */
static uint32_t tcp_conns;         /* a core: tcp_conns_apply */
static uint32_t tcp_conns_asked;   /* `tcp connections N` (0: from memory) */

static struct {
    const struct app_def *def;
    uint16_t port;
    bool set_idle;              /* `idle S` given */
    uint64_t idle_ns;
} apps[MAX_APPS];
static unsigned napps;

static struct nexthop_ref nh_refs; /* routes through each of router.nht's slots */

static struct {
    uint64_t route_epoch, nh_stamp, loop_epoch;
    struct router6_mark v6;
    bool pending;
} reclaim;
static struct loop_timer reclaim_timer;


/* Route-table memory: rounded to 64 bytes both ways, so a block's size
 * class (and with it its natural alignment) is the same at free time. */
static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }
static void *rt_alloc(void *ctx, size_t size, size_t align) { return heap_alloc(round64(size)); }
static void rt_free(void *ctx, void *p, size_t size) { heap_free(p, round64(size)); }

static int port_index(const char *name)
{
    struct netdev *d = ports_find(name);
    return d && d->index < NET_MAX_PORTS ? d->index : -1;
}

/* The port whose connected subnet holds gw_be, the longest if subnets
 * nest (as the table would choose), or -1. */
static int port_for_gateway(uint32_t gw_be)
{
    int best = -1;
    for (int p = 0; p < NET_MAX_PORTS; p++) {
        uint8_t len = router.addr[p].prefix_len;
        if (!router.addr[p].addr_be || len == 0 || (best >= 0 && len <= router.addr[best].prefix_len))
            continue;
        uint32_t mask = net_htonl(~(0xffffffffu >> len));
        if (((gw_be ^ router.addr[p].addr_be) & mask) == 0)
            best = p;
    }
    return best;
}

/* The port whose connected subnet is addr/len (host order), or -1: the
 * console's routes leave those to the interface's address. */
static int connected_port(uint32_t addr, unsigned len)
{
    for (int p = 0; p < NET_MAX_PORTS; p++)
        if (router.addr[p].addr_be && router.addr[p].prefix_len == len &&
            (net_ntohl(router.addr[p].addr_be) & ~(0xffffffffu >> len)) == addr)
            return p;
    return -1;
}

/* A next hop via gw_be, shared by every route through it. */
static uint32_t nexthop_for(uint32_t gw_be, char *err, size_t errlen)
{
    int port = port_for_gateway(gw_be);
    if (port < 0) {
        fmt_snprintf(err, errlen, "no interface's subnet holds the gateway");
        return 0;
    }
    uint32_t all = 0xffffffffu >> router.addr[port].prefix_len, host = net_ntohl(gw_be) & all;
    if (gw_be == router.addr[port].addr_be || host == 0 || host == all) {
        fmt_snprintf(err, errlen, "the gateway is %s's own address, or its subnet's network or broadcast address",
                     ports_get(port)->name);
        return 0;
    }
    for (uint32_t i = 1; i < router.nht.used; i++) {
        struct nexthop nh = nexthop_get(&router.nht, i);
        if (nh.kind == NEXTHOP_VIA && nh.gw_be == gw_be && nh.port == port)
            return i;
    }
    struct nexthop nh = {.kind = NEXTHOP_VIA, .port = (uint8_t)port, .gw_be = gw_be};
    uint32_t idx = nexthop_add(&router.nht, &nh);
    if (!idx)
        fmt_snprintf(err, errlen, "next-hop table full");
    return idx;
}

/* After every change to the routes: what it unlinked, route-table memory
 * and next hops left with no route, is freed once every core has passed a
 * quiescent point from here on. */
static void schedule_reclaim(void)
{
    reclaim.route_epoch = route4_epoch(router.rt4);
    reclaim.nh_stamp = nexthop_ref_seal(&nh_refs);
    reclaim.v6 = router6_reclaim_mark();
    reclaim.loop_epoch = loop_quiescent_epoch();
    reclaim.pending = true;
}

static void nh_free(void *ctx, uint32_t idx) { nexthop_del(ctx, idx); }

void router_reclaim(uint64_t now_ns)
{
    if (reclaim.pending && loop_quiescent_since(reclaim.loop_epoch)) {
        route4_reclaim(router.rt4, reclaim.route_epoch);
        nexthop_ref_reclaim(&nh_refs, reclaim.nh_stamp, nh_free, &router.nht);
        router6_reclaim(reclaim.v6);
        reclaim.pending = false;
    }
}

static void reclaim_tick(void *arg, uint64_t now_ns)
{
    router_reclaim(now_ns);
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
        fmt_snprintf(err, errlen, "that is %s's connected subnet (its interface address makes it)", ports_get(p)->name);
    return p >= 0;
}

int router_route_add(uint32_t addr, unsigned len, uint32_t gw_be, char *err, size_t errlen)
{
    if (connected_refused(addr, len, err, errlen))
        return -1;
    uint32_t nh = nexthop_for(gw_be, err, errlen);
    if (!nh)
        return -1;
    int rc = nexthop_ref_route4(&nh_refs, router.rt4, addr, len, nh);
    schedule_reclaim(); /* a failed add may leave nh unused, to free */
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", route_error(rc));
        return rc;
    }
    return 0;
}

int router_route_del(uint32_t addr, unsigned len, char *err, size_t errlen)
{
    if (connected_refused(addr, len, err, errlen))
        return -1;
    int rc = nexthop_ref_route4(&nh_refs, router.rt4, addr, len, ROUTE_NH_NONE);
    if (rc != ROUTE_OK) {
        fmt_snprintf(err, errlen, "%s", route_error(rc));
        return rc;
    }
    schedule_reclaim();
    return 0;
}

int router_route_change(const char *prefix, const char *via, char *err, size_t errlen)
{
    if (strchr(prefix, ':')) {
        int rc = via ? router6_route(prefix, via, err, errlen) : router6_route_del(prefix, err, errlen);
        schedule_reclaim();
        return rc;
    }
    uint32_t addr, gw = 0;
    unsigned len;
    if (!route4_parse(prefix, strlen(prefix), &addr, &len)) {
        fmt_snprintf(err, errlen, "bad prefix '%s' (host bits must be zero)", prefix);
        return -1;
    }
    if (via && !route4_parse_addr(via, strlen(via), &gw)) {
        fmt_snprintf(err, errlen, "bad gateway '%s'", via);
        return -1;
    }
    return via ? router_route_add(addr, len, net_htonl(gw), err, errlen) : router_route_del(addr, len, err, errlen);
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
        uint32_t other = net_ntohl(router.addr[q].addr_be), olen = router.addr[q].prefix_len;
        if (other && (q == p || (olen == len && (other & ~(0xffffffffu >> olen)) == net))) {
            char had[16];
            fmt_ip(had, sizeof had, router.addr[q].addr_be);
            fmt_snprintf(err, errlen, "%s has %s/%u already (one IPv4 address a port, a subnet on one port)",
                         ports_get(q)->name, had, olen);
            return -1;
        }
    }
    router.addr[p].addr_be = net_htonl(a);
    router.addr[p].prefix_len = (uint8_t)len;
    /* The connected route: on-link destinations, no gateway. */
    struct nexthop nh = {.kind = NEXTHOP_VIA, .port = (uint8_t)p, .gw_be = 0};
    if (!router.connected_nh[p]) {
        router.connected_nh[p] = nexthop_add(&router.nht, &nh);
        if (!router.connected_nh[p]) {
            fmt_snprintf(err, errlen, "next-hop table full");
            return -1;
        }
        nexthop_ref_get(&nh_refs, router.connected_nh[p]); /* held for good: the port keeps its address */
    }
    int rc = nexthop_ref_route4(&nh_refs, router.rt4, net, len, router.connected_nh[p]);
    schedule_reclaim(); /* the connected route may have replaced a static one */
    return rc == ROUTE_OK ? 0 : -1;
}

static int stmt_interface(int argc, char **argv, char *err, size_t errlen)
{
    bool ra = argc == 3 && strcmp(argv[2], "ra") == 0, mtu = argc == 4 && strcmp(argv[2], "mtu") == 0;
    bool vlan = argc == 4 && strcmp(argv[2], "vlan") == 0;
    int p = argc >= 3 ? port_index(argv[1]) : -1;
    if (!ra && !mtu && !vlan && (argc != 4 || strcmp(argv[2], "address") != 0)) {
        fmt_snprintf(err, errlen, "usage: interface PORT address A.B.C.D/LEN|X:X::X/LEN, interface PORT ra, "
                                  "interface PORT mtu N, or interface PORT vlan ID");
        return -1;
    }
    if (p < 0) {
        fmt_snprintf(err, errlen, "no port '%s'", argv[1]);
        return -1;
    }
    if (ra) {
        router6_ra(p);
        return 0;
    }
    if (vlan) { /* IEEE 802.1Q: 0 is "no VLAN", 4095 reserved */
        unsigned long v;
        if (config_parse_u32(argv[3], 4094, &v) != 0 || v == 0) {
            fmt_snprintf(err, errlen, "bad VLAN '%s' (1 to 4094)", argv[3]);
            return -1;
        }
        router.addr[p].vlan = (uint16_t)v;
        return 0;
    }
    if (mtu) {
        unsigned long v;
        if (config_parse_u32(argv[3], NET_MTU_DEFAULT, &v) != 0 || v < ROUTER_MTU_MIN) {
            fmt_snprintf(err, errlen, "bad MTU '%s' (%u to %u)", argv[3], ROUTER_MTU_MIN, NET_MTU_DEFAULT);
            return -1;
        }
        router.addr[p].mtu = (uint16_t)v;
        return 0;
    }
    /* An address makes the router poll the port (ra, vlan and mtu alone do not). */
    static const char router_name[] = "the router";
    const char *holder = ports_holder(ports_get(p));
    if (holder && holder != router_name) {
        fmt_snprintf(err, errlen, "%s is %s's", argv[1], holder);
        return -1;
    }
    bool v6 = strchr(argv[3], ':') != NULL;
    int rc = v6 ? router6_interface(p, argv[3], err, errlen) : interface4(p, argv[3], err, errlen);
    if (v6)
        schedule_reclaim(); /* the connected route may have replaced a static one */
    if (rc == 0)
        ports_claim(ports_get(p), router_name);
    return rc;
}

static int stmt_route(int argc, char **argv, char *err, size_t errlen)
{
    uint32_t addr, gw;
    unsigned len;
    if (argc != 4 || strcmp(argv[2], "via") != 0) {
        fmt_snprintf(err, errlen, "usage: route PREFIX/LEN via ADDRESS");
        return -1;
    }
    if (strchr(argv[1], ':')) {
        int rc = router6_route(argv[1], argv[3], err, errlen);
        schedule_reclaim();
        return rc;
    }
    if (!route4_parse(argv[1], strlen(argv[1]), &addr, &len)) {
        fmt_snprintf(err, errlen, "bad prefix '%s' (host bits must be zero)", argv[1]);
        return -1;
    }
    if (!parse_addr(argv[3], &gw)) {
        fmt_snprintf(err, errlen, "bad gateway '%s'", argv[3]);
        return -1;
    }
    return router_route_add(addr, len, net_htonl(gw), err, errlen);
}

static int stmt_routes(int argc, char **argv, char *err, size_t errlen)
{
    uint32_t gw;
    if (argc == 4 && strcmp(argv[2], "via") == 0 && strchr(argv[3], ':')) {
        int rc = router6_routes(argv[1], argv[3], err, errlen);
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
    int rc = route4_load_text(router.rt4, phys_to_virt(m->start), m->end - m->start, nh, &st, nexthop_ref_set,
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

/* tcp window KB: every connection's send buffer and receive window, for
 * paths whose bandwidth-delay product is over the default 256 KB.
 * tcp connections N: connections a core, for servers with more clients
 * than the default gives. */
static int stmt_tcp(int argc, char **argv, char *err, size_t errlen)
{
    unsigned long v;
    if (argc == 3 && strcmp(argv[1], "window") == 0 && config_parse_u32(argv[2], 16384, &v) == 0 && v >= 64) {
        tcp_window = (uint32_t)v << 10;
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "connections") == 0 && config_parse_u32(argv[2], TCP_CONNS_MAX, &v) == 0 &&
        v >= TCP_CONNS_MIN) {
        tcp_conns_asked = (uint32_t)v;
        return 0;
    }
    fmt_snprintf(err, errlen, "usage: tcp window KB (64 to 16384) | tcp connections N (%u to %u)", TCP_CONNS_MIN,
                 TCP_CONNS_MAX);
    return -1;
}

/* The window asked for: a send-queue slot and an out-of-order buffer a KB
 * of it (a slot holds up to a buffer's payload). */
static void tcp_window_apply(void)
{
    if (tcp_window == 0)
        return;
    tcp_cfg.sndbuf = tcp_cfg.rcvbuf = tcp_window;
    tcp_cfg.sndbuf_max = tcp_cfg.rcvbuf_max = tcp_window; /* fixed: no autotuning */
    if ((tcp_window >> 10) > tcp_cfg.sq_slots)
        tcp_cfg.sq_slots = tcp_cfg.ooo_max = (uint16_t)(tcp_window >> 10);
    kprintf("tcp: window %u KB\n", tcp_window >> 10);
}

/* The most connections, up to want, whose arena fits in bytes. */
static uint32_t conns_fitting(uint32_t want, uint64_t bytes)
{
    uint32_t lo = 0, hi = want;
    while (lo < hi) {
        uint32_t mid = hi - (hi - lo) / 2;
        if (tcp_arena_size(&tcp_cfg, mid) <= bytes)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Connections a core, each with its send queue (the default window's
 * take 6.7 KB; 1.6 MB more a core are the large queues autotuning moves
 * connections into): as many as an eighth of the memory free for the
 * core holds (TCP_CONNS_DEFAULT_MAX at most: 110 MB), at least
 * TCP_CONNS_DEFAULT where half holds them; or
 * `tcp connections N`, in at most half. The rest stays for the route
 * table and the console. */
static void tcp_conns_apply(void)
{
    uint64_t per_core = pmm_free_pages() * PAGE_SIZE / router.ncores;
    uint32_t n;
    if (tcp_conns_asked) {
        n = conns_fitting(tcp_conns_asked, per_core / 2);
        if (n < tcp_conns_asked)
            kprintf("tcp: memory for %u connections a core, not %u\n", n, tcp_conns_asked);
    } else {
        n = conns_fitting(TCP_CONNS_DEFAULT_MAX, per_core / 8);
        if (n < TCP_CONNS_DEFAULT)
            n = conns_fitting(TCP_CONNS_DEFAULT, per_core / 2);
    }
    tcp_conns = n > TCP_CONNS_MIN ? n : TCP_CONNS_MIN;
    kprintf("tcp: %u connections a core (%lu KB of memory each)\n", tcp_conns,
            (unsigned long)(tcp_arena_size(&tcp_cfg, tcp_conns) >> 10));
}

/* A core's TCP arena for tcp_conns connections, or fewer where free memory
 * has no run that long (free pages need not be contiguous); NULL when
 * not even TCP_CONNS_MIN fit. */
static void *tcp_arena(unsigned cpu, size_t *bytes)
{
    for (uint32_t n = tcp_conns;; n -= n / 8) {
        *bytes = tcp_arena_size(&tcp_cfg, n);
        void *arena = kalloc_pages_try((*bytes + PAGE_SIZE - 1) / PAGE_SIZE, 1);
        if (arena) {
            if (n < tcp_conns)
                kprintf("tcp: core %u: memory for %u connections, not %u\n", cpu, n, tcp_conns);
            return arena;
        }
        if (n <= TCP_CONNS_MIN)
            return NULL;
    }
}

static int stmt_app(int argc, char **argv, char *err, size_t errlen)
{
    unsigned long port, idle = 0;
    if ((argc != 4 && argc != 6) || strcmp(argv[2], "port") != 0 || config_parse_u32(argv[3], 65535, &port) != 0 ||
        port == 0 || (argc == 6 && (strcmp(argv[4], "idle") != 0 || config_parse_u32(argv[5], 86400, &idle) != 0))) {
        fmt_snprintf(err, errlen, "usage: app NAME port N [idle SECONDS]");
        return -1;
    }
    for (size_t i = 0; i < ARRAY_LEN(app_defs); i++) {
        if (strcmp(app_defs[i].name, argv[1]) != 0)
            continue;
        if (napps == MAX_APPS) {
            fmt_snprintf(err, errlen, "at most %d applications", MAX_APPS);
            return -1;
        }
        if (argc == 6 && !app_defs[i].tcp) {
            fmt_snprintf(err, errlen, "idle is for TCP applications");
            return -1;
        }
        for (unsigned a = 0; a < napps; a++) {
            const struct app_def *d = apps[a].def;
            if (apps[a].port == port && ((d->tcp && app_defs[i].tcp) || (d->udp && app_defs[i].udp))) {
                fmt_snprintf(err, errlen, "port %lu is app %s's", port, d->name);
                return -1;
            }
        }
        apps[napps].def = &app_defs[i];
        apps[napps].set_idle = argc == 6;
        apps[napps].idle_ns = (uint64_t)idle * 1000000000ull;
        apps[napps++].port = (uint16_t)port;
        return 0;
    }
    fmt_snprintf(err, errlen, "no application '%s'", argv[1]);
    return -1;
}

static void core_poll(void *arg, uint64_t now_ns)
{
    struct router_core *rc = arg;
    struct pkt *pkts[ROUTER_BURST];
    unsigned work = 0;
    for (uint16_t i = 0; i < rc->nports; i++) {
        uint16_t n = netdev_rx_burst(rc->ports[i], (uint16_t)rc->cpu, pkts, ROUTER_BURST);
        if (n) {
            fwd_burst(&rc->fwd, &rc->stack, pkts, n, now_ns);
            work += n;
        }
    }
    net_poll(&rc->stack, now_ns); /* cheap until a timer is due */
    net_flush(&rc->stack);
    if (work)
        loop_note_work(work);
}

static struct router_core *core_setup(unsigned cpu)
{
    struct router_core *rc = kalloc(sizeof *rc);
    rc->cpu = cpu;
    net_stack_init(&rc->stack, pktmem_pool(cpu), cpu);
    random_bytes(&rc->stack.ip6_frag_id, sizeof rc->stack.ip6_frag_id); /* RFC 7739: not guessable from scratch */
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++) {
        struct netdev *dev = ports_get(p);
        if ((!router.addr[p].addr_be && !router6_port_has_addr(p)) || cpu >= dev->nqueues)
            continue;
        net_iface_add(&rc->stack, dev, (uint16_t)cpu, router.addr[p].addr_be, router.addr[p].prefix_len);
        net_iface_get(&rc->stack, (uint16_t)p)->vlan_id = router.addr[p].vlan; /* before fwd_sync: tagged ports take the stack's path */
        rc->ports[rc->nports++] = dev;
    }
    size_t tcp_bytes;
    void *arena = tcp_arena(cpu, &tcp_bytes);
    if (arena == NULL || tcp_init(&rc->stack, &rc->tcp, arena, tcp_bytes, &tcp_cfg) == 0)
        kprintf("router: no TCP on core %u\n", cpu);
    fwd_init(&rc->fwd, router.rt4, &router.nht);
    fwd_attach(&rc->fwd, &rc->stack);
    fwd_sync(&rc->fwd, &rc->stack);
    router6_core_setup(rc);
    router_arp_share(rc);
    for (unsigned a = 0; a < napps; a++) {
        if (apps[a].def->start(&rc->stack, apps[a].port) != 0)
            kprintf("app %s port %u: could not start on core %u\n", apps[a].def->name, apps[a].port, cpu);
        else if (apps[a].set_idle)
            tcp_listen_idle(&rc->stack, apps[a].port, apps[a].idle_ns);
    }
    return rc;
}

/* A core sends only on ports where it has a queue pair: a flow that a
 * port's RSS puts on core 1 cannot leave by a port of one queue (an SR-IOV
 * VF, a PF with VFs, virtio without mq) and was dropped (fwd-bad-nexthop).
 * So every routed port takes the fewest queue pairs any of them has, the
 * others' flows steered onto those (their drivers' limit_queues), and the
 * cores past them stay out of routing. */
static void equal_queues(void)
{
    uint16_t lanes = NETDEV_MAX_QUEUES;
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++)
        if (router.addr[p].addr_be || router6_port_has_addr(p))
            lanes = ports_get(p)->nqueues < lanes ? ports_get(p)->nqueues : lanes;
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++) {
        struct netdev *d = ports_get(p);
        if ((!router.addr[p].addr_be && !router6_port_has_addr(p)) || d->nqueues <= lanes)
            continue;
        uint16_t had = d->nqueues;
        if (d->ops->limit_queues && d->ops->limit_queues(d, lanes) == 0)
            kprintf("router: %s: %u queue pairs of %u, as every routed port has: a core sends only where it "
                    "has a queue\n", d->name, lanes, had);
        else
            kprintf("router: %s keeps %u queue pairs, others have %u: what its queues past them receive "
                    "for those ports is dropped\n", d->name, had, lanes);
    }
}

void router_start(void)
{
    bool any = false;
    for (int p = 0; p < NET_MAX_PORTS; p++)
        any |= router.addr[p].addr_be != 0 || router6_port_has_addr(p);
    if (!any)
        return; /* no interface has an address: nothing to route */
    router.ncores = cpu_count() < 64 ? cpu_count() : 64;
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++) { /* what we send: forwarded, fragmented, MSS */
        struct netdev *d = ports_get(p);
        if (router.addr[p].mtu && router.addr[p].mtu < IP6_MIN_MTU && router6_port_has_addr(p)) {
            kprintf("router: eth%d: mtu %u is under IPv6's minimum: 1280\n", p, router.addr[p].mtu);
            router.addr[p].mtu = IP6_MIN_MTU; /* RFC 8200 5 */
        }
        if (router.addr[p].mtu && router.addr[p].mtu < d->mtu)
            d->mtu = router.addr[p].mtu;
    }
    equal_queues();
    http_set_metrics(router_metric, NULL); /* every core's counters, whichever serves */
    tcp_config_default(&tcp_cfg);
    tcp_window_apply();
    tcp_conns_apply();
    random_bytes(tcp_cfg.secret, sizeof tcp_cfg.secret);
    for (int p = ports_count() - 1; p >= 0; p--) { /* TCP's active opens follow the NIC's RSS: the first port's */
        struct netdev *d = ports_get(p);
        struct tcp_rss_reta r = {d->rss_key, NETDEV_RSS_KEY_LEN, d->rss_reta, NETDEV_RSS_RETA_LEN};
        if (router.addr[p].addr_be && (d->offloads & NETDEV_OFF_RSS)) {
            tcp_reta = r;
            tcp_cfg.rss = tcp_rss_reta_core;
            tcp_cfg.rss_ctx = &tcp_reta;
        }
        /* Without TCP/IPv6 ports in the NIC's hash, IPv6 replies hash on addresses alone. */
        if (router6_port_has_addr(p) && (d->offloads & NETDEV_OFF_RSS_TCP6)) {
            tcp_reta6 = r;
            tcp_cfg.rss6 = tcp_rss6_reta_core;
            tcp_cfg.rss6_ctx = &tcp_reta6;
        }
    }
    for (unsigned c = 0; c < router.ncores; c++) {
        router.core[c] = core_setup(c);
        if (router.core[c]->nports)
            loop_add_poller(c, "router", core_poll, router.core[c]);
    }
    loop_timer_arm(&reclaim_timer, time_now_ns() + RECLAIM_PERIOD_NS);
    router.started = true;
}

void router_init(void)
{
    struct route_cfg cfg = {
        .alloc = {rt_alloc, rt_free, 0},
        .popcnt = (cpuid(1, 0).ecx >> 23) & 1,
    };
    router.rt4 = route4_create(&cfg);
    if (!router.rt4)
        panic("router: no memory for the route table");
    nexthop_init(&router.nht);
    nexthop_ref_init(&nh_refs, NEXTHOP_MAX);
    router6_init(&cfg);
    loop_timer_init(&reclaim_timer, reclaim_tick, 0);
    config_register("interface", stmt_interface);
    config_register("route", stmt_route);
    config_register("routes", stmt_routes);
    config_register("app", stmt_app);
    config_register("tcp", stmt_tcp);
    router_cmds_init();
}
