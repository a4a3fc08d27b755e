/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbevf.c: the Intel 82599 SR-IOV virtual function
 * (8086:10ed), polled: a guest's view of an X520 port its host shares, or
 * a VF of this kernel's own PF (ixgbe_sriov.c).
 *
 * The VF's BAR0 (the datasheet's 8.3) holds its pool's queues in the PF's
 * queue-block layout, so the data path is the Intel ring code's
 * (igb_rxtx.c) and the mailbox the same register moves as igbvf's
 * (igb_mbx.c) at VFMAILBOX/VFMBMEM. The protocol is Linux ixgbe's: after
 * VFCTRL.RST and the PF's RSTI clearing, VF_RESET gives the MAC
 * (igb_vf_hello); API_NEGOTIATE from 1.3 down to 1.0; GET_QUEUES (1.1 and
 * later) how many queues the pool has (we use its first: VFPSRTYPE.RQPL 0
 * keeps every frame there); every multicast asked with UPDATE_XCAST
 * (1.2 and later). A PF that grants less (Linux's gives an untrusted VF
 * only the groups it names) is reported and given, with SET_MULTICAST,
 * the groups the stack listens to: all-nodes, all-routers, the MAC's
 * link-local address's solicited-node group and those the stack joins
 * (netdev_join_group: its IPv6 address's). Link is VFLINKS.
 * A PF reset (RSTI/RSTD), or a PF message without CTS, clears the VF's
 * queues: it starts over as at probe once the PF answers, again a second
 * later while it does not. */
#include "drivers/intel/ixgbevf.h"

#include "drivers/intel/igb_dev.h"
#include "drivers/intel/ixgbe_regs.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/time.h"

#define IXGBEVF_GROUPS_MAX 30 /* SET_MULTICAST takes 30 hashes */

struct ixgbevf {
    struct igb g;          /* first: the data path's view */
    bool restart;          /* the PF was reset: start over once it answers */
    uint64_t retry_ns;     /* not before: a PF that does not answer costs a wait a second */
    uint8_t api;           /* negotiated (IXGBE_API_*) */
    uint8_t xcast;         /* the multicast mode the PF gave */
    uint8_t queues;        /* the pool's RX queues (GET_QUEUES), 1 before API 1.1 */
    uint8_t ngroups;       /* the multicast groups the stack listens to, as MTA hashes */
    uint16_t groups[IXGBEVF_GROUPS_MAX];
};

static const struct igb_layout ixgbevf_layout = {
    .rxq = IXGBEVF_RXQ0, .txq = IXGBEVF_TXQ0, .q_stride = IGB_Q_STRIDE,
    .bal = IGB_Q_BAL, .bah = IGB_Q_BAH, .len = IGB_Q_LEN, .srrctl = IXGBE_Q_SRRCTL,
    .head = IGB_Q_HEAD, .tail = IGB_Q_TAIL, .dctl = IGB_Q_DCTL, .srrctl_drop_en = IXGBE_SRRCTL_DROP_EN,
    .xdctl_enable = IGB_XDCTL_ENABLE, .txdctl_wthresh_mask = IGB_XDCTL_WTHRESH_MASK,
    .rxd_err_frame = IXGBE_RXD_ERR_RXE, .rxd_err_ipe = IXGBE_RXD_ERR_IPE, .rxd_err_l4e = IXGBE_RXD_ERR_L4E,
    .txd_cc = IXGBE_TXD_CC,
    .mbx = IXGBEVF_MAILBOX, .mbmem = IXGBEVF_MBMEM,
};

static struct ixgbevf *to_vf(struct netdev *dev) { return dev->priv; }

static bool ixgbevf_match(const struct pci_dev *pci)
{
    return pci->vendor == IGB_VENDOR_INTEL && pci->device == IXGBE_DEVICE_82599_VF;
}

/* The newest API the PF takes, 1.3 first. */
static void negotiate(struct ixgbevf *v)
{
    static const uint8_t apis[] = {IXGBE_API_13, IXGBE_API_12, IXGBE_API_11, IXGBE_API_10};
    v->api = IXGBE_API_10;
    v->queues = 1;
    for (size_t i = 0; i < sizeof apis; i++) {
        uint32_t w[2] = {IXGBE_MSG_API_NEGOTIATE, apis[i]};
        if (igb_vf_mbx_call(&v->g, w, 2, 1)) {
            v->api = apis[i];
            break;
        }
    }
    if (v->api < IXGBE_API_11)
        return;
    uint32_t w[5] = {IXGBE_MSG_GET_QUEUES};
    if (igb_vf_mbx_call(&v->g, w, 1, 5)) {
        v->queues = (uint8_t)(w[2] ? w[2] : 1);
        if (w[3])
            kprintf("%s: the PF tags this VF's frames (port VLAN or traffic classes: %u)\n", v->g.where, w[3]);
    }
}

/* The 82599's MTA hash of type 0 (the reset reply's word 3): the
 * address's bits 47:36, from its last two bytes. */
static uint32_t mta_hash(const uint8_t *m) { return ((uint32_t)m[4] >> 4 | (uint32_t)m[5] << 4) & 0xfff; }

/* The groups the stack listens to: 33:33:00:00:00:01 and :02, the
 * link-local address's solicited-node group 33:33:ff:<the MAC's last
 * three bytes>, and what the stack joins later (ixgbevf_join_group). */
static void add_group(struct ixgbevf *v, const uint8_t *mac)
{
    uint16_t h = (uint16_t)mta_hash(mac);
    for (uint8_t i = 0; i < v->ngroups; i++)
        if (v->groups[i] == h)
            return;
    if (v->ngroups < IXGBEVF_GROUPS_MAX)
        v->groups[v->ngroups++] = h;
}

static void base_groups(struct ixgbevf *v)
{
    const uint8_t *m = v->g.dev.mac;
    const uint8_t groups[3][6] = {{0x33, 0x33, 0, 0, 0, 1}, {0x33, 0x33, 0, 0, 0, 2}, {0x33, 0x33, 0xff, m[3], m[4], m[5]}};
    for (int i = 0; i < 3; i++)
        add_group(v, groups[i]);
}

/* SET_MULTICAST with every group (count in the argument, two hashes a word). */
static void name_groups(struct ixgbevf *v)
{
    uint32_t w[1 + IXGBEVF_GROUPS_MAX / 2] = {IGB_MSG_SET_MULTICAST | (uint32_t)v->ngroups << IGB_MSG_INFO_SHIFT};
    for (uint32_t i = 0; i < v->ngroups; i++)
        w[1 + i / 2] |= (uint32_t)v->groups[i] << (16 * (i % 2));
    if (!igb_vf_mbx_call(&v->g, w, 1 + (v->ngroups + 1u) / 2, 1))
        kprintf("%s: the PF refused our multicast groups too: IPv6 neighbour discovery will fail\n", v->g.where);
}

static void ixgbevf_join_group(struct netdev *dev, const uint8_t mac[6])
{
    struct ixgbevf *v = to_vf(dev);
    uint8_t had = v->ngroups;
    add_group(v, mac);
    if (v->ngroups != had && v->xcast < IXGBE_XCAST_ALLMULTI && !v->restart)
        name_groups(v);
}

/* Every multicast (the stack's neighbour discovery: the netdev interface
 * has no group list), frames as long as the MTU (1500 with a VLAN tag,
 * or jumbo: set_mtu). */
static void vf_requests(struct ixgbevf *v)
{
    v->xcast = IXGBE_XCAST_MULTI;
    if (v->api >= IXGBE_API_12) {
        uint32_t w[2] = {IXGBE_MSG_UPDATE_XCAST, IXGBE_XCAST_ALLMULTI};
        if (igb_vf_mbx_call(&v->g, w, 2, 2))
            v->xcast = (uint8_t)w[1];
    }
    if (v->xcast < IXGBE_XCAST_ALLMULTI) {
        kprintf("%s: the PF gives this VF only the multicast groups it names (an untrusted VF: on a Linux host, "
                "`ip link set PF vf N trust on`); naming the %u the stack listens to\n", v->g.where, v->ngroups);
        name_groups(v);
    }
    (void)igb_vf_ask_frame(&v->g); /* (refused: logged; the PF's 1518 still holds) */
}

static bool vf_start(struct ixgbevf *v)
{
    struct igb *g = &v->g;
    uint32_t w[IXGBE_MSG_RESET_WORDS];
    igb_wr32(g, IXGBEVF_EIMC, 0x7); /* the VF's three vectors: polled, none wanted */
    igb_wr32(g, IXGBEVF_CTRL, IXGBE_VFCTRL_RST);
    time_delay_us(1000);
    if (!igb_vf_hello(g, w, IXGBE_MSG_RESET_WORDS))
        return false;
    negotiate(v);
    base_groups(v);
    vf_requests(v);
    igb_wr32(g, IXGBEVF_PSRTYPE, 0); /* RQPL 0: the pool's frames all on its first queue, ours */
    igb_queue_drain(g, 0); /* what the dead rings held meanwhile (nothing at probe) */
    g->q[0]->rx_drop_looped = true; /* the PF's loopback: our own broadcasts come back */
    g->q[0]->rx_chained = g->dev.mtu > 1500; /* the MTU set_mtu took, kept over a restart */
    igb_queue_start(g, 0, 0);
    return true;
}

/* A PF message taken: a ping without CTS asks us to start over (Linux's
 * PF does so when it resets a VF's link). */
static bool pf_message_wants_reset(struct ixgbevf *v)
{
    uint32_t w;
    if (!igb_vf_mbx_take(&v->g, IGB_V2P_PFSTS) || !igb_vf_mbx_lock(&v->g))
        return false;
    w = igb_rd32(&v->g, igb_mbmem_reg(v->g.layout, 0, 0));
    igb_wr32(&v->g, igb_mbx_reg(v->g.layout, 0), IGB_V2P_ACK);
    return (w & IXGBE_MSG_PF_CONTROL) && !(w & IGB_MSG_CTS);
}

/* Slow path, core 0, the queue's core too. */
static void ixgbevf_poll_status(struct netdev *dev)
{
    struct ixgbevf *v = to_vf(dev);
    uint32_t m = igb_vf_mbx_read(&v->g);
    bool reset = (m & (IGB_V2P_RSTI | IGB_V2P_RSTD)) || pf_message_wants_reset(v);
    if (reset && !v->restart) {
        v->g.sriov.pf_resets++;
        kprintf("%s: the PF was reset; starting over\n", dev->name);
        v->restart = true;
    }
    if (v->restart) {
        netdev_set_link(dev, false);
        if ((igb_vf_mbx_read(&v->g) & IGB_V2P_RSTI) || time_now_ns() < v->retry_ns)
            return; /* still resetting: next time */
        if (!vf_start(v)) {
            v->retry_ns = time_now_ns() + 1000000000ull;
            return;
        }
        v->restart = false;
    }
    netdev_set_link(dev, (igb_rd32(&v->g, IXGBEVF_LINKS) & IXGBE_LINKS_UP) != 0);
}

static const struct netdev_ops ixgbevf_ops = {
    .rx_burst = igb_rx_burst,
    .tx_burst = igb_tx_burst,
    .poll_status = ixgbevf_poll_status,
    .promiscuous = igb_vf_promiscuous,
    .join_group = ixgbevf_join_group,
    .set_mtu = igb_vf_set_mtu,
};

static struct netdev *ixgbevf_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools, uint8_t nvfs)
{
    struct ixgbevf *v = igb_vf_alloc(pci, sizeof *v, "ixgbevf", &ixgbevf_layout, pools[0]);
    if (!v || !vf_start(v))
        return NULL;
    igb_vf_netdev(&v->g, "ixgbevf", &ixgbevf_ops);
    v->g.dev.max_mtu = NETDEV_MTU_MAX; /* as far as the PF lets (SET_LPE: Linux's up to 9.5 KB, ours 9216) */
    kprintf("%s: mailbox API %s, the pool has %u queue%s (we use one), multicast %s\n", v->g.where,
            v->api == IXGBE_API_13 ? "1.3" : v->api == IXGBE_API_12 ? "1.2" : v->api == IXGBE_API_11 ? "1.1" : "1.0",
            v->queues, v->queues == 1 ? "" : "s", v->xcast >= IXGBE_XCAST_ALLMULTI ? "all" : "named groups");
    return &v->g.dev;
}

static const struct nic_driver_cmd ixgbevf_cmds[] = {IGB_CMD_SHOW};

const struct nic_driver ixgbevf_driver = {
    .name = "ixgbevf",
    .match = ixgbevf_match,
    .probe = ixgbevf_probe,
    NIC_DRIVER_CMDS(ixgbevf_cmds),
};
