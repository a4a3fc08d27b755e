/* SPDX-License-Identifier: MIT */
/* tests/support/host_env.c: net/core/env.h for host builds. */
#include <stdarg.h>
#include <stdio.h>

#include "net/core/env.h"

int net_env_log_quiet = 1;

void net_env_log(const char *fmt, ...)
{
    if (net_env_log_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
