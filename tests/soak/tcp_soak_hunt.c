/* SPDX-License-Identifier: MIT */
/* tests/soak/tcp_soak_hunt.c: make soak: the TCP soak
 * (tests/support/tcp_soak.c) over a range of seeds, to hunt for a failing
 * one; the unit test tcp_soak runs fixed seeds.
 *
 *   tcp_soak_hunt FROM:COUNT[:v]      (make soak SOAK=FROM:COUNT[:v])
 *
 * v prints a line per seed; SOAK_MIN_WRITE=N in the environment lets
 * writes be as small as N bytes (1: tiny writes too). Prints each failing
 * seed, then "soak: N seeds from F, N failed"; exits 1 if any failed. */
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/tcp_soak.h"

int main(int argc, char **argv)
{
    const char *range = argc > 1 ? argv[1] : "", *mw = getenv("SOAK_MIN_WRITE");
    unsigned long long from = 0, count = 0;
    char v = 0;
    if (sscanf(range, "%llu:%llu:%c", &from, &count, &v) < 2) {
        fprintf(stderr, "usage: tcp_soak_hunt FROM:COUNT[:v]\n");
        return 2;
    }
    unsigned long long bad = 0;
    for (unsigned long long i = 0; i < count; i++)
        if (!soak_run(from + i, v == 'v', mw ? (uint32_t)atoi(mw) : SOAK_MIN_WRITE)) {
            bad++;
            fprintf(stderr, "  SOAK FAIL %llu\n", from + i);
        }
    printf("soak: %llu seeds from %llu, %llu failed\n", count, from, bad);
    return bad ? 1 : 0;
}
