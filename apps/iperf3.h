/* SPDX-License-Identifier: MIT */
/* apps/iperf3.h: an iperf3 server (`app iperf3 port N`, usually 5201)
 * that the stock iperf3 client (3.x) tests against: TCP, normal mode (the
 * client sends, we count), reverse (-R, we send), both at once (--bidir),
 * parallel streams (-P), durations (-t), JSON output (-J) on the client's
 * side; UDP (-u) in each of these modes, with the bitrate (-b) and
 * datagram size (-l) the client asks for. SCTP is refused with
 * SERVER_ERROR ("not implemented yet").
 *
 * The protocol (esnet/iperf, iperf_api.c, iperf_server_api.c,
 * iperf_client_api.c): the client's control connection opens with a
 * 37-byte cookie (36 characters, NUL); the server drives it with one state
 * byte per step (enum iperf3_state); parameters and results are a 4-byte
 * big-endian length and JSON. Each data stream opens with the same cookie.
 *
 * iperf3.c is the application (kernel/app.h: its timers, `show iperf3`); iperf3_proto.c
 * the portable part, what parses the wire (host-tested, fuzzable): the
 * cookie, the parameters, the client's results, and our results' JSON. */
#ifndef USERLAND_IPERF3_H
#define USERLAND_IPERF3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net_stack;

#define IPERF3_COOKIE_LEN 37        /* 36 characters and a NUL */
#define IPERF3_MAX_TESTS 8          /* at once, over every core */
#define IPERF3_MAX_PARALLEL 16      /* -P */
#define IPERF3_MAX_STREAMS 32       /* per test: --bidir has two a -P */
#define IPERF3_JSON_MAX 12000       /* longest parameters / results we read or write */

/* State bytes (iperf_api.h). */
enum iperf3_state {
    IPERF3_TEST_START = 1,
    IPERF3_TEST_RUNNING = 2,
    IPERF3_TEST_END = 4,
    IPERF3_PARAM_EXCHANGE = 9,
    IPERF3_CREATE_STREAMS = 10,
    IPERF3_SERVER_TERMINATE = 11,
    IPERF3_CLIENT_TERMINATE = 12,
    IPERF3_EXCHANGE_RESULTS = 13,
    IPERF3_DISPLAY_RESULTS = 14,
    IPERF3_IPERF_DONE = 16,
    IPERF3_ACCESS_DENIED = -1,
    IPERF3_SERVER_ERROR = -2,
};

/* i_errno values sent after SERVER_ERROR (iperf_api.h). */
#define IPERF3_IEUNIMP 13           /* "not implemented yet" */

/* Serve port on s (once per core's stack): 0, or -1 (no TCP, port taken,
 * listener table full). */
int iperf3_start(struct net_stack *s, uint16_t port);

/* ---- iperf3_proto.c: parsing what the client sends (untrusted) ---- */

/* 36 printable ASCII characters, then a NUL. */
bool iperf3_cookie_ok(const uint8_t *cookie);

/* The parameters we act on; a flag is set when its key is present (as
 * iperf3's server reads them). */
struct iperf3_params {
    bool tcp, udp, sctp, reverse, bidir;
    bool udp_counters_64bit;        /* UDP datagrams number themselves in 64 bits */
    uint32_t parallel;              /* 1 when absent */
    uint32_t time_s, omit_s;
    uint64_t len, num, blockcount;
    uint64_t bandwidth;             /* -b, bits/s a stream; 0: as fast as it goes */
    bool get_server_output;         /* --get-server-output: our summary in the results */
};

/* What the client reports at the end: per stream, its id and bytes. */
struct iperf3_peer_results {
    uint32_t nstreams;              /* entries in id/bytes */
    bool too_many;                  /* more than IPERF3_MAX_STREAMS */
    int64_t id[IPERF3_MAX_STREAMS];
    uint64_t bytes[IPERF3_MAX_STREAMS];
    uint64_t total;                 /* sum of every stream's bytes */
};

