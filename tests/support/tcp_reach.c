/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_reach.c: see tcp_reach.h. */
#include "tests/support/tcp_reach.h"

#include <stdio.h>
#include <string.h>

#include "net/tcp/tcp_impl.h"

/* Conditions of a connection beyond its state. */
enum {
    REACH_RECOVERY,             /* TCP_CF_IN_RECOVERY */
    REACH_RACK_TIMER,           /* TCP_CF_REO: RACK's reordering timer */
    REACH_TLP_OUT,              /* TCP_CF_TLP */
    REACH_PERSIST,              /* probing the peer's shut window */
    REACH_OUR_WINDOW_SHUT,      /* tcp_rcv_window 0 */
    REACH_REORDERING,           /* rack_reord: RACK alone judges */
    REACH_FIN_WAIT_2_HOLE,      /* FIN-WAIT-2, data behind a hole */
    REACH_PEER_FIN_OOO,         /* the peer's FIN behind a hole */
    REACH_LARGE_QUEUE,          /* the send buffer grown past its ring */
    REACH_N
};
static const char *const names[REACH_N] = {"recovery",        "rack-timer",   "tlp-out",
                                           "persist",         "our-window-shut", "reordering",
                                           "fin-wait-2-hole", "peer-fin-ooo", "large-queue"};

#define NCOUNTERS (sizeof(struct net_counters) / sizeof(uint64_t))
static uint64_t inputs, states, conds[REACH_N], counters[NCOUNTERS];
static uint32_t input_states, input_conds;

void tcp_reach_note(const struct tcp_conn *c)
{
    if (c == NULL)
        return;
    bool open = tcp_synchronized(c->state) && c->state != TCP_TIME_WAIT;
    bool is[REACH_N] = {
        [REACH_RECOVERY] = c->flags & TCP_CF_IN_RECOVERY,
        [REACH_RACK_TIMER] = c->flags & TCP_CF_REO,
        [REACH_TLP_OUT] = c->flags & TCP_CF_TLP,
        [REACH_PERSIST] = c->flags & TCP_CF_PERSIST,
        [REACH_OUR_WINDOW_SHUT] = open && tcp_rcv_window(c) == 0,
        [REACH_REORDERING] = c->rack_reord,
        [REACH_FIN_WAIT_2_HOLE] = c->state == TCP_FIN_WAIT_2 && (c->ooo || (c->flags & TCP_CF_FIN_OOO)),
        [REACH_PEER_FIN_OOO] = c->flags & TCP_CF_FIN_OOO,
        [REACH_LARGE_QUEUE] = c->flags & TCP_CF_SQ_LARGE,
    };
    input_states |= 1u << c->state;
    for (int i = 0; i < REACH_N; i++)
        input_conds |= (uint32_t)is[i] << i;
}

void tcp_reach_input_end(const struct net_counters *now, const struct net_counters *start)
{
    const struct net_counter_desc *d;
    inputs++;
    states |= input_states;
    for (int i = 0; i < REACH_N; i++)
        conds[i] += (input_conds >> i) & 1;
    for (size_t i = 0; (d = net_counter_at(i)) != NULL && i < NCOUNTERS; i++)
        counters[i] += net_counter_get(now, d) != net_counter_get(start, d);
    input_states = input_conds = 0;
}

void tcp_reach_print(const char *target)
{
    fprintf(stderr, "%s: %llu inputs; states reached:", target, (unsigned long long)inputs);
    for (uint8_t s = 0; s <= TCP_TIME_WAIT; s++)
        if (states & (1u << s))
            fprintf(stderr, " %s", tcp_state_name(s));
    fprintf(stderr, "\ninputs that reached each condition:\n");
    for (int i = 0; i < REACH_N; i++)
        if (conds[i])
            fprintf(stderr, "  %-24s %llu\n", names[i], (unsigned long long)conds[i]);
    fprintf(stderr, "inputs that moved each TCP counter:\n");
    const struct net_counter_desc *d;
    for (size_t i = 0; (d = net_counter_at(i)) != NULL && i < NCOUNTERS; i++)
        if (counters[i] && strcmp(d->layer, "tcp") == 0)
            fprintf(stderr, "  %-24s %llu\n", d->name, (unsigned long long)counters[i]);
}
