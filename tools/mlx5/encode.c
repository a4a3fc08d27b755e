/* SPDX-License-Identifier: MIT */
/* tools/mlx5/encode.c: prints, as hex, the input hayate's mlx5 driver
 * builds for one command (drivers/mlx5/mlx5_enc.c), so that
 * tests/e2e/test_mlx5_encodings.py can set it beside what Linux sent a
 * real ConnectX-4 (../shared/data/mlx5). The command is the argument; its
 * parameters come on standard input, numbers in C syntax (page lists run
 * to thousands):
 *   enable_hca | query_issi | init_hca | teardown_hca | query_adapter | alloc_uar
 *   | query_special_contexts | alloc_pd | alloc_transport_domain
 *   | query_nic_vport_context | query_vport_state
 *   set_issi ISSI          query_pages OP_MOD       query_hca_cap TYPE CUR
 *   manage_pages OP_MOD PAGE...                     access_reg ID WRITE HEX
 *   create_eq UAR LOG_SIZE BITMASK PAGE... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/mlx5/mlx5_enc.h"

static uint64_t num(const char *s) { return strtoull(s, NULL, 0); }

int main(int argc, char **argv)
{
    static uint8_t in[1 << 20];
    static uint64_t pages[1 << 16];
    static char word[8192];
    uint8_t data[4096];
    size_t len = 0;
    const char *c = argc > 1 ? argv[1] : "";
    int n = 0;
    while (n < (1 << 16) && scanf("%8191s", word) == 1) {
        if (n == 2 && !strcmp(c, "access_reg")) { /* the register's bytes, as hex */
            size_t dl = strlen(word) / 2;
            for (size_t i = 0; i < dl && i < sizeof data; i++)
                sscanf(word + 2 * i, "%2hhx", &data[i]);
            pages[n++] = dl;
            continue;
        }
        pages[n++] = num(word);
    }
    if (!strcmp(c, "enable_hca")) len = mlx5_enc_enable_hca(in);
    else if (!strcmp(c, "query_issi")) len = mlx5_enc_query_issi(in);
    else if (!strcmp(c, "init_hca")) len = mlx5_enc_init_hca(in);
    else if (!strcmp(c, "teardown_hca")) len = mlx5_enc_teardown_hca(in);
    else if (!strcmp(c, "query_adapter")) len = mlx5_enc_query_adapter(in);
    else if (!strcmp(c, "alloc_uar")) len = mlx5_enc_alloc_uar(in);
    else if (!strcmp(c, "query_special_contexts")) len = mlx5_enc_query_special_contexts(in);
    else if (!strcmp(c, "alloc_pd")) len = mlx5_enc_alloc_pd(in);
    else if (!strcmp(c, "alloc_transport_domain")) len = mlx5_enc_alloc_transport_domain(in);
    else if (!strcmp(c, "query_nic_vport_context")) len = mlx5_enc_query_nic_vport_context(in);
    else if (!strcmp(c, "query_vport_state")) len = mlx5_enc_query_vport_state(in);
    else if (!strcmp(c, "set_issi") && n == 1) len = mlx5_enc_set_issi(in, (uint16_t)pages[0]);
    else if (!strcmp(c, "query_pages") && n == 1) len = mlx5_enc_query_pages(in, (uint16_t)pages[0]);
    else if (!strcmp(c, "query_hca_cap") && n == 2) len = mlx5_enc_query_hca_cap(in, (unsigned)pages[0], (unsigned)pages[1]);
    else if (!strcmp(c, "manage_pages") && n >= 1)
        len = mlx5_enc_manage_pages(in, (uint16_t)pages[0], (uint32_t)(n - 1), pages + 1);
    else if (!strcmp(c, "create_eq") && n >= 3)
        len = mlx5_enc_create_eq(in, (uint32_t)pages[0], (unsigned)pages[1], pages[2], pages + 3, (unsigned)(n - 3));
    else if (!strcmp(c, "access_reg") && n == 3)
        len = mlx5_enc_access_reg(in, (uint16_t)pages[0], (int)pages[1], data, (size_t)pages[2]);
    else {
        fprintf(stderr, "usage: see tools/mlx5/encode.c\n");
        return 2;
    }
    for (size_t i = 0; i < len; i++)
        printf("%02x", in[i]);
    printf("\n");
    return 0;
}
