/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/rfc2544_run.c: `rfc2544 run ...` runs RFC 2544's tests
 * with the generator, one trial after another, from a poller on core 0
 * (the console stays free: `show rfc2544 [json]` reads the progress). For
 * each frame size: throughput (NDR, then PDR with its tolerance: 26.1 and
 * RFC 9004), latency at 10, 50, 90 and 100% of the NDR (26.2, from every
 * frame's stamp rather than one tagged frame a trial), the frame-loss
 * curve (26.3) and back-to-back bursts (26.4). The decisions are
 * tester/rfc2544.c's; trial length, precision, the tolerance and how many
 * times each size's tests repeat (each figure then the mean, as 26.2 and
 * 26.4 ask) are the command's, with the RFC's 60 s trials as the default. */
#include "gen.h"

#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "lib/fmt.h"
#include "lib/muldiv.h"
#include "tester/gen_frame.h"
#include "tester/rfc2544.h"

#define MS 1000000ull
#define MAX_SIZES 9
#define LAT_LOADS 4
#define LOSS_STEPS 10

static const uint32_t lat_loads[LAT_LOADS] = {10, 50, 90, 100};

enum phase { PH_IDLE, PH_NDR, PH_PDR, PH_LATENCY, PH_LOSS, PH_B2B, PH_DONE };
static const char *const phase_names[] = {"idle", "throughput", "throughput-pdr", "latency", "frame-loss",
                                          "back-to-back", "done"};

struct lat_result {
    uint64_t samples;
    uint64_t min, p50, p90, p99, p999, max;
    bool run;
};

/* One repetition of a size's tests. */
struct size_result {
    uint16_t size; /* 0: IMIX */
    uint64_t line_pps, ndr_pps, pdr_pps, b2b_frames;
    bool tester_limited; /* a trial failed because the generator could not send its rate */
    struct lat_result lat[LAT_LOADS];
    struct {
        uint32_t pct, loss_ppm;
    } loss[LOSS_STEPS];
    uint32_t nloss;
};

/* A size's figures over its repetitions. */
#define LAT_FIGURES 6 /* min, P50, P90, P99, P99.9, max */
struct size_total {
    uint16_t size;
    uint64_t line_pps;
    bool tester_limited;
    struct rfc2544_tally ndr, pdr, b2b;
    struct rfc2544_tally lat[LAT_LOADS][LAT_FIGURES]; /* the repetitions that measured some */
    bool lat_run[LAT_LOADS];
    struct rfc2544_tally loss[LOSS_STEPS];            /* at 100, 90, ... 10% */
};

static struct {
    /* The command's settings. */
    uint16_t sizes[MAX_SIZES];
    unsigned nsizes;
    uint64_t trial_ns, drain_ns, line_bps, trial_rate;
    uint32_t precision_ppm, pdr_ppm, repeat;
    /* Where the run is. */
    enum phase phase;
    unsigned size_i, lat_i, rep;
    bool trial_out;
    uint32_t trials;
    struct rfc2544_search search;
    struct rfc2544_loss_curve curve;
    struct size_result cur;          /* the size's repetition under way */
    struct size_total res[MAX_SIZES]; /* the sizes done, and the one under way */
    char error[96];
} run;

static uint64_t line_pps(uint16_t size)
{
    if (size)
        return rfc2544_line_rate(run.line_bps, size);
    /* IMIX: the mean of a period's frames, each with its 20 bytes of gap. */
    return run.line_bps * GEN_IMIX_PERIOD / ((GEN_IMIX_MEAN_X12 + 20u * GEN_IMIX_PERIOD) * 8u);
}

