/* SPDX-License-Identifier: MIT */
/* bgp/bgp_fsm.c: one BGP session (bgp_fsm.h): RFC 4271 8's states,
 * timers and messages, 6.8's connection collision, RFC 7606's verdicts
 * applied (a reset is the session's, a treat-as-withdraw the routes'). */
#include "bgp_fsm.h"

#define SEC 1000000000ull
#define OPEN_HOLD_S 240    /* RFC 4271 8.2.2: "a large value", 4 minutes suggested, until the OPEN */
#define IDLE_HOLD_S 5      /* after a session ends, before it starts again (8.1.1 IdleHoldTimer) */
/* ConnectRetryTime: RFC 4271 10 suggests 120 s; a router whose peer
 * rebooted should not wait that long, and one peer's retries cost
 * nothing. */
#define RETRY_DEFAULT_S 10

/* RFC 6608 3: the FSM error subcodes; RFC 4486 3: Cease subcodes. */
enum { FSM_IN_OPENSENT = 1, FSM_IN_OPENCONFIRM = 2, FSM_IN_ESTABLISHED = 3 };
enum { CEASE_ADMIN_SHUTDOWN = 2, CEASE_COLLISION = 7 };

static const char *const state_names[] = {"Idle", "Connect", "Active", "OpenSent", "OpenConfirm", "Established"};

const char *bgp_state_name(uint8_t state) { return state < 6 ? state_names[state] : "?"; }

void bgp_fsm_init(struct bgp_fsm *f, const struct bgp_fsm_config *cfg, const struct bgp_fsm_ops *ops)
{
    __builtin_memset(f, 0, sizeof *f);
    f->cfg = *cfg;
    if (!f->cfg.connect_retry_s)
        f->cfg.connect_retry_s = RETRY_DEFAULT_S;
    f->ops = *ops;
    f->state = BGP_IDLE;
}

static struct bgp_conn *conn_of(struct bgp_fsm *f, void *tcp)
{
    for (int i = 0; i < 2; i++)
        if (tcp && f->conn[i].tcp == tcp)
            return &f->conn[i];
    return 0;
}

static struct bgp_conn *other(struct bgp_fsm *f, struct bgp_conn *c) { return &f->conn[c == &f->conn[0]]; }

/* The session's state: its most advanced connection's, or where it waits. */
static void recompute_state(struct bgp_fsm *f)
{
    uint8_t s = 0;
    for (int i = 0; i < 2; i++)
        if (f->conn[i].tcp && f->conn[i].state > s)
            s = f->conn[i].state;
    if (s >= BGP_OPENSENT)
        f->state = s;
    else if (!f->started || f->idle_until)
        f->state = BGP_IDLE;
    else
        f->state = f->connecting ? BGP_CONNECT : BGP_ACTIVE;
}

static void flush(struct bgp_fsm *f, struct bgp_conn *c)
{
    if (!c->tcp || !c->tx_len)
        return;
    uint32_t took = f->ops.write(f->ops.ctx, c->tcp, c->tx, c->tx_len);
    if (took > c->tx_len)
        took = c->tx_len;
    __builtin_memmove(c->tx, c->tx + took, c->tx_len - took);
    c->tx_len = (uint16_t)(c->tx_len - took);
}

/* Queues a message behind what waits, then writes what the transport
 * takes. False (nothing queued) when it does not fit. */
static bool send_msg(struct bgp_fsm *f, struct bgp_conn *c, const uint8_t *m, size_t n)
{
    if (!c->tcp || c->tx_len + n > sizeof c->tx)
        return false;
    __builtin_memcpy(c->tx + c->tx_len, m, n);
    c->tx_len = (uint16_t)(c->tx_len + n);
    uint8_t type = m[18];
    if (type >= 1 && type <= 5)
        f->st.msgs_out[type]++;
    flush(f, c);
    return true;
}

static void send_keepalive(struct bgp_fsm *f, struct bgp_conn *c)
{
    uint8_t m[BGP_HDR_LEN];
    send_msg(f, c, m, bgp_keepalive_encode(m));
}

