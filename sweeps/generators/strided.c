/*
** strided.c — tier 1, "strided downsampling" (Tab. 5, 6%).
**
** Property: equal stride 2..4 on both axes, odd square kernel 1..7, unit
** dilation, the same padding p in {0, floor(k/2)} on all four sides.
** Ranges: s = 2 (75%), 3 (10%), 4 (15%); k in {1,3,5,7}; p = floor(k/2) two
** times in three, else 0; input grid >= k - 2p per axis, <= 128; tier-1
** channels under the budget.  k = 1 with s >= 2 leaves input columns that no
** output reads (dead input, paper App. F.4).
*/
#include "common.h"

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    static const int64_t ks[] = {1, 3, 5, 7};
    const uint32_t r = rip_pcg32_below(g, 20);
    const int64_t s = r < 15 ? 2 : r < 17 ? 3 : 4;
    const int64_t k = rip_gen_pick(g, ks, 4);
    const int64_t p = rip_gen_chance(g, 2, 3) ? k / 2 : 0;
    int64_t h, w;
    rip_gen_t1_grid(g, k - 2 * p, &h, &w);
    const int64_t cap = rip_gen_t1_cap(h, w);
    const int64_t cin = rip_gen_t1_channel(g, cap);
    const int64_t cout = rip_gen_t1_channel(g, cap);
    rip_gen_axis ah = {h, k, s, 1, p, p}, aw = {w, k, s, 1, p, p};
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    const int64_t p = L->p_top;
    return L->s_h == L->s_w && L->s_h >= 2 && L->s_h <= 4 &&
           L->k_h == L->k_w && L->k_h % 2 == 1 && L->k_h <= 7 &&
           L->d_h == 1 && L->d_w == 1 && (p == 0 || p == L->k_h / 2) &&
           L->p_bottom == p && L->p_left == p && L->p_right == p;
}

const rip_generator rip_gencat_strided = {
    .name = "strided",
    .title = "strided downsampling",
    .tier = 1,
    .weight = 6,
    .ranges = "s=s_h=s_w in {2 (75%),3,4}, k in {1,3,5,7}, d=1, p in {0,k/2} all sides; "
              "h_in,w_in in max(1,k-2p)..128; cin,cout in {3..512} under 2^19",
    .draw = draw,
    .holds = holds,
};
