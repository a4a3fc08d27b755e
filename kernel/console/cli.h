/* SPDX-License-Identifier: MIT */
/* kernel/console/cli.h: the console CLI (docs/design.md, External interface; docs/usage.md). Commands
 * are registered with cli_register (kernel/console/cli_parse.h); this file runs the
 * prompt on the serial console. */
#ifndef KERNEL_CLI_H
#define KERNEL_CLI_H

#include "cli_parse.h"
#include "lib/json.h"

void cli_init(void);
void cli_prompt(void);
#include <stdint.h>

/* A loop poller (kernel/loop.h) on core 0: reads what is waiting, runs
 * whole lines. */
void cli_poll(void *unused, uint64_t now_ns);
void cli_execute(char *line);
const char *cli_hostname(void);
int cli_set_hostname(const char *name);
/* A JSON writer that prints to the console; end with cli_json_end. */
void cli_json_begin(struct json *j);
void cli_json_end(struct json *j);

#endif
