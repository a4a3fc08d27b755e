/* SPDX-License-Identifier: MIT */
/* kernel/random.h: boot-time secrets (TCP ISNs and SYN cookies, RFC 6528). */
#ifndef KERNEL_RANDOM_H
#define KERNEL_RANDOM_H

#include <stddef.h>

/* Fills buf from RDSEED, else RDRAND (Intel SDM vol. 1, 7.3.17), else a
 * mix of TSC readings taken around I/O (weak; said once on the console). */
void random_bytes(void *buf, size_t n);

#endif
