/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_conn.c: TCP connections: the arena they are carved from (and
 * the large send queues autotuning moves connections into), the 4-tuple
 * hash (IPv4 and IPv6), listeners, and the application's open and
 * close calls (RFC 9293 section 3.10.1 OPEN, 3.10.4 CLOSE, 3.10.5 ABORT). */
#include "core/env.h"
#include "ip/ip4.h"
#include "ip/ip6.h"
#include "core/wire.h"
#include "net.h"
#include "tcp_impl.h"

#define ALIGN8(x) (((x) + 7u) & ~(size_t)7u)

void tcp_config_default(struct tcp_config *cfg)
{
    net_memset(cfg, 0, sizeof(*cfg));
    cfg->sndbuf = 256u << 10;
    cfg->sndbuf_max = 4u << 20;
    cfg->sq_large = 16;
    cfg->rcvbuf = 256u << 10;
    cfg->rcvbuf_max = 4u << 20; /* 1 Gb/s at 32 ms of round trip */
    cfg->sq_slots = 256;
    cfg->ooo_max = 256; /* more than the default window's full segments (181) */
    cfg->backlog = 128;
    cfg->cc = TCP_CC_CUBIC;
    cfg->nagle = false;
    cfg->sack = cfg->timestamps = cfg->wscale = cfg->syncookies = true;
    cfg->syn_retries = 5;
    cfg->data_retries = 15;
    cfg->challenge_per_s = 1000;
    cfg->delack_ns = 40000000ull;
    cfg->rto_init_ns = 1000000000ull;
    cfg->rto_min_ns = 200000000ull;
    cfg->rto_max_ns = 60000000000ull;
    cfg->time_wait_ns = 60000000000ull;
    cfg->pmtu_probe_ns = 600000000000ull; /* Linux's tcp_probe_interval */
}

static size_t per_conn(const struct tcp_config *cfg)
{
    return ALIGN8(sizeof(struct tcp_conn)) + ALIGN8((size_t)cfg->sq_slots * sizeof(struct tcp_seg));
}

/* Slots of a large send queue: a KB of sndbuf_max each, as `tcp window`
 * gives; none when the send buffer does not grow. */
static uint32_t large_cap(const struct tcp_config *cfg)
{
    uint32_t cap = cfg->sndbuf_max >> 10 > 0xffff ? 0xffff : cfg->sndbuf_max >> 10;
    return cfg->sndbuf_max > cfg->sndbuf && cfg->sq_large && cap > cfg->sq_slots ? cap : 0;
}

static size_t large_bytes(const struct tcp_config *cfg)
{
    uint32_t n = cfg->sq_large < TCP_SQ_LARGE_MAX ? cfg->sq_large : TCP_SQ_LARGE_MAX;
    return (size_t)n * ALIGN8((size_t)large_cap(cfg) * sizeof(struct tcp_seg));
}

static uint32_t hash_size(uint32_t n)
{
    uint32_t h = TCP_HASH_MIN;
    while (h < n)
        h <<= 1;
    return h;
}

/* 64 bytes of slack: connections start on a cache line. */
size_t tcp_arena_size(const struct tcp_config *cfg, uint32_t nconns)
{
    return (size_t)hash_size(nconns) * sizeof(struct tcp_conn *) + (size_t)nconns * per_conn(cfg) +
           large_bytes(cfg) + 64;
}

