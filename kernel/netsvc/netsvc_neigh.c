/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_neigh.c: ARP and IPv6 neighbour discovery shared across
 * cores.
 *
 * Each core's stack keeps its own ARP and neighbour caches (no locks on
 * the data path), but a NIC puts the frames it cannot hash, ARP among
 * them, on one queue (virtio 1.2 5.1.6.5.7.1's unclassified queue; the
 * 82576 and 82599 send them to queue 0), and hashes an advertisement by
 * its addresses, not by the flow that needed it: the answer to core 1's
 * question reaches another core. So what a core's arp_input or nd6_input
 * accepts about a neighbour (net_arp_seen_fn, net_nd6_seen_fn) is written
 * to a note of that core's and announced to every other core running the
 * service (kernel/msg.h); each reads the note and updates its own entry, if
 * it has one (arp_learn_remote, nd6_learn_remote: an incomplete one
 * resolves and sends what waited).
 *
 * A message carries only the sender's core and the note's sequence number:
 * notes are a ring of NETSVC_NEIGH_NOTES written by their core alone, seqlock
 * style (seq 0 while the words change, then the new seq with release); a
 * reader that finds another seq before or after reading (the ring wrapped:
 * 64 ARP packets before it ran) drops it, and that core's own request
 * retries. Notes are rate-limited (ARP_NOTES_PER_S, a token bucket), so
 * a flood of ARP on one core does not fill the rings the console's
 * messages use too. */
#include "netsvc_impl.h"

#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/msg.h"
#include "kernel/platform/percpu.h"
#include "kernel/time.h"
#include "kernel/lib.h"
#include "lib/fmt.h"
#include "net/ip/ip.h"
#include "net/link/link.h"
#include "net/route/route.h"

#define ARP_NOTES_PER_S 20000
#define ARP_NOTES_BURST 32 /* no more than a message ring holds */

static void apply_note(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    unsigned from = (unsigned)(v & 0xff), me = cpu_index();
    uint64_t seq = (uint64_t)(v >> 8);
    if (from >= netsvc.ncores || me >= netsvc.ncores || !netsvc.core[from] || !netsvc.core[me])
        return;
    struct netsvc_neigh_note *n = &netsvc.core[from]->arp_notes[seq % NETSVC_NEIGH_NOTES];
    if (atomic_load_explicit(&n->seq, memory_order_acquire) != seq)
        return;
    uint64_t addr[2] = {atomic_load_explicit(&n->addr[0], memory_order_relaxed),
                        atomic_load_explicit(&n->addr[1], memory_order_relaxed)};
    uint64_t link = atomic_load_explicit(&n->link, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&n->seq, memory_order_relaxed) != seq)
        return;
    uint8_t mac[6];
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)(link >> (8 * i));
    uint16_t port = (uint16_t)((link >> 48) & 0xff);
    struct net_stack *s = &netsvc.core[me]->stack;
    if (link >> 56) {
        uint8_t ip[16];
        memcpy(ip, addr, 16);
        nd6_learn_remote(s, port, ip, mac, time_now_ns());
    } else {
        arp_learn_remote(s, port, (uint32_t)addr[0], mac, time_now_ns());
    }
    net_flush(s); /* what waited on the entry */
}

/* Write the next note of rc's and tell the other cores that have port. */
static void publish(struct netsvc_core *rc, uint16_t port, uint64_t a0, uint64_t a1, const uint8_t *mac, bool v6)
{
    if (!icmp_limit_take(&rc->arp_note_limit, time_now_ns()))
        return; /* the asking core's own retry will learn it */
    uint64_t seq = ++rc->arp_note_seq, link = (uint64_t)port << 48 | (uint64_t)v6 << 56;
    for (int i = 0; i < 6; i++)
        link |= (uint64_t)mac[i] << (8 * i);
    struct netsvc_neigh_note *n = &rc->arp_notes[seq % NETSVC_NEIGH_NOTES];
    atomic_store_explicit(&n->seq, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&n->addr[0], a0, memory_order_relaxed);
    atomic_store_explicit(&n->addr[1], a1, memory_order_relaxed);
    atomic_store_explicit(&n->link, link, memory_order_relaxed);
    atomic_store_explicit(&n->seq, seq, memory_order_release);
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        const struct netsvc_core *other = netsvc.core[c];
        if (c != rc->cpu && other && port < NET_MAX_PORTS && other->stack.iface[port].dev)
            msg_send(c, apply_note, (void *)(uintptr_t)(seq << 8 | rc->cpu));
    }
}

static void seen4(void *ctx, uint16_t port, uint32_t ip_be, const uint8_t *mac)
{
    publish(ctx, port, ip_be, 0, mac, false);
}

static void seen6(void *ctx, uint16_t port, const uint8_t *ip, const uint8_t *mac)
{
    uint64_t a[2];
    memcpy(a, ip, 16);
    publish(ctx, port, a[0], a[1], mac, true);
}

void netsvc_neigh_share(struct netsvc_core *rc)
{
    rc->arp_note_limit = (struct icmp4_limit){.rate_per_s = ARP_NOTES_PER_S, .burst = ARP_NOTES_BURST,
                                              .credit_ns = ARP_NOTES_BURST * (1000000000ull / ARP_NOTES_PER_S)};
    if (netsvc.ncores > 1) {
        net_set_arp_seen(&rc->stack, seen4, rc);
        net_set_nd6_seen(&rc->stack, seen6, rc);
    }
}

