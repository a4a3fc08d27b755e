/* SPDX-License-Identifier: MIT */
/* tools/bench/tcp/tcp_scale.c: the ping-pong over cores (tcp_bench --cores).
 * On 1, 2, 4, ... cores at once, up to the CPUs the process may run on,
 * each core runs the headline ping-pong (32 connections, both ends on the
 * core) in a process of its own, pinned to it: its own two hayate stacks
 * and its own two lwIP instances. One stack a core, as in the kernel;
 * processes because lwIP keeps its state in globals (hayate's stacks
 * would need only threads). The processes start each turn together (a
 * process-shared barrier), so that at any time every core runs hayate or
 * every core runs lwIP, and each meets its own kind in the shared caches
 * and memory. A count's rate is the sum of each core's; its share of
 * linear that sum over the count times the one-core rate of the same
 * stack. Medians of reps. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tools/bench/tcp/tcp_bench.h"

#define MAX_CORES 64

struct shared {
    pthread_barrier_t turn;
    double tps[MAX_CORES][2];
};

static struct shared *sh;

static void wait_turn(void) { pthread_barrier_wait(&sh->turn); }

/* The child on cpu: one ping-pong run, its rates into sh->tps[i]. */
static void core_main(int i, int cpu, double seconds)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0) {
        fprintf(stderr, "tcp_scale: cannot run on CPU %d\n", cpu);
        _exit(1);
    }
    pingpong_turn_wait = wait_turn;
    pingpong_pair(seconds, sh->tps[i]);
    _exit(0);
}

/* n cores at once: the summed transactions a second of each stack. */
static int on_cores(const int *cpus, int n, double seconds, double sum[2])
{
    pthread_barrierattr_t a;
    pthread_barrierattr_init(&a);
    pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->turn, &a, (unsigned)n);
    pid_t pid[MAX_CORES];
    fflush(NULL);
    for (int i = 0; i < n; i++) {
        pid[i] = fork();
        if (pid[i] == 0)
            core_main(i, cpus[i], seconds);
        if (pid[i] < 0) {
            perror("tcp_scale: fork");
            n = i;
            break;
        }
    }
    int bad = 0;
    for (int left = n; left > 0; left--) {
        int status;
        pid_t p = wait(&status);
        if (p > 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0) && !bad) {
            bad = 1; /* the others would wait at the barrier for ever */
            fprintf(stderr, "tcp_scale: a core's run failed\n");
            for (int i = 0; i < n; i++)
                kill(pid[i], SIGKILL);
        }
    }
    pthread_barrier_destroy(&sh->turn);
    sum[HAYATE] = sum[LWIP] = 0;
    for (int i = 0; i < n; i++) {
        sum[HAYATE] += sh->tps[i][HAYATE];
        sum[LWIP] += sh->tps[i][LWIP];
    }
    return bad;
}

int tcp_scale_rows(int reps, double seconds)
{
    cpu_set_t allowed;
    int cpus[MAX_CORES], ncpu = 0;
    sched_getaffinity(0, sizeof(allowed), &allowed);
    for (int c = 0; c < CPU_SETSIZE && ncpu < MAX_CORES; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[ncpu++] = c;
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("tcp_scale: mmap");
        return 1;
    }
    fprintf(stderr, "tcp_scale: up to %d cores\n", ncpu);
    double one[2] = {0, 0};
    for (int n = 1; n <= ncpu; n = n * 2 > ncpu && n < ncpu ? ncpu : n * 2) {
        double h[64], l[64], sum[2];
        for (int r = 0; r < reps; r++) {
            if (on_cores(cpus, n, seconds, sum))
                return 1;
            h[r] = sum[HAYATE];
            l[r] = sum[LWIP];
            fprintf(stderr, "ping-pong on %d cores, rep %d: hayate %.0f, lwIP %.0f transactions/s\n", n, r,
                    h[r], l[r]);
        }
        double m[2] = {median(h, reps), median(l, reps)};
        char name[128];
        snprintf(name, sizeof(name), "tcp ping-pong, 1 byte, %d connections a core, %d core%s at once", PP_CONNS,
                 n, n > 1 ? "s" : "");
        emit(name, "transactions/s", m[HAYATE], m[LWIP]);
        if (n == 1) {
            one[HAYATE] = m[HAYATE], one[LWIP] = m[LWIP];
            continue;
        }
        snprintf(name, sizeof(name), "tcp ping-pong, scaling 1 to %d cores", n);
        emit(name, "% of linear", 100 * m[HAYATE] / (n * one[HAYATE]), 100 * m[LWIP] / (n * one[LWIP]));
    }
    return 0;
}
