/* SPDX-License-Identifier: MIT */
/* tools/bench/tcp/tcp_bench.h: what tcp_bench.c lends tcp_scale.c. */
#ifndef TOOLS_BENCH_TCP_BENCH_H
#define TOOLS_BENCH_TCP_BENCH_H

enum stack { HAYATE, LWIP };

#define PP_CONNS 32 /* the headline: bench-iip's 32 a server core */

/* One run of the ping-pong, both stacks taking turns: transactions a
 * second of each in tps[HAYATE] and tps[LWIP]. pingpong_turn_wait, if
 * set, is called before each turn. */
void pingpong_pair(double seconds, double tps[2]);
extern void (*pingpong_turn_wait)(void);

double median(double *v, int n);
/* A JSON line for tools/bench.py, lwIP the reference. */
void emit(const char *name, const char *unit, double value, double ref);

/* tcp_bench --cores (tcp_scale.c). */
int tcp_scale_rows(int reps, double seconds);

#endif
