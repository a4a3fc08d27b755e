/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_cmds.c: the network service's console commands:
 * show stats, show arp, show neighbors, show route, route add/del, clear
 * counters (show tcp is netsvc_tcp_cmds.c). Each core's counters are read where they lie (a 64-bit load
 * sees a recent value); what is not plain counters (ARP and neighbour
 * caches, connections) or is written (clearing) is done by the owning core
 * itself, asked through kernel/msg.h. */
#include "netsvc_impl.h"

#include "gen.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/msg.h"
#include "kernel/platform/percpu.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "net/link/link.h"
#include "net/route/route.h"

/* Snapshots hold a core's whole caches: nothing is left out unsaid. */
#define ARP_SNAPSHOT_MAX (ARP_SETS * ARP_WAYS * NET_MAX_PORTS)
#define ND6_SNAPSHOT_MAX (ND6_ENTRIES * NET_MAX_PORTS)


void fmt_ip(char *buf, size_t n, uint32_t addr_be)
{
    uint32_t a = net_ntohl(addr_be);
    fmt_snprintf(buf, n, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

/* RFC 5952: lowercase, no leading zeros, the longest run of two or more
 * zero groups (the first of equals) as "::". */
void fmt_ip6(char *buf, size_t n, const uint8_t *a)
{
    uint16_t g[8];
    int best = -1, best_len = 1;
    for (int i = 0; i < 8; i++)
        g[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
    for (int i = 0; i < 8;) {
        int j = i;
        while (j < 8 && g[j] == 0)
            j++;
        if (j - i > best_len) {
            best = i;
            best_len = j - i;
        }
        i = j > i ? j : i + 1;
    }
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < 8 && o + 6 < n; i++) {
        if (i == best) {
            o += (size_t)fmt_snprintf(buf + o, n - o, "::");
            i += best_len - 1;
            continue;
        }
        o += (size_t)fmt_snprintf(buf + o, n - o, "%s%x", o && buf[o - 1] != ':' ? ":" : "", g[i]);
    }
}

static const char *port_name(unsigned port) { return netsvc_port_name((int)port); }

/* Runs fn(arg) on core c: directly when that is us. */
int netsvc_on_core(unsigned c, msg_fn fn, void *arg)
{
    if (c == cpu_index()) {
        fn(arg);
        return 0;
    }
    return msg_call(c, fn, arg);
}

/* A list command's frame: {"KEY": [ ... ]} in JSON. */
void netsvc_list_begin(struct json *j, const char *key)
{
    cli_json_begin(j);
    json_obj_begin(j, 0);
    json_arr_begin(j, key);
}

void netsvc_list_end(struct json *j)
{
    json_arr_end(j);
    json_obj_end(j);
    cli_json_end(j);
}

/* One neighbour-cache row (show arp, show neighbors); mac NULL: none yet. */
static void neighbour_row(const struct cli_args *a, struct json *j, unsigned core, unsigned port, const char *ip,
                          int ip_width, const uint8_t *mac, const char *state, unsigned queued)
{
    char m[18] = "";
    if (mac)
        fmt_snprintf(m, sizeof m, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
    if (!a->json) {
        kprintf("%-4u %-6s %-*s %-18s %s\n", core, port_name(port), ip_width, ip, mac ? m : "-", state);
        return;
    }
    json_obj_begin(j, 0);
    json_u64(j, "core", core);
    json_str(j, "port", port_name(port));
    json_str(j, "address", ip);
    json_str(j, "mac", m);
    json_str(j, "state", state);
    json_u64(j, "queued", queued);
    json_obj_end(j);
}

bool netsvc_metric(void *ctx, struct net_stack *s, uint32_t idx, const char **name, uint64_t *value)
{
    const struct net_counter_desc *d = net_counter_at(idx);
    bool fwd = d == NULL;
    uint32_t nnet = sizeof(struct net_counters) / 8, nfwd = sizeof(struct fwd_counters) / 8;
    if (fwd && idx >= nnet + nfwd + netsvc_bgp_metric_count())
        return gen_metric(idx - nnet - nfwd - netsvc_bgp_metric_count(), name, value);
    if (fwd && idx >= nnet + nfwd)
        return netsvc_bgp_metric(idx - nnet - nfwd, name, value);
    if (fwd && (d = fwd_counter_at(idx - nnet)) == NULL)
        return false;
    uint64_t v = 0;
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        const struct netsvc_core *rc = netsvc.core[c];
        if (rc)
            v += fwd ? fwd_counter_get(&rc->fwd.ctr, d) : net_counter_get(&rc->stack.ctr, d);
    }
    *name = d->name;
    *value = v;
    return true;
}

static void cmd_show_stats(const struct cli_args *a)
{
    struct net_counters sum = {0};
    struct fwd_counters fsum = {0};
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        const uint64_t *in = (const uint64_t *)&netsvc.core[c]->stack.ctr;
        for (size_t k = 0; k < sizeof sum / 8; k++)
            ((uint64_t *)&sum)[k] += in[k];
        in = (const uint64_t *)&netsvc.core[c]->fwd.ctr;
        for (size_t k = 0; k < sizeof fsum / 8; k++)
            ((uint64_t *)&fsum)[k] += in[k];
    }
    struct json j;
    if (a->json) {
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_u64(&j, "cores", netsvc.ncores);
        json_obj_begin(&j, "counters");
    } else if (!netsvc.started) {
        kprintf("the router is not running (no interface has an address)\n");
        return;
    }
    const struct net_counter_desc *d;
    for (size_t i = 0; (d = net_counter_at(i)) != NULL; i++) {
        uint64_t v = net_counter_get(&sum, d);
        if (a->json)
            json_u64(&j, d->name, v);
        else if (v)
            kprintf("  %-28s %lu\n", d->name, v);
    }
    for (size_t i = 0; (d = fwd_counter_at(i)) != NULL; i++) {
        uint64_t v = fwd_counter_get(&fsum, d);
        if (a->json)
            json_u64(&j, d->name, v);
        else if (v)
            kprintf("  %-28s %lu\n", d->name, v);
    }
    if (a->json) {
        json_obj_end(&j);
        json_obj_end(&j);
        cli_json_end(&j);
    }
}

struct arp_snapshot {
    struct netsvc_core *rc;
    unsigned n;
    struct {
        uint16_t port;
        struct arp_info info;
    } e[ARP_SNAPSHOT_MAX];
};

static void take_arp(void *arg)
{
    struct arp_snapshot *s = arg;
    for (uint16_t p = 0; p < NET_MAX_PORTS; p++) {
        uint32_t idx = 0;
        struct arp_info info;
        while (s->n < ARP_SNAPSHOT_MAX && arp_entry_next(&s->rc->stack, p, &idx, &info)) {
            s->e[s->n].port = p;
            s->e[s->n++].info = info;
        }
    }
}

static void cmd_show_arp(const struct cli_args *a)
{
    static struct arp_snapshot snap; /* console only: one at a time */
    struct json j;
    char ip[16];
    if (a->json)
        netsvc_list_begin(&j, "entries");
    else
        kprintf("%-4s %-6s %-16s %-18s %s\n", "core", "port", "address", "mac", "state");
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        snap.rc = netsvc.core[c];
        snap.n = 0;
        if (netsvc_on_core(c, take_arp, &snap) != 0)
            continue;
        for (unsigned i = 0; i < snap.n; i++) {
            const struct arp_info *e = &snap.e[i].info;
            fmt_ip(ip, sizeof ip, e->ip_be);
            neighbour_row(a, &j, c, snap.e[i].port, ip, 16, e->mac, arp_state_name(e->state), e->qlen);
        }
    }
    if (a->json)
        netsvc_list_end(&j);
}


