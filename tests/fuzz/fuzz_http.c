/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_http.c: the HTTP server's request parser (apps/
 * http.c) from any bytes a client sends, over two stacks on the TCP tests'
 * in-memory link. The input is a series of chunks, each a length byte and
 * that many bytes, written one by one with a millisecond of simulated time
 * after each (so requests are split and pipelined every way). Then the
 * client resets the connection. Checked: the server's connection is gone
 * (http_stats: none open), nothing malformed went either way, and every
 * buffer of both pools is back. */
#include <stdlib.h>
#include <string.h>

#include "apps/http.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_link.h"

#define MS 1000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tl_opts o = {.nbufs = 1024, .nconns = 4};
    struct tl *l = tl_new(&o);
    if (http_start(l->s[1], 80) != 0)
        abort();
    static struct ta a;
    memset(&a, 0, sizeof a);
    if (ta_connect(l, 0, 80, &a) == NULL)
        abort();
    tl_advance(l, MS);
    for (size_t i = 0; i < size && a.c && !a.closed;) {
        size_t n = data[i++];
        if (n > size - i)
            n = size - i;
        tcp_write(a.c, data + i, (uint32_t)n, l->now_ns);
        tl_flush(l);
        tl_advance(l, MS);
        i += n;
    }
    if (a.c && !a.closed)
        tcp_abort(a.c, l->now_ns);
    tl_flush(l);
    tl_advance(l, 100 * MS);
    if (http_stats(1)->open != 0 || tl_ctr(l, 1, "tcp-bad-checksum") || tl_ctr(l, 0, "tcp-bad-checksum"))
        abort();
    if (!tl_free(l))
        abort(); /* a buffer leaked */
    return 0;
}
