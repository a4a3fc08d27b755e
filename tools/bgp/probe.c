/* SPDX-License-Identifier: MIT */
/* tools/bgp/probe.c: hayate's BGP session and codec (bgp/) on a host
 * socket, against a real daemon: build/unit/bgp-probe ADDR PEER_AS
 * LOCAL_AS ROUTER_ID ANNOUNCE SECONDS LINGER EXPECT. Opens the session to
 * ADDR:179, announces ANNOUNCE IPv4 /24s from 198.18.0.0 (next hop the
 * socket's own address), takes UPDATEs until End-of-RIB of both families
 * has come or EXPECT prefixes have (some daemons send no End-of-RIB
 * without graceful restart), or SECONDS pass; prints "ready", keeps the
 * session LINGER seconds more (for the test to ask the daemon what it
 * learnt), stops it and prints one JSON object: the state reached, the
 * distinct prefixes announced (those whose AS_PATH holds LOCAL_AS apart,
 * as loops) and the withdrawals by family, every non-zero RFC 7606 reason, the
 * messages sent, what ended it. No kernel: tests/e2e/test_bgp_codec.py
 * runs it against BIRD, FRR, GoBGP and OpenBGPD. With BGP_PROBE_RECORD=FILE
 * it writes every byte the daemon sent to FILE: a recorded session, which
 * tools/bench/bgp_bench.c replays. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bgp/bgp_fsm.h"

static int fd = -1;
static bool connecting, up, eor4, eor6;
static uint64_t pfx[2], wd[2], loops, updates;
static uint32_t announce;
static uint8_t local_addr[4];

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct sockaddr_storage peer;

static bool p_connect(void *ctx)
{
    fd = socket(peer.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return false;
    socklen_t len = peer.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    if (connect(fd, (struct sockaddr *)&peer, len) < 0 && errno != EINPROGRESS) {
        close(fd);
        fd = -1;
        return false;
    }
    connecting = true;
    return true;
}

static uint32_t p_write(void *ctx, void *conn, const uint8_t *b, uint32_t n)
{
    ssize_t k = send(fd, b, n, MSG_NOSIGNAL);
    return k < 0 ? 0 : (uint32_t)k;
}

static void p_close(void *ctx, void *conn)
{
    close(fd);
    fd = -1;
}

static struct bgp_fsm f;

static void announce_v4(void)
{
    static struct bgp_attrs at;
    at.has = BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_NEXT_HOP;
    at.nsegs = 1;
    at.segs[0] = (struct bgp_as_seg){.type = 2, .count = 1};
    at.nasns = 1;
    at.asns[0] = f.cfg.local_as;
    at.path_len = 1;
    memcpy(at.nh4, local_addr, 4);
    static uint8_t m[BGP_MSG_MAX];
    struct bgp_update_builder ub;
    uint32_t i = 0;
    while (i < announce) {
        bgp_ub_begin(&ub, m, sizeof m, BGP_AFI_IPV4, &at, f.as4, false);
        for (; i < announce; i++) {
            struct bgp_prefix p = {.afi = BGP_AFI_IPV4, .len = 24, .addr = {198, (uint8_t)(18 + i / 256), (uint8_t)i}};
            if (!bgp_ub_add(&ub, &p))
                break;
        }
        size_t n = bgp_ub_finish(&ub);
        while (!bgp_fsm_send(&f, m, (uint16_t)n, now_ns()))
            bgp_fsm_poll(&f, now_ns());
    }
    /* End-of-RIB (RFC 4724 2): an UPDATE with nothing in it */
    bgp_ub_begin(&ub, m, sizeof m, BGP_AFI_IPV4, &at, f.as4, true);
    size_t n = bgp_ub_finish(&ub);
    bgp_fsm_send(&f, m, (uint16_t)n, now_ns());
}

static void p_up(void *ctx)
{
    up = true;
    announce_v4();
}

static void p_down(void *ctx, const struct bgp_error *e, bool sent) { up = false; }

