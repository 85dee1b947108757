/*
** rip_fast.c — the fast (pixel by pixel) engine for the four row-major RiP
** configurations.  Same semantics as rip_plain.c, three observations apart:
**
** 1. All cin channels of an input pixel share their readers, and the set
**    of outputs reading padded (i,j) is rows(i) x cols(j) (readers.c).  In
**    row-major order its last member is maxrow(i)*w_out + maxcol(j), so the
**    last reader of every stored pixel costs O(1) from two axis tables.
** 2. At step q the live inputs are the stored pixels whose last reader is
**    > q (gather first) or >= q (taps).  Only the lowest of them matters:
**    first_live[t] = cin * min{ p : last(p) >= t }, the first scalar of the
**    lowest stored pixel still read at t, nondecreasing in t (found for
**    every t by a row pointer and a column table, rip_fast_build); gather
**    uses first_live[q+1], taps first_live[q].
** 3. Pixel q writes the contiguous range [q*cout, (q+1)*cout).  If no
**    earlier write failed, every live scalar sits at or above q*cout (the
**    earlier writes covered [0, q*cout) while those scalars were already
**    live), so the first failing write of step q, if any, is at
**        min(delta + first_live, workspace size)
**    and the step fails iff that is < (q+1)*cout.  The report therefore
**    names the same step and address as the plain engine's.
*/
#include "sim_internal.h"

/*
** Fill s->first_live[n_pix+1] and s->bound_gather, s->bound_taps.
** Returns 0, or -1 when memory runs out.
** Cost O(h_p + w_p + h_out*k_h + w_out*k_w + n_pix) time (a row pointer
** and one lookup per step, no per-pixel table); memory (h_p + w_p + w_out
** + n_pix + 1) int64, of which only first_live is kept.
*/
int rip_fast_build(rip_sim *s)
{
    const rip_layer *L = &s->L;
    const bool dense = (s->exec == RIP_CONFIG_DENSE_GATHER || s->exec == RIP_CONFIG_DENSE_TAPS);
    int rc = -1;
    int64_t *maxrow = NULL, *maxcol = NULL, *col_from = NULL;
    /* Largest table first, each checked at once: a layer too large to
    ** simulate fails before anything big has been allocated and zeroed. */
    int64_t *first = rip_sim_alloc_i64_raw(s->n_pix + 1); /* every entry set below */
    if (first == NULL || (maxrow = rip_sim_alloc_i64_raw(L->h_p)) == NULL ||
        (maxcol = rip_sim_alloc_i64_raw(L->w_p)) == NULL || (col_from = rip_sim_alloc_i64_raw(L->w_out)) == NULL)
        goto out;

    rip_axis_last_reader(L->h_p, L->h_out, L->k_h, L->s_h, L->d_h, maxrow);
    rip_axis_last_reader(L->w_p, L->w_out, L->k_w, L->s_w, L->d_w, maxcol);

    /* first[t] = min{ p : last(p) >= t } is nondecreasing in t.  Stored
    ** pixel (i,j) is last read at step maxrow(i)*w_out + maxcol(j) (-1:
    ** never read, dead from the start).  Stored pixel rows/columns are in
    ** padded coordinates: the dense layout stores only the real pixels,
    ** which start at (p_top, p_left).
    ** Row i holds a pixel live at t iff maxrow(i)*w_out + colmax >= t
    ** (colmax: the largest last-reader column of any stored column), so
    ** the lowest live row is found by a pointer that only moves down as t
    ** grows.  In that row the lowest live pixel is the first column whose
    ** last-reader column reaches thr = t - maxrow(i)*w_out: col_from[thr],
    ** the first column where the running maximum of maxcol reaches thr,
    ** tabulated once per layout.  Cost O(n_pix + h_p + w_p), not O(h_p*w_p).
    ** After it, the one-pass gap of both liveness tests (bound.c): step q
    ** fails iff (q+1)*cout exceeds delta + first, with first =
    ** first[q+1] (gather) or first[q] (taps), or delta + n_stored, which
    ** binds hardest at the last step. */
    const int64_t i0 = dense ? L->p_top : 0, i1 = dense ? L->p_top + L->h_in : L->h_p;
    const int64_t j0 = dense ? L->p_left : 0, j1 = dense ? L->p_left + L->w_in : L->w_p;
    const int64_t cout = L->cout, cin = L->cin, w_out = L->w_out;
    int64_t bg = L->n_out - s->n_stored, bt = bg;
    /* col_from[v]: the first scalar, relative to its row's, of the first
    ** stored column whose running maximum of maxcol reaches v */
    int64_t colmax = -1;
    for (int64_t jj = j0, v = 0; jj < j1; jj++) {
        colmax = maxcol[jj] > colmax ? maxcol[jj] : colmax;
        while (v <= colmax)              /* colmax < w_out: v stays in the table */
            col_from[v++] = (jj - j0) * cin;
    }
    /* row by row: row i is the lowest live one from where the rows above
    ** it died up to its own last step base + colmax; within it, thr is 0
    ** up to step base and t - base after */
    int64_t t = 0;
    for (int64_t i = i0; i < i1 && colmax >= 0 && t <= s->n_pix; i++) {
        if (maxrow[i] < 0)
            continue;                    /* never read: dead from the start */
        const int64_t base = maxrow[i] * w_out, row = (i - i0) * (j1 - j0) * cin;
        const int64_t end = base + colmax < s->n_pix ? base + colmax : s->n_pix;
        for (; t <= end && t <= base; t++)
            first[t] = row + col_from[0];
        for (; t <= end; t++)
            first[t] = row + col_from[t - base];
    }
    s->first_none = t;                   /* nothing is live from step t on (n_pix + 1: always some) */
    for (; t <= s->n_pix; t++)
        first[t] = RIP_SIM_NONE;
    /* the bounds in a loop of their own (no branches: the compiler keeps it in registers) */
    for (int64_t t = 0; t <= s->n_pix && first[t] != RIP_SIM_NONE; t++) {
        const int64_t lim = first[t];
        const int64_t g = t >= 1 ? t * cout - lim : bg, k = t < s->n_pix ? (t + 1) * cout - lim : bt;
        bg = g > bg ? g : bg;                    /* gather, step t-1 */
        bt = k > bt ? k : bt;                    /* taps, step t */
    }
    s->bound_gather = bg > 0 ? bg : 0;
    s->bound_taps = bt > 0 ? bt : 0;

    s->first_live = first;
    first = NULL;
    rc = 0;
out:
    free(maxrow);
    free(maxcol);
    free(col_from);
    free(first);
    return rc;
}

