/*
** thm14_resample.c — workspaces of the resampling operators of Appendix I.1.
**
** Upsampling, Theorem 14: nearest-neighbour upsampling by an integer factor
** S >= 1 of an h x w x c tensor, input packed left-aligned, output written
** left-aligned from index 0, reverse row-major traversal.  No write reaches
** a live input with Delta = 0, so the workspace is the output alone:
**   W* = N_out = (S h)(S w) c   (= max(N_out, N_in) since S >= 1).
**
** Pooling (paragraph after Theorem 14): C_out = C_in and s >= 1 give
** alpha <= 0 and beta <= 0 in Theorem 4, so the forward traversal needs only
** W* = max(N_out, N_in), N_in being the stored input.  (Theorem 4 itself
** adds the production-order headroom sigma; the paper's statement is the
** gather-first one, sigma = 0, which is what this function returns.)
*/
#include "formulas.h"

static bool mul_ok(int64_t a, int64_t b, int64_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

/*
** Contract: h, w, c, S >= 1; returns (S h)(S w) c, or -1 when any argument
** is < 1 or the product overflows int64_t.
*/
int64_t rip_upsample_workspace(int64_t h, int64_t w, int64_t c, int64_t S)
{
    if (h < 1 || w < 1 || c < 1 || S < 1)
        return -1;
    int64_t sh, sw, hw, n;
    if (!mul_ok(S, h, &sh) || !mul_ok(S, w, &sw) || !mul_ok(sh, sw, &hw) ||
        !mul_ok(hw, c, &n))
        return -1;
    return n;
}

/* Contract: n_in, n_out >= 0; returns max(n_in, n_out), or -1 if either is
** negative. */
int64_t rip_pool_workspace(int64_t n_in, int64_t n_out)
{
    if (n_in < 0 || n_out < 0)
        return -1;
    return n_in > n_out ? n_in : n_out;
}
