/* SPDX-License-Identifier: MIT */
/* tests/support/fake_netdev.c: recording netdev, two-port test stack, frame
 * builders (tests/support/fake_netdev.h). */
#include "tests/support/fake_netdev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint8_t fake_mac0[6] = {0x02, 0, 0, 0, 0, 0x01};
const uint8_t fake_mac1[6] = {0x02, 0, 0, 0, 0, 0x02};
const uint8_t fake_peer_mac[6] = {0x02, 0, 0, 0, 0, 0xaa};

static uint16_t fake_tx(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t n)
{
    struct fake_netdev *f = (struct fake_netdev *)dev;
    uint16_t take = n < f->tx_accept ? n : f->tx_accept;
    if (take > FAKE_MAX_SENT - f->nsent)
        take = (uint16_t)(FAKE_MAX_SENT - f->nsent);
    for (uint16_t i = 0; i < take; i++)
        f->sent[f->nsent++] = pkts[i];
    f->tx_calls++;
    return take;
}

static uint16_t fake_rx(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t n)
{
    return 0;
}

static const struct netdev_ops fake_ops = {.rx_burst = fake_rx, .tx_burst = fake_tx};

void fake_netdev_init(struct fake_netdev *f, uint16_t index, const uint8_t *mac)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->dev.name, sizeof(f->dev.name), "eth%u", index);
    f->dev.driver = "fake";
    memcpy(f->dev.mac, mac, 6);
    f->dev.mtu = 1500;
    f->dev.nqueues = 1;
    f->dev.index = index;
    f->dev.ops = &fake_ops;
    f->tx_accept = 0xffff;
}

void fake_netdev_clear(struct fake_netdev *f)
{
    pkt_free_bulk(f->sent, f->nsent);
    f->nsent = 0;
    f->tx_calls = 0;
}

void fake_net_init(struct fake_net *fn, uint32_t nbufs)
{
    memset(fn, 0, sizeof(*fn));
    fn->mem = aligned_alloc(PKT_BUF_SIZE, (size_t)nbufs * PKT_BUF_SIZE);
    pkt_pool_init(&fn->pool, fn->mem, 0x1000000, (size_t)nbufs * PKT_BUF_SIZE);
    fn->s = calloc(1, sizeof(*fn->s));
    net_stack_init(fn->s, &fn->pool, 0);
    fake_netdev_init(&fn->nd[0], 0, fake_mac0);
    fake_netdev_init(&fn->nd[1], 1, fake_mac1);
    fn->nd[0].dev.link_up = fn->nd[1].dev.link_up = true;
    net_iface_add(fn->s, &fn->nd[0].dev, 0, FAKE_ADDR0, 24);
    net_iface_add(fn->s, &fn->nd[1].dev, 0, FAKE_ADDR1, 24);
    fn->now_ns = 1000000000ull;
    net_poll(fn->s, fn->now_ns);
    net_flush(fn->s);
    fake_netdev_clear(&fn->nd[0]);
    fake_netdev_clear(&fn->nd[1]);
    memset(&fn->s->ctr, 0, sizeof(fn->s->ctr));
}

void fake_net_free(struct fake_net *fn)
{
    net_stack_release(fn->s);
    fake_netdev_clear(&fn->nd[0]);
    fake_netdev_clear(&fn->nd[1]);
    free(fn->s);
    free(fn->mem);
}

struct pkt *fake_net_rx(struct fake_net *fn, uint16_t port, const void *frame, size_t len)
{
    struct pkt *p = pkt_alloc(&fn->pool);
    if (p == NULL)
        return NULL;
    if (len > PKT_DATA_ROOM)
        len = PKT_DATA_ROOM;
    memcpy(p->data, frame, len);
    p->len = (uint16_t)len;
    p->port = port;
    return p;
}

void fake_net_input(struct fake_net *fn, uint16_t port, const void *frame, size_t len)
{
    struct pkt *p = fake_net_rx(fn, port, frame, len);
    if (p == NULL)
        abort();
    net_input(fn->s, &p, 1, fn->now_ns);
    net_flush(fn->s);
}

void fake_net_learn_peer(struct fake_net *fn)
{
    uint8_t f[64];
    static const uint8_t zero[6];
    size_t n = fake_eth(f, eth_bcast_addr, fake_peer_mac, ETH_TYPE_ARP);
    n += fake_arp(f + n, ARP_OP_REQUEST, fake_peer_mac, FAKE_PEER, zero, FAKE_ADDR0);
    fake_net_input(fn, 0, f, n);
    fake_netdev_clear(&fn->nd[0]);
    memset(&fn->s->ctr, 0, sizeof(fn->s->ctr));
}

void fake_net_learn_peer6(struct fake_net *fn, const uint8_t *ours, const uint8_t *peer)
{
    uint8_t f[128], sn[16] = {0xff, 0x02, [11] = 1, [12] = 0xff, ours[13], ours[14], ours[15]};
    const uint8_t dmac[6] = {0x33, 0x33, 0xff, ours[13], ours[14], ours[15]};
    size_t n = fake_eth(f, dmac, fake_peer_mac, ETH_TYPE_IP6);
    uint8_t *ip = f + n, *m = ip + 40;
    memset(ip, 0, 40 + 32);
    ip[0] = 0x60;
    ip[5] = 32; /* payload length */
    ip[6] = 58; /* ICMPv6 */
    ip[7] = 255;
    memcpy(ip + 8, peer, 16);
    memcpy(ip + 24, sn, 16);
    m[0] = 135; /* neighbour solicitation: target, then the source link-layer address option */
    memcpy(m + 8, ours, 16);
    m[24] = 1;
    m[25] = 1;
    memcpy(m + 26, fake_peer_mac, 6);
    uint32_t sum = 32 + 58;
    for (int i = 8; i < 40; i += 2)
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    uint16_t c = fake_csum(m, 32, sum);
    m[2] = (uint8_t)(c >> 8);
    m[3] = (uint8_t)c;
    fake_net_input(fn, 0, f, n + 40 + 32);
    fake_netdev_clear(&fn->nd[0]);
    memset(&fn->s->ctr, 0, sizeof(fn->s->ctr));
}