/*
** Run with gap delta, one check per output pixel (observation 3 above).
** Returns true iff the traversal completes; rep gets the first failing
** write exactly as rip_plain_run() would report it.  Cost O(n_pix).
*/
bool rip_fast_run(const rip_sim *s, int64_t delta, rip_run_report *rep)
{
    const rip_layer *L = &s->L;
    const int64_t ws = rip_sat_add(delta, s->n_stored);
    const int64_t *first = s->first_live + (s->taps ? 0 : 1);
    /* The step passes iff end <= delta + first and end <= ws (first: the
    ** lowest live stored scalar).  With delta <= 2^62 (every gap a search
    ** tries: <= N_out) and first < n_stored <= 2^62 nothing overflows, so
    ** the hot loop needs no saturation; a larger delta takes the
    ** saturating loop below. */
    int64_t q = 0;
    if (delta <= (INT64_C(1) << 62)) {
        /* Before the first step with nothing live (q_none) and the first
        ** whose writes end past the workspace (q_ws), a step passes iff
        ** its end - delta <= first: one comparison per step.  The
        ** loop below takes the steps from there on, which are few (the
        ** traversal's tail) or fail at once. */
        const int64_t cout = L->cout;
        const int64_t q_none = s->first_none - (s->taps ? 0 : 1), q_ws = ws / cout;
        int64_t stop = q_none < q_ws ? q_none : q_ws;
        stop = stop < s->n_pix ? stop : s->n_pix;
        for (; q < stop; q++)
            if ((q + 1) * cout - delta > first[q])
                break;
        if (q == s->n_pix)
            return true;
    }
    for (; q < s->n_pix; q++) {
        const int64_t end = (q + 1) * L->cout;
        const int64_t live = first[q] == RIP_SIM_NONE ? RIP_SIM_NONE
                                                     : rip_sat_add(delta, first[q]);
        if (end <= ws && end <= live)
            continue;
        /* A live scalar is below ws, so when both bound the step the
        ** corruption comes first. */
        int64_t addr = live < ws ? live : ws;
        if (addr < q * L->cout) /* unreachable without an earlier failure */
            addr = q * L->cout;
        rep->outcome = live < ws && live < end ? RIP_RUN_CORRUPTION : RIP_RUN_OVERFLOW;
        rep->step = q;
        rep->pixel_r = q / L->w_out;
        rep->pixel_c = q % L->w_out;
        rep->address = addr;
        return false;
    }
    return true;
}
