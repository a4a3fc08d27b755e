/* SPDX-License-Identifier: MIT */
/* tests/unit/ip/ip6_fragments.c: IPv6 fragments (RFC 8200 4.5): a 4000-byte
 * ping reassembled and answered in fragments, UDP echo of fragmented
 * datagrams, and the fragment errors (net/ip/ip6.c, reasm.c). */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/ip6_fixture.h"

#include "net/ip/ip6.h"
#include "net/link/nd6.h"
#include "net/link/ra6.h"
#include "net/ip/udp.h"
#include "apps/udp_echo.h"

#define STEP6 1448 /* what fits a 1500-byte MTU with a Fragment header, in 8s */

/* The upper-layer message l4 (len bytes, its checksum made) from src to
 * dst as fragments of STEP6 bytes with id, fed in order (piece indexes,
 * ending at -1; those past the end skipped). */
static void send_frags6(struct fake_net *fn, const uint8_t *src, const uint8_t *dst, uint32_t id, uint8_t next,
                        const uint8_t *l4, uint32_t len, const int *order)
{
    for (int i = 0; order[i] >= 0; i++) {
        uint8_t f[1600], fr[IP6_FRAG_HDR_LEN + STEP6];
        uint32_t off = (uint32_t)order[i] * STEP6, n = len - off < STEP6 ? len - off : STEP6;
        if (off >= len)
            continue; /* (a piece a shorter message has not) */
        uint16_t offlg = (uint16_t)(off | (off + n < len ? 1u : 0u));
        fr[0] = next;
        fr[1] = 0;
        fr[2] = (uint8_t)(offlg >> 8);
        fr[3] = (uint8_t)offlg;
        uint32_t id_be = net_htonl(id);
        memcpy(fr + 4, &id_be, 4);
        memcpy(fr + IP6_FRAG_HDR_LEN, l4 + off, n);
        fake_net_input(fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, src, dst, 64, IP6_PROTO_FRAG, fr,
                                        IP6_FRAG_HDR_LEN + n));
    }
}

/* What was sent on eth0, reassembled into out: each fragment fits 1500
 * bytes, carries a multiple of 8 but the last, and all one id. Returns
 * the upper layer's length (0: it does not add up); *next its type. */
static uint32_t collect6(struct fake_netdev *nd, uint8_t *out, uint8_t *next)
{
    uint32_t got = 0, end = 0;
    for (uint32_t i = 0; i < nd->nsent; i++) {
        const struct ip6_hdr *h = hdr_of(nd->sent[i]);
        const uint8_t *fr = icmp_of(nd->sent[i]);
        uint32_t plen = net_ntohs(h->plen_be), n = plen - IP6_FRAG_HDR_LEN;
        uint32_t off = (uint32_t)(fr[2] << 8 | fr[3]) & 0xfff8u;
        CHECK(h->next == IP6_PROTO_FRAG && IP6_HDR_LEN + plen <= 1500);
        CHECK(memcmp(fr + 4, icmp_of(nd->sent[0]) + 4, 4) == 0);
        if (fr[3] & 1)
            CHECK_EQ(n % 8, 0);
        else
            end = off + n;
        memcpy(out + off, fr + IP6_FRAG_HDR_LEN, n);
        *next = fr[0];
        got += n;
    }
    return got == end ? end : 0;
}

/* ping -s 4000 to us: three fragments in any order; the reply, longer
 * than a buffer, goes out in three, and every buffer comes back. */
