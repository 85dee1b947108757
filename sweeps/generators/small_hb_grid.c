/*
** small_hb_grid.c — tier 2, "small herringbone grid, n <= 6" (Tab. 5, 7%).
**
** Property: the shorter output axis has n = min(h_out, w_out) <= 6.
** Ranges: geometry close to the restricted setting, with padding and stride
** allowed: square odd kernel k in {1,3,5,7}, unit dilation, the same stride
** s in {1 (70%), 2} and the same padding p in [0, floor(k/2)] (0 half the
** time) on both axes; n uniform in 1..6 and M uniform in n..16 (unlike
** collapsed_minor, M = n and n > 3 occur), on a random orientation; input
** extents fitted to n and M; cin, cout in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    static const int64_t ks[] = {1, 3, 5, 7};
    const int64_t k = rip_gen_pick(g, ks, 4);
    const int64_t s = rip_gen_chance(g, 7, 10) ? 1 : 2;
    const int64_t p = rip_gen_chance(g, 1, 2) ? 0 : rip_pcg32_range(g, 0, k / 2);
    rip_gen_axis ax[2] = {{1, k, s, 1, p, p}, {1, k, s, 1, p, p}};
    const int minor = (int)rip_pcg32_below(g, 2);
    const int64_t n = rip_pcg32_range(g, 1, 6);
    const int64_t m = rip_pcg32_range(g, n, 16);
    /* (16-1)*2 + 7 = 37 <= 128: both sizes are reachable */
    RIP_GEN_TRY(rip_gen_axis_fit(g, &ax[minor], n));
    RIP_GEN_TRY(rip_gen_axis_fit(g, &ax[1 - minor], m));
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ax[0], &ax[1]);
}

static bool holds(const rip_layer *L)
{
    const int64_t n = L->h_out < L->w_out ? L->h_out : L->w_out;
    return n >= 1 && n <= 6;
}

const rip_generator rip_gencat_small_hb_grid = {
    .name = "small_hb_grid",
    .title = "small herringbone grid, n <= 6",
    .tier = 2,
    .weight = 7,
    .ranges = "min(h_out,w_out)=n in 1..6, max=M in n..16; k=k_h=k_w in {1,3,5,7}, d=1, "
              "s in {1,2}, p in 0..k/2 (all sides equal); cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