uint32_t tcp_init(struct net_stack *s, struct tcp_stack *t, void *arena, size_t bytes,
                  const struct tcp_config *cfg)
{
    net_memset(t, 0, sizeof(*t));
    if (cfg)
        t->cfg = *cfg;
    else
        tcp_config_default(&t->cfg);
    if (t->cfg.sq_slots < 2)
        t->cfg.sq_slots = 2;
    if (bytes < large_bytes(&t->cfg) + 64)
        return 0;
    uint32_t n = (uint32_t)((bytes - large_bytes(&t->cfg)) / (per_conn(&t->cfg) + 2 * sizeof(void *)));
    while (n && tcp_arena_size(&t->cfg, n) > bytes)
        n--;
    while (tcp_arena_size(&t->cfg, n + 1) <= bytes) /* the estimate counted two hash slots each */
        n++;
    if (n == 0)
        return 0;
    t->s = s;
    net_memcpy(t->sip_key, t->cfg.secret, 16);
    t->cookie_key[0] = tcp_siphash(t->sip_key, "syn-cookie-0", 12);
    t->cookie_key[1] = tcp_siphash(t->sip_key, "syn-cookie-1", 12);
    t->hash_key = tcp_siphash(t->sip_key, "conn-hash", 9);
    t->hash_mul = tcp_siphash(t->sip_key, "conn-hash-mul", 13) | 1;
    for (uint8_t i = 0; i < 10; i++) {
        uint8_t m[11] = {'c', 'o', 'n', 'n', '-', 'h', 'a', 's', 'h', '6', i};
        t->hash6_key[i] = tcp_siphash(t->sip_key, m, sizeof(m));
    }
    uint32_t h = hash_size(n);
    uint8_t *m = arena;
    t->hash = (struct tcp_conn **)(void *)m;
    t->hash_shift = 64u - (uint32_t)__builtin_ctz(h);
    net_memset(t->hash, 0, (size_t)h * sizeof(*t->hash));
    m += (size_t)h * sizeof(*t->hash);
    m += (64 - (uintptr_t)m % 64) % 64;
    t->conns = (struct tcp_conn *)(void *)m;
    struct tcp_seg *sq = (struct tcp_seg *)(void *)(m + ALIGN8((size_t)n * sizeof(struct tcp_conn)));
    t->nconns = t->nfree = n;
    for (uint32_t i = n; i-- > 0;) {
        struct tcp_conn *c = &t->conns[i];
        net_memset(c, 0, sizeof(*c));
        c->sq = sq + (size_t)i * t->cfg.sq_slots;
        c->sq_cap = t->cfg.sq_slots;
        c->hnext = t->free_list;
        t->free_list = c;
    }
    t->sq_small = sq;
    t->sq_large_cap = (uint16_t)large_cap(&t->cfg);
    uint8_t *large = (uint8_t *)(sq + (size_t)n * t->cfg.sq_slots);
    for (t->nsq_large = 0; t->sq_large_cap && t->nsq_large < t->cfg.sq_large && t->nsq_large < TCP_SQ_LARGE_MAX;
         t->nsq_large++) {
        t->sq_large[t->nsq_large] = (struct tcp_seg *)(void *)large;
        large += ALIGN8((size_t)t->sq_large_cap * sizeof(struct tcp_seg));
    }
    t->port_next = (uint16_t)(TCP_EPHEMERAL_LO + (t->hash_key % (65536u - TCP_EPHEMERAL_LO)));
    t->rx_reserve = s->pool->total / 4;
    s->tcp = t;
    return n;
}

struct tcp_listener *tcp_listener_find(struct tcp_stack *t, uint16_t port)
{
    for (uint32_t i = 0; i < TCP_MAX_LISTEN; i++)
        if (t->listen[i].port == port)
            return &t->listen[i];
    return NULL;
}

uint16_t tcp_our_mss(struct tcp_stack *t, uint32_t raddr_be)
{
    uint16_t port = 0;
    uint32_t nh_be;
    uint32_t mtu = NET_MTU_DEFAULT;
    if (net_route(t->s, raddr_be, &port, &nh_be))
        mtu = t->s->iface[port].mtu;
    uint32_t mss = mtu - IP4_HDR_LEN - TCP_HDR_LEN;
    uint32_t room = PKT_DATA_ROOM - TCP_LINK_RESERVE - TCP_MAX_HDR_LEN;
    return (uint16_t)(mss < room ? mss : room);
}

uint16_t tcp_our_mss6(struct tcp_stack *t, const uint8_t *raddr)
{
    struct net_iface *ifc;
    uint8_t nh[16];
    uint32_t mtu = NET_MTU_DEFAULT;
    if (!ip6_is_linklocal(raddr) && ip6_route(t->s, raddr, &ifc, nh))
        mtu = ifc->mtu;
    uint32_t mss = mtu - IP6_HDR_LEN - TCP_HDR_LEN;
    uint32_t room = PKT_DATA_ROOM - TCP_LINK_RESERVE6 - TCP_MAX_HDR_LEN;
    return (uint16_t)(mss < room ? mss : room);
}

void tcp_conn_set_mss(struct tcp_conn *c, uint16_t peer_mss)
{
    uint16_t ours = tcp_conn_our_mss(c);
    c->mss = peer_mss < ours ? peer_mss : ours;
    if (c->mss < 64)
        c->mss = 64; /* RFC 9293 3.7.1 leaves tiny MSS to us: refuse to crawl */
    c->seg_size = (uint16_t)(c->mss - ((c->flags & TCP_CF_TS) ? TCP_TS_ALIGNED_LEN : 0));
}

