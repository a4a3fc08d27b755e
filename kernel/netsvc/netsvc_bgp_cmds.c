/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_bgp_cmds.c: the BGP speaker's configuration and
 * console (docs/usage.md, "BGP").
 *
 *   bgp as N
 *   bgp router-id A.B.C.D
 *   bgp neighbor ADDR as N [import all|none] [export all|none] [max-prefix N] [hold S] [passive]
 *   bgp network PREFIX
 *   bgp multipath N
 *
 *   show bgp summary [json]    show bgp neighbors [json]
 *   show bgp route PREFIX [json]    clear bgp ADDR
 *
 * RFC 8212: an eBGP neighbour imports and exports nothing unless its
 * statement says `import all` / `export all`; an iBGP one all. */
#include "netsvc_bgp.h"

#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/time.h"
#include "lib/fmt.h"

#define HOLD_DEFAULT_S 90 /* RFC 4271 10 */

static bool parse_peer_addr(const char *s, bool *v6, uint8_t *a)
{
    memset(a, 0, 16);
    uint32_t host;
    if (route4_parse_addr(s, strlen(s), &host)) {
        uint32_t be = net_htonl(host);
        memcpy(a, &be, 4);
        *v6 = false;
        return true;
    }
    *v6 = true;
    return route6_parse_addr(s, strlen(s), a);
}

static bool parse_prefix(const char *s, struct bgp_prefix *x)
{
    memset(x, 0, sizeof *x);
    uint32_t host;
    unsigned len;
    if (route4_parse(s, strlen(s), &host, &len)) {
        uint32_t be = net_htonl(host);
        memcpy(x->addr, &be, 4);
        x->afi = BGP_AFI_IPV4;
        x->len = (uint8_t)len;
        return true;
    }
    if (route6_parse(s, strlen(s), x->addr, &len)) {
        x->afi = BGP_AFI_IPV6;
        x->len = (uint8_t)len;
        return true;
    }
    return false;
}

struct bgp_svc_peer *netsvc_bgp_peer_by_addr(bool v6, const uint8_t *addr)
{
    for (unsigned i = 0; i < bgp_svc.npeers; i++) {
        struct bgp_svc_peer *p = &bgp_svc.peer[i];
        if (p->v6 == v6 && memcmp(p->addr, addr, v6 ? 16 : 4) == 0)
            return p;
    }
    return NULL;
}

static int stmt_neighbor(int argc, char **argv, char *err, size_t errlen)
{
    bool v6;
    uint8_t a[16];
    unsigned long v;
    if (argc < 5 || !parse_peer_addr(argv[2], &v6, a) || (v6 && a[0] == 0xfe && (a[1] & 0xc0) == 0x80) ||
        strcmp(argv[3], "as") != 0 ||
        config_parse_u32(argv[4], 0xffffffffu, &v) != 0 || v == 0) {
        fmt_snprintf(err, errlen, "usage: bgp neighbor ADDR as N [import all|none] [export all|none] "
                                  "[max-prefix N] [hold S] [passive] (ADDR not link-local)");
        return -1;
    }
    if (netsvc_bgp_peer_by_addr(v6, a) || bgp_svc.npeers == BGP_SVC_PEERS) {
        fmt_snprintf(err, errlen, "neighbor %s: given twice, or more than %u neighbors", argv[2], BGP_SVC_PEERS);
        return -1;
    }
    struct bgp_svc_peer p = {.v6 = v6, .as = (uint32_t)v, .hold_s = HOLD_DEFAULT_S, .port = -1};
    memcpy(p.addr, a, 16);
    int import = -1, export = -1;
    for (int i = 5; i < argc; i++) {
        bool more = i + 1 < argc;
        if ((strcmp(argv[i], "import") == 0 || strcmp(argv[i], "export") == 0) && more &&
            (strcmp(argv[i + 1], "all") == 0 || strcmp(argv[i + 1], "none") == 0)) {
            *(argv[i][0] == 'i' ? &import : &export) = argv[i + 1][0] == 'a';
            i++;
        } else if (strcmp(argv[i], "max-prefix") == 0 && more && config_parse_u32(argv[i + 1], 0xffffffffu, &v) == 0) {
            p.max_prefix = (uint32_t)v;
            i++;
        } else if (strcmp(argv[i], "hold") == 0 && more && config_parse_u32(argv[i + 1], 65535, &v) == 0 &&
                   v != 1 && v != 2) { /* RFC 4271 4.2: 0 or at least 3 */
            p.hold_s = (uint16_t)v;
            i++;
        } else if (strcmp(argv[i], "passive") == 0) {
            p.passive = true;
        } else {
            fmt_snprintf(err, errlen, "bgp neighbor %s: what is '%s'? (import all|none, export all|none, "
                                      "max-prefix N, hold 0|3..65535, passive)", argv[2], argv[i]);
            return -1;
        }
    }
    p.import_cfg = (int8_t)import; /* -1: RFC 8212's default, known once `bgp as` is */
    p.export_cfg = (int8_t)export;
    p.rib_peer = (uint16_t)(bgp_svc.npeers + 1);
    bgp_svc.peer[bgp_svc.npeers++] = p;
    return 0;
}

