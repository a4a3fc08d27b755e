/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc.h: the kernel's network service: the stack
 * (net/) on every core, polling that core's queue of each port it serves,
 * forwarding between them by the route table, TCP sized from free
 * memory, and the apps (kernel/app.h) on top; its configuration
 * statements (interface, route, routes, tcp, xconnect) and console
 * commands (show stats, arp, neighbors, tcp, route; route add/del; clear
 * counters). */
#ifndef KERNEL_NETSVC_H
#define KERNEL_NETSVC_H

#include <stdbool.h>
#include <stdint.h>

struct net_stack;

/* Before the configuration: the route tables, statements and commands. */
void netsvc_init(void);
/* After it: a stack on every core, on each port with an address, the
 * apps on it; nothing when no port has one. */
void netsvc_start(void);

/* The idx-th counter: the stack's, then the forwarding path's, each
 * summed over every core (kernel/app.h's app_metric). */
bool netsvc_metric(void *ctx, struct net_stack *s, uint32_t idx, const char **name, uint64_t *value);

#endif
