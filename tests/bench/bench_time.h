/*
** bench_time.h — the clock and the sort of timings the benchmarks share:
** bench_now() in seconds (CLOCK_MONOTONIC) and bench_cmp_double for qsort
** before taking a median.  Header-only.
*/
#ifndef RIPSIM_BENCH_TIME_H
#define RIPSIM_BENCH_TIME_H

#include <time.h>

static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
