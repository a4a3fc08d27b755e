/* apps/router.h: the router application: interfaces and addresses,
 * static and bulk routes, the forwarding path and the stack on every
 * core's loop, applications, and the router's console commands. */
#ifndef USERLAND_ROUTER_H
#define USERLAND_ROUTER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/fwd/fwd.h"
#include "net/net.h"
#include "net/fwd/nexthop.h"
#include "net/route/route4.h"
#include "net/tcp/tcp.h"

/* One core's share: its stack and forwarding state, serving queue `cpu` of
 * every routed port. Touched only by that core (the console asks it
 * through kernel/msg.h). */
#define ROUTER_ARP_NOTES 64 /* what this core's ARP input learned, for the others */

/* One thing an ARP or neighbour discovery packet told (router_arp.c), in
 * words another core reads with plain atomic loads; seq (0: being written)
 * says which. */
struct router_arp_note {
    _Atomic uint64_t seq;
    _Atomic uint64_t addr[2];   /* IPv4 in the first, or IPv6 */
    _Atomic uint64_t link;      /* MAC | port << 48 | IPv6 << 56 */
};

struct router_core {
    struct net_stack stack;
    struct fwd fwd;
    struct tcp_stack tcp;
    unsigned cpu;
    uint16_t nports;
    struct netdev *ports[NET_MAX_PORTS];
    uint64_t arp_note_seq;
    struct icmp4_limit arp_note_limit; /* notes a second: a flood of ARP does not flood the other cores */
    struct router_arp_note arp_notes[ROUTER_ARP_NOTES];
};

/* The shared state: written by core 0 (configuration, console), read by all. */
struct router {
    struct route4 *rt4;
    struct nexthop_table nht;
    uint32_t connected_nh[NET_MAX_PORTS];
    struct {
        uint32_t addr_be;
        uint8_t prefix_len;
        uint16_t mtu;           /* `interface ethN mtu N` (0: the device's) */
        uint16_t vlan;          /* `interface ethN vlan ID` (0: untagged) */
    } addr[NET_MAX_PORTS];
    unsigned ncores;
    struct router_core *core[64];
    bool started;
};

extern struct router router;

void router_init(void);  /* route table, statements, console commands */
/* ARP and neighbour discovery learned on rc's core go to the other cores'
 * caches (router_arp.c). */
void router_arp_share(struct router_core *rc);

/* IPv6 (router6.c): configuration statements' IPv6 forms, each core's
 * addresses and route hook, `show route` for IPv6. */
struct route_cfg;
void router6_init(const struct route_cfg *cfg);
int router6_interface(int port, const char *addr_len, char *err, size_t errlen);
void router6_ra(int port); /* `interface ethN ra` */
int router6_route(const char *prefix, const char *via, char *err, size_t errlen);
int router6_route_del(const char *prefix, char *err, size_t errlen);
/* What IPv6 may free once every core has passed a quiescent point from
 * now on (router.c's schedule_reclaim: the route table's epoch, the
 * next-hop stamp), and freeing it then (router_reclaim). */
struct router6_mark {
    uint64_t route_epoch, nh_stamp;
};
struct router6_mark router6_reclaim_mark(void);
void router6_reclaim(struct router6_mark m);
int router6_routes(const char *file, const char *via, char *err, size_t errlen);
bool router6_port_has_addr(int port);
void router6_stats(struct route_stats *st); /* the IPv6 table's */
bool router6_port_addr(int port, uint8_t addr[16], uint8_t *plen); /* its IPv6 address, if any */
void router6_core_setup(struct router_core *rc);
/* The route dst takes: its prefix and length, port and gateway (all
 * zero: connected); false when there is none. */
bool router6_route_of(const uint8_t *dst, uint8_t *prefix, unsigned *len, uint16_t *port, uint8_t *gw);
void router_start(void); /* after the configuration: a stack per core */

/* Routes (core 0 only). 0, or a negative ROUTE_E* / -1 with a message. */
int router_route_add(uint32_t addr, unsigned len, uint32_t gw_be, char *err, size_t errlen);
int router_route_del(uint32_t addr, unsigned len, char *err, size_t errlen);
/* The same from the console for either family ("A.B.C.D/LEN" or
 * "X:X::/LEN"; via: the gateway, NULL to delete). */
int router_route_change(const char *prefix, const char *via, char *err, size_t errlen);
/* Frees route-table memory and next hops no core can still reach (core 0). */
void router_reclaim(uint64_t now_ns);
void router_cmds_init(void);
void fmt_ip(char *buf, size_t n, uint32_t addr_be);  /* dotted quad */
void fmt_ip6(char *buf, size_t n, const uint8_t *a); /* RFC 5952 */
/* /metrics (apps/http.h's http_metric_fn): the stack's counters, then
 * the forwarding path's, each summed over every core. */
bool router_metric(void *ctx, struct net_stack *s, uint32_t idx, const char **name, uint64_t *value);

#endif
