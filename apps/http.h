/* SPDX-License-Identifier: MIT */
/* apps/http.h: a small HTTP/1.1 server (RFC 9112) on net/'s TCP API,
 * for `app http port N`.
 *
 *   GET /            a status page
 *   GET /bytes/N     N bytes of body, byte i being i % 251 (sent zero-copy
 *                    from buffers filled for the purpose); one Range honoured
 *   GET /metrics     every counter, Prometheus text format (each a counter)
 *   GET /capture.pcap  a packet capture as pcapng (http_set_capture)
 *   GET PATH         a document the embedder added (http_add_document)
 *
 * HEAD works for each. Connections are kept alive (HTTP/1.1 default, or
 * "Connection: keep-alive" in 1.0) and requests may be pipelined. A
 * connection's state lives in one buffer of the stack's pool, so the server
 * needs no memory of its own beyond a few counters per core. */
#ifndef USERLAND_HTTP_H
#define USERLAND_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net_stack;

/* The idx-th metric (from 0): false past the last. name is a Prometheus
 * metric name's tail ("eth-rx" is served as hayate_eth_rx). */
typedef bool (*http_metric_fn)(void *ctx, struct net_stack *s, uint32_t idx, const char **name,
                               uint64_t *value);

/* Serve port on s (once per core's stack). 0, or -1 (no TCP on s, port
 * taken, listener table full, more cores than HTTP_MAX_CORES). A
 * connection the client leaves idle for HTTP_IDLE_NS is reset, as servers
 * close idle keep-alive connections (nginx's keepalive_timeout); the
 * embedder may change it with tcp_listen_idle. */
#define HTTP_IDLE_NS 60000000000ull
int http_start(struct net_stack *s, uint16_t port);

/* Where /metrics comes from (the router's: every core's, router_metric);
 * by default the counters of the serving core's stack (net/core/counter.h).
 * Set before http_start; fn NULL restores it. */
void http_set_metrics(http_metric_fn fn, void *ctx);

/* A document served at a path of its own (GET PATH, HEAD too): fn
 * writes its body a character at a time into sink(sink_ctx, c), fresh
 * for each request. At most HTTP_MAX_DOCS; 0, or -1 when full. */
typedef void (*http_doc_fn)(void *ctx, void (*sink)(void *sink_ctx, char c), void *sink_ctx);
#define HTTP_MAX_DOCS 4
int http_add_document(const char *path, const char *content_type, http_doc_fn fn, void *ctx);

/* GET /capture.pcap?port=PORT[&dir=rx|tx|drop|any][&count=N][&host=A]
 * [&net=P][&proto=P][&l4port=N]: a packet capture streamed as pcapng
 * until count packets (or the client closes), from the embedder's
 * capture: start with the console's words (port first), wake(conn) called
 * on this core while it runs, read giving whole pcapng blocks (done: it is
 * over), stop when the client went first. 409 when start refuses. */
struct http_capture {
    int (*start)(void *ctx, int argc, char **argv, void (*wake)(void *conn, uint64_t now_ns), void *conn,
                 char *err, size_t errlen);
    size_t (*read)(void *ctx, uint8_t *buf, size_t n, bool *done);
    void (*stop)(void *ctx);
    void *ctx;
};
void http_set_capture(const struct http_capture *c);

#define HTTP_MAX_CORES 64

/* Requests served and connections open on a core, for `show` commands. */
struct http_stats {
    uint64_t requests, responses_2xx, responses_4xx, connections;
    uint32_t open;
};
const struct http_stats *http_stats(uint32_t core);

#endif
