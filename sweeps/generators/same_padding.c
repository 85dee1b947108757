/*
** same_padding.c — tier 1, "same padding, p = floor(k/2)" (Tab. 5, 8%).
**
** Property: unit stride and dilation, odd square kernel, p = floor(k/2) on
** all four sides (so h_out = h_in, w_out = w_in).
** Ranges: k in {1,3,5,7}; input grid 1..128 (square three times in four,
** half the time a size real networks use); tier-1 channels under the budget.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    static const int64_t ks[] = {1, 3, 5, 7};
    const int64_t k = rip_gen_pick(g, ks, 4);
    int64_t h, w;
    rip_gen_t1_grid(g, 1, &h, &w);
    const int64_t cap = rip_gen_t1_cap(h, w);
    const int64_t cin = rip_gen_t1_channel(g, cap);
    const int64_t cout = rip_gen_t1_channel(g, cap);
    rip_gen_axis ah = {h, k, 1, 1, k / 2, k / 2}, aw = {w, k, 1, 1, k / 2, k / 2};
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    const int64_t p = L->k_h / 2;
    return L->k_h == L->k_w && L->k_h % 2 == 1 && L->k_h <= 7 &&
           L->s_h == 1 && L->s_w == 1 && L->d_h == 1 && L->d_w == 1 &&
           L->p_top == p && L->p_bottom == p && L->p_left == p && L->p_right == p;
}

const rip_generator rip_gencat_same_padding = {
    .name = "same_padding",
    .title = "same padding, p = floor(k/2)",
    .tier = 1,
    .weight = 8,
    .ranges = "k in {1,3,5,7}, p=k/2 all sides, s=d=1; h_in,w_in in 1..128 (square 3/4); "
              "cin,cout in {3..512} with h_in*w_in*max(cin,cout) <= 2^19",
    .draw = draw,
    .holds = holds,
};
