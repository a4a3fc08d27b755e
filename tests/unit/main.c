/* SPDX-License-Identifier: MIT */
/* tests/unit/main.c: runs the registered unit tests (check.h). */
#include <stdlib.h>

#include "tests/unit/check.h"

int unit_failures;
static struct unit_test *tests;

void unit_register(struct unit_test *t)
{
    /* Constructors run in link order, reversed per file: keep a stable
     * order by sorting on insert. */
    struct unit_test **pp = &tests;
    while (*pp && strcmp((*pp)->name, t->name) < 0)
        pp = &(*pp)->next;
    t->next = *pp;
    *pp = t;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0;
    setvbuf(stdout, NULL, _IONBF, 0);
    for (struct unit_test *t = tests; t; t = t->next) {
        if (filter && !strstr(t->name, filter))
            continue;
        unit_failures = 0;
        t->fn();
        if (unit_failures) {
            printf("FAIL %s\n", t->name);
            failed++;
        } else {
            printf("ok   %s\n", t->name);
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
