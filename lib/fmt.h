/* SPDX-License-Identifier: MIT */
/* lib/fmt.h: printf-style formatting, portable (host-tested).
 * Conversions: %d %i %u %x %X %o %p %s %c %%, flags - 0 + space, width and
 * precision (also *), length hh h l ll z j t. No floating point. */
#ifndef LIB_FMT_H
#define LIB_FMT_H

#include <stdarg.h>
#include <stddef.h>

typedef void (*fmt_sink)(void *ctx, char c);

/* Returns the number of characters produced. */
int fmt_vformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap);
/* Always NUL-terminates when size > 0; returns the length it wanted. */
int fmt_snprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int fmt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

#endif
