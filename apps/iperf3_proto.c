/* SPDX-License-Identifier: MIT */
/* apps/iperf3_proto.c: the iperf3 wire formats that can be parsed
 * without a network (apps/iperf3.h): the cookie, the parameters JSON
 * (send_parameters in esnet/iperf src/iperf_api.c), the client's results
 * JSON (send_results) and ours (what get_results reads), with the server
 * output text --get-server-output asks for.
 *
 * Everything here reads untrusted bytes: a small validating JSON scanner
 * (RFC 8259: objects, arrays, strings with their escapes, numbers, true,
 * false, null; at most SCAN_DEPTH levels) that calls back for each scalar
 * with the path to it. Anything malformed is an error, never a crash. */
#include "iperf3.h"

#include "lib/fmt.h"
#include "lib/json.h"
#include "net/core/core.h"

#define SCAN_DEPTH 8

struct jpath_elem {
    const char *key;            /* NULL inside an array */
    size_t key_len;
    uint32_t idx;               /* inside an array */
};

struct jnum {
    bool neg;
    uint64_t value;             /* integral part, saturated */
};

enum jtype { J_NUM, J_STR, J_TRUE, J_FALSE, J_NULL };

typedef void (*jscalar_fn)(void *ctx, const struct jpath_elem *path, int depth, enum jtype type,
                           const struct jnum *num);

struct jscan {
    const char *s;
    size_t n, i;
    jscalar_fn fn;
    void *ctx;
    struct jpath_elem path[SCAN_DEPTH];
};

bool iperf3_cookie_ok(const uint8_t *cookie)
{
    for (int i = 0; i < IPERF3_COOKIE_LEN - 1; i++)
        if (cookie[i] < 0x21 || cookie[i] > 0x7e)
            return false;
    return cookie[IPERF3_COOKIE_LEN - 1] == 0;
}

static void skip_ws(struct jscan *js)
{
    while (js->i < js->n && (js->s[js->i] == ' ' || js->s[js->i] == '\t' || js->s[js->i] == '\n' ||
                             js->s[js->i] == '\r'))
        js->i++;
}

static bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* A string at js->i; its raw bytes (escapes left as they are). */
static bool scan_string(struct jscan *js, const char **start, size_t *len)
{
    if (js->i >= js->n || js->s[js->i] != '"')
        return false;
    size_t b = ++js->i;
    while (js->i < js->n) {
        unsigned char c = (unsigned char)js->s[js->i];
        if (c == '"') {
            *start = js->s + b;
            *len = js->i - b;
            js->i++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (js->i + 1 >= js->n)
                return false;
            char e = js->s[js->i + 1];
            if (e == 'u') {
                if (js->i + 6 > js->n)
                    return false;
                for (int k = 2; k < 6; k++)
                    if (!is_hex(js->s[js->i + k]))
                        return false;
                js->i += 6;
                continue;
            }
            if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't')
                return false;
            js->i += 2;
            continue;
        }
        js->i++;
    }
    return false;
}

static bool digit(const struct jscan *js) { return js->i < js->n && js->s[js->i] >= '0' && js->s[js->i] <= '9'; }

/* RFC 8259 section 6; value is the integral part (cJSON writes integral
 * doubles like 3e+09 too), saturating at UINT64_MAX. */
static bool scan_number(struct jscan *js, struct jnum *out)
{
    uint64_t mant = 0;
    int frac = 0;
    bool sat = false;
    out->neg = false;
    if (js->i < js->n && js->s[js->i] == '-') {
        out->neg = true;
        js->i++;
    }
    if (!digit(js))
        return false;
    if (js->s[js->i] == '0') {
        js->i++;
    } else {
        for (; digit(js); js->i++) {
            unsigned d = (unsigned)(js->s[js->i] - '0');
            if (mant > (UINT64_MAX - d) / 10)
                sat = true;
            else
                mant = mant * 10 + d;
        }
    }
    if (js->i < js->n && js->s[js->i] == '.') {
        js->i++;
        if (!digit(js))
            return false;
        for (; digit(js); js->i++) {
            unsigned d = (unsigned)(js->s[js->i] - '0');
            if (!sat && mant <= (UINT64_MAX - d) / 10) {
                mant = mant * 10 + d;
                frac++;
            }
        }
    }
    int64_t exp = 0;
    if (js->i < js->n && (js->s[js->i] == 'e' || js->s[js->i] == 'E')) {
        bool eneg = false;
        js->i++;
        if (js->i < js->n && (js->s[js->i] == '+' || js->s[js->i] == '-'))
            eneg = js->s[js->i++] == '-';
        if (!digit(js))
            return false;
        for (; digit(js); js->i++)
            if (exp < 100000)
                exp = exp * 10 + (js->s[js->i] - '0');
        if (eneg)
            exp = -exp;
    }
    exp -= frac;
    for (; exp < 0 && mant; exp++)
        mant /= 10;
    for (; exp > 0 && !sat && mant; exp--) { /* (0e99999 is 0, at once) */
        if (mant > UINT64_MAX / 10)
            sat = true;
        else
            mant *= 10;
    }
    out->value = sat ? UINT64_MAX : mant;
    return true;
}

