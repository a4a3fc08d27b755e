/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/fsm_sessions.c: two BGP sessions (bgp/bgp_fsm.c) talking
 * over an in-memory transport: establishment, connection collision (RFC
 * 4271 6.8), the hold and keepalive timers, OPEN refusals, NOTIFICATIONs
 * both ways, ManualStop, restarting, and UPDATEs handed on parsed. */
#include <stdlib.h>

#include "bgp/bgp_fsm.h"
#include "tests/unit/check.h"

#define SEC 1000000000ull

struct side;
struct tconn {
    struct side *owner;
    struct tconn *peer;
    bool open, closed_told;
    uint32_t n, cap;
    uint8_t q[3 * BGP_MSG_MAX];
};

struct side {
    struct bgp_fsm f;
    struct side *remote;
    bool accept_fails;
    int connects, ups, downs, updates, refreshes;
    struct bgp_error down_err;
    bool down_sent;
    uint32_t prefixes;
    struct tconn *pending; /* an active open on its way */
};

static struct tconn *tconn_new(struct side *owner)
{
    struct tconn *c = calloc(1, sizeof *c);
    c->owner = owner;
    c->open = true;
    c->cap = sizeof c->q;
    return c;
}

static bool t_connect(void *ctx)
{
    struct side *s = ctx;
    s->connects++;
    s->pending = tconn_new(s);
    return true;
}

static uint32_t t_write(void *ctx, void *conn, const uint8_t *b, uint32_t n)
{
    struct tconn *c = conn;
    if (!c->open)
        return n;
    uint32_t k = c->cap - c->n < n ? c->cap - c->n : n;
    memcpy(c->q + c->n, b, k);
    c->n += k;
    return k;
}

static void t_close(void *ctx, void *conn) { ((struct tconn *)conn)->open = false; }
static void t_up(void *ctx) { ((struct side *)ctx)->ups++; }

static void t_down(void *ctx, const struct bgp_error *e, bool sent)
{
    struct side *s = ctx;
    s->downs++;
    s->down_err = *e;
    s->down_sent = sent;
}

static void t_update(void *ctx, const struct bgp_update *u)
{
    struct side *s = ctx;
    s->updates++;
    const uint8_t *p = u->nlri4;
    struct bgp_prefix pfx;
    while (u->verdict == BGP_UPD_OK && bgp_nlri_next(&p, u->nlri4 + u->nlri4_len, BGP_AFI_IPV4, &pfx))
        s->prefixes++;
}

static void t_refresh(void *ctx, uint16_t afi, uint8_t safi) { ((struct side *)ctx)->refreshes++; }

static const struct bgp_fsm_ops ops = {.connect = t_connect, .write = t_write, .close = t_close, .up = t_up,
                                       .down = t_down, .update = t_update, .refresh = t_refresh};

static void side_init(struct side *s, uint32_t as, uint32_t id, uint32_t peer_as, bool passive)
{
    memset(s, 0, sizeof *s);
    struct bgp_fsm_config cfg = {.local_as = as, .router_id = id, .peer_as = peer_as, .hold_s = 90,
                                 .passive = passive, .mp_v4 = true, .mp_v6 = true};
    struct bgp_fsm_ops o = ops;
    o.ctx = s;
    bgp_fsm_init(&s->f, &cfg, &o);
}

/* Every connection ever made, to deliver and free. */
static struct tconn *conns[64];
static int nconns;

static void keep(struct tconn *c)
{
    if (nconns < 64)
        conns[nconns++] = c;
}

/* Delivers what waits: pending opens (accepted or refused), bytes, closes. */
static void pump(struct side *a, struct side *b, uint64_t now)
{
    for (int round = 0; round < 50; round++) {
        bool moved = false;
        struct side *sides[2] = {a, b};
        for (int i = 0; i < 2; i++) {
            struct side *s = sides[i];
            struct tconn *c = s->pending;
            if (!c)
                continue;
            s->pending = NULL;
            moved = true;
            struct tconn *r = tconn_new(s->remote);
            c->peer = r;
            r->peer = c;
            keep(c);
            keep(r);
            if (!s->remote->accept_fails && bgp_fsm_accept(&s->remote->f, r, now)) {
                bgp_fsm_connected(&s->f, c, now);
            } else {
                c->open = r->open = false;
                c->closed_told = r->closed_told = true;
                bgp_fsm_closed(&s->f, NULL, now);
            }
        }
        for (int i = 0; i < nconns; i++) {
            struct tconn *c = conns[i];
            if (c->n && c->peer && c->peer->open) {
                uint32_t n = c->n;
                c->n = 0;
                uint8_t *copy = malloc(n);
                memcpy(copy, c->q, n);
                bgp_fsm_input(&c->peer->owner->f, c->peer, copy, n, now);
                free(copy);
                moved = true;
            }
            if (!c->open && !c->n && c->peer && c->peer->open && !c->peer->closed_told) {
                c->peer->open = false;
                c->peer->closed_told = true;
                bgp_fsm_closed(&c->peer->owner->f, c->peer, now);
                moved = true;
            }
        }
        bgp_fsm_poll(&a->f, now);
        bgp_fsm_poll(&b->f, now);
        for (int i = 0; i < nconns; i++)
            moved |= conns[i]->n && conns[i]->peer && conns[i]->peer->open;
        if (!moved && !a->pending && !b->pending)
            return;
    }
}

