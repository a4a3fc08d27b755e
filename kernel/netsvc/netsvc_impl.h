/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_impl.h: what the network service's files share
 * (netsvc.h is its face to the kernel): each core's stack and forwarding
 * state, the interfaces' addresses and the route tables, and what each
 * file offers the others. */
#ifndef KERNEL_NETSVC_IMPL_H
#define KERNEL_NETSVC_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/fwd/fwd.h"
#include "net/net.h"
#include "net/route/route.h"
#include "net/tcp/tcp.h"
#include "kernel/msg.h"
#include "netsvc.h"

/* One core's share: its stack and forwarding state, serving queue `cpu` of
 * every port it serves. Touched only by that core (the console asks it
 * through kernel/msg.h). */
#define NETSVC_NEIGH_NOTES 64 /* what this core's ARP input learned, for the others */

/* One thing an ARP or neighbour discovery packet told (netsvc_neigh.c), in
 * words another core reads with plain atomic loads; seq (0: being written)
 * says which. */
struct netsvc_neigh_note {
    _Atomic uint64_t seq;
    _Atomic uint64_t addr[2];   /* IPv4 in the first, or IPv6 */
    _Atomic uint64_t link;      /* MAC | port << 48 | IPv6 << 56 */
};

struct netsvc_core {
    struct net_stack stack;
    struct fwd fwd;
    struct tcp_stack tcp;
    unsigned cpu;
    uint16_t nports;
    struct netdev *ports[NET_MAX_PORTS];
    uint64_t arp_note_seq;
    struct icmp4_limit arp_note_limit; /* notes a second: a flood of ARP does not flood the other cores */
    struct netsvc_neigh_note arp_notes[NETSVC_NEIGH_NOTES];
};

/* The shared state: written by core 0 (configuration, console), read by all. */
struct netsvc {
    struct route4 *rt4;
    struct nexthop_table nht;
    struct route_statics statics; /* the routes configured by hand, both families (BGP's distance and next hops) */
    uint32_t connected_nh[NET_MAX_PORTS];
    struct {
        uint32_t addr_be;
        uint8_t prefix_len;
        uint16_t mtu;           /* `interface ethN mtu N` (0: the device's) */
        uint16_t vlan;          /* `interface ethN vlan ID` (0: untagged) */
    } addr[NET_MAX_PORTS];
    unsigned ncores;
    struct netsvc_core *core[64];
    bool started;
};

extern struct netsvc netsvc;
/* Who holds the ports the service serves (kernel/ports.h's ports_claim):
 * `xconnect` refuses them, and `interface` refuses an xconnect's. */
extern const char netsvc_holder[];

/* IPv4 (netsvc_route.c): the route table, addresses and routes, and the
 * `interface`, `route` and `routes` statements; reclamation runs from
 * netsvc_route_start on. */
void netsvc_route_init(void);
void netsvc_route_start(void);
/* netsvc_lookups.c: the path the tables' bursts take. Sets cfg4's and
 * cfg6's popcnt, avx2 and avx512 to the fastest the CPU has for IPv4 and
 * for IPv6, measured (cfg4's allocator builds the tables it measures on),
 * and registers the lookups statement. netsvc_route_lookups and
 * netsvc_route_lookups6 name the paths in use: "avx512", "avx2", "popcnt"
 * or "portable" (`show route summary`). */
void netsvc_lookups_init(struct route_cfg *cfg4, struct route_cfg *cfg6);
extern const char *netsvc_route_lookups, *netsvc_route_lookups6;

/* TCP (netsvc_tcp.c): the `tcp` statement; the configuration every core
 * shares, sized and steered once the ports are known (netsvc_tcp_setup);
 * a core's table (netsvc_tcp_core, after its interfaces). */
void netsvc_tcp_init(void);
void netsvc_tcp_setup(void);
void netsvc_tcp_core(struct netsvc_core *rc);

/* ARP and neighbour discovery learned on rc's core go to the other cores'
 * caches (netsvc_neigh.c). */
void netsvc_neigh_share(struct netsvc_core *rc);
/* The `arp` and `neighbor` statements, and their entries put in a core's stack. */
void netsvc_neigh_init(void);
void netsvc_neigh_static(struct netsvc_core *rc);

