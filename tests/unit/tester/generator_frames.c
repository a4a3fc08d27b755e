/* SPDX-License-Identifier: MIT */
/* tests/unit/tester/generator_frames.c: the generator's frames
 * (tester/gen_frame.c): every size and flow has right lengths and
 * checksums as a receiver recomputes them from scratch, the stamp reads
 * back, flows vary as RFC 4814 asks, and what is not a stamped frame is
 * told apart. */
#include <string.h>

#include "net/core/core.h"
#include "tester/gen_frame.h"
#include "tests/unit/check.h"

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static struct gen_flow_spec spec(bool ip6)
{
    struct gen_flow_spec f = {.ip6 = ip6, .flows = 1000, .seed = 7,
                              .src_mac = {2, 0, 0, 0, 0, 1}, .dst_mac = {2, 0, 0, 0, 0, 2}};
    if (ip6) {
        uint8_t s[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x00};
        uint8_t d[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x99};
        __builtin_memcpy(f.src, s, 16);
        __builtin_memcpy(f.dst, d, 16);
    } else {
        uint8_t s[4] = {198, 18, 0, 1}, d[4] = {198, 19, 0, 1}; /* RFC 2544's benchmarking range */
        __builtin_memcpy(f.src, s, 4);
        __builtin_memcpy(f.dst, d, 4);
    }
    return f;
}

/* The frame checked from scratch: lengths, the IPv4 header checksum and
 * the UDP checksum over the pseudo-header, as a receiving host does. */
static void check_frame(const uint8_t *p, uint16_t len, bool ip6)
{
    uint32_t l4, udp_len, sum;
    if (ip6) {
        CHECK_EQ(be16(p + 12), ETH_TYPE_IP6);
        udp_len = be16(p + 14 + 4);
        CHECK_EQ(udp_len, len - 14 - 40);
        l4 = 14 + 40;
        sum = csum_partial(p + 14 + 8, 32, 0);
        sum = csum_add(sum, net_htons((uint16_t)udp_len));
        sum = csum_add(sum, net_htons(IP4_PROTO_UDP));
    } else {
        CHECK_EQ(be16(p + 12), ETH_TYPE_IP4);
        CHECK(csum_ip4_hdr20_ok(p + 14));
        uint16_t ip_len = be16(p + 16);
        CHECK(ip_len <= len - 14);
        l4 = 14 + 20;
        udp_len = be16(p + l4 + 4);
        CHECK_EQ(udp_len, ip_len - 20);
        uint32_t s, d;
        __builtin_memcpy(&s, p + 26, 4);
        __builtin_memcpy(&d, p + 30, 4);
        sum = csum_pseudo4(s, d, IP4_PROTO_UDP, (uint16_t)udp_len);
    }
    CHECK_EQ(csum_fold(csum_partial(p + l4, udp_len, sum)), 0xffff);
}

TEST(gen_frames_of_every_size_check_out)
{
    static struct gen_tmpl t;
    static uint8_t buf[GEN_MAX_FRAME];
    uint16_t sizes[] = {64, 65, 82, 128, 256, 512, 570, 1024, 1280, 1518, 1519, 9018, GEN_MAX_FRAME};
    for (int v6 = 0; v6 < 2; v6++) {
        struct gen_flow_spec f = spec(v6);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (gen_tmpl_build(&t, &f, sizes[i]) != 0) {
                CHECK(v6 && sizes[i] < GEN_MIN_FRAME6);
                continue;
            }
            CHECK_EQ(t.len, sizes[i] - 4);
            for (uint32_t flow = 0; flow < 2500; flow += 7) {
                gen_tmpl_write(&t, buf, sizeof buf, flow, 3, 0xfffffff0u + flow, 0x1122334455667788ull + flow);
                check_frame(buf, t.len, v6);
                struct gen_stamp st;
                CHECK(gen_stamp_parse(buf, t.len, &st));
                CHECK_EQ(st.stream, 3);
                CHECK_EQ(st.seq, 0xfffffff0u + flow);
                CHECK(st.ticks == 0x1122334455667788ull + flow);
                /* The source address's last 16 bits: the flow's. */
                uint16_t low = be16(buf + (v6 ? 14 + 8 + 14 : 14 + 14));
                CHECK_EQ(low, gen_flow_src_low(v6 ? 0x1000 : 1, flow % 1000));
            }
        }
    }
}

TEST(gen_flow_sources_skip_network_and_broadcast_bytes)
{
    /* From .2 of a /24: .2 to .254, then .1 of the next 256 on; every
     * flow its own address, none ending in 0 or 255. */
    static uint8_t seen[65536];
    CHECK_EQ(gen_flow_src_low(2, 0), 2);
    CHECK_EQ(gen_flow_src_low(2, 252), 254);
    CHECK_EQ(gen_flow_src_low(2, 253), 0x101);
    CHECK_EQ(gen_flow_src_low(0, 0), 1);
    CHECK_EQ(gen_flow_src_low(0x12ff, 0), 0x1201);
    for (uint32_t k = 0; k < 20000; k++) {
        uint16_t v = gen_flow_src_low(0x0005, k);
        CHECK((v & 0xff) != 0 && (v & 0xff) != 0xff);
        CHECK(!seen[v]++);
    }
}

