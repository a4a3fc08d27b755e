/* SPDX-License-Identifier: MIT */
/* tests/support/http_pipe_model.c: requests from tokens and the check of
 * the answers (tests/support/http_pipe_model.h). The statuses are what
 * apps/http.h and RFC 9110/9112 promise: 400 for a bad request line, a
 * malformed or doubled header field or an HTTP/1.1 request without exactly
 * one Host; 431 for a header the server cannot hold; 405 for any method
 * but GET and HEAD; 404 for an unknown target (and a /bytes/N whose N is
 * not all digits or reaches 2^50 before its end); one byte range honoured
 * for GET /bytes/N (206, or 416 when unsatisfiable; another unit, several
 * ranges or a bad one: the whole body). */
#include "tests/support/http_pipe_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/snapshot.h"

#define SURE_FITS 1800  /* a header this long fits the server's request buffer */
#define SURE_TOO_LONG 2000 /* and this long does not (REQ_MAX is about 1900) */

enum { R_STATUS, R_METRICS, R_BYTES, R_NONE };

static const char *const methods[8] = {"GET", "HEAD", "POST", "PUT", "get", "OPTIONS", "", "BREW"};
static const char *const versions[8] = {"HTTP/1.1", "HTTP/1.0", "HTTP/1.1", "HTTP/1.9",
                                        "HTTP/2.0", "HTTP/1.x", "http/1.1", ""};
static const struct {
    const char *before, *after; /* around N; after NULL: no N */
    int res;
} targets[16] = {
    {"/", NULL, R_STATUS},          {"/metrics", NULL, R_METRICS},    {"/bytes/", "", R_BYTES},
    {"/bytes/", "?x=1", R_BYTES},   {"http://h/bytes/", "", R_BYTES}, {"/bytes/abc", NULL, R_NONE},
    {"/status", NULL, R_NONE},      {"/nope", NULL, R_NONE},          {"/bytes/", NULL, R_NONE},
    {"http://host", NULL, R_STATUS}, {"/?q=1", NULL, R_STATUS},       {"*", NULL, R_NONE},
    {"/metrics/", NULL, R_NONE},    {"/bytes/", "/x", R_NONE},        {"HTTP://H/metrics", NULL, R_METRICS},
    {"/bytes/-1", NULL, R_NONE},
};
static const char *const numbers[16] = {"0",     "1",     "007",        "250",   "251",
                                        "252",   "1000",  "1459",       "1460",  "3000",
                                        "10000", "30000", "65536",      "1000000000",
                                        "1125899906842624", "11258999068426240"};
static const char *const ranges[8] = {"bytes=0-9", "bytes=5-", "bytes=-5", "bytes=10-5",
                                      "bytes=0-0,2-3", "items=0-1", "bytes=300-", "bytes=-0"};
static const uint32_t body_lens[4] = {0, 5, 22, 3000};
static const uint32_t long_lens[4] = {600, 1500, 2100, 3000};
uint64_t hp_seen[600];

static const char fake_request[] = "GET /nope HTTP/1.1\r\n\r\n"; /* a body's bytes: never answered */

void hp_reset(struct hp_stream *st)
{
    st->len = st->sent = 0;
    st->nreq = 0;
    st->junk = st->fin = false;
    st->junk_at = 0;
    st->expect_bytes = 0;
}

static void put(struct hp_stream *st, const char *s, size_t n)
{
    memcpy(st->buf + st->len, s, n); /* room checked once per request */
    st->len += n;
}

static void puts_(struct hp_stream *st, const char *s) { put(st, s, strlen(s)); }

/* N as the server reads it: digits while below 2^50; false when some are
 * left (404). */
static bool parse_n(const char *s, uint64_t *n)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9' && v < (1ull << 50); i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    *n = v;
    return s[i] == 0;
}

/* RFC 9110 14.1.2 for the ranges above, of a body of n bytes: the status. */
static uint16_t range_status(int kind, uint64_t n, uint64_t *first, uint64_t *last)
{
    static const int64_t a[8] = {0, 5, -1, 10, -2, -2, 300, -1}; /* -1: suffix, -2: ignored */
    static const uint64_t b[8] = {9, UINT64_MAX, 5, 5, 0, 0, UINT64_MAX, 0};
    if (a[kind] == -2 || (a[kind] >= 0 && b[kind] < (uint64_t)a[kind]))
        return 200;
    if (a[kind] == -1) { /* the last b bytes */
        if (b[kind] == 0 || n == 0)
            return 416;
        *first = b[kind] < n ? n - b[kind] : 0;
        *last = n - 1;
        return 206;
    }
    if ((uint64_t)a[kind] >= n)
        return 416;
    *first = (uint64_t)a[kind];
    *last = b[kind] < n - 1 ? b[kind] : n - 1;
    return 206;
}