/* IPv6 (netsvc_route6.c): configuration statements' IPv6 forms, each core's
 * addresses and route hook, `show route` for IPv6. */
struct route_cfg;
void netsvc6_init(const struct route_cfg *cfg);
int netsvc6_interface(int port, const char *addr_len, char *err, size_t errlen);
void netsvc6_ra(int port); /* `interface ethN ra` */
int netsvc6_route(const char *prefix, const char *const *vias, unsigned n, char *err, size_t errlen);
int netsvc6_route_del(const char *prefix, char *err, size_t errlen);
/* The same from bytes (a: prefix, gw: gateway); port -1: the one whose
 * prefix holds gw, else gw is on-link there (a link-local next hop). */
int netsvc6_route_set(const uint8_t *a, unsigned len, const uint8_t *gw, int port, char *err, size_t errlen);
int netsvc6_route_unset(const uint8_t *a, unsigned len, char *err, size_t errlen);
/* The same via n gateways (more than one: their ECMP group). */
int netsvc6_route_set_via(const uint8_t *a, unsigned len, const uint8_t (*gws)[16], unsigned n, char *err,
                          size_t errlen);
/* The port whose IPv6 prefix holds gw (the longest), or -1. */
int netsvc6_port_for_gateway(const uint8_t *gw);
/* What IPv6 may free once every core has passed a quiescent point from
 * now on (netsvc_route.c's schedule_reclaim: the route table's epoch, the
 * next-hop stamp), and freeing it then (netsvc_reclaim). */
struct netsvc6_mark {
    uint64_t route_epoch, nh_stamp;
};
struct netsvc6_mark netsvc6_reclaim_mark(void);
/* True when it freed an ECMP group, whose paths then wait for the next. */
bool netsvc6_reclaim(struct netsvc6_mark m);
struct fwd_nh6_table *netsvc6_nexthops(void);
int netsvc6_routes(const char *file, const char *via, char *err, size_t errlen);
bool netsvc6_port_has_addr(int port);
void netsvc6_stats(struct route_stats *st); /* the IPv6 table's */
void netsvc6_set_paths(const struct route_cfg *cfg); /* its lookup paths (the lookups statement) */
bool netsvc6_port_addr(int port, uint8_t addr[16], uint8_t *plen); /* its IPv6 address, if any */
void netsvc6_core_setup(struct netsvc_core *rc);
/* The route dst takes: its prefix and length, port and gateway (all
 * zero: connected), of an ECMP group (*group, else -1) the path of what
 * this router sends to dst; false when there is none. */
bool netsvc6_route_of(const uint8_t *dst, uint8_t *prefix, unsigned *len, uint16_t *port, uint8_t *gw, int *group);

/* Routes (core 0 only). 0, or a negative ROUTE_E* / -1 with a message. */
int netsvc_route_add(uint32_t addr, unsigned len, uint32_t gw_be, char *err, size_t errlen);
int netsvc_route_del(uint32_t addr, unsigned len, char *err, size_t errlen);
/* The port whose connected subnet holds gw_be, the longest if subnets
 * nest (as the table would choose), or -1. */
int netsvc_port_for_gateway(uint32_t gw_be);
/* Both route tables deferring their lookups' updates, or (off) rebuilt
 * with what changed meanwhile (route4_defer): for a routing protocol's
 * bursts. How many changes wait. */
int netsvc_route_defer(bool on);
/* /metrics' BGP counters (netsvc_bgp_cmds.c): how many, and the idx-th. */
uint32_t netsvc_bgp_metric_count(void);
bool netsvc_bgp_metric(uint32_t idx, const char **name, uint64_t *value);
uint32_t netsvc_route_deferred(void);
int netsvc6_defer(bool on);
uint32_t netsvc6_deferred(void);
/* A static route from the console or configuration, either family
 * ("A.B.C.D/LEN" or "X:X::/LEN"), via nvia gateways (more than one: ECMP;
 * none: delete it). */
int netsvc_route_change(const char *prefix, const char *const *vias, unsigned nvia, char *err, size_t errlen);
/* "via G [via G ...]" in argv[0..argc) into vias: how many, or -1. */
int netsvc_parse_vias(int argc, char **argv, const char **vias);
int netsvc_route_add_via(uint32_t addr, unsigned len, const uint32_t *gws_be, unsigned n, char *err,
                         size_t errlen);