TEST(ip6_ping_4000_reassembled_and_answered_in_fragments)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    static uint8_t m[8 + 4000], reply[8 + 4000];
    m[0] = ICMP6_ECHO;
    m[5] = 7;
    for (uint32_t i = 8; i < sizeof(m); i++)
        m[i] = (uint8_t)(i * 13 + 1);
    uint16_t c = ip6_l4_csum(PEER0, A0, IP6_PROTO_ICMP6, m, sizeof(m));
    memcpy(m + 2, &c, 2);
    static const int orders[][4] = {{0, 1, 2, -1}, {2, 0, 1, -1}, {1, 2, 0, -1}};
    for (int k = 0; k < 3; k++) {
        send_frags6(&fn, PEER0, A0, 100 + (uint32_t)k, IP6_PROTO_ICMP6, m, sizeof(m), orders[k]);
        uint8_t next = 0;
        CHECK_EQ(fn.nd[0].nsent, 3);
        CHECK_EQ(collect6(&fn.nd[0], reply, &next), sizeof(reply));
        CHECK(next == IP6_PROTO_ICMP6 && reply[0] == ICMP6_ECHO_REPLY && memcmp(reply + 4, m + 4, sizeof(m) - 4) == 0);
        CHECK_EQ(ip6_l4_csum(A0, PEER0, IP6_PROTO_ICMP6, reply, sizeof(reply)), 0);
        CHECK(memcmp(hdr_of(fn.nd[0].sent[0])->src, A0, 16) == 0);
        fake_net_all_free(&fn);
    }
    /* To our link-local address from a link-local peer: answered out of
     * the port it came in on (no route names one). */
    uint8_t f[128], ll_peer[16] = {0xfe, 0x80, [15] = 0x22}, sn[16], gmac[6] = {0x33, 0x33, 0xff};
    const uint8_t *ll0 = fn.s->iface[0].ll6;
    ip6_solicited_node(ll0, sn);
    memcpy(gmac + 3, sn + 13, 3);
    fake_net_input(&fn, 0, f, ns(f, gmac, fake_peer_mac, ll_peer, sn, ll0, fake_peer_mac));
    fake_net_all_free(&fn);
    m[2] = m[3] = 0;
    c = ip6_l4_csum(ll_peer, ll0, IP6_PROTO_ICMP6, m, sizeof(m));
    memcpy(m + 2, &c, 2);
    send_frags6(&fn, ll_peer, ll0, 200, IP6_PROTO_ICMP6, m, sizeof(m), orders[0]);
    uint8_t next = 0;
    CHECK(fn.nd[0].nsent == 3 && collect6(&fn.nd[0], reply, &next) == sizeof(reply));
    CHECK_EQ(ip6_l4_csum(ll0, ll_peer, IP6_PROTO_ICMP6, reply, sizeof(reply)), 0);
    fake_net_all_free(&fn);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=14 eth-tx=14 ip6-rx=14 ip6-local=14 ip6-reasm-ok=4 ip6-frag-tx=12 "
                                        "ip6-tx=14 icmp6-rx=6 icmp6-rx-echo=4 icmp6-tx-echo-reply=4 nd6-rx-ns=2 "
                                        "nd6-tx-na=2"),
             0);
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* UDP echo of datagrams that came in fragments: one that fits a buffer
 * once whole (answered from it), one that does not (copied out); both
 * answers longer than the MTU, so fragmented. */
