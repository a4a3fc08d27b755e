/* SPDX-License-Identifier: MIT */
/* tools/bench/gen_bench.c: the traffic generator's per-frame cost on one
 * core (issue 30), beside DPDK's dpdk-testpmd on the net_null device in
 * the same run.
 *
 *   gen_bench [--reps N] [--frames N] [--huge] [--hayate-only] [--tag TEXT]
 *             [--testpmd PATH] [--window SECONDS] [--cpu N]
 *
 * TX: what kernel/netsvc/gen.c's send_burst does each pass, unpaced:
 * pkt_alloc_bulk of 32 from the core's pool, one clock read (TSC, scaled
 * to ns as kernel/time.c does) for the burst, gen_tmpl_write of each
 * 64-byte frame (60 bytes written, the FCS is the NIC's) with the flow
 * rotating over 256, netdev_tx_burst onto the in-memory NIC of fwd_nic.h,
 * whose tx_burst reclaims the descriptors the device has completed and
 * frees their buffers to the pool. The device's side (marking descriptors
 * done) runs between chunks of NIC_RING / 2 frames, untimed, as in
 * fwd_bench. Reference: dpdk-testpmd --forward-mode=txonly,
 * --txonly-multi-flow, 60-byte packets, bursts of 32, on one forwarding
 * core and net_null (whose TX frees the mbufs): its Tx-pps over a window.
 *
 * RX: what gen.c's receive does: netdev_rx_burst of 32 (the driver
 * refills each slot from the pool), one clock read for the burst, then
 * per frame gen_stamp_parse, the stream check, gen_rx_account (sequence
 * window and latency histogram) and pkt_free. The device's side (writing
 * stamped frames into the posted buffers) is untimed. Reference:
 * dpdk-testpmd --forward-mode=rxonly on net_null: its driver allocates and
 * returns mbufs whose data it never writes, and rxonly frees them unread,
 * so it is the driver and buffer cost alone, a floor for ours.
 *
 * Both sides run on one CPU (--cpu, default 1: testpmd's forwarding lcore
 * is pinned there, its main lcore on CPU 0 sleeps in the console). testpmd
 * runs once for the whole program, interactively; each rep times hayate's
 * TX and RX and then reads testpmd's rates (start, a window, stop), the
 * order alternating; medians of --reps. testpmd is stopped while hayate
 * runs, its forwarding lcore parked. With --hayate-only (the kernel-flags
 * build) there is no testpmd. Rows: ns per frame and Mpps for TX and RX.
 * Exits non-zero when a frame was lost or miscounted on our side. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include "net/core/core.h"
#include "tester/gen_frame.h"
#include "tester/gen_rx.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/fwd_nic.h"

int bench_huge;

#define BURST 32      /* gen.c's GEN_BURST */
#define CHUNK (NIC_RING / 2)
#define POOL_BUFS 8192u
#define FRAME 64      /* on the wire, FCS included */
#define FLOWS 256     /* the `gen ports` default */
#define STREAM_BITS 6 /* gen.c's GEN_STREAM_BITS */
#define TRIAL 1u

static int reps = 9;
static const char *tag = "";

/* ---- the clock: kernel/time.c's, on the host TSC ---- */

static uint64_t tsc_mult, tsc_base;

static void clock_init(void)
{
    double t0 = bench_now();
    uint64_t c0 = __rdtsc();
    while (bench_now() - t0 < 0.05)
        ;
    uint64_t hz = (uint64_t)((double)(__rdtsc() - c0) / (bench_now() - t0));
    tsc_mult = (1000000000ull << 32) / hz;
    tsc_base = __rdtsc();
}

static inline uint64_t ns_at(uint64_t tsc) { return (uint64_t)(((unsigned __int128)(tsc - tsc_base) * tsc_mult) >> 32); }

/* ---- the rig ---- */

static struct {
    struct pkt_pool pool;
    uint8_t *mem;
    struct nic tx, rx;
    struct gen_tmpl tmpl;
    struct gen_tmpl *stage; /* the RX side's sender: a template to write from */
    uint64_t sent;          /* gen_core.sent */
    uint64_t no_buffer, tx_full;
    uint64_t rx_seq;        /* the device side's next sequence number */
    uint64_t stale, other;
    struct gen_rx_stream rx_stream[1u << STREAM_BITS];
} g;