struct nd6_snapshot {
    struct netsvc_core *rc;
    unsigned n;
    struct {
        uint16_t port;
        struct nd6_entry e;
    } e[ND6_SNAPSHOT_MAX];
};

static void take_nd6(void *arg)
{
    struct nd6_snapshot *s = arg;
    for (uint16_t p = 0; p < NET_MAX_PORTS; p++) {
        uint32_t idx = 0;
        while (s->n < ND6_SNAPSHOT_MAX && nd6_entry_next(&s->rc->stack, p, &idx, &s->e[s->n].e))
            s->e[s->n++].port = p;
    }
}

static const char *nd6_state_name(uint8_t state)
{
    return state == ND6_INCOMPLETE ? "incomplete" : state == ND6_REACHABLE ? "reachable" : state == ND6_STATIC ? "static" : "stale";
}

/* Every core's IPv6 neighbour caches (like show arp). */
static void cmd_show_neighbors(const struct cli_args *a)
{
    static struct nd6_snapshot snap;
    struct json j;
    char ip[48];
    if (a->json)
        netsvc_list_begin(&j, "entries");
    else
        kprintf("%-4s %-6s %-40s %-18s %s\n", "core", "port", "address", "mac", "state");
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        snap.rc = netsvc.core[c];
        snap.n = 0;
        if (netsvc_on_core(c, take_nd6, &snap) != 0)
            continue;
        for (unsigned i = 0; i < snap.n; i++) {
            const struct nd6_entry *e = &snap.e[i].e;
            fmt_ip6(ip, sizeof ip, e->ip);
            neighbour_row(a, &j, c, snap.e[i].port, ip, 40, e->state == ND6_INCOMPLETE ? NULL : e->mac,
                          nd6_state_name(e->state), e->q.len);
        }
    }
    if (a->json)
        netsvc_list_end(&j);
}

