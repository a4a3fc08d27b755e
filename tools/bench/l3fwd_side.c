/* SPDX-License-Identifier: MIT */
/* tools/bench/l3fwd_side.c: DPDK's own l3fwd as the forwarding benchmark's
 * peer (issue #34), in fwd_bench's process, on its core, with its frames
 * and its full table.
 *
 * l3fwd is not ours: the Makefile compiles the files of Debian's dpdk-doc
 * example (/usr/share/dpdk/examples/l3fwd, its Makefile's SRCS-y, main
 * renamed l3fwd_main) and links them in. This file sets up what l3fwd's
 * main() would (lcore_conf, dest_eth_addr and val_eth, started ports, a
 * mempool as init_mem makes it) and calls l3fwd's lpm_main_loop,
 * unchanged: rte_eth_rx_burst of MAX_PKT_BURST (32), then
 * l3fwd_lpm_send_packets (the SSE path: processx4_step1/2 with
 * rte_lpm_lookupx4, processx4_step3 with rfc1812_process,
 * send_packets_multi grouping by port, send_packetsx4 holding a port's
 * frames until 32 are ready for rte_eth_tx_burst). At the end of a run,
 * the drain its loop does every BURST_TX_DRAIN_US (send_burst), timed.
 * Its burst is fixed at 32: it stands beside that row only.
 *
 * Ports: the ring PMD's (rte_eth_from_rings), four, one RX and one TX
 * ring each; frames come in on port 0 only, as on eth0 only on our side.
 * Between chunks, untimed, the feeder does the device's part: mbufs from
 * the pool, the frames of the rig's address array written in by
 * nic_frame4 (our NIC model's bytes), packet_type IPv4 and the IP
 * checksum marked good as ixgbe's descriptors would say, onto port 0's
 * RX ring; afterwards every frame on the TX rings is checked (TTL 63, the
 * port's MACs), counted on its port and freed. So l3fwd's figure holds
 * no mbuf allocation or free (the ring PMD moves pointers), where a
 * descriptor PMD refills in rx_burst and reclaims in tx_burst, as our
 * model driver does inside our figure. A chunk ends when an RX callback
 * (one call a burst, in the figure) finds port 0's ring empty and sets
 * l3fwd's force_quit.
 *
 * The table: rib-v4-2024 into an rte_lpm sized as the pipeline's, each
 * prefix's value the port of the next hop the rig gives it (one of 16 by
 * a hash of the prefix, four a port), so every frame leaves by the same
 * port on both sides; a port's dest_eth_addr is its first gateway's MAC. */
#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_lpm.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "l3fwd.h" /* the example's own header: lcore_conf, val_eth, send_burst */

#include "tools/bench/bench_util.h"
#include "tools/bench/fwd_nic.h"
#include "tools/bench/l3fwd_side.h"
#include "tools/bench/route_load.h"

#define NPORTS L3FWD_PORTS
#define RING 4096u /* a chunk and l3fwd's buffered frames fit */
/* l3fwd's NB_MBUF for 4 ports, one queue each, 1024 descriptors, one lcore */
#define NB_MBUF (NPORTS * (1024 + NPORTS * MAX_PKT_BURST + NPORTS * 1024) + MEMPOOL_CACHE_SIZE)

static struct rte_mempool *pool;
static struct rte_ring *rxr, *txr[NPORTS];
static struct rte_lpm *lpm;

/* Port 0's queue is empty: the chunk is done, leave lpm_main_loop. */
static uint16_t stop_when_empty(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n, uint16_t max,
                                void *arg)
{
    if (n == 0)
        force_quit = true;
    return n;
}

static void fail(const char *what)
{
    fprintf(stderr, "fwd_bench: l3fwd: %s: %s\n", what, rte_strerror(rte_errno));
    exit(1);
}

/* One ring PMD port with one RX and one TX queue, started; our MAC mac,
 * the next hop's gw. */