static void setup(void)
{
    size_t bytes = (size_t)POOL_BUFS * PKT_BUF_STRIDE + POOL_BUFS * 8 + 4096;
    g.mem = bench_alloc(NULL, bytes, 4096);
    memset(g.mem, 0, bytes);
    pkt_pool_init(&g.pool, g.mem, 0x100000000ull, bytes);
    const uint8_t mac0[6] = {0x02, 0, 0, 0, 0, 1}, mac1[6] = {0x02, 0, 0, 0, 1, 1};
    nic_init(&g.tx, 0, mac0, &g.pool, 0x100000000ull);
    nic_init(&g.rx, 1, mac1, &g.pool, 0x100000000ull);
    struct gen_flow_spec f = {.flows = FLOWS, .seed = 1};
    memcpy(f.src_mac, mac0, 6);
    memcpy(f.dst_mac, mac1, 6);
    const uint8_t src[4] = {198, 18, 0, 1}, dst[4] = {198, 19, 0, 1};
    memcpy(f.src, src, 4);
    memcpy(f.dst, dst, 4);
    if (gen_tmpl_build(&g.tmpl, &f, FRAME) != 0) {
        fprintf(stderr, "gen_bench: gen_tmpl_build failed\n");
        exit(1);
    }
    for (unsigned s = 0; s < (1u << STREAM_BITS); s++)
        gen_rx_stream_clear(&g.rx_stream[s]);
}

/* gen.c's send_burst with no pacing and no frame budget: a full burst. */
static void send_burst(void)
{
    uint64_t now = __rdtsc();
    struct pkt *pkts[BURST];
    uint32_t got = pkt_alloc_bulk(&g.pool, pkts, BURST);
    if (got < BURST)
        g.no_buffer += BURST - got;
    uint64_t stamp_ns = ns_at(now);
    uint16_t stream = (uint16_t)((TRIAL & 0x3ffu) << STREAM_BITS | 0);
    for (uint32_t i = 0; i < got; i++) {
        const struct gen_tmpl *t = &g.tmpl;
        gen_tmpl_write(t, pkts[i]->data, PKT_DATA_ROOM, (uint32_t)(g.sent + i), stream, (uint32_t)(g.sent + i),
                       stamp_ns);
        pkts[i]->len = t->len;
    }
    uint16_t took = netdev_tx_burst(&g.tx.dev, 0, pkts, (uint16_t)got);
    for (uint32_t i = took; i < got; i++)
        pkt_free(pkts[i]);
    g.tx_full += got - took;
    g.sent += took;
}

/* nframes frames sent; ns per frame. */
static double run_tx(uint64_t nframes)
{
    uint64_t start = g.sent, before = g.tx.tx_packets;
    double t = 0;
    while (g.sent - start < nframes) {
        double t0 = bench_now();
        for (unsigned b = 0; b < CHUNK / BURST; b++)
            send_burst();
        t += bench_now() - t0;
        nic_transmit(&g.tx); /* the device: untimed */
    }
    nic_transmit(&g.tx);
    if (g.tx.tx_packets - before != g.sent - start || g.no_buffer || g.tx_full) {
        fprintf(stderr, "gen_bench: TX: %llu sent, the device saw %llu; %llu without a buffer, %llu ring full\n",
                (unsigned long long)(g.sent - start), (unsigned long long)(g.tx.tx_packets - before),
                (unsigned long long)g.no_buffer, (unsigned long long)g.tx_full);
        exit(1);
    }
    return t * 1e9 / (double)(g.sent - start);
}

/* gen.c's receive, ARP aside. */
static uint16_t receive(void)
{
    struct pkt *pkts[BURST];
    uint16_t n = netdev_rx_burst(&g.rx.dev, 0, pkts, BURST);
    if (!n)
        return 0;
    uint64_t now_ns = ns_at(__rdtsc());
    for (uint16_t i = 0; i < n; i++) {
        struct pkt *p = pkts[i];
        struct gen_stamp st;
        if (!gen_stamp_parse(p->data, p->len, &st)) {
            g.other++;
            pkt_free(p);
            continue;
        }
        uint16_t from = st.stream & ((1u << STREAM_BITS) - 1);
        if ((st.stream >> STREAM_BITS) != (TRIAL & 0x3ffu) || from >= 1)
            g.stale++;
        else
            gen_rx_account(&g.rx_stream[from], st.seq, now_ns > st.ticks ? now_ns - st.ticks : 0);
        pkt_free(p);
    }
    return n;
}

