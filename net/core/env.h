/* SPDX-License-Identifier: MIT */
/* net/core/env.h: the only things net/ needs from whoever embeds it.
 *
 * net/ is freestanding (docs/design.md, Boundaries): it owns no clock, loop,
 * thread or memory. Time comes in as arguments (now_ns); memory comes in as
 * pools and arenas handed over by the embedder. The kernel and the host test
 * binaries each provide these few symbols. */
#ifndef NET_ENV_H
#define NET_ENV_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* memcpy/memset/memmove/memcmp: the compiler lowers these builtins to calls that the
 * kernel's lib and the host's libc both provide. */
#define net_memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define net_memset(d, c, n) __builtin_memset((d), (c), (n))
#define net_memmove(d, s, n) __builtin_memmove((d), (s), (n))
#define net_memcmp(a, b, n) __builtin_memcmp((a), (b), (n))

/* Diagnostic log line (no trailing newline needed). Never on the hot path. */
void net_env_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define NET_LIKELY(x) __builtin_expect(!!(x), 1)
#define NET_UNLIKELY(x) __builtin_expect(!!(x), 0)

#endif
