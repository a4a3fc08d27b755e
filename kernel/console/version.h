/* SPDX-License-Identifier: MIT */
/* kernel/console/version.h: release and build identification. */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

#define HAYATE_VERSION "0.1.0"

extern const char version_commit[]; /* git commit, set by the Makefile */
extern const char version_built[];

#endif
