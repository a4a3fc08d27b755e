/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/capture.c: packet capture. `capture PORT [rx|tx|drop|any]
 * [count N] [match ...]` prints a line a packet on the console; the http
 * app's /capture.pcap streams the same as pcapng (app_capture_*). One
 * capture at a time. While it runs, every core's stack has a tap
 * (net_tap): the poll loop shows it what it received, the stack what it
 * sends, the forwarding path what it drops and why; each core copies what
 * passes the filter into its own ring (net/capture/capture.h), and counts
 * what does not fit instead of waiting. The core that started the capture
 * reads every ring, oldest packet first, on a 10 ms timer. With no capture
 * the taps are NULL: a test a burst. */
#include "netsvc_impl.h"

#include "kernel/app.h"
#include "kernel/console/cli.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/mem/heap.h"
#include "kernel/platform/percpu.h"
#include "kernel/ports.h"
#include "kernel/time.h"
#include "lib/fmt.h"

#define READ_PERIOD_NS 10000000ull
/* The console is a polled serial line (kernel/console/console.c): a line
 * holds core 0 about 8 ms at 115200 baud. At most two lines every 50 ms,
 * then, so that a capture there costs core 0 a third of its time at
 * worst; the rings keep the rest, and count what they cannot. For more,
 * the http app's /capture.pcap. */
#define CONSOLE_PERIOD_NS 50000000ull
#define LINES_A_TICK 2

static struct {
    bool active, console;
    struct cap_filter f;
    uint32_t want, got;
    unsigned reader;           /* the core reading the rings */
    uint64_t lost0;            /* the rings' lost counts at the start */
    struct loop_timer timer;
    void (*wake)(void *conn, uint64_t now_ns);
    void *conn;
    bool header_sent;
    /* A sub-interface's capture: its frames on the parent's taps are those
     * with its tags (they leave and come in tagged), and are kept as the
     * parent's; its drops come untagged, as its own. */
    int sub, parent;
    uint8_t tags[8];
    unsigned ntags;
} cap;
static struct cap_ring rings[64];

static bool sub_frame(uint16_t port, const struct pkt *p)
{
    if (port != cap.parent)
        return true;
    if (p->len < 12 + 4 * cap.ntags + 2)
        return false;
    for (unsigned k = 0; k < cap.ntags; k++) { /* each tag's TPID and VID (priority and DEI aside) */
        const uint8_t *t = p->data + 12 + 4 * k, *want = cap.tags + 4 * k;
        if (t[0] != want[0] || t[1] != want[1] || ((t[2] ^ want[2]) & 0x0f) || t[3] != want[3])
            return false;
    }
    return true;
}

static void tap(void *ctx, uint16_t port, uint8_t dir, struct pkt *const *p, uint16_t n, const char *why)
{
    struct cap_ring *r = ctx;
    if (port >= 32 || !((cap.f.ports >> port) & 1) || !(cap.f.dirs & dir))
        return;
    uint64_t now = time_now_ns();
    for (uint16_t i = 0; i < n; i++)
        if ((cap.sub < 0 || sub_frame(port, p[i])) && cap_match(&cap.f, p[i]->data, p[i]->len))
            cap_put(r, now, cap.sub == port ? (uint16_t)cap.parent : port, dir, why, p[i]);
}

static uint64_t lost(void)
{
    uint64_t n = 0;
    for (unsigned c = 0; c < netsvc.ncores; c++)
        n += rings[c].lost;
    return n;
}

/* The oldest record in any ring, NULL when all are empty; *ring its. */
static const struct cap_rec *oldest(struct cap_ring **ring)
{
    const struct cap_rec *best = NULL;
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        const struct cap_rec *r = cap_peek(&rings[c]);
        if (r && (!best || r->ts_ns < best->ts_ns)) {
            best = r;
            *ring = &rings[c];
        }
    }
    return best;
}