TEST(ip6_udp_echo_of_fragmented_datagrams)
{
    struct fake_net fn;
    setup(&fn);
    CHECK_EQ(udp_echo_start(fn.s, 7), 0);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    static const uint32_t sizes[] = {1600, 3000};
    for (int k = 0; k < 2; k++) {
        static uint8_t u[8 + 3000], back[8 + 3000];
        uint32_t len = 8 + sizes[k];
        u[0] = 0x13, u[1] = 0x88, u[3] = 7, u[4] = (uint8_t)(len >> 8), u[5] = (uint8_t)len, u[6] = u[7] = 0;
        for (uint32_t i = 8; i < len; i++)
            u[i] = (uint8_t)(i + k);
        uint16_t c = ip6_l4_csum(PEER0, A0, IP4_PROTO_UDP, u, len);
        memcpy(u + 6, &c, 2);
        send_frags6(&fn, PEER0, A0, 7, IP4_PROTO_UDP, u, len, (const int[]){1, 0, 2, -1});
        uint8_t next = 0;
        CHECK_EQ(fn.nd[0].nsent, (len + STEP6 - 1) / STEP6);
        CHECK_EQ(collect6(&fn.nd[0], back, &next), len);
        CHECK(next == IP4_PROTO_UDP && back[0] == 0 && back[1] == 7 && back[2] == 0x13 && back[3] == 0x88);
        CHECK(memcmp(back + 8, u + 8, len - 8) == 0);
        CHECK_EQ(ip6_l4_csum(A0, PEER0, IP4_PROTO_UDP, back, len), 0);
        fake_net_all_free(&fn);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=6 eth-tx=6 ip6-rx=6 ip6-local=6 ip6-reasm-ok=2 ip6-frag-tx=5 "
                                        "ip6-tx=6 icmp6-rx=1 nd6-rx-ns=1 nd6-tx-na=1 udp-rx=2 udp-tx=2"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* An atomic fragment is the datagram itself (RFC 6946); a middle fragment
 * not a multiple of 8 gets a parameter problem; overlaps drop the whole
 * datagram (RFC 5722); an incomplete one times out with time exceeded
 * code 1, but only when its first fragment came. */
TEST(ip6_fragment_errors)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    uint8_t f[1600], fr[IP6_FRAG_HDR_LEN + 8 + 100] = {IP6_PROTO_ICMP6, 0, 0, 0, 0, 0, 0, 9};
    uint8_t *m = fr + IP6_FRAG_HDR_LEN;
    m[0] = ICMP6_ECHO;
    uint16_t c = ip6_l4_csum(PEER0, A0, IP6_PROTO_ICMP6, m, 108);
    memcpy(m + 2, &c, 2);
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 64, IP6_PROTO_FRAG, fr, sizeof(fr)));
    CHECK(fn.nd[0].nsent == 1 && icmp_ok(fn.nd[0].sent[0]) && icmp_of(fn.nd[0].sent[0])[0] == ICMP6_ECHO_REPLY);
    fake_net_all_free(&fn);

    fr[3] = 1; /* more to come, but 108 bytes is no multiple of 8 */
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 64, IP6_PROTO_FRAG, fr, sizeof(fr)));
    CHECK(fn.nd[0].nsent == 1 && icmp_ok(fn.nd[0].sent[0]) && icmp_of(fn.nd[0].sent[0])[0] == ICMP6_PARAM_PROBLEM &&
          icmp_of(fn.nd[0].sent[0])[7] == 4);
    fake_net_all_free(&fn);

    /* A solicitation in an atomic fragment: ignored (RFC 6980 5). */
    uint8_t nsf[IP6_FRAG_HDR_LEN + 24] = {IP6_PROTO_ICMP6, 0, 0, 0, 0, 0, 0, 10, ND6_NS};
    memcpy(nsf + IP6_FRAG_HDR_LEN + 8, A0, 16);
    c = ip6_l4_csum(PEER0, A0, IP6_PROTO_ICMP6, nsf + IP6_FRAG_HDR_LEN, 24);
    memcpy(nsf + IP6_FRAG_HDR_LEN + 2, &c, 2);
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 255, IP6_PROTO_FRAG, nsf, sizeof(nsf)));
    CHECK_EQ(fn.nd[0].nsent, 0);

    static uint8_t big[8 + 3000];
    big[0] = ICMP6_ECHO;
    send_frags6(&fn, PEER0, A0, 20, IP6_PROTO_ICMP6, big, sizeof(big), (const int[]){0, -1});
    fr[3] = 8 | 1; /* offset 8: inside the first */
    fr[7] = 20;
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 64, IP6_PROTO_FRAG, fr, 8 + 104));
    CHECK_EQ(fn.s->reasm.bufs, 0);

    send_frags6(&fn, PEER0, A0, 21, IP6_PROTO_ICMP6, big, sizeof(big), (const int[]){0, -1});
    send_frags6(&fn, PEER0, A0, 22, IP6_PROTO_ICMP6, big, sizeof(big), (const int[]){1, -1});
    CHECK_EQ(fn.nd[0].nsent, 0);
    fn.now_ns += REASM_TIMEOUT_NS;
    net_poll(fn.s, fn.now_ns);
    net_flush(fn.s);
    int exceeded = 0; /* (besides a probe of PEER0, stale by now) */
    for (uint32_t i = 0; i < fn.nd[0].nsent; i++) {
        const uint8_t *e = icmp_of(fn.nd[0].sent[i]);
        exceeded += icmp_ok(fn.nd[0].sent[i]) && e[0] == ICMP6_TIME_EXCEEDED && e[1] == 1 &&
                    memcmp(e + 8 + 8, PEER0, 16) == 0; /* quoting the first fragment, from PEER0 */
    }
    CHECK_EQ(exceeded, 1);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=8 eth-tx=5 ip6-rx=8 ip6-local=8 ip6-frag-bad=2 ip6-reasm-overlap=1 "
                                        "ip6-reasm-timeout=2 ip6-tx=5 icmp6-rx=2 icmp6-rx-echo=1 "
                                        "icmp6-tx-echo-reply=1 icmp6-tx-error=2 nd6-rx-ns=1 nd6-tx-na=1 nd6-tx-ns=1"),
             0);
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
