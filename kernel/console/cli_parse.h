/* SPDX-License-Identifier: MIT */
/* kernel/console/cli_parse.h: the console's command table, line splitting and line
 * editing, with no I/O of their own (portable, host-tested). kernel/console/cli.c
 * connects them to the serial console. */
#ifndef KERNEL_CLI_PARSE_H
#define KERNEL_CLI_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_MAX_WORDS 40 /* route add P via G ... with 16 equal-cost gateways */
#define CLI_MAX_LINE 640
#define CLI_MAX_CMDS 96
#define CLI_HISTORY 16

/* argv holds the words after the command's own words; json is set when the
 * line ended in the word "json" (which is then not in argv); ctx is what
 * cli_register_ctx gave (NULL from cli_register). */
struct cli_args {
    int argc;
    char **argv;
    bool json;
    const void *ctx;
};
typedef void (*cli_fn)(const struct cli_args *a);

struct cli_cmd {
    const char *words; /* "show version" */
    const char *usage; /* "show version [json]" */
    const char *help;
    cli_fn fn;
    const void *ctx;
};

int cli_register(const char *words, const char *usage, const char *help, cli_fn fn);
/* As cli_register, fn seeing ctx in its cli_args: one function serving
 * commands registered from a table (kernel/ports.c, the drivers'). */
int cli_register_ctx(const char *words, const char *usage, const char *help, cli_fn fn, const void *ctx);
void cli_reset(void);
int cli_count(void);
const struct cli_cmd *cli_at(int i);

/* Splits line in place into argv; returns argc, or -1 past CLI_MAX_WORDS. */
int cli_split(char *line, char **argv);
/* The registered command with the most words matching the start of argv
 * (a word may be abbreviated to any unique prefix: "sh ver"), or NULL.
 * *used gets how many words it took, or -1 when the words are ambiguous. */
const struct cli_cmd *cli_match(int argc, char **argv, int *used);

/* Line editor (zero-initialise it): feed it bytes; it echoes through emit and reports a finished
 * line. Backspace/DEL, Ctrl-U (kill line), Ctrl-C (cancel), up/down arrows
 * (history). */
typedef void (*cli_emit_fn)(const char *s, size_t n);
struct lineedit {
    char buf[CLI_MAX_LINE];
    size_t len;
    int esc;                 /* escape-sequence state */
    bool after_cr;           /* the last key was CR: a LF next ends no line (CRLF terminals) */
    char hist[CLI_HISTORY][CLI_MAX_LINE];
    int hist_n, hist_pos;    /* lines entered; 0 = not browsing, k = k-th newest */
};
/* LINE_DONE: the line is in buf, NUL-terminated, until the next feed. */
enum { LINE_MORE = 0, LINE_DONE = 1, LINE_CANCEL = 2 };
int lineedit_feed(struct lineedit *le, int c, cli_emit_fn emit);

#endif
