/*
** projection.c — tier 1, "projection, C_out <= C_in" (Tab. 5, 5%).
**
** Property: pointwise (1x1, s = d = 1, p = 0) with cout <= cin.
** Ranges: two channel counts from the tier-1 list under the budget, the
** larger one is cin (equal counts are kept); input grid 1..128 (square three
** times in four).
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    int64_t h, w;
    rip_gen_t1_grid(g, 1, &h, &w);
    const int64_t cap = rip_gen_t1_cap(h, w);
    const int64_t a = rip_gen_t1_channel(g, cap);
    const int64_t b = rip_gen_t1_channel(g, cap);
    rip_gen_axis ah = {h, 1, 1, 1, 0, 0}, aw = {w, 1, 1, 1, 0, 0};
    return rip_gen_assemble(L, a > b ? a : b, a > b ? b : a, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->k_h == 1 && L->k_w == 1 && L->s_h == 1 && L->s_w == 1 &&
           L->d_h == 1 && L->d_w == 1 &&
           L->p_top == 0 && L->p_bottom == 0 && L->p_left == 0 && L->p_right == 0 &&
           L->cout <= L->cin;
}

const rip_generator rip_gencat_projection = {
    .name = "projection",
    .title = "projection, C_out <= C_in",
    .tier = 1,
    .weight = 5,
    .channels = RIP_GEN_CHANNELS_SHRINK,
    .ranges = "1x1, s=d=1, p=0, cout <= cin both in {3..512} with "
              "h_in*w_in*cin <= 2^19; h_in,w_in in 1..128 (square 3/4)",
    .draw = draw,
    .holds = holds,
};
