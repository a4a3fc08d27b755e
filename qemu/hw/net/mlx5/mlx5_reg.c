/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_reg.c: ACCESS_REG (PRM "ACCESS_REG": op_mod 0
 * write, 1 read; register_id 15:0 of dword 2; the register's data from
 * byte 0x10 of the input and output) and the registers kept: HOST_ENDIANNESS
 * (PRM "HOST_ENDIANNESS Register"), PAOS ("Port Administrative and
 * Operational Status Register"), PTYS ("Port Type and Speed Register"),
 * PMTU ("Port MTU Register"); PFCC reads as zeros, PPCNT too but for
 * the frames the port's MTU turned away. One port, local_port 1.
 */
#include "qemu/osdep.h"
#include "net/net.h"
#include "mlx5_int.h"
#include "mlx5_cmd.h"

#define REG_PMTU            0x5003
#define REG_PTYS            0x5004
#define REG_PAOS            0x5006
#define REG_PFCC            0x5007  /* flow control: off, writes not kept */
#define REG_PPCNT           0x5008  /* port counters: read as zeros */
#define REG_HOST_ENDIANNESS 0x7004

/* PTYS eth_proto bits (PRM "Ethernet Extended... Protocol" table) */
#define ETH_40GBASE_CR4     (1u << 6)
#define ETH_10GBASE_CR      (1u << 12)
#define ETH_CAPS            (ETH_40GBASE_CR4 | ETH_10GBASE_CR)
#define MAX_MTU             9978    /* the port's max_mtu, with L2 header */
/* PPCNT: grp 5:0 of dword 0, clr bit 31 of dword 1, the counter set from
 * 0x08; the IEEE 802.3 group's a_frame_too_long_errors (high, low) at
 * 0x60 of it: frames over the port's MTU. The rest read 0. */
#define PPCNT_IEEE_802_3    0x00
#define PPCNT_FRAME_TOO_LONG (0x08 + 0x60)

static bool link_up(Mlx5State *s)
{
    return s->paos_admin != 2 && !qemu_get_queue(s->nic)->link_down;
}

/* PRM "Port State Change Event" (type 0x09; sub_type 1 down, 4 active;
 * port 7:4 of event data byte 8) when the operational state changes:
 * PAOS admin_status or the netdev's link */
void mlx5_port_event(Mlx5State *s)
{
    uint8_t data[28] = { 0 };
    bool up = link_up(s);

    if (up == s->port_up) {
        return;
    }
    s->port_up = up;
    data[8] = 1 << 4;
    if (s->hca == HCA_INITIALIZED) {
        mlx5_post_event(s, EVENT_PORT_CHANGE, up ? 4 : 1, data, sizeof(data));
    }
}

static int reg_size(uint16_t id)
{
    switch (id) {
    case REG_PMTU:
    case REG_PAOS:
    case REG_HOST_ENDIANNESS:
        return 16;
    case REG_PTYS:
        return 64;
    case REG_PFCC:
        return 32;
    case REG_PPCNT:
        return 0x100;
    }
    return 0;
}

static int bad_port(Mlx5State *s, Mlx5Cmd *c, uint8_t port)
{
    return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                    "ACCESS_REG %#x local_port %u: the card has port 1",
                    be16(c->in + 0x0a), port);
}

int mlx5_access_reg(Mlx5State *s, Mlx5Cmd *c)
{
    uint16_t id = be16(c->in + 0x0a);
    bool write = c->op_mod == 0;
    const uint8_t *r = c->in + 0x10;
    uint8_t *o = c->out + 0x10;
    int n = reg_size(id);
    uint8_t port = r[1];

    if (s->vf) {                /* no physical port: mlx5_vf.c */
        return mlx5_vf_access_reg(s, c);
    }
    if (!n || c->op_mod > 1) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                        SYND_NO_REPLY, "ACCESS_REG register %#x op_mod %#x "
                        "not modelled", id, c->op_mod);
    }
    if (c->in_len < 0x10 + n || c->out_len < 0x10 + n) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                        SYND_LENGTH, "ACCESS_REG %#x: %d-byte register, "
                        "input %u output %u bytes", id, n, c->in_len,
                        c->out_len);
    }
    memcpy(o, r, n);            /* the index fields echo back */
    switch (id) {
    case REG_PPCNT:             /* PRM "PPCNT": the group's counters */
        memset(o + 8, 0, n - 8);
        if ((r[3] & 0x3f) == PPCNT_IEEE_802_3) {
            stq_be_p(o + PPCNT_FRAME_TOO_LONG, s->rx_frame_too_long);
            if (r[4] & 0x80) {  /* clr */
                s->rx_frame_too_long = 0;
            }
        }
        break;
    case REG_PFCC:              /* PRM "PFCC": no pause, no PFC */
        memset(o + 4, 0, n - 4);
        break;
    case REG_HOST_ENDIANNESS:   /* he bit 31 of dword 0 */
        if (write) {
            s->host_endianness = be32(r);
        }
        stl_be_p(o, s->host_endianness);
        break;
    case REG_PAOS:  /* admin_status 11:8, oper_status 3:0, ase bit 31 of dw1 */
        if (port != 1) {
            return bad_port(s, c, port);
        }
        if (write && be32(r + 4) >> 31) {
            uint8_t a = (be32(r) >> 8) & 0xf;
            if (a < 1 || a > 3) {
                return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                                SYND_PARAM, "PAOS admin_status %u", a);
            }
            s->paos_admin = a;
            mlx5_port_event(s);
        }
        stl_be_p(o, 1u << 16 | s->paos_admin << 8 | (link_up(s) ? 1 : 2));
        stl_be_p(o + 4, 0);
        break;
    case REG_PTYS:  /* proto_mask 2:0 of dw0; eth_proto_capability 0x0c,
                     * eth_proto_admin 0x18, eth_proto_oper 0x24 */
        if (port != 1 || !(r[3] & 4)) {
            return port != 1 ? bad_port(s, c, port) :
                   cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                            SYND_PARAM, "PTYS proto_mask %#x without "
                            "Ethernet (4)", r[3] & 7);
        }
        if (write) {
            uint32_t admin = be32(r + 0x18);
            if (!admin || admin & ~ETH_CAPS) {
                return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                                SYND_PARAM, "PTYS eth_proto_admin %#x, "
                                "capability %#x", admin, ETH_CAPS);
            }
            s->ptys_admin = admin;
        }
        memset(o + 4, 0, n - 4);
        stl_be_p(o + 0x0c, ETH_CAPS);
        stl_be_p(o + 0x18, s->ptys_admin);
        stl_be_p(o + 0x24, link_up(s) ? (s->ptys_admin & ETH_40GBASE_CR4 ?
                 ETH_40GBASE_CR4 : ETH_10GBASE_CR) : 0);
        break;
    case REG_PMTU:  /* max_mtu 31:16 of dw1, admin_mtu dw2, oper_mtu dw3 */
        if (port != 1) {
            return bad_port(s, c, port);
        }
        if (write) {
            uint16_t mtu = be32(r + 8) >> 16;
            if (mtu < 64 || mtu > MAX_MTU) {
                return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                                SYND_PARAM, "PMTU admin_mtu %u, max %u", mtu,
                                MAX_MTU);
            }
            s->port_mtu = mtu;
        }
        stl_be_p(o + 4, MAX_MTU << 16);
        stl_be_p(o + 8, s->port_mtu << 16);
        stl_be_p(o + 12, s->port_mtu << 16);
        break;
    }
    return ST_OK;
}