/* The TIME-WAIT list (tcp_stack.tw_head), in order of entry, which is the
 * order of their ends: each lasts time_wait_ns from its latest restart. */
static void tw_unlink(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    if (c->tw_prev == NULL && t->tw_head != c)
        return; /* not on it */
    *(c->tw_prev ? &c->tw_prev->tw_next : &t->tw_head) = c->tw_next;
    *(c->tw_next ? &c->tw_next->tw_prev : &t->tw_tail) = c->tw_prev;
    c->tw_prev = c->tw_next = NULL;
}

/* TIME-WAIT (re)starts: 2 MSL from now (RFC 9293 3.10.7.4), last in line. */
void tcp_time_wait_restart(struct tcp_conn *c, uint64_t now_ns)
{
    struct tcp_stack *t = c->t;
    tw_unlink(c);
    c->tw_prev = t->tw_tail;
    *(t->tw_tail ? &t->tw_tail->tw_next : &t->tw_head) = c;
    t->tw_tail = c;
    c->rto_at = now_ns + t->cfg.time_wait_ns;
}

/* A connection to reuse when the arena is full: the TIME-WAIT one closest
 * to its end, else (for a SYN cookie's ACK: a peer that proved itself) a
 * half-open one from a listener. */
static struct tcp_conn *victim(struct tcp_stack *t, bool half_open)
{
    if (t->tw_head || !half_open)
        return t->tw_head;
    uint32_t pending = 0; /* none half-open: no walk through a full table */
    for (uint32_t i = 0; i < TCP_MAX_LISTEN; i++)
        pending += t->listen[i].pending;
    for (uint32_t i = 0; pending && i < t->nconns; i++)
        if (t->conns[i].state == TCP_SYN_RECEIVED && t->conns[i].listener)
            return &t->conns[i];
    return NULL;
}

/* A connection off the free list (or a victim), zeroed but for its send
 * queue, with the stack's defaults; not in the hash yet. */
static struct tcp_conn *conn_take(struct tcp_stack *t, uint16_t lport, uint16_t rport, bool evict_half_open)
{
    if (t->free_list == NULL) {
        struct tcp_conn *v = victim(t, evict_half_open);
        if (v == NULL) {
            t->s->ctr.tcp_conn_full++;
            return NULL;
        }
        if (v->state == TCP_TIME_WAIT)
            t->s->ctr.tcp_tw_recycled++;
        else
            t->s->ctr.tcp_half_open_evicted++;
        tcp_conn_free(v);
    }
    struct tcp_conn *c = t->free_list;
    t->free_list = c->hnext;
    t->nfree--;
    struct tcp_seg *sq = c->sq;
    uint16_t cap = c->sq_cap;
    net_memset(c, 0, sizeof(*c));
    c->sq = sq;
    c->sq_cap = cap;
    c->t = t;
    c->lport = lport;
    c->rport = rport;
    c->cc_algo = t->cfg.cc;
    c->sndbuf = t->cfg.sndbuf;
    c->rcv_buf = t->cfg.rcvbuf;
    c->rcv_max = tcp_cfg_rcv_max(&t->cfg);
    c->ooo_max = t->cfg.ooo_max;
    c->rto_ns = t->cfg.rto_init_ns;
    c->min_rtt_t = UINT32_MAX; /* no sample yet */
    if (t->cfg.nagle)
        c->flags |= TCP_CF_NAGLE;
    c->rcv_wscale = tcp_wscale_for(c->rcv_max);
    return c;
}

static void hash_insert(struct tcp_stack *t, struct tcp_conn *c, uint32_t b)
{
    tcp_conn_set_mss(c, TCP_DEFAULT_MSS);
    c->hnext = t->hash[b];
    t->hash[b] = c;
}

struct tcp_conn *tcp_conn_alloc(struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be,
                                uint16_t lport, uint16_t rport, bool evict_half_open, uint64_t now_ns)
{
    struct tcp_conn *c = conn_take(t, lport, rport, evict_half_open);
    if (c == NULL)
        return NULL;
    c->laddr_be = laddr_be;
    c->raddr_be = raddr_be;
    c->ts_offset = tcp_ts_offset(t, laddr_be, raddr_be);
    hash_insert(t, c, tcp_conn_bucket(t, laddr_be, raddr_be, lport, rport));
    return c;
}

