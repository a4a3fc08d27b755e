/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/receive_window_updates.c: the receiver's window updates
 * with a manual window (tcp_recved; RFC 9293 3.8.6.2.2: the right edge moves
 * only by a worthwhile amount, and a worthwhile opening is announced at
 * once) (net/tcp/tcp_conn.c, tcp_output.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"

#define MS 1000000ull

/* The application reads a little (the opening, less than a segment past
 * what was advertised, is withheld), then the rest: the whole opening is
 * announced at once, so the sender does not wait for its persist timer.
 * Found by fuzz_http_pipe: the HTTP client's window stayed at 497 bytes
 * for the server after it read everything. */
TEST(tcp_window_opening_announced_after_a_withheld_one)
{
    struct tcp_config small;
    tcp_config_default(&small);
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair_held(a, &small, 100000); /* the window closes */
    tl_advance(l, 100 * MS); /* full segments fill the window; the sender keeps a small rest */
    uint32_t got = (uint32_t)a[1].rx_bytes, left = tcp_rcv_window(a[1].c);
    CHECK(left > 0 && left < a[1].c->mss);
    CHECK_EQ(a[0].c->snd_wnd, left);
    /* Past a segment of window, but less than a segment past the edge. */
    uint32_t little = a[1].c->mss - left + 8;
    tcp_recved(a[1].c, little, l->now_ns);
    tl_advance(l, 1 * MS);
    CHECK_EQ(a[0].c->snd_wnd, left); /* withheld (silly window avoidance) */
    tcp_recved(a[1].c, got - little, l->now_ns);
    tl_advance(l, 1 * MS);
    CHECK(a[1].rx_bytes > got + left); /* more than the old window let in, within a round trip */
    ta_release(&a[1], l->now_ns); /* (its buffers; the window was given back above) */
    CHECK(tl_free(l));
}
