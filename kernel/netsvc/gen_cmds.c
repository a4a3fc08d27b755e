/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/gen_cmds.c: the generator's console commands: `gen run`
 * starts a trial, `show gen [json]` reports the last one (docs/usage.md). */
#include "gen.h"

#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "lib/fmt.h"
#include "lib/muldiv.h"

#define MS 1000000ull

static const char *const state_names[] = {"idle", "arming", "sending", "draining", "done"};

void gen_json_latency(struct json *j, const char *key, const struct lat_hist *h)
{
    json_obj_begin(j, key);
    json_u64(j, "samples", h->count);
    json_u64(j, "min_ns", h->count ? h->min_ns : 0);
    json_u64(j, "mean_ns", lat_hist_mean(h));
    json_u64(j, "p50_ns", lat_hist_percentile(h, 500));
    json_u64(j, "p90_ns", lat_hist_percentile(h, 900));
    json_u64(j, "p99_ns", lat_hist_percentile(h, 990));
    json_u64(j, "p999_ns", lat_hist_percentile(h, 999));
    json_u64(j, "max_ns", h->max_ns);
    json_obj_end(j);
}

static void cmd_gen_run(const struct cli_args *a)
{
    struct gen_trial_spec t = {.size = 64, .duration_ns = 1000 * MS, .drain_ns = 200 * MS};
    for (int i = 0; i + 1 < a->argc; i += 2) {
        const char *k = a->argv[i], *v = a->argv[i + 1];
        unsigned long n;
        bool ok = true;
        if (strcmp(k, "size") == 0 && strcmp(v, "imix") == 0)
            t.size = 0;
        else if (strcmp(k, "size") == 0)
            ok = config_parse_u32(v, 65535, &n) == 0 && (t.size = (uint16_t)n, true);
        else if (strcmp(k, "rate") == 0 && strcmp(v, "max") == 0)
            t.rate_pps = 0;
        else if (strcmp(k, "rate") == 0)
            ok = config_parse_u32(v, 4000000000ul, &n) == 0 && n && (t.rate_pps = n, true);
        else if (strcmp(k, "ms") == 0)
            ok = config_parse_u32(v, 3600000, &n) == 0 && n && (t.duration_ns = n * MS, true);
        else if (strcmp(k, "frames") == 0)
            ok = config_parse_u32(v, 4000000000ul, &n) == 0 && (t.frames = n, true);
        else if (strcmp(k, "drain-ms") == 0)
            ok = config_parse_u32(v, 60000, &n) == 0 && (t.drain_ns = n * MS, true);
        else
            ok = false;
        if (!ok) {
            kprintf("gen run: bad '%s %s'\n", k, v);
            return;
        }
    }
    if (a->argc % 2) {
        kprintf("usage: gen run [size N|imix] [rate PPS|max] [ms N] [frames N] [drain-ms N]\n");
        return;
    }
    char err[96];
    if (gen_trial_start(&t, err, sizeof err) != 0)
        kprintf("gen run: %s\n", err);
}

void gen_json(struct json *j)
{
    struct gen_result r;
    gen_trial_result(&r);
    json_obj_begin(j, 0);
    json_bool(j, "configured", gen_configured());
    json_str(j, "state", state_names[gen_trial_state()]);
    json_u64(j, "sent", r.sent);
    json_u64(j, "received", r.received);
    json_i64(j, "lost", r.lost);
    json_u64(j, "duplicated", r.dup);
    json_u64(j, "reordered", r.reordered);
    json_u64(j, "late", r.too_late);
    json_u64(j, "stale", r.stale);
    json_u64(j, "other", r.other);
    json_u64(j, "arp-replies", r.arp_replies);
    json_u64(j, "tx-full", r.tx_full);
    json_u64(j, "no-buffer", r.no_buffer);
    json_u64(j, "tx-ns", r.tx_ns);
    json_u64(j, "sent-pps", r.tx_ns ? muldiv64(r.sent, 1000000000u, r.tx_ns) : 0);
    gen_json_latency(j, "latency", &r.lat);
    json_obj_end(j);
}

static void cmd_show_gen(const struct cli_args *a)
{
    if (a->json) {
        struct json j;
        cli_json_begin(&j);
        gen_json(&j);
        cli_json_end(&j);
        return;
    }
    struct gen_result r;
    gen_trial_result(&r);
    uint64_t pps = r.tx_ns ? muldiv64(r.sent, 1000000000u, r.tx_ns) : 0;
    kprintf("generator: %s\n", gen_configured() ? state_names[gen_trial_state()] : "not configured");
    kprintf("  sent %lu received %lu lost %ld duplicated %lu reordered %lu (late %lu), %lu frames/s\n", r.sent,
            r.received, r.lost, r.dup, r.reordered, r.too_late, pps);
    kprintf("  latency ns: min %lu mean %lu p50 %lu p90 %lu p99 %lu p99.9 %lu max %lu\n",
            r.lat.count ? r.lat.min_ns : 0, lat_hist_mean(&r.lat), lat_hist_percentile(&r.lat, 500),
            lat_hist_percentile(&r.lat, 900), lat_hist_percentile(&r.lat, 990), lat_hist_percentile(&r.lat, 999),
            r.lat.max_ns);
    kprintf("  stale %lu other %lu arp-replies %lu tx-full %lu no-buffer %lu\n", r.stale, r.other, r.arp_replies,
            r.tx_full, r.no_buffer);
}

void gen_cmds_init(void)
{
    cli_register("gen run", "gen run [size N|imix] [rate PPS|max] [ms N] [frames N] [drain-ms N]",
                 "one generator trial (gen ports ... configured)", cmd_gen_run);
    cli_register("show gen", "show gen [json]", "the generator's last trial: counts and latency", cmd_show_gen);
}
