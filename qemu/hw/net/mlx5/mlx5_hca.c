/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 * qemu/hw/net/mlx5/mlx5_hca.c: command dispatch and the HCA bring-up and
 * teardown commands (PRM "Initialization and Teardown", "HCA Commands",
 * "ISSI Commands", "Pages Management", "ACCESS_REG"). Where the real card's
 * trace has a reply (mlx5_fw_replies.c), the reply is that, byte for byte.
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "mlx5_int.h"
#include "mlx5_cmd.h"
#include "mlx5_steer.h"

const Mlx5FwReply *mlx5_fw_reply(uint16_t opcode, uint16_t op_mod,
                                 uint32_t key)
{
    for (const Mlx5FwReply *r = mlx5_fw_replies; r->data; r++) {
        if (r->opcode == opcode && r->op_mod == op_mod && r->key == key) {
            return r;
        }
    }
    return NULL;
}

/* copy a recorded reply into out, zero-padded to out_len */
static int fw_reply(Mlx5State *s, Mlx5Cmd *c, uint32_t key)
{
    const Mlx5FwReply *r = mlx5_fw_reply(c->opcode, c->op_mod, key);

    if (!r) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_NO_REPLY,
                        "op_mod %#x key %#x: not supported", c->op_mod, key);
    }
    memcpy(c->out, r->data, MIN(r->len, c->out_len));
    return ST_OK;
}

static uint32_t fw_pages(int op_mod)
{
    const Mlx5FwReply *r = mlx5_fw_reply(OP_QUERY_PAGES, op_mod, 0);

    return r && r->len >= 16 ? be32(r->data + 12) : 0;
}

void mlx5_hca_reset(Mlx5State *s)
{
    const Mlx5FwReply *r = mlx5_fw_reply(OP_QUERY_HCA_CAP, 1, 0);

    s->hca = HCA_DISABLED;
    s->issi = 0;
    s->npages = 0;
    s->regular_pages = 0;
    s->boot_pages = s->vf ? mlx5_vf_pages(s, PAGES_BOOT) : fw_pages(PAGES_BOOT);
    s->init_pages = s->vf ? mlx5_vf_pages(s, PAGES_INIT) : fw_pages(PAGES_INIT);
    memset(s->cur_cap_general, 0, sizeof(s->cur_cap_general));
    if (r && r->len > 16) {
        memcpy(s->cur_cap_general, r->data + 16, MIN(r->len - 16, 4096));
    }
    mlx5_vf_patch_cap(s, s->cur_cap_general, sizeof(s->cur_cap_general));
    memset(s->uar_alloc, 0, sizeof(s->uar_alloc));
    memset(s->eq, 0, sizeof(s->eq));
    s->host_endianness = 0;
    s->paos_admin = 1;
    s->port_up = true;
    s->ptys_admin = 0x1040;     /* 40GBASE-CR4 | 10GBASE-CR, mlx5_reg.c */
    s->port_mtu = 1500 + 14 + 4 + 4;
    mlx5_objects_reset(s);
}

/* PRM "ENABLE_HCA" / "DISABLE_HCA" */
static int cmd_enable_hca(Mlx5State *s, Mlx5Cmd *c)
{
    if (s->hca != HCA_DISABLED) {
        return cmd_fail(s, c, &s->strict.bad_state, ST_BAD_SYS_STATE,
                        SYND_STATE, "ENABLE_HCA twice");
    }
    s->hca = HCA_ENABLED;
    return fw_reply(s, c, 0);
}

static int cmd_disable_hca(Mlx5State *s, Mlx5Cmd *c)
{
    if (s->hca == HCA_INITIALIZED) {
        return cmd_fail(s, c, &s->strict.bad_state, ST_BAD_SYS_STATE,
                        SYND_STATE, "DISABLE_HCA before TEARDOWN_HCA");
    }
    s->hca = HCA_DISABLED;
    return ST_OK;
}

/* PRM "QUERY_ISSI" / "SET_ISSI": the card supports ISSI 1 (bit 1 of
 * supported_issi_dw0 at output offset 0x6c); 0 is always accepted */
static int cmd_query_issi(Mlx5State *s, Mlx5Cmd *c)
{
    int st = fw_reply(s, c, 0);

    if (st == ST_OK && c->out_len >= 0x0c) {
        stw_be_p(c->out + 0x0a, s->issi);
    }
    return st;
}

