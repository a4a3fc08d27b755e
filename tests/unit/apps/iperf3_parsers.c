/* SPDX-License-Identifier: MIT */
/* tests/unit/apps/iperf3_parsers.c: the iperf3 server's parsers of untrusted input
 * (apps/iperf3_proto.c): the cookie, the client's parameters and
 * results as iperf3 3.12 sends them, our results read back, and malformed
 * JSON of every kind (each prefix, mutations, nesting) refused without a
 * crash under ASan/UBSan. */
#include <stdlib.h>

#include "apps/iperf3.h"
#include "tests/unit/check.h"

static const char params_312[] =
    "{\"tcp\":true,\"omit\":0,\"time\":2,\"num\":0,\"blockcount\":0,\"parallel\":4,\"reverse\":true,"
    "\"len\":131072,\"pacing_timer\":1000,\"client_version\":\"3.12\"}";

static const char results_312[] =
    "{\"cpu_util_total\":1.2345678901234567,\"cpu_util_user\":0.5,\"cpu_util_system\":0.73456,"
    "\"sender_has_retransmits\":1,\"congestion_used\":\"cubic\",\"streams\":["
    "{\"id\":1,\"bytes\":272804648,\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0,"
    "\"start_time\":0,\"end_time\":2.000123},"
    "{\"id\":3,\"bytes\":3e+09,\"retransmits\":0,\"jitter\":0,\"errors\":0,\"packets\":0,"
    "\"start_time\":0,\"end_time\":2.000123}]}";

TEST(iperf3_cookie)
{
    uint8_t c[IPERF3_COOKIE_LEN];
    memset(c, 'a', sizeof(c));
    c[IPERF3_COOKIE_LEN - 1] = 0;
    CHECK(iperf3_cookie_ok(c));
    c[5] = ' ';
    CHECK(!iperf3_cookie_ok(c));
    c[5] = 'z';
    c[IPERF3_COOKIE_LEN - 1] = 'x';
    CHECK(!iperf3_cookie_ok(c));
    c[IPERF3_COOKIE_LEN - 1] = 0;
    c[0] = 0;
    CHECK(!iperf3_cookie_ok(c));
}

TEST(iperf3_params)
{
    struct iperf3_params p;
    CHECK_EQ(iperf3_parse_params(params_312, strlen(params_312), &p), 0);
    CHECK(p.tcp && p.reverse && !p.udp && !p.bidir && !p.sctp);
    CHECK_EQ(p.parallel, 4);
    CHECK_EQ(p.time_s, 2);
    CHECK_EQ(p.len, 131072);
    static const char udp[] =
        " { \"udp\" : true , \"parallel\" : 1 , \"bidirectional\":true, \"title\":\"a\\\"\\u00e9\"}\n";
    CHECK_EQ(iperf3_parse_params(udp, strlen(udp), &p), 0);
    CHECK(p.udp && p.bidir && !p.tcp && !p.reverse);
    static const char none[] = "{}";
    CHECK_EQ(iperf3_parse_params(none, 2, &p), 0);
    CHECK_EQ(p.parallel, 1);
    static const char neg[] = "{\"parallel\":-3,\"time\":1e3,\"omit\":0.5}";
    CHECK_EQ(iperf3_parse_params(neg, strlen(neg), &p), 0);
    CHECK_EQ(p.parallel, 0);
    CHECK_EQ(p.time_s, 1000);
    CHECK_EQ(p.omit_s, 0);
    static const char nested[] = "{\"x\":{\"parallel\":9},\"parallel\":2}";
    CHECK_EQ(iperf3_parse_params(nested, strlen(nested), &p), 0);
    CHECK_EQ(p.parallel, 2);
}

