/*
** splitmix.h — the tests' seeded randomness: splitmix64 (Steele, Lea and
** Flood), so that random layers, orders and damage are the same on every
** machine and every run.  One generator per test file (rng_state); set it
** to the seed before drawing.
*/
#ifndef RIPSIM_TEST_SPLITMIX_H
#define RIPSIM_TEST_SPLITMIX_H

#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi] (modulo bias, harmless for tests). */
static inline int64_t rng_int(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

#endif
