/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_enc.c: command encoders and names (mlx5_enc.h). The
 * layouts are the PRM's, section by command name; offsets in bytes. */
#include "drivers/mlx5/mlx5_enc.h"

#include "net/core/core.h"

uint8_t mlx5_entry_signature(const uint8_t entry[MLX5_ENT_SIZE])
{
    uint8_t x = 0;
    for (int i = 0; i < MLX5_ENT_SIZE; i++)
        if (i != MLX5_ENT_SIG)
            x ^= entry[i];
    return (uint8_t)~x;
}

static const struct {
    uint16_t op;
    const char *name;
} names[] = {
    {MLX5_CMD_QUERY_HCA_CAP, "QUERY_HCA_CAP"}, {MLX5_CMD_QUERY_ADAPTER, "QUERY_ADAPTER"},
    {MLX5_CMD_INIT_HCA, "INIT_HCA"}, {MLX5_CMD_TEARDOWN_HCA, "TEARDOWN_HCA"},
    {MLX5_CMD_ENABLE_HCA, "ENABLE_HCA"}, {MLX5_CMD_DISABLE_HCA, "DISABLE_HCA"},
    {MLX5_CMD_QUERY_PAGES, "QUERY_PAGES"}, {MLX5_CMD_MANAGE_PAGES, "MANAGE_PAGES"},
    {MLX5_CMD_SET_HCA_CAP, "SET_HCA_CAP"}, {MLX5_CMD_QUERY_ISSI, "QUERY_ISSI"},
    {MLX5_CMD_SET_ISSI, "SET_ISSI"}, {MLX5_CMD_QUERY_SPECIAL_CONTEXTS, "QUERY_SPECIAL_CONTEXTS"},
    {MLX5_CMD_CREATE_EQ, "CREATE_EQ"}, {MLX5_CMD_CREATE_CQ, "CREATE_CQ"},
    {MLX5_CMD_QUERY_VPORT_STATE, "QUERY_VPORT_STATE"}, {MLX5_CMD_QUERY_NIC_VPORT_CONTEXT, "QUERY_NIC_VPORT_CONTEXT"},
    {MLX5_CMD_MODIFY_NIC_VPORT_CONTEXT, "MODIFY_NIC_VPORT_CONTEXT"}, {MLX5_CMD_ALLOC_PD, "ALLOC_PD"},
    {MLX5_CMD_ALLOC_UAR, "ALLOC_UAR"}, {MLX5_CMD_ACCESS_REG, "ACCESS_REG"},
    {MLX5_CMD_ALLOC_TRANSPORT_DOMAIN, "ALLOC_TRANSPORT_DOMAIN"}, {MLX5_CMD_CREATE_TIR, "CREATE_TIR"},
    {MLX5_CMD_CREATE_SQ, "CREATE_SQ"}, {MLX5_CMD_MODIFY_SQ, "MODIFY_SQ"}, {MLX5_CMD_CREATE_RQ, "CREATE_RQ"},
    {MLX5_CMD_MODIFY_RQ, "MODIFY_RQ"}, {MLX5_CMD_CREATE_TIS, "CREATE_TIS"}, {MLX5_CMD_CREATE_RQT, "CREATE_RQT"},
    {MLX5_CMD_MODIFY_RQT, "MODIFY_RQT"},
    {MLX5_CMD_SET_FLOW_TABLE_ROOT, "SET_FLOW_TABLE_ROOT"}, {MLX5_CMD_CREATE_FLOW_TABLE, "CREATE_FLOW_TABLE"},
    {MLX5_CMD_CREATE_FLOW_GROUP, "CREATE_FLOW_GROUP"}, {MLX5_CMD_SET_FLOW_TABLE_ENTRY, "SET_FLOW_TABLE_ENTRY"},
};

const char *mlx5_cmd_name(uint16_t opcode)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].op == opcode)
            return names[i].name;
    return "command";
}

/* PRM "Command Interface": the reply's status. */
const char *mlx5_status_name(uint8_t status)
{
    switch (status) {
    case 0x00: return "ok";
    case 0x01: return "internal error";
    case 0x02: return "bad operation";
    case 0x03: return "bad parameter";
    case 0x04: return "bad system state";
    case 0x05: return "bad resource";
    case 0x06: return "resource busy";
    case 0x08: return "limits exceeded";
    case 0x09: return "bad resource state";
    case 0x0a: return "bad index";
    case 0x0f: return "no resources";
    case 0x50: return "bad input length";
    case 0x51: return "bad output length";
    case 0x10: return "bad QP state";
    case 0x30: return "bad packet";
    case 0x40: return "bad size";
    default: return "unknown status";
    }
}

