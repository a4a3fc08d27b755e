/* net/ip4_reasm.h: IPv4 reassembly for datagrams addressed to us (RFC 791
 * section 3.2, RFC 815), bounded in datagrams, buffers and time.
 *
 * Fragments wait in their own buffers, in offset order. A complete datagram
 * is copied into the stack's scratch area and delivered from there (it may
 * be larger than a buffer). Any overlap, or fragments that disagree on the
 * end, drop the whole datagram. When the table or the buffer budget is full
 * the oldest datagram is dropped to make room. */
#ifndef NET_IP4_REASM_H
#define NET_IP4_REASM_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"
#include "wire.h"

#define IP4_REASM_SLOTS 16        /* datagrams being reassembled */
#define IP4_REASM_MAX_BUFS 128    /* buffers held by all of them */
#define IP4_REASM_MAX_FRAGS 64    /* fragments of one datagram */
#define IP4_REASM_TIMEOUT_NS 30000000000ull

struct ip4_reasm_slot {
    uint32_t src_be, dst_be;
    uint16_t id_be;
    uint8_t proto;
    bool used;
    bool have_last;
    uint16_t nfrags;
    uint32_t got_len;           /* payload bytes held */
    uint32_t end_len;           /* payload length, once the last one came */
    uint64_t expire_ns;
    struct pkt *frags;          /* IPv4 header at data, sorted by offset */
};

struct ip4_reasm {
    struct ip4_reasm_slot slot[IP4_REASM_SLOTS];
    uint32_t bufs;              /* buffers held */
    uint8_t buf[IP4_MAX_LEN];     /* the datagram being delivered */
};

struct net_stack;

/* A valid fragment for us, IPv4 header at p->data and p->len its total
 * length. Takes p; delivers the datagram when it completes. */
void ip4_reasm_input(struct net_stack *s, struct pkt *p, uint64_t now_ns);

/* Expires datagrams (ICMP time exceeded when the first fragment came).
 * Returns the next deadline (UINT64_MAX: none). */
uint64_t ip4_reasm_timer(struct net_stack *s, uint64_t now_ns);

/* Free every held fragment. */
void ip4_reasm_release(struct net_stack *s);

#endif
