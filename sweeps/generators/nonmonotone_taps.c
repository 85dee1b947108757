/*
** nonmonotone_taps.c — tier 3, "non-monotone tap order" (Tab. 5, 4%).
**
** Property: on at least one axis the first real input index read by
** successive outputs is not non-decreasing: for some output c (both c and
** c+1 reading at least one real pixel) firstReal(c+1) < firstReal(c), where
** firstReal(c) = min over taps b of c s + b d - p_lo that lies in [0, in).
** This needs d > s and padding (paper App. F.4): output 0 skips the real
** pixel its padded taps straddle, output 1 reads it.
** Ranges: on a random axis s in 1..2, d in s+1..4, k in 2..5, p_lo in
** 1..keff-1, p_hi = p_lo half the time, else 0..keff-1, outputs 2..(what 128
** inputs reach), half the time <= 16; redrawn (at most 64 times) until the
** property holds, falling back to in = 4, k = 2, s = 1, d = 2, p = 1.  The
** other axis has general parameters (common.h) and a free extent; cin, cout
** in 1..64.
*/
#include "common.h"

/* Brute force over the outputs and taps of one axis. */
static bool axis_nonmonotone(const rip_gen_axis *a)
{
    const int64_t out = rip_gen_axis_out(a);
    int64_t prev = -1;                  /* firstReal(c-1), -1: no real tap */
    for (int64_t c = 0; c < out; c++) {
        int64_t first = -1;
        for (int64_t b = 0; b < a->k; b++) {
            const int64_t x = c * a->s + b * a->d - a->p_lo;
            if (x >= 0 && x < a->in && (first < 0 || x < first))
                first = x;
        }
        if (prev >= 0 && first >= 0 && first < prev)
            return true;
        prev = first;
    }
    return false;
}

static rip_status draw(rip_pcg32 *g, rip_layer *L)
{
    rip_gen_axis ax[2];
    const int on = (int)rip_pcg32_below(g, 2);
    rip_gen_axis a = {4, 2, 1, 2, 1, 1};        /* fallback */
    for (int tries = 0; tries < 64; tries++) {
        rip_gen_axis t;
        t.s = rip_pcg32_range(g, 1, 2);
        t.d = rip_pcg32_range(g, t.s + 1, 4);
        t.k = rip_pcg32_range(g, 2, 5);
        const int64_t keff = rip_gen_keff(t.k, t.d);
        t.p_lo = rip_pcg32_range(g, 1, keff - 1);
        t.p_hi = rip_gen_chance(g, 1, 2) ? t.p_lo : rip_pcg32_range(g, 0, keff - 1);
        RIP_GEN_TRY(rip_gen_axis_fit(g, &t, rip_gen_biased(g, 2, rip_gen_axis_max_out(&t))));
        if (axis_nonmonotone(&t)) {
            a = t;
            break;
        }
    }
    ax[on] = a;
    rip_gen_axis_general(g, &ax[1 - on]);
    rip_gen_axis_free(g, &ax[1 - on]);
    const int64_t cin = rip_gen_small_channel(g);
    const int64_t cout = rip_gen_small_channel(g);
    return rip_gen_assemble(L, cin, cout, &ax[0], &ax[1]);
}

static bool holds(const rip_layer *L)
{
    rip_gen_axis h, w;
    rip_gen_axes_of(L, &h, &w);
    return axis_nonmonotone(&h) || axis_nonmonotone(&w);
}

const rip_generator rip_gencat_nonmonotone_taps = {
    .name = "nonmonotone_taps",
    .title = "non-monotone tap order",
    .tier = 3,
    .weight = 4,
    .ranges = "one axis: s 1..2, d s+1..4, k 2..5, p_lo 1..keff-1, p_hi 0..keff-1, "
              "outputs 2..<=128, redrawn until firstReal decreases; other axis general; "
              "cin,cout 1..64",
    .draw = draw,
    .holds = holds,
};
