/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_paths.c: the health of ECMP paths (net/fwd/
 * nexthop_group.h). Once a second, on core 0, each path of each group is
 * checked: its port's link up, and its neighbour answering (arp_probe,
 * nd6_probe ask it each time, as Linux's neighbour probes do); a path
 * whose neighbour has not answered for PATH_DEAD_NS goes out of its group
 * at once (its flows spread over the others) and comes back with the next
 * answer. A group just made gives its paths that long to answer first. */
#include "netsvc_impl.h"

#include "kernel/console/console.h"
#include "kernel/loop.h"
#include "kernel/time.h"
#include "lib/fmt.h"

#define PATH_PERIOD_NS 1000000000ull
#define PATH_DEAD_NS 3000000000ull /* three probes unanswered */

static struct loop_timer timer;
static uint64_t ok_ns[2][NH_GROUP_MAX][NH_GROUP_PATHS]; /* IPv4, IPv6: last answer (or the group's making) */
static uint64_t downs, ups;

void netsvc_paths_made(bool v6, unsigned group)
{
    uint64_t now = time_now_ns();
    for (unsigned i = 0; group < NH_GROUP_MAX && i < NH_GROUP_PATHS; i++)
        ok_ns[v6][group][i] = now;
}

static void set(struct nh_groups *t, bool v6, unsigned g, unsigned i, bool up, const char *gw)
{
    if (!nh_group_set_live(t, g, i, up))
        return;
    if (up)
        ups++;
    else
        downs++;
    kprintf("route: equal-cost path via %s %s\n", gw, up ? "back" : "down (link or neighbour)");
}

static void check4(struct net_stack *s, uint64_t now)
{
    struct nh_groups *t = &netsvc.nht.groups;
    for (unsigned g = 0; g < NH_GROUP_MAX; g++)
        for (unsigned i = 0; i < t->g[g].n; i++) {
            struct nexthop e = nexthop_get(&netsvc.nht, t->g[g].path[i]);
            const struct net_iface *ifc = net_iface_get(s, e.port);
            uint64_t seen = arp_probe(s, e.port, e.gw_be, now);
            if (seen > ok_ns[0][g][i])
                ok_ns[0][g][i] = seen;
            char gw[20];
            fmt_ip(gw, sizeof gw, e.gw_be);
            set(t, false, g, i, ifc && ifc->link_up && now - ok_ns[0][g][i] < PATH_DEAD_NS, gw);
        }
}

static void check6(struct net_stack *s, uint64_t now)
{
    struct nh_groups *t = &netsvc6_nexthops()->groups;
    for (unsigned g = 0; g < NH_GROUP_MAX; g++)
        for (unsigned i = 0; i < t->g[g].n; i++) {
            const struct fwd_nh6 *e = fwd_nh6_get(netsvc6_nexthops(), t->g[g].path[i]);
            struct net_iface *ifc = e ? net_iface_get(s, e->port) : NULL;
            if (ifc) {
                uint64_t seen = nd6_probe(s, ifc, e->gw, now);
                if (seen > ok_ns[1][g][i])
                    ok_ns[1][g][i] = seen;
            }
            char gw[48] = "?";
            if (e)
                fmt_ip6(gw, sizeof gw, e->gw);
            set(t, true, g, i, ifc && ifc->link_up && now - ok_ns[1][g][i] < PATH_DEAD_NS, gw);
        }
}

static void tick(void *arg, uint64_t now)
{
    struct net_stack *s = &netsvc.core[0]->stack;
    check4(s, now);
    check6(s, now);
    loop_timer_arm(&timer, now + PATH_PERIOD_NS);
}

uint64_t netsvc_paths_downs(void) { return downs; }
uint64_t netsvc_paths_ups(void) { return ups; }

void netsvc_paths_init(void)
{
    loop_timer_init(&timer, tick, NULL);
    loop_timer_arm(&timer, time_now_ns() + PATH_PERIOD_NS);
}