/* PRM "Command Queue Entry": the delivery status, bits 7:1 of its last byte. */
const char *mlx5_delivery_name(uint8_t status)
{
    switch (status) {
    case 0x0: return "ok";
    case 0x1: return "signature error";
    case 0x2: return "token error";
    case 0x3: return "bad block number";
    case 0x4: return "bad output pointer";
    case 0x5: return "bad input pointer";
    case 0x6: return "internal error";
    case 0x7: return "input length error";
    case 0x8: return "output length error";
    case 0x9: return "reserved not zero";
    case 0x10: return "bad command type";
    default: return "unknown delivery status";
    }
}

const char *mlx5_inline_name(uint8_t min_inline)
{
    static const char *const n[] = {"none", "L2", "IP", "TCP/UDP"};
    return min_inline < 4 ? n[min_inline] : "unknown";
}

static size_t header(uint8_t *in, size_t len, uint16_t opcode, uint16_t op_mod)
{
    net_memset(in, 0, len);
    mlx5_put16(in, 0x00, opcode);
    mlx5_put16(in, 0x06, op_mod);
    return len;
}

size_t mlx5_enc_enable_hca(uint8_t *in) { return header(in, 0x10, MLX5_CMD_ENABLE_HCA, 0); }
size_t mlx5_enc_query_issi(uint8_t *in) { return header(in, 0x10, MLX5_CMD_QUERY_ISSI, 0); }

size_t mlx5_enc_set_issi(uint8_t *in, uint16_t issi)
{
    size_t n = header(in, 0x10, MLX5_CMD_SET_ISSI, 0);
    mlx5_put16(in, 0x0a, issi); /* current_issi */
    return n;
}

size_t mlx5_enc_query_pages(uint8_t *in, uint16_t op_mod) { return header(in, 0x10, MLX5_CMD_QUERY_PAGES, op_mod); }

size_t mlx5_enc_manage_pages(uint8_t *in, uint16_t op_mod, uint32_t n, const uint64_t *pages)
{
    size_t len = header(in, 0x10 + (pages ? 8u * n : 0), MLX5_CMD_MANAGE_PAGES, op_mod);
    mlx5_put32(in, 0x0c, n); /* input_num_entries */
    for (uint32_t i = 0; pages && i < n; i++)
        mlx5_put64(in, 0x10 + 8u * i, pages[i]); /* pas: physical, 4 KB aligned */
    return len;
}

size_t mlx5_enc_query_hca_cap(uint8_t *in, unsigned type, unsigned cur)
{
    return header(in, 0x10, MLX5_CMD_QUERY_HCA_CAP, (uint16_t)(type << 1 | cur));
}

size_t mlx5_enc_set_hca_cap(uint8_t *in, unsigned type, const uint8_t *cap)
{
    size_t len = header(in, 0x10 + MLX5_CAP_LEN, MLX5_CMD_SET_HCA_CAP, (uint16_t)(type << 1));
    net_memcpy(in + 0x10, cap, MLX5_CAP_LEN);
    return len;
}

size_t mlx5_enc_init_hca(uint8_t *in) { return header(in, 0x10, MLX5_CMD_INIT_HCA, 0); }
size_t mlx5_enc_teardown_hca(uint8_t *in) { return header(in, 0x10, MLX5_CMD_TEARDOWN_HCA, 0); }
size_t mlx5_enc_query_adapter(uint8_t *in) { return header(in, 0x10, MLX5_CMD_QUERY_ADAPTER, 0); }
size_t mlx5_enc_alloc_uar(uint8_t *in) { return header(in, 0x10, MLX5_CMD_ALLOC_UAR, 0); }

/* CREATE_EQ: the EQ context at 0x10 (PRM "EQ Context Format"), the event
 * bitmask at 0x58, the buffer's page addresses from 0x110. */
size_t mlx5_enc_create_eq(uint8_t *in, uint32_t uar, unsigned log_size, uint64_t bitmask, const uint64_t *pages,
                          unsigned npages)
{
    size_t len = header(in, 0x110 + 8u * npages, MLX5_CMD_CREATE_EQ, 0);
    mlx5_putbits(in, 0x10 + 0x0c, 24, 5, log_size); /* log_eq_size */
    mlx5_putbits(in, 0x10 + 0x0c, 0, 24, uar);      /* uar_page */
    mlx5_putbits(in, 0x10 + 0x18, 24, 5, 0);        /* log_page_size: 4 KB pages */
    mlx5_put64(in, 0x58, bitmask);
    for (unsigned i = 0; i < npages; i++)
        mlx5_put64(in, 0x110 + 8u * i, pages[i]);
    return len;
}