static void free_conns(void)
{
    for (int i = 0; i < nconns; i++)
        free(conns[i]);
    nconns = 0;
}

static void pair(struct side *a, struct side *b)
{
    a->remote = b;
    b->remote = a;
}

/* A (AS 65001, opens) and B (AS 65002, passive), started and talked. */
static void start_pair(struct side *a, struct side *b)
{
    side_init(a, 65001, 0x01010101, 65002, false);
    side_init(b, 65002, 0x02020202, 65001, true);
    pair(a, b);
    bgp_fsm_start(&b->f, 0);
    bgp_fsm_start(&a->f, 0);
    pump(a, b, 0);
}

/* The connection a session is Established on. */
static struct bgp_conn *live(struct side *s) { return s->f.conn[0].tcp ? &s->f.conn[0] : &s->f.conn[1]; }

TEST(bgp_fsm_establishes_active_to_passive)
{
    static struct side a, b;
    side_init(&a, 65001, 0x01010101, 65002, false);
    side_init(&b, 65002, 0x02020202, 65001, true);
    pair(&a, &b);
    bgp_fsm_start(&b.f, 0);
    CHECK_EQ(b.f.state, BGP_ACTIVE);
    bgp_fsm_start(&a.f, 0);
    CHECK_EQ(a.f.state, BGP_CONNECT);
    pump(&a, &b, 0);
    CHECK_EQ(a.f.state, BGP_ESTABLISHED);
    CHECK_EQ(b.f.state, BGP_ESTABLISHED);
    CHECK_EQ(a.ups, 1);
    CHECK_EQ(b.ups, 1);
    CHECK_EQ(b.connects, 0); /* passive */
    CHECK_EQ(a.f.st.msgs_out[BGP_OPEN], 1);
    CHECK_EQ(b.f.st.msgs_in[BGP_OPEN], 1);
    CHECK_EQ(a.f.hold_s, 90);
    CHECK(a.f.as4 && a.f.ebgp && a.f.mp_v4 && a.f.mp_v6 && a.f.route_refresh);
    CHECK_EQ(a.f.peer_id, 0x02020202);
    free_conns();
}

TEST(bgp_fsm_collision_keeps_the_higher_identifiers_connection)
{
    static struct side a, b;
    side_init(&a, 65001, 0x01010101, 65002, false);
    side_init(&b, 65002, 0x02020202, 65001, false);
    pair(&a, &b);
    bgp_fsm_start(&a.f, 0);
    bgp_fsm_start(&b.f, 0);
    pump(&a, &b, 0);
    CHECK_EQ(a.f.state, BGP_ESTABLISHED);
    CHECK_EQ(b.f.state, BGP_ESTABLISHED);
    CHECK_EQ(a.ups, 1);
    CHECK_EQ(b.ups, 1);
    /* B's identifier is higher: the connection B opened stays (6.8) */
    CHECK_EQ(b.f.conn[0].state, BGP_ESTABLISHED);
    CHECK(b.f.conn[1].tcp == NULL);
    CHECK_EQ(a.f.conn[1].state, BGP_ESTABLISHED);
    CHECK(a.f.conn[0].tcp == NULL);
    CHECK_EQ(a.f.st.collisions, 1); /* each side saw two connections */
    CHECK_EQ(b.f.st.collisions, 1);
    CHECK_EQ(a.downs + b.downs, 0);
    free_conns();
}