struct tcp_conn *tcp_conn_alloc6(struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr, uint16_t lport,
                                 uint16_t rport, uint16_t port, bool evict_half_open, uint64_t now_ns)
{
    struct tcp_conn *c = conn_take(t, lport, rport, evict_half_open);
    if (c == NULL)
        return NULL;
    c->flags |= TCP_CF_IP6;
    net_memcpy(c->laddr6, laddr, 16);
    net_memcpy(c->raddr6, raddr, 16);
    c->port6 = port;
    c->ts_offset = tcp_ts_offset6(t, laddr, raddr);
    hash_insert(t, c, tcp_conn_bucket6(t, laddr, raddr, lport, rport));
    return c;
}

void tcp_conn_free(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    uint32_t b = tcp_conn_is6(c) ? tcp_conn_bucket6(t, c->laddr6, c->raddr6, c->lport, c->rport)
                                 : tcp_conn_bucket(t, c->laddr_be, c->raddr_be, c->lport, c->rport);
    struct tcp_conn **pp = &t->hash[b];
    while (*pp && *pp != c)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = c->hnext;
    tw_unlink(c);
    tcp_timer_remove(c);
    tcp_sq_free(c);
    tcp_ooo_free(c);
    if (c->listener && c->listener->pending)
        c->listener->pending--;
    tcp_wait_forget(c);
    c->listener = NULL;
    c->state = TCP_CLOSED;
    c->flags = 0;
    c->hnext = t->free_list;
    t->free_list = c;
    t->nfree++;
}

void tcp_conn_close(struct tcp_conn *c, int reason, uint64_t now_ns)
{
    c->state = TCP_CLOSED;
    if ((c->flags & (TCP_CF_APP_SEEN | TCP_CF_APP_CLOSED)) == TCP_CF_APP_SEEN) {
        c->flags |= TCP_CF_APP_CLOSED;
        if (c->cb && c->cb->closed)
            c->cb->closed(c->ctx, c, reason, now_ns);
    }
    if (c->flags & TCP_CF_BUSY)
        c->flags |= TCP_CF_DEAD;
    else
        tcp_conn_free(c);
}

void tcp_enter_time_wait(struct tcp_conn *c, uint64_t now_ns)
{
    c->state = TCP_TIME_WAIT;
    tcp_sq_free(c);
    tcp_ooo_free(c);
    c->delack_at = c->ka_at = 0;
    tcp_time_wait_restart(c, now_ns);
    if ((c->flags & (TCP_CF_APP_SEEN | TCP_CF_APP_CLOSED)) == TCP_CF_APP_SEEN) {
        c->flags |= TCP_CF_APP_CLOSED;
        if (c->cb && c->cb->closed)
            c->cb->closed(c->ctx, c, TCP_CLOSE_NORMAL, now_ns);
    }
    c->cb = NULL;
    tcp_timer_update(c);
}

void tcp_release(struct tcp_stack *t)
{
    for (uint32_t i = 0; i < t->nconns; i++) {
        struct tcp_conn *c = &t->conns[i];
        if (c->state == TCP_CLOSED)
            continue;
        c->flags &= ~(uint32_t)TCP_CF_BUSY;
        tcp_conn_close(c, TCP_CLOSE_RELEASED, t->now_ns);
    }
    if (t->s && t->s->tcp == t)
        t->s->tcp = NULL;
}

int tcp_listen(struct net_stack *s, uint16_t port, const struct tcp_callbacks *cb, void *ctx)
{
    struct tcp_stack *t = s->tcp;
    if (t == NULL || port == 0 || tcp_listener_find(t, port))
        return -1;
    struct tcp_listener *l = tcp_listener_find(t, 0);
    if (l == NULL)
        return -1;
    *l = (struct tcp_listener){.port = port, .backlog = t->cfg.backlog, .cb = cb, .ctx = ctx};
    return 0;
}

int tcp_listen_idle(struct net_stack *s, uint16_t port, uint64_t idle_ns)
{
    struct tcp_listener *l = (s->tcp && port) ? tcp_listener_find(s->tcp, port) : NULL;
    if (l == NULL)
        return -1;
    l->idle_ns = idle_ns;
    return 0;
}

