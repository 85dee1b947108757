/*
** fully_asymmetric.c — tier 3, "fully asymmetric" (Tab. 5, 2%).
**
** Property: every pair of axis parameters differs: k_h != k_w, s_h != s_w,
** d_h != d_w, (p_top, p_bottom) != (p_left, p_right) and h_in != w_in.
** Ranges: k_h, k_w distinct in 1..5; s_h, s_w distinct in 1..3; d_h, d_w
** distinct in 1..3; every side's padding independently in 0..keff-1 of its
** axis (if the two pairs coincide, p_top moves on an axis whose keff >= 2);
** extents free in max(1, keff - p_lo - p_hi)..128, half the time <= 16, and
** w_in moved by one if it equals h_in; cin, cout in 1..64.
*/
#include "common.h"

/* Two distinct values in lo..hi, both orders equally likely. */
static void distinct(rip_pcg32 *g, int64_t lo, int64_t hi, int64_t *a, int64_t *b)
{
    *a = rip_pcg32_range(g, lo, hi);
    *b = rip_pcg32_range(g, lo, hi - 1);
    if (*b >= *a)
        (*b)++;
}

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    rip_gen_axis ah, aw;
    distinct(g, 1, 5, &ah.k, &aw.k);
    distinct(g, 1, 3, &ah.s, &aw.s);
    distinct(g, 1, 3, &ah.d, &aw.d);
    const int64_t keh = rip_gen_keff(ah.k, ah.d), kew = rip_gen_keff(aw.k, aw.d);
    ah.p_lo = rip_pcg32_range(g, 0, keh - 1);
    ah.p_hi = rip_pcg32_range(g, 0, keh - 1);
    aw.p_lo = rip_pcg32_range(g, 0, kew - 1);
    aw.p_hi = rip_pcg32_range(g, 0, kew - 1);
    if (ah.p_lo == aw.p_lo && ah.p_hi == aw.p_hi) {
        /* k_h != k_w, so one axis has keff >= 2 */
        if (keh >= 2)
            ah.p_lo = (ah.p_lo + 1) % keh;
        else
            aw.p_lo = (aw.p_lo + 1) % kew;
    }
    rip_gen_axis_free(g, &ah);
    rip_gen_axis_free(g, &aw);
    if (aw.in == ah.in)     /* extents' lower bounds are <= 13, far below 128 */
        aw.in += aw.in < RIP_GEN_MAX_EXTENT ? 1 : -1;
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ah, &aw);
}

static bool holds(const rip_layer *L)
{
    return L->k_h != L->k_w && L->s_h != L->s_w && L->d_h != L->d_w &&
           (L->p_top != L->p_left || L->p_bottom != L->p_right) &&
           L->h_in != L->w_in;
}

const rip_generator rip_gencat_fully_asymmetric = {
    .name = "fully_asymmetric",
    .title = "fully asymmetric",
    .tier = 3,
    .weight = 2,
    .ranges = "k_h!=k_w in 1..5, s_h!=s_w in 1..3, d_h!=d_w in 1..3, each side 0..keff-1 "
              "with (pt,pb)!=(pl,pr), h_in!=w_in <= 128; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
