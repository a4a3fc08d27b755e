/* SPDX-License-Identifier: MIT */
/* net/capture/capture.h: packet capture's parts that need no kernel: what a
 * capture takes (a filter over port, direction and the packet's headers),
 * where a core leaves what it took (a ring per core, one producer, one
 * reader; what does not fit is counted, never waited for), what a
 * frame's headers say (for a line a packet, as tcpdump prints one:
 * kernel/netsvc/capture.c), and pcapng blocks (the direction in each
 * packet's flags, a dropped packet's reason in its comment) that tshark
 * and Wireshark read. kernel/netsvc/capture.c runs captures on these. */
#ifndef NET_CAPTURE_H
#define NET_CAPTURE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pkt;

#define CAP_SNAP 1518 /* bytes kept of a frame: an untagged Ethernet frame whole */
#define CAP_RING 256  /* records a core's ring holds */
#define CAP_REASON 32 /* a drop's reason, a counter's name */

enum cap_dir { CAP_RX = 1, CAP_TX = 2, CAP_DROP = 4 };

struct cap_filter {
    uint32_t ports;   /* bit p: port p */
    uint8_t dirs;     /* enum cap_dir bits */
    int16_t proto;    /* IP protocol or IPv6 next header; -1: any */
    int32_t l4port;   /* TCP/UDP source or destination port; -1: any */
    bool v6;          /* host/net below are IPv6 */
    uint8_t net[16];  /* host or net: either address in it */
    uint8_t net_len;  /* 0: any address */
    bool has_net;
};

/* A packet taken. */
struct cap_rec {
    uint64_t ts_ns;
    uint16_t port, len, caplen; /* len: the frame's, caplen: kept */
    uint8_t dir;                /* one enum cap_dir */
    char reason[CAP_REASON];    /* CAP_DROP: why */
    uint8_t data[CAP_SNAP];
};

struct cap_ring {
    _Atomic uint32_t head, tail; /* producer writes head, the reader tail */
    uint64_t lost;               /* producer: records the ring had no room for */
    struct cap_rec *r;           /* CAP_RING of them */
};

/* "[rx|tx|drop|any] [count N] [match WORDS...]" after the port's name:
 * match words are `host ADDR`, `net PREFIX`, `proto tcp|udp|icmp|icmp6|N`,
 * `port N`, all of them to hold. 0, or -1 with a message. *count: 0
 * unless given. */
int cap_filter_parse(struct cap_filter *f, int argc, char **argv, uint32_t *count, char *err, size_t errlen);
/* Whether the frame at d (len bytes) passes f's header tests (port and
 * direction are the caller's). */
bool cap_match(const struct cap_filter *f, const uint8_t *d, uint32_t len);

/* Producer: a copy of frame p (its first CAP_SNAP bytes, across the
 * buffers of a jumbo frame), or lost counted. */
void cap_put(struct cap_ring *r, uint64_t ts_ns, uint16_t port, uint8_t dir, const char *reason, const struct pkt *p);
/* Reader: the oldest record, NULL when empty; cap_done after using it. */
const struct cap_rec *cap_peek(struct cap_ring *r);
void cap_done(struct cap_ring *r);

/* What a line (kernel/netsvc/capture.c) says of a frame: its EtherType
 * (after one 802.1Q tag, whose VLAN is vlan, else 0), IP version (0: not
 * IP), addresses at src/dst (4 or 16 bytes into the frame), protocol,
 * ports (TCP, UDP) and the IP datagram's length. False for a frame too
 * short for its Ethernet header. */
struct cap_summary {
    uint16_t ethertype, vlan;
    uint8_t ip;
    const uint8_t *src, *dst;
    int16_t proto;
    int32_t sport, dport;
    uint32_t ip_len;
    uint8_t tcp_flags, icmp_type;
};
bool cap_summarize(const uint8_t *d, uint32_t len, struct cap_summary *s);

/* pcapng (draft-ietf-opsawg-pcapng): a section header, then one interface
 * description a port (Ethernet, snap length CAP_SNAP, its name, time in
 * ns); each record an enhanced packet block on interface port. Their
 * lengths, 0 when out (n bytes) is too small. */
size_t cap_pcapng_header(uint8_t *out, size_t n, const char *const *port_names, unsigned nports);
size_t cap_pcapng_packet(uint8_t *out, size_t n, const struct cap_rec *r);

#endif