/* An ECMP group's paths (net/fwd/nexthop_group.h), each with its port and
 * whether it is up: a JSON array "paths", or text after the route's line. */
static void group_paths(struct json *j, bool v6, unsigned g)
{
    const struct nh_group *grp = v6 ? &netsvc6_nexthops()->groups.g[g] : &netsvc.nht.groups.g[g];
    uint32_t live = atomic_load_explicit(&grp->live, memory_order_relaxed);
    if (j)
        json_arr_begin(j, "paths");
    for (unsigned i = 0; i < grp->n; i++) {
        char via[48] = "?";
        const char *port = "?";
        if (v6) {
            const struct fwd_nh6 *e = fwd_nh6_get(netsvc6_nexthops(), grp->path[i]);
            if (e) {
                fmt_ip6(via, sizeof via, e->gw);
                port = port_name(e->port);
            }
        } else {
            struct nexthop e = nexthop_get(&netsvc.nht, grp->path[i]);
            fmt_ip(via, sizeof via, e.gw_be);
            port = port_name(e.port);
        }
        bool up = (live >> i) & 1;
        if (j) {
            json_obj_begin(j, NULL);
            json_str(j, "nexthop", via);
            json_str(j, "port", port);
            json_bool(j, "up", up);
            json_obj_end(j);
        } else {
            kprintf("    via %s dev %s%s\n", via, port, up ? "" : " (down)");
        }
    }
    if (j)
        json_arr_end(j);
}

/* Of an ECMP group, the path this router's own packets to dst_be take
 * (fwd_route's choice). */
static void describe_nexthop(uint32_t nh_idx, uint32_t dst_be, char *buf, size_t n, const char **port)
{
    struct nexthop nh = nexthop_get(&netsvc.nht, nh_idx);
    if (nh.kind == NEXTHOP_GROUP)
        nh = nexthop_get(&netsvc.nht,
                         nexthop_group_pick(&netsvc.nht, nh.gw_be, nh_flow_hash_dst((const uint8_t *)&dst_be, 4)));
    *port = port_name(nh.port);
    if (nh.kind != NEXTHOP_VIA)
        fmt_snprintf(buf, n, "%s", nexthop_kind_name(nh.kind));
    else if (nh.gw_be == 0)
        fmt_snprintf(buf, n, "connected");
    else
        fmt_ip(buf, n, nh.gw_be);
}

static void show_route6(const struct cli_args *a)
{
    uint8_t dst[16], prefix[16], gw[16];
    unsigned len;
    uint16_t port;
    char pfx[48], via[48];
    if (!route6_parse_addr(a->argv[0], strlen(a->argv[0]), dst)) {
        kprintf("usage: show route X:X::X [json]\n");
        return;
    }
    int group;
    bool found = netsvc6_route_of(dst, prefix, &len, &port, gw, &group);
    if (found) {
        fmt_ip6(pfx, sizeof pfx, prefix);
        fmt_snprintf(pfx + strlen(pfx), sizeof pfx - strlen(pfx), "/%u", len);
        static const uint8_t zero[16];
        if (memcmp(gw, zero, 16) == 0)
            fmt_snprintf(via, sizeof via, "connected");
        else
            fmt_ip6(via, sizeof via, gw);
    }
    if (a->json) {
        struct json j;
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_str(&j, "address", a->argv[0]);
        if (found) {
            json_str(&j, "prefix", pfx);
            json_str(&j, "nexthop", via);
            json_str(&j, "port", port_name(port));
            if (group >= 0)
                group_paths(&j, true, (unsigned)group);
        }
        json_bool(&j, "found", found);
        json_obj_end(&j);
        cli_json_end(&j);
    } else if (found) {
        kprintf("%s via %s dev %s%s\n", pfx, via, port_name(port), group >= 0 ? ", equal-cost paths:" : "");
        if (group >= 0)
            group_paths(NULL, true, (unsigned)group);
    } else {
        kprintf("no route to %s\n", a->argv[0]);
    }
}

