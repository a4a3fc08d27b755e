/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_http.c: the HTTP server's request parser (apps/
 * http.c) from any bytes a client sends, over two stacks on the TCP tests'
 * in-memory link. The input is a series of chunks, each a length byte and
 * that many bytes, written one by one with a millisecond of simulated time
 * after each (so requests are split and pipelined every way). Then the
 * client resets the connection. Checked: the server's connection is gone
 * (http_stats: none open), nothing malformed went either way, and, once
 * both stacks are released, every buffer of both pools is back.
 *
 * What a long response costs is bounded: the client (a 32 KiB receive
 * window) reads what arrived after each chunk until it has 64 KiB of
 * responses, and then only holds it, so its window closes and the server
 * waits there (a /bytes/N of gigabytes is a few dozen segments, not
 * millions).
 *
 * The link, the server and the established client connection are built
 * once; every input starts from a snapshot of them (tl_snap_add, the test
 * client's struct ta and the server's counters). */
#include <stdlib.h>
#include <string.h>

#include "apps/http.h"
#include "net/core/counter.h"
#include "tests/support/snapshot.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_link.h"

#define MS 1000000ull
#define CLIENT_WINDOW (32u << 10)
#define READ_BUDGET (64u << 10)
#define RX_CAP (1u << 20) /* more than the budget and a window */

static struct tl *l;
static struct ta a;
static struct snap snap;
static const struct net_counter_desc *bad_csum;

static void setup(void)
{
    static uint8_t rx[RX_CAP];
    struct tcp_config client;
    tcp_config_default(&client);
    client.rcvbuf = client.rcvbuf_max = CLIENT_WINDOW;
    struct tl_opts o = {.nbufs = 1024, .nconns = 4, .cfg = {&client, NULL}};
    l = tl_new(&o);
    a.hold = true;
    a.rx_copy = rx; /* copied in bulk: a byte-by-byte check of the test pattern is slow */
    a.rx_cap = RX_CAP;
    if (http_start(l->s[1], 80) != 0 || ta_connect(l, 0, 80, &a) == NULL)
        abort();
    tl_advance(l, MS);
    bad_csum = net_counter_find("tcp-bad-checksum");
    if (!a.connected || http_stats(1)->open != 1 || bad_csum == NULL)
        abort();
    tl_snap_add(&snap, l);
    snap_add(&snap, &a, sizeof a);
    /* The server's counters: http_stats hands out the (writable) static. */
    snap_add(&snap, (void *)http_stats(1), sizeof(struct http_stats));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (l == NULL)
        setup();
    snap_restore(&snap);
    for (size_t i = 0; i < size && a.c && !a.closed;) {
        size_t n = data[i++];
        if (n > size - i)
            n = size - i;
        tcp_write(a.c, data + i, (uint32_t)n, l->now_ns);
        tl_flush(l);
        tl_advance(l, MS);
        if (a.c && a.rx_bytes < READ_BUDGET)
            ta_release(&a, l->now_ns);
        i += n;
    }
    if (a.c && !a.closed) {
        tcp_abort(a.c, l->now_ns); /* no closed callback: what it holds is ours to free */
        ta_free_list(&a.held);
    }
    tl_flush(l);
    tl_advance(l, MS); /* the reset arrives */
    if (http_stats(1)->open != 0 || net_counter_get(&l->s[0]->ctr, bad_csum) ||
        net_counter_get(&l->s[1]->ctr, bad_csum))
        abort();
    if (!tl_release(l))
        abort(); /* a buffer leaked */
    return 0;
}
