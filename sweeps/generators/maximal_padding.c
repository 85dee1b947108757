/*
** maximal_padding.c — tier 3, "maximal padding" (Tab. 5, 2%).
**
** Property: p = keff - 1 on every side of both axes: the most padding for
** which output (0,0) still reads a real pixel (its last tap), and the edge
** of Theorem 13's domain, p < keff.  With d = 2 some outputs read padding
** only.
** Ranges: k_h in 2..7 (so every side is padded), k_w = k_h half the time,
** else in 2..7; the same stride s in {1 (2/3), 2} and dilation d in
** {1 (2/3), 2} on both axes; extents in 1..128, half the time <= 16;
** cin, cout in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    const int64_t kh = rip_pcg32_range(g, 2, 7);
    const int64_t kw = rip_gen_chance(g, 1, 2) ? kh : rip_pcg32_range(g, 2, 7);
    const int64_t s = rip_gen_chance(g, 2, 3) ? 1 : 2;
    const int64_t d = rip_gen_chance(g, 2, 3) ? 1 : 2;
    const int64_t ph = rip_gen_keff(kh, d) - 1, pw = rip_gen_keff(kw, d) - 1;
    rip_gen_axis ah = {1, kh, s, d, ph, ph}, aw = {1, kw, s, d, pw, pw};
    ah.in = rip_gen_extent(g, 1);
    aw.in = rip_gen_extent(g, 1);
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->p_top == L->keff_h - 1 && L->p_bottom == L->keff_h - 1 &&
           L->p_left == L->keff_w - 1 && L->p_right == L->keff_w - 1;
}

const rip_generator rip_gencat_maximal_padding = {
    .name = "maximal_padding",
    .title = "maximal padding",
    .tier = 3,
    .weight = 2,
    .ranges = "p=keff-1 on every side; k_h,k_w in 2..7 (square half the time), "
              "s in {1,2}, d in {1,2}; h_in,w_in in 1..128 (<=16 half the time); cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