static bool scan_word(struct jscan *js, const char *w)
{
    size_t k = 0;
    for (; w[k]; k++)
        if (js->i + k >= js->n || js->s[js->i + k] != w[k])
            return false;
    js->i += k;
    return true;
}

static bool scan_value(struct jscan *js, int depth);

static bool scan_object(struct jscan *js, int depth)
{
    js->i++; /* '{' */
    skip_ws(js);
    if (js->i < js->n && js->s[js->i] == '}') {
        js->i++;
        return true;
    }
    for (;;) {
        const char *k;
        size_t klen;
        skip_ws(js);
        if (!scan_string(js, &k, &klen))
            return false;
        skip_ws(js);
        if (js->i >= js->n || js->s[js->i] != ':')
            return false;
        js->i++;
        js->path[depth] = (struct jpath_elem){.key = k, .key_len = klen};
        if (!scan_value(js, depth + 1))
            return false;
        skip_ws(js);
        if (js->i >= js->n)
            return false;
        if (js->s[js->i] == '}') {
            js->i++;
            return true;
        }
        if (js->s[js->i] != ',')
            return false;
        js->i++;
    }
}

static bool scan_array(struct jscan *js, int depth)
{
    js->i++; /* '[' */
    skip_ws(js);
    if (js->i < js->n && js->s[js->i] == ']') {
        js->i++;
        return true;
    }
    for (uint32_t idx = 0;; idx++) {
        js->path[depth] = (struct jpath_elem){.key = NULL, .idx = idx};
        if (!scan_value(js, depth + 1))
            return false;
        skip_ws(js);
        if (js->i >= js->n)
            return false;
        if (js->s[js->i] == ']') {
            js->i++;
            return true;
        }
        if (js->s[js->i] != ',')
            return false;
        js->i++;
    }
}

/* A value whose path is path[0..depth). */
static bool scan_value(struct jscan *js, int depth)
{
    skip_ws(js);
    if (js->i >= js->n)
        return false;
    char c = js->s[js->i];
    struct jnum num = {0};
    enum jtype type;
    if (c == '{' || c == '[') {
        if (depth >= SCAN_DEPTH)
            return false;
        return c == '{' ? scan_object(js, depth) : scan_array(js, depth);
    }
    if (c == '"') {
        const char *s;
        size_t len;
        if (!scan_string(js, &s, &len))
            return false;
        type = J_STR;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (!scan_number(js, &num))
            return false;
        type = J_NUM;
    } else if (scan_word(js, "true")) {
        type = J_TRUE;
    } else if (scan_word(js, "false")) {
        type = J_FALSE;
    } else if (scan_word(js, "null")) {
        type = J_NULL;
    } else {
        return false;
    }
    js->fn(js->ctx, js->path, depth, type, &num);
    return true;
}

/* The whole of s[0..n) is one object. */
static int scan(const char *s, size_t n, jscalar_fn fn, void *ctx)
{
    struct jscan js = {.s = s, .n = n, .fn = fn, .ctx = ctx};
    skip_ws(&js);
    if (js.i >= n || s[js.i] != '{' || !scan_value(&js, 0))
        return -1;
    skip_ws(&js);
    return js.i == n ? 0 : -1;
}

static bool key_is(const struct jpath_elem *e, const char *k)
{
    size_t n = 0;
    while (k[n])
        n++;
    return e->key && e->key_len == n && net_memcmp(e->key, k, n) == 0;
}