void hp_request(struct hp_stream *st, const uint8_t *b, uint8_t p)
{
    if (st->nreq == HP_REQS || HP_BUF - st->len < 8192)
        return;
    struct hp_req *r = &st->req[st->nreq++];
    memset(r, 0, sizeof(*r));
    int method = b[0] & 7, version = (b[0] >> 3) & 7, lines = b[0] >> 6;
    int target = b[1] & 15, number = b[1] >> 4, bad = b[3] & 7, range = (b[3] >> 3) & 7;
    uint8_t h = b[2];
    uint32_t body = (h & 0x10) && bad != 3 && bad != 4 ? body_lens[b[3] >> 6] : 0;
    const char *eol = lines == 2 ? "\n" : "\r\n";
    bool lower = p & 4;
    if (lines == 3)
        puts_(st, "\r\n"); /* an empty line before a request: ignored (RFC 9112 2.2) */
    r->start = st->len;
    /* The request line. */
    puts_(st, methods[method]);
    puts_(st, " ");
    puts_(st, targets[target].before);
    uint64_t n = 0;
    bool n_ok = true;
    if (targets[target].after) {
        puts_(st, numbers[number]);
        puts_(st, targets[target].after);
        n_ok = parse_n(numbers[number], &n);
    }
    if (*versions[version]) {
        puts_(st, " ");
        puts_(st, versions[version]);
    }
    puts_(st, eol);
    /* The header. */
    uint32_t hosts = 0;
    bool close = version == 1, unframed = false, expect = false, malformed = false;
    if (h & 1)
        puts_(st, lower ? "host: x" : "Host: x"), puts_(st, eol), hosts++;
    if (h & 2)
        puts_(st, lower ? "host: y" : "Host: y"), puts_(st, eol), hosts++;
    if (h & 4)
        puts_(st, "Connection: keep-alive"), puts_(st, eol), close = false;
    if (h & 8)
        puts_(st, "Connection: close"), puts_(st, eol), close = true;
    if (body) {
        char cl[48];
        snprintf(cl, sizeof cl, lower ? "content-length:%s%u%s" : "Content-Length:%s%u%s", (p & 8) ? "  " : " ",
                 body, (p & 8) ? " " : "");
        puts_(st, cl);
        puts_(st, eol);
    }
    if (h & 0x20) {
        static const char *const bads[7] = {"NoColonHere",          "Host : x",
                                            " folded: x",           "Content-Length: abc",
                                            "Content-Length: 1",    "Transfer-Encoding: chunked",
                                            "Expect: 100-continue"};
        if (bad < 7) {
            puts_(st, bads[bad]);
            puts_(st, eol);
        }
        if (bad == 4)
            puts_(st, "Content-Length: 2"), puts_(st, eol);
        if (bad == 7) {
            puts_(st, "X-Long: ");
            memset(st->buf + st->len, 'a', long_lens[p & 3]);
            st->len += long_lens[p & 3];
            puts_(st, eol);
        }
        malformed = bad <= 2 || bad == 4;
        unframed = bad == 3 || bad == 5;
        expect = bad == 6;
    }
    if (h & 0x40)
        puts_(st, "Range: "), puts_(st, ranges[range]), puts_(st, eol);
    if (h & 0x80)
        puts_(st, "Accept: */*"), puts_(st, eol);
    puts_(st, eol);
    r->hdr_end = st->len;
    /* The body. */
    if (h & 0x20 && bad == 5)
        puts_(st, "5\r\nhello\r\n0\r\n\r\n");
    for (uint32_t done = 0, k; done < body; done += k) {
        k = body - done < sizeof(fake_request) - 1 ? body - done : (uint32_t)sizeof(fake_request) - 1;
        put(st, fake_request, k);
    }
    /* What the server answers. */
    size_t hlen = r->hdr_end - r->start;
    bool line_ok = method != 6 && version < 4;
    r->http10 = version == 1;
    r->head = method == 1 && line_ok;
    r->maybe431 = hlen > SURE_FITS && hlen <= SURE_TOO_LONG;
    r->close = close || unframed || (expect && body);
    if (hlen > SURE_TOO_LONG)
        r->status = 431;
    else if (!line_ok || malformed || (!r->http10 && hosts != 1))
        r->status = 400;
    else if (method > 1)
        r->status = 405;
    else if (targets[target].res == R_BYTES && n_ok) {
        r->bytes = true;
        r->n = n;
        r->first = 0;
        r->last = n - 1;
        r->status = method == 0 && (h & 0x40) ? range_status(range, n, &r->first, &r->last) : 200;
    } else if (targets[target].res == R_STATUS || targets[target].res == R_METRICS)
        r->status = 200;
    else
        r->status = 404;
    if (r->status == 400 || r->status == 431)
        r->close = true;
    uint64_t weight = 128;
    if (r->status == 200 && !r->head)
        weight = r->bytes ? n : targets[target].res == R_METRICS ? 4u << 10 : 1024; /* (/metrics: about 2.5 KiB, http_link.c) */
    if (r->status == 206 && !r->head)
        weight = r->last - r->first + 1;
    st->expect_bytes += weight < (1ull << 40) ? weight : (1ull << 40);
}

