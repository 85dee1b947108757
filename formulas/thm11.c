/*
** thm11.c — peak debt of the generalized herringbone traversal, Theorem 11
** (Appendix E of the RiP paper: Eqs. 23-38 and the degenerate case E.3).
**
** Setup (E.1):
**   M = max(H_out, W_out),  n = min(H_out, W_out),  delta = M - n
**   w_r = W_p - s_w (W_out - 1),   h_r = H_p - s_h (H_out - 1)
**   alpha = C_out - s_h s_w C_in                                     (Eq. 23)
**   rho_r = s_h C_in (w_r - s_w),  rho_c = s_w C_in (h_r - s_h)      (Eq. 23)
**   R_r = w_r s_h C_in,            R_c = h_r s_w C_in                (Eq. 24)
**   W_out >= H_out: (rho_maj, rho_min, R_maj, R_min) = (rho_r, rho_c, R_r, R_c)
**   otherwise the r and c quantities swap roles.
**   beta_hb = C_out - R_min
** Across-leg running debt, x = length of the major leg of a pair, y = pixel
** position within the current leg (rho = rho_maj + rho_min):
**   L_maj(x,y) = -alpha x^2 + (rho + alpha delta) x
**                + [alpha M^2 - M (rho + alpha delta) + alpha (y-1) + C_out]
**                                                                    (Eq. 32)
**   L_min(x,y) = -alpha x^2 + (rho + alpha (delta+1)) x
**                + [alpha M^2 - M (rho + alpha delta) - rho_maj
**                   + alpha (y-1) + C_out]                           (Eq. 35)
**   x*_maj = rho / (2 alpha) + delta/2 = (rho + alpha delta) / (2 alpha)
**                                                                    (Eq. 33)
**   x*_min = x*_maj + 1/2 = (rho + alpha (delta+1)) / (2 alpha)      (Eq. 36)
**   C_maj, C_min: alpha > 0: {floor(x*), ceil(x*)} clipped to [delta+2, M];
**                 alpha <= 0: {delta+2, M}
**   within-leg y: alpha > 0: y = x (major), y = x - delta - 1 (minor);
**                 alpha <= 0: y = 1
**   L_last = L_min(delta+2, 1) - R_min + C_out + max(0, beta_hb delta)
**                                                                    (Eq. 37)
**   D_hb^gen = max(C_out, L_last, max_{C_maj} L_maj, max_{C_min} L_min)
**                                                                    (Eq. 38)
**   E.3: when n = 1 no pair exists, C_maj and C_min are empty and the result
**   is max(C_out, L_last).
**
** Readings where the paper leaves a choice:
**   - "clipped to [delta+2, M]" is a clamp of each of floor and ceil into the
**     interval (a value below delta+2 becomes delta+2, above M becomes M).
**     For n >= 2 the interval is non-empty (delta+2 = M-n+2 <= M).
**   - x* is kept as an exact fraction and floored/ceiled with integer
**     division; rho_r and rho_c may be negative (w_r < s_w happens when the
**     stride exceeds the dilated kernel), and the formulas are used as
**     written in that case.
**   - L_last evaluates Eq. 35 at x = delta + 2 even when n = 1 (where that
**     leg index lies past M): Eq. 35 is a polynomial, and at n = 1 it reduces
**     to L_last = C_out + max(0, beta_hb delta), the debt of the single last
**     leg of Eq. 30 at its final pixel.
**   - Eq. 38 is implemented as stated; it is not tuned to any simulator.
**     The verdict against herringbone_taps is the harness's business.
**
** Arithmetic: every product below is bounded by rip_layer_derive's overflow
** bound (cin+cout) s_h s_w (h_p+w_p+keff_h+keff_w)^2 < 2^62.
*/
#include "formulas.h"

typedef struct hb {
    int64_t M, delta, alpha, rho_maj, rho_sum, R_min, beta_hb, cout;
} hb;

/* Eq. 32. */
static int64_t l_maj(const hb *h, int64_t x, int64_t y)
{
    const int64_t lin = h->rho_sum + h->alpha * h->delta;
    return -h->alpha * x * x + lin * x
           + (h->alpha * h->M * h->M - h->M * lin + h->alpha * (y - 1) + h->cout);
}

/* Eq. 35. */
static int64_t l_min(const hb *h, int64_t x, int64_t y)
{
    const int64_t lin0 = h->rho_sum + h->alpha * h->delta;
    const int64_t lin1 = h->rho_sum + h->alpha * (h->delta + 1);
    return -h->alpha * x * x + lin1 * x
           + (h->alpha * h->M * h->M - h->M * lin0 - h->rho_maj
              + h->alpha * (y - 1) + h->cout);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int64_t max2(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/*
** Contract: L derived.  Returns D_hb^gen of Eq. 38 (with E.3 when
** min(H_out, W_out) = 1), in scalars; always defined, always >= C_out.
*/
int64_t rip_thm11(const rip_layer *L)
{
    const bool row_major = L->w_out >= L->h_out;
    const int64_t M = row_major ? L->w_out : L->h_out;
    const int64_t n = row_major ? L->h_out : L->w_out;
    const int64_t w_r = L->w_p - L->s_w * (L->w_out - 1);
    const int64_t h_r = L->h_p - L->s_h * (L->h_out - 1);
    const int64_t rho_r = L->s_h * L->cin * (w_r - L->s_w);
    const int64_t rho_c = L->s_w * L->cin * (h_r - L->s_h);
    const int64_t R_r = w_r * L->s_h * L->cin;
    const int64_t R_c = h_r * L->s_w * L->cin;

    hb h;
    h.M = M;
    h.delta = M - n;
    h.alpha = L->cout - L->s_h * L->s_w * L->cin;
    h.rho_maj = row_major ? rho_r : rho_c;
    h.rho_sum = rho_r + rho_c;
    h.R_min = row_major ? R_c : R_r;
    h.beta_hb = L->cout - h.R_min;
    h.cout = L->cout;

    const int64_t l_last = l_min(&h, h.delta + 2, 1) - h.R_min + L->cout
                           + max2(0, h.beta_hb * h.delta);
    int64_t best = max2(L->cout, l_last);
    if (n < 2)
        return best; /* E.3: C_maj and C_min are empty */

    const int64_t lo = h.delta + 2, hi = M;
    int64_t cmaj[2], cmin[2];
    if (h.alpha > 0) {
        const int64_t den = 2 * h.alpha;
        const int64_t num_maj = h.rho_sum + h.alpha * h.delta;
        const int64_t num_min = num_maj + h.alpha;
        cmaj[0] = clamp(rip_floor_div(num_maj, den), lo, hi);
        cmaj[1] = clamp(rip_ceil_div(num_maj, den), lo, hi);
        cmin[0] = clamp(rip_floor_div(num_min, den), lo, hi);
        cmin[1] = clamp(rip_ceil_div(num_min, den), lo, hi);
    } else {
        cmaj[0] = cmin[0] = lo;
        cmaj[1] = cmin[1] = hi;
    }
    for (int i = 0; i < 2; i++) {
        const int64_t ymaj = h.alpha > 0 ? cmaj[i] : 1;
        const int64_t ymin = h.alpha > 0 ? cmin[i] - h.delta - 1 : 1;
        best = max2(best, l_maj(&h, cmaj[i], ymaj));
        best = max2(best, l_min(&h, cmin[i], ymin));
    }
    return best;
}
