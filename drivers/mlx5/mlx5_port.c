/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_port.c: the physical port, through its registers
 * (PRM "Port Registers", by ACCESS_REG; a PF's only: a VF has its vport):
 * PAOS sets it administratively up, PMTU its MTU (the frame's: the
 * Ethernet header, two VLAN tags and the FCS on top of the IP MTU), PTYS
 * says which Ethernet protocol, so which speed, the link runs at. */
#include "drivers/mlx5/mlx5_dev.h"

#include "kernel/lib.h"

#define LOCAL_PORT 1
#define PROTO_ETHERNET 0x4 /* PTYS proto_mask */
#define FRAME_OVERHEAD 26    /* Ethernet header, two VLAN tags, FCS: 14 + 8 + 4 */
#define VF_FRAME_OVERHEAD 22 /* ... one VLAN tag, as a host's Linux sets a vport's MTU */

/* PTYS eth_proto bits (PRM "PTYS - Port Type and Speed Register"): the
 * speed each stands for, in Mbit/s. */
static const uint32_t proto_mbps[32] = {
    [0] = 1000,    [1] = 1000,    [2] = 10000,   [3] = 10000,   [4] = 10000,   [5] = 20000,  [6] = 40000,
    [7] = 40000,   [8] = 56000,   [12] = 10000,  [13] = 10000,  [14] = 10000,  [15] = 40000, [16] = 40000,
    [18] = 50000,  [20] = 100000, [21] = 100000, [22] = 100000, [23] = 100000, [24] = 100,    [25] = 1000,
    [26] = 10000,  [27] = 25000,  [28] = 25000,  [29] = 25000,  [30] = 50000,  [31] = 50000,
};
/* ext_eth_proto bits (ConnectX-6 Dx and later, where the link runs at an
 * extended speed the old bits cannot say). */
static const uint32_t ext_proto_mbps[32] = {
    [0] = 100,     [1] = 1000,    [3] = 5000,    [4] = 10000,   [5] = 40000,   [6] = 25000,  [7] = 50000,
    [8] = 50000,   [9] = 100000,  [10] = 100000, [11] = 100000, [12] = 200000, [13] = 200000, [15] = 400000,
    [16] = 400000,
};

static uint32_t fastest(uint32_t bits, const uint32_t *mbps)
{
    uint32_t best = 0;
    for (int b = 0; b < 32; b++)
        if (bits & (1u << b) && mbps[b] > best)
            best = mbps[b];
    return best;
}

static int reg(struct mlx5 *m, uint16_t id, bool write, const uint8_t *data, size_t len)
{
    return mlx5_cmd(m, mlx5_enc_access_reg(m->in, id, write, data, len), 0x10 + len);
}

void mlx5_port_speed(struct mlx5 *m)
{
    uint8_t ptys[0x40] = {0};
    ptys[1] = LOCAL_PORT;
    ptys[3] = PROTO_ETHERNET;
    if (m->vf || reg(m, MLX5_REG_PTYS, false, ptys, sizeof ptys) != 0)
        return;
    m->eth_proto_oper = mlx5_get32(m->out, MLX5_OUT_REG + 0x24);
    m->eth_proto_cap = mlx5_get32(m->out, MLX5_OUT_REG + 0x0c);
    m->speed_mbps = m->eth_proto_oper ? fastest(m->eth_proto_oper, proto_mbps)
                                      : fastest(mlx5_get32(m->out, MLX5_OUT_REG + 0x20), ext_proto_mbps);
}

/* The largest IP MTU: a PF's from PMTU's max_mtu (read by mlx5_port_mtu),
 * a VF's from its vport context (its host's setting: the frame of an IP
 * MTU with one VLAN tag and the FCS, as the host's Linux counts it);
 * never past what a receive WQE's scatter list holds (mlx5_rx_segs) nor
 * NETDEV_MTU_MAX; 1500 where they say less. */
uint16_t mlx5_max_mtu(const struct mlx5 *m)
{
    uint32_t frame = m->vf ? m->vport_mtu : m->port_max_mtu;
    uint32_t overhead = m->vf ? VF_FRAME_OVERHEAD : FRAME_OVERHEAD;
    uint32_t most = frame > overhead ? frame - overhead : 0;
    uint32_t segs = 1; /* a power of two (log_wq_stride) within max_wqe_sz_rq */
    while (segs * 2 * MLX5_DATA_SEG <= m->max_rq_wqe && segs < 32)
        segs *= 2;
    if (most > segs * PKT_DATA_ROOM - 22) /* the frame: Ethernet and two VLAN tags on the MTU (mlx5_rx_segs) */
        most = segs * PKT_DATA_ROOM - 22;
    if (most > NETDEV_MTU_MAX)
        most = NETDEV_MTU_MAX;
    return most > 1500 ? (uint16_t)most : 1500;
}

/* PRM "PMTU - Port MTU Register": max_mtu read, admin_mtu written (the
 * frame: the IP MTU, Ethernet header, two VLAN tags, FCS); then the NIC
 * vport's MTU the same (PRM "MODIFY_NIC_VPORT_CONTEXT", field_select mtu),
 * as Linux keeps the two. A VF's host owns both: only checked. */
bool mlx5_port_mtu(struct mlx5 *m, uint16_t mtu)
{
    if (m->vf)
        return mtu <= mlx5_max_mtu(m);
    uint8_t r[0x10] = {0};
    r[1] = LOCAL_PORT;
    if (reg(m, MLX5_REG_PMTU, false, r, sizeof r) != 0)
        return false;
    m->port_max_mtu = mlx5_get16(m->out, MLX5_OUT_REG + 0x04);
    uint16_t want = (uint16_t)(mtu + FRAME_OVERHEAD);
    if (m->port_max_mtu && want > m->port_max_mtu) {
        mlx5_log(m, "mlx5: the port takes frames of %u bytes at most, not %u\n", m->port_max_mtu, want);
        return false;
    }
    mlx5_put16(r, 0x08, want); /* admin_mtu */
    if (reg(m, MLX5_REG_PMTU, true, r, sizeof r) != 0)
        return false;
    if (m->vport_mtu != want) {
        if (mlx5_cmd(m, mlx5_enc_vport_mtu(m->in, want), 0x10) != 0)
            return false;
        m->vport_mtu = want;
    }
    return true;
}

bool mlx5_port_setup(struct mlx5 *m, uint16_t mtu)
{
    if (m->vf)
        return true; /* the PF's host owns the port */
    if (!mlx5_port_mtu(m, mtu))
        return false;
    uint8_t r[0x10] = {0};
    r[1] = LOCAL_PORT;
    r[2] = 1;    /* admin_status: up */
    r[4] = 0x80; /* ase: admin_status is to be set */
    if (reg(m, MLX5_REG_PAOS, true, r, sizeof r) != 0)
        return false;
    mlx5_port_speed(m);
    return true;
}
