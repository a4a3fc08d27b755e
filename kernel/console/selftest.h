/* SPDX-License-Identifier: MIT */
/* kernel/console/selftest.h: in-kernel tests of the loops, run from the console
 * (kernel/console/selftest.c); each prints one JSON document. */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include "cli_parse.h"

void selftest_timers(const struct cli_args *a);
void selftest_messages(const struct cli_args *a);
void selftest_vector(const struct cli_args *a); /* takes one interrupt per core */

#endif