static void start_trial(uint64_t rate, uint64_t frames)
{
    struct size_result *r = &run.cur;
    struct gen_trial_spec t = {.size = r->size, .rate_pps = rate, .duration_ns = run.trial_ns,
                               .frames = frames, .drain_ns = run.drain_ns};
    if (frames) /* a burst at line rate: as long as it takes */
        t.duration_ns = muldiv64(frames, 1000000000u, rate ? rate : 1) + run.trial_ns;
    run.trial_rate = frames ? 0 : rate;
    if (gen_trial_start(&t, run.error, sizeof run.error) != 0) {
        run.phase = PH_DONE;
        return;
    }
    run.trial_out = true;
    run.trials++;
}

/* A repetition's figures into its size's. */
static void fold(const struct size_result *r, struct size_total *t)
{
    t->tester_limited |= r->tester_limited;
    rfc2544_tally_add(&t->ndr, r->ndr_pps);
    rfc2544_tally_add(&t->pdr, r->pdr_pps);
    rfc2544_tally_add(&t->b2b, r->b2b_frames);
    for (unsigned k = 0; k < LAT_LOADS; k++) {
        const struct lat_result *l = &r->lat[k];
        const uint64_t v[LAT_FIGURES] = {l->min, l->p50, l->p90, l->p99, l->p999, l->max};
        t->lat_run[k] |= l->run;
        for (unsigned f = 0; l->samples && f < LAT_FIGURES; f++)
            rfc2544_tally_add(&t->lat[k][f], v[f]);
    }
    for (unsigned k = 0; k < r->nloss; k++)
        rfc2544_tally_add(&t->loss[(100u - r->loss[k].pct) / 10u], r->loss[k].loss_ppm);
}

/* The next phase's first trial, or the next repetition's, or the next size's. */
static void enter(enum phase ph)
{
    struct size_result *r = &run.cur;
    run.phase = ph;
    uint64_t step = r->line_pps * run.precision_ppm / 1000000u;
    switch (ph) {
    case PH_NDR:
        rfc2544_search_start(&run.search, r->line_pps, step, 0);
        start_trial(rfc2544_search_next(&run.search), 0);
        return;
    case PH_PDR:
        /* The NDR passed with no loss, so it passes any tolerance: the
         * search starts above it. */
        rfc2544_search_start(&run.search, r->line_pps, step, run.pdr_ppm);
        rfc2544_search_floor(&run.search, r->ndr_pps);
        if (run.search.done) {
            r->pdr_pps = rfc2544_search_answer(&run.search);
            enter(PH_LATENCY);
            return;
        }
        start_trial(rfc2544_search_next(&run.search), 0);
        return;
    case PH_LATENCY:
        run.lat_i = 0;
        if (!r->ndr_pps) {
            enter(PH_LOSS);
            return;
        }
        start_trial(r->ndr_pps * lat_loads[0] / 100u, 0);
        return;
    case PH_LOSS:
        rfc2544_loss_start(&run.curve);
        start_trial(r->line_pps, 0);
        return;
    case PH_B2B: {
        /* At most a trial's worth of frames at line rate (26.4: bursts of
         * up to 2 s are enough). */
        uint64_t max = muldiv64(r->line_pps, run.trial_ns, 1000000000u);
        rfc2544_search_start(&run.search, max, max * run.precision_ppm / 1000000u, 0);
        start_trial(r->line_pps, rfc2544_search_next(&run.search));
        return;
    }
    case PH_DONE:
        fold(r, &run.res[run.size_i]);
        if (++run.rep == run.repeat) {
            run.rep = 0;
            run.size_i++;
        }
        if (run.size_i < run.nsizes) {
            run.cur = (struct size_result){.size = run.res[run.size_i].size, .line_pps = run.res[run.size_i].line_pps};
            enter(PH_NDR);
            return;
        }
        run.phase = PH_DONE;
        return;
    default:
        return;
    }
}