static void stop(void)
{
    if (!cap.active)
        return;
    for (unsigned c = 0; c < netsvc.ncores; c++)
        atomic_store_explicit(&netsvc.core[c]->stack.tap, NULL, memory_order_release);
    loop_timer_cancel(&cap.timer);
    cap.active = false;
    if (cap.console)
        kprintf("capture: %u packets, %llu not kept (the rings were full)\n", cap.got,
                (unsigned long long)(lost() - cap.lost0));
}

static bool finished(void) { return cap.want && cap.got >= cap.want; }

/* A line as tcpdump's: time since boot, port, direction, then the
 * headers. */
static void print(const struct cap_rec *r)
{
    static const char *const dirs[8] = {[CAP_RX] = "rx", [CAP_TX] = "tx", [CAP_DROP] = "drop"};
    struct cap_summary s;
    char a[48], b[48], line[200];
    size_t n = fmt_snprintf(line, sizeof line, "%llu.%06llu %s %s ", (unsigned long long)(r->ts_ns / 1000000000),
                            (unsigned long long)(r->ts_ns / 1000 % 1000000), netsvc_port_name(r->port),
                            dirs[r->dir & 7]);
    if (!cap_summarize(r->data, r->caplen, &s)) {
        n += fmt_snprintf(line + n, sizeof line - n, "runt, length %u", r->len);
    } else if (s.ip) {
        if (s.ip == 4) {
            uint32_t x, y;
            memcpy(&x, s.src, 4);
            memcpy(&y, s.dst, 4);
            fmt_ip(a, sizeof a, x);
            fmt_ip(b, sizeof b, y);
        } else {
            fmt_ip6(a, sizeof a, s.src);
            fmt_ip6(b, sizeof b, s.dst);
        }
        const char *proto = s.proto == 6 ? "TCP" : s.proto == 17 ? "UDP" : s.proto == 1 ? "ICMP" : s.proto == 58 ? "ICMP6" : NULL;
        if (s.sport >= 0)
            n += fmt_snprintf(line + n, sizeof line - n, "IP%s %s.%d > %s.%d: %s", s.ip == 6 ? "6" : "", a, (int)s.sport,
                              b, (int)s.dport, proto);
        else
            n += fmt_snprintf(line + n, sizeof line - n, "IP%s %s > %s: ", s.ip == 6 ? "6" : "", a, b);
        if (s.sport < 0 && proto)
            n += fmt_snprintf(line + n, sizeof line - n, "%s", proto);
        else if (s.sport < 0)
            n += fmt_snprintf(line + n, sizeof line - n, "proto %d", (int)s.proto);
        if (s.proto == 6 && s.sport >= 0) {
            static const char flag[] = "FSRPAUEC";
            char fl[9];
            size_t k = 0;
            for (int i = 0; i < 8; i++)
                if ((s.tcp_flags >> i) & 1)
                    fl[k++] = flag[i];
            fl[k] = 0;
            n += fmt_snprintf(line + n, sizeof line - n, " [%s]", fl);
        }
        if (s.sport < 0 && (s.proto == 1 || s.proto == 58))
            n += fmt_snprintf(line + n, sizeof line - n, " type %u", s.icmp_type);
        n += fmt_snprintf(line + n, sizeof line - n, ", length %u", s.ip_len);
    } else {
        n += fmt_snprintf(line + n, sizeof line - n, "ethertype 0x%04x, length %u", s.ethertype, r->len);
    }
    if (s.vlan)
        n += fmt_snprintf(line + n, sizeof line - n, " (vlan %u)", s.vlan);
    if (r->dir == CAP_DROP)
        n += fmt_snprintf(line + n, sizeof line - n, " (%s)", r->reason);
    kprintf("%s\n", line);
}

static void tick(void *arg, uint64_t now)
{
    if (!cap.active)
        return;
    if (cap.console) {
        struct cap_ring *ring;
        const struct cap_rec *r;
        for (int i = 0; i < LINES_A_TICK && !finished() && (r = oldest(&ring)) != NULL; i++) {
            print(r);
            cap_done(ring);
            cap.got++;
        }
        if (finished()) {
            stop();
            return;
        }
    } else {
        cap.wake(cap.conn, now); /* it reads (app_capture_read) as its connection takes more */
    }
    loop_timer_arm(&cap.timer, now + (cap.console ? CONSOLE_PERIOD_NS : READ_PERIOD_NS));
}

