/* SPDX-License-Identifier: MIT */
/* tools/bench/tcp/tcp_bench.c: hayate's TCP beside lwIP 2.1.3, each as two
 * stack instances on an in-memory link, one thread (one core) running both
 * ends: 1-byte ping-pong transactions per second, bulk throughput for 1 KB,
 * 64 KB and 1 MB sends, and (under callgrind) instructions per ping-pong
 * transaction.
 *
 * The link is the same for both: a frame is copied once into a ring slot
 * when sent and once into a receive buffer when delivered (as a NIC's DMA
 * would), with checksum offload (TCP checksums neither made nor checked in
 * software, by either). The ping-pong's two stacks take turns within each
 * run (pingpong_pair); bulk runs alternate. Medians are printed as JSON
 * lines for tools/bench.py.
 *
 *   tcp_bench [--reps N] [--seconds S] [--pingpong-only]   timed figures
 *   tcp_bench --sweep [--reps N] [--seconds S]   ping-pong at 1, 8 and 128
 *                                             connections besides the headline's
 *                                             32 (how each stack scales)
 *   tcp_bench --cores [--reps N] [--seconds S]   the headline's ping-pong on 1, 2,
 *                                             4, ... cores at once (tcp_scale.c)
 *   tcp_bench --callgrind N                   instructions per transaction, both
 *                                             stacks, N transactions each under
 *                                             valgrind (runs itself with --count)
 *   tcp_bench --count hayate|lwip N           N transactions in measured_pingpong()
 *                                             (what callgrind --toggle-collect counts) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/net.h"
#include "net/tcp/tcp.h"
#include "apps/pingpong.h"
#include "tools/bench/tcp/tcp_bench.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Each stack's clock stops while the other runs (the ping-pong takes
 * turns, pingpong_pair): its timers see only its own time. */
static uint64_t paused_ns[2], left_ns[2];

static uint64_t stack_ns(enum stack st) { return now_ns() - paused_ns[st]; }

/* lwIP's clock (NO_SYS). */
unsigned sys_now(void);
unsigned sys_now(void) { return (unsigned)(stack_ns(LWIP) / 1000000u); }

/* ---- the link: a ring of frames per direction ---- */

/* A ring the size of a NIC's, slots of a frame and a cache line (an odd
 * number of lines apart, so that consecutive frames do not share cache
 * sets). */
#define RING 1024
#define SLOT (2048 + 64)

struct ring {
    uint8_t (*slot)[SLOT];
    uint16_t *len;
    uint32_t head, tail; /* head: next to deliver */
};

static struct ring rings[2][2]; /* [stack][to]: each stack its own link */
static struct ring *link_ring = rings[HAYATE]; /* the running stack's */
static uint64_t link_drops;

unsigned char *bench_link_slot(int from);
void bench_link_commit(int from, unsigned len);

unsigned char *bench_link_slot(int from)
{
    struct ring *r = &link_ring[!from];
    if (r->tail - r->head == RING) {
        link_drops++;
        return NULL;
    }
    return r->slot[r->tail % RING];
}

void bench_link_commit(int from, unsigned len)
{
    struct ring *r = &link_ring[!from];
    r->len[r->tail % RING] = (uint16_t)len;
    r->tail++;
}

/* st runs from now on: its link, its clock going again. */
static void switch_to(enum stack st)
{
    static int running = -1;
    uint64_t t = now_ns();
    if (running == (int)st)
        return;
    if (running >= 0)
        left_ns[running] = t;
    if (left_ns[st])
        paused_ns[st] += t - left_ns[st];
    link_ring = rings[st];
    running = (int)st;
}

/* st runs, on an empty link. */
static void link_reset(enum stack st)
{
    switch_to(st);
    for (int i = 0; i < 2; i++) {
        if (link_ring[i].slot == NULL) {
            link_ring[i].slot = aligned_alloc(64, (size_t)RING * SLOT);
            link_ring[i].len = calloc(RING, sizeof(uint16_t));
        }
        link_ring[i].head = link_ring[i].tail = 0;
    }
}

#define PP_CONNS_MAX 128 /* both arenas' (and lwIP's MEMP_NUM_TCP_PCB) */

