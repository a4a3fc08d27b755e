/* userland/router_arp.c: ARP shared across cores.
 *
 * Each core's stack keeps its own ARP caches (no locks on the data path),
 * but a NIC puts the frames it cannot hash, ARP among them, on one queue
 * (virtio 1.2 5.1.6.5.7.1's unclassified queue; the 82576 and 82599 send
 * them to queue 0): the reply to core 1's request reaches core 0. So what
 * a core's arp_input accepts about a sender (net_arp_seen_fn) is written to
 * a note of that core's and announced to every other core running the
 * router (kernel/msg.h); each reads the note and updates its own entry, if
 * it has one (arp_learn_remote: an incomplete one resolves and sends what
 * waited).
 *
 * A message carries only the sender's core and the note's sequence number:
 * notes are a ring of ROUTER_ARP_NOTES written by their core alone, seqlock
 * style (seq 0 while the words change, then the new seq with release); a
 * reader that finds another seq before or after reading (the ring wrapped:
 * 64 ARP packets before it ran) drops it, and that core's own request
 * retries. */
#include "router.h"

#include "kernel/msg.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "net/arp.h"

static void apply_note(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    unsigned from = (unsigned)(v & 0xff), me = cpu_index();
    uint64_t seq = (uint64_t)(v >> 8);
    if (from >= router.ncores || me >= router.ncores || !router.core[from] || !router.core[me])
        return;
    struct router_arp_note *n = &router.core[from]->arp_notes[seq % ROUTER_ARP_NOTES];
    if (atomic_load_explicit(&n->seq, memory_order_acquire) != seq)
        return;
    uint64_t w0 = atomic_load_explicit(&n->w0, memory_order_relaxed);
    uint64_t w1 = atomic_load_explicit(&n->w1, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&n->seq, memory_order_relaxed) != seq)
        return;
    uint8_t mac[6] = {(uint8_t)(w0 >> 48), (uint8_t)(w0 >> 56), (uint8_t)w1, (uint8_t)(w1 >> 8),
                      (uint8_t)(w1 >> 16), (uint8_t)(w1 >> 24)};
    struct net_stack *s = &router.core[me]->stack;
    arp_learn_remote(s, (uint16_t)(w0 >> 32), (uint32_t)w0, mac, time_now_ns());
    net_flush(s); /* what waited on the entry */
}

static void seen(void *ctx, uint16_t port, uint32_t ip_be, const uint8_t *mac)
{
    struct router_core *rc = ctx;
    uint64_t seq = ++rc->arp_note_seq;
    struct router_arp_note *n = &rc->arp_notes[seq % ROUTER_ARP_NOTES];
    atomic_store_explicit(&n->seq, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&n->w0, ip_be | (uint64_t)port << 32 | (uint64_t)mac[0] << 48 | (uint64_t)mac[1] << 56,
                          memory_order_relaxed);
    atomic_store_explicit(&n->w1, mac[2] | (uint64_t)mac[3] << 8 | (uint64_t)mac[4] << 16 | (uint64_t)mac[5] << 24,
                          memory_order_relaxed);
    atomic_store_explicit(&n->seq, seq, memory_order_release);
    for (unsigned c = 0; c < router.ncores; c++) {
        const struct router_core *other = router.core[c];
        if (c != rc->cpu && other && port < NET_MAX_PORTS && other->stack.iface[port].dev)
            msg_send(c, apply_note, (void *)(uintptr_t)(seq << 8 | rc->cpu));
    }
}

void router_arp_share(struct router_core *rc)
{
    if (router.ncores > 1)
        net_set_arp_seen(&rc->stack, seen, rc);
}
