/* SPDX-License-Identifier: MIT */
/* drivers/driver.h: what a NIC driver offers the kernel, one table entry
 * per driver (drivers/nic_drivers.c). kernel/ports.c walks the table: it
 * offers every PCI function to each driver's match in turn, probes with
 * the first that takes it, registers the driver's console commands once
 * the driver claims a port, and knows nothing else of any driver. After
 * the probe the driver and the kernel meet only in struct netdev
 * (net/core/netdev.h). */
#ifndef DRIVERS_DRIVER_H
#define DRIVERS_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "drivers/pci/pci.h"
#include "kernel/console/cli_parse.h"
#include "kernel/console/config.h"
#include "net/core/core.h"

#define DRIVER_PORTS_MAX 16 /* ports a driver may have to keep track of (kernel/ports.h PORTS_MAX) */

/* A console command of the driver's. With port_fn, the command takes one
 * port name: the kernel finds the port and hands it over when this
 * driver claimed it; port_fn returns false when it cannot take that port
 * after all. Either way the kernel answers "usage: USAGE (PORT_HINT)". */
struct nic_driver_cmd {
    const char *words, *usage, *help;
    cli_fn fn;                                     /* a command without a port, or */
    bool (*port_fn)(struct netdev *dev, const struct cli_args *a);
    const char *port_hint;                         /* port_fn: which ports it takes */
};

struct nic_driver_stmt {
    const char *keyword;
    config_fn fn;
};

struct nic_driver {
    const char *name;
    bool (*match)(const struct pci_dev *pci);
    /* Brings the function up with up to max_pairs queue pairs, queue q
     * refilled from pools[q]; with nvfs (at most sriov_max_vfs) it also
     * offers that many SR-IOV virtual functions, which become PCI
     * functions probed after every other. Returns the netdev, named by the
     * caller, or NULL. */
    struct netdev *(*probe)(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools, uint8_t nvfs);
    uint8_t sriov_max_vfs;                  /* 0: a function that offers no VFs */
    const struct nic_driver_cmd *cmds;      /* registered when it claims its first port */
    int ncmds;
    const struct nic_driver_stmt *stmts;    /* registered before the configuration is applied */
    int nstmts;
};

/* .cmds and .ncmds of an entry, from an array. */
#define NIC_DRIVER_CMDS(array) .cmds = (array), .ncmds = (int)(sizeof(array) / sizeof((array)[0]))

/* Symmetric Toeplitz key (0x6d5a repeated): both directions of a flow hash
 * alike, so a forwarded flow and its replies meet on one core. Every
 * driver with RSS programs it. */
extern const uint8_t nic_rss_key[NETDEV_RSS_KEY_LEN];

/* drivers/nic_drivers.c: every driver, in the order they are asked. */
extern const struct nic_driver *const nic_drivers[];
extern const int nic_driver_count;

#endif