size_t mlx5_enc_query_special_contexts(uint8_t *in) { return header(in, 0x10, MLX5_CMD_QUERY_SPECIAL_CONTEXTS, 0); }
size_t mlx5_enc_alloc_pd(uint8_t *in) { return header(in, 0x10, MLX5_CMD_ALLOC_PD, 0); }
size_t mlx5_enc_alloc_transport_domain(uint8_t *in) { return header(in, 0x10, MLX5_CMD_ALLOC_TRANSPORT_DOMAIN, 0); }
size_t mlx5_enc_query_nic_vport_context(uint8_t *in) { return header(in, 0x10, MLX5_CMD_QUERY_NIC_VPORT_CONTEXT, 0); }
size_t mlx5_enc_query_vport_state(uint8_t *in) { return header(in, 0x10, MLX5_CMD_QUERY_VPORT_STATE, 0); }

size_t mlx5_enc_access_reg(uint8_t *in, uint16_t id, int write, const uint8_t *data, size_t len)
{
    size_t n = header(in, 0x10 + len, MLX5_CMD_ACCESS_REG, write ? 0 : 1); /* op_mod 0 writes, 1 reads */
    mlx5_put16(in, 0x0a, id);
    if (data)
        net_memcpy(in + 0x10, data, len);
    return n;
}

/* ---- queues (PRM "Completion Queues", "Send Queue", "Receive Queue"):
 * every buffer one physically contiguous run of 4 KB pages, its
 * addresses from 0x110 ---- */

static void put_pas(uint8_t *in, uint64_t buf, unsigned npages)
{
    for (unsigned i = 0; i < npages; i++)
        mlx5_put64(in, 0x110 + 8u * i, buf + (uint64_t)i * MLX5_PAGE_SIZE);
}

size_t mlx5_enc_create_cq(uint8_t *in, const struct mlx5_cq_params *p)
{
    size_t len = header(in, 0x110 + 8u * p->npages, MLX5_CMD_CREATE_CQ, 0);
    size_t c = 0x10; /* cqc */
    mlx5_putbits(in, c + 0x0c, 24, 5, p->log_size); /* log_cq_size; cqe_sz 0: 64-byte CQEs */
    mlx5_putbits(in, c + 0x0c, 0, 24, p->uar);
    mlx5_put32(in, c + 0x14, p->eqn);               /* c_eqn: events, were it armed (hayate polls) */
    mlx5_put64(in, c + 0x38, p->dbr);
    put_pas(in, p->buf, p->npages);
    return len;
}

/* The work queue inside an SQ's or RQ's context (PRM "Work Queue Format"), at w. */
static void put_wq(uint8_t *in, size_t w, const struct mlx5_wq_params *p, unsigned log_stride)
{
    mlx5_putbits(in, w + 0x00, 28, 4, MLX5_WQ_TYPE_CYCLIC);
    mlx5_putbits(in, w + 0x08, 0, 24, p->pd);
    mlx5_putbits(in, w + 0x0c, 0, 24, p->uar);
    mlx5_put64(in, w + 0x10, p->dbr);
    mlx5_putbits(in, w + 0x20, 16, 4, log_stride); /* log_wq_stride */
    mlx5_putbits(in, w + 0x20, 8, 5, 0);           /* log_wq_pg_sz: 4 KB pages */
    mlx5_putbits(in, w + 0x20, 0, 5, p->log_size); /* log_wq_sz */
    put_pas(in, p->buf, p->npages);
}

size_t mlx5_enc_create_sq(uint8_t *in, const struct mlx5_wq_params *p, uint32_t tisn, uint8_t min_inline)
{
    size_t len = header(in, 0x110 + 8u * p->npages, MLX5_CMD_CREATE_SQ, 0);
    size_t s = 0x20; /* sqc */
    mlx5_putbits(in, s, 28, 1, 1);           /* flush_in_error_en */
    mlx5_putbits(in, s, 24, 3, min_inline);  /* min_wqe_inline_mode */
    mlx5_putbits(in, s, 20, 4, MLX5_QUEUE_RST);
    mlx5_putbits(in, s + 0x08, 0, 24, p->cqn);
    mlx5_putbits(in, s + 0x20, 16, 16, 1);   /* tis_lst_sz */
    mlx5_putbits(in, s + 0x2c, 0, 24, tisn); /* tis_num_0 */
    put_wq(in, s + 0x30, p, 6);              /* 64-byte basic blocks */
    return len;
}