TEST(iperf3_results)
{
    struct iperf3_peer_results r;
    CHECK_EQ(iperf3_parse_results(results_312, strlen(results_312), &r), 0);
    CHECK_EQ(r.nstreams, 2);
    CHECK_EQ(r.id[0], 1);
    CHECK_EQ(r.id[1], 3);
    CHECK_EQ(r.bytes[0], 272804648);
    CHECK_EQ(r.bytes[1], 3000000000ull);
    CHECK_EQ(r.total, 3272804648ull);
    CHECK(!r.too_many);

    /* Ours, read back. */
    struct iperf3_report rep = {.nstreams = 3, .duration_us = 2000123};
    for (int i = 0; i < 3; i++) {
        rep.sends[i] = true;
        rep.id[i] = iperf3_stream_id((uint32_t)i);
        rep.bytes[i] = 1000000ull * (uint64_t)(i + 1);
        rep.retransmits[i] = 7u * (uint64_t)i;
    }
    char buf[IPERF3_JSON_MAX];
    size_t n = iperf3_format_results(buf, sizeof(buf), &rep);
    CHECK(n > 0 && n < sizeof(buf));
    CHECK_EQ(iperf3_parse_results(buf, n, &r), 0);
    CHECK_EQ(r.nstreams, 3);
    CHECK_EQ(r.id[0], 1);
    CHECK_EQ(r.id[1], 3);
    CHECK_EQ(r.id[2], 4);
    CHECK_EQ(r.total, 6000000);
    buf[n] = 0;
    CHECK(strstr(buf, "\"cpu_util_total\":0.000000") != NULL);
    CHECK(strstr(buf, "\"sender_has_retransmits\":1") != NULL); /* the client's Retr column */
    CHECK(strstr(buf, "\"end_time\":2.000123") != NULL);
    CHECK(strstr(buf, "\"id\":3,\"bytes\":2000000,\"retransmits\":7,") != NULL);
    CHECK(strstr(buf, "\"id\":4,\"bytes\":3000000,\"retransmits\":14,") != NULL);
    CHECK_EQ(iperf3_format_results(buf, 10, &rep), 0); /* does not fit */
}

/* --get-server-output: the summary iperf3's server prints, in its units
 * (1024-based bytes, 1000-based bits, 2, 1 or 0 decimals), and in the
 * results JSON even for the most streams. */
TEST(iperf3_server_output)
{
    struct iperf3_report rep = {.nstreams = 2, .duration_us = 1000000};
    rep.id[0] = 1, rep.id[1] = 3;
    rep.bytes[0] = 120586240; /* 115 MBytes, 964.69... Mbits/sec */
    rep.bytes[1] = 5000;      /* 4.88 KBytes, 40.0 Kbits/sec */
    char text[2000];
    iperf3_server_text(text, sizeof text, &rep);
    CHECK(strstr(text, "[ ID] Interval           Transfer     Bitrate\n") == text);
    CHECK(strstr(text, "[  1]   0.00-1.00  sec   115 MBytes   965 Mbits/sec                  receiver\n"));
    CHECK(strstr(text, "[  3]   0.00-1.00  sec  4.88 KBytes  40.0 Kbits/sec                  receiver\n"));
    CHECK(strstr(text, "[SUM]   0.00-1.00  sec   115 MBytes   965 Mbits/sec                  receiver\n"));
    rep.bytes[1] = 1023 * 1024; /* units change at 1024 of the smaller one */
    iperf3_server_text(text, sizeof text, &rep);
    CHECK(strstr(text, "[  3]   0.00-1.00  sec  1023 KBytes  8.38 Mbits/sec                  receiver\n"));
    rep.nstreams = IPERF3_MAX_STREAMS;
    rep.server_output = true;
    rep.duration_us = 10000000;
    for (uint32_t i = 0; i < IPERF3_MAX_STREAMS; i++) {
        rep.sends[i] = true;
        rep.id[i] = iperf3_stream_id(i);
        rep.bytes[i] = 12345678901ull;
    }
    char buf[IPERF3_JSON_MAX];
    size_t n = iperf3_format_results(buf, sizeof buf, &rep);
    CHECK(n > 0);
    buf[n < sizeof buf ? n : 0] = 0;
    CHECK(strstr(buf, "\"server_output_text\":\"[ ID] Interval") != NULL);
    CHECK(strstr(buf, "[SUM]   0.00-10.00  sec   368 GBytes   316 Gbits/sec                  sender\\u000a\"}") != NULL);
    struct iperf3_peer_results r;
    CHECK_EQ(iperf3_parse_results(buf, n, &r), 0);
    CHECK_EQ(r.nstreams, IPERF3_MAX_STREAMS);
}

/* --bidir -P 2: the server receives on the first two streams to join and
 * sends on the last two; the text tags each direction, as iperf3 3.12's
 * server prints it. */