static const uint8_t mac[2][6] = {{2, 0, 0, 0, 0x20, 1}, {2, 0, 0, 0, 0x20, 2}};
#define ADDR(i) NET_IP4(10, 0, 0, 1 + (i))

/* ---- hayate's side ---- */

struct hside {
    struct pkt_pool pool;
    void *mem;
    struct net_stack s;
    struct tcp_stack t;
    void *arena;
    struct netdev dev;
    int side;
};

static struct hside hs[2];

static uint16_t h_tx(struct netdev *dev, uint16_t q, struct pkt **pkts, uint16_t n)
{
    struct hside *h = (struct hside *)((char *)dev - offsetof(struct hside, dev));
    for (uint16_t i = 0; i < n; i++) {
        unsigned char *slot = bench_link_slot(h->side);
        if (slot) {
            memcpy(slot, pkts[i]->data, pkts[i]->len);
            bench_link_commit(h->side, pkts[i]->len);
        }
        pkt_free(pkts[i]); /* the "NIC" is done with it */
    }
    return n;
}

static uint16_t h_rx(struct netdev *dev, uint16_t q, struct pkt **pkts, uint16_t n) { return 0; }

static const struct netdev_ops h_ops = {.rx_burst = h_rx, .tx_burst = h_tx};

static void h_setup(void)
{
    for (int i = 0; i < 2; i++) {
        struct hside *h = &hs[i];
        size_t bytes = 8192u * PKT_BUF_SIZE;
        if (h->mem == NULL)
            h->mem = aligned_alloc(PKT_BUF_SIZE, bytes);
        pkt_pool_init(&h->pool, h->mem, 0x1000000ull * (i + 1), bytes);
        net_stack_init(&h->s, &h->pool, (uint32_t)i);
        memset(&h->dev, 0, sizeof(h->dev));
        memcpy(h->dev.mac, mac[i], 6);
        h->dev.mtu = 1500;
        h->dev.nqueues = 1;
        h->dev.ops = &h_ops;
        h->dev.link_up = true;
        h->dev.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM;
        h->side = i;
        net_iface_add(&h->s, &h->dev, 0, ADDR(i), 24);
        struct tcp_config cfg;
        tcp_config_default(&cfg);
        cfg.sq_slots = 512;
        size_t ab = tcp_arena_size(&cfg, PP_CONNS_MAX);
        free(h->arena);
        h->arena = aligned_alloc(64, (ab + 63) & ~(size_t)63);
        tcp_init(&h->s, &h->t, h->arena, ab, &cfg);
        net_poll(&h->s, stack_ns(HAYATE));
    }
}

static void h_teardown(void)
{
    for (int i = 0; i < 2; i++)
        net_stack_release(&hs[i].s);
}

/* Deliver what waits for each side, in bursts, then flush. */
static void h_pump(uint64_t t)
{
    for (int to = 0; to < 2; to++) {
        struct ring *r = &link_ring[to];
        struct hside *h = &hs[to];
        uint32_t end = r->tail;
        while (r->head != end) {
            struct pkt *burst[32];
            uint16_t n = 0;
            while (r->head != end && n < 32) {
                struct pkt *p = pkt_alloc(&h->pool);
                if (p == NULL)
                    break;
                uint32_t k = r->head++ % RING;
                memcpy(p->data, r->slot[k], r->len[k]);
                p->len = r->len[k];
                p->flags = PKT_RX_L4_CSUM_OK;
                p->port = 0;
                burst[n++] = p;
            }
            if (n == 0)
                break;
            net_input(&h->s, burst, n, t);
        }
        net_flush(&h->s);
    }
}

static void h_timers(uint64_t t)
{
    for (int i = 0; i < 2; i++) {
        if (t >= hs[i].s.timer_ns)
            net_poll(&hs[i].s, t);
        net_flush(&hs[i].s);
    }
}

/* ---- lwIP's two instances (renamed symbols) ---- */

#define LW_DECL(P)                                                                                  \
    void P##lw_init(int s, unsigned ip_be, unsigned peer_be, const unsigned char *m,              \
                    const unsigned char *pm);                                                     \
    void P##lw_input(const void *frame, unsigned len);                                            \
    void P##lw_poll(void);                                                                        \
    void P##lw_reset(void);                                                                       \
    unsigned long long P##lw_rx_bytes(void);                                                      \
    void P##lw_pp_server(unsigned short port);                                                    \
    int P##lw_pp_client(unsigned dst_be, unsigned short port, int n);                             \
    void P##lw_bulk_sink(unsigned short port);                                                    \
    int P##lw_bulk_source(unsigned dst_be, unsigned short port, unsigned chunk);
