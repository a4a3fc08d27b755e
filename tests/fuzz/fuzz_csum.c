/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_csum.c: net/core/csum.c against the byte-by-byte reference on
 * every alignment, and RFC 1624 updates against recomputation. */
#include <stdlib.h>
#include <string.h>

#include "net/core/csum.h"
#include "tests/support/fake_netdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t buf[8 + 65536];
    if (size > 65536)
        size = 65536;
    uint16_t ref = fake_csum(data, size, 0);
    for (size_t off = 0; off < 8; off++) {
        memcpy(buf + off, data, size);
        uint16_t fast = csum_finish(csum_partial(buf + off, size, 0));
        uint8_t b[2];
        memcpy(b, &fast, 2);
        if ((uint16_t)(b[0] << 8 | b[1]) != ref)
            abort();
    }
    if (size >= 24) {
        /* Replace word w of the first 20 bytes (the checksum lives at 10). */
        uint8_t h[20];
        memcpy(h, data, 20);
        h[10] = h[11] = 0;
        uint16_t c = csum_finish(csum_partial(h, 20, 0)), old, new_word;
        memcpy(h + 10, &c, 2);
        size_t w = data[20] % 10;
        if (w == 5)
            w = 0;
        memcpy(&old, h + 2 * w, 2);
        memcpy(&new_word, data + 22, 2);
        memcpy(h + 2 * w, &new_word, 2);
        uint16_t inc = csum_update16(c, old, new_word);
        h[10] = h[11] = 0;
        uint16_t re = csum_finish(csum_partial(h, 20, 0));
        if (inc != re && !((inc | re) == 0xffff && (inc & re) == 0))
            abort();
    }
    return 0;
}
