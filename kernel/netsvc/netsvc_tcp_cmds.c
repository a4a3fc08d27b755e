/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_tcp_cmds.c: `show tcp`: every core's connections
 * as the owning core sees them (like ss -ti), or how many of them are in
 * each state (`show tcp summary`, like ss -s). Each core takes its own
 * snapshot, asked through kernel/msg.h (netsvc_on_core). */
#include "netsvc_impl.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "lib/fmt.h"

#define TCP_SNAPSHOT_MAX 256 /* connections shown per core */

struct tcp_snapshot {
    struct netsvc_core *rc;
    unsigned n, total;
    struct tcp_info e[TCP_SNAPSHOT_MAX];
};

static void take_tcp(void *arg)
{
    struct tcp_snapshot *s = arg;
    uint32_t idx = 0;
    const struct tcp_conn *c;
    if (s->rc->stack.tcp == NULL)
        return;
    while ((c = tcp_conn_next(&s->rc->tcp, &idx)) != NULL) {
        if (s->n < TCP_SNAPSHOT_MAX)
            tcp_get_info(c, &s->e[s->n++]);
        s->total++;
    }
}

/* addr:port, IPv6 as [addr]:port (RFC 5952 6). */
static void fmt_endpoint(char *buf, size_t n, bool v6, uint32_t addr_be, const uint8_t *addr6, uint16_t port)
{
    if (v6) {
        buf[0] = '[';
        fmt_ip6(buf + 1, n - 1, addr6);
        fmt_snprintf(buf + strlen(buf), n - strlen(buf), "]:%u", port);
    } else {
        fmt_ip(buf, n, addr_be);
        fmt_snprintf(buf + strlen(buf), n - strlen(buf), ":%u", port);
    }
}

/* A core's table at a glance (like ss -s): how many of its connections
 * are in each state, how many wait for room, the large send queues lent. */
struct tcp_summary {
    struct netsvc_core *rc;
    uint32_t capacity, waiting, large, large_free;
    uint32_t state[TCP_TIME_WAIT + 1];
};

static void take_tcp_summary(void *arg)
{
    struct tcp_summary *s = arg;
    const struct tcp_stack *t = &s->rc->tcp;
    uint32_t idx = 0;
    const struct tcp_conn *c;
    if (s->rc->stack.tcp == NULL)
        return;
    s->capacity = t->nconns;
    s->waiting = t->nblocked + t->nbuf_wait;
    s->large = t->sq_large_cap ? t->cfg.sq_large : 0;
    s->large_free = t->nsq_large;
    while ((c = tcp_conn_next((struct tcp_stack *)t, &idx)) != NULL)
        s->state[c->state <= TCP_TIME_WAIT ? c->state : TCP_CLOSED]++;
}

static void show_tcp_summary(const struct cli_args *a)
{
    struct json j;
    if (a->json)
        netsvc_list_begin(&j, "cores");
    for (unsigned core = 0; core < netsvc.ncores; core++) {
        struct tcp_summary s = {.rc = netsvc.core[core]};
        if (netsvc_on_core(core, take_tcp_summary, &s) != 0)
            continue;
        uint32_t used = 0;
        for (int st = TCP_SYN_SENT; st <= TCP_TIME_WAIT; st++)
            used += s.state[st];
        if (a->json) {
            json_obj_begin(&j, 0);
            json_u64(&j, "core", core);
            json_u64(&j, "capacity", s.capacity);
            json_u64(&j, "in_use", used);
            json_obj_begin(&j, "states");
            for (int st = TCP_SYN_SENT; st <= TCP_TIME_WAIT; st++)
                json_u64(&j, tcp_state_name(st), s.state[st]);
            json_obj_end(&j);
            json_u64(&j, "waiting", s.waiting);
            json_u64(&j, "large_queues", s.large);
            json_u64(&j, "large_queues_in_use", s.large - s.large_free);
            json_obj_end(&j);
            continue;
        }
        kprintf("core %u: %u of %u connections in use", core, used, s.capacity);
        for (int st = TCP_SYN_SENT, first = 1; st <= TCP_TIME_WAIT; st++)
            if (s.state[st]) {
                kprintf("%s%s %u", first ? " (" : ", ", tcp_state_name(st), s.state[st]);
                first = 0;
            }
        kprintf("%s; %u waiting for room; %u of %u large send queues in use\n", used ? ")" : "", s.waiting,
                s.large - s.large_free, s.large);
    }
    if (a->json)
        netsvc_list_end(&j);
}