int tcp_unlisten(struct net_stack *s, uint16_t port)
{
    struct tcp_stack *t = s->tcp;
    struct tcp_listener *l = (t && port) ? tcp_listener_find(t, port) : NULL;
    if (l == NULL)
        return -1;
    for (uint32_t i = 0; i < t->nconns; i++)
        if (t->conns[i].listener == l && t->conns[i].state == TCP_SYN_RECEIVED)
            tcp_conn_free(&t->conns[i]);
    *l = (struct tcp_listener){0};
    return 0;
}

/* An ephemeral port free for this pair whose RSS hash lands on this core. */
static uint16_t pick_port(struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be, uint16_t dport)
{
    const uint32_t span = 65536u - TCP_EPHEMERAL_LO;
    for (uint32_t i = 0; i < span; i++) {
        uint16_t port = t->port_next;
        t->port_next = (uint16_t)(port == 65535 ? TCP_EPHEMERAL_LO : port + 1u);
        if (tcp_conn_lookup(t, laddr_be, raddr_be, port, dport) || tcp_listener_find(t, port))
            continue;
        if (t->cfg.rss && t->cfg.rss(t->cfg.rss_ctx, raddr_be, laddr_be, dport, port) != t->s->core)
            continue;
        return port;
    }
    return 0;
}

static struct tcp_conn *active_open(struct tcp_conn *c, const struct tcp_callbacks *cb, void *ctx, uint32_t iss,
                                    uint64_t now_ns);

struct tcp_conn *tcp_connect(struct net_stack *s, uint32_t dst_be, uint16_t dport,
                             const struct tcp_callbacks *cb, void *ctx, uint64_t now_ns)
{
    return tcp_connect_from(s, 0, dst_be, dport, cb, ctx, now_ns);
}

struct tcp_conn *tcp_connect_from(struct net_stack *s, uint16_t lport, uint32_t dst_be, uint16_t dport,
                                  const struct tcp_callbacks *cb, void *ctx, uint64_t now_ns)
{
    struct tcp_stack *t = s->tcp;
    if (t == NULL || dport == 0)
        return NULL;
    t->now_ns = now_ns;
    uint32_t src_be = ip4_select_src(s, dst_be);
    if (src_be == 0) {
        s->ctr.ip4_out_no_route++;
        return NULL;
    }
    if (lport == 0)
        lport = pick_port(t, src_be, dst_be, dport);
    else if (tcp_conn_lookup(t, src_be, dst_be, lport, dport))
        lport = 0;
    if (lport == 0)
        return NULL;
    struct tcp_conn *c = tcp_conn_alloc(t, src_be, dst_be, lport, dport, false, now_ns);
    if (c == NULL)
        return NULL;
    return active_open(c, cb, ctx, tcp_isn(t, src_be, dst_be, lport, dport, now_ns), now_ns);
}

/* The source for dst: the outgoing port's address, or its link-local one
 * (a link-local dst: the first port with IPv6). False: no route. */
static bool select_src6(struct net_stack *s, const uint8_t *dst, uint8_t *src, uint16_t *port)
{
    struct net_iface *ifc = NULL;
    uint8_t nh[16];
    if (ip6_is_linklocal(dst)) {
        for (uint16_t i = 0; i < s->nports && ifc == NULL; i++)
            if (s->iface[i].dev && s->iface[i].has6)
                ifc = &s->iface[i];
    } else if (!ip6_route(s, dst, &ifc, nh) || !ifc->has6) {
        ifc = NULL;
    }
    if (ifc == NULL)
        return false;
    net_memcpy(src, ip6_is_linklocal(dst) ? ifc->ll6 : ifc->addr6, 16);
    *port = ifc->port;
    return true;
}

/* The same for an IPv6 pair. */
static uint16_t pick_port6(struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr, uint16_t dport)
{
    const uint32_t span = 65536u - TCP_EPHEMERAL_LO;
    for (uint32_t i = 0; i < span; i++) {
        uint16_t port = t->port_next;
        t->port_next = (uint16_t)(port == 65535 ? TCP_EPHEMERAL_LO : port + 1u);
        if (tcp_conn_lookup6(t, laddr, raddr, port, dport) || tcp_listener_find(t, port))
            continue;
        if (t->cfg.rss6 && t->cfg.rss6(t->cfg.rss6_ctx, raddr, laddr, dport, port) != t->s->core)
            continue;
        return port;
    }
    return 0;
}

