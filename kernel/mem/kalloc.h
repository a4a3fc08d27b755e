/* SPDX-License-Identifier: MIT */
/* kernel/mem/kalloc.h: boot-time kernel allocations (never freed). */
#ifndef KERNEL_KALLOC_H
#define KERNEL_KALLOC_H

#include <stddef.h>
#include <stdint.h>

void *kalloc(size_t size);                /* zeroed, 64-byte aligned; panics when out */
void *kalloc_pages(uint64_t n, uint64_t align_pages); /* zeroed, direct-mapped */
void *kalloc_pages_try(uint64_t n, uint64_t align_pages); /* the same, NULL when no run of n is free */
void *kalloc_huge(uint64_t n2m);          /* n 2 MiB pages, 2 MiB-aligned */
uint64_t kalloc_used_bytes(void);

#endif