void hp_junk(struct hp_stream *st, const uint8_t *b, size_t n)
{
    if (HP_BUF - st->len < n)
        return;
    if (!st->junk)
        st->junk_at = st->len;
    st->junk = true;
    for (size_t i = 0; i < n; i++)
        st->buf[st->len++] = b[i] == 'H' ? 'h' : b[i];
}

static void fail(const char *what, unsigned k, size_t at)
{
    fprintf(stderr, "http_pipe: response %u at byte %zu: %s\n", k, at, what);
    abort();
}

static const char *find(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    for (size_t i = 0; i + k <= n; i++)
        if (snap_bytes_equal(s + i, w, k))
            return s + i;
    return NULL;
}

static bool digits(const char *s, size_t n, uint64_t *v)
{
    *v = 0;
    if (n == 0 || n > 19)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        *v = *v * 10 + (uint64_t)(s[i] - '0');
    }
    return true;
}

/* n bytes at p are /bytes/N's from byte off on (byte i is i % 251). */
static bool pattern_at(const uint8_t *p, size_t n, uint64_t off)
{
    static uint8_t pattern[251 + 4096];
    if (pattern[1] == 0)
        for (size_t i = 0; i < sizeof(pattern); i++)
            pattern[i] = (uint8_t)(i % 251);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < 4096 ? n - done : 4096;
        if (!snap_bytes_equal(p + done, pattern + (off + done) % 251, k))
            return false;
        done += k;
    }
    return true;
}

/* The fixed text bodies of the errors. */
static const char *error_body(uint16_t status)
{
    switch (status) {
    case 400: return "bad request\n";
    case 404: return "not found\n";
    case 405: return "method not allowed\n";
    case 416: return "range not satisfiable\n";
    case 431: return "request header fields too large\n";
    default: return NULL;
    }
}

/* One response's head at s (n bytes, through its empty line) against r:
 * its Content-Length, and whether it says Connection: close. */
