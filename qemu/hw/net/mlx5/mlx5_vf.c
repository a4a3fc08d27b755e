/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_vf.c: `-device mlx5,vf=on`, the function as a
 * ConnectX-4 virtual function looks to the driver in a guest it is passed
 * through to. No PF and no e-switch stand behind it: what the PF's host
 * and the e-switch would refuse or filter is done here.
 * - capabilities (PRM "HCA Capabilities", general device caps; the
 *   layout of mlx5_ifc.h's cmd_hca_cap): not the vport/vhca group manager
 *   nor the e-switch manager;
 * - pages (PRM "QUERY_PAGES"): the model's own boot and init counts;
 * - ACCESS_REG (PRM "Access Registers"): a VF has no physical port:
 *   every register is refused with BAD_OP (PRM "Command Status" 0x2,
 *   the operation is not supported: by this function), counted in
 *   `vf-port-register-refused`, not a strict violation;
 * - the NIC vport (PRM "NIC Vport Context", "MODIFY_NIC_VPORT_CONTEXT"):
 *   promiscuous bits refused unless `trusted=on` (BAD_PARAM, PRM "Command
 *   Status" 0x3: a field value not supported), counted in
 *   `vf-promisc-refused`; the allowed multicast list (allowed_list_type
 *   1) kept, and enforced on receive (`vf-mc-filtered`).
 */
#include "qemu/osdep.h"
#include "mlx5_int.h"
#include "mlx5_cmd.h"

/* the model's own, not a recorded card's: a VF's firmware context is far
 * smaller than the PF's 6 + 12868 pages */
#define VF_BOOT_PAGES   4
#define VF_INIT_PAGES   1024

/* cmd_hca_cap byte 0x34 (mlx5_ifc.h): vport_group_manager 7,
 * vhca_group_manager 6, ..., nic_flow_table 1, eswitch_manager 0. The
 * trace's PF reads 0xc7; a VF manages no group and no e-switch. Every
 * other field keeps the PF's recorded value (unsure whether a real VF
 * differs there). */
#define CAP_MANAGERS_BYTE   0x34
#define CAP_MANAGERS_VF     0xc1    /* bits cleared on a VF */

void mlx5_vf_patch_cap(Mlx5State *s, uint8_t *cap, size_t len)
{
    if (s->vf && len > CAP_MANAGERS_BYTE) {
        cap[CAP_MANAGERS_BYTE] &= ~CAP_MANAGERS_VF;
    }
}

uint32_t mlx5_vf_pages(Mlx5State *s, int op_mod)
{
    return op_mod == PAGES_BOOT ? VF_BOOT_PAGES : VF_INIT_PAGES;
}

/* ACCESS_REG on a VF: refused, any register, read or write */
int mlx5_vf_access_reg(Mlx5State *s, Mlx5Cmd *c)
{
    s->vf_port_reg_refused++;
    c->syndrome = SYND_VF_PORT;
    return ST_BAD_OP;
}

/* MODIFY_NIC_VPORT_CONTEXT's promisc_uc/mc/all (31:29 of context 0xf0):
 * setting any is the PF host's to allow (`ip link set PF vf N trust on`);
 * clearing them is always taken */
int mlx5_vf_promisc(Mlx5State *s, Mlx5Cmd *c, uint8_t bits)
{
    if (s->vf && bits && !s->trusted) {
        s->vf_promisc_refused++;
        c->syndrome = SYND_VF_PROMISC;
        return ST_BAD_PARAM;
    }
    s->promisc = bits;
    return ST_OK;
}

/* field_select.addresses_list: allowed_list_type 26:24 and
 * allowed_list_size 11:0 of context 0xf0, the addresses from context
 * 0x100, 8 bytes each (mac_address_layout: the MAC in the last 6). The
 * multicast list (type 1) is kept; unicast and VLAN lists are taken, not
 * kept (the flow table steers unicast). */
int mlx5_vport_set_list(Mlx5State *s, Mlx5Cmd *c, const uint8_t *v)
{
    uint8_t type = v[0xf0] & 7;
    uint32_t n = be16(v + 0xf2) & 0xfff;

    if (type != 1) {
        return ST_OK;
    }
    if (n > MAX_MC_LIST) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "allowed multicast list of %u: the model keeps %u",
                        n, MAX_MC_LIST);
    }
    if (c->in_len < 0x200 + 8 * n) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                        SYND_LENGTH, "allowed list of %u in %u bytes", n,
                        c->in_len);
    }
    for (uint32_t i = 0; i < n; i++) {
        memcpy(s->mc_list[i], v + 0x100 + 8 * i + 2, 6);
    }
    s->mc_list_len = n;
    return ST_OK;
}

/* QUERY_NIC_VPORT_CONTEXT with allowed_list_type (26:24 of input 0x0c):
 * the multicast list, as many entries as the output holds */
void mlx5_vport_get_list(Mlx5State *s, Mlx5Cmd *c, uint8_t *v)
{
    uint8_t type = c->in_len > 0x0c ? c->in[0x0c] & 7 : 0;
    uint32_t n, room;

    if (type != 1) {
        return;
    }
    room = (c->out_len - 0x10 - 0x100) / 8;
    n = MIN(s->mc_list_len, room);
    v[0xf0] |= type;
    stw_be_p(v + 0xf2, n);
    for (uint32_t i = 0; i < n; i++) {
        memset(v + 0x100 + 8 * i, 0, 2);
        memcpy(v + 0x100 + 8 * i + 2, s->mc_list[i], 6);
    }
}

/* the e-switch in front of a VF: a multicast frame reaches it only when
 * its destination is on the vport's allowed multicast list, or is the
 * broadcast address, or the VF is trusted. Unicast is the flow table's. */
bool mlx5_vf_rx_allowed(Mlx5State *s, const uint8_t *buf, size_t size)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

    if (!s->vf || s->trusted || size < 6 || !(buf[0] & 1) ||
        !memcmp(buf, bcast, 6)) {
        return true;
    }
    for (uint32_t i = 0; i < s->mc_list_len; i++) {
        if (!memcmp(buf, s->mc_list[i], 6)) {
            return true;
        }
    }
    s->vf_mc_filtered++;
    return false;
}
