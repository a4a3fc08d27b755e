/* SPDX-License-Identifier: MIT */
/* bgp/bgp_fsm.h: one BGP session, the finite state machine of RFC 4271 8
 * with the connection collision rule of 6.8, apart from any transport.
 *
 * The embedder owns the TCP connections and the clock. It tells the
 * session what happened (bgp_fsm_connected, _accept, _input, _closed),
 * calls bgp_fsm_poll at the deadline it returned, and gives it
 * operations to open, write and close connections and to hear of the
 * peer's routes. A session has at most two connections at once: the one
 * it opened (outbound) and one the peer opened (inbound); until both
 * sides have sent OPEN neither is preferred, then the collision rule
 * keeps one (6.8). Everything runs to completion; nothing blocks. */
#ifndef BGP_BGP_FSM_H
#define BGP_BGP_FSM_H

#include "bgp.h"
#include "bgp_msg.h"

enum bgp_state { BGP_IDLE, BGP_CONNECT, BGP_ACTIVE, BGP_OPENSENT, BGP_OPENCONFIRM, BGP_ESTABLISHED };

/* What the session is configured with. */
struct bgp_fsm_config {
    uint32_t local_as, router_id; /* router_id host order */
    uint32_t peer_as;
    uint16_t hold_s;              /* offered hold time: 0 (none) or >= 3 (RFC 4271 4.2; 90 in its 10) */
    uint16_t connect_retry_s;     /* ConnectRetryTime (8.2.2); 120 if unset */
    bool passive;                 /* never open a connection; wait for the peer's */
    bool mp_v4, mp_v6;            /* families offered (RFC 4760 8) */
};

struct bgp_fsm_ops {
    /* Open a connection to the peer (active open). The result comes back
     * as bgp_fsm_connected or bgp_fsm_closed(conn NULL). False: could not
     * even try (no route): counted, retried after ConnectRetryTime. */
    bool (*connect)(void *ctx);
    /* Write n bytes on conn; returns how many it took (the rest waits in
     * the session until bgp_fsm_poll). */
    uint32_t (*write)(void *ctx, void *conn, const uint8_t *b, uint32_t n);
    /* Close conn (after what was written has gone). */
    void (*close)(void *ctx, void *conn);
    /* The session reached Established, or left it (err: what ended it,
     * sent or received; code 0 when the transport ended it). */
    void (*up)(void *ctx);
    void (*down)(void *ctx, const struct bgp_error *err, bool sent);
    /* An UPDATE, parsed (verdict OK or WITHDRAW: RFC 7606's resets are
     * the session's), or a ROUTE-REFRESH request (RFC 2918 4). */
    void (*update)(void *ctx, const struct bgp_update *u);
    void (*refresh)(void *ctx, uint16_t afi, uint8_t safi);
    void *ctx;
};

#define BGP_FSM_TX_MAX (2 * BGP_MSG_MAX)

struct bgp_conn {
    void *tcp;                   /* NULL: this slot is free */
    uint8_t state;               /* BGP_CONNECT (outbound, not yet open) .. BGP_ESTABLISHED */
    bool outbound;
    bool closing;                /* a NOTIFICATION went out; close when written */
    uint16_t rx_len, tx_len;
    uint16_t hold_s;             /* negotiated (OpenConfirm on); 0: no hold timer, no keepalives */
    uint64_t hold_at, ka_at;     /* 0: not running */
    struct bgp_open peer;        /* the peer's OPEN (OpenConfirm on) */
    uint8_t rx[2 * BGP_MSG_MAX];
    uint8_t tx[BGP_FSM_TX_MAX];
};

struct bgp_fsm_stats {
    uint64_t msgs_in[6], msgs_out[6];   /* by message type (1..5) */
    uint64_t updates_withdrawn;         /* RFC 7606 treat-as-withdraw */
    uint64_t reasons[BGP_R_COUNT];      /* UPDATE errors by name (bgp_upd_reason_name) */
    uint64_t established, downs;        /* transitions into and out of Established */
    uint64_t connects, connect_fails, accepts, refused, collisions;
    uint64_t hold_expired, notifications_in, notifications_out;
};

struct bgp_fsm {
    struct bgp_fsm_config cfg;
    struct bgp_fsm_ops ops;
    uint8_t state;               /* the session's, as RFC 4271 8.2.2 names it */
    bool started;                /* ManualStart given, no ManualStop since */
    bool connecting;             /* an active open is under way */
    uint64_t retry_at;           /* ConnectRetryTimer (0: stopped) */
    uint64_t idle_until;         /* after a session ended: Idle until then (0: not idling) */
    uint64_t up_since_ns;        /* Established since (or went down at) */
    /* negotiated at Established */
    uint16_t hold_s;
    bool as4, ebgp, mp_v4, mp_v6, route_refresh;
    uint32_t peer_id;
    struct bgp_error last_err;   /* what last ended it */
    bool last_err_sent;
    struct bgp_fsm_stats st;
    struct bgp_conn conn[2];     /* [0] outbound, [1] inbound */
};

void bgp_fsm_init(struct bgp_fsm *f, const struct bgp_fsm_config *cfg, const struct bgp_fsm_ops *ops);
/* ManualStart / ManualStop (8.1.2). Stop sends Cease (6.7: subcode 2
 * administrative shutdown) on a connection that has sent OPEN. */
void bgp_fsm_start(struct bgp_fsm *f, uint64_t now_ns);
void bgp_fsm_stop(struct bgp_fsm *f, uint8_t cease_subcode, uint64_t now_ns);
/* Our active open succeeded (conn is the embedder's handle). */
void bgp_fsm_connected(struct bgp_fsm *f, void *conn, uint64_t now_ns);
/* The peer opened a connection to us; false: refused (the embedder
 * closes it): stopped, or a session already Established (6.8). */
bool bgp_fsm_accept(struct bgp_fsm *f, void *conn, uint64_t now_ns);
/* Bytes arrived on conn. */
void bgp_fsm_input(struct bgp_fsm *f, void *conn, const uint8_t *b, uint32_t n, uint64_t now_ns);
/* conn ended (reset, closed by the peer), or an active open failed (conn
 * NULL). */
void bgp_fsm_closed(struct bgp_fsm *f, void *conn, uint64_t now_ns);
/* Timers and pending writes; returns the next deadline (UINT64_MAX: none). */
uint64_t bgp_fsm_poll(struct bgp_fsm *f, uint64_t now_ns);
/* Queue a whole message (an UPDATE) on the Established connection:
 * false when it is not Established or has no room yet (try again after
 * a poll). */
bool bgp_fsm_send(struct bgp_fsm *f, const uint8_t *msg, uint16_t len, uint64_t now_ns);
/* Room for one more whole message now. */
bool bgp_fsm_can_send(const struct bgp_fsm *f);
/* Ask the peer to send its routes again (RFC 2918); false if it cannot. */
bool bgp_fsm_request_refresh(struct bgp_fsm *f, uint16_t afi, uint64_t now_ns);

const char *bgp_state_name(uint8_t state);

#endif
