/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_bgp.c: the BGP speaker in core 0's loop (core 0
 * alone writes the route tables). Its sessions (bgp/bgp_fsm.h) run on
 * core 0's TCP: active opens from ports whose replies RSS brings back to
 * core 0, passive ones on a listener on port 179 of core 0's stack (a
 * peer's connection that RSS hands to another core finds nothing there
 * and is refused; our own open still brings the session up). UPDATEs go
 * through the import policy into the RIB (bgp/bgp_rib.h); every change of
 * a prefix's best path changes the FIB (netsvc_bgp_fib.c, which resolves
 * the next hops too) and is queued for each peer we export to. */
#include "netsvc_bgp.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/mem/heap.h"
#include "kernel/time.h"
#include "net/ip/ip.h"

#define TICK_NS 10000000ull /* timers and exports, when TCP has not said it took more */

struct bgp_svc bgp_svc;
static struct net_stack *stk; /* core 0's */
static struct loop_timer tick;

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

static void *a_alloc(void *ctx, size_t size)
{
    void *p = heap_alloc(round64(size));
    if (p)
        memset(p, 0, size);
    return p;
}

static void a_free(void *ctx, void *p, size_t size) { heap_free(p, round64(size)); }


/* Our open under way is dropped (it would else connect into the session
 * started after). */
static void abort_pending(struct bgp_svc_peer *p, uint64_t now)
{
    if (p->pending)
        tcp_abort(p->pending, now); /* no closed callback follows */
    p->pending = NULL;
}

/* ---- export ---- */

/* Nothing more can be kept for p (the queue cannot grow, no room for a
 * table's snapshot): its session ends, Cease "Out of Resources" (RFC 4486
 * 4), and starts again, from the tick (not inside the RIB's or the
 * session's callback); what it was told goes with it. */
static void export_out_of_memory(struct bgp_svc_peer *p)
{
    if (!p->overflow)
        p->n.export_overflows++;
    p->overflow = true;
}

static void reset_overflowed(struct bgp_svc_peer *p, uint64_t now)
{
    if (!p->overflow)
        return;
    p->overflow = false;
    kprintf("bgp: neighbor AS%u: no memory for what it is to be sent: session reset\n", p->as);
    abort_pending(p, now);
    bgp_fsm_stop(&p->fsm, 8, now);
    bgp_fsm_start(&p->fsm, now);
}

/* x's best path changed: p hears of it. The queue grows as it must (a
 * peer going down withdraws its whole table at once). */
static void queue_export(struct bgp_svc_peer *p, const struct bgp_prefix *x)
{
    if (p->overflow)
        return;
    if (p->q_n == p->q_cap) {
        uint32_t cap = p->q_cap * 2;
        struct bgp_prefix *q = cap <= BGP_EXPORT_QUEUE_MAX ? a_alloc(NULL, cap * sizeof *q) : NULL;
        if (!q) {
            export_out_of_memory(p);
            return;
        }
        for (uint32_t i = 0; i < p->q_n; i++)
            q[i] = p->q[(p->q_head + i) % p->q_cap];
        a_free(NULL, p->q, p->q_cap * sizeof *q);
        p->q = q;
        p->q_cap = cap;
        p->q_head = 0;
    }
    p->q[(p->q_head + p->q_n) % p->q_cap] = *x;
    p->q_n++;
}

static void snapshot_add(void *ctx, const struct bgp_route *r)
{
    struct bgp_svc_peer *p = ctx;
    if (r->best && p->snap_n < p->snap_cap)
        p->snap[p->snap_n++] = r->p;
}

static void snapshot_free(struct bgp_svc_peer *p)
{
    if (p->snap)
        a_free(NULL, p->snap, p->snap_cap * sizeof *p->snap);
    p->snap = NULL;
    p->snap_n = p->snap_at = p->snap_cap = 0;
}

/* The whole table for p (a new session, a route refresh): the prefixes
 * as they are now, each sent with its best path when its turn comes;
 * what changes meanwhile is queued as ever. Then End-of-RIB. */