static void send_open(struct bgp_fsm *f, struct bgp_conn *c, uint64_t now)
{
    struct bgp_open o = {.version = 4, .as = f->cfg.local_as, .hold = f->cfg.hold_s, .id = f->cfg.router_id,
                         .cap_mp_v4 = f->cfg.mp_v4, .cap_mp_v6 = f->cfg.mp_v6, .cap_route_refresh = true,
                         .cap_as4 = true};
    uint8_t m[256];
    send_msg(f, c, m, bgp_open_encode(m, sizeof m, &o));
    c->state = BGP_OPENSENT;
    c->hold_at = now + OPEN_HOLD_S * SEC;
    c->ka_at = 0;
}

static void conn_free(struct bgp_fsm *f, struct bgp_conn *c)
{
    if (c->tcp) {
        flush(f, c);
        f->ops.close(f->ops.ctx, c->tcp);
    }
    __builtin_memset(c, 0, __builtin_offsetof(struct bgp_conn, rx)); /* the buffers need no clearing */
}

/* The session leaves Established (or a connection that carried it ends). */
static void session_down(struct bgp_fsm *f, const struct bgp_error *e, bool sent, uint64_t now)
{
    bool was_up = f->state == BGP_ESTABLISHED;
    for (int i = 0; i < 2; i++)
        conn_free(f, &f->conn[i]);
    f->last_err = *e;
    f->last_err_sent = sent;
    if (was_up) {
        f->st.downs++;
        f->up_since_ns = now;
        f->ops.down(f->ops.ctx, e, sent);
    }
    f->connecting = false;
    f->retry_at = 0;
    f->idle_until = f->started ? now + IDLE_HOLD_S * SEC : 0;
    recompute_state(f);
}

/* Ends one connection with a NOTIFICATION. If it carried the session (or
 * was the only one past OpenSent), the session goes down with it. */
static void conn_error(struct bgp_fsm *f, struct bgp_conn *c, const struct bgp_error *e, uint64_t now)
{
    uint8_t m[BGP_HDR_LEN + 2 + sizeof e->data];
    send_msg(f, c, m, bgp_notification_encode(m, sizeof m, e));
    f->st.notifications_out++;
    if (c->state == BGP_ESTABLISHED) {
        session_down(f, e, true, now);
        return;
    }
    f->last_err = *e;
    f->last_err_sent = true;
    conn_free(f, c);
    if (!f->conn[0].tcp && !f->conn[1].tcp && f->started && !f->connecting && !f->retry_at)
        f->retry_at = now + f->cfg.connect_retry_s * SEC;
    recompute_state(f);
}

static void error2(struct bgp_fsm *f, struct bgp_conn *c, uint8_t code, uint8_t sub, uint64_t now)
{
    struct bgp_error e = {.code = code, .subcode = sub};
    conn_error(f, c, &e, now);
}

static void start_timers(struct bgp_fsm *f, struct bgp_conn *c, uint64_t now)
{
    uint16_t hold = f->cfg.hold_s < c->peer.hold ? f->cfg.hold_s : c->peer.hold; /* RFC 4271 4.2 */
    c->hold_s = hold;
    c->hold_at = hold ? now + hold * SEC : 0;
    c->ka_at = hold ? now + hold * SEC / 3 : 0; /* 4.4: a third of the hold time */
}

/* 6.8: c has the peer's OPEN and the other connection is past its own
 * OPEN: the one opened by the side with the higher BGP Identifier stays,
 * or the Established one. The other connection, even in OpenSent, is to
 * the same peer, so c's OPEN gives its Identifier too (6.8 allows using
 * an Identifier known otherwise): deciding now, before c's KEEPALIVE
 * goes, keeps both sides from closing one connection each. Returns true
 * when c is the one closed. */
