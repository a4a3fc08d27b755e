/* SPDX-License-Identifier: MIT */
/* kernel/loop_cmds.h: console commands and configuration for the cores and
 * their loops (kernel/loop_cmds.c, kernel/console/selftest.c). */
#ifndef KERNEL_LOOP_CMDS_H
#define KERNEL_LOOP_CMDS_H

/* show cpus [json], debug selftest timers|messages|vector, and the
 * configuration statement `idle poll|halt`. */
void loop_cmds_init(void);

#endif
