/* SPDX-License-Identifier: MIT */
/* apps/http.c: HTTP/1.1 server (apps/http.h; message syntax RFC
 * 9112 sections 2-3 and 6, persistence section 9.3).
 *
 * Each connection's state is a struct http_conn at the start of one pool
 * buffer, the request bytes received so far after it. Responses: headers
 * by tcp_write (copied: small), bodies in freshly filled buffers handed to
 * tcp_send (zero-copy), as much as the send buffer takes; the acked
 * callback continues a long body. The next pipelined request is answered
 * only when the current response is queued whole and the send buffer has
 * room for a whole answer (ANSWER_ROOM): nothing is cut short. What the
 * client sends meanwhile waits in its buffers (hold), and the receive
 * window, which closes as they are held (manual window), stops it there.
 * A request's own body is read past by its Content-Length (6.3); one that
 * cannot be framed ends the connection after the answer. Lines may end in
 * a bare LF (2.2). */
#include "http.h"

#include <stddef.h>

#include "net/capture/capture.h"
#include "net/core/core.h"
#include "net/net.h"
#include "net/tcp/tcp.h"

#define HTTP_BODY_MOD 251
#define ANSWER_ROOM (32u * 1024) /* the send buffer a request waits for: any head, /, /metrics */

struct http_conn {
    struct pkt *self;           /* the buffer this lives in */
    struct http_stats *st;
    uint64_t body_left, body_off;
    uint64_t skip;              /* the request's own body, still to discard */
    struct pkt_queue hold;      /* received, not yet in req */
    uint16_t req_len;
    uint16_t scanned;           /* of req: searched for the header's end, not found */
    bool close_after;           /* Connection: close, or HTTP/1.0 */
    bool http10;                /* kept alive: say so (RFC 9112 C.2.2) */
    bool peer_done;             /* the peer sent its FIN */
    bool closing;
    bool capturing;             /* streaming /capture.pcap until the capture ends */
    struct tcp_conn *tcp;       /* (for the capture's wake) */
    char req[];
};

#define REQ_MAX (PKT_BUF_SIZE - PKT_META_SIZE - sizeof(struct http_conn))

static struct http_stats stats[HTTP_MAX_CORES];
static struct http_capture capture;
static http_metric_fn metric_fn;
static void *metric_ctx;
static uint8_t pattern[HTTP_BODY_MOD + 2048]; /* byte i is i % 251 */

static const struct tcp_callbacks http_cb;

const struct http_stats *http_stats(uint32_t core) { return core < HTTP_MAX_CORES ? &stats[core] : NULL; }

void http_set_capture(const struct http_capture *c) { capture = *c; }

void http_set_metrics(http_metric_fn fn, void *ctx)
{
    metric_fn = fn;
    metric_ctx = ctx;
}

static bool own_counters(void *ctx, struct net_stack *s, uint32_t idx, const char **name, uint64_t *value)
{
    const struct net_counter_desc *d = net_counter_at(idx);
    if (d == NULL)
        return false;
    *name = d->name;
    *value = net_counter_get(&s->ctr, d);
    return true;
}

/* ---- small string helpers (no libc here) ---- */

static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

static bool prefix_ci(const char *s, size_t n, const char *p)
{
    size_t i = 0;
    for (; p[i]; i++)
        if (i >= n || lower(s[i]) != p[i])
            return false;
    return true;
}

/* value contains word (lower case), case-insensitively. */
static bool contains_ci(const char *s, size_t n, const char *word)
{
    size_t w = str_len(word);
    for (size_t i = 0; i + w <= n; i++)
        if (prefix_ci(s + i, n - i, word))
            return true;
    return false;
}

