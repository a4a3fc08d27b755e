/* SPDX-License-Identifier: MIT */
/* kernel/console/cli.c: the prompt on COM1: line editing (kernel/console/cli_parse.c),
 * dispatch to registered commands, and `help`. */
#include "cli.h"

#include "config.h"
#include "console.h"
#include "kernel/lib.h"
#include "kernel/loop.h"

static struct lineedit editor;
static char hostname[64] = "hayate";

static void emit(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        console_putc(s[i]);
}

const char *cli_hostname(void) { return hostname; }

/* RFC 1123 host name characters: letters, digits, hyphen, dot. */
int cli_set_hostname(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof hostname)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
            return -1;
    }
    strncpy_z(hostname, name, sizeof hostname);
    return 0;
}

void cli_prompt(void) { kprintf("%s> ", hostname); }

static void sink(void *ctx, char c) { console_putc(c); }

void cli_json_begin(struct json *j) { json_init(j, sink, 0); }
void cli_json_end(struct json *j) { console_putc('\n'); }

void cli_execute(char *line)
{
    char *argv[CLI_MAX_WORDS];
    int argc = cli_split(line, argv), used;
    if (argc < 0)
        kprintf("too many words (at most %d); nothing done\n", CLI_MAX_WORDS);
    if (argc <= 0)
        return;
    const struct cli_cmd *c = cli_match(argc, argv, &used);
    if (!c) {
        kprintf("%s command '%s'; try 'help'\n", used < 0 ? "ambiguous" : "unknown", argv[0]);
        return;
    }
    struct cli_args a = {argc - used, argv + used, false, c->ctx};
    if (a.argc > 0 && strcmp(a.argv[a.argc - 1], "json") == 0) {
        a.json = true;
        a.argc--;
    }
    c->fn(&a);
}

void cli_poll(void *unused, uint64_t now_ns)
{
    int c;
    while ((c = console_getc()) >= 0) {
        loop_note_work(1);
        int r = lineedit_feed(&editor, c, emit);
        if (r == LINE_DONE)
            cli_execute(editor.buf);
        if (r != LINE_MORE)
            cli_prompt();
    }
}

static void cmd_help(const struct cli_args *a)
{
    for (int i = 0; i < cli_count(); i++) {
        const struct cli_cmd *c = cli_at(i);
        kprintf("  %-32s %s\n", c->usage, c->help);
    }
}

static int stmt_hostname(int argc, char **argv, char *err, size_t errlen)
{
    if (argc != 2 || cli_set_hostname(argv[1]) != 0) {
        strncpy_z(err, "usage: hostname NAME (letters, digits, '-', '.'; under 64)", errlen);
        return -1;
    }
    return 0;
}

void cli_init(void)
{
    cli_register("help", "help", "list commands", cmd_help);
    config_register("hostname", stmt_hostname);
}
