/*
** bench_sweep.c — where the time of the default sweep goes.
**
**   bench_sweep DB [N] [JOBS]
**
** 1. draws the N layers alone, then evaluates the closed forms alone, then
**    the six simulated truths alone (one thread each), to split the cost;
** 2. runs the real sweep (rip_sweep_run, JOBS threads, SQLite writes) into a
**    fresh DB, reporting wall time, layers/s and the evaluation/write split;
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

    t0 = now();
    for (int64_t i = 0; i < n; i++) {
        rip_layer L;
        rip_sweep_draw(seed, i, &L);
        for (int e = 0; e < RIP_EXEC_COUNT; e++) {
            int64_t gap;
            if (rip_sim_truth(&L, (rip_exec)e, RIP_ENGINE_FAST, &gap) != 0) {
                fprintf(stderr, "bench_sweep: out of memory\n");
                return 71;
            }
        }
    }
    double t_sim = now() - t0 - t_draw;

    printf("one thread, %lld layers: draw %.3f s, closed forms %.3f s, six truths %.3f s\n",
           (long long)n, t_draw, t_formulas, t_sim);

    unlink(path);
    char wal[1024];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
    rip_sweep_opts o = {.n_layers = n, .seed = seed, .db_path = path, .jobs = jobs,
                        .shard_index = 0, .shard_count = 1, .progress = false};
    rip_sweep_result r;
    t0 = now();
    int status = rip_sweep_run(&o, &r, err);
    double wall = now() - t0;
    if (status != 0) {
        fprintf(stderr, "bench_sweep: %s\n", err);
        return status;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("sweep, %d jobs: %.2f s wall, %.0f layers/s (evaluation %.2f s, SQLite writes %.2f s)\n",
           jobs, wall, (double)n / wall, r.seconds_eval, r.seconds_write);
    printf("peak resident memory: %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
    return 0;
}
