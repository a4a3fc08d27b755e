/* SPDX-License-Identifier: MIT */
/* kernel/app.h: the interface applications are written against, the one
 * kernel header an app in apps/ includes (with net/ for the stack and
 * lib/). The kernel's network service (kernel/netsvc/) runs a stack on
 * every core; `app NAME port N [idle S]` starts a registered app on each
 * of them, wherever the port has an address, routed or not.
 *
 * Everything an app does runs in one core's loop, to completion: its
 * start function, the stack's callbacks, its timers and its console
 * commands (core 0's). Nothing here blocks. */
#ifndef KERNEL_APP_H
#define KERNEL_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/console/cli_parse.h"  /* struct cli_args: a console command's words */
#include "kernel/loop_timer.h" /* what an app_timer holds */
#include "lib/json.h"

struct net_stack;

/* Serve port on s, one core's stack (called once for each core). 0, or -1
 * (reported; the other cores still start). */
typedef int (*app_start_fn)(struct net_stack *s, uint16_t port);

/* What an app takes of its port: `app A port 80` and `app B port 80`
 * conflict only where both take TCP, or both UDP. */
#define APP_TCP 1u
#define APP_UDP 2u

/* The apps an `app NAME` statement may name: apps/apps.c's table, which
 * the kernel registers at boot (app_register each). */
struct app_def {
    const char *name;
    app_start_fn start;
    unsigned takes;             /* APP_TCP | APP_UDP */
};
extern const struct app_def app_table[];
extern const size_t app_table_len;

/* One more app `app NAME ...` may start. 0, or -1 (table full, name taken). */
int app_register(const char *name, app_start_fn start, unsigned takes);

/* Timers on the calling core's loop: fn(arg, now_ns) runs there, never
 * early; only the core that armed a timer may re-arm or cancel it. */
typedef void (*app_timer_fn)(void *arg, uint64_t now_ns);
struct app_timer {
    struct loop_timer lt;
};
void app_timer_init(struct app_timer *t, app_timer_fn fn, void *arg);
void app_timer_arm(struct app_timer *t, uint64_t deadline_ns);
void app_timer_cancel(struct app_timer *t);

/* Console commands ("show iperf3"), run on core 0; a->json when the line
 * ended in "json". Output goes through app_printf, or a JSON writer
 * between app_json_begin and app_json_end. */
typedef void (*app_command_fn)(const struct cli_args *a);
int app_command(const char *words, const char *usage, const char *help, app_command_fn fn);
int app_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void app_json_begin(struct json *j);
void app_json_end(struct json *j);

/* A configuration statement of the app's own (argv[0] is keyword): 0, or
 * -1 with a message in err. */
typedef int (*app_statement_fn)(int argc, char **argv, char *err, size_t errlen);
int app_statement(const char *keyword, app_statement_fn fn);

/* Memory for good (zeroed, 64-byte aligned); panics when there is none. */
void *app_alloc(size_t size);

/* The idx-th counter of the whole system (from 0; false past the last):
 * the stack's and the forwarding path's, each summed over every core;
 * name as net/core/counter.h spells it. For /metrics (apps/http.h's
 * http_metric_fn). */
bool app_metric(void *ctx, struct net_stack *s, uint32_t idx, const char **name, uint64_t *value);

/* The traffic tester's reports, `show gen json` and `show rfc2544 json`,
 * written a character at a time to sink (apps/http.h's http_doc_fn). */
void app_gen_json(void *ctx, void (*sink)(void *sink_ctx, char c), void *sink_ctx);
void app_rfc2544_json(void *ctx, void (*sink)(void *sink_ctx, char c), void *sink_ctx);
/* A packet capture for the http app's /capture.pcap (kernel/netsvc/
 * capture.c), as apps/http.h's struct http_capture asks: argv the words of
 * the console's `capture` (port first); wake(conn) is called on this core
 * every 10 ms while it runs; read gives pcapng bytes, whole blocks, and
 * says when it is over; stop ends it early. */
int app_capture_start(void *ctx, int argc, char **argv, void (*wake)(void *conn, uint64_t now_ns), void *conn,
                      char *err, size_t errlen);
size_t app_capture_read(void *ctx, uint8_t *buf, size_t n, bool *done);
void app_capture_stop(void *ctx);

#endif