static void send_table(struct bgp_svc_peer *p)
{
    snapshot_free(p);
    struct bgp_rib_stats st;
    bgp_rib_stats(&bgp_svc.rib, &st);
    if (st.prefixes) {
        p->snap = a_alloc(NULL, st.prefixes * sizeof *p->snap);
        if (!p->snap) {
            export_out_of_memory(p);
            return;
        }
        p->snap_cap = (uint32_t)st.prefixes;
        bgp_rib_walk(&bgp_svc.rib, BGP_AFI_IPV4, snapshot_add, p);
        bgp_rib_walk(&bgp_svc.rib, BGP_AFI_IPV6, snapshot_add, p);
    }
    p->eor_due = true;
}

static bool exporting(const struct bgp_svc_peer *p)
{
    return p->export_all && p->fsm.state == BGP_ESTABLISHED && !p->overflow;
}

/* Whether p may be told of best at all: not the peer it came from (it
 * has it), no iBGP route to an iBGP peer (RFC 4271 9.2), nothing marked
 * NO_ADVERTISE, nor NO_EXPORT to another AS (RFC 1997). */
static bool exportable(const struct bgp_svc_peer *p, const struct bgp_path *best)
{
    if (!best || best->peer == p->rib_peer)
        return false;
    bool ebgp = p->as != bgp_svc.as;
    if (!ebgp && best->peer != 0 && !bgp_svc.peer[best->peer - 1].fsm.ebgp)
        return false;
    if (!best->a->other_len)
        return true;
    unsigned wk = bgp_well_known_communities(bgp_aset_other(best->a), best->a->other_len);
    return !(wk & 2) && !(ebgp && (wk & 5)); /* NO_ADVERTISE; NO_EXPORT, NO_EXPORT_SUBCONFED */
}

static void best_changed(void *ctx, const struct bgp_route *r, const struct bgp_path *best,
                         const struct bgp_path *old)
{
    if (best && best->peer != 0)
        netsvc_bgp_fib_set(r, best);
    else if (old && old->peer != 0)
        netsvc_bgp_fib_del(r);
    /* a peer hears of it when it was told the old path or may be told the new */
    for (unsigned i = 0; i < bgp_svc.npeers; i++) {
        struct bgp_svc_peer *p = &bgp_svc.peer[i];
        if (exporting(p) && (exportable(p, best) || exportable(p, old)))
            queue_export(p, &r->p);
    }
}

/* What p is told of route r's best path: RFC 4271 5.1 and 9.1.3. */
static bool export_attrs(const struct bgp_svc_peer *p, const struct bgp_path *best, struct bgp_attrs *a)
{
    if (!exportable(p, best))
        return false;
    bool ebgp = p->as != bgp_svc.as;
    bgp_aset_get_attrs(best->a, a);
    a->has &= ~(uint32_t)(BGP_HAS_NEXT_HOP | BGP_HAS_MP_NH4 | BGP_HAS_MP_NH6 | BGP_HAS_MP_NH6_LL);
    if (ebgp) {
        /* 5.1.2: our AS first; 5.1.5: no LOCAL_PREF; 5.1.4: no MED from another AS */
        a->has &= ~(uint32_t)(BGP_HAS_LOCAL_PREF | BGP_HAS_MED);
        if (a->nasns + 1 > BGP_AS_PATH_MAX)
            return false;
        if (a->nsegs && a->segs[0].type == 2 && a->segs[0].count < 255) {
            a->segs[0].count++;
        } else {
            if (a->nsegs == 64)
                return false;
            memmove(&a->segs[1], &a->segs[0], a->nsegs * sizeof a->segs[0]);
            a->segs[0] = (struct bgp_as_seg){.type = 2, .count = 1};
            a->nsegs++;
        }
        memmove(&a->asns[1], &a->asns[0], a->nasns * sizeof a->asns[0]);
        a->asns[0] = bgp_svc.as;
        a->nasns++;
        a->path_len++;
        a->has |= BGP_HAS_AS_PATH;
    } else if (!(a->has & BGP_HAS_LOCAL_PREF)) {
        a->has |= BGP_HAS_LOCAL_PREF;
        a->local_pref = BGP_LOCAL_PREF_DEFAULT;
    }
    /* next hop self: our address on the peer's link */
    memcpy(a->nh4, p->self4, 4);
    memcpy(a->nh6, p->self6, 16);
    memcpy(a->nh6_ll, p->self6_ll, 16);
    a->has |= BGP_HAS_NEXT_HOP | BGP_HAS_MP_NH6 | BGP_HAS_MP_NH6_LL;
    return true;
}