TEST(bgp_fsm_hold_timer_and_keepalives)
{
    static struct side a, b;
    side_init(&a, 65001, 0x01010101, 65002, false);
    side_init(&b, 65002, 0x02020202, 65001, true);
    b.f.cfg.hold_s = 30; /* the lower offer wins (RFC 4271 4.2) */
    pair(&a, &b);
    bgp_fsm_start(&b.f, 0);
    bgp_fsm_start(&a.f, 0);
    pump(&a, &b, 0);
    CHECK_EQ(a.f.hold_s, 30);
    uint64_t ka0 = a.f.st.msgs_out[BGP_KEEPALIVE];
    for (uint64_t t = 1; t <= 100; t++)
        pump(&a, &b, t * SEC);
    /* one every 10 s, and the session holds */
    CHECK_EQ(a.f.st.msgs_out[BGP_KEEPALIVE] - ka0, 10);
    CHECK_EQ(a.f.state, BGP_ESTABLISHED);
    /* B falls silent: A's hold timer ends it 30 s after the last message */
    uint64_t t = 101;
    for (; t <= 140 && !a.f.st.hold_expired; t++) {
        for (int i = 0; i < nconns; i++)
            if (conns[i]->owner == &b)
                conns[i]->n = 0;
        bgp_fsm_poll(&a.f, t * SEC);
    }
    CHECK_EQ(t - 1, 130);
    CHECK_EQ(a.f.st.hold_expired, 1);
    CHECK_EQ(a.downs, 1);
    CHECK_EQ(a.down_err.code, BGP_ERR_HOLD);
    CHECK(a.down_sent);
    CHECK_EQ(a.f.state, BGP_IDLE); /* until its IdleHoldTime has passed */
    pump(&a, &b, 141 * SEC); /* B hears the NOTIFICATION */
    CHECK_EQ(b.downs, 1);
    CHECK_EQ(b.down_err.code, BGP_ERR_HOLD);
    CHECK(!b.down_sent);
    /* A starts again after its idle hold and the session comes back */
    for (t = 142; t <= 160; t++)
        pump(&a, &b, t * SEC);
    CHECK_EQ(a.f.state, BGP_ESTABLISHED);
    CHECK_EQ(a.ups, 2);
    CHECK_EQ(b.ups, 2);
    free_conns();
}

TEST(bgp_fsm_refuses_a_wrong_peer_as)
{
    static struct side a, b;
    side_init(&a, 65001, 0x01010101, 65002, false);
    side_init(&b, 65002, 0x02020202, 65009, true); /* B expects AS 65009 */
    pair(&a, &b);
    bgp_fsm_start(&b.f, 0);
    bgp_fsm_start(&a.f, 0);
    pump(&a, &b, 0);
    CHECK(a.f.state != BGP_ESTABLISHED);
    CHECK_EQ(b.f.last_err.code, BGP_ERR_OPEN);
    CHECK_EQ(b.f.last_err.subcode, 2);
    CHECK(b.f.last_err_sent);
    CHECK_EQ(a.f.last_err.code, BGP_ERR_OPEN);
    CHECK(!a.f.last_err_sent);
    CHECK_EQ(a.ups + b.ups, 0);
    CHECK_EQ(a.downs + b.downs, 0); /* never up, never down */
    free_conns();
}

TEST(bgp_fsm_refuses_an_ibgp_peer_with_our_identifier)
{
    static struct side a, b;
    side_init(&a, 65001, 0x01010101, 65001, false);
    side_init(&b, 65001, 0x01010101, 65001, true);
    pair(&a, &b);
    bgp_fsm_start(&b.f, 0);
    bgp_fsm_start(&a.f, 0);
    pump(&a, &b, 0);
    CHECK_EQ(b.f.last_err.code, BGP_ERR_OPEN);
    CHECK_EQ(b.f.last_err.subcode, 3);
    CHECK_EQ(a.ups + b.ups, 0);
    free_conns();
}

TEST(bgp_fsm_manual_stop_sends_cease)
{
    static struct side a, b;
    start_pair(&a, &b);
    bgp_fsm_stop(&a.f, 0, SEC);
    CHECK_EQ(a.f.state, BGP_IDLE);
    CHECK_EQ(a.downs, 1);
    pump(&a, &b, SEC);
    CHECK_EQ(b.downs, 1);
    CHECK_EQ(b.down_err.code, BGP_ERR_CEASE);
    CHECK_EQ(b.down_err.subcode, 2);
    CHECK_EQ(b.f.state, BGP_IDLE); /* its IdleHoldTime */
    for (uint64_t t = 2; t < 60; t++)
        pump(&a, &b, t * SEC);
    CHECK_EQ(b.f.state, BGP_ACTIVE); /* passive: waits for A */
    CHECK_EQ(a.f.state, BGP_IDLE); /* stopped stays stopped */
    CHECK_EQ(a.connects, 1);
    CHECK_EQ(a.ups, 1);
    free_conns();
}

TEST(bgp_fsm_retries_a_refused_connection)
{
    static struct side a, b;
    side_init(&a, 65001, 0x01010101, 65002, false);
    side_init(&b, 65002, 0x02020202, 65001, true);
    pair(&a, &b);
    b.accept_fails = true;
    bgp_fsm_start(&a.f, 0);
    bgp_fsm_start(&b.f, 0);
    pump(&a, &b, 0);
    CHECK_EQ(a.f.state, BGP_ACTIVE);
    CHECK_EQ(a.f.st.connect_fails, 1);
    b.accept_fails = false;
    for (uint64_t t = 1; t <= 9; t++)
        pump(&a, &b, t * SEC);
    CHECK_EQ(a.connects, 1); /* not before ConnectRetryTime */
    pump(&a, &b, 10 * SEC);
    CHECK_EQ(a.connects, 2);
    CHECK_EQ(a.f.state, BGP_ESTABLISHED);
    free_conns();
}

