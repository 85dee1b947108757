/*
** corollary1.c — the corrected restricted herringbone form, Corollary 1
** (Eqs. 2-3 of the RiP paper, proved in Appendix D.1).
**
** Equations (restricted setting, k = k_h = k_w, H_out = W_out):
**   alpha_hb = C_out - C_in,   rho = (k-1) C_in
**   alpha_hb <= 0:  D_hb = C_out
**   otherwise:
**     xhat = min(floor(rho / alpha_hb), W_out - 1)                     (Eq. 2)
**     D_hb = C_out (H_out W_out - xhat^2)
**          - C_in (H_in W_in - (xhat + k - 1)^2 - k)
**          + (rho - alpha_hb xhat)                                     (Eq. 3)
**
** Reading: the partial-leg remainder is written (rho - alpha_hb xhat) with
** the clamped xhat, as Eq. 3 states (it equals rho mod alpha_hb only when the
** clamp is inactive).  Defined iff the layer is restricted; the alpha <= 0
** branch covers C_out <= C_in.
*/
#include "formulas.h"

/*
** Contract: L derived.  Returns false (and leaves *out untouched) unless L
** is restricted; otherwise stores D_hb of Eqs. 2-3 and returns true.
*/
bool rip_corollary1(const rip_layer *L, int64_t *out)
{
    if (!rip_layer_is_restricted(L))
        return false;
    const int64_t alpha = L->cout - L->cin;
    if (alpha <= 0) {
        *out = L->cout;
        return true;
    }
    const int64_t k = L->k_h;
    const int64_t rho = (k - 1) * L->cin;
    int64_t xhat = rip_floor_div(rho, alpha);
    if (xhat > L->w_out - 1)
        xhat = L->w_out - 1;
    const int64_t xk = xhat + k - 1;
    *out = L->cout * (L->h_out * L->w_out - xhat * xhat)
         - L->cin * (L->h_in * L->w_in - xk * xk - k)
         + (rho - alpha * xhat);
    return true;
}
