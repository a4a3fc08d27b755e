/* SPDX-License-Identifier: MIT */
/* tools/bench/fwd_bench.h: what the forwarding benchmark's two halves
 * share: the rig (four in-memory ports, one stack, one struct fwd) that
 * fwd_bench.c builds and runs IPv4 through, and the IPv6 half on the same
 * rig (fwd_bench6.c). */
#ifndef TOOLS_BENCH_FWD_BENCH_H
#define TOOLS_BENCH_FWD_BENCH_H

#include <stdint.h>
#include <string.h>

#include "net/fwd/fwd.h"
#include "net/net.h"
#include "net/fwd/nexthop.h"
#include "net/route/route4.h"
#include "net/route/route6.h"
#include "tools/bench/fwd_nic.h"

#define NPORTS 4
#define GW_PER_PORT 4
#define NNH (NPORTS * GW_PER_PORT)
#define CHUNK (NIC_RING / 2) /* frames the device side fills between timed stretches */
#define POOL_BUFS 16384u
#define FRAME_LEN 60  /* a 64-byte frame less its FCS */
#define FRAME6_LEN 62 /* the smallest Ethernet + IPv6 + UDP frame: 14 + 40 + 8 */

struct rte_lpm;
struct rte_lpm6;

struct rig {
    struct pkt_pool pool;
    uint8_t *mem;
    struct nic nic[NPORTS];
    struct net_stack *s;
    struct fwd *f;
    /* IPv4 (fwd_bench.c) */
    struct nexthop_table nht;
    uint32_t nh[NNH];
    struct route4 *rt;
    struct route4 *rt_ecmp;      /* the same prefixes over 4 ECMP groups of 4 paths */
    struct rte_lpm *lpm;
    uint32_t *dst_be; /* NADDR destinations */
    uint8_t tmpl[FRAME_LEN];
    uint32_t tmpl_base;
    /* IPv6 (fwd_bench6.c) */
    struct fwd_nh6_table nh6;    /* slots 1..NNH */
    struct route6 *rt6;
    struct rte_lpm6 *lpm6;
    uint8_t (*dst6)[16];         /* NADDR6 destinations, network order */
    uint8_t tmpl6[FRAME6_LEN];
    /* Set: a run ends early once this is (after its first chunk), as
     * fwd_scale.c's do when the first core is done. */
    const _Atomic int *stop;
};

/* What one run of a side gave (fwd_bench_run). */
struct result {
    double ns_per_pkt;
    uint64_t pkts, tx_doorbells, rx_doorbells, fast, to_stack, cap_lost;
    uint64_t acl_last, acl_other; /* access-list hits on its last rule, on any other (the implicit deny too) */
    uint64_t per_port[NPORTS];
};

/* The sides a run can take. RINGS: OURS on pointer rings (fwd_nic.h).
 * NO_LOOKUP: OURS with each next hop from a hash of the destination, no
 * table read (the pipeline's floor). */
enum { OURS, LPM, ECMP, CAPTURE, ACL, RINGS, NO_LOOKUP };

/* fwd_acl.c: the ACL rows' access list on eth0's input. */
extern const size_t fwd_acl_nrules;
void fwd_acl_make(struct rig *r);            /* parsed and built; the bench traffic must match the last rule */
void fwd_acl_bind(struct rig *r, int side);  /* eth0's input list for side: the list for ACL, else none */
void fwd_acl_reset(void);                    /* its hit counters to zero */
void fwd_acl_hits(uint64_t *last, uint64_t *other); /* adds the last rule's hits, and all others' */

/* fwd_bench.c. npkts frames through rig r in bursts of b, on side's
 * lookup, IPv4 or (v6) IPv6; only the driver and the pipeline timed. Any
 * number of rigs may run at once on OURS or LPM (they share only what
 * they read). */
struct result fwd_bench_run(struct rig *r, int b, int side, int v6, uint64_t npkts);
/* Another core's rig (its buffers, stack, ports and pipeline) on first's
 * IPv4 tables and destinations. */
void fwd_bench_core_rig(struct rig *r, const struct rig *first);
/* fwd_scale.c: IPv4 at bursts of 32 on 1, 2, 4, ... cores at once (up to
 * the CPUs we may run on), ours beside rte_lpm's (unless only): rows of
 * each count's total rate and of its share of linear scaling. */
int fwd_scale_rows(struct rig *first, int reps, uint64_t npkts, int only, const char *tag);
/* The CPUs we may run on, before rte_eal_init pins us to one. */
void fwd_scale_note_cpus(void);

/* Host host's MAC on port port: ours are host 1, the gateways 2.. */
static inline void fwd_bench_mac(uint8_t *m, int port, int host)
{
    const uint8_t mac[6] = {0x02, 0, 0, (uint8_t)host, 0, (uint8_t)port};
    memcpy(m, mac, 6);
}

/* fwd_bench6.c. Give the ports IPv6 addresses and four gateways each,
 * load rib-v6-2024 from dir into our route6 and (unless hayate_only)
 * rte_lpm6, and make the frames. */
void fwd_bench6_setup(struct rig *r, const char *dir, int hayate_only);
/* Before a run: the IPv6 lookup (rte_lpm6's with lpm, else ours) and the
 * gateways' neighbour entries made fresh. */
void fwd_bench6_prepare(struct rig *r, int lpm, uint64_t now_ns);
/* The device side: up to max frames into eth0, destinations from index
 * pos of the address array (cycled). Returns how many it took. */
uint32_t fwd_bench6_receive(struct rig *r, uint64_t pos, uint32_t max);
/* As doorbell_bound in fwd_bench.c: distinct output ports per burst of b,
 * summed over npkts destinations, per packet. */
double fwd_bench6_tx_bound(struct rig *r, int b, uint64_t npkts);
void fwd_bench6_free(struct rig *r);

#endif