TEST(iperf3_bidir_report)
{
    struct iperf3_report rep = {.bidir = true, .nstreams = 4, .duration_us = 2000000, .server_output = true};
    for (uint32_t i = 0; i < 4; i++) {
        rep.id[i] = iperf3_stream_id(i);
        rep.sends[i] = i >= 2;
        rep.bytes[i] = 1000000ull * (i + 1);
    }
    char text[2000];
    iperf3_server_text(text, sizeof text, &rep);
    CHECK(strstr(text, "[ ID][Role] Interval           Transfer     Bitrate\n") == text);
    CHECK(strstr(text, "[  1][RX-S]   0.00-2.00  sec   977 KBytes  4.00 Mbits/sec                  receiver\n"));
    CHECK(strstr(text, "[  3][RX-S]   0.00-2.00  sec  1.91 MBytes  8.00 Mbits/sec                  receiver\n"));
    CHECK(strstr(text, "[SUM][RX-S]   0.00-2.00  sec  2.86 MBytes  12.0 Mbits/sec                  receiver\n"));
    CHECK(strstr(text, "[  4][TX-S]   0.00-2.00  sec  2.86 MBytes  12.0 Mbits/sec                  sender\n"));
    CHECK(strstr(text, "[SUM][TX-S]   0.00-2.00  sec  6.68 MBytes  28.0 Mbits/sec                  sender\n"));
    CHECK(strstr(text, "receiver\n[  4][TX-S]") != NULL); /* receivers first */
    char buf[IPERF3_JSON_MAX];
    size_t n = iperf3_format_results(buf, sizeof buf, &rep);
    CHECK(n > 0 && n < sizeof buf);
    buf[n] = 0;
    CHECK(strstr(buf, "\"sender_has_retransmits\":1") != NULL);
    CHECK(strstr(buf, "\"id\":1,\"bytes\":1000000,\"retransmits\":-1,") != NULL); /* received */
    CHECK(strstr(buf, "\"id\":4,\"bytes\":3000000,\"retransmits\":0,") != NULL);
    struct iperf3_peer_results r;
    CHECK_EQ(iperf3_parse_results(buf, n, &r), 0);
    CHECK_EQ(r.nstreams, 4);
    CHECK_EQ(r.id[3], 5);
    CHECK_EQ(r.total, 10000000);
}

/* -u: iperf_udp_recv's counts. Numbers 1, 2, 4, 5, then 3 late: one
 * lost until 3 comes, then one out of order and none lost; the transit
 * time changes by 1 ms once (the clocks differ by an arbitrary offset). */
TEST(iperf3_udp_accounting)
{
    static const char p[] = "{\"udp\":true,\"bandwidth\":1000000,\"len\":1460,\"udp_counters_64bit\":1}";
    struct iperf3_params prm;
    CHECK_EQ(iperf3_parse_params(p, strlen(p), &prm), 0);
    CHECK(prm.udp && prm.udp_counters_64bit);
    CHECK_EQ(prm.bandwidth, 1000000);
    CHECK_EQ(prm.len, 1460);
    for (int c64 = 0; c64 <= 1; c64++) {
        struct iperf3_udp_rx rx = {0};
        uint8_t d[1460];
        memset(d, 0xab, sizeof d);
        const uint64_t base = 1700000000ull * 1000000000ull, ours = 5000000000ull; /* their clock, ours */
        static const uint64_t order[] = {1, 2, 4, 5, 3};
        for (int i = 0; i < 5; i++) {
            uint64_t sent = base + order[i] * 1000000;
            uint64_t at = ours + order[i] * 1000000 + (i >= 3 ? 1000000 : 0); /* 1 ms later from the 4th */
            iperf3_udp_header(d, sent, order[i], c64);
            CHECK(iperf3_udp_account(&rx, d, sizeof d, c64, at));
            if (i == 2)
                CHECK_EQ(rx.lost, 1); /* 3 missing */
        }
        CHECK_EQ(rx.bytes, 5 * sizeof d);
        CHECK_EQ(rx.packets, 5);
        CHECK_EQ(rx.lost, 0);
        CHECK_EQ(rx.out_of_order, 1);
        /* |D|: 0, 0, 0, 1 ms (5 is 1 ms late), 0 (so is 3) */
        uint64_t j = 1000000 / 16;
        j -= j / 16;
        CHECK_EQ(rx.jitter_ns, j);
        CHECK(!iperf3_udp_account(&rx, d, c64 ? 15 : 11, c64, ours)); /* shorter than the header */
        CHECK_EQ(rx.packets, 5);
    }
    uint8_t h[16];
    iperf3_udp_header(h, 3000000123456ull, 0x123456789ull, true);
    static const uint8_t want[16] = {0, 0, 0x0b, 0xb8, 0, 0, 0, 0x7b, 0, 0, 0, 1, 0x23, 0x45, 0x67, 0x89};
    CHECK(memcmp(h, want, 16) == 0); /* 3000 s, 123 us */
}

