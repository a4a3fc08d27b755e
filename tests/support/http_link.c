/* SPDX-License-Identifier: MIT */
/* tests/support/http_link.c: the HTTP fuzz targets' fixture
 * (tests/support/http_link.h). */
#include "tests/support/http_link.h"

#include <stdlib.h>

#include "apps/http.h"
#include "net/core/counter.h"

#define MS 1000000ull

static const struct net_counter_desc *bad_csum;

/* /metrics serves the first 40 counters (about 2.5 KiB, two segments), not
 * every counter of the stack (about 12 KiB): a pipeline of them was most of
 * an input's time, and the server's side of it is the same either way. */
#define FUZZ_METRICS 40

static bool first_counters(void *ctx, struct net_stack *s, uint32_t idx, const char **name, uint64_t *value)
{
    const struct net_counter_desc *d = idx < FUZZ_METRICS ? net_counter_at(idx) : NULL;
    if (d == NULL)
        return false;
    *name = d->name;
    *value = net_counter_get(&s->ctr, d);
    return true;
}

struct tl *http_link_new(struct ta *a, uint32_t client_window, uint8_t *rx, size_t rx_cap, struct snap *sn)
{
    struct tcp_config client;
    tcp_config_default(&client);
    client.rcvbuf = client.rcvbuf_max = client_window;
    struct tl_opts o = {.nbufs = 1024, .nconns = 4, .cfg = {&client, NULL}};
    struct tl *l = tl_new(&o);
    a->hold = true; /* a manual window: it opens as the client reads */
    a->rx_copy = rx;
    a->rx_cap = rx_cap;
    http_set_metrics(first_counters, NULL);
    if (http_start(l->s[1], 80) != 0 || ta_connect(l, 0, 80, a) == NULL)
        abort();
    tl_advance(l, MS);
    bad_csum = net_counter_find("tcp-bad-checksum");
    if (!a->connected || http_stats(1)->open != 1 || bad_csum == NULL)
        abort();
    tl_snap_add(sn, l);
    snap_add(sn, a, sizeof(*a));
    /* The server's counters: http_stats hands out the (writable) static. */
    snap_add(sn, (void *)http_stats(1), sizeof(struct http_stats));
    return l;
}

void http_link_finish(struct tl *l, struct ta *a)
{
    if (a->c && !a->closed) {
        tcp_abort(a->c, l->now_ns); /* no closed callback: what it holds is ours to free */
        ta_free_list(&a->held);
    }
    tl_flush(l);
    tl_advance(l, MS); /* the reset arrives */
    /* A client whose side timed out by itself (FIN-WAIT-2 behind its own
     * closed window) sent no reset: the server learns of it when its next
     * probe meets one, or resets the idle connection (a minute): rare, and
     * only timers run meanwhile. */
    if (http_stats(1)->open != 0 && a->closed)
        tl_advance(l, 200000 * MS);
    if (http_stats(1)->open != 0 || net_counter_get(&l->s[0]->ctr, bad_csum) ||
        net_counter_get(&l->s[1]->ctr, bad_csum))
        abort();
    if (!tl_release(l))
        abort(); /* a buffer leaked */
}
