/* SPDX-License-Identifier: MIT */
/* tester/gen_rx.h: what the generator's receiving side counts of each
 * stream: frames received, duplicated and reordered (RFC 4737: arrived
 * after a later sequence number), and their latency.
 *
 * A stream is sent by one core in sequence order; the frames of one
 * stream that reach one receiving core are judged against each other
 * (RSS may spread a stream's flows over cores: each core sees a
 * subsequence, which is still in order when nothing reordered it). Loss
 * is not guessed from gaps: it is what was sent less what arrived once,
 * summed over the cores after the run has drained (gen_rx_lost). */
#ifndef TESTER_GEN_RX_H
#define TESTER_GEN_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "lat_hist.h"

/* How far back a late frame can still be told from a duplicate. */
#define GEN_RX_WINDOW 1024u

struct gen_rx_stream {
    uint64_t rx;        /* every frame of the stream, duplicates too */
    uint64_t dup;       /* a sequence number seen before, in the window */
    uint64_t reordered; /* behind the highest seen, not seen before */
    uint64_t too_late;  /* behind by more than the window: counted as reordered too */
    uint32_t next;      /* one past the highest sequence number seen */
    bool started;
    uint64_t seen[GEN_RX_WINDOW / 64]; /* bit s % WINDOW: s seen, s in [next - WINDOW, next) */
    struct lat_hist lat;
};

void gen_rx_stream_clear(struct gen_rx_stream *s);
/* One frame of the stream: its sequence number and its latency in ns
 * (now less the stamp's time; a frame stamped in the future counts 0). */
void gen_rx_account(struct gen_rx_stream *s, uint32_t seq, uint64_t latency_ns);
/* Per-core counts summed (sums only: the windows are per core). */
void gen_rx_merge(struct gen_rx_stream *into, const struct gen_rx_stream *s);
/* Frames sent less frames that arrived at least once; negative when
 * more arrived than were sent (a duplicate older than the window). */
int64_t gen_rx_lost(uint64_t sent, const struct gen_rx_stream *s);

#endif