/* -u's text: jitter, lost/total and the share lost, per stream and summed. */
TEST(iperf3_udp_report)
{
    struct iperf3_report rep = {.udp = true, .nstreams = 2, .duration_us = 1000000};
    rep.id[0] = 1, rep.id[1] = 3;
    rep.bytes[0] = rep.bytes[1] = 131400;
    rep.packets[0] = rep.packets[1] = 90;
    rep.lost[1] = 3;
    rep.jitter_ns[0] = 4000;
    rep.jitter_ns[1] = 1234567;
    char text[2000];
    iperf3_server_text(text, sizeof text, &rep);
    CHECK(strstr(text, "Bitrate         Jitter    Lost/Total Datagrams\n") != NULL);
    CHECK(strstr(text, "[  1]   0.00-1.00  sec   128 KBytes  1.05 Mbits/sec  0.004 ms  0/90 (0%)  receiver\n"));
    CHECK(strstr(text, "[  3]   0.00-1.00  sec   128 KBytes  1.05 Mbits/sec  1.235 ms  3/90 (3.3%)  receiver\n"));
    CHECK(strstr(text, "[SUM]   0.00-1.00  sec   257 KBytes  2.10 Mbits/sec  0.619 ms  3/180 (1.6%)  receiver\n"));
    char buf[IPERF3_JSON_MAX];
    size_t n = iperf3_format_results(buf, sizeof buf, &rep);
    CHECK(n > 0 && n < sizeof buf);
    buf[n] = 0;
    CHECK(strstr(buf, "\"jitter\":0.001234567,\"errors\":3,\"packets\":90") != NULL);
}

TEST(iperf3_results_too_many)
{
    char buf[8192];
    size_t n = (size_t)snprintf(buf, sizeof(buf), "{\"streams\":[");
    for (int i = 0; i < IPERF3_MAX_STREAMS + 4; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s{\"id\":%d,\"bytes\":10}", i ? "," : "", i + 1);
    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "]}");
    struct iperf3_peer_results r;
    CHECK_EQ(iperf3_parse_results(buf, n, &r), 0);
    CHECK(r.too_many);
    CHECK_EQ(r.nstreams, IPERF3_MAX_STREAMS);
    CHECK_EQ(r.total, 10 * IPERF3_MAX_STREAMS);
}

TEST(iperf3_json_malformed)
{
    static const char *bad[] = {
        "", " ", "[]", "true", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{,}", "{\"a\":1 \"b\":2}",
        "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":tru}", "{\"a\":nul}",
        "{\"a\":\"\\x\"}", "{\"a\":\"\\u12g4\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"abc}", "{\"a\":[1,2}",
        "{\"a\":[1,]}", "{\"a\":1}x", "{\"a\":1}{}", "{a:1}", "{\"a\":\"\x01\"}", "{\"a\":+1}",
    };
    struct iperf3_params p;
    struct iperf3_peer_results r;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (iperf3_parse_params(bad[i], strlen(bad[i]), &p) != -1 ||
            iperf3_parse_results(bad[i], strlen(bad[i]), &r) != -1) {
            fprintf(stderr, "  accepted: %s\n", bad[i]);
            unit_failures++;
        }
    }
    /* Deeper than the scanner goes. */
    char deep[64];
    size_t n = 0;
    deep[n++] = '{';
    for (int i = 0; i < 10; i++) {
        memcpy(deep + n, "\"a\":{", 5);
        n += 5;
    }
    CHECK_EQ(iperf3_parse_params(deep, n, &p), -1);
    /* Every proper prefix of a good message is refused; nothing is read
     * past len (ASan: a heap copy of exactly len bytes). */
    for (size_t len = 0; len < strlen(results_312); len++) {
        char *cut = malloc(len ? len : 1);
        memcpy(cut, results_312, len);
        if (iperf3_parse_results(cut, len, &r) != -1) {
            fprintf(stderr, "  prefix of %zu accepted\n", len);
            unit_failures++;
        }
        free(cut);
    }
}

TEST(iperf3_json_mutations)
{
    /* Random byte changes of real messages: any answer, but no crash, no
     * read outside the buffer, and no more streams than there is room for. */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 20000; round++) {
        const char *src = round & 1 ? results_312 : params_312;
        size_t mlen = strlen(src);
        char *m = malloc(mlen);
        memcpy(m, src, mlen);
        for (int k = 0; k < 1 + round % 4; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            static const char alphabet[] = "{}[]\":,\\-+.eE0123456789truefalsn u";
            m[x % mlen] = (x >> 32) & 1 ? (char)(x >> 40) : alphabet[(x >> 40) % (sizeof(alphabet) - 1)];
        }
        struct iperf3_params p;
        struct iperf3_peer_results r;
        iperf3_parse_params(m, mlen, &p);
        if (iperf3_parse_results(m, mlen, &r) == 0)
            CHECK(r.nstreams <= IPERF3_MAX_STREAMS);
        free(m);
    }
}
