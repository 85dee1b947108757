/*
** random_symmetric.c — tier 2, "random symmetric axes" (Tab. 5, 6%).
**
** Property: the two axes are identical: h_in = w_in, k_h = k_w, s_h = s_w,
** d_h = d_w and all four paddings equal.
** Ranges: k uniform in 1..7, s in 1..3, d in 1..3, p in 0..keff-1;
** h_in = w_in in max(1, keff - 2p)..128, half the time <= 16; cin, cout in
** 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    const int64_t k = rip_pcg32_range(g, 1, 7);
    const int64_t s = rip_pcg32_range(g, 1, 3);
    const int64_t d = rip_pcg32_range(g, 1, 3);
    const int64_t keff = rip_gen_keff(k, d);
    const int64_t p = rip_pcg32_range(g, 0, keff - 1);
    const int64_t h = rip_gen_extent(g, keff - 2 * p);
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    rip_gen_axis ax = {h, k, s, d, p, p};
    return rip_gen_assemble(L, cin, cout, &ax, &ax);
}

static bool holds(const rip_layer *L)
{
    return L->h_in == L->w_in && L->k_h == L->k_w && L->s_h == L->s_w &&
           L->d_h == L->d_w && L->p_top == L->p_bottom &&
           L->p_top == L->p_left && L->p_top == L->p_right;
}

const rip_generator rip_gencat_random_symmetric = {
    .name = "random_symmetric",
    .title = "random symmetric axes",
    .tier = 2,
    .weight = 6,
    .ranges = "both axes equal: k 1..7, s 1..3, d 1..3, p 0..keff-1 all sides, "
              "h_in=w_in in max(1,keff-2p)..128 (<=16 half the time); cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
