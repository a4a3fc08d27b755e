/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_gen.c: the traffic generator's receiving side
 * (tester/gen_frame.c, tester/gen_rx.c), whose input is any frame a
 * device under test sends back. The input is read twice: as a frame for
 * the stamp parser (which must not read past it: ASan), and as a stream
 * of sequence numbers (a 32-bit base, then one byte each, so the span
 * stays inside the receive window) whose accounting must match a
 * reference that remembers every number seen. */
#include <stdlib.h>
#include <string.h>

#include "tester/gen_frame.h"
#include "tester/gen_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *frame = malloc(size ? size : 1); /* exact size: ASan sees any overread */
    memcpy(frame, data, size);
    struct gen_stamp st;
    if (gen_stamp_parse(frame, (uint32_t)size, &st) && st.magic != GEN_STAMP_MAGIC)
        abort();
    free(frame);
    if (size < 4)
        return 0;
    uint32_t base;
    memcpy(&base, data, 4);
    static struct gen_rx_stream s;
    gen_rx_stream_clear(&s);
    uint8_t seen[256] = {0};
    int have = 0;
    uint32_t next = 0;
    uint64_t dup = 0, reordered = 0;
    for (size_t i = 4; i < size; i++) {
        uint32_t seq = base + data[i];
        if (have && (int32_t)(seq - next) < 0) {
            if (seen[data[i]])
                dup++;
            else
                reordered++;
        } else {
            next = seq + 1;
        }
        have = 1;
        seen[data[i]] = 1;
        gen_rx_account(&s, seq, data[i]);
    }
    if (s.rx != size - 4 || s.dup != dup || s.reordered != reordered || s.too_late != 0 || s.lat.count != s.rx)
        abort();
    return 0;
}