/* Every core's connections, as the owning core sees them (like ss -ti). */
void netsvc_cmd_show_tcp(const struct cli_args *a)
{
    static struct tcp_snapshot snap; /* console only: one at a time */
    struct json j;
    char local[56], remote[56];
    if (a->argc == 1 && strcmp(a->argv[0], "summary") == 0) {
        show_tcp_summary(a);
        return;
    }
    if (a->argc != 0) {
        kprintf("usage: show tcp [summary] [json]\n");
        return;
    }
    if (a->json) {
        netsvc_list_begin(&j, "connections");
    } else {
        kprintf("%-4s %-21s %-21s %-11s %6s %8s %8s %8s %8s %8s %9s %6s\n", "core", "local", "remote", "state",
                "mss", "cwnd", "snd-wnd", "rcv-wnd", "queued", "snd-buf", "srtt-us", "retx");
    }
    unsigned hidden = 0;
    for (unsigned core = 0; core < netsvc.ncores; core++) {
        snap.rc = netsvc.core[core];
        snap.n = snap.total = 0;
        if (netsvc_on_core(core, take_tcp, &snap) != 0)
            continue;
        hidden += snap.total - snap.n;
        for (unsigned i = 0; i < snap.n; i++) {
            const struct tcp_info *e = &snap.e[i];
            fmt_endpoint(local, sizeof local, e->v6, e->laddr_be, e->laddr6, e->lport);
            fmt_endpoint(remote, sizeof remote, e->v6, e->raddr_be, e->raddr6, e->rport);
            if (a->json) {
                json_obj_begin(&j, 0);
                json_u64(&j, "core", core);
                json_str(&j, "local", local);
                json_str(&j, "remote", remote);
                json_str(&j, "state", tcp_state_name(e->state));
                json_str(&j, "cc", e->cc_algo == TCP_CC_NEWRENO ? "newreno" : "cubic");
                json_bool(&j, "sack", e->sack);
                json_bool(&j, "timestamps", e->timestamps);
                json_bool(&j, "wscale", e->wscale);
                json_u64(&j, "mss", e->mss);
                json_u64(&j, "cwnd", e->cwnd);
                json_u64(&j, "ssthresh", e->ssthresh);
                json_u64(&j, "snd_wnd", e->snd_wnd);
                json_u64(&j, "rcv_wnd", e->rcv_wnd);
                json_u64(&j, "snd_queued", e->snd_queued);
                json_u64(&j, "snd_buf", e->snd_buf);
                json_u64(&j, "rcv_buf", e->rcv_buf);
                json_u64(&j, "srtt_us", e->srtt_ns / 1000);
                json_u64(&j, "rto_ms", e->rto_ns / 1000000);
                json_u64(&j, "retransmits", e->retransmits);
                json_obj_end(&j);
            } else {
                kprintf("%-4u %-21s %-21s %-11s %6u %8u %8u %8u %8u %8u %9lu %6u\n", core, local, remote,
                        tcp_state_name(e->state), e->mss, e->cwnd, e->snd_wnd, e->rcv_wnd, e->snd_queued,
                        e->snd_buf, e->srtt_ns / 1000, e->retransmits);
            }
        }
    }
    if (a->json) {
        json_arr_end(&j);
        json_u64(&j, "not_shown", hidden);
        json_obj_end(&j);
        cli_json_end(&j);
    } else if (hidden) {
        kprintf("(%u more not shown)\n", hidden);
    }
}