static bool collision(struct bgp_fsm *f, struct bgp_conn *c, uint64_t now)
{
    struct bgp_conn *d = other(f, c);
    if (!d->tcp || d->state < BGP_OPENSENT)
        return false;
    f->st.collisions++;
    struct bgp_conn *loser;
    if (d->state == BGP_ESTABLISHED)
        loser = c;
    else if (f->cfg.router_id != c->peer.id) /* ours wins when our identifier is the higher (host order) */
        loser = (f->cfg.router_id > c->peer.id) == c->outbound ? d : c;
    else /* RFC 6286 2.3: equal identifiers (eBGP): the larger AS's connection stays */
        loser = (f->cfg.local_as > f->cfg.peer_as) == c->outbound ? d : c;
    error2(f, loser, BGP_ERR_CEASE, CEASE_COLLISION, now);
    return loser == c;
}

static void on_open(struct bgp_fsm *f, struct bgp_conn *c, const uint8_t *m, uint16_t len, uint64_t now)
{
    struct bgp_error e = {0};
    if (bgp_open_parse(m, len, &c->peer, &e) != 0) {
        conn_error(f, c, &e, now);
        return;
    }
    if (c->peer.as != f->cfg.peer_as) { /* 6.2: Bad Peer AS */
        error2(f, c, BGP_ERR_OPEN, 2, now);
        return;
    }
    /* RFC 6286 2.1: within one AS the identifiers must differ */
    if (c->peer.as == f->cfg.local_as && c->peer.id == f->cfg.router_id) {
        error2(f, c, BGP_ERR_OPEN, 3, now);
        return;
    }
    c->state = BGP_OPENCONFIRM;
    if (collision(f, c, now))
        return;
    send_keepalive(f, c);
    start_timers(f, c, now);
}

static void established(struct bgp_fsm *f, struct bgp_conn *c, uint64_t now)
{
    struct bgp_conn *d = other(f, c);
    if (d->tcp)
        error2(f, d, BGP_ERR_CEASE, CEASE_COLLISION, now);
    c->state = BGP_ESTABLISHED;
    const struct bgp_open *p = &c->peer;
    f->hold_s = c->hold_s;
    f->peer_id = p->id;
    f->as4 = p->cap_as4;
    f->ebgp = f->cfg.peer_as != f->cfg.local_as;
    /* RFC 4760 8 and 4271: a peer offering no multiprotocol capability
     * speaks IPv4 unicast only. */
    f->mp_v4 = f->cfg.mp_v4 && (p->cap_mp_v4 || !(p->cap_mp_v4 || p->cap_mp_v6));
    f->mp_v6 = f->cfg.mp_v6 && p->cap_mp_v6;
    f->route_refresh = p->cap_route_refresh;
    f->retry_at = 0;
    f->up_since_ns = now;
    f->st.established++;
    recompute_state(f);
    f->ops.up(f->ops.ctx);
}

static void on_update(struct bgp_fsm *f, struct bgp_conn *c, const uint8_t *m, uint16_t len, uint64_t now)
{
    static struct bgp_update u; /* large: one session parses at a time, to completion */
    struct bgp_update_ctx uc = {.as4 = f->as4, .ebgp = f->ebgp, .peer_as = f->cfg.peer_as};
    bgp_update_parse(m, len, &uc, &u);
    if (u.reason < BGP_R_COUNT && u.reason != BGP_R_NONE)
        f->st.reasons[u.reason]++;
    if (u.verdict == BGP_UPD_RESET) {
        conn_error(f, c, &u.err, now);
        return;
    }
    if (u.verdict == BGP_UPD_WITHDRAW)
        f->st.updates_withdrawn++;
    f->ops.update(f->ops.ctx, &u);
}

