/*
** thm13.c — minimum gap of Right In-Place convolution when padding is not
** materialized (dense layout): Lemma 12 and Theorem 13, Appendix F of the
** RiP paper.
**
** Layout (Eq. 39): Delta slack scalars, then only the real H_in x W_in x C_in
** input packed row-major, real pixel (i,j) at Delta + (i W_in + j) C_in; a
** tap outside [0,H_in) x [0,W_in) reads an implicit pad value and touches no
** address.  Output pixel (r,c) is written row-major at (r W_out + c) C_out.
**
**   NLI(r,c) = Delta + (rbar W_in + cbar) C_in   if (r,c) is not the last
**            = +inf                               otherwise         (Eq. 40)
**   D(r,c)   = (r W_out + c + 1) C_out - (rbar W_in + cbar) C_in + sigma
**                                                                   (Eq. 41)
**            = sigma on the last pixel (the +inf branch, as in Eq. 8)
**   Lemma 12 crossings, column tap i in [0,k_w):
**     enter_i = ceil((p_w - i d_w) / s_w),
**     leave_i = ceil((p_w - i d_w + W_in - 1) / s_w);
**   rows analogous with tap j in [0,k_h), p_h, d_h, s_h, H_in.
**   R_s = {0, H_out-2, H_out-1} u {enter_j, enter_j - 1, leave_j, leave_j - 1}
**   C_s = {0, W_out-2, W_out-1} u {enter_i, enter_i - 1, leave_i, leave_i - 1}
**   both clipped to the grid and deduplicated;
**   Delta*_d = max( max_{(r,c) in R_s x C_s} D(r,c),  N_out - H_in W_in C_in )
**   defined when p_h < k_h^eff and p_w < k_w^eff.              (Theorem 13)
**
** Readings chosen where the paper is ambiguous:
**   - (rbar, cbar).  F.1 defines it as "the first real pixel still required by
**     an unprocessed output".  We read "first" as the minimum in row-major
**     flat order i W_in + j over ALL real input pixels read by ANY output
**     after (r,c) in row-major order -- not the first real tap of the next
**     output pixel: with dilation the tap order can be non-monotone, and a
**     later output may read a lower column than the next one.  An output's
**     reads are a product Rows(r') x Cols(c'), where
**       Rows(r') = {r' s_h + a d_h - p_top : a in [0,k_h)} n [0,H_in)
**       Cols(c') = {c' s_w + b d_w - p_left : b in [0,k_w)} n [0,W_in),
**     and the unprocessed set is {(r,c') : c' > c} u {(r',c') : r' > r}, so
**       A = min Rows(r) W_in + min U_{c' > c} Cols(c')      (same row)
**       B = min U_{r' > r} Rows(r') W_in + min U_{c'} Cols(c') (later rows)
**     (each only when both of its sets are non-empty) and rbar W_in + cbar =
**     min(A, B).  min U_{c' >= c0} Cols(c') is found per tap b in O(1): the
**     smallest c' >= c0 reaching the real region is
**     c'_b = max(c0, ceil((p_left - b d_w)/s_w)), usable when
**     c'_b <= W_out - 1 and its column is < W_in.  So D costs O(k_h + k_w).
**   - If no unprocessed output reads any real pixel (possible under the
**     precondition with dilation, e.g. the F.4 example), nothing is live and
**     D(r,c) = sigma, as on the last pixel.
**   - Padding per side: the precondition "p < k_eff on both axes" is read
**     per side (p_top, p_bottom < keff_h and p_left, p_right < keff_w).  The
**     crossing indices use the top/left padding, the offset of the first real
**     pixel (sim/README.md, "Geometry"); H_out, W_out already include the
**     bottom/right padding.
**   - "Clipped to the grid" is a clamp into [0, H_out-1] / [0, W_out-1];
**     a clamped index duplicates an endpoint already in R_s / C_s, so clamping
**     and discarding agree.  The breakpoints are enumerated in increasing
**     order without duplicates, with no allocation.
**   - The crossing formulas of Lemma 12 are used exactly as stated (in
**     particular leave_i uses W_in - 1); whether these breakpoints suffice is
**     checked, not assumed, by tests/test_formulas.c.
*/
#include "formulas.h"
#include "thm13_debt.h"

