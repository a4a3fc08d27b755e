/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_iperf3.c: the iperf3 server's wire parsers
 * (apps/iperf3_proto.c): the cookie, the client's parameters and its
 * results JSON, a UDP stream's datagrams (each input twice: a datagram,
 * then the same again later), from any bytes. A parse fails or gives values within their
 * bounds; our answer for what was parsed always fits its buffer and parses
 * back with the same bytes per stream. */
#include <stdlib.h>
#include <string.h>

#include "apps/iperf3.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= IPERF3_COOKIE_LEN)
        (void)iperf3_cookie_ok(data);
    struct iperf3_udp_rx rx = {0};
    bool c64 = size & 1;
    for (int i = 0; i < 2; i++)
        if (iperf3_udp_account(&rx, data, (uint32_t)size, c64, 1000000000ull * (uint64_t)(i + 1)) !=
                (size >= iperf3_udp_hdr_len(c64)) ||
            rx.bytes != (size >= iperf3_udp_hdr_len(c64) ? (i + 1) * size : 0) || rx.lost > rx.packets)
            abort();
    if (size > IPERF3_JSON_MAX)
        size = IPERF3_JSON_MAX;
    char *json = malloc(size ? size : 1); /* exact size: ASan sees any overread */
    memcpy(json, data, size);
    struct iperf3_params p;
    (void)iperf3_parse_params(json, size, &p);
    struct iperf3_peer_results r;
    if (iperf3_parse_results(json, size, &r) == 0) {
        if (r.nstreams > IPERF3_MAX_STREAMS)
            abort();
        struct iperf3_report rep = {.bidir = r.nstreams > 1, .nstreams = r.nstreams, .duration_us = 1000000};
        for (uint32_t i = 0; i < r.nstreams; i++)
            rep.sends[i] = r.bytes[i] & 1;
        memcpy(rep.id, r.id, sizeof rep.id);
        memcpy(rep.bytes, r.bytes, sizeof rep.bytes);
        static char out[IPERF3_JSON_MAX];
        size_t n = iperf3_format_results(out, sizeof out, &rep);
        struct iperf3_peer_results back;
        if (n == 0 || iperf3_parse_results(out, n, &back) != 0 || back.nstreams != r.nstreams ||
            memcmp(back.bytes, r.bytes, r.nstreams * sizeof r.bytes[0]) != 0)
            abort();
    }
    free(json);
    return 0;
}