static int stmt_bgp(int argc, char **argv, char *err, size_t errlen)
{
    unsigned long v;
    uint32_t host;
    bgp_svc.configured = true;
    if (argc == 3 && strcmp(argv[1], "as") == 0 && config_parse_u32(argv[2], 0xffffffffu, &v) == 0 && v) {
        bgp_svc.as = (uint32_t)v;
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "router-id") == 0 && route4_parse_addr(argv[2], strlen(argv[2]), &host) &&
        host) {
        bgp_svc.router_id = host;
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "neighbor") == 0)
        return stmt_neighbor(argc, argv, err, errlen);
    if (argc == 3 && strcmp(argv[1], "multipath") == 0) {
        if (config_parse_u32(argv[2], BGP_MULTIPATH_MAX, &v) != 0 || v == 0) {
            fmt_snprintf(err, errlen, "bgp multipath %s: 1 to %u paths", argv[2], BGP_MULTIPATH_MAX);
            return -1;
        }
        bgp_svc.multipath = (uint8_t)v;
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "network") == 0) {
        if (bgp_svc.nnetworks == BGP_SVC_NETWORKS || !parse_prefix(argv[2], &bgp_svc.network[bgp_svc.nnetworks])) {
            fmt_snprintf(err, errlen, "bgp network %s: not a prefix (host bits zero), or more than %u", argv[2],
                         BGP_SVC_NETWORKS);
            return -1;
        }
        bgp_svc.nnetworks++;
        return 0;
    }
    fmt_snprintf(err, errlen, "usage: bgp as N | bgp router-id A.B.C.D | bgp neighbor ADDR as N ... | "
                              "bgp network PREFIX | bgp multipath N");
    return -1;
}

/* ---- the console ---- */

static void fmt_peer(char *b, size_t n, const struct bgp_svc_peer *p)
{
    if (p->v6) {
        fmt_ip6(b, n, p->addr);
    } else {
        uint32_t be;
        memcpy(&be, p->addr, 4);
        fmt_ip(b, n, be);
    }
}

static void fmt_prefix(char *b, size_t n, const struct bgp_prefix *x)
{
    if (x->afi == BGP_AFI_IPV6) {
        fmt_ip6(b, n, x->addr);
    } else {
        uint32_t be;
        memcpy(&be, x->addr, 4);
        fmt_ip(b, n, be);
    }
    fmt_snprintf(b + strlen(b), n - strlen(b), "/%u", x->len);
}

static uint64_t msgs(const uint64_t *m) { return m[1] + m[2] + m[3] + m[4] + m[5]; }

static uint64_t uptime_s(const struct bgp_svc_peer *p)
{
    return p->fsm.state == BGP_ESTABLISHED ? (time_now_ns() - p->fsm.up_since_ns) / 1000000000ull : 0;
}

static const char *last_error(const struct bgp_svc_peer *p, char *b, size_t n)
{
    const struct bgp_error *e = &p->fsm.last_err;
    if (!e->code)
        return "";
    fmt_snprintf(b, n, "%s %s", p->fsm.last_err_sent ? "sent" : "received", bgp_error_name(e->code, e->subcode));
    return b;
}

static bool not_running(void)
{
    if (bgp_svc.started)
        return false;
    kprintf("bgp: not running (no `bgp as N` in the configuration, or no port has an address)\n");
    return true;
}

