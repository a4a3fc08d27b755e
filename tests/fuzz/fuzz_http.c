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
 * once; every input starts from a snapshot of them (tests/support/
 * http_link.h).
 *
 * libFuzzer: -max_len=2048
 * (past the server's request buffer, about 1900 bytes, for its 431; longer
 * inputs only run slower) */
#include "tests/support/http_link.h"

#define MS 1000000ull
#define CLIENT_WINDOW (32u << 10)
#define READ_BUDGET (64u << 10)
#define RX_CAP (1u << 20) /* more than the budget and a window */

static struct tl *l;
static struct ta a;
static struct snap snap;
static uint8_t rx[RX_CAP]; /* copied in bulk: a byte-by-byte check of the test pattern is slow */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (l == NULL)
        l = http_link_new(&a, CLIENT_WINDOW, rx, RX_CAP, &snap);
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
    http_link_finish(l, &a);
    return 0;
}