LW_DECL(a_)
LW_DECL(b_)

/* lwIP is initialised once; each run starts from no connections. */
static void l_setup(void)
{
    static bool ready;
    if (!ready) {
        a_lw_init(0, ADDR(0), ADDR(1), mac[0], mac[1]);
        b_lw_init(1, ADDR(1), ADDR(0), mac[1], mac[0]);
        ready = true;
    }
    a_lw_reset();
    b_lw_reset();
}

static void l_pump(void)
{
    for (int to = 0; to < 2; to++) {
        struct ring *r = &link_ring[to];
        uint32_t end = r->tail;
        while (r->head != end) {
            uint32_t k = r->head++ % RING;
            if (to == 0)
                a_lw_input(r->slot[k], r->len[k]);
            else
                b_lw_input(r->slot[k], r->len[k]);
        }
    }
}

static void l_timers(void)
{
    a_lw_poll();
    b_lw_poll();
}

/* ---- the measurements ---- */

static uint32_t pp_conns = PP_CONNS;

static struct pingpong_client pc;

static uint64_t pp_count(enum stack st)
{
    return st == HAYATE ? pingpong_transactions(&pc) : a_lw_rx_bytes();
}

static void pp_setup(enum stack st)
{
    link_reset(st);
    if (st == HAYATE) {
        h_setup();
        memset(&pc, 0, sizeof(pc));
        pingpong_server_start(&hs[1].s, 9000);
        pingpong_client_start(&hs[0].s, &pc, ADDR(1), 9000, pp_conns, 1, stack_ns(HAYATE));
    } else {
        l_setup();
        b_lw_pp_server(9000);
        a_lw_pp_client(ADDR(1), 9000, (int)pp_conns);
    }
}

static void pump(enum stack st, uint64_t iter)
{
    if (st == HAYATE) {
        uint64_t t = (iter & 63) == 0 ? stack_ns(HAYATE) : hs[0].t.now_ns;
        h_pump(t);
        if ((iter & 63) == 0)
            h_timers(t);
    } else {
        l_pump();
        if ((iter & 1023) == 0)
            l_timers();
    }
}

/* The loop callgrind measures: n transactions exactly. */
__attribute__((noinline)) void measured_pingpong(enum stack st, uint64_t n);
__attribute__((noinline)) void measured_pingpong(enum stack st, uint64_t n)
{
    uint64_t start = pp_count(st);
    for (uint64_t i = 1; pp_count(st) - start < n; i++)
        pump(st, i);
}

#define PP_TURNS 10 /* turns each stack takes in one run */

void (*pingpong_turn_wait)(void);

/* One run of the ping-pong: both stacks set up side by side, each on its
 * own link, then taking turns of seconds / PP_TURNS (who goes first
 * alternating), their clocks stopped while the other runs. Whatever the
 * machine does meanwhile (a clock change, a neighbour on the core) falls
 * on both alike, as back-to-back runs of a second each did not ensure.
 * tps: transactions a second of each, [HAYATE] and [LWIP]. */
void pingpong_pair(double seconds, double tps[2])
{
    uint64_t n[2] = {0, 0};
    double busy[2] = {0, 0};
    for (int st = HAYATE; st <= LWIP; st++) {
        pp_setup((enum stack)st);
        for (uint64_t i = 0; pp_count((enum stack)st) < 1000 && i < 10000000; i++)
            pump((enum stack)st, i); /* connected and warm */
    }
    for (int k = 0; k < 2 * PP_TURNS; k++) {
        enum stack st = (enum stack)((k ^ (k >> 1)) & 1); /* H L L H H L ... */
        if (pingpong_turn_wait)
            pingpong_turn_wait();
        switch_to(st);
        uint64_t c0 = pp_count(st);
        double t0 = now_s(), t1 = t0;
        for (uint64_t i = 1;; i++) {
            pump(st, i);
            if ((i & 1023) == 0 && (t1 = now_s()) - t0 >= seconds / PP_TURNS)
                break;
        }
        n[st] += pp_count(st) - c0;
        busy[st] += t1 - t0;
    }
    h_teardown();
    for (int st = HAYATE; st <= LWIP; st++)
        tps[st] = (double)n[st] / busy[st];
}

