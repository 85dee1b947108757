/*
** nonint_xstar.c — tier 2, "non-integer x*" (Tab. 5, 5%): the regime of
** Limitation 1.
**
** Property: restricted setting (p = 0, s = d = 1, odd square kernel, square
** input), cout > cin and (k-1) cin mod (cout - cin) != 0, which needs k >= 3
** and cout - cin >= 2.
** Ranges: k in {3,5,7}; cin uniform in 1..62 and cout - cin uniform in
** 2..64-cin, redrawn (at most 64 times) until it does not divide (k-1) cin;
** the fallback is the paper's example cin = 3, cout = 8 (x* = 1.2), never
** reached in practice.  h_in = w_in in k..128, half the time <= 16.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    static const int64_t ks[] = {3, 5, 7};
    const int64_t k = rip_gen_pick(g, ks, 3);
    int64_t cin = 3, cout = 8;
    for (int tries = 0; tries < 64; tries++) {
        const int64_t c = rip_pcg32_range(g, 1, RIP_GEN_SMALL_CH - 2);
        const int64_t a = rip_pcg32_range(g, 2, RIP_GEN_SMALL_CH - c);
        if (((k - 1) * c) % a != 0) {
            cin = c;
            cout = c + a;
            break;
        }
    }
    const int64_t h = rip_gen_extent(g, k);
    rip_gen_axis ax = {h, k, 1, 1, 0, 0};
    return rip_gen_assemble(L, cin, cout, &ax, &ax);
}

static bool holds(const rip_layer *L)
{
    return rip_layer_is_restricted(L) && L->cout > L->cin &&
           ((L->k_h - 1) * L->cin) % (L->cout - L->cin) != 0;
}

const rip_generator rip_gencat_nonint_xstar = {
    .name = "nonint_xstar",
    .title = "non-integer x*",
    .tier = 2,
    .weight = 5,
    .channels = RIP_GEN_CHANNELS_GROW,
    .ranges = "restricted: k in {3,5,7}, h_in=w_in in k..128 (<=16 half the time); "
              "cin 1..62, cout-cin in 2..64-cin not dividing (k-1)cin",
    .draw = draw,
    .holds = holds,
};
