/*
** thin_axis.c — tier 2, "thin axis, one output axis of 1" (Tab. 5, 6%).
**
** Property: h_out == 1 or w_out == 1.
** Ranges: general parameters on each axis (k 1..7, s 1..3, d 1..3, padding
** below keff, see common.h); a random axis has one output, the other
** 2..(what 128 inputs reach), half the time <= 16; input extents fitted;
** cin, cout in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    rip_gen_axis ax[2];
    rip_gen_axis_general(g, &ax[0]);
    rip_gen_axis_general(g, &ax[1]);
    const int thin = (int)rip_pcg32_below(g, 2);
    const int64_t m = rip_gen_biased(g, 2, rip_gen_axis_max_out(&ax[1 - thin]));
    RIP_GEN_TRY(rip_gen_axis_fit(g, &ax[thin], 1));
    RIP_GEN_TRY(rip_gen_axis_fit(g, &ax[1 - thin], m));
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ax[0], &ax[1]);
}

static bool holds(const rip_layer *L)
{
    return L->h_out == 1 || L->w_out == 1;
}

const rip_generator rip_gencat_thin_axis = {
    .name = "thin_axis",
    .title = "thin axis, one output axis of 1",
    .tier = 2,
    .weight = 6,
    .ranges = "one output axis 1, the other 2..<=128 (<=16 half the time); per axis "
              "k 1..7, s 1..3, d 1..3, p per side < keff; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