#include <string.h>

/* One spatial axis of the layer. */
typedef struct axis {
    int64_t n_out, n_in, k, s, d, pad;
} axis;

static axis rows_of(const rip_layer *L)
{
    axis a = {L->h_out, L->h_in, L->k_h, L->s_h, L->d_h, L->p_top};
    return a;
}

static axis cols_of(const rip_layer *L)
{
    axis a = {L->w_out, L->w_in, L->k_w, L->s_w, L->d_w, L->p_left};
    return a;
}

/*
** Smallest real index (in [0, n_in)) read on this axis by any output index
** in [o0, o1]; -1 when no such output reads a real index.  O(k).
*/
static int64_t axis_min_read(const axis *a, int64_t o0, int64_t o1)
{
    int64_t best = -1;
    if (o0 < 0)
        o0 = 0;
    if (o1 > a->n_out - 1)
        o1 = a->n_out - 1;
    if (o0 > o1)
        return -1;
    for (int64_t b = 0; b < a->k; b++) {
        int64_t o = rip_ceil_div(a->pad - b * a->d, a->s);
        if (o < o0)
            o = o0;
        if (o > o1)
            continue;
        const int64_t v = o * a->s + b * a->d - a->pad;
        if (v >= a->n_in)
            continue;
        if (best < 0 || v < best)
            best = v;
    }
    return best;
}

/*
** The four axis minima that first_live() combines for pixel (r,c): the
** smallest real row read by output row r and by the rows after it, the
** smallest real column read by the columns after c and by any column
** (axis_min_read, -1 where none).
*/
typedef struct live_parts {
    int64_t row_self, row_later, col_rest, col_all;
} live_parts;

/* Flat index rbar W_in + cbar of Eq. 40 from its parts, or -1 when nothing is live. */
static int64_t first_live(const rip_layer *L, const live_parts *m)
{
    int64_t best = -1;
    if (m->row_self >= 0 && m->col_rest >= 0)       /* rest of row r */
        best = m->row_self * L->w_in + m->col_rest;
    if (m->row_later >= 0 && m->col_all >= 0) {     /* all later rows */
        const int64_t f = m->row_later * L->w_in + m->col_all;
        if (best < 0 || f < best)
            best = f;
    }
    return best;
}

/* D(r,c) of Eq. 41 from the parts of first_live. */
static int64_t debt(const rip_layer *L, int64_t sigma, int64_t r, int64_t c, const live_parts *m)
{
    if (r == L->h_out - 1 && c == L->w_out - 1)
        return sigma;
    const int64_t f = first_live(L, m);
    if (f < 0)
        return sigma;
    return (r * L->w_out + c + 1) * L->cout - f * L->cin + sigma;
}

int64_t rip_thm13_debt(const rip_layer *L, rip_tap_order order, int64_t r, int64_t c)
{
    const axis ra = rows_of(L), ca = cols_of(L);
    /* axis_min_read gives -1 for an empty range (c = W_out-1, r = H_out-1) */
    const live_parts m = {axis_min_read(&ra, r, r), axis_min_read(&ra, r + 1, L->h_out - 1),
                          axis_min_read(&ca, c + 1, L->w_out - 1), axis_min_read(&ca, 0, L->w_out - 1)};
    return debt(L, order == RIP_SIGMA_TAPS ? L->cout : 0, r, c, &m);
}

/* i-th breakpoint candidate on an axis, i in [0, 3 + 4k), clamped. */
static int64_t breakpoint(const axis *a, int64_t i)
{
    int64_t v;
    if (i < 3) {
        v = i == 0 ? 0 : a->n_out - 3 + i;   /* 0, n_out-2, n_out-1 */
    } else {
        const int64_t t = (i - 3) / 4, kind = (i - 3) % 4;
        const int64_t enter = rip_ceil_div(a->pad - t * a->d, a->s);
        const int64_t leave = rip_ceil_div(a->pad - t * a->d + a->n_in - 1, a->s);
        v = kind == 0 ? enter : kind == 1 ? enter - 1 : kind == 2 ? leave : leave - 1;
    }
    return v < 0 ? 0 : v > a->n_out - 1 ? a->n_out - 1 : v;
}