/* nframes stamped frames received and counted; ns per frame. */
static double run_rx(uint64_t nframes)
{
    uint64_t rx0 = g.rx_stream[0].rx, got = 0;
    double t = 0;
    uint8_t frame[GEN_MAX_FRAME];
    while (got < nframes) {
        /* The device: CHUNK frames of stream 0 in sequence, stamped now. */
        uint64_t stamp = ns_at(__rdtsc());
        uint32_t k = 0;
        for (; k < CHUNK; k++, g.rx_seq++) {
            gen_tmpl_write(&g.tmpl, frame, sizeof frame, (uint32_t)g.rx_seq, (uint16_t)(TRIAL << STREAM_BITS),
                           (uint32_t)g.rx_seq, stamp);
            if (!nic_receive_frame(&g.rx, frame, g.tmpl.len))
                break;
        }
        double t0 = bench_now();
        for (uint32_t done = 0; done < k;)
            done += receive();
        t += bench_now() - t0;
        got += k;
    }
    const struct gen_rx_stream *s = &g.rx_stream[0];
    if (s->rx - rx0 != got || s->dup || s->reordered || g.stale || g.other || s->lat.count != s->rx) {
        fprintf(stderr, "gen_bench: RX: %llu frames, %llu counted, dup %llu reordered %llu stale %llu other %llu\n",
                (unsigned long long)got, (unsigned long long)(s->rx - rx0), (unsigned long long)s->dup,
                (unsigned long long)s->reordered, (unsigned long long)g.stale, (unsigned long long)g.other);
        exit(1);
    }
    return t * 1e9 / (double)got;
}

/* ---- dpdk-testpmd, interactive, on pipes ---- */

static struct {
    pid_t pid;
    int in, out; /* its stdin, its stdout and stderr */
    char buf[1 << 16];
    size_t len;
} tp = {.pid = -1};

/* Read until the prompt ends the output (timeout_s at most); the output
 * is in tp.buf. */
static int tp_wait_prompt(double timeout_s)
{
    static const char prompt[] = "testpmd> ";
    tp.len = 0;
    double end = bench_now() + timeout_s;
    for (;;) {
        if (tp.len >= sizeof(prompt) - 1 && !memcmp(tp.buf + tp.len - (sizeof(prompt) - 1), prompt, sizeof(prompt) - 1))
            return 0;
        int ms = (int)((end - bench_now()) * 1000);
        struct pollfd pfd = {tp.out, POLLIN, 0};
        if (ms <= 0 || poll(&pfd, 1, ms) <= 0)
            return -1;
        if (tp.len + 1 >= sizeof(tp.buf)) { /* keep the tail: the prompt is last */
            memmove(tp.buf, tp.buf + sizeof(tp.buf) / 2, tp.len - sizeof(tp.buf) / 2);
            tp.len -= sizeof(tp.buf) / 2;
        }
        ssize_t n = read(tp.out, tp.buf + tp.len, sizeof(tp.buf) - 1 - tp.len);
        if (n <= 0)
            return -1;
        tp.len += (size_t)n;
        tp.buf[tp.len] = 0;
    }
}

static int tp_cmd(const char *cmd)
{
    char line[256];
    int n = snprintf(line, sizeof(line), "%s\n", cmd);
    if (write(tp.in, line, (size_t)n) != n)
        return -1;
    return tp_wait_prompt(30);
}

static void tp_close(void)
{
    if (tp.pid <= 0)
        return;
    if (write(tp.in, "quit\n", 5) < 0) { /* it is gone already */
    }
    close(tp.in);
    for (int i = 0; i < 100; i++) {
        if (waitpid(tp.pid, NULL, WNOHANG) == tp.pid) {
            tp.pid = -1;
            break;
        }
        usleep(50000);
    }
    if (tp.pid > 0) {
        kill(tp.pid, SIGKILL);
        waitpid(tp.pid, NULL, 0);
    }
    tp.pid = -1;
    close(tp.out);
}

