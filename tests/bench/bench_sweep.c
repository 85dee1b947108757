/*
** bench_sweep.c — where the time of the default sweep goes.
**
**   bench_sweep DB [N] [JOBS]
**
** 1. draws the N layers alone, then evaluates the closed forms alone, then
**    the seven simulated truths alone (one thread each; the default search,
**    then the full bisection), to split the cost;
** 2. runs the real sweep (rip_sweep_run, SQLite writes) into a fresh DB
**    with 1 thread and then JOBS threads, reporting wall and CPU time,
**    layers/s, the evaluation/write split and the speedup;
** 3. prints the peak resident memory of the process.
** A benchmark: it asserts nothing about time.
*/
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "evaluate.h"
#include "generator.h"
#include "sweep.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: bench_sweep DB [N] [JOBS]\n");
        return 64;
    }
    const char *path = argv[1];
    int64_t n = argc > 2 ? atoll(argv[2]) : RIP_SWEEP_DEFAULT_N;
    int jobs = argc > 3 ? atoi(argv[3]) : 2;
    char err[RIP_ERR_LEN];
    uint64_t seed = RIP_SWEEP_DEFAULT_SEED;

    double t0 = now();
    for (int64_t i = 0; i < n; i++) {
        rip_layer L;
        rip_sweep_draw(seed, i, &L);
    }
    double t_draw = now() - t0;

    t0 = now();
    for (int64_t i = 0; i < n; i++) {
        rip_layer L;
        rip_eval ev;
        rip_sweep_draw(seed, i, &L);
        rip_evaluate(&L, RIP_ENGINE_FAST, false, &ev, err);
    }
    double t_formulas = now() - t0 - t_draw;

    double t_sim[2];
    for (int how = 0; how < 2; how++) {
        t0 = now();
        for (int64_t i = 0; i < n; i++) {
            rip_layer L;
            int64_t gaps[RIP_CONFIG_COUNT];
            rip_sweep_draw(seed, i, &L);
            if (rip_sim_truths(&L, RIP_ENGINE_FAST, (rip_search)how, gaps, NULL, NULL, err) != 0) {
                fprintf(stderr, "bench_sweep: %s\n", err);
                return 70;
            }
        }
        t_sim[how] = now() - t0 - t_draw;
    }

    printf("one thread, %lld layers: draw %.3f s, closed forms %.3f s, seven truths %.3f s "
           "(full bisection: %.3f s)\n", (long long)n, t_draw, t_formulas, t_sim[0], t_sim[1]);

    double wall_of[2] = {0, 0};
    const int jobs_of[2] = {1, jobs};
    for (int k = jobs > 1 ? 0 : 1; k < 2; k++) {
        unlink(path);
        char side[1024];
        snprintf(side, sizeof side, "%s-journal", path);
        unlink(side);
        rip_sweep_opts o = {.n_layers = n, .seed = seed, .db_path = path, .jobs = jobs_of[k],
                            .shard_index = 0, .shard_count = 1};
        rip_sweep_result r;
        struct rusage r0, r1;
        getrusage(RUSAGE_SELF, &r0);
        t0 = now();
        int status = rip_sweep_run(&o, &r, err);
        double wall = now() - t0;
        getrusage(RUSAGE_SELF, &r1);
        if (status != 0) {
            fprintf(stderr, "bench_sweep: %s\n", err);
            return status;
        }
        double cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
                     1e-6 * (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
                                     r0.ru_stime.tv_usec);
        wall_of[k] = wall;
        printf("sweep, %d jobs: %.2f s wall, %.2f CPU-s, %.0f layers/s (evaluation not overlapped %.2f s, "
               "SQLite writes %.2f s)\n", jobs_of[k], wall, cpu, (double)n / wall, r.seconds_eval, r.seconds_write);
    }
    if (jobs > 1)
        printf("speedup %d jobs over 1: %.2fx\n", jobs, wall_of[0] / wall_of[1]);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak resident memory: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
