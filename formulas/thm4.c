/*
** thm4.c — minimum gap of Right In-Place convolution with the padded input
** materialized (Theorem 4, Eqs. 5-10 of the RiP paper).
**
** Layout (Eq. 4): Delta slack scalars, then the padded input right-aligned;
** output pixel (r,c) is written row-major at (r W_out + c) C_out.
**
**   sigma = 0 (receptive field gathered first) | C_out (taps read in place)
**                                                                    (Eq. 6)
**   alpha = C_out - s_w C_in,   beta = C_out W_out - s_h W_p C_in
**   D(r,c) = beta r + alpha (c+1) + sigma   if c+1 <  W_out
**          = beta (r+1) + sigma             if c+1 >= W_out, r+1 < H_out
**          = sigma                          otherwise (last pixel)   (Eq. 8)
**   R_s = {0, H_out-2, H_out-1},  C_s = {0, W_out-2, W_out-1}, clipped >= 0
**                                                                    (Eq. 9)
**   Delta* = max( max_{(r,c) in R_s x C_s} D(r,c),  N_out - H_p W_p C_in )
**                                                                   (Eq. 10)
**
** Readings: "clipped to non-negative values" is implemented as clamping to
** 0; a clamped entry duplicates the entry 0 already in the set, so clamping
** and discarding agree.  W_p and H_p are the full padded extents
** (p_top + h_in + p_bottom); with uneven padding Eq. 5 is unchanged because
** it indexes the padded grid from its corner (sim/README.md, "Geometry").
*/
#include "formulas.h"

/* Eq. 8 at (r,c), 0 <= r < H_out, 0 <= c < W_out. */
static int64_t debt(const rip_layer *L, int64_t alpha, int64_t beta,
                    int64_t sigma, int64_t r, int64_t c)
{
    if (c + 1 < L->w_out)
        return beta * r + alpha * (c + 1) + sigma;
    if (r + 1 < L->h_out)
        return beta * (r + 1) + sigma;
    return sigma;
}

/*
** Contract: L derived; order selects sigma (Eq. 6).  Returns Delta* of
** Eq. 10 in scalars; always defined, always >= sigma.
*/
int64_t rip_thm4(const rip_layer *L, rip_tap_order order)
{
    const int64_t sigma = order == RIP_SIGMA_TAPS ? L->cout : 0;
    const int64_t alpha = L->cout - L->s_w * L->cin;
    const int64_t beta = L->cout * L->w_out - L->s_h * L->w_p * L->cin;
    const int64_t rs[3] = {0, L->h_out - 2, L->h_out - 1};
    const int64_t cs[3] = {0, L->w_out - 2, L->w_out - 1};

    int64_t best = L->n_out - L->n_in_padded;
    for (int i = 0; i < 3; i++) {
        const int64_t r = rs[i] < 0 ? 0 : rs[i];
        for (int j = 0; j < 3; j++) {
            const int64_t c = cs[j] < 0 ? 0 : cs[j];
            const int64_t d = debt(L, alpha, beta, sigma, r, c);
            if (d > best)
                best = d;
        }
    }
    return best;
}