static size_t put_u64(char *out, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static size_t put_str(char *out, const char *s)
{
    size_t n = str_len(s);
    net_memcpy(out, s, n);
    return n;
}

/* ---- responses ---- */

/* The status line and headers; extra: one more header line (no CRLF), or NULL. */
static void send_head(struct tcp_conn *c, struct http_conn *h, const char *status, const char *type,
                      uint64_t length, const char *extra, uint64_t now_ns)
{
    char buf[256];
    size_t n = put_str(buf, "HTTP/1.1 ");
    n += put_str(buf + n, status);
    n += put_str(buf + n, "\r\nServer: hayate\r\nContent-Type: ");
    n += put_str(buf + n, type);
    n += put_str(buf + n, "\r\nContent-Length: ");
    n += put_u64(buf + n, length);
    if (extra) {
        n += put_str(buf + n, "\r\n");
        n += put_str(buf + n, extra);
    }
    if (h->close_after)
        n += put_str(buf + n, "\r\nConnection: close");
    else if (h->http10) /* a 1.0 client closes unless told otherwise */
        n += put_str(buf + n, "\r\nConnection: keep-alive");
    n += put_str(buf + n, "\r\n\r\n");
    tcp_write(c, buf, (uint32_t)n, now_ns);
}

static void send_text(struct tcp_conn *c, struct http_conn *h, const char *status, const char *type,
                      const char *body, size_t len, bool head, const char *extra, uint64_t now_ns)
{
    send_head(c, h, status, type, len, extra, now_ns);
    if (!head)
        tcp_write(c, body, (uint32_t)len, now_ns);
}

/* As much of a /bytes body as the send queue takes; true when done. */
static bool send_body(struct tcp_conn *c, struct http_conn *h, uint64_t now_ns)
{
    while (h->body_left) {
        uint32_t n = tcp_mss(c);
        if (n > sizeof(pattern) - HTTP_BODY_MOD)
            n = sizeof(pattern) - HTTP_BODY_MOD;
        if (n > h->body_left)
            n = (uint32_t)h->body_left;
        if (tcp_sndbuf(c) < n)
            return false;
        struct pkt *p = pkt_alloc(tcp_conn_stack(c)->pool);
        if (p == NULL)
            return false; /* the acked callback tries again */
        net_memcpy(p->data, pattern + h->body_off % HTTP_BODY_MOD, n);
        p->len = (uint16_t)n;
        if (tcp_send(c, p, now_ns) < 0) {
            pkt_free(p);
            return false;
        }
        h->body_left -= n;
        h->body_off += n;
    }
    return true;
}

static void send_metrics(struct tcp_conn *c, struct http_conn *h, bool head, uint64_t now_ns)
{
    /* Formatted once into buffers, so the length is that of what is sent
     * even if the counters move meanwhile. */
    struct pkt *first = NULL, *last = NULL;
    uint64_t total = 0;
    uint32_t room = tcp_mss(c);
    http_metric_fn fn = metric_fn ? metric_fn : own_counters;
    const char *name;
    uint64_t value;
    for (uint32_t i = 0; fn(metric_ctx, tcp_conn_stack(c), i, &name, &value); i++) {
        char metric[100], line[256];
        size_t m = put_str(metric, "hayate_");
        for (const char *q = name; *q && m < sizeof(metric); q++)
            metric[m++] = (*q == '-' || *q == '.') ? '_' : *q;
        size_t n = put_str(line, "# TYPE ");
        net_memcpy(line + n, metric, m);
        n += m;
        n += put_str(line + n, " counter\n");
        net_memcpy(line + n, metric, m);
        n += m;
        line[n++] = ' ';
        n += put_u64(line + n, value);
        line[n++] = '\n';
        if (last == NULL || last->len + n > room) {
            struct pkt *p = pkt_alloc(tcp_conn_stack(c)->pool);
            if (p == NULL)
                break;
            p->next = NULL;
            if (last)
                last->next = p;
            else
                first = p;
            last = p;
        }
        net_memcpy(last->data + last->len, line, n);
        last->len = (uint16_t)(last->len + n);
        total += n;
    }
    send_head(c, h, "200 OK", "text/plain; version=0.0.4", total, NULL, now_ns);
    for (struct pkt *p = first, *next; p; p = next) {
        next = p->next;
        p->next = NULL;
        if (head || tcp_send(c, p, now_ns) < 0)
            pkt_free(p);
    }
}

struct http_doc {
    const char *path, *type;
    size_t plen;
    http_doc_fn fn;
    void *ctx;
};
static struct http_doc docs[HTTP_MAX_DOCS];
static unsigned ndocs;

int http_add_document(const char *path, const char *content_type, http_doc_fn fn, void *ctx)
{
    for (unsigned i = 0; i < ndocs; i++)
        if (docs[i].fn == fn && docs[i].ctx == ctx)
            return 0; /* every core's start adds it again */
    if (ndocs == HTTP_MAX_DOCS)
        return -1;
    size_t n = 0;
    while (path[n])
        n++;
    docs[ndocs++] = (struct http_doc){.path = path, .type = content_type, .plen = n, .fn = fn, .ctx = ctx};
    return 0;
}

/* Where a document's characters go: segments of the stack's buffers, an
 * MSS each, chained until sent. */
struct doc_sink {
    struct net_stack *s;
    struct pkt *first, *last;
    uint32_t room;
    uint64_t total;
    bool short_of_buffers;
};

static void doc_put(void *ctx, char ch)
{
    struct doc_sink *d = ctx;
    if (d->short_of_buffers)
        return;
    if (d->last == NULL || d->last->len == d->room) {
        struct pkt *p = pkt_alloc(d->s->pool);
        if (p == NULL) {
            d->short_of_buffers = true;
            return;
        }
        p->next = NULL;
        if (d->last)
            d->last->next = p;
        else
            d->first = p;
        d->last = p;
    }
    d->last->data[d->last->len++] = (uint8_t)ch;
    d->total++;
}

static void send_document(struct tcp_conn *c, struct http_conn *h, unsigned i, bool head, uint64_t now_ns)
{
    struct doc_sink d = {.s = tcp_conn_stack(c), .room = tcp_mss(c)};
    docs[i].fn(docs[i].ctx, doc_put, &d);
    if (d.short_of_buffers) {
        for (struct pkt *p = d.first, *next; p; p = next) {
            next = p->next;
            pkt_free(p);
        }
        h->st->responses_4xx++;
        send_text(c, h, "503 Service Unavailable", "text/plain", "no buffers\n", 11, head, NULL, now_ns);
        return;
    }
    h->st->responses_2xx++;
    send_head(c, h, "200 OK", docs[i].type, d.total, NULL, now_ns);
    for (struct pkt *p = d.first, *next; p; p = next) {
        next = p->next;
        p->next = NULL;
        if (head || tcp_send(c, p, now_ns) < 0)
            pkt_free(p);
    }
}

static void send_status(struct tcp_conn *c, struct http_conn *h, bool head, uint64_t now_ns)
{
    char body[512];
    const struct http_stats *st = h->st;
    size_t n = put_str(body, "<!doctype html>\n<title>hayate</title>\n<h1>hayate</h1>\n<p>core ");
    n += put_u64(body + n, tcp_conn_stack(c)->core);
    n += put_str(body + n, ": ");
    n += put_u64(body + n, st->requests);
    n += put_str(body + n, " requests, ");
    n += put_u64(body + n, st->open);
    n += put_str(body + n, " connections open, ");
    n += put_u64(body + n, st->connections);
    n += put_str(body + n, " in all</p>\n<p><a href=\"/metrics\">/metrics</a> "
                           "<a href=\"/bytes/1024\">/bytes/N</a></p>\n");
    send_text(c, h, "200 OK", "text/html", body, n, head, NULL, now_ns);
}

/* Parse and answer one request of len bytes (through the empty line). */
/* A Range header's one byte range (RFC 9110 14.1.2: first-last, first-
 * or -suffix) of a body of n bytes: 1 with [*first, *last] when it is
 * satisfiable, 0 when it cannot be (416), -1 when the header is ignored
 * (another unit, several ranges, bad syntax): the whole body then. */
static int byte_range(const char *v, size_t len, uint64_t n, uint64_t *first, uint64_t *last)
{
    size_t i = 0, da = 0, db = 0;
    uint64_t a = 0, b = 0;
    while (i < len && (v[i] == ' ' || v[i] == '\t'))
        i++;
    if (!prefix_ci(v + i, len - i, "bytes="))
        return -1;
    for (i += 6; i < len && v[i] >= '0' && v[i] <= '9' && a < (1ull << 50); i++, da++)
        a = a * 10 + (uint64_t)(v[i] - '0');
    if (i == len || v[i++] != '-')
        return -1;
    for (; i < len && v[i] >= '0' && v[i] <= '9' && b < (1ull << 50); i++, db++)
        b = b * 10 + (uint64_t)(v[i] - '0');
    while (i < len && (v[i] == ' ' || v[i] == '\t'))
        i++;
    if (i != len || (!da && !db) || (da && db && b < a))
        return -1;
    if (!da) { /* the last b bytes */
        if (b == 0 || n == 0)
            return 0;
        *first = b < n ? n - b : 0;
        *last = n - 1;
        return 1;
    }
    if (a >= n)
        return 0;
    *first = a;
    *last = db && b < n - 1 ? b : n - 1;
    return 1;
}

/* /bytes/N's head (byte i of the body is i % 251): all of it, the one
 * range asked for (206), or 416 when none of it is in range. */
static void send_bytes(struct tcp_conn *c, struct http_conn *h, uint64_t n, const char *range, size_t range_len,
                       bool head, uint64_t now_ns)
{
    static const char unsatisfiable[] = "range not satisfiable\n";
    uint64_t first = 0, last = 0;
    int r = range ? byte_range(range, range_len, n, &first, &last) : -1;
    char cr[80];
    size_t k = put_str(cr, "Content-Range: bytes ");
    if (r == 0) {
        k += put_str(cr + k, "*/");
        k += put_u64(cr + k, n);
        cr[k] = 0;
        h->st->responses_4xx++;
        send_text(c, h, "416 Range Not Satisfiable", "text/plain", unsatisfiable, sizeof(unsatisfiable) - 1, head,
                  cr, now_ns);
        return;
    }
    h->st->responses_2xx++;
    if (r == 1) {
        k += put_u64(cr + k, first);
        cr[k++] = '-';
        k += put_u64(cr + k, last);
        cr[k++] = '/';
        k += put_u64(cr + k, n);
        cr[k] = 0;
        send_head(c, h, "206 Partial Content", "application/octet-stream", last - first + 1, cr, now_ns);
    } else {
        send_head(c, h, "200 OK", "application/octet-stream", n, "Accept-Ranges: bytes", now_ns);
    }
    h->body_left = head ? 0 : r == 1 ? last - first + 1 : n;
    h->body_off = first;
}

/* The path of a request target (RFC 9112 3.2): absolute-form's after its
 * authority ("/" when it has none), and without the query, which none of
 * these resources takes. */
static const char *target_path(const char *t, size_t n, size_t *plen)
{
    if (n >= 7 && (prefix_ci(t, n, "http://") || prefix_ci(t, n, "https://"))) {
        size_t i = t[4] == ':' ? 7 : 8;
        while (i < n && t[i] != '/' && t[i] != '?')
            i++;
        if (i == n || t[i] == '?') {
            *plen = 1;
            return "/";
        }
        t += i;
        n -= i;
    }
    size_t q = 0;
    while (q < n && t[q] != '?')
        q++;
    *plen = q;
    return t;
}

static bool starts(const char *s, size_t n, const char *p)
{
    size_t k = str_len(p);
    return n >= k && net_memcmp(s, p, k) == 0;
}

/* The document served at path, or -1. */
static int document(const char *path, size_t plen)
{
    for (unsigned i = 0; i < ndocs; i++)
        if (docs[i].plen == plen && starts(path, plen, docs[i].path))
            return (int)i;
    return -1;
}

/* A 4xx after which the connection ends (where the next request would
 * start is unsure): status and a line of text. */
static void refuse(struct tcp_conn *c, struct http_conn *h, const char *status, const char *text, uint64_t now_ns)
{
    h->close_after = true;
    h->st->responses_4xx++;
    send_text(c, h, status, "text/plain", text, str_len(text), false, NULL, now_ns);
}

static void bad_request(struct tcp_conn *c, struct http_conn *h, uint64_t now_ns)
{
    refuse(c, h, "400 Bad Request", "bad request\n", now_ns);
}

static void close_conn(struct tcp_conn *c, struct http_conn *h, uint64_t now_ns);

/* The capture's pcapng blocks, whole, as far as the send buffer takes
 * them; its end ends the connection (the body is close-delimited). */
static void stream_capture(struct tcp_conn *c, struct http_conn *h, uint64_t now_ns)
{
    uint8_t block[CAP_SNAP + 128];
    while (h->capturing && !h->closing && tcp_sndbuf(c) >= sizeof block) {
        bool done;
        size_t n = capture.read(capture.ctx, block, sizeof block, &done);
        if (done) {
            h->capturing = false;
            close_conn(c, h, now_ns);
            return;
        }
        if (n == 0)
            return;
        tcp_write(c, block, (uint32_t)n, now_ns);
    }
}

static void capture_wake(void *conn, uint64_t now_ns)
{
    struct http_conn *h = conn;
    stream_capture(h->tcp, h, now_ns);
}

/* GET /capture.pcap?port=eth0&dir=rx&count=N&host=A&net=P&proto=P&l4port=N:
 * the console's `capture` words from the query, the capture as pcapng. */
static void start_capture(struct tcp_conn *c, struct http_conn *h, const char *q, size_t qlen, bool head,
                          uint64_t now_ns)
{
    static const char *const keys[] = {"dir", "count", "host", "net", "proto", "l4port"};
    static const char *const words[] = {NULL, "count", "host", "net", "proto", "port"};
    char buf[256], *argv[16], err[128] = "no capture here";
    int argc = 1, nmatch = 0;
    size_t used = 0;
    argv[0] = "";
    char *match[12];
    for (size_t i = 0; i < qlen && argc < 8;) {
        size_t e = i, eqs = 0;
        while (e < qlen && q[e] != '&')
            e++;
        for (eqs = i; eqs < e && q[eqs] != '='; eqs++)
            ;
        if (eqs < e && e - i < sizeof buf - used - 2) {
            char *k = buf + used, *v = k + (eqs - i) + 1;
            net_memcpy(k, q + i, eqs - i);
            k[eqs - i] = 0;
            net_memcpy(v, q + eqs + 1, e - eqs - 1);
            v[e - eqs - 1] = 0;
            used += e - i + 1;
            if (str_len(k) == 4 && net_memcmp(k, "port", 4) == 0)
                argv[0] = v;
            for (unsigned j = 0; j < sizeof keys / sizeof keys[0]; j++)
                if (str_len(k) == str_len(keys[j]) && net_memcmp(k, keys[j], str_len(k)) == 0) {
                    if (j < 2) { /* before match */
                        if (words[j])
                            argv[argc++] = (char *)words[j];
                        argv[argc++] = v;
                    } else if (nmatch < 12) {
                        match[nmatch++] = (char *)words[j];
                        match[nmatch++] = v;
                    }
                }
        }
        i = e + 1;
    }
    if (nmatch)
        argv[argc++] = "match";
    for (int i = 0; i < nmatch && argc < 16; i++)
        argv[argc++] = match[i];
    h->close_after = true;
    if (head || !capture.start || capture.start(capture.ctx, argc, argv, capture_wake, h, err, sizeof err) != 0) {
        char msg[sizeof err + 16];
        size_t n = put_str(msg, "capture: ");
        n += put_str(msg + n, head ? "GET only" : err);
        msg[n++] = '\n';
        h->st->responses_4xx++;
        send_text(c, h, head ? "405 Method Not Allowed" : "409 Conflict", "text/plain", msg, n, false,
                  head ? "Allow: GET" : NULL, now_ns);
        return;
    }
    h->st->responses_2xx++;
    h->capturing = true;
    h->tcp = c;
    static const char hdr[] = "HTTP/1.1 200 OK\r\nServer: hayate\r\nContent-Type: application/x-pcapng\r\n"
                              "Connection: close\r\n\r\n";
    tcp_write(c, hdr, sizeof hdr - 1, now_ns);
    stream_capture(c, h, now_ns);
}

static void answer(struct tcp_conn *c, struct http_conn *h, const char *r, size_t len, uint64_t now_ns)
{
    static const char not_found[] = "not found\n", no_method[] = "method not allowed\n";
    size_t eol = 0;
    while (eol < len && r[eol] != '\r' && r[eol] != '\n')
        eol++;
    h->st->requests++;
    /* Request line: METHOD SP TARGET SP HTTP/x.y */
    size_t sp1 = 0, sp2;
    while (sp1 < eol && r[sp1] != ' ')
        sp1++;
    sp2 = sp1 + 1;
    while (sp2 < eol && r[sp2] != ' ')
        sp2++;
    /* The version exactly HTTP/1.x, names case-sensitive (RFC 9112 2.3). */
    if (sp1 == 0 || sp2 + 9 != eol || !starts(r + sp2 + 1, 8, "HTTP/1.") || r[eol - 1] < '0' || r[eol - 1] > '9') {
        bad_request(c, h, now_ns);
        return;
    }
    bool http10 = h->http10 = r[eol - 1] == '0';
    bool head = sp1 == 4 && starts(r, 4, "HEAD");
    bool get = sp1 == 3 && starts(r, 3, "GET");
    /* Connection header: close, or keep-alive for HTTP/1.0. The request's
     * own body (RFC 9112 6.3): Content-Length bytes are read past and
     * dropped; one we cannot frame (Transfer-Encoding, a bad length) or
     * may never get (Expect: 100-continue, answered at once) ends the
     * connection after the response, or the next request would start
     * inside it. */
    h->close_after = http10;
    bool unframed = false, expect = false, malformed = false, have_length = false;
    uint32_t hosts = 0;
    uint64_t body = 0;
    const char *range = NULL;
    size_t range_len = 0;
    for (size_t i = eol; i < len;) {
        while (i < len && (r[i] == '\r' || r[i] == '\n'))
            i++;
        size_t e = i, colon;
        while (e < len && r[e] != '\r' && r[e] != '\n')
            e++;
        if (i == e)
            break;
        /* field-name ":" with no space before the colon (RFC 9112 5.1),
         * and no line folded onto the last (5.2: obs-fold). */
        for (colon = i; colon < e && r[colon] != ':'; colon++)
            ;
        if (colon == e || colon == i || r[i] == ' ' || r[i] == '\t' || r[colon - 1] == ' ' || r[colon - 1] == '\t')
            malformed = true;
        if (prefix_ci(r + i, e - i, "host:")) {
            hosts++;
        } else if (prefix_ci(r + i, e - i, "connection:")) {
            if (contains_ci(r + i + 11, e - i - 11, "close"))
                h->close_after = true;
            else if (contains_ci(r + i + 11, e - i - 11, "keep-alive"))
                h->close_after = false;
        } else if (prefix_ci(r + i, e - i, "content-length:")) {
            size_t k = i + 15, digits = 0;
            uint64_t v = 0;
            while (k < e && (r[k] == ' ' || r[k] == '\t'))
                k++;
            for (; k < e && r[k] >= '0' && r[k] <= '9' && v < (1ull << 50); k++, digits++)
                v = v * 10 + (uint64_t)(r[k] - '0');
            while (k < e && (r[k] == ' ' || r[k] == '\t'))
                k++;
            unframed |= digits == 0 || k != e;
            malformed |= have_length && v != body; /* two lengths: which? (6.3) */
            have_length = true;
            body = v;
        } else if (prefix_ci(r + i, e - i, "transfer-encoding:")) {
            unframed = true;
        } else if (prefix_ci(r + i, e - i, "expect:")) {
            expect = true;
        } else if (prefix_ci(r + i, e - i, "range:")) {
            range = r + i + 6;
            range_len = e - i - 6;
        }
        i = e;
    }
    if (malformed || (!http10 && hosts != 1)) { /* a 1.1 request names one host (RFC 9112 3.2) */
        bad_request(c, h, now_ns);
        return;
    }
    if (unframed || (body && expect))
        h->close_after = true;
    else
        h->skip = body;
    if (!get && !head) {
        h->st->responses_4xx++;
        send_text(c, h, "405 Method Not Allowed", "text/plain", no_method, sizeof(no_method) - 1, false,
                  "Allow: GET, HEAD", now_ns); /* RFC 9110 15.5.6 */
        return;
    }
    size_t plen;
    const char *path = target_path(r + sp1 + 1, sp2 - sp1 - 1, &plen);
    if (plen == 1 && path[0] == '/') {
        h->st->responses_2xx++;
        send_status(c, h, head, now_ns);
    } else if (plen == 13 && starts(path, 13, "/capture.pcap")) {
        const char *q = path + plen, *end = r + sp2;
        start_capture(c, h, q < end && *q == '?' ? q + 1 : q, q < end && *q == '?' ? (size_t)(end - q - 1) : 0,
                      head, now_ns);
    } else if (plen == 8 && starts(path, 8, "/metrics")) {
        h->st->responses_2xx++;
        send_metrics(c, h, head, now_ns);
    } else if (plen > 1 && document(path, plen) >= 0) {
        send_document(c, h, (unsigned)document(path, plen), head, now_ns);
    } else if (plen > 7 && starts(path, 7, "/bytes/")) {
        uint64_t n = 0;
        size_t i = 7;
        for (; i < plen && path[i] >= '0' && path[i] <= '9' && n < (1ull << 50); i++)
            n = n * 10 + (uint64_t)(path[i] - '0');
        if (i != plen) {
            h->st->responses_4xx++;
            send_text(c, h, "404 Not Found", "text/plain", not_found, sizeof(not_found) - 1, head, NULL, now_ns);
            return;
        }
        send_bytes(c, h, n, get ? range : NULL, range_len, head, now_ns); /* RFC 9110 14.2: GET's only */
    } else {
        h->st->responses_4xx++;
        send_text(c, h, "404 Not Found", "text/plain", not_found, sizeof(not_found) - 1, head, NULL, now_ns);
    }
}

static void close_conn(struct tcp_conn *c, struct http_conn *h, uint64_t now_ns)
{
    h->closing = true;
    tcp_close(c, now_ns);
}

/* After the blank line ending the request's header, or 0: lines end in
 * CRLF or, as RFC 9112 2.2 lets a recipient take them, a bare LF (nc
 * typed into by hand). The first `from` bytes were searched already (a
 * header that comes a few bytes a segment is not searched anew each
 * time): only an end that reaches past them can be new. */
static size_t header_end(const char *r, size_t len, size_t from)
{
    for (size_t i = from > 2 ? from - 2 : 0; i + 1 < len; i++) {
        if (r[i] != '\n')
            continue;
        if (r[i + 1] == '\n')
            return i + 2;
        if (r[i + 1] == '\r' && i + 2 < len && r[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* The first n bytes of the request buffer are done with. */
static void consume(struct http_conn *h, size_t n)
{
    if (n == 0) /* the usual case: serve asks after every segment */
        return;
    net_memmove(h->req, h->req + n, h->req_len - n);
    h->req_len = (uint16_t)(h->req_len - n);
    h->scanned = (uint16_t)(h->scanned > n ? h->scanned - n : 0);
}

/* Bring what was received into the request buffer, as far as it has room,
 * reading past the last request's body (from the buffer, where it starts,
 * then from what is held); the window reopens by what was taken. */
static void take_input(struct tcp_conn *c, struct http_conn *h, uint64_t now_ns)
{
    size_t n = h->skip < h->req_len ? (size_t)h->skip : h->req_len;
    consume(h, n);
    h->skip -= n;
    while (h->hold.head && (h->skip || h->req_len < REQ_MAX)) {
        struct pkt *p = h->hold.head;
        if (h->skip) {
            n = h->skip < p->len ? (size_t)h->skip : p->len;
            h->skip -= n;
        } else {
            n = REQ_MAX - h->req_len < p->len ? REQ_MAX - h->req_len : p->len;
            net_memcpy(h->req + h->req_len, p->data, n);
            h->req_len = (uint16_t)(h->req_len + n);
        }
        pkt_pull(p, (uint32_t)n);
        tcp_recved(c, (uint32_t)n, now_ns);
        if (p->len == 0)
            pkt_free(pkt_queue_pop(&h->hold));
    }
}

/* Answer what is complete in the buffer, one response at a time: a body
 * that does not fit the send queue now is continued from acked, and so is
 * a request waiting for ANSWER_ROOM. */
static void serve(struct tcp_conn *c, struct http_conn *h, uint64_t now_ns)
{
    while (!h->closing && !h->capturing) {
        if (h->body_left) {
            if (!send_body(c, h, now_ns))
                return;
            if (h->close_after) {
                close_conn(c, h, now_ns);
                return;
            }
        }
        take_input(c, h, now_ns);
        size_t blank = 0; /* empty lines before a request line: ignored (RFC 9112 2.2) */
        while (!h->skip && blank < h->req_len && (h->req[blank] == '\r' || h->req[blank] == '\n'))
            blank++;
        consume(h, blank);
        size_t end = h->skip ? 0 : header_end(h->req, h->req_len, h->scanned);
        if (!h->skip && end == 0)
            h->scanned = h->req_len;
        if (end == 0 && h->req_len == REQ_MAX) { /* a header longer than the buffer */
            refuse(c, h, "431 Request Header Fields Too Large", "request header fields too large\n", now_ns);
            close_conn(c, h, now_ns);
            return;
        }
        if (end == 0) {
            if (h->peer_done && !h->hold.head)
                close_conn(c, h, now_ns);
            return;
        }
        /* (With a tiny MSS, the queue's slots, a segment each, hold less
         * than ANSWER_ROOM: then an empty queue is the most there is.) */
        uint32_t room = tcp_sndbuf(c);
        if (room < ANSWER_ROOM && (room == 0 || !tcp_conn_sq_empty(c)))
            return;
        answer(c, h, h->req, end, now_ns);
        consume(h, end);
        if (!h->body_left && !h->capturing && h->close_after) {
            close_conn(c, h, now_ns);
            return;
        }
    }
}

static void accepted(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct http_stats *st = ctx;
    struct pkt *p = pkt_alloc(tcp_conn_stack(c)->pool);
    if (p == NULL) {
        tcp_abort(c, now_ns);
        return;
    }
    struct http_conn *h = (struct http_conn *)(void *)pkt_buf_start(p);
    net_memset(h, 0, sizeof(*h));
    h->self = p;
    h->st = st;
    st->connections++;
    st->open++;
    tcp_set_ctx(c, &http_cb, h);
    tcp_set_manual_window(c, true);
}

static void recv_data(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct http_conn *h = ctx;
    if (h->closing) {
        tcp_recved(c, p->len, now_ns);
        pkt_free(p);
        return;
    }
    /* Into the last buffer held while it has room: the window counts
     * bytes, so a client sending a byte a segment would otherwise hold a
     * buffer a byte of the pool the core receives into, and once that ran
     * dry nothing more would come in, its reset neither. */
    struct pkt *t = h->hold.tail;
    if (t && t->refs == 0 && p->len <= pkt_tailroom(t)) {
        net_memcpy(t->data + t->len, p->data, p->len);
        t->len = (uint16_t)(t->len + p->len);
        pkt_free(p);
    } else {
        pkt_queue_push(&h->hold, p);
    }
    serve(c, h, now_ns);
}

/* Room again: the rest of a body, or the requests waiting. */
static void acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now_ns)
{
    struct http_conn *h = ctx;
    if (h->capturing)
        stream_capture(c, h, now_ns);
    else if (!h->closing && (h->body_left || h->req_len || h->hold.head))
        serve(c, h, now_ns);
}

static void peer_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct http_conn *h = ctx;
    h->peer_done = true;
    if (!h->body_left && !h->closing)
        serve(c, h, now_ns);
}

static void closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    struct http_conn *h = ctx;
    if (h->capturing && capture.stop) /* the client went first */
        capture.stop(capture.ctx);
    h->st->open--;
    pkt_queue_free(&h->hold);
    pkt_free(h->self);
}

static const struct tcp_callbacks http_cb = {
    .recv = recv_data,
    .acked = acked,
    .peer_fin = peer_fin,
    .closed = closed,
};

static const struct tcp_callbacks listen_cb = {.accepted = accepted};

int http_start(struct net_stack *s, uint16_t port)
{
    if (s->core >= HTTP_MAX_CORES)
        return -1;
    for (uint32_t i = 0; i < sizeof(pattern); i++)
        pattern[i] = (uint8_t)(i % HTTP_BODY_MOD);
    if (tcp_listen(s, port, &listen_cb, &stats[s->core]) != 0)
        return -1;
    return tcp_listen_idle(s, port, HTTP_IDLE_NS);
}
