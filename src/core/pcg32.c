/*
** pcg32.c — PCG32 (see pcg32.h).  The algorithm is M. E. O'Neill's
** pcg32_random_r / pcg32_srandom_r / pcg32_boundedrand_r, restated.
*/
#include "pcg32.h"

void rip_pcg32_seed(rip_pcg32 *g, uint64_t initstate, uint64_t initseq)
{
    g->state = 0;
    g->inc = (initseq << 1) | 1u;
    rip_pcg32_next(g);
    g->state += initstate;
    rip_pcg32_next(g);
}

uint32_t rip_pcg32_next(rip_pcg32 *g)
{
    uint64_t old = g->state;
    g->state = old * 6364136223846793005ULL + g->inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
}

uint32_t rip_pcg32_below(rip_pcg32 *g, uint32_t bound)
{
    /* Reject the 2^32 mod bound lowest values so every residue is equally
    ** likely; (-bound) % bound is 2^32 mod bound in 32-bit arithmetic. */
    uint32_t threshold = (uint32_t)(-bound) % bound;
    for (;;) {
        uint32_t r = rip_pcg32_next(g);
        if (r >= threshold)
            return r % bound;
    }
}

int64_t rip_pcg32_range(rip_pcg32 *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)rip_pcg32_below(g, (uint32_t)(hi - lo + 1));
}