size_t mlx5_enc_create_rq(uint8_t *in, const struct mlx5_wq_params *p)
{
    size_t len = header(in, 0x110 + 8u * p->npages, MLX5_CMD_CREATE_RQ, 0);
    size_t r = 0x20; /* rqc */
    mlx5_putbits(in, r, 28, 1, 1);           /* vsd: VLAN tags stay in the frame */
    mlx5_putbits(in, r, 18, 1, 1);           /* flush_in_error_en */
    mlx5_putbits(in, r, 20, 4, MLX5_QUEUE_RST);
    mlx5_putbits(in, r + 0x08, 0, 24, p->cqn);
    put_wq(in, r + 0x30, p, p->log_stride);  /* a WQE: 16-byte data segments, one or a scatter list */
    return len;
}

/* MODIFY_SQ / MODIFY_RQ: from state `from` to `to` (the context's state). */
size_t mlx5_enc_modify_queue(uint8_t *in, uint16_t opcode, uint32_t num, unsigned from, unsigned to)
{
    size_t len = header(in, 0x110, opcode, 0);
    mlx5_putbits(in, 0x08, 28, 4, from);
    mlx5_putbits(in, 0x08, 0, 24, num);
    mlx5_putbits(in, 0x20, 20, 4, to);
    return len;
}

size_t mlx5_enc_create_tis(uint8_t *in, uint32_t td)
{
    size_t len = header(in, 0xc0, MLX5_CMD_CREATE_TIS, 0);
    mlx5_putbits(in, 0x20 + 0x24, 0, 24, td);
    return len;
}

/* ---- steering (PRM "Transport Interface Receive", "Flow Table") ---- */

size_t mlx5_enc_rqt(uint8_t *in, uint32_t rqtn, const uint32_t *rqn, unsigned n)
{
    size_t len = header(in, 0x110 + 4u * n, rqtn ? MLX5_CMD_MODIFY_RQT : MLX5_CMD_CREATE_RQT, 0);
    if (rqtn) {
        mlx5_putbits(in, 0x08, 0, 24, rqtn);
        mlx5_putbits(in, 0x14, 0, 1, 1);     /* bitmask.rqn_list */
    }
    mlx5_putbits(in, 0x20 + 0x14, 0, 16, n); /* rqt_max_size */
    mlx5_putbits(in, 0x20 + 0x18, 0, 16, n); /* rqt_actual_size */
    for (unsigned i = 0; i < n; i++)
        mlx5_putbits(in, 0x110 + 4u * i, 0, 24, rqn[i]);
    return len;
}

size_t mlx5_enc_create_tir(uint8_t *in, const struct mlx5_tir_params *p)
{
    size_t len = header(in, 0x110, MLX5_CMD_CREATE_TIR, 0);
    size_t t = 0x20; /* tirc */
    mlx5_putbits(in, t + 0x24, 0, 24, p->td);
    if (!p->rqt) { /* direct: one RQ */
        mlx5_putbits(in, t + 0x1c, 0, 24, p->rqn);
        return len;
    }
    mlx5_putbits(in, t + 0x04, 28, 4, MLX5_TIR_INDIRECT);
    mlx5_putbits(in, t + 0x20, 0, 24, p->rqt);
    mlx5_putbits(in, t + 0x24, 28, 4, MLX5_HASH_TOEPLITZ);
    net_memcpy(in + t + 0x28, p->key, 40);
    mlx5_put32(in, t + 0x50, (uint32_t)p->l3_ipv6 << 31 | (uint32_t)p->l4_udp << 30 | p->fields);
    return len;
}

size_t mlx5_enc_create_flow_table(uint8_t *in, unsigned level, unsigned log_size)
{
    size_t len = header(in, 0x40, MLX5_CMD_CREATE_FLOW_TABLE, 0);
    in[0x10] = MLX5_TABLE_NIC_RX;
    mlx5_putbits(in, 0x18, 16, 8, level);
    mlx5_putbits(in, 0x18, 0, 8, log_size);
    return len;
}

/* The outer headers' fields a group matches on, or an entry's values, in
 * an fte_match_param at m. */