/* Parse len bytes of JSON (RFC 8259; at most 8 levels deep): 0, or -1 when
 * it is not one well-formed object. */
int iperf3_parse_params(const char *json, size_t len, struct iperf3_params *out);
int iperf3_parse_results(const char *json, size_t len, struct iperf3_peer_results *out);

/* Our side's results, as get_results() in the client wants them. */
struct iperf3_report {
    bool bidir;                     /* --bidir: the text tags each line RX-S or TX-S */
    bool udp;                       /* the text has jitter and lost/total datagrams */
    bool sends[IPERF3_MAX_STREAMS]; /* we sent on the stream (-R, --bidir's second half) */
    uint32_t nstreams;
    int64_t id[IPERF3_MAX_STREAMS];
    uint64_t bytes[IPERF3_MAX_STREAMS];
    uint64_t packets[IPERF3_MAX_STREAMS];   /* UDP: sent, or the highest number received */
    uint64_t lost[IPERF3_MAX_STREAMS];      /* UDP, received */
    uint64_t jitter_ns[IPERF3_MAX_STREAMS]; /* UDP, received */
    uint64_t retransmits[IPERF3_MAX_STREAMS]; /* TCP, sent */
    uint64_t duration_us;           /* each stream's end_time */
    bool server_output;             /* add server_output_text (iperf3_server_text) */
};

/* What an iperf3 server prints at the end of a test, as --get-server-output
 * shows it: per stream and summed per direction, the interval, transfer and
 * bitrate in iperf3's units (1024-based bytes, 1000-based bits). Into buf
 * (cap bytes, NUL-terminated); its length. */
size_t iperf3_server_text(char *buf, size_t cap, const struct iperf3_report *r);

/* Write the results JSON into buf (cap bytes); its length, or 0 when it
 * does not fit. */
size_t iperf3_format_results(char *buf, size_t cap, const struct iperf3_report *r);

/* ---- UDP streams (-u; iperf_udp.c) ----
 * A stream opens with one 4-byte datagram from the client to the server's
 * port (its UDP_CONNECT_MSG: "9876" as x86 stores it), which the server
 * answers from that port ("6789", UDP_CONNECT_REPLY). Then every datagram
 * starts with the sender's clock (seconds, microseconds) and its number,
 * from 1, in 32 bits (64 with udp_counters_64bit), all big-endian. */
#define IPERF3_UDP_CONNECT_LEN 4
#define IPERF3_UDP_REPLY "6789"
#define IPERF3_UDP_MAX_LEN 65507u    /* the largest datagram over IPv4 */

static inline uint32_t iperf3_udp_hdr_len(bool c64) { return c64 ? 16u : 12u; }

/* A receiving stream's counts, as iperf_udp_recv keeps them. */
struct iperf3_udp_rx {
    uint64_t bytes;
    uint64_t packets;               /* the highest number seen */
    uint64_t lost;                  /* gaps in the numbers, less what came late */
    uint64_t out_of_order;
    int64_t prev_transit_ns;        /* arrival less the sender's clock */
    uint64_t jitter_ns;             /* RFC 3550 6.4.1 (1889's): |D| smoothed by 1/16 */
};

/* Count the datagram at d (len bytes) that arrived at now_ns; false when
 * it is too short to hold the header (not counted). */
bool iperf3_udp_account(struct iperf3_udp_rx *rx, const uint8_t *d, uint32_t len, bool c64, uint64_t now_ns);

/* The header of datagram number n, sent at now_ns, at d. */
void iperf3_udp_header(uint8_t *d, uint64_t now_ns, uint64_t n, bool c64);

/* iperf_add_stream's numbering: the first stream is 1, the n-th (n > 1) is
 * n + 1 (sic: 1, 3, 4, 5, ...). */
static inline int64_t iperf3_stream_id(uint32_t idx) { return idx == 0 ? 1 : (int64_t)idx + 2; }

#endif