/* IPv4 next hops in the table: freed slots below the highest in use are holes. */
static uint32_t nexthops_in_use(void)
{
    uint32_t n = 0;
    for (uint32_t i = 1; i < netsvc.nht.used; i++)
        n += nexthop_get(&netsvc.nht, i).kind != NEXTHOP_FREE;
    return n;
}

static void cmd_show_route(const struct cli_args *a)
{
    uint32_t addr;
    if (a->argc == 1 && strcmp(a->argv[0], "summary") == 0) {
        struct route_stats st, st6;
        route4_stats(netsvc.rt4, &st);
        netsvc6_stats(&st6);
        if (a->json) {
            struct json j;
            cli_json_begin(&j);
            json_obj_begin(&j, 0);
            json_u64(&j, "prefixes", st.prefixes);
            json_u64(&j, "fib_bytes", st.fib_bytes);
            json_u64(&j, "rib_bytes", st.rib_bytes);
            json_u64(&j, "retired_bytes", st.retired_bytes);
            json_u64(&j, "nexthops", nexthops_in_use());
            json_u64(&j, "ecmp_path_downs", netsvc_paths_downs());
            json_u64(&j, "ecmp_path_ups", netsvc_paths_ups());
            json_u64(&j, "prefixes6", st6.prefixes);
            json_u64(&j, "fib_bytes6", st6.fib_bytes);
            json_u64(&j, "rib_bytes6", st6.rib_bytes);
            json_str(&j, "lookups", netsvc_route_lookups);
            json_str(&j, "lookups6", netsvc_route_lookups6);
            json_obj_end(&j);
            cli_json_end(&j);
        } else {
            kprintf("IPv4 routes: %u prefixes; lookup structure %lu KiB, prefix trie %lu KiB, waiting reclaim %lu KiB\n",
                    st.prefixes, st.fib_bytes >> 10, st.rib_bytes >> 10, st.retired_bytes >> 10);
            kprintf("IPv6 routes: %u prefixes; lookup structure %lu KiB, prefix trie %lu KiB\n", st6.prefixes,
                    st6.fib_bytes >> 10, st6.rib_bytes >> 10);
            kprintf("lookups: IPv4 %s, IPv6 %s\n", netsvc_route_lookups, netsvc_route_lookups6);
        }
        return;
    }
    if (a->argc == 1 && strchr(a->argv[0], ':')) {
        show_route6(a);
        return;
    }
    if (a->argc != 1 || !route4_parse_addr(a->argv[0], strlen(a->argv[0]), &addr)) {
        kprintf("usage: show route A.B.C.D|X:X::X [json] | show route summary [json]\n");
        return;
    }
    unsigned len = 0;
    uint32_t nh = route4_match(netsvc.rt4, addr, &len);
    char pfx[24], via[24];
    const char *port = "";
    uint32_t mask = len == 0 ? 0 : len >= 32 ? 0xffffffffu : ~(0xffffffffu >> len);
    fmt_ip(pfx, sizeof pfx, net_htonl(addr & mask));
    fmt_snprintf(pfx + strlen(pfx), sizeof pfx - strlen(pfx), "/%u", len);
    struct nexthop e = nexthop_get(&netsvc.nht, nh);
    int group = nh && e.kind == NEXTHOP_GROUP ? (int)e.gw_be : -1;
    if (nh)
        describe_nexthop(nh, net_htonl(addr), via, sizeof via, &port);
    if (a->json) {
        struct json j;
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_str(&j, "address", a->argv[0]);
        if (nh) {
            json_str(&j, "prefix", pfx);
            json_str(&j, "nexthop", via);
            json_str(&j, "port", port);
            if (group >= 0)
                group_paths(&j, false, (unsigned)group);
        }
        json_bool(&j, "found", nh != 0);
        json_obj_end(&j);
        cli_json_end(&j);
    } else if (nh) {
        kprintf("%s via %s dev %s%s\n", pfx, via, port, group >= 0 ? ", equal-cost paths:" : "");
        if (group >= 0)
            group_paths(NULL, false, (unsigned)group);
    } else {
        kprintf("no route to %s\n", a->argv[0]);
    }
}

/* route add PREFIX via GATEWAY [via GATEWAY ...], route del PREFIX: IPv4
 * or IPv6. */
