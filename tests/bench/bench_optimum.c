/*
** bench_optimum.c — time of the exact traversal-optimal search (sim/optimum.h)
** per output grid size.
**
**   bench_optimum [MAX_PIXELS] [BUDGET_S]
**
** For each grid of P = 4 .. MAX_PIXELS (default 28) output pixels, as
** square as P allows, two layers: a restricted one (cin 3, cout 8, k 3) and
** an anisotropic one (cin 2, cout 7, k 3x2, dilation 2x1, padding 1/0/1/0).
** Prints P, grid, optimum, herringbone gap, subsets evaluated, seconds.  It
** stops after the first size whose slower layer takes more than BUDGET_S
** (default 60) seconds; the last size within the budget is the largest
** grid solved in that time.  A benchmark, not a test: it asserts nothing.
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "optimum.h"
#include "spec.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const int max_p = argc > 1 ? atoi(argv[1]) : 28;
    const double budget = argc > 2 ? atof(argv[2]) : 60.0;
    printf("%4s %6s %-58s %8s %8s %12s %9s\n", "P", "grid", "layer", "optimum", "hb", "subsets", "seconds");
    for (int P = 4; P <= max_p && P <= RIP_OPTIMUM_MAX_PIXELS; P++) {
        int h = 1;
        for (int d = 1; d * d <= P; d++)
            if (P % d == 0)
                h = d;
        const int w = P / h;
        char specs[2][128];
        snprintf(specs[0], sizeof specs[0], "cin=3,cout=8,h=%d,w=%d,k=3", h + 2, w + 2);
        snprintf(specs[1], sizeof specs[1], "cin=2,cout=7,h=%d,w=%d,k=3x2,d=2x1,pt=1,pl=1", h + 3, w);
        double worst = 0;
        for (int i = 0; i < 2; i++) {
            rip_layer L;
            char err[RIP_ERR_LEN];
            if (rip_spec_parse(specs[i], &L, err) != 0 || L.h_out * L.w_out != P) {
                fprintf(stderr, "bench_optimum: %s: %s\n", specs[i], err);
                return 1;
            }
            rip_optimum o;
            const double t0 = now();
            rip_status st = rip_optimum_search(&L, RIP_OPTIMUM_MAX_PIXELS, &o, err);
            const double dt = now() - t0;
            if (st != RIP_OK) {
                fprintf(stderr, "bench_optimum: %s: %s\n", specs[i], err);
                return 1;
            }
            printf("%4d %3dx%-2d %-58s %8lld %8lld %12lld %9.2f\n", P, h, w, specs[i], (long long)o.gap,
                   (long long)o.hb_gap, (long long)o.states, dt);
            fflush(stdout);
            rip_optimum_free(&o);
            if (dt > worst)
                worst = dt;
        }
        if (worst > budget) {
            printf("P = %d exceeds %.0f s\n", P, budget);
            break;
        }
    }
    return 0;
}