static int cmd_set_issi(Mlx5State *s, Mlx5Cmd *c)
{
    const Mlx5FwReply *r = mlx5_fw_reply(OP_QUERY_ISSI, 0, 0);
    uint16_t issi = be16(c->in + 0x0a);
    uint32_t sup = r && r->len >= 0x70 ? be32(r->data + 0x6c) : 1;

    if (issi > 31 || (issi && !(sup & (1u << issi)))) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "SET_ISSI %u not in supported_issi %#x", issi, sup);
    }
    s->issi = issi;
    return fw_reply(s, c, 0);
}

/* PRM "QUERY_PAGES": boot and init counts as the card; regular: what a
 * PAGE_REQUEST event asked for and has not been given yet */
static int cmd_query_pages(Mlx5State *s, Mlx5Cmd *c)
{
    if (c->op_mod == PAGES_REGULAR) {
        stl_be_p(c->out + 0x0c, s->regular_pages);
        return ST_OK;
    }
    if (s->vf && (c->op_mod == PAGES_BOOT || c->op_mod == PAGES_INIT)) {
        stl_be_p(c->out + 0x0c, mlx5_vf_pages(s, c->op_mod));  /* fn 0 */
        return ST_OK;
    }
    return fw_reply(s, c, 0);
}

/* PRM "MANAGE_PAGES": op_mod 0 allocation failed, 1 give, 2 take */
static int cmd_manage_pages(Mlx5State *s, Mlx5Cmd *c)
{
    uint32_t n = be32(c->in + 0x0c), i, can;

    switch (c->op_mod) {
    case 0:
        return ST_OK;
    case 1:
        if (c->in_len < 0x10 + 8ull * n) {
            return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                            SYND_LENGTH, "MANAGE_PAGES give %u pages in %u "
                            "bytes", n, c->in_len);
        }
        if (s->npages + (uint64_t)n > MAX_PAGES) {
            return cmd_fail(s, c, &s->strict.bad_param, ST_EXCEED_LIM,
                            SYND_LIMIT, "MANAGE_PAGES give %u pages: %u held",
                            n, s->npages);
        }
        for (i = 0; i < n; i++) {
            uint64_t pa = be64(c->in + 0x10 + 8 * i);
            if (pa & (MLX5_PAGE - 1)) {
                return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM,
                                SYND_PARAM, "MANAGE_PAGES page %u at %#"
                                PRIx64 ": not 4 KB aligned", i, pa);
            }
        }
        for (i = 0; i < n; i++) {
            s->pages[s->npages++] = be64(c->in + 0x10 + 8 * i);
        }
        if (s->regular_pages > 0) {
            s->regular_pages -= MIN((uint32_t)s->regular_pages, n);
        }
        return ST_OK;
    case 2:
        /* initialized, the firmware returns only what it offered */
        can = s->hca == HCA_INITIALIZED ?
              (s->regular_pages < 0 ? -s->regular_pages : 0) : s->npages;
        can = MIN(MIN(can, n), s->npages);
        if (c->out_len < 0x10 + 8ull * can) {
            return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_OUT_LEN,
                            SYND_LENGTH, "MANAGE_PAGES take %u pages into %u "
                            "bytes", can, c->out_len);
        }
        for (i = 0; i < can; i++) {
            stq_be_p(c->out + 0x10 + 8 * i, s->pages[--s->npages]);
        }
        stl_be_p(c->out + 0x08, can);
        if (s->regular_pages < 0) {
            s->regular_pages += can;
        }
        return ST_OK;
    }
    return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                    "MANAGE_PAGES op_mod %#x", c->op_mod);
}

/* PRM "QUERY_HCA_CAP": op_mod = capability type << 1 | current; the
 * general device caps' current values as SET_HCA_CAP left them. A type
 * the trace's card was never asked about (newer drivers ask for more, e.g.
 * the e-switch flow table caps, 8) answers all zeros: nothing supported */
static int cmd_query_hca_cap(Mlx5State *s, Mlx5Cmd *c)
{
    int st;

    if (c->op_mod == 1) {
        if (c->out_len > 16) {
            memcpy(c->out + 16, s->cur_cap_general,
                   MIN(c->out_len - 16, sizeof(s->cur_cap_general)));
        }
        return ST_OK;
    }
    if (!mlx5_fw_reply(c->opcode, c->op_mod, 0)) {
        qemu_log_mask(LOG_UNIMP, "mlx5: QUERY_HCA_CAP type %#x (%s): not in "
                      "the card's trace, answered with zeros\n", c->op_mod >> 1,
                      c->op_mod & 1 ? "current" : "max");
        return ST_OK;
    }
    st = fw_reply(s, c, 0);
    if (st == ST_OK && c->op_mod == 0 && c->out_len > 16) { /* general max */
        mlx5_vf_patch_cap(s, c->out + 16, c->out_len - 16);
    }
    return st;
}

