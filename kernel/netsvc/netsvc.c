/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc.c: the network service's start (netsvc.h): which
 * ports it serves, a stack and forwarding state per core, and the poller
 * that drives them. Its configuration and routes are netsvc_route.c and
 * netsvc_route6.c, TCP's sizing netsvc_tcp.c, the cores' shared
 * neighbours netsvc_neigh.c, its commands netsvc_cmds.c.
 *
 * A port is served when it has an address (`interface ethN address`):
 * its apps answer there whether or not anything is routed.
 *
 * Data path: core c polls queue c of every served port, hands each burst
 * to the forwarding path (net/fwd/fwd.h: lookup, rewrite, one TX burst per
 * output port; to-us traffic into the core's stack), then lets the stack
 * run its timers. */
#include "netsvc_bgp.h"
#include "netsvc_impl.h"

#include "kernel/app_runner.h"
#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/loop.h"
#include "kernel/platform/percpu.h"
#include "kernel/mem/pktmem.h"
#include "kernel/ports.h"
#include "kernel/random.h"
#include "gen.h"
#include "xconnect.h"

#define NETSVC_BURST FWD_BURST_MAX
_Static_assert(PORTS_MAX <= NET_MAX_PORTS, "every port the kernel finds can be served");

struct netsvc netsvc;
const char netsvc_holder[] = "the router";

/* Served: it has an address, or one of its VLAN sub-interfaces has. */
static bool has_addr(int p) { return netsvc_port_has_addr(p) || netsvc_subifs_have_addr(p); }

static void core_poll(void *arg, uint64_t now_ns)
{
    struct netsvc_core *rc = arg;
    struct pkt *pkts[NETSVC_BURST];
    unsigned work = 0;
    for (uint16_t i = 0; i < rc->nports; i++) {
        uint16_t n = netdev_rx_burst(rc->ports[i], (uint16_t)rc->cpu, pkts, NETSVC_BURST);
        if (n) {
            net_tap(&rc->stack, rc->ports[i]->index, CAP_RX, pkts, n, NULL); /* a capture's, if one runs */
            fwd_burst(&rc->fwd, &rc->stack, pkts, n, now_ns);
            work += n;
        }
    }
    net_poll(&rc->stack, now_ns); /* cheap until a timer is due */
    net_flush(&rc->stack);
    if (work)
        loop_note_work(work);
}

static struct netsvc_core *core_setup(unsigned cpu)
{
    struct netsvc_core *rc = kalloc(sizeof *rc);
    rc->cpu = cpu;
    net_stack_init(&rc->stack, pktmem_pool(cpu), cpu);
    random_bytes(&rc->stack.ip6_frag_id, sizeof rc->stack.ip6_frag_id); /* RFC 7739: not guessable from scratch */
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++) {
        struct netdev *dev = ports_get(p);
        if (!has_addr(p) || cpu >= dev->nqueues)
            continue;
        net_iface_add(&rc->stack, dev, (uint16_t)cpu, netsvc.addr[p].addr_be, netsvc.addr[p].prefix_len);
        net_iface_get(&rc->stack, (uint16_t)p)->vlan_id = netsvc.addr[p].vlan; /* before fwd_sync: tagged ports take the stack's path */
        rc->ports[rc->nports++] = dev;
    }
    netsvc_subif_core(rc);
    netsvc_tcp_core(rc);
    netsvc_acl_core(rc);
    fwd_init(&rc->fwd, netsvc.rt4, &netsvc.nht);
    fwd_attach(&rc->fwd, &rc->stack);
    fwd_sync(&rc->fwd, &rc->stack);
    netsvc6_core_setup(rc);
    netsvc_neigh_share(rc);
    netsvc_neigh_static(rc);
    app_start_all(&rc->stack, cpu);
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
        if (has_addr(p))
            lanes = ports_get(p)->nqueues < lanes ? ports_get(p)->nqueues : lanes;
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++) {
        struct netdev *d = ports_get(p);
        if (!has_addr(p) || d->nqueues <= lanes)
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

/* What a port may send: forwarded, fragmented, TCP's MSS. */
static void apply_mtus(void)
{
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++) {
        struct netdev *d = ports_get(p);
        if (netsvc.addr[p].mtu && netsvc.addr[p].mtu < IP6_MIN_MTU && netsvc6_port_has_addr(p)) {
            kprintf("router: eth%d: mtu %u is under IPv6's minimum: 1280\n", p, netsvc.addr[p].mtu);
            netsvc.addr[p].mtu = IP6_MIN_MTU; /* RFC 8200 5 */
        }
        uint16_t want = netsvc.addr[p].mtu, most = netdev_max_mtu(d);
        if (want > most) {
            kprintf("router: eth%d: mtu %u is over what its driver (%s) takes: %u\n", p, want, d->driver, most);
            want = most;
        }
        if (want && want != d->mtu && d->ops->set_mtu && !d->ops->set_mtu(d, want))
            kprintf("router: eth%d: %s could not take mtu %u: %u stays\n", p, d->driver, want, d->mtu);
        else if (want)
            d->mtu = want;
    }
}

void netsvc_start(void)
{
    bool any = false;
    for (int p = 0; p < ports_count() && p < NET_MAX_PORTS; p++)
        any |= has_addr(p);
    apply_mtus(); /* (a port without an address too: the generator's, an xconnect's) */
    if (!any) { /* IPv6 too is on only where a port has an address (net/ip/ip6.c) */
        if (app_configured())
            kprintf("netsvc: no port has an address: the apps have nowhere to serve\n");
        return;
    }
    netsvc.ncores = cpu_count() < 64 ? cpu_count() : 64;
    equal_queues();
    netsvc_tcp_setup();
    netsvc_acl_start();
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        netsvc.core[c] = core_setup(c);
        if (netsvc.core[c]->nports)
            loop_add_poller(c, "router", core_poll, netsvc.core[c]);
    }
    netsvc_route_start();
    netsvc_paths_init();
    netsvc.started = true;
    netsvc_bgp_start();
}

void netsvc_init(void)
{
    netsvc_route_init();
    netsvc_tcp_init();
    netsvc_cmds_init();
    netsvc_neigh_init();
    xconnect_init();
    gen_init();
    netsvc_bgp_init();
    netsvc_capture_init();
    netsvc_acl_init();
    netsvc_subif_init();
}
