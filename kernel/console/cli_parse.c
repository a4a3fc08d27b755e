/* SPDX-License-Identifier: MIT */
/* kernel/console/cli_parse.c: command matching and the line editor
 * (kernel/console/cli_parse.h). Escape sequences: ECMA-48 CSI "ESC [ A" (up) and
 * "ESC [ B" (down). */
#include "cli_parse.h"

#include "kernel/lib.h"

static struct cli_cmd cmds[CLI_MAX_CMDS];
static int ncmds;

int cli_register(const char *words, const char *usage, const char *help, cli_fn fn)
{
    return cli_register_ctx(words, usage, help, fn, 0);
}

int cli_register_ctx(const char *words, const char *usage, const char *help, cli_fn fn, const void *ctx)
{
    if (ncmds == CLI_MAX_CMDS)
        return -1;
    /* Keep the table sorted so `help` lists commands in order. */
    int i = ncmds;
    while (i > 0 && strcmp(cmds[i - 1].words, words) > 0) {
        cmds[i] = cmds[i - 1];
        i--;
    }
    cmds[i] = (struct cli_cmd){words, usage, help, fn, ctx};
    ncmds++;
    return 0;
}

void cli_reset(void) { ncmds = 0; }
int cli_count(void) { return ncmds; }
const struct cli_cmd *cli_at(int i) { return i >= 0 && i < ncmds ? &cmds[i] : 0; }

int cli_split(char *line, char **argv)
{
    int argc = 0;
    char *p = line;
    while (*p && argc < CLI_MAX_WORDS) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        argv[argc++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = 0;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    return *p ? -1 : argc;
}

/* How many of cmd's words the start of argv matches, each argv word being
 * the command word or a prefix of it ("sh ver"); -1 if not all. *exact is
 * cleared when any word was abbreviated. */
static int words_match(const char *words, int argc, char **argv, bool *exact)
{
    int n = 0;
    const char *w = words;
    *exact = true;
    while (*w) {
        size_t len = 0;
        while (w[len] && w[len] != ' ')
            len++;
        if (n >= argc)
            return -1;
        size_t alen = strlen(argv[n]);
        if (alen == 0 || alen > len || strncmp(argv[n], w, alen) != 0)
            return -1;
        if (alen < len)
            *exact = false;
        n++;
        w += len;
        while (*w == ' ')
            w++;
    }
    return n;
}

const struct cli_cmd *cli_match(int argc, char **argv, int *used)
{
    const struct cli_cmd *best = 0;
    int best_n = 0, tied = 0;
    bool best_exact = false;
    for (int i = 0; i < ncmds; i++) {
        bool exact;
        int n = words_match(cmds[i].words, argc, argv, &exact);
        if (n <= 0 || n < best_n || (n == best_n && best_exact && !exact))
            continue;
        if (n == best_n && exact == best_exact) {
            tied++;
            continue;
        }
        best = &cmds[i];
        best_n = n;
        best_exact = exact;
        tied = 0;
    }
    *used = best_n;
    if (tied) {
        *used = -1; /* ambiguous abbreviation */
        return 0;
    }
    return best;
}

static void erase_line(struct lineedit *le, cli_emit_fn emit)
{
    for (; le->len; le->len--)
        emit("\b \b", 3);
}

/* pos 0 is the empty line being typed; pos k the k-th most recent entry. */
static void recall(struct lineedit *le, int pos, cli_emit_fn emit)
{
    erase_line(le, emit);
    le->hist_pos = pos;
    if (pos > 0) {
        strncpy_z(le->buf, le->hist[(le->hist_n - pos) % CLI_HISTORY], sizeof le->buf);
        le->len = strlen(le->buf);
        emit(le->buf, le->len);
    }
}

static int finish(struct lineedit *le, cli_emit_fn emit)
{
    emit("\r\n", 2);
    le->buf[le->len] = 0;
    if (le->len && (le->hist_n == 0 || strcmp(le->hist[(le->hist_n - 1) % CLI_HISTORY], le->buf) != 0)) {
        strncpy_z(le->hist[le->hist_n % CLI_HISTORY], le->buf, CLI_MAX_LINE);
        le->hist_n++;
    }
    le->hist_pos = 0;
    le->len = 0;
    return LINE_DONE;
}

int lineedit_feed(struct lineedit *le, int c, cli_emit_fn emit)
{
    int stored = le->hist_n < CLI_HISTORY ? le->hist_n : CLI_HISTORY;
    if (le->esc == 1) {
        le->esc = c == '[' ? 2 : 0;
        return LINE_MORE;
    }
    if (le->esc == 2) {
        le->esc = 0;
        if (c == 'A' && le->hist_pos < stored)
            recall(le, le->hist_pos + 1, emit);
        else if (c == 'B' && le->hist_pos > 0)
            recall(le, le->hist_pos - 1, emit);
        return LINE_MORE;
    }
    bool lf_of_crlf = c == '\n' && le->after_cr;
    le->after_cr = c == '\r';
    if (lf_of_crlf)
        return LINE_MORE;
    switch (c) {
    case '\r':
    case '\n':
        return finish(le, emit);
    case 0x1b:
        le->esc = 1;
        return LINE_MORE;
    case 0x7f:
    case '\b':
        if (le->len) {
            le->len--;
            emit("\b \b", 3);
        }
        return LINE_MORE;
    case 0x15: /* Ctrl-U */
        erase_line(le, emit);
        return LINE_MORE;
    case 0x03: /* Ctrl-C */
        le->len = 0;
        le->buf[0] = 0;
        le->hist_pos = 0;
        emit("^C\r\n", 4);
        return LINE_CANCEL;
    default:
        if (c >= 0x20 && c < 0x7f && le->len + 1 < sizeof le->buf) {
            char ch = (char)c;
            le->buf[le->len++] = ch;
            emit(&ch, 1);
        }
        return LINE_MORE;
    }
}
