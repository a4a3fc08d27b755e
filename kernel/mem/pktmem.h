/* SPDX-License-Identifier: MIT */
/* kernel/mem/pktmem.h: the memory behind each core's packet-buffer pool
 * (net/core/pkt.h): carved from 2 MiB pages, one pool per core, never shared. */
#ifndef KERNEL_PKTMEM_H
#define KERNEL_PKTMEM_H

#include "net/core/core.h"

void pktmem_init(unsigned ncpus);
struct pkt_pool *pktmem_pool(unsigned cpu);
uint64_t pktmem_bytes_per_core(void);

#endif
