/*
** small_output.c — tier 2, "small output grid" (Tab. 5, 6%): grids of six
** output pixels or fewer.
**
** Property: h_out * w_out <= 6.
** Ranges: (h_out, w_out) uniform over the 14 pairs with product <= 6;
** general parameters on each axis (k 1..7, s 1..3, d 1..3, padding below
** keff, see common.h); input extents fitted; cin, cout in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    static const int64_t grids[14][2] = {
        {1, 1}, {1, 2}, {1, 3}, {1, 4}, {1, 5}, {1, 6}, {2, 1},
        {2, 2}, {2, 3}, {3, 1}, {3, 2}, {4, 1}, {5, 1}, {6, 1},
    };
    const uint32_t i = rip_pcg32_below(g, 14);
    rip_gen_axis ah, aw;
    rip_gen_axis_general(g, &ah);
    rip_gen_axis_general(g, &aw);
    RIP_GEN_TRY(rip_gen_axis_fit(g, &ah, grids[i][0]));
    RIP_GEN_TRY(rip_gen_axis_fit(g, &aw, grids[i][1]));
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->h_out * L->w_out <= 6;
}

const rip_generator rip_gencat_small_output = {
    .name = "small_output",
    .title = "small output grid",
    .tier = 2,
    .weight = 6,
    .ranges = "h_out*w_out <= 6 (14 grids uniform); per axis k 1..7, s 1..3, d 1..3, "
              "p per side < keff; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
