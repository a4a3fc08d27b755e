/* SPDX-License-Identifier: MIT */
/* tools/bench/l3fwd_side.h: DPDK's l3fwd beside fwd_bench's pipeline
 * (l3fwd_side.c). Plain types only: DPDK's headers, which l3fwd's own
 * header brings in, and net/'s wire.h both define struct ip6_hdr, so
 * l3fwd_side.c never sees the rig and fwd_bench.c never sees l3fwd.h. */
#ifndef TOOLS_BENCH_L3FWD_SIDE_H
#define TOOLS_BENCH_L3FWD_SIDE_H

#include <stddef.h>
#include <stdint.h>

#include "net/route/route4.h"

#define L3FWD_PORTS 4

struct l3fwd_result {
    double ns_per_pkt;
    uint64_t pkts, forwarded; /* frames fed, frames out on a port */
    uint64_t bad;             /* out with a TTL other than 63 or other MACs than the port's */
    uint64_t per_port[L3FWD_PORTS];
};

/* The frames, as nic_receive takes them: tmpl (len bytes) with destination
 * dst_be[i] (naddr of them, cycled from 0 each run) and the header checksum
 * from base; chunk at a time. */
struct l3fwd_feed {
    const uint8_t *tmpl;
    uint16_t len;
    uint32_t base;
    const uint32_t *dst_be;
    uint32_t naddr, chunk;
};

/* Ring PMD ports 0..3 (our MAC mac[p], the next hop's gw[p]), a mempool,
 * and an rte_lpm with prefix p[i] to port[i]. Exits on failure. */
void l3fwd_side_setup(const struct route4_prefix *p, const uint8_t *port, size_t n, const uint8_t mac[][6],
                      const uint8_t gw[][6]);
/* npkts frames through l3fwd's lpm_main_loop, bursts of its MAX_PKT_BURST
 * (32); the time in it alone. */
struct l3fwd_result l3fwd_side_run(const struct l3fwd_feed *f, uint64_t npkts);
void l3fwd_side_free(void);

#endif