/* The words after `capture`: start one, on this core (for the http app:
 * wake(conn) while it runs). */
static int start(int argc, char **argv, bool console, void (*wake)(void *conn, uint64_t now_ns), void *conn,
                 char *err, size_t errlen)
{
    if (cap.active) {
        fmt_snprintf(err, errlen, "a capture is running (`capture stop` ends it)");
        return -1;
    }
    int port = argc >= 1 ? netsvc_port_index(argv[0], false) : -1;
    if (port < 0 || port >= 32) {
        fmt_snprintf(err, errlen, "no port '%s'", argc >= 1 ? argv[0] : "");
        return -1;
    }
    uint32_t count;
    if (cap_filter_parse(&cap.f, argc - 1, argv + 1, &count, err, errlen) != 0)
        return -1;
    cap.sub = cap.parent = -1;
    if (netsvc_subif_of(port, &cap.parent, cap.tags, &cap.ntags)) {
        cap.sub = port;
        cap.f.ports = 1u << cap.parent;
    }
    cap.f.ports |= 1u << port;
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        if (!rings[c].r && !(rings[c].r = heap_alloc(CAP_RING * sizeof(struct cap_rec)))) {
            fmt_snprintf(err, errlen, "no memory for the capture's rings");
            return -1;
        }
        atomic_store_explicit(&rings[c].tail, atomic_load_explicit(&rings[c].head, memory_order_acquire),
                              memory_order_relaxed);
    }
    cap.want = count;
    cap.got = 0;
    cap.wake = wake;
    cap.conn = conn;
    cap.console = console;
    cap.header_sent = false;
    cap.lost0 = lost();
    cap.reader = cpu_index();
    cap.active = true;
    for (unsigned c = 0; c < netsvc.ncores; c++) {
        netsvc.core[c]->stack.tap_ctx = &rings[c];
        atomic_store_explicit(&netsvc.core[c]->stack.tap, tap, memory_order_release);
    }
    loop_timer_init(&cap.timer, tick, NULL);
    loop_timer_arm(&cap.timer, time_now_ns() + READ_PERIOD_NS);
    return 0;
}

static void cmd_capture(const struct cli_args *a)
{
    char err[128];
    if (a->argc == 1 && strcmp(a->argv[0], "stop") == 0) {
        if (cap.active && cap.console)
            stop();
        else
            kprintf("capture: none running from the console\n");
        return;
    }
    if (start(a->argc, a->argv, true, NULL, NULL, err, sizeof err) != 0)
        kprintf("capture: %s\n", err);
}

/* ---- /capture.pcap (apps/http.h's struct http_capture) ---- */

int app_capture_start(void *ctx, int argc, char **argv, void (*wake)(void *conn, uint64_t now_ns), void *conn,
                      char *err, size_t errlen)
{
    return start(argc, argv, false, wake, conn, err, errlen);
}

size_t app_capture_read(void *ctx, uint8_t *buf, size_t n, bool *done)
{
    if (cap.active && !cap.console && finished())
        stop();
    *done = !cap.active || cap.console;
    if (*done)
        return 0;
    if (!cap.header_sent) {
        const char *names[32];
        unsigned np = 0;
        for (; np < 32 && np < (unsigned)ports_count(); np++)
            names[np] = ports_get(np)->name;
        size_t k = cap_pcapng_header(buf, n, names, np);
        cap.header_sent = k != 0;
        return k;
    }
    struct cap_ring *ring;
    const struct cap_rec *r = oldest(&ring);
    size_t k = r ? cap_pcapng_packet(buf, n, r) : 0;
    if (k) {
        cap_done(ring);
        cap.got++;
    }
    return k;
}

void app_capture_stop(void *ctx)
{
    if (cap.active && !cap.console)
        stop();
}

void netsvc_capture_init(void)
{
    cli_register("capture", "capture PORT [rx|tx|drop|any] [count N] [match host A|net P|proto P|port N ...] | stop",
                 "print the port's packets as they pass, a line each", cmd_capture);
}
