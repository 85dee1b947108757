/*
** bench_sweep_execute.c — where the time of `ripsim sweep --execute` goes.
**
**   bench_sweep_execute DB [N] [JOBS]
**
** 1. one thread, the first N layers of the default sweep, each part of
**    rip_exec_check_layer timed alone: drawing the tensors and the
**    dual-buffer kernel, then per rip_* configuration the instrumented run
**    at the truth (to the end) and at truth - 1 (to its first catch), with
**    the multiply-accumulates of a full pass (pad taps counted) and GMAC/s;
** 2. the real sweep with --execute (rip_sweep_run, JOBS threads, SQLite
**    writes) into a fresh DB: wall time, CPU time, layers/s, peak memory.
** A benchmark: it asserts nothing about time.
*/
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "evaluate.h"
#include "execute.h"
#include "generator.h"
#include "sweep.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: bench_sweep_execute DB [N] [JOBS]\n");
        return 64;
    }
    const char *path = argv[1];
    const int64_t n = argc > 2 ? atoll(argv[2]) : 500;
    const int jobs = argc > 3 ? atoi(argv[3]) : 2;
    const uint64_t seed = RIP_SWEEP_DEFAULT_SEED;
    char err[RIP_ERR_LEN];

    double t_dual = 0, t_truth[RIP_KERNEL_CONFIG_COUNT] = {0}, t_minus1[RIP_KERNEL_CONFIG_COUNT] = {0}, macs = 0;
    int64_t caught[RIP_KERNEL_CONFIG_COUNT] = {0}, positive[RIP_KERNEL_CONFIG_COUNT] = {0};
    for (int64_t i = 0; i < n; i++) {
        rip_layer L;
        rip_eval ev;
        rip_sweep_draw(seed, i, &L);
        if (rip_evaluate(&L, RIP_ENGINE_FAST, true, &ev, err) != 0) {
            fprintf(stderr, "bench_sweep_execute: layer %lld: %s\n", (long long)i, err);
            return 70;
        }
        if (rip_exec_size_ok(&L, err) != 0)
            continue;
        macs += (double)L.n_out * (double)(L.k_h * L.k_w * L.cin);
        rip_pcg32 g;
        rip_exec_stream(&g, seed, (uint64_t)i);
        rip_xlayer *x = NULL;
        double t0 = now();
        if (rip_xlayer_new(&L, &g, &x, err) != RIP_OK) {
            fprintf(stderr, "bench_sweep_execute: layer %lld: %s\n", (long long)i, err);
            return 70;
        }
        t_dual += now() - t0;
        for (int e = 0; e < RIP_KERNEL_CONFIG_COUNT; e++) {
            rip_xrun r;
            t0 = now();
            if (rip_xlayer_run(x, (rip_config)e, ev.truth[e], true, false, &r, err) != RIP_OK)
                return 70;
            t_truth[e] += now() - t0;
            if (ev.truth[e] == 0)
                continue;
            positive[e]++;
            t0 = now();
            if (rip_xlayer_run(x, (rip_config)e, ev.truth[e] - 1, true, true, &r, err) != RIP_OK)
                return 70;
            t_minus1[e] += now() - t0;
            caught[e] += r.caught;
        }
        rip_xlayer_free(x);
    }
    printf("one thread, the first %lld layers (%.1f G multiply-accumulates per pass):\n", (long long)n, macs / 1e9);
    printf("  %-20s %9.2f s  %6.3f GMAC/s\n", "draw + dual buffer", t_dual, macs / t_dual / 1e9);
    for (int e = 0; e < RIP_KERNEL_CONFIG_COUNT; e++)
        printf("  %-20s at truth %8.2f s (%6.3f GMAC/s), at truth - 1 %8.2f s (caught %lld of %lld)\n",
               rip_config_name((rip_config)e), t_truth[e], macs / t_truth[e] / 1e9, t_minus1[e],
               (long long)caught[e], (long long)positive[e]);

    unlink(path);
    char side[1024];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
    rip_sweep_opts o = {.n_layers = n, .seed = seed, .db_path = path, .jobs = jobs,
                        .shard_index = 0, .shard_count = 1, .execute = true};
    rip_sweep_result res;
    const double c0 = cpu_seconds(), t0 = now();
    const int status = rip_sweep_run(&o, &res, err);
    const double wall = now() - t0, cpu = cpu_seconds() - c0;
    if (status != 0) {
        fprintf(stderr, "bench_sweep_execute: %s\n", err);
        return status;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("sweep --execute --n %lld, %d jobs: %.2f s wall, %.2f s CPU, %.2f layers/s\n", (long long)n, jobs, wall,
           cpu, (double)n / wall);
    printf("peak resident memory: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