static void peer_json(struct json *j, const struct bgp_svc_peer *p, bool detail)
{
    char b[64], e[96];
    struct bgp_rib_peer_counts c;
    bgp_rib_peer_counts(&bgp_svc.rib, p->rib_peer, &c);
    json_obj_begin(j, NULL);
    fmt_peer(b, sizeof b, p);
    json_str(j, "address", b);
    json_u64(j, "as", p->as);
    json_str(j, "state", bgp_state_name(p->fsm.state));
    json_u64(j, "uptime_s", uptime_s(p));
    json_u64(j, "received", c.received);
    json_u64(j, "accepted", c.accepted);
    json_u64(j, "best", c.best);
    json_u64(j, "msgs_in", msgs(p->fsm.st.msgs_in));
    json_u64(j, "msgs_out", msgs(p->fsm.st.msgs_out));
    json_u64(j, "updates_in", p->n.updates_in);
    json_u64(j, "updates_out", p->n.updates_out);
    json_str(j, "last_error", last_error(p, e, sizeof e));
    if (detail) {
        const struct bgp_fsm_stats *s = &p->fsm.st;
        json_u64(j, "hold", p->fsm.hold_s);
        json_bool(j, "as4", p->fsm.as4);
        json_bool(j, "ipv4", p->fsm.mp_v4);
        json_bool(j, "ipv6", p->fsm.mp_v6);
        json_str(j, "import", p->import_all ? "all" : "none");
        json_str(j, "export", p->export_all ? "all" : "none");
        json_u64(j, "max_prefix", p->max_prefix);
        json_bool(j, "passive", p->passive);
        json_u64(j, "established", s->established);
        json_u64(j, "prefixes_out", p->n.prefixes_out);
        json_u64(j, "withdrawals_out", p->n.withdrawals_out);
        json_obj_begin(j, "errors");
        json_u64(j, "import_denied", p->n.in.denied);
        json_u64(j, "nexthop_self", p->n.in.nexthop_self);
        json_u64(j, "rib_nomem", p->n.in.nomem);
        json_u64(j, "max_prefix_hits", p->n.max_prefix_hits);
        json_u64(j, "export_overflows", p->n.export_overflows);
        json_u64(j, "hold_expired", s->hold_expired);
        json_u64(j, "notifications_in", s->notifications_in);
        json_u64(j, "notifications_out", s->notifications_out);
        json_u64(j, "connect_fails", s->connect_fails);
        json_u64(j, "collisions", s->collisions);
        json_u64(j, "updates_withdrawn", s->updates_withdrawn);
        for (unsigned r = 1; r < BGP_R_COUNT; r++)
            if (s->reasons[r])
                json_u64(j, bgp_upd_reason_name(r), s->reasons[r]);
        json_obj_end(j);
    }
    json_obj_end(j);
}

static void show_peers(const struct cli_args *a, bool detail)
{
    if (not_running())
        return;
    struct bgp_rib_stats st;
    bgp_rib_stats(&bgp_svc.rib, &st);
    if (a->json) {
        struct json j;
        cli_json_begin(&j);
        json_obj_begin(&j, NULL);
        if (!detail) {
            char b[20];
            uint32_t be = net_htonl(bgp_svc.router_id);
            fmt_ip(b, sizeof b, be);
            json_u64(&j, "as", bgp_svc.as);
            json_str(&j, "router_id", b);
            json_u64(&j, "prefixes", st.prefixes);
            json_u64(&j, "paths", st.paths);
            json_u64(&j, "attribute_sets", st.asets);
            json_u64(&j, "rib_bytes", st.bytes);
            json_u64(&j, "fib_adds", bgp_svc.fib_adds);
            json_u64(&j, "fib_dels", bgp_svc.fib_dels);
            json_u64(&j, "fib_errors", bgp_svc.fib_errors);
            json_u64(&j, "fib_rebuilds", bgp_svc.fib_rebuilds);
            json_u64(&j, "fib_deferred", netsvc_route_deferred());
            json_u64(&j, "fib_static_wins", bgp_svc.fib_static_wins);
            json_u64(&j, "multipath", bgp_svc.multipath ? bgp_svc.multipath : 1);
            json_u64(&j, "multipath_fallbacks", bgp_svc.multipath_fallbacks);
            json_u64(&j, "nexthop_changes", bgp_svc.nh_changes);
        }
        json_arr_begin(&j, "peers");
        for (unsigned i = 0; i < bgp_svc.npeers; i++)
            peer_json(&j, &bgp_svc.peer[i], detail);
        json_arr_end(&j);
        json_obj_end(&j);
        cli_json_end(&j);
        return;
    }
    kprintf("AS%u, router id %u.%u.%u.%u: %llu prefixes, %llu paths, %llu attribute sets, %llu KB\n", bgp_svc.as,
            bgp_svc.router_id >> 24, bgp_svc.router_id >> 16 & 255, bgp_svc.router_id >> 8 & 255,
            bgp_svc.router_id & 255, (unsigned long long)st.prefixes, (unsigned long long)st.paths,
            (unsigned long long)st.asets, (unsigned long long)(st.bytes >> 10));
    kprintf("%-26s %10s %-12s %8s %9s %9s %9s %9s\n", "neighbor", "AS", "state", "up(s)", "received", "best",
            "msgs in", "msgs out");
    for (unsigned i = 0; i < bgp_svc.npeers; i++) {
        const struct bgp_svc_peer *p = &bgp_svc.peer[i];
        char b[64], e[96];
        struct bgp_rib_peer_counts c;
        bgp_rib_peer_counts(&bgp_svc.rib, p->rib_peer, &c);
        fmt_peer(b, sizeof b, p);
        kprintf("%-26s %10u %-12s %8llu %9u %9u %9llu %9llu %s\n", b, p->as, bgp_state_name(p->fsm.state),
                (unsigned long long)uptime_s(p), c.received, c.best, (unsigned long long)msgs(p->fsm.st.msgs_in),
                (unsigned long long)msgs(p->fsm.st.msgs_out), last_error(p, e, sizeof e));
    }
}