/* A non-negative integer, clamped to max; 0 for anything else. */
static uint64_t num_u(enum jtype type, const struct jnum *num, uint64_t max)
{
    if (type != J_NUM || num->neg)
        return 0;
    return num->value > max ? max : num->value;
}

static void params_scalar(void *ctx, const struct jpath_elem *path, int depth, enum jtype type,
                          const struct jnum *num)
{
    struct iperf3_params *p = ctx;
    if (depth != 1)
        return;
    const struct jpath_elem *k = &path[0];
    if (key_is(k, "tcp"))
        p->tcp = true;
    else if (key_is(k, "udp"))
        p->udp = true;
    else if (key_is(k, "sctp"))
        p->sctp = true;
    else if (key_is(k, "reverse"))
        p->reverse = true;
    else if (key_is(k, "bidirectional"))
        p->bidir = true;
    else if (key_is(k, "parallel"))
        p->parallel = (uint32_t)num_u(type, num, UINT32_MAX);
    else if (key_is(k, "time"))
        p->time_s = (uint32_t)num_u(type, num, UINT32_MAX);
    else if (key_is(k, "omit"))
        p->omit_s = (uint32_t)num_u(type, num, UINT32_MAX);
    else if (key_is(k, "len"))
        p->len = num_u(type, num, UINT64_MAX);
    else if (key_is(k, "num"))
        p->num = num_u(type, num, UINT64_MAX);
    else if (key_is(k, "blockcount"))
        p->blockcount = num_u(type, num, UINT64_MAX);
    else if (key_is(k, "get_server_output"))
        p->get_server_output = num_u(type, num, 1) != 0;
    else if (key_is(k, "bandwidth"))
        p->bandwidth = num_u(type, num, UINT64_MAX);
    else if (key_is(k, "udp_counters_64bit"))
        p->udp_counters_64bit = true;
}

int iperf3_parse_params(const char *json, size_t len, struct iperf3_params *out)
{
    net_memset(out, 0, sizeof(*out));
    out->parallel = 1;
    return scan(json, len, params_scalar, out);
}

static void results_scalar(void *ctx, const struct jpath_elem *path, int depth, enum jtype type,
                           const struct jnum *num)
{
    struct iperf3_peer_results *r = ctx;
    if (depth != 3 || !key_is(&path[0], "streams") || path[1].key != NULL)
        return;
    uint32_t i = path[1].idx;
    if (i >= IPERF3_MAX_STREAMS) {
        r->too_many = true;
        return;
    }
    if (i >= r->nstreams)
        r->nstreams = i + 1;
    if (key_is(&path[2], "id") && type == J_NUM) {
        uint64_t v = num->value > INT64_MAX ? INT64_MAX : num->value;
        r->id[i] = num->neg ? -(int64_t)v : (int64_t)v;
    } else if (key_is(&path[2], "bytes")) {
        uint64_t b = num_u(type, num, UINT64_MAX / 2 / IPERF3_MAX_STREAMS);
        r->total += b - r->bytes[i];
        r->bytes[i] = b;
    }
}

int iperf3_parse_results(const char *json, size_t len, struct iperf3_peer_results *out)
{
    net_memset(out, 0, sizeof(*out));
    return scan(json, len, results_scalar, out);
}

bool iperf3_udp_account(struct iperf3_udp_rx *rx, const uint8_t *d, uint32_t len, bool c64, uint64_t now_ns)
{
    if (len < iperf3_udp_hdr_len(c64))
        return false;
    uint32_t w[4];
    net_memcpy(w, d, 16 - (c64 ? 0 : 4));
    uint64_t sent_ns = (uint64_t)net_ntohl(w[0]) * 1000000000ull + (uint64_t)net_ntohl(w[1]) * 1000ull;
    uint64_t n = c64 ? (uint64_t)net_ntohl(w[2]) << 32 | net_ntohl(w[3]) : net_ntohl(w[2]);
    bool first = rx->bytes == 0;
    rx->bytes += len;
    if (n > rx->packets) {
        rx->lost += n - 1 - rx->packets; /* a gap: lost, unless it comes late */
        rx->packets = n;
    } else {
        rx->out_of_order++;
        if (rx->lost)
            rx->lost--;
    }
    /* The clocks need not agree: only the change in transit time counts. */
    int64_t transit = (int64_t)(now_ns - sent_ns);
    if (first)
        rx->prev_transit_ns = transit;
    int64_t dt = transit - rx->prev_transit_ns;
    uint64_t adt = (uint64_t)(dt < 0 ? -dt : dt);
    rx->prev_transit_ns = transit;
    rx->jitter_ns = adt >= rx->jitter_ns ? rx->jitter_ns + (adt - rx->jitter_ns) / 16
                                         : rx->jitter_ns - (rx->jitter_ns - adt) / 16;
    return true;
}