/* testpmd with its forwarding lcore on cpu; 0 when it answers. */
static int tp_open(const char *path, int cpu, char *cmdline, size_t cmdlen)
{
    char lcores[32], vdev[64];
    snprintf(lcores, sizeof(lcores), "%d,%d", cpu == 0 ? 1 : 0, cpu);
    snprintf(vdev, sizeof(vdev), "net_null0,size=%u", FRAME - GEN_FCS_LEN);
    /* Its stdout is a pipe: line-buffered (stdbuf), or what a command
     * prints would come after the prompt that ends it. */
    const char *argv[40];
    int a = 0;
    argv[a++] = "stdbuf";
    argv[a++] = "-oL";
    argv[a++] = path;
    argv[a++] = "-l";
    argv[a++] = lcores;
    argv[a++] = "--main-lcore";
    argv[a++] = cpu == 0 ? "1" : "0";
    argv[a++] = "--no-pci";
    argv[a++] = "--vdev";
    argv[a++] = vdev;
    argv[a++] = "--log-level=error";
    if (bench_huge) {
        argv[a++] = "--in-memory";
        argv[a++] = "-m";
        argv[a++] = "512";
    } else {
        argv[a++] = "--no-shconf";
        argv[a++] = "--no-huge";
        argv[a++] = "-m";
        argv[a++] = "1024";
    }
    argv[a++] = "--";
    argv[a++] = "-i";
    argv[a++] = "--port-topology=loop";
    argv[a++] = "--nb-cores=1";
    argv[a++] = "--burst=32";
    argv[a++] = "--txpkts=60";
    argv[a++] = "--txonly-multi-flow";
    argv[a++] = "--total-num-mbufs=8192";
    argv[a] = NULL;
    size_t o = 0;
    for (int i = 2; i < a && o < cmdlen; i++)
        o += (size_t)snprintf(cmdline + o, cmdlen - o, "%s%s", i > 2 ? " " : "", argv[i]);
    int pin[2], pout[2];
    if (pipe(pin) || pipe(pout))
        return -1;
    tp.pid = fork();
    if (tp.pid < 0)
        return -1;
    if (tp.pid == 0) {
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(pout[1], 2);
        close(pin[1]);
        close(pout[0]);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    tp.in = pin[1];
    tp.out = pout[0];
    signal(SIGPIPE, SIG_IGN);
    if (tp_wait_prompt(120) != 0) {
        fprintf(stderr, "gen_bench: %s gave no prompt; its last words:\n%.*s\n", path, (int)(tp.len < 2000 ? tp.len : 2000),
                tp.buf + (tp.len < 2000 ? 0 : tp.len - 2000));
        tp_close();
        return -1;
    }
    return 0;
}

/* The value after key ("Tx-pps:") in the last `show port stats`. */
static double tp_field(const char *key)
{
    const char *last = NULL;
    for (const char *p = tp.buf; (p = strstr(p, key)) != NULL; p++)
        last = p;
    return last ? strtod(last + strlen(key), NULL) : -1;
}

/* testpmd's rate in mode (txonly, rxonly) over window seconds: start,
 * let it settle, a first `show port stats` (the rate is since the last
 * show), the window, the second; Mpps, or -1. */
static double tp_rate(const char *mode, double window)
{
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "set fwd %s", mode);
    if (tp_cmd(cmd) || tp_cmd("start"))
        return -1;
    usleep(200000);
    double v = -1;
    if (tp_cmd("show port stats 0") == 0) {
        usleep((useconds_t)(window * 1e6));
        if (tp_cmd("show port stats 0") == 0)
            v = tp_field(strcmp(mode, "rxonly") ? "Tx-pps:" : "Rx-pps:");
    }
    if (tp_cmd("stop"))
        return -1;
    return v < 0 ? -1 : v / 1e6;
}