static void trial_done(const struct gen_result *g)
{
    struct size_result *r = &run.cur;
    uint64_t arrived = g->received - g->dup;
    /* A rate the generator did not reach was not offered: the trial
     * fails, whatever arrived (1% slack for the pacing's start and end). */
    uint64_t meant = muldiv64(run.trial_rate, run.trial_ns, 1000000000u);
    bool short_of_rate = run.trial_rate && g->sent * 100u < meant * 99u;
    if (short_of_rate)
        r->tester_limited = true;
    uint64_t offered = short_of_rate ? 0 : g->sent;
    switch (run.phase) {
    case PH_NDR:
    case PH_PDR:
        rfc2544_search_result(&run.search, offered, arrived);
        if (!run.search.done) {
            start_trial(rfc2544_search_next(&run.search), 0);
            return;
        }
        if (run.phase == PH_NDR) {
            r->ndr_pps = rfc2544_search_answer(&run.search);
            enter(PH_PDR);
        } else {
            r->pdr_pps = rfc2544_search_answer(&run.search);
            enter(PH_LATENCY);
        }
        return;
    case PH_LATENCY: {
        struct lat_result *l = &r->lat[run.lat_i];
        *l = (struct lat_result){.run = true, .samples = g->lat.count, .min = g->lat.count ? g->lat.min_ns : 0,
                                 .p50 = lat_hist_percentile(&g->lat, 500), .p90 = lat_hist_percentile(&g->lat, 900),
                                 .p99 = lat_hist_percentile(&g->lat, 990), .p999 = lat_hist_percentile(&g->lat, 999),
                                 .max = g->lat.max_ns};
        if (++run.lat_i < LAT_LOADS) {
            start_trial(r->ndr_pps * lat_loads[run.lat_i] / 100u, 0);
            return;
        }
        enter(PH_LOSS);
        return;
    }
    case PH_LOSS:
        r->loss[r->nloss].pct = run.curve.pct;
        r->loss[r->nloss++].loss_ppm = rfc2544_loss_ppm(g->sent, arrived);
        rfc2544_loss_result(&run.curve, g->sent, arrived);
        if (!run.curve.done) {
            start_trial(r->line_pps * run.curve.pct / 100u, 0);
            return;
        }
        enter(PH_B2B);
        return;
    case PH_B2B:
        /* A burst the generator could not send whole does not pass. */
        rfc2544_search_result(&run.search, g->sent >= run.search.trying ? g->sent : 0, arrived);
        if (!run.search.done) {
            start_trial(r->line_pps, rfc2544_search_next(&run.search));
            return;
        }
        r->b2b_frames = rfc2544_search_answer(&run.search);
        enter(PH_DONE);
        return;
    default:
        return;
    }
}

static void rfc2544_poll(void *arg, uint64_t now_ns)
{
    if (!run.trial_out || gen_trial_running())
        return;
    run.trial_out = false;
    static struct gen_result g; /* core 0 only */
    gen_trial_result(&g);
    trial_done(&g);
}

/* "0.5" as millionths of one hundred percent: 5000. */
static bool parse_pct_ppm(const char *s, uint32_t *ppm)
{
    uint64_t whole = 0, frac = 0, scale = 10000;
    for (; *s >= '0' && *s <= '9'; s++)
        whole = whole * 10 + (uint64_t)(*s - '0');
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            if (scale > 1)
                frac += (uint64_t)(*s - '0') * (scale /= 10);
    if (*s || whole > 100)
        return false;
    *ppm = (uint32_t)(whole * 10000 + frac);
    return *ppm <= 1000000;
}

static bool parse_sizes(char *s)
{
    run.nsizes = 0;
    for (char *tok = s; tok && *tok;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = 0;
        unsigned long v = 0;
        if (run.nsizes == MAX_SIZES || (strcmp(tok, "imix") != 0 && config_parse_u32(tok, 65535, &v) != 0))
            return false;
        run.sizes[run.nsizes++] = (uint16_t)v;
        tok = comma ? comma + 1 : NULL;
    }
    return run.nsizes > 0;
}