static void put_match(uint8_t *in, size_t m, const struct mlx5_match *v)
{
    mlx5_putbits(in, m + 0x04, 0, 16, v->ethertype);
    net_memcpy(in + m + 0x08, v->dmac, 4); /* dmac_47_16 */
    net_memcpy(in + m + 0x0c, v->dmac + 4, 2);
    in[m + 0x10] = v->ip_protocol;
}

size_t mlx5_enc_create_flow_group(uint8_t *in, uint32_t table, uint32_t first, uint32_t last,
                                  const struct mlx5_match *mask)
{
    size_t len = header(in, 0x400, MLX5_CMD_CREATE_FLOW_GROUP, 0);
    in[0x10] = MLX5_TABLE_NIC_RX;
    mlx5_putbits(in, 0x14, 0, 24, table);
    mlx5_put32(in, 0x1c, first);
    mlx5_put32(in, 0x24, last);
    if (mask) {
        in[0x3f] = MLX5_MATCH_OUTER;
        put_match(in, 0x40, mask);
    }
    return len;
}

size_t mlx5_enc_set_fte(uint8_t *in, uint32_t table, uint32_t index, uint32_t group, const struct mlx5_match *value,
                        unsigned dest_type, uint32_t dest)
{
    size_t len = header(in, 0x340 + 8, MLX5_CMD_SET_FLOW_TABLE_ENTRY, 0); /* the destinations after flow_context */
    in[0x10] = MLX5_TABLE_NIC_RX;
    mlx5_putbits(in, 0x14, 0, 24, table);
    mlx5_put32(in, 0x20, index);
    mlx5_put32(in, 0x40 + 0x04, group);
    mlx5_putbits(in, 0x40 + 0x0c, 0, 16, MLX5_ACTION_FWD_DEST);
    mlx5_putbits(in, 0x40 + 0x10, 0, 24, 1); /* destination_list_size */
    if (value)
        put_match(in, 0x40 + 0x40, value);
    in[0x340] = (uint8_t)dest_type;
    mlx5_putbits(in, 0x340, 0, 24, dest);
    return len;
}

size_t mlx5_enc_set_flow_table_root(uint8_t *in, uint32_t table)
{
    size_t len = header(in, 0x40, MLX5_CMD_SET_FLOW_TABLE_ROOT, 0);
    in[0x10] = MLX5_TABLE_NIC_RX;
    mlx5_putbits(in, 0x14, 0, 24, table);
    return len;
}

/* MODIFY_NIC_VPORT_CONTEXT: the multicast MACs the vport may receive (a
 * VF's: the eswitch in front of it passes those only), the list after the
 * context (PRM "NIC_Vport Context": allowed_list_type 1, multicast). */
size_t mlx5_enc_vport_mc_list(uint8_t *in, const uint8_t (*mac)[6], unsigned n)
{
    size_t len = header(in, 0x200 + 8u * n, MLX5_CMD_MODIFY_NIC_VPORT_CONTEXT, 0);
    mlx5_putbits(in, 0x0c, 2, 1, 1);              /* field_select.addresses_list */
    mlx5_putbits(in, 0x100 + 0xf0, 24, 3, 1);     /* allowed_list_type: multicast */
    mlx5_putbits(in, 0x100 + 0xf0, 0, 12, n);     /* allowed_list_size */
    for (unsigned i = 0; i < n; i++)
        net_memcpy(in + 0x200 + 8u * i + 2, mac[i], 6);
    return len;
}

/* MODIFY_NIC_VPORT_CONTEXT: every unicast and multicast frame (promiscuous). */
size_t mlx5_enc_vport_promisc(uint8_t *in)
{
    size_t len = header(in, 0x200, MLX5_CMD_MODIFY_NIC_VPORT_CONTEXT, 0);
    mlx5_putbits(in, 0x0c, 4, 1, 1);              /* field_select.promisc */
    mlx5_putbits(in, 0x100 + 0xf0, 30, 2, 3);     /* promisc_uc, promisc_mc */
    return len;
}

/* MODIFY_NIC_VPORT_CONTEXT: the vport's MTU (PRM "NIC_Vport Context": the
 * frame's bytes, as PMTU's admin_mtu). */
size_t mlx5_enc_vport_mtu(uint8_t *in, uint16_t mtu)
{
    size_t len = header(in, 0x200, MLX5_CMD_MODIFY_NIC_VPORT_CONTEXT, 0);
    mlx5_putbits(in, 0x0c, 6, 1, 1);              /* field_select.mtu */
    mlx5_put16(in, 0x100 + MLX5_VPORT_CTX_MTU, mtu);
    return len;
}
