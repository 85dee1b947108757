/*
** asym_dilation.c — tier 3, "asymmetric dilation" (Tab. 5, 2%).
**
** Property: d_h != d_w.
** Ranges: d_h, d_w distinct in 1..4; k_h in 2..5 (dilation must matter),
** k_w = k_h three times in four, else in 2..5; the same stride s in
** {1 (75%), 2}; symmetric padding per axis, none / floor(keff/2) / random
** below keff (one mode for both axes); extents free in
** max(1, keff - 2p)..128, half the time <= 16; cin, cout in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    const int64_t dh = rip_pcg32_range(g, 1, 4);
    int64_t dw = rip_pcg32_range(g, 1, 3);
    if (dw >= dh)
        dw++;
    const int64_t kh = rip_pcg32_range(g, 2, 5);
    const int64_t kw = rip_gen_chance(g, 3, 4) ? kh : rip_pcg32_range(g, 2, 5);
    const int64_t s = rip_gen_chance(g, 3, 4) ? 1 : 2;
    rip_gen_axis ah = {1, kh, s, dh, 0, 0}, aw = {1, kw, s, dw, 0, 0};
    rip_gen_pad_modes(g, &ah, &aw);
    rip_gen_axis_free(g, &ah);
    rip_gen_axis_free(g, &aw);
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->d_h != L->d_w;
}

const rip_generator rip_gencat_asym_dilation = {
    .name = "asym_dilation",
    .title = "asymmetric dilation",
    .tier = 3,
    .weight = 2,
    .ranges = "d_h != d_w in 1..4; k_h 2..5, k_w=k_h (3/4) or 2..5; s in {1,2}; "
              "p per axis 0 / keff/2 / 0..keff-1; h_in,w_in <= 128; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
