/*
** test_pcg32.c — PCG32 pinned to the official pcg32-demo vector, and the
** bounded draw checked for range and (coarsely) for bias.
*/
#include <criterion/criterion.h>

#include "pcg32.h"

Test(pcg32, official_vector_seed42_seq54)
{
    static const uint32_t want[6] = {0xa15c02b7, 0x7b47f409, 0xba1d3330,
                                     0x83d2f293, 0xbfa4784b, 0xcbed606e};
    rip_pcg32 g;
    rip_pcg32_seed(&g, 42u, 54u);
    for (int i = 0; i < 6; i++) {
        uint32_t got = rip_pcg32_next(&g);
        cr_expect_eq(got, want[i], "draw %d: %#x, want %#x", i, got, want[i]);
    }
}

Test(pcg32, bounded_draws_in_range_and_unbiased)
{
    rip_pcg32 g;
    rip_pcg32_seed(&g, 7u, 1u);
    long hist[3] = {0};
    for (int i = 0; i < 300000; i++) {
        int64_t v = rip_pcg32_range(&g, -1, 1);
        cr_assert(v >= -1 && v <= 1);
        hist[v + 1]++;
    }
    for (int i = 0; i < 3; i++)
        cr_expect(hist[i] > 99000 && hist[i] < 101000, "bucket %d: %ld", i, hist[i]);
    /* bound 1 always 0; a bound just under 2^32 must not loop forever */
    cr_expect_eq(rip_pcg32_below(&g, 1), 0u);
    cr_expect_lt(rip_pcg32_below(&g, 0xfffffff0u), 0xfffffff0u);
}

Test(pcg32, streams_are_independent_of_order)
{
    rip_pcg32 a, b;
    rip_pcg32_seed(&a, 2026u, 17u);
    uint32_t first = rip_pcg32_next(&a);
    rip_pcg32_seed(&b, 2026u, 18u);
    (void)rip_pcg32_next(&b);
    rip_pcg32_seed(&a, 2026u, 17u);
    cr_expect_eq(rip_pcg32_next(&a), first);
    cr_expect_neq(first, rip_pcg32_next(&b));
}