static void make_port(int p, const uint8_t *mac, const uint8_t *gw)
{
    char name[32];
    snprintf(name, sizeof(name), "l3fwd_rx%d", p);
    struct rte_ring *rx = rte_ring_create(name, RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    snprintf(name, sizeof(name), "l3fwd_tx%d", p);
    txr[p] = rte_ring_create(name, RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (rx == NULL || txr[p] == NULL)
        fail("rte_ring_create");
    if (p == 0)
        rxr = rx;
    snprintf(name, sizeof(name), "l3fwd_p%d", p);
    int id = rte_eth_from_rings(name, &rx, 1, &txr[p], 1, SOCKET_ID_ANY);
    if (id != p) /* the table's values are port ids: ours must be 0..3 */
        fail("rte_eth_from_rings");
    struct rte_eth_conf conf = {0};
    if (rte_eth_dev_configure((uint16_t)p, 1, 1, &conf) < 0 ||
        rte_eth_rx_queue_setup((uint16_t)p, 0, 1024, SOCKET_ID_ANY, NULL, pool) < 0 ||
        rte_eth_tx_queue_setup((uint16_t)p, 0, 1024, SOCKET_ID_ANY, NULL) < 0 || rte_eth_dev_start((uint16_t)p) < 0)
        fail("port setup");
    /* what main() sets: the next hop's MAC, then ours, in val_eth */
    memcpy(ports_eth_addr[p].addr_bytes, mac, 6);
    dest_eth_addr[p] = 0;
    memcpy(&dest_eth_addr[p], gw, 6);
    memcpy(&val_eth[p], &dest_eth_addr[p], 8);
    rte_ether_addr_copy(&ports_eth_addr[p], (struct rte_ether_addr *)(val_eth + p) + 1);
}

void l3fwd_side_setup(const struct route4_prefix *p, const uint8_t *port, size_t n, const uint8_t mac[][6],
                      const uint8_t gw[][6])
{
    pool = rte_pktmbuf_pool_create("l3fwd_pool", NB_MBUF, MEMPOOL_CACHE_SIZE, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                   (int)rte_socket_id());
    if (pool == NULL)
        fail("rte_pktmbuf_pool_create");
    for (int k = 0; k < NPORTS; k++)
        make_port(k, mac[k], gw[k]);
    enabled_port_mask = (1u << NPORTS) - 1;
    if (rte_eth_add_rx_callback(0, 0, stop_when_empty, NULL) == NULL)
        fail("rte_eth_add_rx_callback");
    struct rte_lpm_config c = {.max_rules = LPM_RULES, .number_tbl8s = LPM_TBL8S};
    lpm = rte_lpm_create("l3fwd4", SOCKET_ID_ANY, &c);
    if (lpm == NULL)
        fail("rte_lpm_create");
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++)
        if (rte_lpm_add(lpm, p[i].addr, (uint8_t)p[i].len, port[i]) < 0)
            fail("rte_lpm_add");
    fprintf(stderr, "fwd_bench: l3fwd's table: %zu prefixes to %d ports in %.2f s\n", n, NPORTS, bench_now() - t0);
    /* the lcore's queues as l3fwd --config="(0,0,lcore)" -p 0xf would have them */
    struct lcore_conf *q = &lcore_conf[rte_lcore_id()];
    q->n_rx_queue = 1;
    q->rx_queue_list[0] = (struct lcore_rx_queue){0, 0};
    q->n_tx_port = NPORTS;
    for (uint16_t k = 0; k < NPORTS; k++) {
        q->tx_port_id[k] = k;
        q->tx_queue_id[k] = 0;
    }
    q->ipv4_lookup_struct = lpm;
}

/* The device: up to max frames of the address array from pos onto port
 * 0's RX ring, as ixgbe would hand them over. */
static uint32_t feed(const struct l3fwd_feed *f, uint32_t pos, uint32_t max)
{
    struct rte_mbuf *m[RING];
    if (max > RING - 1 || rte_pktmbuf_alloc_bulk(pool, m, max) != 0)
        return 0;
    for (uint32_t i = 0; i < max; i++) {
        nic_frame4(rte_pktmbuf_mtod(m[i], uint8_t *), f->tmpl, f->len, f->base, f->dst_be[(pos + i) % f->naddr]);
        m[i]->data_len = f->len;
        m[i]->pkt_len = f->len;
        m[i]->port = 0;
        m[i]->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4;
        m[i]->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
    }
    return rte_ring_enqueue_burst(rxr, (void **)m, max, NULL);
}

/* The wire: every frame sent, checked, counted on its port, freed. */
static void collect(struct l3fwd_result *res)
{
    struct rte_mbuf *m[512];
    for (int p = 0; p < NPORTS; p++) {
        unsigned n;
        while ((n = rte_ring_dequeue_burst(txr[p], (void **)m, 512, NULL)) != 0) {
            for (unsigned i = 0; i < n; i++) {
                const uint8_t *f = rte_pktmbuf_mtod(m[i], const uint8_t *);
                res->per_port[p]++;
                res->bad += f[14 + 8] != 63 || memcmp(f, &val_eth[p], 12) != 0;
            }
            rte_pktmbuf_free_bulk(m, n);
        }
    }
}

struct l3fwd_result l3fwd_side_run(const struct l3fwd_feed *f, uint64_t npkts)
{
    struct l3fwd_result res = {0};
    struct lcore_conf *q = &lcore_conf[rte_lcore_id()];
    double t = 0;
    uint32_t pos = 0;
    while (res.pkts < npkts) {
        uint32_t got = feed(f, pos, f->chunk);
        if (got == 0) {
            fprintf(stderr, "fwd_bench: l3fwd: no mbufs for the RX ring\n");
            break;
        }
        pos = (pos + f->chunk) % f->naddr;
        force_quit = false;
        double t0 = bench_now();
        lpm_main_loop(NULL);
        t += bench_now() - t0;
        collect(&res);
        res.pkts += got;
    }
    /* what l3fwd's drain would send after BURST_TX_DRAIN_US */
    double t0 = bench_now();
    for (uint16_t k = 0; k < NPORTS; k++)
        if (q->tx_mbufs[k].len) {
            send_burst(q, q->tx_mbufs[k].len, k);
            q->tx_mbufs[k].len = 0;
        }
    t += bench_now() - t0;
    collect(&res);
    res.ns_per_pkt = t * 1e9 / (double)res.pkts;
    for (int p = 0; p < NPORTS; p++)
        res.forwarded += res.per_port[p];
    return res;
}

void l3fwd_side_free(void)
{
    for (uint16_t p = 0; p < NPORTS; p++) {
        rte_eth_dev_stop(p);
        rte_eth_dev_close(p);
    }
    rte_lpm_free(lpm);
    rte_mempool_free(pool);
}