static void cmd_rfc2544_run(const struct cli_args *a)
{
    if (run.phase != PH_IDLE && run.phase != PH_DONE) {
        kprintf("rfc2544: a run is under way (%s)\n", phase_names[run.phase]);
        return;
    }
    static const uint16_t defaults[] = {64, 128, 256, 512, 1024, 1280, 1518, 0};
    run.nsizes = sizeof defaults / sizeof defaults[0];
    memcpy(run.sizes, defaults, sizeof defaults);
    run.trial_ns = 60000 * MS;
    run.drain_ns = 2000 * MS; /* 26.1: two seconds for the last frames */
    run.line_bps = 10000000000ull;
    run.precision_ppm = 10000;
    run.pdr_ppm = 5000;
    run.repeat = 1;
    for (int i = 0; i + 1 < a->argc; i += 2) {
        char *k = a->argv[i], *v = a->argv[i + 1];
        unsigned long n = 0;
        bool ok;
        if (strcmp(k, "sizes") == 0)
            ok = parse_sizes(v);
        else if (strcmp(k, "trial-ms") == 0)
            ok = config_parse_u32(v, 3600000, &n) == 0 && n && (run.trial_ns = n * MS, true);
        else if (strcmp(k, "drain-ms") == 0)
            ok = config_parse_u32(v, 60000, &n) == 0 && (run.drain_ns = n * MS, true);
        else if (strcmp(k, "line-mbps") == 0)
            ok = config_parse_u32(v, 400000, &n) == 0 && n && (run.line_bps = n * 1000000ull, true);
        else if (strcmp(k, "precision-pct") == 0)
            ok = parse_pct_ppm(v, &run.precision_ppm) && run.precision_ppm;
        else if (strcmp(k, "pdr-pct") == 0)
            ok = parse_pct_ppm(v, &run.pdr_ppm);
        else if (strcmp(k, "repeat") == 0)
            ok = config_parse_u32(v, 1000, &n) == 0 && n && (run.repeat = (uint32_t)n, true);
        else
            ok = false;
        if (!ok) {
            kprintf("rfc2544 run: bad '%s %s'\n", k, v);
            run.phase = PH_IDLE;
            return;
        }
    }
    if (a->argc % 2) {
        kprintf("usage: rfc2544 run [sizes N,N,imix] [trial-ms N] [drain-ms N] [line-mbps N] [precision-pct P] "
                "[pdr-pct P] [repeat N]\n");
        return;
    }
    if (!gen_configured()) {
        kprintf("rfc2544: no generator: configure `gen ports TX RX ...`\n");
        return;
    }
    memset(run.res, 0, sizeof run.res);
    for (unsigned i = 0; i < run.nsizes; i++) {
        run.res[i].size = run.sizes[i];
        run.res[i].line_pps = line_pps(run.sizes[i]);
    }
    run.size_i = 0;
    run.rep = 0;
    run.trials = 0;
    run.error[0] = 0;
    run.cur = (struct size_result){.size = run.sizes[0], .line_pps = run.res[0].line_pps};
    enter(PH_NDR);
}

static void json_size(struct json *j, uint16_t size)
{
    if (size)
        json_u64(j, "size", size);
    else
        json_str(j, "size", "imix");
}