/* Bulk: side 0 sends messages of chunk bytes to side 1. */
static double run_bulk(enum stack st, uint32_t chunk, double seconds);

static uint64_t h_rx_bytes;
static uint32_t h_chunk;
static uint64_t h_left_in_msg;

static void h_sink_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t t)
{
    h_rx_bytes += p->len;
    pkt_free(p);
}

static const struct tcp_callbacks h_sink_cb = {.recv = h_sink_recv};

/* Messages of h_chunk bytes, each in buffers of up to one segment handed
 * to tcp_send (zero-copy: the payload is not touched, as lwIP's side sends
 * its static buffer). */
static void h_fill(struct tcp_conn *c, uint64_t t)
{
    uint32_t mss = tcp_mss(c);
    for (;;) {
        if (h_left_in_msg == 0)
            h_left_in_msg = h_chunk;
        uint32_t n = h_left_in_msg < mss ? (uint32_t)h_left_in_msg : mss;
        if (tcp_sndbuf(c) < n)
            return;
        struct pkt *p = pkt_alloc(&hs[0].pool);
        if (p == NULL)
            return;
        p->len = (uint16_t)n;
        if (tcp_send(c, p, t) < 0) {
            pkt_free(p);
            return;
        }
        h_left_in_msg -= n;
    }
}

static void h_src_connected(void *ctx, struct tcp_conn *c, uint64_t t) { h_fill(c, t); }
static void h_src_acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t t) { h_fill(c, t); }

static const struct tcp_callbacks h_src_cb = {.connected = h_src_connected, .acked = h_src_acked};

static double run_bulk(enum stack st, uint32_t chunk, double seconds)
{
    link_reset(st);
    if (st == HAYATE) {
        h_setup();
        h_rx_bytes = 0;
        h_chunk = chunk;
        h_left_in_msg = 0;
        tcp_listen(&hs[1].s, 5001, &h_sink_cb, NULL);
        tcp_connect(&hs[0].s, ADDR(1), 5001, &h_src_cb, NULL, stack_ns(HAYATE));
    } else {
        l_setup();
        b_lw_bulk_sink(5001);
        a_lw_bulk_source(ADDR(1), 5001, chunk);
    }
    uint64_t (*rx)(void) = NULL;
    (void)rx;
    uint64_t b0 = 0;
    double t0 = 0, t1 = 0;
    bool started = false;
    for (uint64_t i = 1;; i++) {
        pump(st, i);
        if ((i & 255) == 0) {
            double t = now_s();
            uint64_t got = st == HAYATE ? h_rx_bytes : b_lw_rx_bytes();
            if (!started && got >= (8u << 20)) { /* past slow start */
                started = true;
                b0 = got;
                t0 = t;
            } else if (started && t - t0 >= seconds) {
                t1 = t;
                double gbps = (double)(got - b0) * 8 / (t1 - t0) / 1e9;
                if (st == HAYATE)
                    h_teardown();
                return gbps;
            } else if (!started && i > 200000000) {
                return 0;
            }
        }
    }
}

double median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void emit(const char *name, const char *unit, double value, double ref)
{
    printf("{\"name\": \"%s\", \"unit\": \"%s\", \"value\": %.6g, \"reference\": \"lwIP 2.1.3 (NO_SYS, "
           "pools)\", \"reference_value\": %.6g, \"ratio\": %.4g}\n",
           name, unit, value, ref, ref ? value / ref : 0.0);
    fflush(stdout);
}

/* Instructions per ping-pong transaction, hayate and lwIP, from callgrind
 * counting only inside measured_pingpong (setup and warm-up excluded). */