TEST(gen_flows_ports_follow_rfc4814)
{
    /* 4.5: source 1024-65535, destination 1-49151, the same for a flow,
     * and spread: few repeats among a thousand flows. */
    static uint8_t seen_s[65536], seen_d[65536];
    int repeats = 0;
    for (uint32_t k = 0; k < 1000; k++) {
        uint16_t s, d, s2, d2;
        gen_flow_ports(7, k, &s, &d);
        gen_flow_ports(7, k, &s2, &d2);
        CHECK(s == s2 && d == d2);
        CHECK(s >= 1024);
        CHECK(d >= 1 && d <= 49151);
        repeats += seen_s[s]++ + seen_d[d]++;
    }
    CHECK(repeats < 40);
    uint16_t a, b, c, d;
    gen_flow_ports(7, 1, &a, &b);
    gen_flow_ports(8, 1, &c, &d);
    CHECK(a != c || b != d);
}

TEST(gen_jumbo_frame_written_by_parts_is_the_whole_frame)
{
    /* A frame past one buffer (kernel/netsvc/gen.c): its first room bytes
     * written for the flow and stamp, the rest the template's own. */
    static struct gen_tmpl t;
    static uint8_t whole[GEN_MAX_FRAME], parts[GEN_MAX_FRAME];
    for (int v6 = 0; v6 < 2; v6++) {
        struct gen_flow_spec f = spec(v6);
        CHECK_EQ(gen_tmpl_build(&t, &f, 9018), 0);
        const uint32_t rooms[] = {GEN_VARIABLE_END, 1024, 1856};
        for (size_t r = 0; r < sizeof rooms / sizeof rooms[0]; r++) {
            gen_tmpl_write(&t, whole, sizeof whole, 77, 5, 1234, 99);
            memset(parts, 0xee, sizeof parts);
            gen_tmpl_write(&t, parts, rooms[r], 77, 5, 1234, 99);
            CHECK(parts[rooms[r]] == 0xee); /* not a byte past room */
            memcpy(parts + rooms[r], t.frame + rooms[r], t.len - rooms[r]);
            CHECK(memcmp(whole, parts, t.len) == 0);
            check_frame(parts, t.len, v6);
        }
    }
}

TEST(gen_template_refuses_what_cannot_be_sent)
{
    static struct gen_tmpl t;
    struct gen_flow_spec f4 = spec(false), f6 = spec(true);
    CHECK_EQ(gen_tmpl_build(&t, &f4, 63), -1);
    CHECK_EQ(gen_tmpl_build(&t, &f4, GEN_MAX_FRAME + 1), -1);
    CHECK_EQ(gen_tmpl_build(&t, &f6, GEN_MIN_FRAME6 - 1), -1);
    CHECK_EQ(gen_tmpl_build(&t, &f6, GEN_MIN_FRAME6), 0);
    f4.flows = 0;
    CHECK_EQ(gen_tmpl_build(&t, &f4, 64), -1);
    f4.flows = 65537;
    CHECK_EQ(gen_tmpl_build(&t, &f4, 64), -1);
}

TEST(gen_stamp_parse_takes_only_stamped_frames)
{
    static struct gen_tmpl t;
    static uint8_t buf[2048];
    struct gen_flow_spec f = spec(false);
    gen_tmpl_build(&t, &f, 128);
    gen_tmpl_write(&t, buf, sizeof buf, 0, 1, 2, 3);
    struct gen_stamp st;
    CHECK(gen_stamp_parse(buf, t.len, &st));
    /* Truncated anywhere before the stamp's end: not ours. */
    for (uint32_t n = 0; n < 14 + 20 + 8 + 16; n++)
        CHECK(!gen_stamp_parse(buf, n, &st));
    /* One 802.1Q tag is looked through. */
    static uint8_t tagged[2048];
    __builtin_memcpy(tagged, buf, 12);
    tagged[12] = 0x81, tagged[13] = 0x00, tagged[14] = 0x00, tagged[15] = 0x05;
    __builtin_memcpy(tagged + 16, buf + 12, t.len - 12);
    CHECK(gen_stamp_parse(tagged, t.len + 4u, &st));
    CHECK_EQ(st.seq, 2);
    /* A later fragment, another protocol, a wrong magic: not ours. */
    buf[14 + 6] = 0x00, buf[14 + 7] = 0x10;
    CHECK(!gen_stamp_parse(buf, t.len, &st));
    buf[14 + 7] = 0;
    buf[14 + 9] = IP4_PROTO_TCP;
    CHECK(!gen_stamp_parse(buf, t.len, &st));
    buf[14 + 9] = IP4_PROTO_UDP;
    buf[14 + 20 + 8] ^= 1;
    CHECK(!gen_stamp_parse(buf, t.len, &st));
}

TEST(gen_imix_is_7_4_1)
{
    unsigned n64 = 0, n570 = 0, n1518 = 0, total = 0;
    for (uint64_t i = 0; i < 1200; i++) {
        uint16_t s = gen_imix_size(i);
        n64 += s == 64, n570 += s == 570, n1518 += s == 1518;
        total += s;
    }
    CHECK_EQ(n64, 700);
    CHECK_EQ(n570, 400);
    CHECK_EQ(n1518, 100);
    CHECK_EQ(total, 100 * GEN_IMIX_MEAN_X12);
}