void iperf3_udp_header(uint8_t *d, uint64_t now_ns, uint64_t n, bool c64)
{
    uint32_t w[4] = {net_htonl((uint32_t)(now_ns / 1000000000ull)),
                     net_htonl((uint32_t)(now_ns % 1000000000ull / 1000)), 0, 0};
    if (c64) {
        w[2] = net_htonl((uint32_t)(n >> 32));
        w[3] = net_htonl((uint32_t)n);
    } else {
        w[2] = net_htonl((uint32_t)n);
    }
    net_memcpy(d, w, iperf3_udp_hdr_len(c64));
}

struct buf_sink {
    char *buf;
    size_t cap, len;
};

static void buf_put(void *ctx, char c)
{
    struct buf_sink *b = ctx;
    if (b->len < b->cap)
        b->buf[b->len] = c;
    b->len++;
}

/* value in iperf3's unit_snprintf style: the largest of units[0..3] (each
 * scale times the last) it reaches, the number 4 wide with 2, 1 or 0
 * decimals below 9.995, 99.95 and above. */
static void put_unit(char *buf, size_t cap, uint64_t value, uint64_t scale, const char *const units[4])
{
    int u = 0;
    uint64_t div = 1;
    while (u < 3 && value >= div * scale)
        div *= scale, u++;
    uint64_t x100 = (value * 100 + div / 2) / div, x10 = (x100 + 5) / 10; /* in hundredths, tenths */
    char num[24];
    if (x100 < 995)
        fmt_snprintf(num, sizeof num, "%lu.%02lu", (unsigned long)(x100 / 100), (unsigned long)(x100 % 100));
    else if (x10 < 1000)
        fmt_snprintf(num, sizeof num, "%lu.%lu", (unsigned long)(x10 / 10), (unsigned long)(x10 % 10));
    else
        fmt_snprintf(num, sizeof num, "%lu", (unsigned long)((x10 + 5) / 10));
    fmt_snprintf(buf, cap, "%4s %s", num, units[u]);
}

/* UDP's columns: jitter in ms, lost/total datagrams and the share lost
 * (iperf3 prints it with %.2g: two significant digits). */
static void udp_columns(char *buf, size_t cap, uint64_t jitter_ns, uint64_t lost, uint64_t packets)
{
    uint64_t us = (jitter_ns + 500) / 1000, pm = packets ? lost * 100000 / packets : 0; /* thousandths of % */
    char pct[16];
    if (pm >= 10000 || pm % 1000 == 0)
        fmt_snprintf(pct, sizeof pct, "%lu", (unsigned long)((pm + 500) / 1000));
    else if (pm >= 1000)
        fmt_snprintf(pct, sizeof pct, "%lu.%lu", (unsigned long)(pm / 1000), (unsigned long)(pm % 1000 / 100));
    else
        fmt_snprintf(pct, sizeof pct, "0.%03lu", (unsigned long)pm);
    fmt_snprintf(buf, cap, "%lu.%03lu ms  %lu/%lu (%s%%)  ", (unsigned long)(us / 1000), (unsigned long)(us % 1000),
                 (unsigned long)lost, (unsigned long)packets, pct);
}

