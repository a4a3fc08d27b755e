/* SPDX-License-Identifier: MIT */
/* kernel/console/version.c: build identification, filled in by the Makefile. */
#include "version.h"

#ifndef HAYATE_COMMIT
#define HAYATE_COMMIT "unknown"
#endif

const char version_commit[] = HAYATE_COMMIT;
const char version_built[] = __DATE__ " " __TIME__;
