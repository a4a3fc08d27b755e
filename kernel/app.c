/* SPDX-License-Identifier: MIT */
/* kernel/app.c: the app interface (kernel/app.h) and the `app`
 * statement: which registered app serves which port, started on every
 * core's stack by the network service (kernel/app_runner.h). */
#include "kernel/app.h"
#include "kernel/app_runner.h"

#include <stdarg.h>

#include "kernel/console/cli.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/netsvc/gen.h"
#include "kernel/netsvc/netsvc.h"
#include "lib/fmt.h"
#include "net/tcp/tcp.h"

#define MAX_DEFS 16
#define MAX_APPS 8 /* `app` statements */


static struct app_def defs[MAX_DEFS]; /* app_table's, and any registered later */
static unsigned ndefs;

static struct {
    const struct app_def *def;
    uint16_t port;
    bool set_idle;              /* `idle S` given */
    uint64_t idle_ns;
} apps[MAX_APPS];
static unsigned napps;

int app_register(const char *name, app_start_fn start, unsigned takes)
{
    if (ndefs == MAX_DEFS)
        return -1;
    for (unsigned i = 0; i < ndefs; i++)
        if (strcmp(defs[i].name, name) == 0)
            return -1;
    defs[ndefs++] = (struct app_def){.name = name, .start = start, .takes = takes};
    return 0;
}

static const struct app_def *app_named(const char *name)
{
    for (unsigned i = 0; i < ndefs; i++)
        if (strcmp(defs[i].name, name) == 0)
            return &defs[i];
    return NULL;
}

/* app NAME port N [idle SECONDS]: idle resets a TCP connection its client
 * leaves silent that long (tcp_listen_idle). */
static int stmt_app(int argc, char **argv, char *err, size_t errlen)
{
    unsigned long port, idle = 0;
    if ((argc != 4 && argc != 6) || strcmp(argv[2], "port") != 0 || config_parse_u32(argv[3], 65535, &port) != 0 ||
        port == 0 || (argc == 6 && (strcmp(argv[4], "idle") != 0 || config_parse_u32(argv[5], 86400, &idle) != 0))) {
        fmt_snprintf(err, errlen, "usage: app NAME port N [idle SECONDS]");
        return -1;
    }
    const struct app_def *def = app_named(argv[1]);
    if (def == NULL) {
        fmt_snprintf(err, errlen, "no application '%s'", argv[1]);
        return -1;
    }
    if (napps == MAX_APPS) {
        fmt_snprintf(err, errlen, "at most %d applications", MAX_APPS);
        return -1;
    }
    if (argc == 6 && !(def->takes & APP_TCP)) {
        fmt_snprintf(err, errlen, "idle is for TCP applications");
        return -1;
    }
    for (unsigned a = 0; a < napps; a++)
        if (apps[a].port == port && (apps[a].def->takes & def->takes)) {
            fmt_snprintf(err, errlen, "port %lu is app %s's", port, apps[a].def->name);
            return -1;
        }
    apps[napps].def = def;
    apps[napps].set_idle = argc == 6;
    apps[napps].idle_ns = (uint64_t)idle * 1000000000ull;
    apps[napps++].port = (uint16_t)port;
    return 0;
}

void app_init(void)
{
    for (size_t i = 0; i < app_table_len; i++)
        if (app_register(app_table[i].name, app_table[i].start, app_table[i].takes) != 0)
            kprintf("app: %s not registered (table full or name taken)\n", app_table[i].name);
    config_register("app", stmt_app);
}

bool app_configured(void) { return napps > 0; }

void app_start_all(struct net_stack *s, unsigned cpu)
{
    for (unsigned a = 0; a < napps; a++) {
        if (apps[a].def->start(s, apps[a].port) != 0)
            kprintf("app %s port %u: could not start on core %u\n", apps[a].def->name, apps[a].port, cpu);
        else if (apps[a].set_idle)
            tcp_listen_idle(s, apps[a].port, apps[a].idle_ns);
    }
}

void app_timer_init(struct app_timer *t, app_timer_fn fn, void *arg) { loop_timer_init(&t->lt, fn, arg); }
void app_timer_arm(struct app_timer *t, uint64_t deadline_ns) { loop_timer_arm(&t->lt, deadline_ns); }
void app_timer_cancel(struct app_timer *t) { loop_timer_cancel(&t->lt); }

int app_command(const char *words, const char *usage, const char *help, app_command_fn fn)
{
    return cli_register(words, usage, help, fn);
}

int app_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = kvprintf(fmt, ap);
    va_end(ap);
    return n;
}

void app_json_begin(struct json *j) { cli_json_begin(j); }
void app_json_end(struct json *j) { cli_json_end(j); }
int app_statement(const char *keyword, app_statement_fn fn) { return config_register(keyword, fn); }
void *app_alloc(size_t size) { return kalloc(size); }

bool app_metric(void *ctx, struct net_stack *s, uint32_t idx, const char **name, uint64_t *value)
{
    return netsvc_metric(ctx, s, idx, name, value);
}

void app_gen_json(void *ctx, void (*sink)(void *sink_ctx, char c), void *sink_ctx)
{
    struct json j;
    json_init(&j, sink, sink_ctx);
    gen_json(&j);
}

void app_rfc2544_json(void *ctx, void (*sink)(void *sink_ctx, char c), void *sink_ctx)
{
    struct json j;
    json_init(&j, sink, sink_ctx);
    rfc2544_json(&j);
}
