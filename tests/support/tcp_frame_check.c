/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_frame_check.c: the TCP tests' frame checker
 * (tcp_frame_check.h). */
#include "tests/support/tcp_frame_check.h"

#include <stdio.h>
#include <string.h>

#include "tests/support/fake_netdev.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t rd32(const uint8_t *p) { return (uint32_t)rd16(p) << 16 | rd16(p + 2); }

/* The pseudo-header's sum as fake_csum's running sum. */
static uint32_t pseudo(const uint8_t *ip, uint32_t tcp_len)
{
    uint32_t sum = 0;
    for (int i = 12; i < 20; i += 2)
        sum += rd16(ip + i);
    return sum + IP4_PROTO_TCP + tcp_len;
}

bool fr_parse(const struct pkt *p, struct fr *f)
{
    const uint8_t *d = p->data;
    memset(f, 0, sizeof(*f));
    if (p->len < 14)
        return false;
    f->l2 = 14;
    uint16_t type = rd16(d + 12);
    if (type == ETH_TYPE_VLAN) {
        f->vid = rd16(d + 14) & 0xfff;
        type = rd16(d + 16);
        f->l2 = 18;
    }
    if (type != ETH_TYPE_IP4 || p->len < f->l2 + 40 || d[f->l2 + 9] != IP4_PROTO_TCP)
        return false;
    f->ip = d + f->l2;
    f->tot = rd16(f->ip + 2);
    f->tcp = f->ip + 20;
    f->seq = rd32(f->tcp + 4);
    f->ack = rd32(f->tcp + 8);
    f->hlen = (uint32_t)(f->tcp[12] >> 4) * 4;
    f->flags = f->tcp[13];
    f->wnd = rd16(f->tcp + 14);
    f->len = f->tot >= 20 + f->hlen ? f->tot - 20 - f->hlen : 0;
    if (f->hlen >= 20 && f->hlen <= 60 && f->l2 + 20 + f->hlen <= p->len)
        tcp_opt_parse(f->tcp + 20, f->hlen - 20, &f->opt);
    return true;
}

#define BAD(k, what)                                                                     \
    do {                                                                                 \
        if ((k)->bad++ < 5)                                                              \
            fprintf(stderr, "  frame %d: %s\n", (k)->frames, what);                      \
    } while (0)

void chk_frame(struct chk *k, const struct pkt *p)
{
    struct fr f;
    if (!fr_parse(p, &f))
        return;
    k->frames++;
    bool tso = (p->flags & PKT_TX_TSO4) != 0;
    uint32_t flen = pkt_frame_len(p);
    if (f.vid != k->vid || (k->vid && f.l2 != 18) || (!k->vid && f.l2 != 14))
        BAD(k, "VLAN tag");
    if (flen < ETH_MIN_LEN)
        BAD(k, "shorter than the Ethernet minimum");
    if (f.ip[0] != 0x45 || f.ip[8] != 64 || rd16(f.ip + 6) != IP4_DF)
        BAD(k, "IPv4 version, TTL or DF");
    if (fake_csum(f.ip, 20, 0) != 0)
        BAD(k, "IPv4 header checksum");
    if (f.l2 + f.tot > flen || f.tot < 40)
        BAD(k, "IPv4 total length beyond the frame");
    else if (f.l2 + f.tot < flen) {
        /* Padding: only up to the minimum, only zeros. */
        if (tso || flen != ETH_MIN_LEN)
            BAD(k, "IPv4 total length short of the frame");
        for (uint32_t i = f.l2 + f.tot; i < p->len; i++)
            if (p->data[i] != 0)
                BAD(k, "padding not zero");
        k->padded++;
    }
    uint32_t tcp_len = f.tot - 20;
    if (f.hlen < 20 || f.hlen > tcp_len || (f.tcp[12] & 0x0f))
        BAD(k, "TCP data offset");
    if (!(f.flags & TCP_SYN)) {
        uint32_t want = 20 + (f.opt.has_ts ? TCP_TS_ALIGNED_LEN : 0) + (f.opt.nsack ? 4 + 8u * f.opt.nsack : 0);
        if (f.hlen != want)
            BAD(k, "TCP data offset not what the options need");
        if (k->ts >= 0 && f.opt.has_ts != (k->ts == 1))
            BAD(k, "timestamps option");
        if (f.opt.has_ts && f.opt.tsecr == 0 && (f.flags & TCP_ACK))
            BAD(k, "timestamps option with no echo");
        if (f.opt.has_mss || f.opt.has_ws || f.opt.sack_ok)
            BAD(k, "SYN options outside a SYN");
    }
    if ((f.flags & TCP_RST) && f.opt.nsack)
        BAD(k, "SACK blocks on a RST");
    k->ts_seen += f.opt.has_ts;
    k->sacks += f.opt.nsack != 0;
    k->data_sacks += f.opt.nsack != 0 && f.len != 0;
    k->rsts += (f.flags & TCP_RST) != 0;
    if (p->flags & PKT_TX_L4_CSUM) {
        /* Left to the NIC: the pseudo-header's sum, at the right place. */
        uint16_t field = rd16(f.tcp + 16);
        uint16_t want = (uint16_t)~fake_csum(NULL, 0, pseudo(f.ip, tcp_len));
        if (p->csum_start != f.l2 + 20 || p->csum_offset != 16)
            BAD(k, "csum_start / csum_offset");
        if (field != want)
            BAD(k, "pseudo-header sum for the NIC");
        k->offloaded++;
    } else if (tso) {
        BAD(k, "TSO without checksum offload");
    } else if (fake_csum(f.tcp, tcp_len, pseudo(f.ip, tcp_len)) != 0) {
        BAD(k, "TCP checksum");
    }
    if (tso) {
        k->tso++;
        if (!(p->flags & PKT_F_CHAIN) || p->tso_mss == 0 || f.len <= p->tso_mss)
            BAD(k, "TSO frame fields");
    }
}

bool chk_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct tapctx *t = ctx;
    struct fr f;
    chk_frame(&t->k, p);
    if (t->drop_all[from])
        return false;
    if (from != 0 || !fr_parse(p, &f) || f.len == 0 || (f.flags & TCP_SYN))
        return true;
    for (int i = 0; i < t->ndrop; i++)
        if (f.seq - t->base == t->drop[i] && !t->dropped[i]) {
            t->dropped[i] = true;
            return false;
        }
    return true;
}

bool both_open(void *ctx)
{
    struct ta *a = ctx;
    return a[0].c && a[1].c && a[0].connected && a[1].accepted;
}

bool got_all(void *ctx)
{
    struct ta *a = ctx;
    return a[1].rx_bytes >= a[0].tx_total;
}

struct tl *link_new(struct tapctx *t, uint16_t vid, const struct tcp_config *cfg, uint32_t offloads)
{
    struct tl_opts o = {.offloads = offloads, .seed = 5, .cfg = {cfg, cfg}};
    struct tl *l = tl_new(&o);
    for (int i = 0; i < 2; i++)
        l->s[i]->iface[0].vlan_id = vid;
    t->k.vid = vid;
    l->tap = chk_tap;
    l->tap_ctx = t;
    return l;
}