/* The prefixes announced, each once (a daemon may announce one again,
 * as OpenBGPD does after its own reconfiguration at start). */
static struct bgp_prefix *seen;
static size_t seen_cap, seen_n;

static size_t slot_of(const struct bgp_prefix *x, size_t cap)
{
    uint64_t h = 1469598103934665603ull ^ x->afi ^ (uint64_t)x->len << 8;
    for (int i = 0; i < 16; i++)
        h = (h ^ x->addr[i]) * 1099511628211ull;
    size_t i = (size_t)h & (cap - 1);
    while (seen[i].afi && !bgp_prefix_eq(&seen[i], x))
        i = (i + 1) & (cap - 1);
    return i;
}

/* True the first time x is seen. */
static bool first_time(const struct bgp_prefix *x)
{
    if (2 * (seen_n + 1) > seen_cap) {
        struct bgp_prefix *old = seen;
        size_t old_cap = seen_cap;
        seen_cap = seen_cap ? 2 * seen_cap : 1024;
        seen = calloc(seen_cap, sizeof *seen);
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].afi)
                seen[slot_of(&old[i], seen_cap)] = old[i];
        free(old);
    }
    size_t i = slot_of(x, seen_cap);
    if (seen[i].afi)
        return false;
    seen[i] = *x;
    seen_n++;
    return true;
}

/* Counts the prefixes of an NLRI field into n[afi - 1] (distinct ones
 * only when distinct). */
static void count(const uint8_t *p, uint16_t len, uint8_t afi, uint64_t *n, bool distinct)
{
    const uint8_t *end = p + len;
    struct bgp_prefix x;
    while (p && bgp_nlri_next(&p, end, afi, &x))
        if (!distinct || first_time(&x))
            n[afi - 1]++;
}

static void p_update(void *ctx, const struct bgp_update *u)
{
    updates++;
    if (u->end_of_rib) {
        if (u->mp_unreach_afi == BGP_AFI_IPV6)
            eor6 = true;
        else
            eor4 = true;
        return;
    }
    count(u->wd4, u->wd4_len, BGP_AFI_IPV4, wd, false);
    if (u->mp_unreach_afi)
        count(u->mp_unreach_nlri, u->mp_unreach_len, u->mp_unreach_afi, wd, false);
    uint64_t looped[2] = {0, 0};
    bool loop = false;
    for (unsigned i = 0; i < u->attrs.nasns; i++)
        loop |= u->attrs.asns[i] == f.cfg.local_as;
    uint64_t *to = u->verdict != BGP_UPD_OK ? wd : loop ? looped : pfx;
    count(u->nlri4, u->nlri4_len, BGP_AFI_IPV4, to, to == pfx);
    if (u->mp_reach_afi)
        count(u->mp_reach_nlri, u->mp_reach_len, u->mp_reach_afi, to, to == pfx);
    loops += looped[0] + looped[1];
}

