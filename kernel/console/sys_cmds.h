/* SPDX-License-Identifier: MIT */
/* kernel/console/sys_cmds.h: machine-level console commands (kernel/console/sys_cmds.c). */
#ifndef KERNEL_SYS_CMDS_H
#define KERNEL_SYS_CMDS_H

#include <stdint.h>

#define PAGE_SIZE_BYTES 4096ull

void sys_cmds_init(void);
void sys_mark_ready(void);
__attribute__((noreturn)) void sys_poweroff(void);

#endif
