/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/gen.h: the traffic generator (`gen ports ...`): frames
 * from tester/'s templates sent on one port, counted back on another, one
 * queue pair a core on each, and trials of it run by the console's `gen
 * run` or by the RFC 2544 runner (rfc2544_run.c). */
#ifndef KERNEL_NETSVC_GEN_H
#define KERNEL_NETSVC_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "tester/gen_rx.h"

struct gen_trial_spec {
    uint16_t size;        /* bytes on the wire, FCS included; 0: IMIX */
    uint64_t rate_pps;    /* offered, all cores together; 0: as fast as the port takes */
    uint64_t duration_ns; /* how long to send */
    uint64_t frames;      /* when not 0: stop after this many (a back-to-back burst) */
    uint64_t drain_ns;    /* how long to keep counting after the last frame left */
};

struct gen_result {
    uint64_t sent, received, dup, reordered, too_late;
    int64_t lost;
    uint64_t stale, other, arp_replies, tx_full, no_buffer;
    uint64_t tx_ns;       /* first frame to last, all cores */
    struct lat_hist lat;
};

void gen_init(void); /* registers the statement and the commands */
bool gen_configured(void);
/* Starts a trial; -1 (and why in err) when one runs or none is configured. */
int gen_trial_start(const struct gen_trial_spec *t, char *err, unsigned errlen);
bool gen_trial_running(void);
/* 0 idle, 1 arming, 2 sending, 3 draining, 4 done. */
int gen_trial_state(void);
/* The last trial's counts, summed over the cores (also while it runs). */
void gen_trial_result(struct gen_result *r);

/* The idx-th of the generator's counters for /metrics; false past the last
 * or with no generator. */
bool gen_metric(uint32_t idx, const char **name, uint64_t *value);

struct json;
/* A histogram as min, mean, P50, P90, P99, P99.9 and max in ns. */
void gen_json_latency(struct json *j, const char *key, const struct lat_hist *h);
/* `show gen json` and `show rfc2544 json`'s objects, to any writer (the
 * console, or the http app through kernel/app.h). */
void gen_json(struct json *j);
void rfc2544_json(struct json *j);
void gen_cmds_init(void);
void rfc2544_init(void);
int rfc2544_start_polling(void); /* core 0, once the generator exists */

#endif