/* PRM "SET_HCA_CAP": only before INIT_HCA, only the general caps here */
static int cmd_set_hca_cap(Mlx5State *s, Mlx5Cmd *c)
{
    if (c->op_mod >> 1 != 0) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_PARAM, SYND_PARAM,
                        "SET_HCA_CAP capability type %#x", c->op_mod >> 1);
    }
    if (c->in_len < 16 + sizeof(s->cur_cap_general)) {
        return cmd_fail(s, c, &s->strict.bad_param, ST_BAD_IN_LEN,
                        SYND_LENGTH, "SET_HCA_CAP input %u bytes", c->in_len);
    }
    memcpy(s->cur_cap_general, c->in + 16, sizeof(s->cur_cap_general));
    mlx5_vf_patch_cap(s, s->cur_cap_general, sizeof(s->cur_cap_general));
    return fw_reply(s, c, 0);
}

/* PRM "INIT_HCA": the boot and init pages must have been given */
static int cmd_init_hca(Mlx5State *s, Mlx5Cmd *c)
{
    if (s->npages < s->boot_pages + s->init_pages) {
        return cmd_fail(s, c, &s->strict.bad_state, ST_BAD_SYS_STATE,
                        SYND_PAGES, "INIT_HCA with %u pages given, %u boot + "
                        "%u init needed", s->npages, s->boot_pages,
                        s->init_pages);
    }
    s->hca = HCA_INITIALIZED;
    return fw_reply(s, c, 0);
}

/* PRM "TEARDOWN_HCA": every object, EQ and UAR goes; the pages stay
 * until MANAGE_PAGES takes them back */
static int cmd_teardown_hca(Mlx5State *s, Mlx5Cmd *c)
{
    memset(s->eq, 0, sizeof(s->eq));
    memset(s->uar_alloc, 0, sizeof(s->uar_alloc));
    mlx5_objects_reset(s);
    s->regular_pages = 0;
    s->hca = HCA_ENABLED;
    return ST_OK;
}

/* PRM "ALLOC_UAR" / "DEALLOC_UAR": page n is BAR0 + n * 4 KB; the card
 * hands out 0x10 first */
static int cmd_alloc_uar(Mlx5State *s, Mlx5Cmd *c)
{
    uint32_t u;

    for (u = UAR_FIRST; u < UAR_MAX; u++) {
        if (!(s->uar_alloc[u / 32] & (1u << (u % 32)))) {
            s->uar_alloc[u / 32] |= 1u << (u % 32);
            stl_be_p(c->out + 0x08, u);
            return ST_OK;
        }
    }
    return cmd_fail(s, c, &s->strict.bad_param, ST_NO_RESOURCES, SYND_LIMIT,
                    "ALLOC_UAR: all %u taken", UAR_MAX - UAR_FIRST);
}

static int cmd_dealloc_uar(Mlx5State *s, Mlx5Cmd *c)
{
    uint32_t u = be32(c->in + 0x08) & 0xffffff;

    if (u >= UAR_MAX || !(s->uar_alloc[u / 32] & (1u << (u % 32)))) {
        return cmd_fail(s, c, &s->strict.bad_resource, ST_BAD_RESOURCE,
                        SYND_RESOURCE, "DEALLOC_UAR %#x not allocated", u);
    }
    s->uar_alloc[u / 32] &= ~(1u << (u % 32));
    return ST_OK;
}

static int cmd_create_eq(Mlx5State *s, Mlx5Cmd *c)
{
    return mlx5_create_eq(s, c);
}

static int cmd_destroy_eq(Mlx5State *s, Mlx5Cmd *c)
{
    return mlx5_destroy_eq(s, c);
}

static int cmd_query_adapter(Mlx5State *s, Mlx5Cmd *c)
{
    return fw_reply(s, c, 0);
}

/* which state each command needs (PRM "Initialization"): before
 * ENABLE_HCA only it and QUERY_ISSI; INIT_HCA's prerequisites in its
 * handler; queue objects only after INIT_HCA */
