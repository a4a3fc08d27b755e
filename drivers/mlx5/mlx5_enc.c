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