/* One UPDATE under construction for a peer: announcements sharing one
 * attribute set, or withdrawals, of one family. */
struct bgp_export_msg {
    struct bgp_update_builder ub;
    const struct bgp_aset *set; /* NULL: withdrawals */
    uint8_t afi;
    bool open;
    uint8_t buf[BGP_MSG_MAX];
};

/* Sends the UPDATE being built, if any (the caller checked there is room). */
static void flush_msg(struct bgp_svc_peer *p, uint64_t now)
{
    struct bgp_export_msg *m = p->xm;
    if (!m->open)
        return;
    size_t n = bgp_ub_finish(&m->ub);
    m->open = false;
    if (m->set)
        bgp_aset_put(&bgp_svc.rib, m->set); /* held while its prefixes gathered: its address stays its own */
    if (!n || !m->ub.count || !bgp_fsm_send(&p->fsm, m->buf, (uint16_t)n, now))
        return;
    p->n.updates_out++;
    if (m->set)
        p->n.prefixes_out += m->ub.count;
    else
        p->n.withdrawals_out += m->ub.count;
}

/* Adds x (announced with set and attributes a, or withdrawn with set
 * NULL) to the UPDATE being built, sending that first when it is of
 * another set or family, or full. */
static void export_one(struct bgp_svc_peer *p, const struct bgp_prefix *x, const struct bgp_aset *set,
                       const struct bgp_attrs *a, uint64_t now)
{
    static const struct bgp_attrs none;
    struct bgp_export_msg *m = p->xm;
    for (int tries = 0; tries < 2; tries++) {
        if (!m->open || m->set != set || m->afi != x->afi) {
            flush_msg(p, now);
            if (!bgp_ub_begin(&m->ub, m->buf, sizeof m->buf, x->afi, set ? a : &none, p->fsm.as4, set == NULL))
                return; /* attributes too long for one message: not sent */
            m->open = true;
            m->set = set;
            m->afi = x->afi;
            if (set)
                bgp_aset_hold(&bgp_svc.rib, set);
        }
        if (bgp_ub_add(&m->ub, x))
            return;
        flush_msg(p, now);
    }
}

/* x's best path to p, or its withdrawal (not in a walk of the whole
 * table: nothing was said of it before). */
static void export_route(struct bgp_svc_peer *p, const struct bgp_prefix *x, const struct bgp_route *r, bool walk,
                         uint64_t now)
{
    static struct bgp_attrs a;
    static const uint8_t none6[16];
    if ((x->afi == BGP_AFI_IPV4 && !p->fsm.mp_v4) || (x->afi == BGP_AFI_IPV6 && !p->fsm.mp_v6))
        return;
    if (x->afi == BGP_AFI_IPV6 && memcmp(p->self6, none6, 16) == 0)
        return; /* no IPv6 address of ours on its link: no next hop to give */
    if (r && r->best && export_attrs(p, r->best, &a))
        export_one(p, x, r->best->a, &a, now);
    else if (!walk)
        export_one(p, x, NULL, NULL, now);
}

/* RFC 4724 2: End-of-RIB for each family, once the table has gone. */
static void send_eor(struct bgp_svc_peer *p, uint64_t now)
{
    static const uint8_t afis[2] = {BGP_AFI_IPV4, BGP_AFI_IPV6};
    static const struct bgp_attrs none;
    for (int k = 0; k < 2; k++)
        if (k ? p->fsm.mp_v6 : p->fsm.mp_v4) {
            struct bgp_update_builder ub;
            uint8_t eor[BGP_HDR_LEN + 16];
            bgp_ub_begin(&ub, eor, sizeof eor, afis[k], &none, p->fsm.as4, true);
            bgp_fsm_send(&p->fsm, eor, (uint16_t)bgp_ub_finish(&ub), now);
        }
    p->eor_due = false;
}