static const Mlx5CmdDesc bringup_cmds[] = {
    { OP_ENABLE_HCA, "ENABLE_HCA", NEED_ANY, cmd_enable_hca },
    { OP_QUERY_ISSI, "QUERY_ISSI", NEED_ANY, cmd_query_issi },
    { OP_DISABLE_HCA, "DISABLE_HCA", NEED_ENABLED, cmd_disable_hca },
    { OP_SET_ISSI, "SET_ISSI", NEED_PRE_INIT, cmd_set_issi },
    { OP_QUERY_PAGES, "QUERY_PAGES", NEED_ENABLED, cmd_query_pages },
    { OP_MANAGE_PAGES, "MANAGE_PAGES", NEED_ENABLED, cmd_manage_pages },
    { OP_QUERY_HCA_CAP, "QUERY_HCA_CAP", NEED_ENABLED, cmd_query_hca_cap },
    { OP_SET_HCA_CAP, "SET_HCA_CAP", NEED_PRE_INIT, cmd_set_hca_cap },
    { OP_ACCESS_REG, "ACCESS_REG", NEED_ENABLED, mlx5_access_reg },
    { OP_INIT_HCA, "INIT_HCA", NEED_PRE_INIT, cmd_init_hca },
    { OP_TEARDOWN_HCA, "TEARDOWN_HCA", NEED_INIT, cmd_teardown_hca },
    { OP_QUERY_ADAPTER, "QUERY_ADAPTER", NEED_ENABLED, cmd_query_adapter },
    { OP_ALLOC_UAR, "ALLOC_UAR", NEED_INIT, cmd_alloc_uar },
    { OP_DEALLOC_UAR, "DEALLOC_UAR", NEED_INIT, cmd_dealloc_uar },
    { OP_CREATE_EQ, "CREATE_EQ", NEED_INIT, cmd_create_eq },
    { OP_DESTROY_EQ, "DESTROY_EQ", NEED_INIT, cmd_destroy_eq },
    { 0 },
};

static const Mlx5CmdDesc *find_cmd(uint16_t opcode)
{
    const Mlx5CmdDesc *tables[] = { bringup_cmds, mlx5_object_cmds,
                                     mlx5_steer_cmds };

    for (size_t t = 0; t < ARRAY_SIZE(tables); t++) {
        for (const Mlx5CmdDesc *d = tables[t]; d->opcode; d++) {
            if (d->opcode == opcode) {
                return d;
            }
        }
    }
    return NULL;
}

int cmd_fail(Mlx5State *s, Mlx5Cmd *c, uint32_t *counter, int status,
             uint32_t syndrome, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    mlx5_guest_error(s, counter, "command %#x: %s (status %#x, syndrome "
                     "%#x)", c->opcode, msg, status, syndrome);
    g_free(msg);
    c->syndrome = syndrome;
    return status;
}

/* one command: the header (PRM "Command Input/Output Header": opcode
 * 31:16 of dword 0, op_mod 15:0 of dword 1; status byte 0 and syndrome
 * dword 1 of the output) */
int mlx5_exec(Mlx5State *s, const uint8_t *in, uint32_t in_len,
              uint8_t *out, uint32_t out_len)
{
    Mlx5Cmd c = {
        .opcode = be16(in), .op_mod = be16(in + 6), .in = in,
        .in_len = in_len, .out = out, .out_len = out_len,
    };
    const Mlx5CmdDesc *d = find_cmd(c.opcode);
    int st;

    if (!d) {
        st = cmd_fail(s, &c, &s->strict.bad_opcode, ST_BAD_OP, SYND_OPCODE,
                      "unknown opcode");
    } else if ((d->need == NEED_ENABLED && s->hca == HCA_DISABLED) ||
               (d->need == NEED_PRE_INIT && s->hca != HCA_ENABLED) ||
               (d->need == NEED_INIT && s->hca != HCA_INITIALIZED)) {
        st = cmd_fail(s, &c, &s->strict.bad_state, ST_BAD_SYS_STATE,
                      SYND_STATE, "%s in state %s", d->name,
                      s->hca == HCA_DISABLED ? "disabled (before ENABLE_HCA)" :
                      s->hca == HCA_ENABLED ? "enabled (before INIT_HCA)" :
                      "initialized (after INIT_HCA)");
    } else {
        st = d->fn(s, &c);
    }
    if (st != ST_OK) {
        memset(out, 0, out_len);
    }
    out[0] = st;
    stl_be_p(out + 4, st == ST_OK ? 0 : c.syndrome);
    return st;
}
