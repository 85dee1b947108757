/*
** splitmix.h — the tests' seeded randomness: splitmix64 (Steele, Lea and
** Flood), so that random layers, orders and damage are the same on every
** machine and every run.  One generator per test file (rng_state); set it
** to the seed before drawing.  Tests that keep one generator per draw
** site pass a splitmix value instead (splitmix_next, splitmix_int32): the
** same sequence from the same seed.
*/
#ifndef RIPSIM_TEST_SPLITMIX_H
#define RIPSIM_TEST_SPLITMIX_H

#include <stdint.h>

typedef struct splitmix { uint64_t s; } splitmix;

static inline uint64_t splitmix_next(splitmix *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi] (modulo bias, harmless for tests). */
static inline int32_t splitmix_int32(splitmix *g, int32_t lo, int32_t hi)
{
    return lo + (int32_t)(splitmix_next(g) % (uint64_t)((int64_t)hi - lo + 1));
}

/* (unused where a file draws only through splitmix values) */
static uint64_t rng_state __attribute__((unused));

static inline uint64_t rng_next(void)
{
    splitmix g = {rng_state};
    const uint64_t z = splitmix_next(&g);
    rng_state = g.s;
    return z;
}

/* Uniform integer in [lo, hi] (modulo bias, harmless for tests). */
static inline int64_t rng_int(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

#endif
