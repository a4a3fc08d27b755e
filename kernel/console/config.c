/* SPDX-License-Identifier: MIT */
/* kernel/console/config.c: configuration parsing (kernel/console/config.h). */
#include "config.h"

#include <stdint.h>

#include "lib/fmt.h"
#include "kernel/lib.h"

struct stmt {
    const char *keyword;
    config_fn fn;
};

static struct stmt stmts[CONFIG_MAX_STMTS];
static int nstmts;

int config_register(const char *keyword, config_fn fn)
{
    for (int i = 0; i < nstmts; i++)
        if (strcmp(stmts[i].keyword, keyword) == 0) {
            stmts[i].fn = fn;
            return 0;
        }
    if (nstmts == CONFIG_MAX_STMTS)
        return -1;
    stmts[nstmts++] = (struct stmt){keyword, fn};
    return 0;
}

void config_reset(void) { nstmts = 0; }

int config_parse_u32(const char *s, unsigned long max, unsigned long *out)
{
    unsigned long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (unsigned long)(*s - '0');
        if (v > max)
            return -1;
    }
    *out = v;
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)(c | 32);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int config_parse_mac(const char *s, uint8_t mac[6])
{
    for (int i = 0; i < 6; i++) {
        int hi = hex_digit(s[0]), lo = hi < 0 ? -1 : hex_digit(s[1]);
        if (lo < 0 || s[2] != (i < 5 ? ':' : '\0'))
            return -1;
        mac[i] = (uint8_t)(hi << 4 | lo);
        s += 3;
    }
    return 0;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Splits line in place; returns the word count or -1 when there are too many. */
static int split(char *line, char **argv)
{
    int argc = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p || *p == '#')
            break;
        if (argc == CONFIG_MAX_WORDS)
            return -1;
        argv[argc++] = p;
        while (*p && !is_blank(*p) && *p != '#')
            p++;
        if (*p == '#') {
            *p = 0;
            break;
        }
        if (*p)
            *p++ = 0;
    }
    return argc;
}

/* only: apply that keyword's lines alone (with only_fn), skip the rest. */
static int apply_line(char *line, char *err, size_t errlen, const char *only, config_fn only_fn)
{
    char *argv[CONFIG_MAX_WORDS];
    int argc = split(line, argv);
    if (argc < 0 && only)
        return 0; /* reported by the full pass */
    if (argc < 0) {
        fmt_snprintf(err, errlen, "too many words (at most %d)", CONFIG_MAX_WORDS);
        return -1;
    }
    if (argc == 0)
        return 0;
    if (only)
        return strcmp(argv[0], only) == 0 ? only_fn(argc, argv, err, errlen) : 0;
    for (int i = 0; i < nstmts; i++)
        if (strcmp(stmts[i].keyword, argv[0]) == 0)
            return stmts[i].fn(argc, argv, err, errlen);
    fmt_snprintf(err, errlen, "unknown statement '%s'", argv[0]);
    return -1;
}

static int apply_text(const char *text, size_t len, config_report_fn report, const char *only, config_fn only_fn)
{
    int bad = 0, line_no = 0;
    size_t pos = 0;
    while (pos < len) {
        char line[CONFIG_MAX_LINE];
        char err[128];
        size_t n = 0;
        int too_long = 0;
        line_no++;
        for (; pos < len && text[pos] != '\n'; pos++) {
            if (text[pos] == 0) {
                too_long = 2;
            } else if (n + 1 < sizeof line) {
                line[n++] = text[pos];
            } else if (!too_long) {
                too_long = 1;
            }
        }
        pos++; /* the newline */
        line[n] = 0;
        err[0] = 0;
        if (too_long) {
            if (only)
                continue; /* reported by the full pass */
            fmt_snprintf(err, sizeof err, too_long == 2 ? "NUL byte in line" : "line longer than %d characters",
                         CONFIG_MAX_LINE - 1);
        } else if (apply_line(line, err, sizeof err, only, only_fn) == 0) {
            continue;
        }
        bad++;
        if (report)
            report(line_no, err[0] ? err : "invalid statement");
    }
    return bad;
}

int config_apply(const char *text, size_t len, config_report_fn report)
{
    return apply_text(text, len, report, 0, 0);
}

int config_apply_only(const char *text, size_t len, const char *keyword, config_fn fn, config_report_fn report)
{
    return apply_text(text, len, report, keyword, fn);
}