/* Sends what waits for p while its connection takes more: the table's
 * snapshot, End-of-RIB, then what changed. */
static void export_step(struct bgp_svc_peer *p, uint64_t now)
{
    if (!exporting(p))
        return;
    while (bgp_fsm_can_send(&p->fsm)) {
        if (p->snap_at < p->snap_n) {
            const struct bgp_prefix *x = &p->snap[p->snap_at++];
            export_route(p, x, bgp_rib_find(&bgp_svc.rib, x), true, now);
        } else if (p->eor_due) {
            flush_msg(p, now);
            snapshot_free(p);
            if (bgp_fsm_can_send(&p->fsm)) /* its room went to that message: the next step */
                send_eor(p, now);
        } else if (p->q_n) {
            struct bgp_prefix x = p->q[p->q_head];
            p->q_head = (p->q_head + 1) % p->q_cap;
            p->q_n--;
            export_route(p, &x, bgp_rib_find(&bgp_svc.rib, &x), false, now);
        } else {
            break;
        }
    }
    if (bgp_fsm_can_send(&p->fsm))
        flush_msg(p, now);
}

/* ---- import ---- */

static struct bgp_svc_peer *peer_of(void *ctx) { return ctx; }

static void on_update(void *ctx, const struct bgp_update *u)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    p->n.updates_in++;
    bgp_import(&bgp_svc.rib, p->rib_peer, u, p->import_all, p->self4, p->self6, &p->n.in);
    struct bgp_rib_peer_counts c;
    bgp_rib_peer_counts(&bgp_svc.rib, p->rib_peer, &c);
    if (p->max_prefix && c.received > p->max_prefix) { /* RFC 4486 4: Cease, Maximum Number of Prefixes Reached */
        p->n.max_prefix_hits++;
        kprintf("bgp: neighbor AS%u: %u prefixes, past max-prefix %u: session stopped (clear bgp starts it)\n",
                p->as, c.received, p->max_prefix);
        abort_pending(p, time_now_ns());
        bgp_fsm_stop(&p->fsm, 1, time_now_ns());
    }
}

static void on_refresh(void *ctx, uint16_t afi, uint8_t safi)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    if (exporting(p))
        send_table(p); /* RFC 2918 4: the Adj-RIB-Out again */
}

/* ---- session events ---- */

static void self_addresses(struct bgp_svc_peer *p)
{
    uint32_t be;
    memcpy(&be, p->addr, 4);
    p->port = p->v6 ? netsvc6_port_for_gateway(p->addr) : netsvc_port_for_gateway(be);
    memset(p->self4, 0, 4);
    memset(p->self6, 0, 16);
    memset(p->self6_ll, 0, 16);
    if (p->port < 0)
        return;
    memcpy(p->self4, &netsvc.addr[p->port].addr_be, 4);
    uint8_t plen;
    netsvc6_port_addr(p->port, p->self6, &plen);
    const struct net_iface *ifc = &stk->iface[p->port];
    memcpy(p->self6_ll, ifc->ll6, 16);
}

static void on_up(void *ctx)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    struct bgp_peer_facts f = {.as = p->as, .router_id = p->fsm.peer_id, .ebgp = p->fsm.ebgp,
                               .afi = p->v6 ? BGP_AFI_IPV6 : BGP_AFI_IPV4};
    memcpy(f.addr, p->addr, 16);
    bgp_rib_set_peer(&bgp_svc.rib, p->rib_peer, &f);
    self_addresses(p);
    p->q_head = p->q_n = 0;
    if (p->export_all)
        send_table(p);
    if (!p->fsm.hold_s) { /* no hold timer: TCP's keepalives find a peer gone */
        struct bgp_conn *c = p->fsm.conn[0].state == BGP_ESTABLISHED ? &p->fsm.conn[0] : &p->fsm.conn[1];
        tcp_set_keepalive(c->tcp, 60 * 1000000000ull, 10 * 1000000000ull, 6);
    }
    kprintf("bgp: neighbor AS%u up\n", p->as);
}