static void cmd_summary(const struct cli_args *a) { show_peers(a, false); }
static void cmd_neighbors(const struct cli_args *a) { show_peers(a, true); }

static void fmt_path(char *b, size_t n, const struct bgp_attrs *at)
{
    b[0] = 0;
    unsigned k = 0;
    for (unsigned s = 0; s < at->nsegs; s++) {
        bool set = at->segs[s].type == 1;
        fmt_snprintf(b + strlen(b), n - strlen(b), "%s%s", strlen(b) ? " " : "", set ? "{" : "");
        for (unsigned i = 0; i < at->segs[s].count && k < at->nasns; i++, k++)
            fmt_snprintf(b + strlen(b), n - strlen(b), "%s%u", i ? (set ? "," : " ") : "", at->asns[k]);
        if (set)
            fmt_snprintf(b + strlen(b), n - strlen(b), "}");
    }
}

static void cmd_route(const struct cli_args *a)
{
    struct bgp_prefix x;
    if (a->argc != 1 || !parse_prefix(a->argv[0], &x)) {
        kprintf("usage: show bgp route PREFIX [json]\n");
        return;
    }
    if (not_running())
        return;
    const struct bgp_route *r = bgp_rib_find(&bgp_svc.rib, &x);
    static const char *const origins[] = {"IGP", "EGP", "incomplete"};
    struct json j;
    char b[64];
    if (a->json) {
        cli_json_begin(&j);
        json_obj_begin(&j, NULL);
        fmt_prefix(b, sizeof b, &x);
        json_str(&j, "prefix", b);
        json_arr_begin(&j, "paths");
    } else if (!r) {
        kprintf("no BGP path for %s\n", a->argv[0]);
        return;
    }
    const struct bgp_path *multi[BGP_MULTIPATH_MAX];
    unsigned nmulti = r && bgp_svc.multipath > 1 ? bgp_rib_multipath(&bgp_svc.rib, r, multi) : 0;
    for (const struct bgp_path *p = r ? r->paths : NULL; p; p = p->next) {
        bool in_multi = false; /* forwarded on beside the best (bgp multipath) */
        for (unsigned i = 1; i < nmulti; i++)
            in_multi |= multi[i] == p;
        static struct bgp_attrs at;
        static char path[1024];
        char nh[64];
        bgp_aset_get_attrs(p->a, &at);
        fmt_path(path, sizeof path, &at);
        if (x.afi == BGP_AFI_IPV6)
            fmt_ip6(nh, sizeof nh, at.nh6);
        else
            fmt_ip(nh, sizeof nh, *(const uint32_t *)(const void *)at.nh4);
        if (p->peer)
            fmt_peer(b, sizeof b, &bgp_svc.peer[p->peer - 1]);
        else
            fmt_snprintf(b, sizeof b, "local");
        uint32_t lp = at.has & BGP_HAS_LOCAL_PREF ? at.local_pref : BGP_LOCAL_PREF_DEFAULT;
        const char *why = bgp_why_name(bgp_rib_why(&bgp_svc.rib, r, p));
        if (a->json) {
            json_obj_begin(&j, NULL);
            json_str(&j, "peer", b);
            json_str(&j, "as_path", path);
            json_str(&j, "next_hop", p->peer ? nh : "self");
            json_str(&j, "origin", origins[at.origin % 3]);
            json_u64(&j, "local_pref", lp);
            json_u64(&j, "med", at.has & BGP_HAS_MED ? at.med : 0);
            json_bool(&j, "best", p == r->best);
            json_bool(&j, "multipath", p == r->best || in_multi);
            json_bool(&j, "reachable", p->reachable);
            json_u64(&j, "igp_cost", p->igp_cost);
            json_str(&j, "why", why);
            json_obj_end(&j);
        } else {
            kprintf("%s %-22s via %-20s path [%s] %s local-pref %u med %u (%s)\n", p == r->best ? "*" : in_multi ? "=" : " ", b,
                    p->peer ? nh : "self", path, origins[at.origin % 3], lp, at.has & BGP_HAS_MED ? at.med : 0, why);
        }
    }
    bool held = r && r->best && netsvc_bgp_static_holds(r);
    if (a->json) {
        json_arr_end(&j);
        json_bool(&j, "static_wins", held);
        json_obj_end(&j);
        cli_json_end(&j);
    } else if (held) {
        kprintf("  not in the FIB: a static route of this prefix wins\n");
    }
}