static int run_callgrind(const char *self, uint64_t n)
{
    double ir[2] = {0, 0};
    static const char *const who[2] = {"hayate", "lwip"};
    for (int k = 0; k < 2; k++) {
        char cmd[1024], line[512];
        snprintf(cmd, sizeof(cmd),
                 "valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect=measured_pingpong "
                 "'%s' --count %s %llu 2>&1",
                 self, who[k], (unsigned long long)n);
        FILE *f = popen(cmd, "r");
        if (f == NULL)
            return 1;
        while (fgets(line, sizeof(line), f)) {
            const char *c = strstr(line, "Collected : ");
            if (c)
                ir[k] = strtod(c + 12, NULL);
        }
        if (pclose(f) != 0 || ir[k] == 0) {
            fprintf(stderr, "tcp_bench: callgrind run for %s failed (valgrind installed?)\n", who[k]);
            return 1;
        }
    }
    printf("{\"name\": \"tcp ping-pong, instructions per transaction (callgrind)\", \"unit\": \"instructions\", "
           "\"value\": %.1f, \"reference\": \"lwIP 2.1.3 (NO_SYS, pools)\", \"reference_value\": %.1f, "
           "\"ratio\": %.4g}\n",
           ir[0] / (double)n, ir[1] / (double)n, ir[0] / ir[1]);
    return 0;
}

/* The ping-pong with conns connections, both stacks, reps runs each. */
static void pingpong_figure(uint32_t conns, int reps, double seconds)
{
    double h[64], l[64];
    char name[128];
    pp_conns = conns;
    for (int r = 0; r < reps; r++) {
        double tps[2];
        pingpong_pair(seconds, tps);
        h[r] = tps[HAYATE];
        l[r] = tps[LWIP];
        fprintf(stderr, "ping-pong (%u) rep %d: hayate %.0f, lwIP %.0f transactions/s\n", conns, r, h[r], l[r]);
    }
    snprintf(name, sizeof(name), "tcp ping-pong, 1 byte, %u connection%s, both ends on 1 core", conns,
             conns == 1 ? "" : "s");
    emit(name, "transactions/s", median(h, reps), median(l, reps));
}

int main(int argc, char **argv)
{
    int reps = 5;
    double seconds = 0.5;
    bool pingpong_only = false, sweep = false, cores = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--pingpong-only"))
            pingpong_only = true;
        else if (!strcmp(argv[i], "--sweep"))
            sweep = true;
        else if (!strcmp(argv[i], "--cores"))
            cores = true;
        else if (!strcmp(argv[i], "--callgrind") && i + 1 < argc)
            return run_callgrind(argv[0], strtoull(argv[i + 1], NULL, 10));
        else if (!strcmp(argv[i], "--count") && i + 2 < argc) {
            enum stack st = !strcmp(argv[i + 1], "lwip") ? LWIP : HAYATE;
            uint64_t n = strtoull(argv[i + 2], NULL, 10);
            pp_setup(st);
            for (uint64_t k = 0; pp_count(st) < 1000; k++)
                pump(st, k);
            measured_pingpong(st, n);
            fprintf(stderr, "%s: %llu transactions\n", argv[i + 1], (unsigned long long)n);
            return 0;
        }
    }
    if (reps < 1)
        reps = 1;
    double h[64], l[64];
    if (reps > 64)
        reps = 64;
    if (cores)
        return tcp_scale_rows(reps, seconds);
    if (sweep) {
        static const uint32_t conns[] = {1, 8, PP_CONNS_MAX};
        for (size_t k = 0; k < sizeof(conns) / sizeof(conns[0]); k++)
            pingpong_figure(conns[k], reps, seconds);
        return 0;
    }
    pingpong_figure(PP_CONNS, reps, seconds);
    if (pingpong_only)
        return 0;
    static const uint32_t sizes[] = {1024, 65536, 1048576};
    static const char *const names[] = {"tcp bulk, 1 KB sends", "tcp bulk, 64 KB sends", "tcp bulk, 1 MB sends"};
    for (int k = 0; k < 3; k++) {
        for (int r = 0; r < reps; r++) {
            h[r] = run_bulk(HAYATE, sizes[k], seconds);
            l[r] = run_bulk(LWIP, sizes[k], seconds);
            fprintf(stderr, "%s rep %d: hayate %.2f, lwIP %.2f Gbit/s\n", names[k], r, h[r], l[r]);
        }
        emit(names[k], "Gbit/s", median(h, reps), median(l, reps));
    }
    if (link_drops)
        fprintf(stderr, "tcp_bench: %llu frames dropped by a full link ring\n", (unsigned long long)link_drops);
    return 0;
}