static void on_down(void *ctx, const struct bgp_error *e, bool sent)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    uint32_t n = bgp_rib_peer_down(&bgp_svc.rib, p->rib_peer);
    p->q_head = p->q_n = 0;
    p->eor_due = false;
    snapshot_free(p);
    if (p->xm->open) {
        p->xm->open = false;
        if (p->xm->set)
            bgp_aset_put(&bgp_svc.rib, p->xm->set);
    }
    kprintf("bgp: neighbor AS%u down (%s %s), %u paths removed\n", p->as, sent ? "sent" : "received",
            e->code ? bgp_error_name(e->code, e->subcode) : "connection closed", n);
}

/* ---- TCP ---- */

static void t_recv(void *ctx, struct tcp_conn *c, struct pkt *pk, uint64_t now)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    bgp_fsm_input(&p->fsm, c, pk->data, pk->len, now);
    pkt_free(pk);
    export_step(p, now);
}

static void t_connected(void *ctx, struct tcp_conn *c, uint64_t now)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    if (c == p->pending)
        p->pending = NULL;
    bgp_fsm_connected(&p->fsm, c, now);
}

static void t_acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    bgp_fsm_poll(&p->fsm, now); /* what waited in the session goes first */
    export_step(p, now);
}

static void t_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    if (c == p->pending) { /* our open, refused or timed out */
        p->pending = NULL;
        bgp_fsm_closed(&p->fsm, NULL, now);
    } else if (p->fsm.conn[0].tcp == c || p->fsm.conn[1].tcp == c) {
        bgp_fsm_closed(&p->fsm, c, now);
    }
}

static void t_peer_fin(void *ctx, struct tcp_conn *c, uint64_t now)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    if (p->fsm.conn[0].tcp == c || p->fsm.conn[1].tcp == c)
        bgp_fsm_closed(&p->fsm, c, now);
    tcp_close(c, now);
}

static const struct tcp_callbacks conn_cb = {.connected = t_connected, .recv = t_recv, .acked = t_acked,
                                             .peer_fin = t_peer_fin, .closed = t_closed};

static void t_accepted(void *ctx, struct tcp_conn *c, uint64_t now)
{
    struct tcp_info ti;
    tcp_get_info(c, &ti);
    struct bgp_svc_peer *p = ti.v6 ? netsvc_bgp_peer_by_addr(true, ti.raddr6)
                                   : netsvc_bgp_peer_by_addr(false, (const uint8_t *)&ti.raddr_be);
    if (!p) {
        tcp_abort(c, now); /* not a neighbour of ours */
        return;
    }
    tcp_set_ctx(c, &conn_cb, p);
    if (!bgp_fsm_accept(&p->fsm, c, now))
        tcp_abort(c, now);
}

static const struct tcp_callbacks listen_cb = {.accepted = t_accepted};

static bool f_connect(void *ctx)
{
    struct bgp_svc_peer *p = peer_of(ctx);
    uint64_t now = time_now_ns();
    uint32_t be;
    memcpy(&be, p->addr, 4);
    p->pending = p->v6 ? tcp_connect6_from(stk, 0, p->addr, BGP_PORT, &conn_cb, p, now)
                       : tcp_connect(stk, be, BGP_PORT, &conn_cb, p, now);
    return p->pending != NULL;
}

static uint32_t f_write(void *ctx, void *conn, const uint8_t *b, uint32_t n)
{
    return tcp_write(conn, b, n, time_now_ns());
}

static void f_close(void *ctx, void *conn) { tcp_close(conn, time_now_ns()); }

static void tick_fn(void *arg, uint64_t now)
{
    netsvc_bgp_pace_fib();
    for (unsigned i = 0; i < bgp_svc.npeers; i++) {
        struct bgp_svc_peer *p = &bgp_svc.peer[i];
        reset_overflowed(p, now);
        bgp_fsm_poll(&p->fsm, now);
        export_step(p, now);
    }
    loop_timer_arm(&tick, now + TICK_NS);
}

bool netsvc_bgp_clear(struct bgp_svc_peer *p)
{
    if (!p->xm)
        return false; /* never started (no memory at boot) */
    uint64_t now = time_now_ns();
    abort_pending(p, now);
    bgp_fsm_stop(&p->fsm, 4, now); /* RFC 4486 4: Cease, Administrative Reset */
    bgp_fsm_start(&p->fsm, now);
    return true;
}

