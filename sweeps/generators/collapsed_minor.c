/*
** collapsed_minor.c — tier 2, "collapsed minor axis, n in {1,2,3}" (Tab. 5, 9%).
**
** Property: the shorter output axis has n = min(h_out, w_out) in {1,2,3} and
** the longer one is strictly longer (M > n): the herringbone degenerates to a
** few long legs.
** Ranges: general parameters on each axis (k 1..7, s 1..3, d 1..3, padding
** none / floor(keff/2) / random symmetric / random per side, each below
** keff); n uniform in 1..3 on a random axis; M in n+1..(what 128 inputs
** reach), half the time <= 16; input extents fitted to n and M; cin, cout
** in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    rip_gen_axis ax[2];
    rip_gen_axis_general(g, &ax[0]);
    rip_gen_axis_general(g, &ax[1]);
    const int minor = (int)rip_pcg32_below(g, 2);
    const int64_t n = rip_pcg32_range(g, 1, 3);
    /* max_out >= (128 - 19) / 3 + 1 = 37 > n + 1 for every general axis */
    const int64_t m = rip_gen_biased(g, n + 1, rip_gen_axis_max_out(&ax[1 - minor]));
    RIP_GEN_TRY(rip_gen_axis_fit(g, &ax[minor], n));
    RIP_GEN_TRY(rip_gen_axis_fit(g, &ax[1 - minor], m));
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ax[0], &ax[1]);
}

static bool holds(const rip_layer *L)
{
    const int64_t n = L->h_out < L->w_out ? L->h_out : L->w_out;
    const int64_t m = L->h_out < L->w_out ? L->w_out : L->h_out;
    return n >= 1 && n <= 3 && m > n;
}

const rip_generator rip_gencat_collapsed_minor = {
    .name = "collapsed_minor",
    .title = "collapsed minor axis, n in {1,2,3}",
    .tier = 2,
    .weight = 9,
    .ranges = "min(h_out,w_out)=n in 1..3, max=M in n+1..<=128 (<=16 half the time); "
              "per axis k 1..7, s 1..3, d 1..3, p per side < keff; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
