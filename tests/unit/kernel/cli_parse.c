/* SPDX-License-Identifier: MIT */
/* tests/unit/kernel/cli_parse.c: command matching and the line editor
 * (kernel/console/cli_parse.c). */
#include "kernel/console/cli_parse.h"
#include "tests/unit/check.h"

static char screen[1024];
static size_t screen_len;
static void emit(const char *s, size_t n)
{
    for (size_t i = 0; i < n && screen_len + 1 < sizeof screen; i++)
        screen[screen_len++] = s[i];
    screen[screen_len] = 0;
}

static const char *feed(struct lineedit *le, const char *keys, int *result)
{
    *result = LINE_MORE;
    for (; *keys; keys++) {
        *result = lineedit_feed(le, (unsigned char)*keys, emit);
        if (*result != LINE_MORE)
            break;
    }
    return le->buf;
}

static void nop(const struct cli_args *a) {}

TEST(cli_match_longest_and_abbreviations)
{
    cli_reset();
    cli_register("show version", "", "", nop);
    cli_register("show vlan", "", "", nop);
    cli_register("show", "", "", nop);
    cli_register("shutdown", "", "", nop);
    char line[] = "sh ver json";
    char *argv[CLI_MAX_WORDS];
    int argc = cli_split(line, argv), used;
    CHECK_EQ(argc, 3);
    const struct cli_cmd *c = cli_match(argc, argv, &used);
    CHECK(c && strcmp(c->words, "show version") == 0);
    CHECK_EQ(used, 2);
    char amb[] = "sh v";
    argc = cli_split(amb, argv);
    CHECK(cli_match(argc, argv, &used) == NULL);
    CHECK_EQ(used, -1);
    char exact[] = "show";
    argc = cli_split(exact, argv);
    c = cli_match(argc, argv, &used);
    CHECK(c && strcmp(c->words, "show") == 0); /* exact beats shutdown's prefix */
    char many[2 * CLI_MAX_WORDS + 3] = "", most[2 * CLI_MAX_WORDS + 1] = "";
    for (int i = 0; i < CLI_MAX_WORDS; i++)
        strcat(most, "a ");
    strcat(strcat(many, most), "b ");
    CHECK_EQ(cli_split(many, argv), -1); /* refused, not cut short */
    CHECK_EQ(cli_split(most, argv), CLI_MAX_WORDS);
    char none[] = "frobnicate";
    argc = cli_split(none, argv);
    CHECK(cli_match(argc, argv, &used) == NULL);
    CHECK_EQ(used, 0);
    cli_reset();
}

TEST(lineedit_backspace_ctrl_u_and_history)
{
    static struct lineedit le;
    int r;
    CHECK_STR(feed(&le, "shw\x7f\x7f" "how version\r", &r), "show version");
    CHECK_EQ(r, LINE_DONE);
    CHECK_STR(feed(&le, "garbage\x15help\r", &r), "help");
    CHECK_STR(feed(&le, "\x1b[A\x1b[A\r", &r), "show version"); /* two back */
    CHECK_STR(feed(&le, "\x1b[A\x1b[B\x1b[B\r", &r), "");       /* down to empty */
    CHECK_STR(feed(&le, "crlf\r", &r), "crlf"); /* a terminal that sends CR LF: */
    screen_len = 0;
    CHECK_STR(feed(&le, "\nnext\r", &r), "next"); /* the LF ends no empty line */
    CHECK_STR(screen, "next\r\n");
    CHECK_STR(feed(&le, "\n\n", &r), ""); /* a second LF does */
    CHECK_EQ(r, LINE_DONE);
    CHECK_STR(feed(&le, "abc\x03", &r), "");
    CHECK_EQ(r, LINE_CANCEL);
    feed(&le, "\r", &r);
    CHECK_EQ(le.len, 0);
    char longline[CLI_MAX_LINE + 50];
    memset(longline, 'a', sizeof longline - 2);
    longline[sizeof longline - 2] = '\r';
    longline[sizeof longline - 1] = 0;
    feed(&le, longline, &r);
    CHECK_EQ(strlen(le.buf), CLI_MAX_LINE - 1);
}