static void check_head(const struct hp_req *r, unsigned k, size_t at, const char *s, size_t n, uint16_t *status,
                       uint64_t *length, bool *close)
{
    if (n < 15 || !snap_bytes_equal(s, "HTTP/1.1 ", 9) || s[12] != ' ')
        fail("not an HTTP/1.1 status line", k, at);
    uint64_t code;
    if (!digits(s + 9, 3, &code))
        fail("status code", k, at);
    *status = (uint16_t)code;
    if (code != r->status && !(r->maybe431 && code == 431)) {
        fprintf(stderr, "http_pipe: status %u, the model says %u\n", (unsigned)code, r->status);
        fail("status", k, at);
    }
    const char *line = memchr(s, '\n', n);
    if (line == NULL || line[-1] != '\r')
        fail("status line's end", k, at);
    int lengths = 0;
    bool keep_alive = false;
    const char *range = NULL;
    size_t range_len = 0;
    *close = false;
    for (const char *p = line + 1; p < s + n - 2;) {
        const char *e = find(p, (size_t)(s + n - p), "\r\n");
        const char *colon = memchr(p, ':', (size_t)(e - p));
        if (colon == NULL || colon == p || colon[1] != ' ')
            fail("header field", k, at);
        size_t name = (size_t)(colon - p), vlen = (size_t)(e - colon - 2);
        const char *v = colon + 2;
        if (name == 14 && snap_bytes_equal(p, "Content-Length", 14)) {
            lengths++;
            if (!digits(v, vlen, length))
                fail("Content-Length", k, at);
        } else if (name == 10 && snap_bytes_equal(p, "Connection", 10)) {
            *close |= vlen == 5 && snap_bytes_equal(v, "close", 5);
            keep_alive |= vlen == 10 && snap_bytes_equal(v, "keep-alive", 10);
        } else if (name == 13 && snap_bytes_equal(p, "Content-Range", 13)) {
            range = v;
            range_len = vlen;
        }
        p = e + 2;
    }
    if (lengths != 1)
        fail("not one Content-Length", k, at);
    bool close_expected = r->close || code == 431;
    if (*close != close_expected || keep_alive != (r->http10 && !close_expected))
        fail("Connection", k, at);
    char want[96];
    want[0] = 0;
    if (r->bytes && code == 206)
        snprintf(want, sizeof want, "bytes %llu-%llu/%llu", (unsigned long long)r->first,
                 (unsigned long long)r->last, (unsigned long long)r->n);
    if (r->bytes && code == 416)
        snprintf(want, sizeof want, "bytes */%llu", (unsigned long long)r->n);
    if (want[0] ? range == NULL || range_len != strlen(want) || !snap_bytes_equal(range, want, range_len) : range != NULL)
        fail("Content-Range", k, at);
    uint64_t body = r->bytes && code == 206 ? r->last - r->first + 1 : r->bytes && code == 200 ? r->n : *length;
    const char *text = error_body((uint16_t)code);
    if (*length != body || (text && *length != strlen(text)))
        fail("Content-Length's value", k, at);
}

unsigned hp_check(const struct hp_stream *st, const uint8_t *rx, size_t n, bool complete)
{
    const char *s = (const char *)rx;
    size_t pos = 0;
    unsigned k = 0;
    bool closed = false;
    while (pos < n) {
        if (closed)
            fail("bytes after Connection: close", k, pos);
        const struct hp_req *r = &st->req[k];
        if (k >= st->nreq || (st->junk && r->start >= st->junk_at)) {
            if (!st->junk)
                fail("a response with no request", k, pos);
            /* Past what is modelled: only its start. */
            size_t m = n - pos < 9 ? n - pos : 9;
            if (!snap_bytes_equal(s + pos, "HTTP/1.1 ", m))
                fail("not a status line", k, pos);
            return k;
        }
        /* (A header too long for the server is refused once its buffer is
         * full, before the rest comes.) */
        if (st->sent < (r->status == 431 || r->maybe431 ? r->start + SURE_FITS : r->hdr_end))
            fail("a response before its request was sent", k, pos);
        const char *end = find(s + pos, n - pos, "\r\n\r\n");
        if (end == NULL) { /* cut short: only at the end, while waiting */
            size_t m = n - pos < 9 ? n - pos : 9;
            if (complete || !snap_bytes_equal(s + pos, "HTTP/1.1 ", m))
                fail("a response's head cut short", k, pos);
            return k;
        }
        size_t hlen = (size_t)(end + 4 - (s + pos));
        uint16_t status;
        uint64_t length;
        check_head(r, k, pos, s + pos, hlen, &status, &length, &closed);
        hp_seen[status]++;
        bool has_body = !(r->head && (status == 200 || status == 206 || status == 404 || status == 416));
        uint64_t blen = has_body ? length : 0;
        size_t at = pos + hlen, avail = n - at < blen ? n - at : (size_t)blen;
        const char *text = error_body(status);
        if (r->bytes && (status == 200 || status == 206)) {
            if (!pattern_at(rx + at, avail, r->first))
                fail("a /bytes body", k, at);
        } else if (text && has_body && !snap_bytes_equal(s + at, text, avail)) {
            fail("an error's text", k, at);
        }
        if (avail < blen) {
            if (complete)
                fail("a body cut short", k, at + avail);
            return k;
        }
        pos = at + (size_t)blen;
        k++;
    }
    if (complete && !closed && k != st->nreq)
        fail("a request left unanswered", k, pos);
    return k;
}