static void cmd_route_add(const struct cli_args *a)
{
    char err[96];
    const char *vias[NH_GROUP_PATHS];
    int n = a->argc >= 1 ? netsvc_parse_vias(a->argc - 1, a->argv + 1, vias) : -1;
    if (n < 0) {
        kprintf("usage: route add PREFIX via GATEWAY [via GATEWAY ...] (A.B.C.D/LEN via A.B.C.D, or X:X::/LEN "
                "via X:X::X; more than one: equal-cost paths, at most %u)\n", NH_GROUP_PATHS);
        return;
    }
    if (netsvc_route_change(a->argv[0], vias, (unsigned)n, err, sizeof err) != 0)
        kprintf("route add: %s\n", err);
}

static void cmd_route_del(const struct cli_args *a)
{
    char err[96];
    if (a->argc != 1) {
        kprintf("usage: route del PREFIX (A.B.C.D/LEN or X:X::/LEN)\n");
        return;
    }
    if (netsvc_route_change(a->argv[0], NULL, 0, err, sizeof err) != 0)
        kprintf("route del: %s\n", err);
}

static void clear_core(void *arg)
{
    struct netsvc_core *rc = arg;
    memset(&rc->stack.ctr, 0, sizeof rc->stack.ctr);
    memset(&rc->fwd.ctr, 0, sizeof rc->fwd.ctr);
    for (int p = 0; p < NET_MAX_PORTS; p++) { /* the VLAN sub-interfaces' */
        struct net_iface *ifc = &rc->stack.iface[p];
        ifc->sub_rx = ifc->sub_rx_bytes = ifc->sub_tx = ifc->sub_tx_bytes = 0;
    }
}

struct clear_queue {
    unsigned cpu;
};

static void clear_queues(void *arg)
{
    const struct clear_queue *q = arg;
    for (int p = 0; p < ports_count(); p++)
        memset(&ports_get(p)->stats[q->cpu], 0, sizeof ports_get(p)->stats[q->cpu]);
}

static void cmd_clear_counters(const struct cli_args *a)
{
    for (unsigned c = 0; c < cpu_count(); c++) {
        struct clear_queue q = {c};
        if (c < NETDEV_MAX_QUEUES) /* core c owns queue c; cores past the last own none */
            netsvc_on_core(c, clear_queues, &q);
        if (c < netsvc.ncores)
            netsvc_on_core(c, clear_core, netsvc.core[c]);
    }
}

static void describe_port(int port, enum ports_describe what, char *buf, size_t n)
{
    uint8_t a[16], plen;
    buf[0] = 0;
    if (port >= NET_MAX_PORTS)
        return;
    if (what == PORTS_VLAN) {
        if (netsvc.addr[port].vlan)
            fmt_snprintf(buf, n, "%u", netsvc.addr[port].vlan);
        return;
    }
    if (what == PORTS_SUBIFS) {
        netsvc_subif_names(port, buf, n);
        return;
    }
    if (what == PORTS_ADDR6) {
        if (!netsvc6_port_addr(port, a, &plen))
            return;
        fmt_ip6(buf, n, a);
    } else {
        if (!netsvc.addr[port].addr_be)
            return;
        fmt_ip(buf, n, netsvc.addr[port].addr_be);
        plen = netsvc.addr[port].prefix_len;
    }
    fmt_snprintf(buf + strlen(buf), n - strlen(buf), "/%u", plen);
}

void netsvc_cmds_init(void)
{
    cli_register("show stats", "show stats [json]", "stack and forwarding counters, all cores", cmd_show_stats);
    cli_register("show arp", "show arp [json]", "ARP caches of every core", cmd_show_arp);
    cli_register("show tcp", "show tcp [summary] [json]", "TCP connections of every core; or how many, by state",
                 netsvc_cmd_show_tcp);
    cli_register("show neighbors", "show neighbors [json]", "IPv6 neighbour caches of every core",
                 cmd_show_neighbors);
    cli_register("show route", "show route A.B.C.D|X:X::X|summary [json]", "longest match and next hop; table sizes",
                 cmd_show_route);
    cli_register("route add", "route add PREFIX via GATEWAY [via GATEWAY ...]",
                 "add or replace a route (IPv4 or IPv6; several gateways: equal-cost paths)", cmd_route_add);
    cli_register("route del", "route del PREFIX", "remove a route (IPv4 or IPv6)", cmd_route_del);
    cli_register("clear counters", "clear counters", "zero interface, stack and forwarding counters",
                 cmd_clear_counters);
    ports_set_describe(describe_port);
}
