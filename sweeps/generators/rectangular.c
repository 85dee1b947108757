/*
** rectangular.c — tier 3, "rectangular kernel" (Tab. 5, 3%).
**
** Property: k_h != k_w.
** Ranges: half the time an Inception-style 1 x k or k x 1 kernel with k in
** {3,5,7}, else two distinct sizes in 1..7; the same stride s in {1 (75%),
** 2} and dilation d in {1 (75%), 2} on both axes; symmetric padding per
** axis, none / floor(keff/2) / random below keff (one mode for both axes);
** extents free in max(1, keff - 2p)..128, half the time <= 16; cin, cout
** in 1..64.
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    static const int64_t big[] = {3, 5, 7};
    int64_t kh, kw;
    if (rip_gen_chance(g, 1, 2)) {
        const int64_t k = rip_gen_pick(g, big, 3);
        const bool tall = rip_gen_chance(g, 1, 2);
        kh = tall ? k : 1;
        kw = tall ? 1 : k;
    } else {
        kh = rip_pcg32_range(g, 1, 7);
        kw = rip_pcg32_range(g, 1, 6);
        if (kw >= kh)
            kw++;
    }
    const int64_t s = rip_gen_chance(g, 3, 4) ? 1 : 2;
    const int64_t d = rip_gen_chance(g, 3, 4) ? 1 : 2;
    rip_gen_axis ah = {1, kh, s, d, 0, 0}, aw = {1, kw, s, d, 0, 0};
    rip_gen_pad_modes(g, &ah, &aw);
    rip_gen_axis_free(g, &ah);
    rip_gen_axis_free(g, &aw);
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->k_h != L->k_w;
}

const rip_generator rip_gencat_rectangular = {
    .name = "rectangular",
    .title = "rectangular kernel",
    .tier = 3,
    .weight = 3,
    .ranges = "k_h != k_w: 1xk/kx1 with k in {3,5,7} half the time, else distinct in 1..7; "
              "s in {1,2}, d in {1,2}; p per axis 0 / keff/2 / 0..keff-1; "
              "h_in,w_in <= 128; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
