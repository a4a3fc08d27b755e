/* SPDX-License-Identifier: MIT */
/* kernel/ports.h: the machine's network ports, eth0, eth1, ... in PCI
 * order, each a struct netdev (net/core/netdev.h) from whichever driver of
 * the table (drivers/driver.h) claimed the function. */
#ifndef KERNEL_PORTS_H
#define KERNEL_PORTS_H

#include <stdbool.h>
#include <stddef.h>

#include "net/core/core.h"

#define PORTS_MAX 16

/* Probes every PCI function with the drivers of the table; each port gets
 * up to ncpus queue pairs, queue q refilled from core q's pool. A driver's
 * console commands are registered once it claims a port. */
void ports_init(unsigned ncpus);
/* The `sriov ethN vfs K` statement (a config_fn), applied before
 * ports_init: port N, a physical function whose driver offers VFs (igb),
 * offers K virtual functions, which become ports after every other. */
int ports_sriov_stmt(int argc, char **argv, char *err, size_t errlen);
int ports_count(void);
struct netdev *ports_get(int index);
struct netdev *ports_find(const char *name);
/* The one user that polls a port's queues (the router, an xconnect): two
 * would split its frames between them. ports_holder is the name its
 * ports_claim gave, or NULL while the port is free. */
const char *ports_holder(const struct netdev *dev);
void ports_claim(const struct netdev *dev, const char *who);
/* Two distinct free ports named a and b claimed as holder ("an
 * xconnect"), both made promiscuous (a port that cannot be is named on
 * the console); who begins the messages ("xconnect"). 0, or -1 with why
 * in err. */
int ports_claim_pair(const char *who, const char *holder, const char *a, const char *b, struct netdev **pa,
                     struct netdev **pb, char *err, size_t errlen);
/* Starts the link/status poll; on core 0, before its loop runs. */
void ports_start_status_polling(uint64_t now_ns);
/* Who owns a port's addresses (the router) says what to show for them in
 * `show interfaces`: fn writes e.g. "10.0.0.1/24" (PORTS_ADDR6:
 * "2001:db8::1/64"; PORTS_VLAN: "100", the 802.1Q VLAN the port carries;
 * PORTS_SUBIFS: "eth0.100 eth0.200", its VLAN sub-interfaces), or "" for
 * none. */
enum ports_describe { PORTS_ADDR4, PORTS_ADDR6, PORTS_VLAN, PORTS_SUBIFS };
void ports_set_describe(void (*fn)(int port, enum ports_describe what, char *buf, size_t n));
/* Sums of a port's per-queue counters. */
void ports_totals(const struct netdev *dev, struct netdev_qstats *sum);

#endif