static void p_refresh(void *ctx, uint16_t afi, uint8_t safi) {}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: %s ADDR PEER_AS LOCAL_AS ROUTER_ID [ANNOUNCE [SECONDS [LINGER [EXPECT]]]]\n",
                argv[0]);
        return 2;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)&peer;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&peer;
    if (inet_pton(AF_INET, argv[1], &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons(BGP_PORT);
    } else if (inet_pton(AF_INET6, argv[1], &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(BGP_PORT);
    } else {
        fprintf(stderr, "bgp-probe: %s is no address\n", argv[1]);
        return 2;
    }
    struct in_addr id;
    inet_pton(AF_INET, argv[4], &id);
    announce = argc > 5 ? (uint32_t)atoi(argv[5]) : 0;
    int seconds = argc > 6 ? atoi(argv[6]) : 30, linger = argc > 7 ? atoi(argv[7]) : 0;
    uint64_t expect = argc > 8 ? strtoull(argv[8], 0, 10) : UINT64_MAX;
    struct bgp_fsm_config cfg = {.local_as = (uint32_t)strtoul(argv[3], 0, 10), .router_id = ntohl(id.s_addr),
                                 .peer_as = (uint32_t)strtoul(argv[2], 0, 10), .hold_s = 90, .mp_v4 = true,
                                 .mp_v6 = true};
    struct bgp_fsm_ops ops = {.connect = p_connect, .write = p_write, .close = p_close, .up = p_up,
                              .down = p_down, .update = p_update, .refresh = p_refresh};
    bgp_fsm_init(&f, &cfg, &ops);
    uint64_t end = now_ns() + (uint64_t)seconds * 1000000000ull;
    bgp_fsm_start(&f, now_ns());
    static uint8_t buf[65536];
    const char *rec_path = getenv("BGP_PROBE_RECORD");
    FILE *rec = rec_path ? fopen(rec_path, "wb") : NULL;
    bool told = false;
    while (now_ns() < end) {
        if (up && ((eor4 && eor6) || pfx[0] + pfx[1] >= expect) && !told) {
            told = true;
            printf("ready\n");
            fflush(stdout);
            end = now_ns() + (uint64_t)linger * 1000000000ull;
        }
        bgp_fsm_poll(&f, now_ns());
        if (fd < 0) {
            usleep(10000);
            continue;
        }
        struct pollfd pf = {.fd = fd, .events = POLLIN | (connecting ? POLLOUT : 0)};
        if (poll(&pf, 1, 10) <= 0)
            continue;
        if (connecting && (pf.revents & (POLLOUT | POLLERR | POLLHUP))) {
            int err = 0;
            socklen_t el = sizeof err;
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
            connecting = false;
            if (err) {
                close(fd);
                fd = -1;
                bgp_fsm_closed(&f, NULL, now_ns());
                continue;
            }
            struct sockaddr_in me;
            socklen_t ml = sizeof me;
            getsockname(fd, (struct sockaddr *)&me, &ml);
            memcpy(local_addr, &me.sin_addr, 4);
            bgp_fsm_connected(&f, &fd, now_ns());
            continue;
        }
        if (pf.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(fd, buf, sizeof buf, 0);
            if (n <= 0) {
                int was = fd;
                fd = -1;
                close(was);
                bgp_fsm_closed(&f, &fd, now_ns());
                continue;
            }
            if (rec)
                fwrite(buf, 1, (size_t)n, rec);
            bgp_fsm_input(&f, &fd, buf, (uint32_t)n, now_ns());
        }
    }
    printf("{\"state\": \"%s\", \"as4\": %s, \"mp_v4\": %s, \"mp_v6\": %s, \"hold\": %u, \"eor4\": %s, "
           "\"eor6\": %s, \"updates\": %llu, \"v4\": %llu, \"v6\": %llu, \"withdrawn_v4\": %llu, "
           "\"withdrawn_v6\": %llu, \"loops\": %llu, \"msgs_out\": %llu, \"last_error\": \"%u/%u\", \"reasons\": {",
           bgp_state_name(f.state), f.as4 ? "true" : "false", f.mp_v4 ? "true" : "false",
           f.mp_v6 ? "true" : "false", f.hold_s, eor4 ? "true" : "false", eor6 ? "true" : "false",
           (unsigned long long)updates, (unsigned long long)pfx[0], (unsigned long long)pfx[1],
           (unsigned long long)wd[0], (unsigned long long)wd[1], (unsigned long long)loops,
           (unsigned long long)(f.st.msgs_out[1] + f.st.msgs_out[2] + f.st.msgs_out[4]), f.last_err.code,
           f.last_err.subcode);
    const char *sep = "";
    for (unsigned r = 1; r < BGP_R_COUNT; r++)
        if (f.st.reasons[r]) {
            printf("%s\"%s\": %llu", sep, bgp_upd_reason_name(r), (unsigned long long)f.st.reasons[r]);
            sep = ", ";
        }
    printf("}}\n");
    bgp_fsm_stop(&f, 0, now_ns());
    if (rec)
        fclose(rec);
    return f.st.established ? 0 : 1;
}
