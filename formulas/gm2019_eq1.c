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
** defined iff the layer is restricted and C_out > C_in (DESIGN.md).  No clamp
** of floor(x*) to the output grid is applied: Limitation 2 of the paper is
** precisely that the published form evaluates the square outside the grid,
** and this file reproduces the published form, not a corrected one.
** x* is kept as the fraction (k-1)C_in / (C_out-C_in) and floored exactly.
*/
#include "formulas.h"

/*
** Contract: L derived.  Returns false (and leaves *out untouched) unless L
** is restricted and cout > cin; otherwise stores Eq. 1 in *out (may exceed
** any physical footprint, see Limitation 2) and returns true.
*/
bool rip_gm2019_eq1(const rip_layer *L, int64_t *out)
{
    if (!rip_layer_is_restricted(L) || L->cout <= L->cin)
        return false;
    const int64_t k = L->k_h;
    const int64_t f = rip_floor_div((k - 1) * L->cin, L->cout - L->cin);
    const int64_t fk = f + k - 1;
    *out = (L->h_out * L->w_out - f * f) * L->cout
         - (L->h_in * L->w_in - fk * fk - k) * L->cin;
    return true;
}