TEST(bgp_fsm_unexpected_message_is_an_fsm_error)
{
    static struct side a, b;
    start_pair(&a, &b);
    /* a second OPEN on an Established session: RFC 6608 3, subcode 3 */
    uint8_t m[256];
    struct bgp_open o = {.version = 4, .as = 65002, .hold = 90, .id = 0x02020202};
    size_t n = bgp_open_encode(m, sizeof m, &o);
    struct bgp_conn *c = live(&a);
    bgp_fsm_input(&a.f, c->tcp, m, (uint32_t)n, SEC);
    CHECK_EQ(a.downs, 1);
    CHECK_EQ(a.down_err.code, BGP_ERR_FSM);
    CHECK_EQ(a.down_err.subcode, 3);
    free_conns();
}

TEST(bgp_fsm_bad_header_resets_and_bytes_may_come_one_at_a_time)
{
    static struct side a, b;
    start_pair(&a, &b);
    struct bgp_conn *c = live(&a);
    uint8_t ka[BGP_HDR_LEN];
    bgp_keepalive_encode(ka);
    uint64_t before = a.f.st.msgs_in[BGP_KEEPALIVE];
    for (int i = 0; i < BGP_HDR_LEN; i++)
        bgp_fsm_input(&a.f, c->tcp, ka + i, 1, SEC);
    CHECK_EQ(a.f.st.msgs_in[BGP_KEEPALIVE], before + 1);
    ka[3] = 0; /* the marker broken: 6.1, Connection Not Synchronized */
    bgp_fsm_input(&a.f, c->tcp, ka, sizeof ka, SEC);
    CHECK_EQ(a.downs, 1);
    CHECK_EQ(a.down_err.code, BGP_ERR_HEADER);
    CHECK_EQ(a.down_err.subcode, 1);
    free_conns();
}

TEST(bgp_fsm_updates_flow_and_a_malformed_one_resets)
{
    static struct side a, b;
    start_pair(&a, &b);
    static struct bgp_attrs at;
    memset(&at, 0, sizeof at);
    at.has = BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_NEXT_HOP;
    at.nsegs = 1;
    at.segs[0] = (struct bgp_as_seg){.type = 2, .count = 1};
    at.nasns = 1;
    at.asns[0] = 65001;
    at.path_len = 1;
    memcpy(at.nh4, (uint8_t[]){10, 0, 0, 1}, 4);
    static uint8_t m[BGP_MSG_MAX];
    struct bgp_update_builder ub;
    uint32_t sent = 0, msgs = 0;
    struct bgp_prefix p = {.afi = BGP_AFI_IPV4, .len = 24, .addr = {198, 18, 0, 0}};
    while (sent < 3000) {
        CHECK(bgp_ub_begin(&ub, m, sizeof m, BGP_AFI_IPV4, &at, true, false));
        while (sent < 3000 && bgp_ub_add(&ub, &p)) {
            sent++;
            p.addr[1] = (uint8_t)(18 + sent / 256);
            p.addr[2] = (uint8_t)sent;
        }
        size_t n = bgp_ub_finish(&ub);
        while (!bgp_fsm_send(&a.f, m, (uint16_t)n, SEC)) /* back-pressure: the transport takes 12 KB at once */
            pump(&a, &b, SEC);
        msgs++;
    }
    pump(&a, &b, SEC);
    CHECK_EQ(b.updates, msgs);
    CHECK_EQ(b.prefixes, 3000);
    CHECK_EQ(b.f.st.msgs_in[BGP_UPDATE], msgs);
    /* an NLRI of /33: RFC 7606 5.3, the session is reset (3/10 Invalid Network Field) */
    CHECK(bgp_ub_begin(&ub, m, sizeof m, BGP_AFI_IPV4, &at, true, false));
    p.len = 8;
    CHECK(bgp_ub_add(&ub, &p));
    size_t n = bgp_ub_finish(&ub);
    m[n - 2] = 33;
    CHECK(bgp_fsm_send(&a.f, m, (uint16_t)n, 2 * SEC));
    pump(&a, &b, 2 * SEC);
    CHECK_EQ(b.downs, 1);
    CHECK(b.down_sent);
    CHECK_EQ(b.down_err.code, BGP_ERR_UPDATE);
    CHECK_EQ(b.f.st.reasons[BGP_R_NLRI_MALFORMED], 1);
    CHECK_EQ(a.downs, 1);
    free_conns();
}