static void on_message(struct bgp_fsm *f, struct bgp_conn *c, const uint8_t *m, uint16_t len, uint8_t type,
                       uint64_t now)
{
    f->st.msgs_in[type]++;
    if (type == BGP_NOTIFICATION) {
        struct bgp_error e = {0};
        bgp_notification_parse(m, len, &e);
        f->st.notifications_in++;
        if (c->state == BGP_ESTABLISHED) {
            session_down(f, &e, false, now);
        } else {
            f->last_err = e;
            f->last_err_sent = false;
            conn_free(f, c);
            recompute_state(f);
        }
        return;
    }
    switch (c->state) {
    case BGP_OPENSENT:
        if (type == BGP_OPEN)
            on_open(f, c, m, len, now);
        else
            error2(f, c, BGP_ERR_FSM, FSM_IN_OPENSENT, now);
        return;
    case BGP_OPENCONFIRM:
        if (type == BGP_KEEPALIVE)
            established(f, c, now);
        else
            error2(f, c, BGP_ERR_FSM, FSM_IN_OPENCONFIRM, now);
        return;
    case BGP_ESTABLISHED:
        if (c->hold_s) /* 8.2.2: KEEPALIVE and UPDATE restart the hold timer */
            c->hold_at = now + c->hold_s * SEC;
        if (type == BGP_KEEPALIVE)
            return;
        if (type == BGP_UPDATE) {
            on_update(f, c, m, len, now);
        } else if (type == BGP_ROUTE_REFRESH) {
            uint16_t afi;
            uint8_t safi;
            struct bgp_error e = {0};
            if (bgp_route_refresh_parse(m, len, &afi, &safi, &e) != 0)
                conn_error(f, c, &e, now);
            else if (f->route_refresh) /* RFC 2918 4: ignored unless negotiated */
                f->ops.refresh(f->ops.ctx, afi, safi);
        } else {
            error2(f, c, BGP_ERR_FSM, FSM_IN_ESTABLISHED, now);
        }
        return;
    default:
        return;
    }
}

void bgp_fsm_input(struct bgp_fsm *f, void *tcp, const uint8_t *b, uint32_t n, uint64_t now)
{
    struct bgp_conn *c = conn_of(f, tcp);
    while (c && c->tcp == tcp && n) {
        uint32_t k = (uint32_t)sizeof c->rx - c->rx_len;
        if (k > n)
            k = n;
        __builtin_memcpy(c->rx + c->rx_len, b, k);
        c->rx_len = (uint16_t)(c->rx_len + k);
        b += k;
        n -= k;
        uint32_t off = 0;
        for (;;) {
            uint16_t len;
            uint8_t type;
            struct bgp_error e = {0};
            int r = bgp_msg_frame(c->rx + off, c->rx_len - off, &len, &type, &e);
            if (r == 1)
                break;
            if (r < 0) {
                conn_error(f, c, &e, now);
                return;
            }
            on_message(f, c, c->rx + off, len, type, now);
            if (c->tcp != tcp) /* the message ended this connection */
                return;
            off += len;
        }
        __builtin_memmove(c->rx, c->rx + off, c->rx_len - off);
        c->rx_len = (uint16_t)(c->rx_len - off);
    }
}

static void try_connect(struct bgp_fsm *f, uint64_t now)
{
    f->retry_at = now + f->cfg.connect_retry_s * SEC;
    if (f->cfg.passive || f->connecting || f->conn[0].tcp || f->state == BGP_ESTABLISHED) {
        recompute_state(f);
        return;
    }
    f->st.connects++;
    if (f->ops.connect(f->ops.ctx))
        f->connecting = true;
    else
        f->st.connect_fails++;
    recompute_state(f);
}

void bgp_fsm_start(struct bgp_fsm *f, uint64_t now)
{
    if (f->started)
        return;
    f->started = true;
    try_connect(f, now);
    recompute_state(f);
}

void bgp_fsm_stop(struct bgp_fsm *f, uint8_t cease_subcode, uint64_t now)
{
    struct bgp_error e = {.code = BGP_ERR_CEASE, .subcode = cease_subcode ? cease_subcode : CEASE_ADMIN_SHUTDOWN};
    f->started = false;
    for (int i = 0; i < 2; i++) {
        struct bgp_conn *c = &f->conn[i];
        if (c->tcp && c->state >= BGP_OPENSENT) { /* 8.2.2: a NOTIFICATION once OPEN has gone */
            uint8_t m[BGP_HDR_LEN + 2 + sizeof e.data];
            send_msg(f, c, m, bgp_notification_encode(m, sizeof m, &e));
            f->st.notifications_out++;
        }
    }
    session_down(f, &e, true, now);
}

