/* SPDX-License-Identifier: MIT */
/* drivers/mlx5/mlx5_enc.h: the mlx5 driver's command encoders, apart from
 * the device (no MMIO, no allocation: the host build tests them against
 * a real card's recorded commands, tests/unit/drivers/mlx5_commands.c).
 * Each fills a command's input, header first (the 16 bytes the queue
 * entry carries inline, then what goes to mailboxes), zeroing it, and
 * returns its length in bytes; the reply's length is the caller's. */
#ifndef DRIVERS_MLX5_ENC_H
#define DRIVERS_MLX5_ENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/mlx5/mlx5_prm.h"

static inline void mlx5_put16(uint8_t *b, size_t off, uint16_t v)
{
    b[off] = (uint8_t)(v >> 8);
    b[off + 1] = (uint8_t)v;
}
static inline void mlx5_put32(uint8_t *b, size_t off, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[off + (size_t)i] = (uint8_t)(v >> (24 - 8 * i));
}
static inline void mlx5_put64(uint8_t *b, size_t off, uint64_t v)
{
    mlx5_put32(b, off, (uint32_t)(v >> 32));
    mlx5_put32(b, off + 4, (uint32_t)v);
}
static inline uint16_t mlx5_get16(const uint8_t *b, size_t off) { return (uint16_t)(b[off] << 8 | b[off + 1]); }
static inline uint32_t mlx5_get32(const uint8_t *b, size_t off)
{
    return (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 | (uint32_t)b[off + 2] << 8 | b[off + 3];
}
static inline uint64_t mlx5_get64(const uint8_t *b, size_t off)
{
    return (uint64_t)mlx5_get32(b, off) << 32 | mlx5_get32(b, off + 4);
}
/* A field of width bits at shift (from the dword's bit 0) of the dword at off. */
static inline void mlx5_putbits(uint8_t *b, size_t off, unsigned shift, unsigned width, uint32_t v)
{
    uint32_t mask = (width == 32 ? ~0u : (1u << width) - 1u) << shift;
    mlx5_put32(b, off, (mlx5_get32(b, off) & ~mask) | ((v << shift) & mask));
}
static inline uint32_t mlx5_getbits(const uint8_t *b, size_t off, unsigned shift, unsigned width)
{
    return (mlx5_get32(b, off) >> shift) & (width == 32 ? ~0u : (1u << width) - 1u);
}

/* The queue entry's signature: the byte that makes its 64 bytes XOR to
 * 0xff (ownership bit set, as posted). */
uint8_t mlx5_entry_signature(const uint8_t entry[MLX5_ENT_SIZE]);

/* Names for messages: an opcode's, a reply status's, a delivery status's. */
const char *mlx5_cmd_name(uint16_t opcode);
const char *mlx5_status_name(uint8_t status);
const char *mlx5_delivery_name(uint8_t status);
const char *mlx5_inline_name(uint8_t min_inline);

/* Bring-up (PRM "HCA Driver Start-up"). */
size_t mlx5_enc_enable_hca(uint8_t *in);
size_t mlx5_enc_query_issi(uint8_t *in);
size_t mlx5_enc_set_issi(uint8_t *in, uint16_t issi);
size_t mlx5_enc_query_pages(uint8_t *in, uint16_t op_mod);
/* MANAGE_PAGES giving (or, n 0 and pages NULL, asking back) n pages. */
size_t mlx5_enc_manage_pages(uint8_t *in, uint16_t op_mod, uint32_t n, const uint64_t *pages);
size_t mlx5_enc_query_hca_cap(uint8_t *in, unsigned type, unsigned cur);
/* SET_HCA_CAP of capability type: MLX5_CAP_LEN bytes at cap. */
size_t mlx5_enc_set_hca_cap(uint8_t *in, unsigned type, const uint8_t *cap);
size_t mlx5_enc_init_hca(uint8_t *in);
size_t mlx5_enc_teardown_hca(uint8_t *in);
size_t mlx5_enc_query_adapter(uint8_t *in);
size_t mlx5_enc_alloc_uar(uint8_t *in);
/* CREATE_EQ of 2^log_size entries in one 4 KB-page-aligned buffer of
 * npages pages at pages[], its doorbell in uar, events in bitmask. */
size_t mlx5_enc_create_eq(uint8_t *in, uint32_t uar, unsigned log_size, uint64_t bitmask, const uint64_t *pages,
                          unsigned npages);
size_t mlx5_enc_query_special_contexts(uint8_t *in);
size_t mlx5_enc_alloc_pd(uint8_t *in);
size_t mlx5_enc_alloc_transport_domain(uint8_t *in);
size_t mlx5_enc_query_nic_vport_context(uint8_t *in);
size_t mlx5_enc_query_vport_state(uint8_t *in);
/* ACCESS_REG of register id: write (1) or read (0) len bytes of data. */
size_t mlx5_enc_access_reg(uint8_t *in, uint16_t id, int write, const uint8_t *data, size_t len);

/* Queues: each buffer one run of npages 4 KB pages from physical buf;
 * dbr the physical address of its doorbell record. */
struct mlx5_cq_params {
    uint32_t uar, eqn;
    unsigned log_size, npages;
    uint64_t buf, dbr;
};
struct mlx5_wq_params {
    uint32_t pd, uar, cqn;
    unsigned log_size, npages;
    unsigned log_stride; /* an RQ's WQE: 4, one data segment; more, a scatter list (an SQ's: 64-byte blocks) */
    uint64_t buf, dbr;
};
size_t mlx5_enc_create_cq(uint8_t *in, const struct mlx5_cq_params *p);
size_t mlx5_enc_create_sq(uint8_t *in, const struct mlx5_wq_params *p, uint32_t tisn, uint8_t min_inline);
size_t mlx5_enc_create_rq(uint8_t *in, const struct mlx5_wq_params *p);
size_t mlx5_enc_modify_queue(uint8_t *in, uint16_t opcode, uint32_t num, unsigned from, unsigned to);
size_t mlx5_enc_create_tis(uint8_t *in, uint32_t td);

/* Steering. A TIR is direct (rqt 0: all to rqn) or spreads by a Toeplitz
 * hash of fields (MLX5_HASH_*) over the RQT. */
struct mlx5_tir_params {
    uint32_t td, rqn, rqt;
    const uint8_t *key; /* 40 bytes */
    bool l3_ipv6, l4_udp;
    uint32_t fields;
};
/* What a flow group matches on (a mask) or an entry's values: the outer
 * Ethernet destination, ethertype, IP protocol. */
struct mlx5_match {
    uint8_t dmac[6];
    uint16_t ethertype;
    uint8_t ip_protocol;
};
/* CREATE_RQT (rqtn 0) or MODIFY_RQT of rqtn: n entries, rqn[i] each. */
size_t mlx5_enc_rqt(uint8_t *in, uint32_t rqtn, const uint32_t *rqn, unsigned n);
size_t mlx5_enc_create_tir(uint8_t *in, const struct mlx5_tir_params *p);
size_t mlx5_enc_create_flow_table(uint8_t *in, unsigned level, unsigned log_size);
/* A group of entries first..last matching on mask's fields (NULL: on nothing). */
size_t mlx5_enc_create_flow_group(uint8_t *in, uint32_t table, uint32_t first, uint32_t last,
                                  const struct mlx5_match *mask);
/* Entry index of group: frames with value's fields (NULL: any) go to dest
 * (MLX5_DEST_TIR or MLX5_DEST_TABLE). */
size_t mlx5_enc_set_fte(uint8_t *in, uint32_t table, uint32_t index, uint32_t group, const struct mlx5_match *value,
                        unsigned dest_type, uint32_t dest);
size_t mlx5_enc_set_flow_table_root(uint8_t *in, uint32_t table);
size_t mlx5_enc_vport_promisc(uint8_t *in);
size_t mlx5_enc_vport_mc_list(uint8_t *in, const uint8_t (*mac)[6], unsigned n);
size_t mlx5_enc_vport_mtu(uint8_t *in, uint16_t mtu);

/* Reply fields, by the reply's byte offsets. */
#define MLX5_OUT_STATUS 0x00
#define MLX5_OUT_SYNDROME 0x04
#define MLX5_OUT_ISSI_SUPPORTED 0x6c     /* QUERY_ISSI: bit n, ISSI n */
#define MLX5_QUERY_ISSI_OUT_LEN 0x70
#define MLX5_OUT_NUM_PAGES 0x0c          /* QUERY_PAGES: signed */
#define MLX5_OUT_MANAGE_PAGES_N 0x08     /* MANAGE_PAGES taking: how many follow at 0x10 */
#define MLX5_OUT_OBJECT 0x08             /* ALLOC_UAR, ALLOC_PD, ALLOC_TRANSPORT_DOMAIN: 23:0 */
#define MLX5_OUT_EQN 0x0b                /* CREATE_EQ: u8 */
#define MLX5_OUT_RESD_LKEY 0x0c          /* QUERY_SPECIAL_CONTEXTS */
#define MLX5_QUERY_SPECIAL_OUT_LEN 0x20
#define MLX5_OUT_CAP 0x10                /* QUERY_HCA_CAP: the capability */
#define MLX5_OUT_VPORT_CTX 0x10          /* QUERY_NIC_VPORT_CONTEXT: nic_vport_context */
#define MLX5_QUERY_NIC_VPORT_OUT_LEN 0x110
#define MLX5_VPORT_CTX_MIN_INLINE 0x00   /* bits 26:24 */
#define MLX5_VPORT_CTX_MTU 0x26          /* 16 bits */
#define MLX5_VPORT_CTX_PERM_ADDR 0xf6    /* 6 bytes */
#define MLX5_OUT_VPORT_STATE 0x0f        /* QUERY_VPORT_STATE: admin 7:4, oper 3:0 */
#define MLX5_OUT_ADAPTER 0x10            /* QUERY_ADAPTER: query_adapter_param_block */
#define MLX5_QUERY_ADAPTER_OUT_LEN 0x110
#define MLX5_ADAPTER_PSID 0xf0           /* 16 bytes of text */
#define MLX5_OUT_REG 0x10                /* ACCESS_REG: the register */
#define MLX5_OUT_FLOW_GROUP 0x08         /* CREATE_FLOW_GROUP: 32 bits */

#endif