int main(int argc, char **argv)
{
    uint64_t nframes = 1u << 22;
    int only = 0, cpu = -1;
    double window = 1.0;
    const char *testpmd = "dpdk-testpmd";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            nframes = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--huge"))
            bench_huge = 1;
        else if (!strcmp(argv[i], "--hayate-only"))
            only = 1;
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
            tag = argv[++i];
        else if (!strcmp(argv[i], "--testpmd") && i + 1 < argc)
            testpmd = argv[++i];
        else if (!strcmp(argv[i], "--window") && i + 1 < argc)
            window = atof(argv[++i]);
        else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
            cpu = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: gen_bench [--reps N] [--frames N] [--huge] [--hayate-only] [--tag TEXT] "
                            "[--testpmd PATH] [--window SECONDS] [--cpu N]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 64 || nframes < CHUNK || window <= 0) {
        fprintf(stderr, "gen_bench: bad --reps, --frames or --window\n");
        return 2;
    }
    nframes = nframes / CHUNK * CHUNK;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpu < 0)
        cpu = ncpu > 1 ? 1 : 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        fprintf(stderr, "gen_bench: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
    clock_init();
    setup();

    char cmdline[1024] = "";
    int have_tp = 0;
    if (!only) {
        if (ncpu < 2)
            fprintf(stderr, "gen_bench: testpmd needs two CPUs (a main and a forwarding lcore): no reference\n");
        else if (tp_open(testpmd, cpu, cmdline, sizeof(cmdline)) == 0)
            have_tp = 1;
        else
            fprintf(stderr, "gen_bench: no reference: %s did not start (Debian: apt-get install dpdk-dev)\n", testpmd);
        if (have_tp)
            fprintf(stderr, "gen_bench: reference: %s\n", cmdline);
    }

    static double tx[64], rx[64], ttx[64], trx[64];
    run_tx(nframes / 4); /* warm up */
    run_rx(nframes / 4);
    if (have_tp)
        tp_rate("txonly", 0.2);
    int ok = 1;
    for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < 2; k++) {
            if ((rep + k) & 1) {
                if (!have_tp)
                    continue;
                ttx[rep] = tp_rate("txonly", window);
                trx[rep] = tp_rate("rxonly", window);
                if (ttx[rep] <= 0 || trx[rep] <= 0) {
                    fprintf(stderr, "gen_bench: testpmd gave no rate (tx %g, rx %g); last output:\n%s\n", ttx[rep],
                            trx[rep], tp.buf);
                    ok = 0;
                }
            } else {
                tx[rep] = run_tx(nframes);
                rx[rep] = run_rx(nframes);
            }
        }
        fprintf(stderr, "gen_bench: rep %d: TX %.2f ns/frame, RX %.2f ns/frame", rep, tx[rep], rx[rep]);
        if (have_tp)
            fprintf(stderr, "; testpmd txonly %.2f Mpps, rxonly %.2f Mpps", ttx[rep], trx[rep]);
        fprintf(stderr, "\n");
    }
    tp_close();
    double htx = bench_median(tx, reps), hrx = bench_median(rx, reps);
    double rtx = have_tp && ok ? bench_median(ttx, reps) : 0, rrx = have_tp && ok ? bench_median(trx, reps) : 0;
    const char *ref_tx = rtx ? "dpdk-testpmd txonly, net_null, multi-flow" : "";
    const char *ref_rx = rrx ? "dpdk-testpmd rxonly, net_null (no parsing)" : "";
    char name[128];
    snprintf(name, sizeof(name), "gen TX 64B, stamped, 256 flows%s", tag);
    bench_emit(name, "ns/frame", htx, ref_tx, rtx ? 1e3 / rtx : 0);
    snprintf(name, sizeof(name), "gen TX 64B, stamped, 256 flows, rate%s", tag);
    bench_emit(name, "Mpps/core", 1e3 / htx, ref_tx, rtx);
    snprintf(name, sizeof(name), "gen RX 64B, parse and account%s", tag);
    bench_emit(name, "ns/frame", hrx, ref_rx, rrx ? 1e3 / rrx : 0);
    snprintf(name, sizeof(name), "gen RX 64B, parse and account, rate%s", tag);
    bench_emit(name, "Mpps/core", 1e3 / hrx, ref_rx, rrx);
    nic_release(&g.tx);
    nic_release(&g.rx);
    return ok ? 0 : 1;
}