struct tcp_conn *tcp_connect6_from(struct net_stack *s, uint16_t lport, const uint8_t *dst, uint16_t dport,
                                   const struct tcp_callbacks *cb, void *ctx, uint64_t now_ns)
{
    struct tcp_stack *t = s->tcp;
    uint8_t src[16];
    uint16_t port;
    if (t == NULL || dport == 0 || ip6_is_mcast(dst) || ip6_is_unspec(dst))
        return NULL;
    t->now_ns = now_ns;
    if (!select_src6(s, dst, src, &port)) {
        s->ctr.ip6_no_route++;
        return NULL;
    }
    if (lport == 0)
        lport = pick_port6(t, src, dst, dport);
    else if (tcp_conn_lookup6(t, src, dst, lport, dport))
        lport = 0;
    if (lport == 0)
        return NULL;
    struct tcp_conn *c = tcp_conn_alloc6(t, src, dst, lport, dport, port, false, now_ns);
    if (c == NULL)
        return NULL;
    return active_open(c, cb, ctx, tcp_isn6(t, src, dst, lport, dport, now_ns), now_ns);
}

static struct tcp_conn *active_open(struct tcp_conn *c, const struct tcp_callbacks *cb, void *ctx, uint32_t iss,
                                    uint64_t now_ns)
{
    struct tcp_stack *t = c->t;
    c->cb = cb;
    c->ctx = ctx;
    c->state = TCP_SYN_SENT;
    c->flags |= TCP_CF_APP_SEEN | TCP_CF_ACTIVE;
    if (t->cfg.sack)
        c->flags |= TCP_CF_SACK;
    if (t->cfg.timestamps)
        c->flags |= TCP_CF_TS;
    if (t->cfg.wscale)
        c->flags |= TCP_CF_WS;
    c->iss = iss;
    c->snd_una = c->iss;
    c->snd_nxt = c->snd_end = c->iss + 1;
    c->rtt_start_ns = now_ns;
    tcp_send_syn(c, now_ns);
    tcp_rto_arm(c, now_ns);
    tcp_timer_update(c);
    return c;
}

int tcp_close(struct tcp_conn *c, uint64_t now_ns)
{
    c->t->now_ns = now_ns;
    switch (c->state) {
    case TCP_SYN_SENT:
        tcp_abort(c, now_ns);
        return 0;
    case TCP_SYN_RECEIVED: /* the FIN waits for the handshake (RFC 9293 3.10.4), */
        break;             /* which sets up what FIN-WAIT-1 sends with */
    case TCP_ESTABLISHED:
        c->state = TCP_FIN_WAIT_1;
        break;
    case TCP_CLOSE_WAIT:
        c->state = TCP_LAST_ACK;
        break;
    default:
        return -1;
    }
    c->flags |= TCP_CF_FIN_QUEUED;
    if (!(c->flags & TCP_CF_BUSY)) {
        tcp_output(c, now_ns);
        tcp_timer_update(c);
    }
    return 0;
}

void tcp_abort(struct tcp_conn *c, uint64_t now_ns)
{
    if (c->state == TCP_CLOSED) /* closed already (a closed callback's abort): freed, or about to be */
        return;
    c->t->now_ns = now_ns;
    if (c->state >= TCP_SYN_RECEIVED && c->state != TCP_TIME_WAIT)
        tcp_send_rst(c, now_ns);
    c->flags |= TCP_CF_APP_CLOSED;
    c->state = TCP_CLOSED;
    if (c->flags & TCP_CF_BUSY)
        c->flags |= TCP_CF_DEAD;
    else
        tcp_conn_free(c);
}

void tcp_recved(struct tcp_conn *c, uint32_t n, uint64_t now_ns)
{
    /* What the peer was told, not our window before: an earlier opening
     * may have been withheld (window_field), and this one must carry it. */
    uint32_t told = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    c->rcv_held = n < c->rcv_held ? c->rcv_held - n : 0;
    uint32_t after = tcp_rcv_window(c);
    /* RFC 9293 3.8.6.2.2: announce only a worthwhile opening. */
    if (told < c->mss && after >= c->mss && after - told >= tcp_rcv_step(c))
        c->flags |= TCP_CF_ACK_NOW;
    if ((c->flags & TCP_CF_ACK_NOW) && !(c->flags & TCP_CF_BUSY) && tcp_synchronized(c->state) &&
        c->state != TCP_TIME_WAIT) {
        tcp_output(c, now_ns);
        tcp_timer_update(c);
    }
}

