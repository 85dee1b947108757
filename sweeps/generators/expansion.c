/*
** expansion.c — tier 1, "inverted-bottleneck expansion" (Tab. 5, 5%).
**
** Property: pointwise (1x1, s = d = 1, p = 0) with cout = t cin, t in 2..6.
** Ranges: t uniform in 2..6; input grid 1..128 (square three times in four);
** cin from the tier-1 list with h_in*w_in*t*cin <= 2^19, so cout reaches
** 6 * 512 on small grids.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    const int64_t t = rip_pcg32_range(g, 2, 6);
    int64_t h, w;
    rip_gen_t1_grid(g, 1, &h, &w);
    const int64_t cin = rip_gen_t1_channel(g, rip_gen_t1_cap(h, w) / t);
    rip_gen_axis ah = {h, 1, 1, 1, 0, 0}, aw = {w, 1, 1, 1, 0, 0};
    return rip_gen_assemble(L, cin, t * cin, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->k_h == 1 && L->k_w == 1 && L->s_h == 1 && L->s_w == 1 &&
           L->d_h == 1 && L->d_w == 1 &&
           L->p_top == 0 && L->p_bottom == 0 && L->p_left == 0 && L->p_right == 0 &&
           L->cout % L->cin == 0 && L->cout / L->cin >= 2 && L->cout / L->cin <= 6;
}

const rip_generator rip_gencat_expansion = {
    .name = "expansion",
    .title = "inverted-bottleneck expansion",
    .tier = 1,
    .weight = 5,
    .channels = RIP_GEN_CHANNELS_GROW,
    .ranges = "1x1, s=d=1, p=0, cout=t*cin with t in 2..6; h_in,w_in in 1..128 (square 3/4); "
              "cin in {3..512} with h_in*w_in*cout <= 2^19",
    .draw = draw,
    .holds = holds,
};
