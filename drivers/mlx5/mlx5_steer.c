/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_steer.c: where received frames go (PRM "Transport
 * Interface Receive", "RQ Table", "Flow Table"), and the one TIS every SQ
 * sends through.
 *
 *   root table (level 0): destination MAC -> the type table
 *     entries: the port's MAC, broadcast, all-nodes, all-routers, IPv4
 *     all-hosts, then the groups the stack joins (solicited-node);
 *     one wildcard entry when the port is made promiscuous
 *   type table (level 1): ethertype and IP protocol -> a TIR
 *     IPv4 and IPv6 TCP and UDP: Toeplitz over addresses and ports;
 *     other IPv4, IPv6: over addresses; anything else (ARP): to queue 0
 *   each hashing TIR -> the RQT of NETDEV_RSS_RETA_LEN entries, entry i
 *     the RQ of queue dev->rss_reta[i], with the drivers' symmetric key,
 *     so that software predicts the queue as for every other driver. */
#include "drivers/mlx5/mlx5_dev.h"

#include "kernel/lib.h"

enum { TIR_DIRECT, TIR_V4, TIR_V6, TIR_V4_TCP, TIR_V6_TCP, TIR_V4_UDP, TIR_V6_UDP, TIRS };
#define ROOT_LOG 4       /* 16 entries */
#define MAC_ENTRIES MLX5_MAC_ENTRIES /* 0..13: MACs; 14: the wildcard */
#define WILDCARD 14
#define TYPE_LOG 3       /* 8 entries */

static const struct mlx5_match dmac_mask = {.dmac = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
static const struct mlx5_match l4_mask = {.ethertype = 0xffff, .ip_protocol = 0xff};
static const struct mlx5_match l3_mask = {.ethertype = 0xffff};

static bool group(struct mlx5 *m, uint32_t table, uint32_t first, uint32_t last, const struct mlx5_match *mask,
                  uint32_t *id)
{
    if (mlx5_cmd(m, mlx5_enc_create_flow_group(m->in, table, first, last, mask), 0x10) != 0)
        return false;
    *id = mlx5_get32(m->out, MLX5_OUT_FLOW_GROUP) & 0xffffff;
    return true;
}

static bool entry(struct mlx5 *m, uint32_t table, uint32_t index, uint32_t grp, const struct mlx5_match *v,
                  unsigned dest_type, uint32_t dest)
{
    return mlx5_cmd(m, mlx5_enc_set_fte(m->in, table, index, grp, v, dest_type, dest), 0x10) == 0;
}

/* The RQT over the pairs in use, as dev->rss_reta says. */
static bool set_rqt(struct mlx5 *m, uint32_t rqtn)
{
    uint32_t rqn[NETDEV_RSS_RETA_LEN];
    for (unsigned i = 0; i < NETDEV_RSS_RETA_LEN; i++) {
        m->dev.rss_reta[i] = (uint16_t)(i % m->dev.nqueues);
        rqn[i] = m->q[m->dev.rss_reta[i]]->rqn;
    }
    size_t len = mlx5_enc_rqt(m->in, rqtn, rqn, NETDEV_RSS_RETA_LEN);
    return (rqtn ? mlx5_cmd(m, len, 0x10) : mlx5_cmd_object(m, len, &m->rqtn)) == 0;
}

/* A VF's eswitch passes it the multicast MACs of its vport's list only:
 * the list is every group of the root table's. */
static bool sync_mc_list(struct mlx5 *m)
{
    uint8_t mc[MAC_ENTRIES][6];
    unsigned n = 0;
    for (uint32_t i = 0; i < m->mac_entries; i++)
        if ((m->table_mac[i][0] & 1) && memcmp(m->table_mac[i], "\xff\xff\xff\xff\xff\xff", 6) != 0)
            memcpy(mc[n++], m->table_mac[i], 6);
    return mlx5_cmd(m, mlx5_enc_vport_mc_list(m->in, mc, n), 0x10) == 0;
}

static bool add_mac(struct mlx5 *m, const uint8_t mac[6])
{
    if (m->mac_entries == MAC_ENTRIES) {
        mlx5_log(m, "mlx5: no room for another multicast group (%u)\n", MAC_ENTRIES);
        return false;
    }
    struct mlx5_match v = {0};
    memcpy(v.dmac, mac, 6);
    if (!entry(m, m->table[0], m->mac_entries, m->group_mac, &v, MLX5_DEST_TABLE, m->table[1]))
        return false;
    memcpy(m->table_mac[m->mac_entries++], mac, 6);
    return !m->vf || !(mac[0] & 1) || sync_mc_list(m);
}

bool mlx5_create_tis(struct mlx5 *m) { return mlx5_cmd_object(m, mlx5_enc_create_tis(m->in, m->td), &m->tisn) == 0; }

/* After the queues: the RQT, the TIRs and the tables. */
bool mlx5_steer_rx(struct mlx5 *m)
{
    memcpy(m->dev.rss_key, nic_rss_key, NETDEV_RSS_KEY_LEN);
    if (!set_rqt(m, 0))
        return false;
    const struct mlx5_tir_params tirs[TIRS] = {
        [TIR_DIRECT] = {.td = m->td, .rqn = m->q[0]->rqn},
        [TIR_V4] = {.td = m->td, .rqt = m->rqtn, .key = nic_rss_key, .fields = MLX5_HASH_SRC_IP | MLX5_HASH_DST_IP},
        [TIR_V6] = {.td = m->td, .rqt = m->rqtn, .key = nic_rss_key, .l3_ipv6 = true,
                    .fields = MLX5_HASH_SRC_IP | MLX5_HASH_DST_IP},
        [TIR_V4_TCP] = {.td = m->td, .rqt = m->rqtn, .key = nic_rss_key,
                        .fields = MLX5_HASH_SRC_IP | MLX5_HASH_DST_IP | MLX5_HASH_SPORT | MLX5_HASH_DPORT},
        [TIR_V6_TCP] = {.td = m->td, .rqt = m->rqtn, .key = nic_rss_key, .l3_ipv6 = true,
                        .fields = MLX5_HASH_SRC_IP | MLX5_HASH_DST_IP | MLX5_HASH_SPORT | MLX5_HASH_DPORT},
        [TIR_V4_UDP] = {.td = m->td, .rqt = m->rqtn, .key = nic_rss_key, .l4_udp = true,
                        .fields = MLX5_HASH_SRC_IP | MLX5_HASH_DST_IP | MLX5_HASH_SPORT | MLX5_HASH_DPORT},
        [TIR_V6_UDP] = {.td = m->td, .rqt = m->rqtn, .key = nic_rss_key, .l3_ipv6 = true, .l4_udp = true,
                        .fields = MLX5_HASH_SRC_IP | MLX5_HASH_DST_IP | MLX5_HASH_SPORT | MLX5_HASH_DPORT},
    };
    for (int i = 0; i < TIRS; i++)
        if (mlx5_cmd_object(m, mlx5_enc_create_tir(m->in, &tirs[i]), &m->tir[i]))
            return false;
    /* The type table first: the root's entries lead to it. */
    uint32_t g_l4, g_l3, g_rest;
    if (mlx5_cmd_object(m, mlx5_enc_create_flow_table(m->in, 1, TYPE_LOG), &m->table[1]) ||
        !group(m, m->table[1], 0, 3, &l4_mask, &g_l4) || !group(m, m->table[1], 4, 5, &l3_mask, &g_l3) ||
        !group(m, m->table[1], 6, 6, NULL, &g_rest))
        return false;
    static const struct {
        struct mlx5_match v;
        int tir;
    } types[] = {
        {{.ethertype = 0x0800, .ip_protocol = 6}, TIR_V4_TCP},  {{.ethertype = 0x86dd, .ip_protocol = 6}, TIR_V6_TCP},
        {{.ethertype = 0x0800, .ip_protocol = 17}, TIR_V4_UDP}, {{.ethertype = 0x86dd, .ip_protocol = 17}, TIR_V6_UDP},
        {{.ethertype = 0x0800}, TIR_V4},                         {{.ethertype = 0x86dd}, TIR_V6},
    };
    for (uint32_t i = 0; i < 6; i++)
        if (!entry(m, m->table[1], i, i < 4 ? g_l4 : g_l3, &types[i].v, MLX5_DEST_TIR, m->tir[types[i].tir]))
            return false;
    if (!entry(m, m->table[1], 6, g_rest, NULL, MLX5_DEST_TIR, m->tir[TIR_DIRECT]))
        return false;
    if (mlx5_cmd_object(m, mlx5_enc_create_flow_table(m->in, 0, ROOT_LOG), &m->table[0]) ||
        !group(m, m->table[0], 0, MAC_ENTRIES - 1, &dmac_mask, &m->group_mac) ||
        !group(m, m->table[0], WILDCARD, WILDCARD, NULL, &m->group_any))
        return false;
    static const uint8_t groups[4][6] = {
        {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, /* broadcast */
        {0x33, 0x33, 0, 0, 0, 0x01},          /* IPv6 all-nodes */
        {0x33, 0x33, 0, 0, 0, 0x02},          /* IPv6 all-routers */
        {0x01, 0x00, 0x5e, 0, 0, 0x01},       /* IPv4 all-hosts */
    };
    if (!add_mac(m, m->dev.mac))
        return false;
    for (int i = 0; i < 4; i++)
        if (!add_mac(m, groups[i]))
            return false;
    return mlx5_cmd(m, mlx5_enc_set_flow_table_root(m->in, m->table[0]), 0x10) == 0;
}

int mlx5_limit_queues(struct netdev *dev, uint16_t n)
{
    struct mlx5 *m = dev->priv;
    if (n == 0 || n > dev->nqueues)
        return -1;
    uint16_t was = dev->nqueues;
    dev->nqueues = n;
    if (n != was && !set_rqt(m, m->rqtn)) {
        dev->nqueues = was;
        return -1;
    }
    return 0;
}

void mlx5_join_group(struct netdev *dev, const uint8_t mac[6])
{
    struct mlx5 *m = dev->priv;
    bool known = false;
    for (uint8_t i = 0; i < m->njoined; i++)
        known |= memcmp(m->joined[i], mac, 6) == 0;
    if (!known && m->njoined < sizeof m->joined / sizeof m->joined[0])
        memcpy(m->joined[m->njoined++], mac, 6);
    add_mac(m, mac);
}

/* Every frame: the wildcard entry, and the vport's promiscuous bits (the
 * PF's own MAC filter before the flow tables). */
bool mlx5_promiscuous(struct netdev *dev)
{
    struct mlx5 *m = dev->priv;
    if (m->promisc)
        return true;
    if (mlx5_cmd(m, mlx5_enc_vport_promisc(m->in), 0x10) != 0 ||
        !entry(m, m->table[0], WILDCARD, m->group_any, NULL, MLX5_DEST_TABLE, m->table[1]))
        return false;
    m->promisc = true;
    return true;
}
