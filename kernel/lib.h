/* SPDX-License-Identifier: MIT */
/* kernel/lib.h: freestanding C library subset (kernel/lib.c). */
#ifndef KERNEL_LIB_H
#define KERNEL_LIB_H

#include <stddef.h>

void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memset(void *d, int c, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
/* Copies at most n-1 characters and always terminates (portable: inline so
 * host builds of portable kernel files have it too). */
static inline char *strncpy_z(char *d, const char *s, size_t n)
{
    size_t i = 0;
    for (; n && i < n - 1 && s[i]; i++)
        d[i] = s[i];
    if (n)
        d[i] = 0;
    return d;
}

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
