/*
** restricted_int_xstar.c — tier 2, "restricted regime, integer x*" (Tab. 5, 6%).
**
** Property: Gural & Murmann's restricted setting (p = 0, s = d = 1, odd
** square kernel, square input), cout > cin, and x* = (k-1) cin / (cout-cin)
** an integer, i.e. (k-1) cin mod (cout - cin) == 0: Eq. 1 is exact there
** (Limitation 1 does not bite, Limitation 2 may).
** Ranges: k = 1 (10%, x* = 0) or 3, 5, 7; cin uniform in 1..63; cout - cin
** uniform over the divisors of (k-1) cin that keep cout <= 64 (any 1..64-cin
** when k = 1); h_in = w_in in k..128, half the time <= 16.  Large cin with a
** small divisor gives x* far beyond the grid (Limitation 2).
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    static const int64_t ks[] = {3, 5, 7};
    const int64_t k = rip_gen_chance(g, 1, 10) ? 1 : rip_gen_pick(g, ks, 3);
    const int64_t cin = rip_pcg32_range(g, 1, RIP_GEN_SMALL_CH - 1);
    const int64_t rho = (k - 1) * cin;
    int64_t div[RIP_GEN_SMALL_CH];
    size_t n = 0;
    for (int64_t a = 1; cin + a <= RIP_GEN_SMALL_CH; a++)
        if (rho % a == 0)
            div[n++] = a;               /* a = 1 always qualifies */
    const int64_t cout = cin + rip_gen_pick(g, div, n);
    const int64_t h = rip_gen_extent(g, k);
    rip_gen_axis ax = {h, k, 1, 1, 0, 0};
    return rip_gen_assemble(L, cin, cout, &ax, &ax);
}

static bool holds(const rip_layer *L)
{
    return rip_layer_is_restricted(L) && L->cout > L->cin &&
           ((L->k_h - 1) * L->cin) % (L->cout - L->cin) == 0;
}

const rip_generator rip_gencat_restricted_int_xstar = {
    .name = "restricted_int_xstar",
    .title = "restricted regime, integer x*",
    .tier = 2,
    .weight = 6,
    .channels = RIP_GEN_CHANNELS_GROW,
    .ranges = "restricted: k in {1 (10%),3,5,7}, h_in=w_in in k..128 (<=16 half the time); "
              "cin 1..63, cout-cin a divisor of (k-1)cin, cout <= 64",
    .draw = draw,
    .holds = holds,
};
