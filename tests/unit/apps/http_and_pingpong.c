/* SPDX-License-Identifier: MIT */
/* tests/unit/apps/http_and_pingpong.c: the applications on TCP: the HTTP server
 * (keep-alive, pipelining, /bytes/N, /metrics, errors) and the ping-pong
 * benchmark (apps/http.c, apps/pingpong.c). */
#include <stdlib.h>

#include "apps/http.h"
#include "apps/pingpong.h"
#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"

#define SEC 1000000000ull

static const void *find(const void *hay, size_t n, const char *needle, size_t k)
{
    const uint8_t *h = hay;
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(h + i, needle, k) == 0)
            return h + i;
    return NULL;
}

struct client {
    struct ta a;
    uint8_t buf[1 << 20];
};

static void client_connect(struct tl *l, struct client *cl)
{
    cl->a.rx_copy = cl->buf;
    cl->a.rx_cap = sizeof(cl->buf);
    ta_connect(l, 0, 80, &cl->a);
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(cl->a.connected, 1);
}

static struct tl *http_pair(struct client *cl)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    CHECK_EQ(http_start(l->s[1], 80), 0);
    client_connect(l, cl);
    return l;
}

static void request(struct tl *l, struct client *cl, const char *req)
{
    tcp_write(cl->a.c, req, (uint32_t)strlen(req), l->now_ns);
    tl_run(l, NULL, NULL, 5 * SEC);
}

/* The response at *off: status code, body length and where the body is;
 * advances *off past it. */
static int response(struct client *cl, size_t *off, size_t *body, size_t *blen)
{
    if (*off > cl->a.rx_bytes)
        return -1;
    const char *r = (const char *)cl->buf + *off;
    size_t have = cl->a.rx_bytes - *off;
    const char *end = find(r, have, "\r\n\r\n", 4);
    if (end == NULL || strncmp(r, "HTTP/1.1 ", 9) != 0)
        return -1;
    int code = atoi(r + 9);
    const char *cl_hdr = find(r, (size_t)(end - r), "Content-Length: ", 16);
    size_t len = cl_hdr ? strtoul(cl_hdr + 16, NULL, 10) : 0;
    *body = (size_t)(end + 4 - (const char *)cl->buf);
    *blen = len;
    *off = *body + len;
    return code;
}

