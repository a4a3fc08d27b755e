/* SPDX-License-Identifier: MIT */
/* tools/bench/fwd_nic.h: an in-memory NIC for the forwarding benchmark,
 * with the descriptor-ring semantics of an ixgbe-style device and a netdev
 * driver for it (net/core/netdev.h).
 *
 * RX: the driver posts empty buffers; descriptors [rx_head, rdt) belong to
 * the device, which "DMAs" a frame into each (nic_receive) and sets DD.
 * rx_burst takes the DD descriptors in order, posts a fresh buffer in each
 * slot and writes the tail register RDT once per burst. TX: tx_burst first
 * reclaims the bursts whose last descriptor the device marked DD, then
 * fills descriptors with the buffers it is given (zero copy: the buffer's
 * own address), RS on the last alone, and writes TDT once per burst, as the
 * kernel's Intel drivers do (igb_rxtx.c tx_close); the device sends up to
 * TDT (nic_transmit) and marks DD where RS is set. Ring indices run free
 * (uint32_t) and are masked on use, so head == tail means empty and
 * tail - head == NIC_RING full.
 *
 * A write of RDT or TDT is a doorbell, an MMIO write on real hardware
 * (~72 ns on an X520, Asai IW2014); the registers are volatile so no write
 * is optimised away, and each is counted. Frames move only by reference;
 * the one copy is the device's "DMA" of a received frame, which is the
 * wire side and not timed. Received IPv4 frames carry the 82599's "IP
 * checksum checked" status (NIC_IPCS).
 *
 * A second mode, pointer rings (nic_pointer_rings), stands where DPDK's
 * ring PMD stands beside it: no descriptors, refill, reclaim or doorbells,
 * for the like-for-like row against DPDK's l3fwd (fwd_bench.c). */
#ifndef TOOLS_BENCH_FWD_NIC_H
#define TOOLS_BENCH_FWD_NIC_H

#include <stdint.h>
#include <string.h>

#include "net/core/csum.h"
#include "net/core/netdev.h"
#include "net/core/pkt.h"

/* Descriptors per ring, a power of two: as many as the kernel's Intel
 * drivers post (IGB_RX_RING, IGB_TX_RING), so the buffers in flight are
 * theirs. 2048 until 2026-12-05: 25% slower frames on a 512 KiB L2
 * (docs/fwd.md, "The ring's size"). */
#define NIC_RING 512u
#define NIC_DD 1u      /* descriptor done */
#define NIC_IPCS 2u    /* RX: IPv4 header checksum checked, good (the 82599's IPCS without IPE, datasheet 7.1.6.2) */
#define NIC_RS 4u      /* TX: report status, DD written back here alone (the 82599's DCMD.RS) */

struct nic_desc {
    uint64_t addr;     /* buffer (physical) */
    uint16_t len;
    uint16_t rsvd;
    uint32_t status;   /* NIC_DD, NIC_IPCS, NIC_RS */
};
_Static_assert(sizeof(struct nic_desc) == 16, "a legacy descriptor is 16 bytes");

struct nic {
    struct netdev dev; /* first: the ops are handed &dev */
    struct pkt_pool *pool;
    uint64_t pool_phys;
    struct nic_desc *rxd, *txd;
    struct pkt **rxb, **txb;   /* the driver's buffer for each slot */
    uint32_t *txlast;          /* at a burst's first TX slot: its last, the RS one */
    uint32_t rx_head;          /* device: next slot to fill */
    uint32_t rx_next;          /* driver: next slot to read */
    volatile uint32_t rdt;     /* RX tail register */
    uint32_t tx_head;          /* device: next slot to send */
    uint32_t tx_tail;          /* driver: next free slot */
    uint32_t tx_clean;         /* driver: next slot to reclaim */
    volatile uint32_t tdt;     /* TX tail register */
    uint64_t rx_doorbells, tx_doorbells;
    uint64_t rx_packets, tx_packets;
    /* Pointer-ring mode (nic_pointer_rings): no descriptors, as DPDK's
     * ring PMD. rx: [pr_next, pr_head) received; tx: [pt_head, pt_tail)
     * queued. Buffers enter at the device, and leave there. */
    bool rings;
    struct pkt **prx, **ptx;
    uint32_t pr_head, pr_next, pt_head, pt_tail;
};

/* Port index with mac, RX buffers from pool (whose buffers start at
 * physical address pool_phys); posts a full RX ring. */
void nic_init(struct nic *n, uint16_t index, const uint8_t mac[6], struct pkt_pool *pool, uint64_t pool_phys);
/* Free every buffer the rings hold. */
void nic_release(struct nic *n);
/* Pointer rings (on) or descriptor rings: the driver's rx_burst takes the
 * buffers the device put on a ring of pointers, tx_burst puts buffers on
 * another, with no descriptor, refill, reclaim or doorbell, as DPDK's
 * ring PMD (rte_eth_from_rings) does; the device side allocates each
 * received buffer and frees each sent one, untimed, as the l3fwd side's
 * feeder does with mbufs. Only nic_receive and nic_transmit serve it. */
void nic_pointer_rings(struct nic *n, bool on);

/* Frame bytes at f: tmpl (len bytes) with destination dst_be and the
 * IPv4 header checksum that goes with it (base as nic_receive's). The
 * DPDK l3fwd side writes its mbufs with this too: the same bytes. */
static inline void nic_frame4(uint8_t *f, const uint8_t *tmpl, uint16_t len, uint32_t base, uint32_t dst_be)
{
    uint16_t c = csum_finish(csum_add(base, csum_add(dst_be & 0xffff, dst_be >> 16)));
    memcpy(f, tmpl, len);
    memcpy(f + 14 + 10, &c, 2);
    memcpy(f + 14 + 16, &dst_be, 4);
}

/* Wire side. Receive up to max frames: each is tmpl (len bytes, an
 * Ethernet + IPv4 header with the destination and checksum left to fill)
 * with destination dst_be[i]; base is the partial sum of tmpl's IPv4
 * header with both at zero. Returns how many the posted buffers took. */
uint32_t nic_receive(struct nic *n, const uint8_t *tmpl, uint16_t len, uint32_t base, const uint32_t *dst_be,
                     uint32_t max);
/* The same for IPv6: tmpl is an Ethernet + IPv6 header with the
 * destination left to fill, dst[i] the destination of frame i (network
 * order). No header checksum to fill (RFC 8200). */
uint32_t nic_receive6(struct nic *n, const uint8_t *tmpl, uint16_t len, const uint8_t (*dst)[16], uint32_t max);
/* Receive one frame as it is (ARP and such). */
uint32_t nic_receive_frame(struct nic *n, const uint8_t *frame, uint16_t len);
/* Send everything up to TDT: mark the RS descriptors done. Returns how many. */
uint32_t nic_transmit(struct nic *n);

#endif
