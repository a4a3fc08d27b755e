/* SPDX-License-Identifier: MIT */
/* tests/support/http_pipe_model.h: requests built from tokens, with what
 * apps/http.c must answer to each, and the check of what a client received
 * (for tests/fuzz/fuzz_http_pipe.c).
 *
 * A request is 4 bytes b1..b4 and p (5 bits of the op byte):
 *   b1 bits 0-2 method   GET HEAD POST PUT get OPTIONS "" BREW
 *      bits 3-5 version  HTTP/1.1 HTTP/1.0 HTTP/1.1 HTTP/1.9 HTTP/2.0
 *                        HTTP/1.x http/1.1 (none)
 *      bits 6-7 lines    CRLF, CRLF, bare LF, an empty line first then CRLF
 *   b2 bits 0-3 target   / /metrics /bytes/N /bytes/N?x=1 http://h/bytes/N
 *                        /bytes/abc /status /nope /bytes/ http://host /?q=1
 *                        * /metrics/ /bytes/N/x HTTP://H/metrics /bytes/-1
 *      bits 4-7 N        0 1 007 250 251 252 1000 1459 1460 3000 10000 30000
 *                        65536 1000000000 2^50 (2^50 * 10: too long: 404)
 *   b3 headers, one a bit: Host: x, Host: y, Connection: keep-alive,
 *      Connection: close, Content-Length: L (and L bytes of body, made of
 *      a request the server must not answer), the bad header of b4,
 *      Range (kind from b4), Accept
 *   b4 bits 0-2 bad header: no colon, space before the colon, a folded
 *      line, Content-Length: abc, two Content-Lengths, Transfer-Encoding:
 *      chunked (and a chunked body), Expect: 100-continue, X-Long of
 *      600/1500/2100/3000 bytes (p bits 0-1)
 *      bits 3-5 Range bytes=0-9, bytes=5-, bytes=-5, bytes=10-5, bytes=0-0,2-3,
 *      items=0-1, bytes=300-, bytes=-0
 *      bits 6-7 L 0 5 22 3000
 *   p bit 2: header names in lower case; bit 3: Content-Length's value
 *   between spaces. */
#ifndef TESTS_SUPPORT_HTTP_PIPE_MODEL_H
#define TESTS_SUPPORT_HTTP_PIPE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HP_BUF (64u << 10)
#define HP_REQS 64

/* What the server must answer to one request. */
struct hp_req {
    size_t start, hdr_end;      /* in the stream */
    uint16_t status;
    bool maybe431;              /* a header near the server's buffer: 431 or status */
    bool head, http10, close;
    bool bytes;                 /* a /bytes/N body: byte i is (first + i) % 251 */
    uint64_t n, first, last;
};

struct hp_stream {
    uint8_t buf[HP_BUF];        /* what the client has to send */
    size_t len, sent;
    struct hp_req req[HP_REQS];
    unsigned nreq;
    bool junk;                  /* raw bytes from junk_at: no model past it */
    size_t junk_at;
    bool fin;                   /* the client closed its side */
    uint64_t expect_bytes;      /* about what the answers weigh */
};

/* Responses checked so far, by status (for a debug summary). */
extern uint64_t hp_seen[600];

void hp_reset(struct hp_stream *st);
/* Append the request of b[0..3] and p (nothing when the buffer is full). */
void hp_request(struct hp_stream *st, const uint8_t *b, uint8_t p);
/* Append n raw bytes ('H' as 'h'). */
void hp_junk(struct hp_stream *st, const uint8_t *b, size_t n);
/* Check the n bytes the client received; complete: the client sent
 * everything and waited until nothing moved, so every request has its
 * answer. Aborts on a violation; returns the responses checked whole. */
unsigned hp_check(const struct hp_stream *st, const uint8_t *rx, size_t n, bool complete);

#endif