/* Our `bgp network` prefixes: peer 0's paths, origin IGP, an empty AS
 * path (RFC 4271 5.1.2: ours is added towards eBGP peers). */
static void originate(void)
{
    static struct bgp_attrs a;
    a.has = BGP_HAS_ORIGIN | BGP_HAS_AS_PATH;
    a.origin = BGP_ORIGIN_IGP;
    const struct bgp_aset *set = bgp_aset_intern(&bgp_svc.rib, &a);
    for (unsigned i = 0; set && i < bgp_svc.nnetworks; i++)
        bgp_rib_announce(&bgp_svc.rib, 0, &bgp_svc.network[i], set);
    if (set)
        bgp_aset_put(&bgp_svc.rib, set);
}

void netsvc_bgp_start(void)
{
    if (!bgp_svc.configured)
        return;
    if (!bgp_svc.as) {
        kprintf("bgp: no `bgp as N`: not started\n");
        return;
    }
    if (!bgp_svc.router_id) /* RFC 6286: any unique 32 bits; the first port's address */
        for (int p = 0; p < NET_MAX_PORTS && !bgp_svc.router_id; p++)
            bgp_svc.router_id = net_ntohl(netsvc.addr[p].addr_be);
    stk = &netsvc.core[0]->stack;
    static const struct bgp_alloc al = {.alloc = a_alloc, .free = a_free};
    static const struct bgp_rib_ops rops = {
        .resolve = netsvc_bgp_resolve, .best_changed = best_changed, .multipath_changed = netsvc_bgp_multipath_changed};
    if (bgp_rib_init(&bgp_svc.rib, &al, &rops, bgp_svc.as, bgp_svc.router_id) != 0) {
        kprintf("bgp: no memory for the RIB\n");
        return;
    }
    bgp_rib_set_multipath(&bgp_svc.rib, bgp_svc.multipath);
    if (tcp_listen(stk, BGP_PORT, &listen_cb, NULL) != 0)
        kprintf("bgp: cannot listen on port 179 (an app holds it?): passive neighbours will not come up\n");
    originate();
    uint64_t now = time_now_ns();
    for (unsigned i = 0; i < bgp_svc.npeers; i++) {
        struct bgp_svc_peer *p = &bgp_svc.peer[i];
        bool ibgp = p->as == bgp_svc.as;
        p->import_all = p->import_cfg >= 0 ? p->import_cfg : ibgp; /* RFC 8212 */
        p->export_all = p->export_cfg >= 0 ? p->export_cfg : ibgp;
        struct bgp_fsm_config cfg = {.local_as = bgp_svc.as, .router_id = bgp_svc.router_id, .peer_as = p->as,
                                     .hold_s = p->hold_s, .passive = p->passive, .mp_v4 = true, .mp_v6 = true};
        struct bgp_fsm_ops ops = {.connect = f_connect, .write = f_write, .close = f_close, .up = on_up,
                                  .down = on_down, .update = on_update, .refresh = on_refresh, .ctx = p};
        bgp_fsm_init(&p->fsm, &cfg, &ops);
        p->q_cap = BGP_EXPORT_QUEUE;
        p->q = a_alloc(NULL, BGP_EXPORT_QUEUE * sizeof *p->q);
        p->xm = a_alloc(NULL, sizeof *p->xm);
        if (!p->q || !p->xm) {
            kprintf("bgp: no memory for neighbor AS%u\n", p->as);
            continue;
        }
        self_addresses(p);
        bgp_fsm_start(&p->fsm, now);
    }
    bgp_svc.started = true;
    loop_timer_init(&tick, tick_fn, NULL);
    loop_timer_arm(&tick, now + TICK_NS);
    kprintf("bgp: AS%u router-id %u.%u.%u.%u, %u neighbors, %u networks\n", bgp_svc.as, bgp_svc.router_id >> 24,
            bgp_svc.router_id >> 16 & 255, bgp_svc.router_id >> 8 & 255, bgp_svc.router_id & 255, bgp_svc.npeers,
            bgp_svc.nnetworks);
}
