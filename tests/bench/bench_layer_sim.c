/*
** bench_layer_sim.c — time the seven truths of one layer, per execution
** configuration and engine, by the one-pass gap confirmed by two runs
** (the default) and by the full bisection over [0, N_out].
**
**   bench_layer_sim SPEC [fast|plain|both] [REPEAT]
**
** Prints one line per configuration (gap, milliseconds: bracket with a
** fresh build, full bisection with a fresh build) and the totals, then the
** seven truths through rip_sim_truths() (tables built once per layout, what
** `ripsim layer` does): best of REPEAT (default 5) runs, wall and CPU.  It
** is a benchmark, not a test: it asserts nothing about time.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "spec.h"

static double now(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench(const rip_layer *L, rip_engine engine, int repeat)
{
    const char *name = engine == RIP_ENGINE_FAST ? "fast" : "plain";
    double total[2] = {0, 0};
    char err[RIP_ERR_LEN];
    for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
        int64_t gap[2];
        double dt[2];
        for (int how = 0; how < 2; how++) {
            double t0 = now(CLOCK_MONOTONIC);
            if (rip_sim_truth_by(L, (rip_config)e, engine, (rip_search)how, &gap[how], err) != 0) {
                fprintf(stderr, "bench: %s\n", err);
                return 1;
            }
            dt[how] = now(CLOCK_MONOTONIC) - t0;
            total[how] += dt[how];
        }
        printf("%-6s %-26s gap %12lld  bracket %8.1f ms  bisection %8.1f ms%s\n", name,
               rip_config_name((rip_config)e), (long long)gap[0], 1e3 * dt[0], 1e3 * dt[1],
               gap[0] == gap[1] ? "" : "  DIFFERENT");
    }
    printf("%-6s %-26s %17s  bracket %8.1f ms  bisection %8.1f ms\n", name, "all seven, one build each", "",
           1e3 * total[0], 1e3 * total[1]);
    double best_wall = 1e9, best_cpu = 1e9;
    for (int k = 0; k < repeat; k++) {
        int64_t gaps[RIP_CONFIG_COUNT];
        double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        if (rip_sim_truths(L, engine, RIP_SEARCH_BRACKET, gaps, NULL, NULL, err) != 0) {
            fprintf(stderr, "bench: %s\n", err);
            return 1;
        }
        double w = now(CLOCK_MONOTONIC) - w0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        best_wall = w < best_wall ? w : best_wall;
        best_cpu = c < best_cpu ? c : best_cpu;
    }
    printf("%-6s %-26s best of %d: %.1f ms wall, %.1f ms CPU (rip_sim_truths, tables shared per layout)\n",
           name, "seven truths", repeat, 1e3 * best_wall, 1e3 * best_cpu);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: bench_layer_sim SPEC [fast|plain|both] [REPEAT]\n");
        return 64;
    }
    rip_layer L;
    char err[RIP_ERR_LEN];
    if (rip_spec_parse(argv[1], &L, err) != 0) {
        fprintf(stderr, "bench: %s\n", err);
        return 65;
    }
    const char *which = argc >= 3 ? argv[2] : "both";
    int repeat = argc == 4 ? atoi(argv[3]) : 5;
    if (repeat < 1)
        repeat = 1;
    int rc = 0;
    printf("layer %s\n", argv[1]);
    if (strcmp(which, "plain") != 0)
        rc |= bench(&L, RIP_ENGINE_FAST, repeat);
    if (strcmp(which, "fast") != 0)
        rc |= bench(&L, RIP_ENGINE_PLAIN, 1);
    return rc;
}
