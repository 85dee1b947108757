/*
** gm2019_eq1.c — Gural & Murmann's herringbone peak debt, Eq. 1 of the RiP
** paper, exactly as published (including both limitations of Sec. 3.1).
**
** Equations (restricted setting, k = k_h = k_w):
**   x*  = (k-1) C_in / (C_out - C_in)                                 (Eq. 13)
**   D^{G&M} = (H_out W_out - floor(x*)^2) C_out
**           - (H_in W_in - (floor(x*) + k - 1)^2 - k) C_in             (Eq. 1)
**
** Reading: Eq. 1 is only meaningful when the leg debt slope C_out - C_in is
** positive (x* is otherwise undefined or negative), so the formula is
** defined iff the layer is restricted and C_out > C_in.  No clamp
** of floor(x*) to the output grid is applied: Limitation 2 of the paper is
** precisely that the published form evaluates the square outside the grid,
** and this file reproduces the published form, not a corrected one.
** x* is kept as the fraction (k-1)C_in / (C_out-C_in) and floored exactly.
**
** Arithmetic: because floor(x*) is not clamped to the grid it can reach
** (k-1) C_in, so f^2 C_out is NOT covered by rip_layer_derive's overflow
** bound (which has no C_in^2 term).  We therefore evaluate the algebraically
** identical rearrangement (f = floor(x*), rho = (k-1) C_in,
** alpha = C_out - C_in; expand (f+k-1)^2 = f^2 + 2f(k-1) + (k-1)^2 in Eq. 1)
**   D = H_out W_out C_out - H_in W_in C_in + k C_in + rho (k-1)
**       + f (2 rho - alpha f)
** in which alpha f <= rho, so f (2 rho - alpha f) is within a factor two of
** the result; its one multiplication and the final sum are overflow-checked,
** and the remaining terms are covered by the layer's bound.  If
** the exact value of Eq. 1 does not fit in int64_t (possible only for
** absurd C_in, e.g. C_in ~ 2^50), the formula is reported as not defined
** rather than returning a wrapped number.
*/
#include "formulas.h"

/*
** Contract: L derived.  Returns false (and leaves *out untouched) unless L
** is restricted and cout > cin and the value of Eq. 1 fits in int64_t;
** otherwise stores Eq. 1 in *out (it may exceed any physical footprint,
** see Limitation 2) and returns true.
*/
bool rip_gm2019_eq1(const rip_layer *L, int64_t *out)
{
    if (!rip_layer_is_restricted(L) || L->cout <= L->cin)
        return false;
    const int64_t k = L->k_h;
    const int64_t alpha = L->cout - L->cin;
    const int64_t rho = (k - 1) * L->cin;
    const int64_t f = rip_floor_div(rho, alpha);
    /* covered by rip_layer_derive's bound: */
    const int64_t base = L->h_out * L->w_out * L->cout - L->h_in * L->w_in * L->cin
                         + k * L->cin + rho * (k - 1);
    /* 0 <= alpha f <= rho, so alpha f and 2 rho - alpha f cannot overflow */
    int64_t tail, d;
    if (__builtin_mul_overflow(f, 2 * rho - alpha * f, &tail) ||
        __builtin_add_overflow(base, tail, &d))
        return false;
    *out = d;
    return true;
}