static size_t text_line(char *buf, size_t cap, const char *id, uint64_t bytes, uint64_t us, const char *udp,
                        const char *role)
{
    static const char *const bunits[4] = {"Bytes", "KBytes", "MBytes", "GBytes"};
    static const char *const runits[4] = {"bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec"};
    char t[24], b[24];
    put_unit(t, sizeof t, bytes, 1024, bunits);
    /* bytes * 8e6 / us in two parts: the product wrapped past 2.3 TB */
    put_unit(b, sizeof b, us ? bytes / us * 8000000 + bytes % us * 8000000 / us : 0, 1000, runits);
    int n = fmt_snprintf(buf, cap, "[%s]   0.00-%lu.%02lu  sec  %s  %s  %s%s\n", id, (unsigned long)(us / 1000000),
                         (unsigned long)(us % 1000000 / 10000), t, b, udp ? udp : "                ", role);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* The lines of one direction's streams (sends: ours), then their sum. */
static size_t text_direction(char *buf, size_t cap, const struct iperf3_report *r, bool sends)
{
    const char *role = sends ? "sender" : "receiver", *tag = !r->bidir ? "" : sends ? "[TX-S" : "[RX-S";
    uint64_t total = 0, lost = 0, packets = 0, jitter = 0;
    uint32_t lines = 0;
    size_t len = 0;
    char id[16], udp[64];
    for (uint32_t i = 0; i < r->nstreams && i < IPERF3_MAX_STREAMS; i++) {
        if (r->sends[i] != sends)
            continue;
        fmt_snprintf(id, sizeof id, "%3ld%s%s", (long)r->id[i], r->bidir ? "]" : "", tag);
        udp_columns(udp, sizeof udp, r->jitter_ns[i], r->lost[i], r->packets[i]);
        len += text_line(buf + len, cap - len, id, r->bytes[i], r->duration_us, r->udp ? udp : NULL, role);
        total += r->bytes[i];
        lost += r->lost[i];
        packets += r->packets[i];
        jitter += r->jitter_ns[i];
        lines++;
    }
    if (lines > 1) { /* the sum's jitter is the streams' mean, as iperf3's */
        fmt_snprintf(id, sizeof id, "SUM%s%s", r->bidir ? "]" : "", tag);
        udp_columns(udp, sizeof udp, jitter / lines, lost, packets);
        len += text_line(buf + len, cap - len, id, total, r->duration_us, r->udp ? udp : NULL, role);
    }
    return len;
}

size_t iperf3_server_text(char *buf, size_t cap, const struct iperf3_report *r)
{
    int n = fmt_snprintf(buf, cap, "[ ID]%s Interval           Transfer     Bitrate%s\n", r->bidir ? "[Role]" : "",
                         r->udp ? "         Jitter    Lost/Total Datagrams" : "");
    size_t len = n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
    len += text_direction(buf + len, cap - len, r, false);
    return len + text_direction(buf + len, cap - len, r, true);
}

size_t iperf3_format_results(char *buf, size_t cap, const struct iperf3_report *r)
{
    struct buf_sink b = {buf, cap, 0};
    struct json j;
    json_init(&j, buf_put, &b);
    json_obj_begin(&j, NULL);
    json_fixed(&j, "cpu_util_total", 0, 6); /* not measured */
    json_fixed(&j, "cpu_util_user", 0, 6);
    json_fixed(&j, "cpu_util_system", 0, 6);
    /* -1: we only received; 1: we sent TCP, each sending stream has its
     * count (the client's Retr column); 0: we sent UDP. */
    bool sent = false;
    for (uint32_t i = 0; i < r->nstreams && i < IPERF3_MAX_STREAMS; i++)
        sent |= r->sends[i];
    json_i64(&j, "sender_has_retransmits", !sent ? -1 : r->udp ? 0 : 1);
    json_str(&j, "congestion_used", "cubic");
    json_arr_begin(&j, "streams");
    for (uint32_t i = 0; i < r->nstreams && i < IPERF3_MAX_STREAMS; i++) {
        json_obj_begin(&j, NULL);
        json_i64(&j, "id", r->id[i]);
        json_u64(&j, "bytes", r->bytes[i]);
        json_i64(&j, "retransmits", r->sends[i] && !r->udp ? (int64_t)r->retransmits[i] : -1);
        json_fixed(&j, "jitter", r->jitter_ns[i], 9); /* seconds */
        json_u64(&j, "errors", r->lost[i]);
        json_u64(&j, "packets", r->packets[i]);
        json_u64(&j, "start_time", 0);
        json_fixed(&j, "end_time", r->duration_us, 6);
        json_obj_end(&j);
    }
    json_arr_end(&j);
    if (r->server_output) {
        char text[100 * (IPERF3_MAX_STREAMS + 3)];
        iperf3_server_text(text, sizeof text, r);
        json_str(&j, "server_output_text", text);
    }
    json_obj_end(&j);
    return b.len <= cap ? b.len : 0;
}
