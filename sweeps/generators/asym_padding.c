/*
** asym_padding.c — tier 3, "asymmetric padding" (Tab. 5, 2%).
**
** Property: p_top != p_bottom or p_left != p_right.
** Ranges: half the time TensorFlow "same" padding: square kernel k in 1..7,
** unit dilation, the same stride s in {2 (75%), 1}; per axis
** out = ceil(in/s), total = max((out-1) s + k - in, 0), top/left = total/2,
** bottom/right the rest; extents in 1..128 (half the time <= 16, square
** three times in four), redrawn (at most 16 times) until one total is odd.
** Otherwise (and as the fallback): k_h, k_w in 1..7 with k >= 2 on a random
** axis A, the same stride in 1..2 and dilation in {1 (80%), 2}, every side
** independently in 0..keff-1, and on axis A the far side moved to differ
** from the near one; extents free in max(1, keff - p_lo - p_hi)..128.
** cin, cout in 1..64.
*/
#include "common.h"

/* TensorFlow "same" padding of one axis. */
static void tf_same(rip_gen_axis *a)
{
    const int64_t out = (a->in + a->s - 1) / a->s;
    int64_t total = (out - 1) * a->s + rip_gen_keff(a->k, a->d) - a->in;
    if (total < 0)
        total = 0;
    a->p_lo = total / 2;
    a->p_hi = total - total / 2;
}

static bool tf_draw(rip_pcg32 *g, rip_gen_axis *ah, rip_gen_axis *aw)
{
    for (int tries = 0; tries < 16; tries++) {
        const int64_t k = rip_pcg32_range(g, 1, 7);
        const int64_t s = rip_gen_chance(g, 3, 4) ? 2 : 1;
        const int64_t h = rip_gen_extent(g, 1);
        const int64_t w = rip_gen_chance(g, 3, 4) ? h : rip_gen_extent(g, 1);
        *ah = (rip_gen_axis){h, k, s, 1, 0, 0};
        *aw = (rip_gen_axis){w, k, s, 1, 0, 0};
        tf_same(ah);
        tf_same(aw);
        if (ah->p_lo != ah->p_hi || aw->p_lo != aw->p_hi)
            return true;
    }
    return false;
}

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    rip_gen_axis ax[2];
    if (!rip_gen_chance(g, 1, 2) || !tf_draw(g, &ax[0], &ax[1])) {
        const int on = (int)rip_pcg32_below(g, 2);
        const int64_t s = rip_pcg32_range(g, 1, 2);
        const int64_t d = rip_gen_chance(g, 4, 5) ? 1 : 2;
        for (int i = 0; i < 2; i++) {
            rip_gen_axis *a = &ax[i];
            a->k = rip_pcg32_range(g, i == on ? 2 : 1, 7);
            a->s = s;
            a->d = d;
            const int64_t keff = rip_gen_keff(a->k, a->d);
            a->p_lo = rip_pcg32_range(g, 0, keff - 1);
            a->p_hi = rip_pcg32_range(g, 0, keff - 1);
            if (i == on && a->p_hi == a->p_lo)    /* keff >= 2 here */
                a->p_hi = (a->p_lo + rip_pcg32_range(g, 1, keff - 1)) % keff;
            rip_gen_axis_free(g, a);
        }
    }
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ax[0], &ax[1]);
}

static bool holds(const rip_layer *L)
{
    return L->p_top != L->p_bottom || L->p_left != L->p_right;
}

const rip_generator rip_gencat_asym_padding = {
    .name = "asym_padding",
    .title = "asymmetric padding",
    .tier = 3,
    .weight = 2,
    .ranges = "half TF-same (k 1..7, s in {2,1}, d=1, odd total pad), half per-side "
              "0..keff-1 forced unequal on one axis (k 1..7, s 1..2, d 1..2); "
              "h_in,w_in <= 128; cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
