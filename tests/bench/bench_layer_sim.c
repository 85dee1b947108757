/*
** bench_layer_sim.c — time the six binary-searched truths of one layer,
** per execution configuration and engine.
**
**   bench_layer_sim SPEC [fast|plain|both]
**
** Prints one line per configuration (gap, milliseconds) and the total.  It
** is a benchmark, not a test: it asserts nothing about time.
*/
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sim.h"
#include "spec.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench(const rip_layer *L, rip_engine engine)
{
    const char *name = engine == RIP_ENGINE_FAST ? "fast" : "plain";
    double total = 0;
    for (int e = 0; e < RIP_EXEC_COUNT; e++) {
        int64_t gap;
        double t0 = now();
        if (rip_sim_truth(L, (rip_exec)e, engine, &gap) != 0) {
            fprintf(stderr, "bench: out of memory\n");
            return 1;
        }
        double dt = now() - t0;
        total += dt;
        printf("%-6s %-26s gap %12lld  %9.1f ms\n", name, rip_exec_name((rip_exec)e),
               (long long)gap, 1e3 * dt);
    }
    printf("%-6s %-26s %17s  %9.1f ms\n", name, "all six truths", "", 1e3 * total);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: bench_layer_sim SPEC [fast|plain|both]\n");
        return 64;
    }
    rip_layer L;
    char err[RIP_ERR_LEN];
    if (rip_spec_parse(argv[1], &L, err) != 0) {
        fprintf(stderr, "bench: %s\n", err);
        return 65;
    }
    const char *which = argc == 3 ? argv[2] : "both";
    int rc = 0;
    printf("layer %s\n", argv[1]);
    if (strcmp(which, "plain") != 0)
        rc |= bench(&L, RIP_ENGINE_FAST);
    if (strcmp(which, "fast") != 0)
        rc |= bench(&L, RIP_ENGINE_PLAIN);
    return rc;
}