static void cmd_clear(const struct cli_args *a)
{
    bool v6;
    uint8_t addr[16];
    struct bgp_svc_peer *p = a->argc == 1 && parse_peer_addr(a->argv[0], &v6, addr)
                                 ? netsvc_bgp_peer_by_addr(v6, addr) : NULL;
    if (!p) {
        kprintf("usage: clear bgp ADDR (a configured neighbor)\n");
        return;
    }
    if (!not_running() && !netsvc_bgp_clear(p))
        kprintf("bgp: neighbor %s was never started (no memory at boot)\n", a->argv[0]);
}

/* /metrics: the speaker's counters, summed over its neighbours. */
static const char *const metric_names[] = {
    "bgp-established", "bgp-prefixes", "bgp-paths", "bgp-updates-in", "bgp-updates-out",
    "bgp-notifications-in", "bgp-notifications-out", "bgp-hold-expired", "bgp-update-errors",
    "bgp-import-denied", "bgp-fib-rebuilds", "bgp-fib-errors"};

uint32_t netsvc_bgp_metric_count(void)
{
    return bgp_svc.started ? sizeof metric_names / sizeof metric_names[0] : 0;
}

bool netsvc_bgp_metric(uint32_t idx, const char **name, uint64_t *value)
{
    if (idx >= netsvc_bgp_metric_count())
        return false;
    struct bgp_rib_stats st;
    bgp_rib_stats(&bgp_svc.rib, &st);
    uint64_t v[12] = {0, st.prefixes, st.paths, 0, 0, 0, 0, 0, 0, 0, bgp_svc.fib_rebuilds, bgp_svc.fib_errors};
    for (unsigned i = 0; i < bgp_svc.npeers; i++) {
        const struct bgp_svc_peer *p = &bgp_svc.peer[i];
        const struct bgp_fsm_stats *f = &p->fsm.st;
        v[0] += p->fsm.state == BGP_ESTABLISHED;
        v[3] += p->n.updates_in;
        v[4] += p->n.updates_out;
        v[5] += f->notifications_in;
        v[6] += f->notifications_out;
        v[7] += f->hold_expired;
        for (unsigned r = 1; r < BGP_R_COUNT; r++)
            v[8] += f->reasons[r];
        v[9] += p->n.in.denied;
    }
    *name = metric_names[idx];
    *value = v[idx];
    return true;
}

void netsvc_bgp_init(void)
{
    config_register("bgp", stmt_bgp);
    cli_register("show bgp summary", "show bgp summary [json]", "BGP neighbors: state, prefixes, messages",
                 cmd_summary);
    cli_register("show bgp neighbors", "show bgp neighbors [json]", "BGP neighbors in detail, errors by name",
                 cmd_neighbors);
    cli_register("show bgp route", "show bgp route PREFIX [json]", "every BGP path of a prefix, the best and why",
                 cmd_route);
    cli_register("clear bgp", "clear bgp ADDR", "reset a BGP session (Cease), which then starts again", cmd_clear);
}
