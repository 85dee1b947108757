/*
** plain.c — tier 1, "plain convolution, k in [1,7]" (Tab. 5, 11%).
**
** Property: no padding, unit stride and dilation, square kernel 1..7.
** Ranges: k uniform in 1..7; input grid >= k per axis, <= 128 (square three
** times in four, half the time a size real networks use); cin and cout
** independently from the tier-1 channel list under the tier-1 budget.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    const int64_t k = rip_pcg32_range(g, 1, 7);
    int64_t h, w;
    rip_gen_t1_grid(g, k, &h, &w);
    const int64_t cap = rip_gen_t1_cap(h, w);
    const int64_t cin = rip_gen_t1_channel(g, cap);
    const int64_t cout = rip_gen_t1_channel(g, cap);
    rip_gen_axis ah = {h, k, 1, 1, 0, 0}, aw = {w, k, 1, 1, 0, 0};
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->k_h == L->k_w && L->k_h >= 1 && L->k_h <= 7 &&
           L->s_h == 1 && L->s_w == 1 && L->d_h == 1 && L->d_w == 1 &&
           L->p_top == 0 && L->p_bottom == 0 && L->p_left == 0 && L->p_right == 0;
}

const rip_generator rip_gencat_plain = {
    .name = "plain",
    .title = "plain convolution, k in [1,7]",
    .tier = 1,
    .weight = 11,
    .ranges = "k=k_h=k_w in 1..7, s=d=1, p=0; h_in,w_in in k..128 (square 3/4); "
              "cin,cout in {3..512} with h_in*w_in*max(cin,cout) <= 2^19",
    .draw = draw,
    .holds = holds,
};