bool fake_net_all_free(struct fake_net *fn)
{
    net_flush(fn->s);
    fake_netdev_clear(&fn->nd[0]);
    fake_netdev_clear(&fn->nd[1]);
    return fn->pool.nfree == fn->pool.total;
}

int fake_expect_table(const void *ctr, fake_counter_at_fn at, const char *spec)
{
    char names[64][48];
    unsigned long long vals[64];
    int n = 0, bad = 0, used;
    const char *q = spec;
    const struct net_counter_desc *d;
    while (n < 64 && sscanf(q, " %47[^= ]=%llu%n", names[n], &vals[n], &used) == 2) {
        size_t i = 0;
        while ((d = at(i)) != NULL && strcmp(d->name, names[n]) != 0)
            i++;
        if (d == NULL) {
            fprintf(stderr, "  no counter %s\n", names[n]);
            bad++;
        }
        q += used;
        n++;
    }
    for (size_t i = 0; (d = at(i)) != NULL; i++) {
        unsigned long long want = 0, got = *(const uint64_t *)(const void *)((const char *)ctr + d->offset);
        for (int j = 0; j < n; j++)
            if (strcmp(names[j], d->name) == 0)
                want = vals[j];
        if (got != want) {
            fprintf(stderr, "  counter %s is %llu, expected %llu\n", d->name, got, want);
            bad++;
        }
    }
    return bad;
}

int fake_expect_counters(const struct net_stack *s, const char *spec)
{
    return fake_expect_table(&s->ctr, net_counter_at, spec);
}

uint16_t fake_csum(const void *buf, size_t len, uint32_t sum)
{
    const uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        sum += (i & 1) ? b[i] : (uint32_t)b[i] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

size_t fake_eth(uint8_t *buf, const uint8_t *dst, const uint8_t *src, uint16_t type)
{
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    put16(buf + 12, type);
    return 14;
}

size_t fake_ip4(uint8_t *buf, uint32_t src_be, uint32_t dst_be, uint8_t proto, uint16_t id,
                uint16_t frag, const void *payload, size_t len)
{
    buf[0] = 0x45;
    buf[1] = 0;
    put16(buf + 2, (uint16_t)(20 + len));
    put16(buf + 4, id);
    put16(buf + 6, frag);
    buf[8] = 64;
    buf[9] = proto;
    put16(buf + 10, 0);
    memcpy(buf + 12, &src_be, 4);
    memcpy(buf + 16, &dst_be, 4);
    put16(buf + 10, fake_csum(buf, 20, 0));
    if (len)
        memmove(buf + 20, payload, len);
    return 20 + len;
}

/* The pseudo-header's sum, as fake_csum's running sum. */
static uint32_t pseudo(uint32_t src_be, uint32_t dst_be, uint8_t proto, size_t len)
{
    uint8_t ph[12];
    memcpy(ph, &src_be, 4);
    memcpy(ph + 4, &dst_be, 4);
    ph[8] = 0;
    ph[9] = proto;
    put16(ph + 10, (uint16_t)len);
    uint32_t sum = 0;
    for (int i = 0; i < 12; i += 2)
        sum += (uint32_t)ph[i] << 8 | ph[i + 1];
    return sum;
}

size_t fake_udp(uint8_t *buf, uint32_t src_be, uint32_t dst_be, uint16_t sport, uint16_t dport,
                const void *payload, size_t len)
{
    put16(buf, sport);
    put16(buf + 2, dport);
    put16(buf + 4, (uint16_t)(8 + len));
    put16(buf + 6, 0);
    if (len)
        memmove(buf + 8, payload, len);
    uint16_t c = fake_csum(buf, 8 + len, pseudo(src_be, dst_be, IP4_PROTO_UDP, 8 + len));
    put16(buf + 6, c ? c : 0xffff);
    return 8 + len;
}

size_t fake_icmp(uint8_t *buf, uint8_t type, uint8_t code, uint32_t rest, const void *payload,
                 size_t len)
{
    buf[0] = type;
    buf[1] = code;
    put16(buf + 2, 0);
    put16(buf + 4, (uint16_t)(rest >> 16));
    put16(buf + 6, (uint16_t)rest);
    if (len)
        memmove(buf + 8, payload, len);
    put16(buf + 2, fake_csum(buf, 8 + len, 0));
    return 8 + len;
}

size_t fake_arp(uint8_t *buf, uint16_t op, const uint8_t *sha, uint32_t spa_be, const uint8_t *tha,
                uint32_t tpa_be)
{
    put16(buf, 1);
    put16(buf + 2, ETH_TYPE_IP4);
    buf[4] = 6;
    buf[5] = 4;
    put16(buf + 6, op);
    memcpy(buf + 8, sha, 6);
    memcpy(buf + 14, &spa_be, 4);
    memcpy(buf + 18, tha, 6);
    memcpy(buf + 24, &tpa_be, 4);
    return 28;
}

size_t fake_frame_ip4(uint8_t *buf, uint8_t proto, uint16_t id, uint16_t frag, const void *payload,
                      size_t len)
{
    size_t n = fake_eth(buf, fake_mac0, fake_peer_mac, ETH_TYPE_IP4);
    return n + fake_ip4(buf + n, FAKE_PEER, FAKE_ADDR0, proto, id, frag, payload, len);
}
