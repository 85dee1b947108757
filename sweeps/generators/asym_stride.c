/*
** asym_stride.c — tier 3, "asymmetric stride" (Tab. 5, 2%).
**
** Property: s_h != s_w.
** Ranges: s_h, s_w distinct in 1..4; k_h in 1..5, k_w = k_h three times in
** four, else in 1..5; the same dilation d in {1 (80%), 2}; symmetric padding
** per axis, none / floor(keff/2) / random below keff (one mode for both
** axes); extents free in max(1, keff - 2p)..128, half the time <= 16;
** cin, cout in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    const int64_t sh = rip_pcg32_range(g, 1, 4);
    int64_t sw = rip_pcg32_range(g, 1, 3);
    if (sw >= sh)
        sw++;
    const int64_t kh = rip_pcg32_range(g, 1, 5);
    const int64_t kw = rip_gen_chance(g, 3, 4) ? kh : rip_pcg32_range(g, 1, 5);
    const int64_t d = rip_gen_chance(g, 4, 5) ? 1 : 2;
    rip_gen_axis ah = {1, kh, sh, d, 0, 0}, aw = {1, kw, sw, d, 0, 0};
    rip_gen_pad_modes(g, &ah, &aw);
    rip_gen_axis_free(g, &ah);
    rip_gen_axis_free(g, &aw);
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->s_h != L->s_w;
}

const rip_generator rip_gencat_asym_stride = {
    .name = "asym_stride",
    .title = "asymmetric stride",
    .tier = 3,
    .weight = 2,
    .ranges = "s_h != s_w in 1..4; k_h 1..5, k_w=k_h (3/4) or 1..5; d in {1,2}; "
              "p per axis 0 / keff/2 / 0..keff-1; h_in,w_in <= 128; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