void bgp_fsm_connected(struct bgp_fsm *f, void *tcp, uint64_t now)
{
    f->connecting = false;
    if (!f->started || f->conn[0].tcp || f->state == BGP_ESTABLISHED) {
        f->ops.close(f->ops.ctx, tcp); /* 6.8: nothing to collide with an Established session */
        recompute_state(f);
        return;
    }
    f->conn[0].tcp = tcp;
    f->conn[0].outbound = true;
    send_open(f, &f->conn[0], now);
    recompute_state(f);
}

bool bgp_fsm_accept(struct bgp_fsm *f, void *tcp, uint64_t now)
{
    if (!f->started || f->idle_until || f->conn[1].tcp || f->state == BGP_ESTABLISHED) {
        f->st.refused++;
        return false;
    }
    f->st.accepts++;
    f->conn[1].tcp = tcp;
    f->conn[1].outbound = false;
    send_open(f, &f->conn[1], now);
    recompute_state(f);
    return true;
}

void bgp_fsm_closed(struct bgp_fsm *f, void *tcp, uint64_t now)
{
    if (!tcp) { /* the active open failed: Active, retried at the ConnectRetryTimer */
        f->connecting = false;
        f->st.connect_fails++;
        recompute_state(f);
        return;
    }
    struct bgp_conn *c = conn_of(f, tcp);
    if (!c)
        return;
    c->tcp = 0; /* gone: nothing more to write or close */
    if (c->state == BGP_ESTABLISHED) {
        struct bgp_error e = {0};
        session_down(f, &e, false, now);
        return;
    }
    conn_free(f, c);
    recompute_state(f);
}

uint64_t bgp_fsm_poll(struct bgp_fsm *f, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < 2; i++) {
        struct bgp_conn *c = &f->conn[i];
        if (!c->tcp)
            continue;
        flush(f, c);
        if (c->hold_at && now >= c->hold_at) { /* 8.2.2 Event 10: HoldTimer_Expires */
            f->st.hold_expired++;
            error2(f, c, BGP_ERR_HOLD, 0, now);
            continue;
        }
        if (c->ka_at && now >= c->ka_at) {
            send_keepalive(f, c);
            c->ka_at = now + (uint64_t)c->hold_s * SEC / 3;
        }
        if (c->hold_at && c->hold_at < next)
            next = c->hold_at;
        if (c->ka_at && c->ka_at < next)
            next = c->ka_at;
        if (c->tx_len && now + SEC / 100 < next) /* writes the transport could not take yet */
            next = now + SEC / 100;
    }
    if (f->idle_until && now >= f->idle_until) { /* 8.1.1: the automatic start after IdleHoldTime */
        f->idle_until = 0;
        try_connect(f, now);
    }
    if (f->started && f->retry_at && now >= f->retry_at)
        try_connect(f, now);
    uint64_t wake = f->idle_until ? f->idle_until : f->started ? f->retry_at : 0;
    if (wake && wake < next)
        next = wake;
    return next;
}

bool bgp_fsm_can_send(const struct bgp_fsm *f)
{
    for (int i = 0; i < 2; i++)
        if (f->conn[i].tcp && f->conn[i].state == BGP_ESTABLISHED)
            return f->conn[i].tx_len + BGP_MSG_MAX <= sizeof f->conn[i].tx;
    return false;
}

bool bgp_fsm_send(struct bgp_fsm *f, const uint8_t *msg, uint16_t len, uint64_t now)
{
    for (int i = 0; i < 2; i++) {
        struct bgp_conn *c = &f->conn[i];
        if (c->tcp && c->state == BGP_ESTABLISHED) {
            flush(f, c);
            return send_msg(f, c, msg, len);
        }
    }
    return false;
}

bool bgp_fsm_request_refresh(struct bgp_fsm *f, uint16_t afi, uint64_t now)
{
    if (f->state != BGP_ESTABLISHED || !f->route_refresh)
        return false;
    uint8_t m[BGP_HDR_LEN + 4];
    return bgp_fsm_send(f, m, (uint16_t)bgp_route_refresh_encode(m, afi, BGP_SAFI_UNICAST), now);
}
