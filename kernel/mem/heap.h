/* SPDX-License-Identifier: MIT */
/* kernel/mem/heap.h: a general kernel allocator with sized free, for
 * control-plane data that changes at run time (the route table's nodes,
 * next hops). Not for the data path: packet buffers have their own pools. */
#ifndef KERNEL_HEAP_H
#define KERNEL_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* size bytes, aligned to the power of two at or above size (at least 16)
 * up to 2 KiB and to a page above; NULL when out of memory. Not zeroed. */
void *heap_alloc(size_t size);
/* p from heap_alloc with the same size. */
void heap_free(void *p, size_t size);
uint64_t heap_bytes_in_use(void);

#endif
