/* SPDX-License-Identifier: MIT */
/* tools/bench/fwd_scale.c: forwarding over cores (fwd_bench --only scale).
 * On 1, 2, 4, ... cores at once, up to the CPUs the process may run on,
 * each core forwards IPv4 at bursts of 32 through a rig of its own (its
 * buffers, stack, four ports and pipeline: one stack per core, as in the
 * kernel) while every core's pipeline looks up in the one full table
 * (ours, or rte_lpm for the reference): what sharing the caches, the
 * memory and the table costs. A count's rate is the sum of each core's
 * (frames over its timed time), every core stopping when the first is
 * done, so that none runs alone at the end; its share of linear is that
 * rate over the count times the one-core rate of the same side. Sides alternate
 * which goes first; medians of reps. Every frame must take the fast path. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/bench/bench_util.h"
#include "tools/bench/fwd_bench.h"

#define MAX_CORES 64

static cpu_set_t allowed; /* before the EAL pins us to one lcore */

void fwd_scale_note_cpus(void) { sched_getaffinity(0, sizeof(allowed), &allowed); }

struct core_job {
    struct rig *r;
    int cpu, side;
    uint64_t npkts;
    pthread_barrier_t *start;
    _Atomic int *stop;
    struct result res;
};

static void *core_main(void *arg)
{
    struct core_job *j = arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(j->cpu, &one);
    if (pthread_setaffinity_np(pthread_self(), sizeof(one), &one) != 0) {
        fprintf(stderr, "fwd_scale: cannot run on CPU %d\n", j->cpu);
        exit(1);
    }
    fwd_bench_run(j->r, 32, j->side, 0, j->npkts / 8); /* warm this core's rig */
    pthread_barrier_wait(j->start);
    j->r->stop = j->stop;
    j->res = fwd_bench_run(j->r, 32, j->side, 0, j->npkts);
    j->r->stop = NULL;
    atomic_store(j->stop, 1);
    return NULL;
}

/* n cores at once on side: the summed rate in Mpps; each core's results
 * in res[]. */
static double on_cores(struct rig **rigs, const int *cpus, int n, int side, uint64_t npkts,
                       struct result *res)
{
    struct core_job job[MAX_CORES];
    pthread_t th[MAX_CORES];
    pthread_barrier_t start;
    _Atomic int stop = 0;
    pthread_barrier_init(&start, NULL, (unsigned)n);
    for (int i = 0; i < n; i++) {
        job[i] = (struct core_job){rigs[i], cpus[i], side, npkts, &start, &stop, {0}};
        if (pthread_create(&th[i], NULL, core_main, &job[i]) != 0) {
            fprintf(stderr, "fwd_scale: cannot start a thread\n");
            exit(1);
        }
    }
    double mpps = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        res[i] = job[i].res;
        mpps += 1e3 / job[i].res.ns_per_pkt;
    }
    pthread_barrier_destroy(&start);
    return mpps;
}

/* Every frame of both sides on the fast path (the ports' counts are
 * compared in fwd_bench's rows: here runs end at different frames). */
static int check(const struct result *ours, const struct result *lpm, int n, int only)
{
    int bad = 0;
    for (int i = 0; i < n; i++) /* runs end early: the same frames on each side only as far as both went */
        bad |= ours[i].fast != ours[i].pkts || ours[i].to_stack || (!only && lpm[i].fast != lpm[i].pkts);
    if (bad)
        fprintf(stderr, "fwd_scale: %d cores: a frame left the fast path or the sides' ports differ\n", n);
    return bad;
}

int fwd_scale_rows(struct rig *first, int reps, uint64_t npkts, int only, const char *tag)
{
    int cpus[MAX_CORES], ncpu = 0;
    for (int c = 0; c < CPU_SETSIZE && ncpu < MAX_CORES; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[ncpu++] = c;
    struct rig *rigs[MAX_CORES] = {first};
    for (int i = 1; i < ncpu; i++) {
        rigs[i] = calloc(1, sizeof(*rigs[i]));
        fwd_bench_core_rig(rigs[i], first);
    }
    fprintf(stderr, "fwd_scale: up to %d cores\n", ncpu);
    int bad = 0, sides = only ? 1 : 2;
    double one[2] = {0, 0};
    for (int n = 1; n <= ncpu; n = n * 2 > ncpu && n < ncpu ? ncpu : n * 2) {
        static double mpps[2][64];
        static struct result res[2][MAX_CORES];
        for (int rep = 0; rep < reps; rep++)
            for (int k = 0; k < sides; k++) {
                int side = (k + rep) % sides ? LPM : OURS;
                mpps[side][rep] = on_cores(rigs, cpus, n, side, npkts, res[side]);
            }
        bad |= check(res[OURS], res[LPM], n, only);
        double m[2] = {bench_median(mpps[0], reps), only ? 0 : bench_median(mpps[1], reps)};
        char name[128];
        snprintf(name, sizeof(name), "fwd 64B burst 32, full table, %d core%s at once%s", n, n > 1 ? "s" : "", tag);
        bench_emit(name, "Mpps", m[0], only ? "" : "rte_lpm, same pipeline", m[1]);
        if (n == 1) {
            one[0] = m[0], one[1] = m[1];
            continue;
        }
        snprintf(name, sizeof(name), "fwd 64B burst 32, full table, scaling 1 to %d cores%s", n, tag);
        bench_emit(name, "% of linear", 100 * m[0] / (n * one[0]), only ? "" : "rte_lpm, same pipeline",
                   only ? 0 : 100 * m[1] / (n * one[1]));
    }
    return bad;
}
