/* SPDX-License-Identifier: MIT */
/* net/ip/reasm.h: reassembly of IPv4 (RFC 791 section 3.2, RFC 815) and IPv6
 * (RFC 8200 section 4.5) datagrams addressed to us, bounded in datagrams,
 * buffers and time.
 *
 * Fragments wait in their own buffers, in offset order. A complete datagram
 * is copied into the stack's scratch area and delivered from there (it may
 * be larger than a buffer). Any overlap (RFC 5722), or fragments that
 * disagree on the end, drop the whole datagram. When the table or the
 * buffer budget is full the oldest datagram is dropped to make room. */
#ifndef NET_REASM_H
#define NET_REASM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"
#include "core/wire.h"

#define REASM_SLOTS 16            /* datagrams being reassembled */
#define REASM_MAX_BUFS 128        /* buffers held by all of them */
#define REASM_MAX_FRAGS 64        /* fragments of one datagram */
#define REASM_TIMEOUT_NS 30000000000ull /* IPv4's (RFC 1122 3.3.2 suggests 60-120 s) and IPv6's 60 s, shortened alike */

struct reasm_slot {
    uint8_t src[16], dst[16];   /* IPv4: the first 4 bytes */
    uint32_t id;                /* IPv4's 16 bits, IPv6's 32 */
    uint8_t proto;              /* IPv4 only (RFC 791 keys on it) */
    bool v6;
    bool used;
    bool have_last;
    uint16_t nfrags;
    uint32_t got_len;           /* payload bytes held */
    uint32_t end_len;           /* payload length, once the last one came */
    uint64_t expire_ns;
    struct pkt *frags;          /* IP header at data, sorted by offset */
};

struct reasm {
    struct reasm_slot slot[REASM_SLOTS];
    uint32_t bufs;              /* buffers held */
    uint8_t buf[IP4_MAX_LEN + IP6_HDR_LEN]; /* the datagram being delivered */
};

struct net_stack;
struct net_iface;

/* A valid IPv4 fragment for us, header at p->data and p->len its total
 * length. Takes p; delivers the datagram when it completes. */
void reasm_input4(struct net_stack *s, struct pkt *p, uint64_t now_ns);

/* An IPv6 fragment for us: the fixed header at p->data, the Fragment
 * header right after it, p->len the packet's length. Takes p. */
void reasm_input6(struct net_stack *s, struct pkt *p, uint64_t now_ns);

/* Expires datagrams (ICMP time exceeded when the first fragment came).
 * Returns the next deadline (UINT64_MAX: none). */
uint64_t reasm_timer(struct net_stack *s, uint64_t now_ns);

/* Free every held fragment. */
void reasm_release(struct net_stack *s);

#endif
