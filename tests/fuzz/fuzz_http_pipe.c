/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_http_pipe.c: the HTTP server (apps/http.c) under
 * pipelining, requests cut into segments anywhere, the client's window
 * closed and reopened, time moving, and the client's FIN or reset at any
 * point, with an oracle for what the client receives.
 *
 * Input: ops, each a byte whose low 3 bits are its kind and high 5 bits p:
 *   0 REQ  + 4 bytes b1..b4: a request from tokens appended to what the
 *          client has to send (tests/support/http_pipe_model.h: the bits);
 *   1 SEND + 1 byte n: write the next (n + 1) << (p & 3) bytes of it (a
 *          segment, where the server's window lets it go at once);
 *   2 TIME: 2^(p & 15) * 100 us of simulated time pass;
 *   3 READ: p & 1: the client reads from now on (gives its buffers back
 *          after every op, reopening its window), or holds what it gets;
 *   4 FIN:  the client writes the rest and closes its side;
 *   5 RST:  the client resets the connection (the last op that counts);
 *   6 JUNK + p + 1 bytes: raw bytes appended ('H' made 'h', so no HEAD or
 *          HTTP version comes of them); what follows is not modelled;
 *   7 SEND the rest.
 * Then, unless the client closed, reset or sent junk: it writes the rest,
 * reads, and waits until nothing moves (at most 3.2 s).
 *
 * Oracle (any violation aborts): what the client received is a sequence
 * of well-formed HTTP/1.1 responses (status line, headers, one Content-
 * Length, that many bytes of body unless the request was HEAD), one per
 * request whose header was sent, in order, none after one that said
 * Connection: close; each status is the one the model gives (400, 404,
 * 405, 416, 431, 200 or 206), a /bytes/N body is byte-exact (byte i is
 * i % 251, from the range's first byte with its Content-Range), and when
 * the client waited at the end every request got its answer. Then, as in
 * fuzz_http: the server's connection gone, no bad checksum, every buffer
 * back. The link, server and connection are built once and restored from
 * a snapshot per input (tests/support/http_link.h).
 *
 * libFuzzer: -max_len=512
 * (a hundred requests' worth of ops; longer inputs only run slower) */
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/http_link.h"
#include "tests/support/http_pipe_model.h"

#define US 1000ull
#define MS 1000000ull
#define CLIENT_WINDOW (16u << 10)
#define READ_BUDGET (64u << 10) /* the client stops reading here: a /bytes/N of terabytes ends */
#define RX_CAP (READ_BUDGET + (64u << 10))

static struct tl *l;
static struct ta a;
static struct snap snap;
static uint8_t rx[RX_CAP];
static struct hp_stream st; /* what the client has to send, and the model of it */

static bool debug; /* FUZZ_HTTP_PIPE_DEBUG: a line an input, and the statuses seen at exit */
static uint64_t inputs, waited_all;

static void summary(void)
{
    fprintf(stderr, "%llu inputs, %llu waited for every answer; statuses checked:", (unsigned long long)inputs,
            (unsigned long long)waited_all);
    for (int i = 0; i < 600; i++)
        if (hp_seen[i])
            fprintf(stderr, " %d: %llu", i, (unsigned long long)hp_seen[i]);
    fprintf(stderr, "\n");
}

static void setup(void)
{
    debug = getenv("FUZZ_HTTP_PIPE_DEBUG") != NULL;
    if (debug)
        atexit(summary);
    l = http_link_new(&a, CLIENT_WINDOW, rx, RX_CAP, &snap);
}

static bool open_conn(void) { return a.c != NULL && !a.closed; }

/* Up to n more bytes of the stream to TCP. */
static void send_more(size_t n)
{
    if (!open_conn() || st.fin)
        return;
    if (n > st.len - st.sent)
        n = st.len - st.sent;
    if (n)
        st.sent += tcp_write(a.c, st.buf + st.sent, (uint32_t)n, l->now_ns);
    tl_flush(l);
}

static void read_if_reading(bool reading)
{
    if (reading && open_conn() && a.rx_bytes < READ_BUDGET)
        ta_release(&a, l->now_ns);
}

/* The client writes the rest and reads until nothing moves: two quiet
 * 50 ms steps (longer than a delayed ACK) in a row. */
static void wait_quiet(void)
{
    uint64_t last = a.rx_bytes;
    for (int k = 0, quiet = 0; k < 64 && quiet < 2 && open_conn(); k++) {
        send_more(st.len);
        read_if_reading(true);
        tl_advance(l, 50 * MS);
        quiet = a.rx_bytes == last && l->nheap == 0 && st.sent == st.len ? quiet + 1 : 0;
        last = a.rx_bytes;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (l == NULL)
        setup();
    snap_restore(&snap);
    hp_reset(&st);
    bool reading = false, reset = false;
    for (size_t i = 0; i < size && !reset;) {
        uint8_t op = data[i++], p = op >> 3;
        switch (op & 7) {
        case 0:
            if (size - i < 4)
                i = size;
            else
                hp_request(&st, data + i, p), i += 4;
            break;
        case 1:
            if (i < size)
                send_more((size_t)(data[i++] + 1) << (p & 3));
            break;
        case 2:
            tl_advance(l, (100 * US) << (p & 15));
            break;
        case 3:
            reading = p & 1;
            break;
        case 4:
            send_more(st.len);
            if (open_conn() && !st.fin)
                tcp_close(a.c, l->now_ns);
            st.fin = true;
            break;
        case 5:
            if (open_conn()) {
                tcp_abort(a.c, l->now_ns); /* no closed callback: what it holds is ours */
                ta_free_list(&a.held);
                a.c = NULL;
            }
            reset = true;
            break;
        case 6: {
            size_t n = (size_t)p + 1 < size - i ? (size_t)p + 1 : size - i;
            hp_junk(&st, data + i, n);
            i += n;
            break;
        }
        default:
            send_more(st.len);
        }
        read_if_reading(reading);
    }
    bool waited = !reset && !st.fin && !st.junk && open_conn();
    if (waited)
        wait_quiet();
    else
        tl_advance(l, MS);
    /* Waited for everything: unless the server reset an idle connection
     * (a.closed), the client stopped reading at its budget, or an answer
     * is long. */
    bool complete = waited && open_conn() && a.rx_bytes < READ_BUDGET && st.expect_bytes < READ_BUDGET / 2;
    unsigned answered = hp_check(&st, rx, a.rx_bytes < RX_CAP ? a.rx_bytes : RX_CAP, complete);
    inputs++;
    waited_all += complete;
    if (debug)
        fprintf(stderr, "requests %u, %zu of %zu bytes sent, %llu received, %u answers checked%s\n", st.nreq,
                st.sent, st.len, (unsigned long long)a.rx_bytes, answered, complete ? ", all" : "");
    http_link_finish(l, &a);
    return 0;
}