/* The next hop of a route via n gateways, either family: path(ctx, i)
 * makes gateway i's slot (0: err says why); more than one, the ECMP group
 * of theirs from group(), which holds each path (refs) while it lives.
 * *group: the group's number when one was made, else NH_GROUP_MAX. */
struct netsvc_via_ops {
    uint32_t (*path)(void *ctx, unsigned i, char *err, size_t errlen);
    uint32_t (*group)(void *ctx, const uint32_t *paths, unsigned n, bool *made, unsigned *group);
};
uint32_t netsvc_via(unsigned n, const struct netsvc_via_ops *ops, void *ctx, struct nexthop_ref *refs,
                    unsigned *group, char *err, size_t errlen);
/* ECMP paths' health (netsvc_paths.c): each path of each group is up
 * while its port's link is and its neighbour answers (arp_probe,
 * nd6_probe) on core 0, once a second; a group just made has its paths up
 * for a grace period. */
void netsvc_paths_init(void);
/* VLAN sub-interfaces (subif.c): a port's number by name, a device's
 * ("eth0") or a sub-interface's ("eth0.100", "eth0.300.400": 802.1ad outer
 * tag, then 802.1Q), made by the first `interface` statement that names it
 * (create); -1 when there is none. A port's name and device (a
 * sub-interface's parent's); whether it has an address, and whether some
 * sub-interface of parent has; each core's stack given them
 * (netsvc_subif_core, after the devices' ports). */
int netsvc_port_index(const char *name, bool create);
const char *netsvc_port_name(int port);
struct netdev *netsvc_port_dev(int port);
bool netsvc_port_has_addr(int port);
/* port is a sub-interface: its parent and its tags as on the wire. */
bool netsvc_subif_of(int port, int *parent, uint8_t tags[8], unsigned *ntags);
void netsvc_subif_names(int parent, char *buf, size_t n); /* "eth0.100 eth0.200" */
bool netsvc_subifs_have_addr(int parent);
void netsvc_subif_core(struct netsvc_core *rc);
void netsvc_subif_init(void);
/* Access lists (acl.c): the `acl` statement and command, `show acl`; the
 * lists compiled at the start (netsvc_acl_start), then each core's stack
 * given its own (netsvc_acl_core, before fwd_sync). port -1: `acl
 * control`, else dir "in" or "out" of `interface PORT acl DIR NAME`. */
void netsvc_acl_init(void);
void netsvc_acl_start(void);
void netsvc_acl_core(struct netsvc_core *rc);
int netsvc_acl_bind(int port, const char *dir, const char *name, char *err, size_t errlen);
/* `capture` (capture.c); the http app's side is kernel/app.h's app_capture_*. */
void netsvc_capture_init(void);
void netsvc_paths_made(bool v6, unsigned group);
uint64_t netsvc_paths_downs(void); /* paths taken out, and put back, since boot */
uint64_t netsvc_paths_ups(void);
/* Static routes or interface addresses changed (netsvc_bgp_fib.c): BGP
 * resolves its next hops again, and takes a prefix back into the FIB when
 * the static route that held it is gone (v6, addr, len; len > 128: none). */
void netsvc_bgp_routes_changed(bool v6, const uint8_t *addr, unsigned len);
/* Frees route-table memory and next hops no core can still reach (core 0). */
void netsvc_reclaim(uint64_t now_ns);
void netsvc_cmds_init(void); /* netsvc_cmds.c: counters, caches, routes */
/* For the commands: fn(arg) on core c (directly when that is us; 0, or
 * -1 when it did not answer), a list's JSON frame ({"KEY": [ ... ]}), and
 * `show tcp` (netsvc_tcp_cmds.c). */
struct cli_args;
struct json;
int netsvc_on_core(unsigned c, msg_fn fn, void *arg);
void netsvc_list_begin(struct json *j, const char *key);
void netsvc_list_end(struct json *j);
void netsvc_cmd_show_tcp(const struct cli_args *a);
void fmt_ip(char *buf, size_t n, uint32_t addr_be);  /* dotted quad */
void fmt_ip6(char *buf, size_t n, const uint8_t *a); /* RFC 5952 */

#endif