/* `arp A.B.C.D MAC` and `neighbor ADDR6 MAC [ethN]`: static entries, as
 * a router facing a traffic tester is given (the tester's ports may not
 * answer ARP or solicitations). Each core's stack gets them on the port
 * whose subnet holds the address (a link-local one names its port), at
 * start. */
#define NEIGH_STATIC_MAX 64
static struct {
    uint8_t ip[16]; /* IPv4 in the first 4 bytes, network order */
    uint8_t mac[6];
    bool v6;
    int8_t port;    /* named, or -1: the port whose subnet holds ip */
} neigh_static[NEIGH_STATIC_MAX];
static unsigned neigh_statics;

static int add_static(const uint8_t *ip, size_t iplen, const uint8_t *mac, int port, char *err, size_t errlen)
{
    if (neigh_statics == NEIGH_STATIC_MAX) {
        fmt_snprintf(err, errlen, "at most %u static ARP and neighbour entries", NEIGH_STATIC_MAX);
        return -1;
    }
    memcpy(neigh_static[neigh_statics].ip, ip, iplen);
    memcpy(neigh_static[neigh_statics].mac, mac, 6);
    neigh_static[neigh_statics].v6 = iplen == 16;
    neigh_static[neigh_statics++].port = (int8_t)port;
    return 0;
}

static int stmt_arp(int argc, char **argv, char *err, size_t errlen)
{
    uint32_t host, ip_be;
    uint8_t mac[6];
    if (argc != 3 || !route4_parse_addr(argv[1], strlen(argv[1]), &host) || config_parse_mac(argv[2], mac) != 0) {
        fmt_snprintf(err, errlen, "usage: arp A.B.C.D MAC");
        return -1;
    }
    ip_be = net_htonl(host);
    return add_static((const uint8_t *)&ip_be, 4, mac, -1, err, errlen);
}

static int stmt_neighbor(int argc, char **argv, char *err, size_t errlen)
{
    uint8_t ip[16], mac[6];
    unsigned long port = 0;
    bool ok = (argc == 3 || argc == 4) && route6_parse_addr(argv[1], strlen(argv[1]), ip) && ip[0] != 0xff &&
              config_parse_mac(argv[2], mac) == 0 && !(mac[0] & 1);
    bool link_local = ok && ip[0] == 0xfe && (ip[1] & 0xc0) == 0x80;
    if (ok && argc == 4)
        ok = strncmp(argv[3], "eth", 3) == 0 && config_parse_u32(argv[3] + 3, NET_MAX_PORTS - 1, &port) == 0;
    if (!ok || (link_local && argc != 4)) {
        fmt_snprintf(err, errlen, "usage: neighbor ADDR6 MAC [ethN] (unicast; a link-local address names its port)");
        return -1;
    }
    return add_static(ip, 16, mac, argc == 4 ? (int)port : -1, err, errlen);
}

/* The port whose subnet holds entry i's address, or -1. */
static int static_port(unsigned i)
{
    if (neigh_static[i].port >= 0)
        return neigh_static[i].port;
    for (int p = 0; p < NET_MAX_PORTS; p++) {
        uint8_t a[16], len;
        if (!neigh_static[i].v6) {
            uint32_t ip_be;
            memcpy(&ip_be, neigh_static[i].ip, 4);
            len = netsvc.addr[p].prefix_len;
            uint32_t mask = len ? net_htonl(~0u << (32 - len)) : 0;
            if (netsvc.addr[p].addr_be && ((ip_be ^ netsvc.addr[p].addr_be) & mask) == 0)
                return p;
        } else if (netsvc6_port_addr(p, a, &len) && ip6_prefix_eq(a, neigh_static[i].ip, len)) {
            return p;
        }
    }
    return -1;
}

void netsvc_neigh_static(struct netsvc_core *rc)
{
    for (unsigned i = 0; i < neigh_statics; i++) {
        int port = static_port(i);
        uint32_t ip_be;
        memcpy(&ip_be, neigh_static[i].ip, 4);
        if (port >= 0 && rc->stack.iface[port].dev &&
            (neigh_static[i].v6 ? nd6_add_static(&rc->stack, (uint16_t)port, neigh_static[i].ip, neigh_static[i].mac,
                                                 time_now_ns())
                                : arp_add_static(&rc->stack, (uint16_t)port, ip_be, neigh_static[i].mac)) == 0)
            continue;
        if (rc->cpu == 0) {
            char ip[48];
            if (neigh_static[i].v6)
                fmt_ip6(ip, sizeof ip, neigh_static[i].ip);
            else
                fmt_ip(ip, sizeof ip, ip_be);
            kprintf("router: %s %s: %s\n", neigh_static[i].v6 ? "neighbor" : "arp", ip,
                    port < 0 ? "no port's subnet holds it" : "no room in its cache set");
        }
    }
}

void netsvc_neigh_init(void)
{
    config_register("arp", stmt_arp);
    config_register("neighbor", stmt_neighbor);
}