void tcp_set_ctx(struct tcp_conn *c, const struct tcp_callbacks *cb, void *ctx)
{
    c->cb = cb;
    c->ctx = ctx;
}

void tcp_set_nagle(struct tcp_conn *c, bool on)
{
    if (on)
        c->flags |= TCP_CF_NAGLE;
    else
        c->flags &= ~(uint32_t)TCP_CF_NAGLE;
}

void tcp_set_manual_window(struct tcp_conn *c, bool on)
{
    if (on) {
        c->flags |= TCP_CF_MANUAL_WND;
    } else {
        c->flags &= ~(uint32_t)TCP_CF_MANUAL_WND;
        c->rcv_tune_seq += c->rcv_held; /* released at once: no rate autotuning should see */
        c->rcv_held = 0;
    }
}

int tcp_set_cc(struct tcp_conn *c, enum tcp_cc_algo algo)
{
    if (algo != TCP_CC_NEWRENO && algo != TCP_CC_CUBIC)
        return -1;
    c->cc_algo = (uint8_t)algo;
    c->cubic_epoch_ns = 0;
    return 0;
}

/* count 0: no probes, reset when idle_ns ran out (tcp_set_idle_timeout). */
static void keepalive_set(struct tcp_conn *c, uint64_t idle_ns, uint64_t intvl_ns, uint8_t count)
{
    c->ka_idle_ns = idle_ns;
    c->ka_intvl_ns = intvl_ns ? intvl_ns : idle_ns;
    c->ka_count = count;
    c->ka_sent = 0;
    if (idle_ns)
        c->flags |= TCP_CF_KEEPALIVE;
    else
        c->flags &= ~(uint32_t)TCP_CF_KEEPALIVE;
    tcp_keepalive_touch(c, c->t->now_ns);
    tcp_timer_update(c);
}

void tcp_set_keepalive(struct tcp_conn *c, uint64_t idle_ns, uint64_t intvl_ns, uint8_t count)
{
    keepalive_set(c, idle_ns, intvl_ns, count ? count : 1);
}

void tcp_set_idle_timeout(struct tcp_conn *c, uint64_t idle_ns) { keepalive_set(c, idle_ns, 0, 0); }
void tcp_set_send_timeout(struct tcp_conn *c, uint64_t timeout_ns) { c->send_timeout_ns = timeout_ns; }

uint32_t tcp_mss(const struct tcp_conn *c) { return c->seg_size; }

void tcp_get_info(const struct tcp_conn *c, struct tcp_info *out)
{
    *out = (struct tcp_info){
        .laddr_be = c->laddr_be,
        .raddr_be = c->raddr_be,
        .v6 = tcp_conn_is6(c),
        .lport = c->lport,
        .rport = c->rport,
        .state = c->state,
        .cc_algo = c->cc_algo,
        .sack = (c->flags & TCP_CF_SACK) != 0,
        .timestamps = (c->flags & TCP_CF_TS) != 0,
        .wscale = (c->flags & TCP_CF_WS) != 0,
        .mss = c->mss,
        .cwnd = c->cwnd,
        .ssthresh = c->ssthresh,
        .snd_wnd = c->snd_wnd,
        .rcv_wnd = tcp_rcv_window(c),
        .snd_buf = c->sndbuf,
        .rcv_buf = c->rcv_buf,
        .snd_queued = c->snd_queued,
        .srtt_ns = c->srtt_ns,
        .rto_ns = c->rto_ns,
        .retransmits = c->retransmits,
    };
    if (out->v6) {
        net_memcpy(out->laddr6, c->laddr6, 16);
        net_memcpy(out->raddr6, c->raddr6, 16);
    }
}

const char *tcp_state_name(uint8_t state)
{
    static const char *const names[] = {
        "CLOSED",     "LISTEN",     "SYN-SENT", "SYN-RECEIVED", "ESTABLISHED", "FIN-WAIT-1",
        "FIN-WAIT-2", "CLOSE-WAIT", "CLOSING",  "LAST-ACK",     "TIME-WAIT",
    };
    return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

struct tcp_conn *tcp_conn_next(struct tcp_stack *t, uint32_t *idx)
{
    while (*idx < t->nconns) {
        struct tcp_conn *c = &t->conns[(*idx)++];
        if (c->state != TCP_CLOSED)
            return c;
    }
    return NULL;
}