TEST(tcp_http_server)
{
    struct client *cl = calloc(1, sizeof(*cl));
    uint64_t before = http_stats(1)->requests; /* per core, over all tests */
    struct tl *l = http_pair(cl);
    size_t off = 0, body, blen;

    request(l, cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK(find(cl->buf + body, blen, "hayate", 6) != NULL);

    request(l, cl, "GET /bytes/300000 HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 300000);
    CHECK_EQ(cl->a.rx_bytes, off);
    int bad = 0;
    for (size_t i = 0; i < blen && body + i < sizeof(cl->buf); i++)
        bad += cl->buf[body + i] != (uint8_t)(i % 251);
    CHECK_EQ(bad, 0);

    /* Two pipelined requests in one segment, one HEAD. */
    request(l, cl, "HEAD /bytes/10 HTTP/1.1\r\nHost: x\r\n\r\nGET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 10);
    off = body; /* HEAD: no body follows */
    CHECK_EQ(response(cl, &off, &body, &blen), 404);

    request(l, cl, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK(find(cl->buf + body, blen, "\nhayate_tcp_accepted 1\n", 23) != NULL);
    CHECK(find(cl->buf + body, blen, "hayate_eth_rx ", 14) != NULL);
    CHECK_EQ(cl->a.rx_bytes, off);

    request(l, cl, "POST / HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 405);

    /* HTTP/1.0 asking to be kept alive (ab -k): told so, and it is. */
    size_t head_at = off;
    request(l, cl, "GET /bytes/3 HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK(find(cl->buf + head_at, body - head_at, "\r\nConnection: keep-alive\r\n", 26) != NULL);
    CHECK_EQ(cl->a.peer_fin, 0);

    /* A request split over segments, then Connection: close. */
    request(l, cl, "GET /bytes/5 HT");
    request(l, cl, "TP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 5);
    CHECK_EQ(cl->a.peer_fin, 1);
    tcp_close(cl->a.c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(cl->a.closed, 1);
    const struct http_stats *st = http_stats(1);
    CHECK_EQ(st->requests - before, 8);
    CHECK_EQ(st->open, 0);
    CHECK(tl_free(l));
    free(cl);
}

/* A fresh client connection to the pair's server. */
static struct client *client_again(struct tl *l)
{
    struct client *c = calloc(1, sizeof(*c));
    client_connect(l, c);
    return c;
}

static void client_done(struct tl *l, struct client *c)
{
    tcp_close(c->a.c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(c);
}

/* A client whose MSS is tiny (88 bytes: a link of MTU 128): the send
 * queue's slots, a segment each, never hold ANSWER_ROOM, and the answers
 * come anyway, /metrics whole. */
TEST(tcp_http_answers_a_tiny_mss)
{
    struct client *cl = calloc(1, sizeof(*cl));
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    l->s[0]->iface[0].mtu = 128; /* the client's SYN says MSS 88 */
    CHECK_EQ(http_start(l->s[1], 80), 0);
    client_connect(l, cl);
    size_t off = 0, body, blen;
    request(l, cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    request(l, cl, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    int code = response(cl, &off, &body, &blen);
    CHECK_EQ(code, 200);
    if (code == 200) {
        CHECK_EQ(cl->a.rx_bytes, off); /* the whole body its Content-Length says */
        CHECK(find(cl->buf + body, blen, "\nhayate_tcp_accepted 1\n", 23) != NULL);
    }
    CHECK(tl_free(l));
    free(cl);
}

/* A client that asks for 100 MB and never reads: its window shuts and the
 * server's queue stays full; after HTTP_IDLE_NS of that the connection is
 * reset (tcp-send-timeout) and its buffers come back. */
TEST(tcp_http_resets_a_client_that_never_reads)
{
    struct client *cl = calloc(1, sizeof(*cl));
    cl->a.hold = true;
    struct tl *l = http_pair(cl);
    request(l, cl, "GET /bytes/100000000 HTTP/1.1\r\nHost: x\r\n\r\n");
    uint32_t in_use = l->pool[1].total - l->pool[1].nfree;
    CHECK(in_use > 100); /* the send queue, full */
    tl_advance(l, HTTP_IDLE_NS + 60 * SEC);
    CHECK_EQ(tl_ctr(l, 1, "tcp-send-timeout"), 1);
    CHECK(l->pool[1].total - l->pool[1].nfree < 10);
    CHECK_EQ(cl->a.closed, 1);
    CHECK(tl_free(l));
    free(cl);
}

TEST(tcp_http_bad_requests)
{
    struct client *cl = calloc(1, sizeof(*cl));
    struct tl *l = http_pair(cl);
    size_t off = 0, body, blen;
    request(l, cl, "nonsense\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 400);
    CHECK_EQ(cl->a.peer_fin, 1);
    tcp_close(cl->a.c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);

    /* Malformed, each answered 400 and closed (RFC 9112 2.3, 3.2, 5.1, 5.2,
     * 6.3; names case-sensitive); empty lines before a request ignored. */
    static const char *const bad[] = {
        "GET / HTTP/1.1\r\n\r\n",                                    /* no Host */
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",                /* two */
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",                          /* space before the colon */
        "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n",
        "GET / HTTP/1.1 extra\r\nHost: a\r\n\r\n",
        "GET / http/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.x\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct client *cb = client_again(l);
        request(l, cb, bad[i]);
        off = 0;
        CHECK_EQ(response(cb, &off, &body, &blen), 400);
        CHECK_EQ(cb->a.peer_fin, 1);
        client_done(l, cb);
    }
    struct client *cc = client_again(l);
    request(l, cc, "\r\nget / HTTP/1.1\r\nHost: a\r\n\r\nGET /BYTES/1 HTTP/1.1\r\nHost: a\r\n\r\n"
                   "GET / HTTP/1.0\r\n\r\n");
    off = 0;
    CHECK_EQ(response(cc, &off, &body, &blen), 405);
    CHECK_EQ(response(cc, &off, &body, &blen), 404);
    CHECK_EQ(response(cc, &off, &body, &blen), 200); /* 1.0: no Host needed */
    client_done(l, cc);

    /* Headers larger than a buffer: 431 and closed. */
    struct client *c2 = client_again(l);
    char big[4000];
    memset(big, 'a', sizeof(big));
    memcpy(big, "GET / HTTP/1.1\r\nHost: x\r\nX: ", 28);
    tcp_write(c2->a.c, big, sizeof(big), l->now_ns);
    tl_run(l, NULL, NULL, 5 * SEC);
    off = 0;
    CHECK_EQ(response(c2, &off, &body, &blen), 431);
    CHECK_EQ(c2->a.peer_fin, 1);
    client_done(l, c2);
    CHECK(tl_free(l));
    free(cl);
}

/* A request's own body is read past (RFC 9112 6.3), whatever the method,
 * so that the next request starts where it should; one that cannot be
 * framed ends the connection after the answer. Lines may end in a bare
 * LF (2.2). */
TEST(tcp_http_request_bodies_and_bare_lf)
{
    struct client *cl = calloc(1, sizeof(*cl));
    struct tl *l = http_pair(cl);
    size_t off = 0, body, blen;

    request(l, cl, "GET /bytes/3 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /bytes/4 HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 3);
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 4);

    /* 100 kB posted in pieces, far more than the request buffer: 405,
     * and the connection goes on. */
    static char post[100000];
    memset(post, 'x', sizeof(post));
    request(l, cl, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length:  100000 \r\n\r\n");
    for (size_t i = 0; i < sizeof(post); i += 10000) {
        tcp_write(cl->a.c, post + i, 10000, l->now_ns);
        tl_run(l, NULL, NULL, SEC);
    }
    request(l, cl, "GET /bytes/2 HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 405);
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 2);

    request(l, cl, "GET /bytes/6 HTTP/1.1\nHost: x\n\nGET /bytes/7 HTTP/1.1\nHost: x\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 6);
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 7);
    CHECK_EQ(cl->a.rx_bytes, off);
    CHECK_EQ(cl->a.peer_fin, 0);
    client_done(l, cl);

    /* Unframed or maybe never sent: answered, then closed. */
    static const char *const ends[] = {
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n",
        "GET /bytes/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 12abc\r\n\r\n",
    };
    for (size_t i = 0; i < 3; i++) {
        struct client *c = client_again(l);
        off = 0;
        request(l, c, ends[i]);
        CHECK_EQ(response(c, &off, &body, &blen), i == 2 ? 200 : 405);
        CHECK_EQ(c->a.peer_fin, 1);
        client_done(l, c);
    }
    CHECK(tl_free(l));
}

/* Request targets as clients and proxies write them (RFC 9112 3.2): a
 * query is ignored, absolute-form names the same resources; a 405 says
 * what is allowed (RFC 9110 15.5.6). */
/* Requests pipelined behind a response that fills the send buffer: each
 * answered whole and in order, its header included, however many wait
 * (the window holds the client back; none is taken for an oversized
 * header, 431), and bodies just over what is copied into a shared slot
 * (a slot each: the send queue's slots run out before its bytes). */
TEST(tcp_http_pipelined_behind_a_long_response)
{
    struct client *cl = calloc(1, sizeof(*cl));
    struct tl *l = http_pair(cl);
    static char req[32768];
    size_t n = (size_t)snprintf(req, sizeof req, "GET /bytes/262144 HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    for (int i = 0; i < 400; i++)
        n += (size_t)snprintf(req + n, sizeof req - n, "GET /bytes/%d HTTP/1.1\r\nHost: h\r\n\r\n", 257 + i % 40);
    CHECK(n > 3000); /* more than the request buffer */
    tcp_write(cl->a.c, req, (uint32_t)n, l->now_ns);
    tl_run(l, NULL, NULL, 10 * SEC);
    size_t off = 0, body, blen;
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 262144);
    bool same = true;
    for (size_t i = 0; i < blen && body + i < sizeof cl->buf; i++)
        same &= cl->buf[body + i] == (uint8_t)(i % 251);
    CHECK(same);
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK(blen > 1000 && find(cl->buf + body, blen, "# TYPE hayate_", 14));
    for (int i = 0; i < 400; i++) {
        CHECK_EQ(response(cl, &off, &body, &blen), 200);
        CHECK_EQ(blen, (size_t)(257 + i % 40));
    }
    CHECK_EQ(cl->a.rx_bytes, off);
    CHECK_EQ(cl->a.peer_fin, 0);
    client_done(l, cl);
    CHECK(tl_free(l));
}

TEST(tcp_http_targets_and_allow)
{
    struct client *cl = calloc(1, sizeof(*cl));
    struct tl *l = http_pair(cl);
    size_t off = 0, body, blen;
    static const struct {
        const char *target;
        int code;
        size_t len; /* of the body; 0: any */
    } cases[] = {
        {"/bytes/5?nocache=1", 200, 5},
        {"/bytes/5?", 200, 5},
        {"http://10.0.0.2/bytes/6", 200, 6},
        {"HTTP://x:80/bytes/7?a=b", 200, 7},
        {"http://x", 200, 0},
        {"http://x?q", 200, 0},
        {"/metrics?format=text", 200, 0},
        {"/bytes/5x?1", 404, 0},
        {"/bytes/?5", 404, 0},
    };
    char req[128];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", cases[i].target);
        request(l, cl, req);
        CHECK_EQ(response(cl, &off, &body, &blen), cases[i].code);
        if (cases[i].len)
            CHECK_EQ(blen, cases[i].len);
    }
    size_t start = off;
    request(l, cl, "DELETE /bytes/1 HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 405);
    CHECK(find(cl->buf + start, body - start, "\r\nAllow: GET, HEAD\r\n", 20) != NULL);
    CHECK_EQ(cl->a.peer_fin, 0);
    client_done(l, cl);
    CHECK(tl_free(l));
}

/* Byte ranges of /bytes/N (RFC 9110 14): one range gets 206 with its
 * Content-Range and exactly those bytes (byte i of the whole is i % 251);
 * past the end, 416; what cannot be parsed, or several ranges, the whole
 * body. (curl -C - resumes a download this way.) */
TEST(tcp_http_byte_ranges)
{
    struct client *cl = calloc(1, sizeof(*cl));
    struct tl *l = http_pair(cl);
    size_t off = 0, body, blen;
    static const struct {
        const char *range;
        int code;
        size_t first, len;
        const char *content_range;
    } cases[] = {
        {"bytes=0-9", 206, 0, 10, "bytes 0-9/1000"},
        {"bytes=990-", 206, 990, 10, "bytes 990-999/1000"},
        {"bytes=-7", 206, 993, 7, "bytes 993-999/1000"},
        {"bytes=500-5000", 206, 500, 500, "bytes 500-999/1000"},
        {"bytes=-5000", 206, 0, 1000, "bytes 0-999/1000"},
        {"  bytes=251-252  ", 206, 251, 2, "bytes 251-252/1000"},
        {"bytes=1000-", 416, 0, 22, "bytes */1000"},
        {"bytes=-0", 416, 0, 22, "bytes */1000"},
        {"bytes=5-1", 200, 0, 1000, NULL},
        {"bytes=0-1,5-6", 200, 0, 1000, NULL},
        {"items=0-1", 200, 0, 1000, NULL},
        {"bytes=-", 200, 0, 1000, NULL},
    };
    char req[128];
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(req, sizeof(req), "GET /bytes/1000 HTTP/1.1\r\nHost: x\r\nRange:%s\r\n\r\n", cases[i].range);
        size_t start = off;
        request(l, cl, req);
        CHECK_EQ(response(cl, &off, &body, &blen), cases[i].code);
        CHECK_EQ(blen, cases[i].len);
        const uint8_t *b = cl->buf + body;
        if (cases[i].code == 416)
            continue;
        for (size_t k = 0; k < blen; k++)
            if (b[k] != (cases[i].first + k) % 251) {
                CHECK_EQ(b[k], (cases[i].first + k) % 251);
                break;
            }
        char want[64];
        snprintf(want, sizeof(want), "\r\nContent-Range: %s\r\n", cases[i].content_range ? cases[i].content_range : "");
        CHECK((find(cl->buf + start, body - start, want, strlen(want)) != NULL) == (cases[i].content_range != NULL));
        if (cases[i].code == 200)
            CHECK(find(cl->buf + start, body - start, "\r\nAccept-Ranges: bytes\r\n", 24) != NULL);
    }
    /* Range is GET's alone (RFC 9110 14.2): HEAD gets the whole length. */
    request(l, cl, "HEAD /bytes/1000 HTTP/1.1\r\nHost: x\r\nRange: bytes=0-9\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    off = body; /* (no body follows a HEAD's Content-Length) */
    CHECK_EQ(blen, 1000);
    CHECK_EQ(cl->a.peer_fin, 0);
    client_done(l, cl);
    CHECK(tl_free(l));
}

TEST(tcp_pingpong)
{
    struct tl_opts o = {.delay_ns = 10000};
    struct tl *l = tl_new(&o);
    struct pingpong_client pc = {0};
    CHECK_EQ(pingpong_server_start(l->s[1], 9000), 0);
    CHECK_EQ(pingpong_client_start(l->s[0], &pc, TL_ADDR1, 9000, 8, 1, l->now_ns), 0);
    tl_advance(l, 10000000); /* 10 ms of 20 us round trips, 8 in flight */
    CHECK_EQ(pc.open, 8);
    CHECK(pingpong_transactions(&pc) > 3000);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit") + tl_ctr(l, 1, "tcp-retransmit"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-no-buf"), 0);
    /* Each transaction is one segment each way: the ACK rides on the reply. */
    uint64_t segs = tl_ctr(l, 0, "tcp-tx") + tl_ctr(l, 1, "tcp-tx");
    CHECK(segs < pingpong_transactions(&pc) * 2 + 100);
    CHECK(tl_free(l));
}

/* A client that sends its requests a byte a segment while the server waits
 * on a response it will not read: the window counts bytes, so without care
 * each byte would hold a buffer of the pool the core receives into; when
 * that runs dry nothing more comes in, not even the client's reset. */
TEST(tcp_http_tiny_segments_held_take_few_buffers)
{
    struct client *cl = calloc(1, sizeof(*cl));
    cl->a.hold = true;
    struct tl *l = http_pair(cl);
    request(l, cl, "GET /bytes/100000000 HTTP/1.1\r\nHost: x\r\n\r\n");
    uint32_t before = l->pool[1].total - l->pool[1].nfree;
    for (int i = 0; i < 3000; i++) {
        tcp_write(cl->a.c, "G", 1, l->now_ns);
        tl_flush(l);
        tl_advance(l, 1000000);
    }
    uint32_t after = l->pool[1].total - l->pool[1].nfree;
    CHECK(after < before + 16);
    tcp_abort(cl->a.c, l->now_ns);
    ta_free_list(&cl->a.held);
    tl_flush(l);
    tl_advance(l, 1000000);
    CHECK_EQ(http_stats(1)->open, 0);
    CHECK(tl_free(l));
    free(cl);
}

/* A document of 5,000 characters (several segments), the same bytes on
 * every request. */
static void big_doc(void *ctx, void (*sink)(void *, char), void *sink_ctx)
{
    (*(int *)ctx)++;
    for (int i = 0; i < 5000; i++)
        sink(sink_ctx, (char)('a' + i % 26));
}

TEST(tcp_http_documents_added_by_the_embedder)
{
    static int calls;
    CHECK_EQ(http_add_document("/doc", "application/json", big_doc, &calls), 0);
    CHECK_EQ(http_add_document("/doc", "application/json", big_doc, &calls), 0); /* again: once */
    struct client *cl = calloc(1, sizeof(*cl));
    struct tl *l = http_pair(cl);
    size_t off = 0, body, blen;
    request(l, cl, "GET /doc HTTP/1.1\r\nHost: x\r\n\r\n");
    size_t head_at = off;
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 5000);
    CHECK(find(cl->buf + head_at, body - head_at, "Content-Type: application/json\r\n", 32) != NULL);
    int bad = 0;
    for (size_t i = 0; i < blen; i++)
        bad += cl->buf[body + i] != (uint8_t)('a' + i % 26);
    CHECK_EQ(bad, 0);
    request(l, cl, "HEAD /doc HTTP/1.1\r\nHost: x\r\n\r\nGET /doc/x HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK_EQ(response(cl, &off, &body, &blen), 200);
    CHECK_EQ(blen, 5000);
    off = body; /* HEAD: no body follows */
    CHECK_EQ(response(cl, &off, &body, &blen), 404);
    CHECK_EQ(cl->a.rx_bytes, off);
    CHECK_EQ(calls, 2);
    client_done(l, cl);
    CHECK(tl_free(l));
}