void rfc2544_json(struct json *j)
{
    unsigned done = run.phase == PH_DONE ? run.nsizes : run.size_i;
    json_obj_begin(j, 0);
    json_str(j, "state", phase_names[run.phase]);
    json_str(j, "error", run.error);
    json_u64(j, "trials", run.trials);
    json_fixed(j, "trial_s", run.trial_ns / MS, 3);
    json_u64(j, "line_mbps", run.line_bps / 1000000u);
    json_u64(j, "repetitions", run.repeat);
    json_arr_begin(j, "throughput");
    for (unsigned i = 0; i < done; i++) {
        const struct size_total *r = &run.res[i];
        uint64_t bits = r->size ? (uint64_t)r->size * 8u : GEN_IMIX_MEAN_X12 * 8u / GEN_IMIX_PERIOD;
        uint64_t ndr = rfc2544_tally_mean(&r->ndr);
        json_obj_begin(j, 0);
        json_size(j, r->size);
        json_u64(j, "line_pps", r->line_pps);
        json_u64(j, "ndr_pps", ndr);
        json_u64(j, "ndr_pps_min", r->ndr.min);
        json_u64(j, "ndr_pps_max", r->ndr.max);
        json_fixed(j, "ndr_mbps", ndr * bits / 1000u, 3); /* frame bits, FCS included */
        json_u64(j, "pdr_pps", rfc2544_tally_mean(&r->pdr));
        json_bool(j, "tester_limited", r->tester_limited);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_arr_begin(j, "latency");
    for (unsigned i = 0; i < done; i++)
        for (unsigned k = 0; k < LAT_LOADS; k++) {
            const struct size_total *r = &run.res[i];
            if (!r->lat_run[k])
                continue;
            json_obj_begin(j, 0);
            json_size(j, r->size);
            json_u64(j, "load_pct", lat_loads[k]);
            /* Nothing came back at that load: nothing measured, not 0 ns. */
            static const char *const keys[LAT_FIGURES] = {"min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"};
            for (int f = 0; f < LAT_FIGURES; f++)
                if (r->lat[k][f].n)
                    json_u64(j, keys[f], rfc2544_tally_mean(&r->lat[k][f]));
                else
                    json_null(j, keys[f]);
            json_obj_end(j);
        }
    json_arr_end(j);
    json_arr_begin(j, "frame_loss");
    for (unsigned i = 0; i < done; i++)
        for (unsigned k = 0; k < LOSS_STEPS; k++) {
            if (!run.res[i].loss[k].n)
                continue;
            json_obj_begin(j, 0);
            json_size(j, run.res[i].size);
            json_u64(j, "offered_pct", 100u - 10u * k);
            json_fixed(j, "loss_pct", rfc2544_tally_mean(&run.res[i].loss[k]), 4);
            json_obj_end(j);
        }
    json_arr_end(j);
    json_arr_begin(j, "back_to_back");
    for (unsigned i = 0; i < done; i++) {
        json_obj_begin(j, 0);
        json_size(j, run.res[i].size);
        json_u64(j, "frames", rfc2544_tally_mean(&run.res[i].b2b));
        json_u64(j, "frames_min", run.res[i].b2b.min);
        json_u64(j, "frames_max", run.res[i].b2b.max);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_obj_end(j);
}

static void cmd_show_rfc2544(const struct cli_args *a)
{
    if (a->json) {
        struct json j;
        cli_json_begin(&j);
        rfc2544_json(&j);
        cli_json_end(&j);
        return;
    }
    unsigned done = run.phase == PH_DONE ? run.nsizes : run.size_i;
    kprintf("rfc2544: %s, %u trials%s%s\n", phase_names[run.phase], run.trials, run.error[0] ? ": " : "",
            run.error);
    for (unsigned i = 0; i < done; i++) {
        const struct size_total *r = &run.res[i];
        kprintf("  size %u: NDR %lu frames/s, PDR %lu (line %lu), back-to-back %lu frames%s\n", r->size,
                rfc2544_tally_mean(&r->ndr), rfc2544_tally_mean(&r->pdr), r->line_pps, rfc2544_tally_mean(&r->b2b),
                run.repeat > 1 ? " (means)" : "");
    }
}

void rfc2544_init(void)
{
    cli_register("rfc2544 run",
                 "rfc2544 run [sizes N,N,imix] [trial-ms N] [drain-ms N] [line-mbps N] [precision-pct P] [pdr-pct P] "
                 "[repeat N]",
                 "RFC 2544 throughput, latency, frame loss and back-to-back with the generator", cmd_rfc2544_run);
    cli_register("show rfc2544", "show rfc2544 [json]", "the RFC 2544 run's progress and results", cmd_show_rfc2544);
}

int rfc2544_start_polling(void) { return loop_add_poller(0, "rfc2544", rfc2544_poll, NULL); }
