/* SPDX-License-Identifier: MIT */
/* apps/apps.c: the applications an `app NAME port N` statement may
 * start (kernel/app.h), each on every core's stack. */
#include "kernel/app.h"

#include "http.h"
#include "iperf3.h"
#include "pingpong.h"
#include "tcp_echo.h"
#include "udp_echo.h"

/* /metrics serves the whole system's counters, whichever core answers;
 * /gen and /rfc2544 the traffic tester's reports, for a remote script. */
static int http_app_start(struct net_stack *s, uint16_t port)
{
    static const struct http_capture cap = {app_capture_start, app_capture_read, app_capture_stop, NULL};
    http_set_metrics(app_metric, NULL);
    http_set_capture(&cap);
    http_add_document("/gen", "application/json", app_gen_json, NULL);
    http_add_document("/rfc2544", "application/json", app_rfc2544_json, NULL);
    return http_start(s, port);
}

const struct app_def app_table[] = {
    {"udp-echo", udp_echo_start, APP_UDP},
    {"tcp-echo", tcp_echo_start, APP_TCP},
    {"http", http_app_start, APP_TCP},
    {"pingpong", pingpong_server_start, APP_TCP},
    {"iperf3", iperf3_start, APP_TCP | APP_UDP},
};
const size_t app_table_len = sizeof app_table / sizeof app_table[0];
