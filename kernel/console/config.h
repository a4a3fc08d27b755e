/* SPDX-License-Identifier: MIT */
/* kernel/console/config.h: the configuration file (docs/usage.md):
 * one statement a line, words separated by blanks, '#' starts a comment.
 * Subsystems register the statements they own; a bad line is reported with
 * its number and skipped, and the rest still applies. Portable (host-tested). */
#ifndef KERNEL_CONFIG_H
#define KERNEL_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define CONFIG_MAX_WORDS 40 /* as the console's (cli_parse.h) */
#define CONFIG_MAX_LINE 640
#define CONFIG_MAX_STMTS 32

/* Returns 0, or -1 with a message in err (errlen bytes). */
typedef int (*config_fn)(int argc, char **argv, char *err, size_t errlen);
/* Called once for each bad line. */
typedef void (*config_report_fn)(int line_no, const char *msg);

/* keyword is argv[0] of the statements it takes; a second registration of
 * the same keyword replaces the first. Returns -1 when the table is full. */
int config_register(const char *keyword, config_fn fn);
void config_reset(void); /* forget every registration (tests) */
/* Applies text (len bytes, need not be NUL-terminated). Returns the number
 * of bad lines. */
int config_apply(const char *text, size_t len, config_report_fn report);
/* Applies keyword's lines alone, with fn, and skips every other line
 * unreported: for what must be known before the rest can apply (the ports
 * are probed before their statements, and `sriov` decides what they are).
 * The full pass must then take keyword's lines quietly. */
int config_apply_only(const char *text, size_t len, const char *keyword, config_fn fn, config_report_fn report);

/* Helpers for statement handlers. */
int config_parse_u32(const char *s, unsigned long max, unsigned long *out);
/* "52:54:00:12:34:56" (either case): 0, or -1. */
int config_parse_mac(const char *s, uint8_t mac[6]);

#endif
