/* SPDX-License-Identifier: MIT */
/* tests/unit/kernel/config.c: the configuration parser (kernel/console/config.c). */
#include "kernel/console/config.h"
#include "tests/unit/check.h"

static char seen[8][64];
static int nseen, reported[8], nreported;

static int stmt_echo(int argc, char **argv, char *err, size_t errlen)
{
    if (argc < 2) {
        snprintf(err, errlen, "echo needs a word");
        return -1;
    }
    snprintf(seen[nseen++ % 8], 64, "%s:%d", argv[1], argc);
    return 0;
}

static void report(int line_no, const char *msg) { reported[nreported++ % 8] = line_no; }

static void reset(void)
{
    config_reset();
    nseen = nreported = 0;
    config_register("echo", stmt_echo);
}

TEST(config_applies_good_lines_and_reports_bad_ones)
{
    reset();
    const char text[] = "# comment\n"
                        "echo a\n"
                        "  echo   b c   # trailing comment\n"
                        "bogus statement\n"
                        "\n"
                        "echo\n"
                        "echo last";
    CHECK_EQ(config_apply(text, sizeof text - 1, report), 2);
    CHECK_EQ(nseen, 3);
    CHECK_STR(seen[0], "a:2");
    CHECK_STR(seen[1], "b:3");
    CHECK_STR(seen[2], "last:2");
    CHECK_EQ(nreported, 2);
    CHECK_EQ(reported[0], 4);
    CHECK_EQ(reported[1], 6);
}

TEST(config_rejects_long_lines_nul_and_too_many_words)
{
    reset();
    static char text[2 * CONFIG_MAX_LINE + 4 * CONFIG_MAX_WORDS];
    size_t n = CONFIG_MAX_LINE + 44; /* a line too long */
    memset(text, 'x', n);
    text[n++] = '\n';
    memcpy(text + n, "echo a\0b\n", 9); /* a NUL */
    n += 9;
    n += (size_t)sprintf(text + n, "echo"); /* a word too many */
    for (int w = 1; w <= CONFIG_MAX_WORDS; w++)
        n += (size_t)sprintf(text + n, " %d", w);
    n += (size_t)sprintf(text + n, "\necho ok\n");
    CHECK_EQ(config_apply(text, n, report), 3);
    CHECK_EQ(nseen, 1);
    CHECK_STR(seen[0], "ok:2");
    CHECK_EQ(reported[0], 1);
    CHECK_EQ(reported[1], 2);
    CHECK_EQ(reported[2], 3);
}

TEST(config_parse_mac_forms)
{
    uint8_t m[6];
    CHECK_EQ(config_parse_mac("52:54:00:aB:Cd:ef", m), 0);
    CHECK(m[0] == 0x52 && m[3] == 0xab && m[4] == 0xcd && m[5] == 0xef);
    const char *bad[] = {"", "52:54:00:ab:cd", "52:54:00:ab:cd:ef:", "52-54-00-ab-cd-ef", "5:54:00:ab:cd:ef",
                         "52:54:00:ab:cd:eg", "52:54:00:ab:cd:ef0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(config_parse_mac(bad[i], m), -1);
}

TEST(config_parse_u32_bounds)
{
    unsigned long v;
    CHECK_EQ(config_parse_u32("65535", 65535, &v), 0);
    CHECK_EQ(v, 65535);
    CHECK_EQ(config_parse_u32("65536", 65535, &v), -1);
    CHECK_EQ(config_parse_u32("", 10, &v), -1);
    CHECK_EQ(config_parse_u32("1x", 10, &v), -1);
    CHECK_EQ(config_parse_u32("99999999999999999999999", 4294967295ul, &v), -1);
}

/* An early pass takes one keyword's lines alone, with their line numbers,
 * and says nothing of the rest: unknown, too long or wrong as they may
 * be, those are the full pass's to report. */
TEST(config_apply_only_takes_one_keyword)
{
    reset();
    char text[400];
    memset(text, 'x', 300);
    text[300] = '\n';
    const char rest[] = "bogus line\n"
                        "echo early\n"
                        "echo\n"
                        "other echo x\n"
                        "a b c d e f g h i j k l m n o p q r s t u v w x y z\n";
    memcpy(text + 301, rest, sizeof rest - 1);
    size_t len = 301 + sizeof rest - 1;
    CHECK_EQ(config_apply_only(text, len, "echo", stmt_echo, report), 1);
    CHECK_EQ(nseen, 1);
    CHECK_STR(seen[0], "early:2");
    CHECK_EQ(nreported, 1);
    CHECK_EQ(reported[0], 4);
    /* The full pass, as the kernel runs it afterwards, reports the rest. */
    nseen = nreported = 0;
    CHECK_EQ(config_apply(text, len, report), 5);
    CHECK_EQ(nreported, 5);
}