/* Smallest breakpoint > prev, or -1: enumerates the set sorted, unique. */
static int64_t next_breakpoint(const axis *a, int64_t prev)
{
    int64_t best = -1;
    const int64_t n = 3 + 4 * a->k;
    for (int64_t i = 0; i < n; i++) {
        const int64_t v = breakpoint(a, i);
        if (v > prev && (best < 0 || v < best))
            best = v;
    }
    return best;
}

/* Breakpoints held on the stack; an axis with more candidates (k > 31) is enumerated by next_breakpoint. */
#define MAX_BREAKPOINTS 128

/* The axis's breakpoints, sorted and unique, into bp[]; their count, or -1 when there may be too many. */
static int breakpoints(const axis *a, int64_t bp[MAX_BREAKPOINTS])
{
    if (a->k > (MAX_BREAKPOINTS - 3) / 4)
        return -1;
    int n = 0;
    for (int64_t i = 0; i < 3 + 4 * a->k; i++) {   /* insertion into the sorted prefix */
        const int64_t v = breakpoint(a, i);
        int j = n;
        while (j > 0 && bp[j - 1] > v)
            j--;
        if (j > 0 && bp[j - 1] == v)
            continue;
        memmove(bp + j + 1, bp + j, (size_t)(n - j) * sizeof *bp);
        bp[j] = v;
        n++;
    }
    return n;
}

/*
** Contract: L derived; order selects sigma (Eq. 6).  Returns false (and
** leaves *out untouched) unless p_top, p_bottom < keff_h and p_left,
** p_right < keff_w; otherwise stores Delta*_d of Theorem 13 (in scalars,
** >= sigma) and returns true.  Cost O((k_h + k_w) k + k_h k_w): each
** breakpoint's axis minima are found once, then D is O(1) per pair.
*/
bool rip_thm13(const rip_layer *L, rip_tap_order order, int64_t *out)
{
    if (L->p_top >= L->keff_h || L->p_bottom >= L->keff_h ||
        L->p_left >= L->keff_w || L->p_right >= L->keff_w)
        return false;
    const axis ra = rows_of(L), ca = cols_of(L);
    const int64_t sigma = order == RIP_SIGMA_TAPS ? L->cout : 0;
    int64_t best = L->n_out - L->n_in_dense;
    int64_t rb[MAX_BREAKPOINTS], cb[MAX_BREAKPOINTS];
    const int nr = breakpoints(&ra, rb), nc = breakpoints(&ca, cb);
    if (nr < 0 || nc < 0) {   /* a very large kernel: the same set, enumerated */
        for (int64_t r = next_breakpoint(&ra, -1); r >= 0; r = next_breakpoint(&ra, r))
            for (int64_t c = next_breakpoint(&ca, -1); c >= 0; c = next_breakpoint(&ca, c)) {
                const int64_t d = rip_thm13_debt(L, order, r, c);
                if (d > best)
                    best = d;
            }
        *out = best;
        return true;
    }
    int64_t col_rest[MAX_BREAKPOINTS];
    const int64_t col_all = axis_min_read(&ca, 0, L->w_out - 1);
    for (int j = 0; j < nc; j++)
        col_rest[j] = axis_min_read(&ca, cb[j] + 1, L->w_out - 1);
    for (int i = 0; i < nr; i++) {
        live_parts m = {axis_min_read(&ra, rb[i], rb[i]), axis_min_read(&ra, rb[i] + 1, L->h_out - 1), 0, col_all};
        for (int j = 0; j < nc; j++) {
            m.col_rest = col_rest[j];
            const int64_t d = debt(L, sigma, rb[i], cb[j], &m);
            if (d > best)
                best = d;
        }
    }
    *out = best;
    return true;
}
