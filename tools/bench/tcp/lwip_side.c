/* SPDX-License-Identifier: MIT */
/* tools/bench/tcp/lwip_side.c: one lwIP instance on the benchmark's
 * in-memory link, with the same applications as hayate's side: ping-pong
 * (echo what arrives, copied: it is one byte) and bulk (a source writing
 * zero-copy from a static buffer, a sink).
 *
 * This file and lwIP are linked into one object whose global symbols are
 * then renamed twice (a_, b_: tools/bench.py), giving two independent
 * stacks in one process, as hayate has two struct net_stack. */
#include <string.h>

#include "lwip/etharp.h"
#include "lwip/init.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
#include "lwip/timeouts.h"
#include "netif/ethernet.h"

/* The link (tools/bench/tcp/tcp_bench.c): a slot for a frame from side
 * `from`, then its length. */
extern unsigned char *bench_link_slot(int from);
extern void bench_link_commit(int from, unsigned len);

static struct netif nif;
static int side;
static unsigned long long rx_bytes;
static unsigned bulk_chunk;
static unsigned long long bulk_left_in_msg;
static unsigned char bulk_data[65536];

static err_t link_out(struct netif *n, struct pbuf *p)
{
    unsigned char *slot = bench_link_slot(side);
    if (slot == NULL)
        return ERR_OK; /* the link is full: dropped */
    bench_link_commit(side, pbuf_copy_partial(p, slot, p->tot_len, 0));
    return ERR_OK;
}

static err_t nif_init(struct netif *n)
{
    n->name[0] = 'e';
    n->name[1] = side ? '1' : '0';
    n->output = etharp_output;
    n->linkoutput = link_out;
    n->mtu = 1500;
    n->hwaddr_len = 6;
    n->flags = NETIF_FLAG_BROADCAST | NETIF_FLAG_ETHARP | NETIF_FLAG_ETHERNET | NETIF_FLAG_LINK_UP;
    return ERR_OK;
}

void lw_init(int s, unsigned ip_be, unsigned peer_be, const unsigned char *mac, const unsigned char *peer_mac)
{
    ip4_addr_t ip, mask, gw, peer;
    struct eth_addr pm;
    side = s;
    lwip_init();
    ip.addr = ip_be;
    mask.addr = 0x00ffffffu; /* 255.255.255.0 in network order */
    gw.addr = 0;
    peer.addr = peer_be;
    memcpy(nif.hwaddr, mac, 6);
    netif_add(&nif, &ip, &mask, &gw, NULL, nif_init, ethernet_input);
    memcpy(nif.hwaddr, mac, 6);
    netif_set_default(&nif);
    netif_set_up(&nif);
    netif_set_link_up(&nif);
    memcpy(pm.addr, peer_mac, 6);
    etharp_add_static_entry(&peer, &pm);
}

/* Between runs: every connection and listener gone (lwIP cannot be
 * initialised twice), counters zeroed. */
void lw_reset(void)
{
    while (tcp_active_pcbs)
        tcp_abort(tcp_active_pcbs);
    while (tcp_tw_pcbs)
        tcp_abort(tcp_tw_pcbs);
    while (tcp_listen_pcbs.listen_pcbs)
        tcp_close(tcp_listen_pcbs.pcbs);
    rx_bytes = 0;
    bulk_left_in_msg = 0;
}

void lw_input(const void *frame, unsigned len)
{
    struct pbuf *p = pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_POOL);
    if (p == NULL)
        return;
    pbuf_take(p, frame, (u16_t)len);
    if (nif.input(p, &nif) != ERR_OK)
        pbuf_free(p);
}

void lw_poll(void) { sys_check_timeouts(); }

unsigned long long lw_rx_bytes(void) { return rx_bytes; }

/* ---- ping-pong: what arrives goes back ---- */

static err_t pp_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    unsigned char buf[256];
    if (p == NULL) {
        tcp_close(pcb);
        return ERR_OK;
    }
    rx_bytes += p->tot_len;
    u16_t n = pbuf_copy_partial(p, buf, p->tot_len < sizeof(buf) ? p->tot_len : sizeof(buf), 0);
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    tcp_write(pcb, buf, n, TCP_WRITE_FLAG_COPY);
    return ERR_OK;
}

static err_t pp_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    tcp_nagle_disable(pcb);
    tcp_recv(pcb, pp_recv);
    return ERR_OK;
}

static err_t pp_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
    static const unsigned char msg = 'p';
    tcp_nagle_disable(pcb);
    tcp_recv(pcb, pp_recv);
    tcp_write(pcb, &msg, 1, TCP_WRITE_FLAG_COPY);
    return ERR_OK;
}

static struct tcp_pcb *listen_on(unsigned short port)
{
    struct tcp_pcb *l = tcp_new();
    tcp_bind(l, IP4_ADDR_ANY, port);
    return tcp_listen(l);
}

void lw_pp_server(unsigned short port) { tcp_accept(listen_on(port), pp_accept); }

int lw_pp_client(unsigned dst_be, unsigned short port, int n)
{
    ip4_addr_t dst;
    dst.addr = dst_be;
    for (int i = 0; i < n; i++) {
        struct tcp_pcb *pcb = tcp_new();
        if (pcb == NULL || tcp_connect(pcb, &dst, port, pp_connected) != ERR_OK)
            return -1;
    }
    return 0;
}

/* ---- bulk ---- */

static err_t sink_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    if (p == NULL) {
        tcp_close(pcb);
        return ERR_OK;
    }
    rx_bytes += p->tot_len;
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    return ERR_OK;
}

static err_t sink_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    tcp_recv(pcb, sink_recv);
    return ERR_OK;
}

void lw_bulk_sink(unsigned short port) { tcp_accept(listen_on(port), sink_accept); }

/* Messages of bulk_chunk bytes, written zero-copy (no TCP_WRITE_FLAG_COPY:
 * lwIP references the static buffer) as the send buffer allows. */
static void fill(struct tcp_pcb *pcb)
{
    for (;;) {
        if (bulk_left_in_msg == 0)
            bulk_left_in_msg = bulk_chunk;
        unsigned long long want = bulk_left_in_msg;
        if (want > 32768)
            want = 32768; /* tcp_write takes a u16_t */
        if (tcp_sndbuf(pcb) < want || tcp_sndqueuelen(pcb) + 8 > TCP_SND_QUEUELEN)
            break;
        if (tcp_write(pcb, bulk_data, (u16_t)want, 0) != ERR_OK)
            break;
        bulk_left_in_msg -= want;
    }
    tcp_output(pcb);
}

static err_t src_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    fill(pcb);
    return ERR_OK;
}

static err_t src_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
    tcp_nagle_disable(pcb);
    tcp_sent(pcb, src_sent);
    fill(pcb);
    return ERR_OK;
}

int lw_bulk_source(unsigned dst_be, unsigned short port, unsigned chunk)
{
    ip4_addr_t dst;
    dst.addr = dst_be;
    bulk_chunk = chunk;
    struct tcp_pcb *pcb = tcp_new();
    return pcb && tcp_connect(pcb, &dst, port, src_connected) == ERR_OK ? 0 : -1;
}
