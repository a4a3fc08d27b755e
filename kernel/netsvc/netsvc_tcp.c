/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_tcp.c: TCP on every core's stack: its
 * configuration (`tcp window KB`, `tcp connections N`), each core's table
 * sized from the memory free at boot (tcp_conns_apply), and active opens
 * steered to the core the NIC's RSS will deliver the replies to. */
#include "netsvc_impl.h"

#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/lib.h"
#include "kernel/mem/memmap.h"
#include "kernel/mem/pmm.h"
#include "kernel/ports.h"
#include "kernel/random.h"
#include "lib/fmt.h"

#define TCP_CONNS_DEFAULT 1024 /* a core, where memory allows; more where an eighth of it holds them, */
#define TCP_CONNS_DEFAULT_MAX 16384 /* up to this many (a router's memory is not all for TCP) */
#define TCP_CONNS_MIN 8
#define TCP_CONNS_MAX 65536

static struct tcp_config tcp_cfg;
static struct tcp_rss_reta tcp_reta, tcp_reta6; /* IPv4's, IPv6's */
static uint32_t tcp_window;     /* `tcp window KB`, in bytes (0: the default) */
static uint32_t tcp_conns;         /* a core: tcp_conns_apply */
static uint32_t tcp_conns_asked;   /* `tcp connections N` (0: from memory) */

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
    uint64_t per_core = pmm_free_pages() * PAGE_SIZE / netsvc.ncores;
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
/* TCP's active opens follow the NIC's RSS: the first port's that hashes. */
static void tcp_rss_apply(void)
{
    for (int p = ports_count() - 1; p >= 0; p--) {
        struct netdev *d = ports_get(p);
        struct tcp_rss_reta r = {d->rss_key, NETDEV_RSS_KEY_LEN, d->rss_reta, NETDEV_RSS_RETA_LEN};
        if (p < NET_MAX_PORTS && netsvc.addr[p].addr_be && (d->offloads & NETDEV_OFF_RSS)) {
            tcp_reta = r;
            tcp_cfg.rss = tcp_rss_reta_core;
            tcp_cfg.rss_ctx = &tcp_reta;
        }
        /* Without TCP/IPv6 ports in the NIC's hash, IPv6 replies hash on addresses alone. */
        if (netsvc6_port_has_addr(p) && (d->offloads & NETDEV_OFF_RSS_TCP6)) {
            tcp_reta6 = r;
            tcp_cfg.rss6 = tcp_rss6_reta_core;
            tcp_cfg.rss6_ctx = &tcp_reta6;
        }
    }
}

void netsvc_tcp_setup(void)
{
    tcp_config_default(&tcp_cfg);
    tcp_window_apply();
    tcp_conns_apply();
    random_bytes(tcp_cfg.secret, sizeof tcp_cfg.secret);
    tcp_rss_apply();
}

void netsvc_tcp_core(struct netsvc_core *rc)
{
    size_t tcp_bytes;
    void *arena = tcp_arena(rc->cpu, &tcp_bytes);
    if (arena == NULL || tcp_init(&rc->stack, &rc->tcp, arena, tcp_bytes, &tcp_cfg) == 0)
        kprintf("router: no TCP on core %u\n", rc->cpu);
}

void netsvc_tcp_init(void) { config_register("tcp", stmt_tcp); }
