/*
** hb_fast.c — the fast (pixel by pixel) engine for the two herringbone
** configurations.  Same semantics as hb_plain.c, computed per input pixel
** (its cin channels share a release time) and checked per output pixel.
**
** Why a single table lookup gives the release time: the visit time vt(r,c)
** of the herringbone order is non-decreasing in r and in c.  (Rows major,
** W >= H: pixel (r,c) lies on leg 2r at position c-r if r <= c, else on
** leg 2c+1 at position r-c-1; legs are visited in index order.  Raising r
** or c either stays on the same leg further along or moves to a later leg;
** columns major is the mirror image.)  Hence
**   window rule  max vt over the rectangle r <= R, c <= C is vt(R,C), with
**                R = min(floor(i/s_h), h_out-1), C likewise (readers.c);
**   reader rule  max vt over rows(i) x cols(j) is vt(maxrow(i), maxcol(j)),
**                and an empty product means never read.
** The plain engine assumes none of this (prefix-max DP, tap enumeration),
** so the tests that compare the two also check the argument.  The same
** holds for the row-major order; exec.c checks the property on the order
** it is given, and any other order takes release_any_order().
*/
#include "sim_internal.h"

/*
** released[] for an order whose visit times are not monotone along rows
** and columns (exec.c decides), where the corner lookup would be wrong:
** per input pixel, the latest visit of the outputs that read it (reader
** rule: every tap of every output enumerated, cost O(n_pix*k_h*k_w)) or of
** the up-left rectangle of its window corner (window rule: a 2D prefix
** maximum of vt, cost O(n_pix)).  vt is the visit time per output pixel;
** rowt, colt the per-axis corner tables of the window rule (unused by the
** reader rule).  The prefix maximum is written over vt.  Returns 0, or -1
** when memory runs out.  Cost also O(h_p*w_p).
*/
static int release_any_order(rip_sim *s, int64_t *vt, const int64_t *rowt, const int64_t *colt)
{
    const rip_layer *L = &s->L;
    const int64_t H = L->h_out, W = L->w_out;
    s->released_at_start = 0;
    if (s->exec == RIP_CONFIG_HB_TAPS_READER) {
        int64_t *last = rip_sim_alloc_i64_raw(L->h_p * L->w_p); /* h_p*w_p <= n_in_padded, no overflow */
        if (last == NULL)
            return -1;
        for (int64_t x = 0; x < L->h_p * L->w_p; x++)
            last[x] = -1;
        for (int64_t r = 0; r < H; r++)
            for (int64_t c = 0; c < W; c++)
                for (int64_t a = 0; a < L->k_h; a++)
                    for (int64_t b = 0; b < L->k_w; b++) {
                        const int64_t x = (r * L->s_h + a * L->d_h) * L->w_p + c * L->s_w + b * L->d_w;
                        if (last[x] < vt[r * W + c])
                            last[x] = vt[r * W + c];
                    }
        for (int64_t x = 0; x < L->h_p * L->w_p; x++) {
            if (last[x] < 0)
                s->released_at_start += L->cin;
            else
                s->released[last[x]] += L->cin;
        }
        free(last);
        return 0;
    }
    for (int64_t r = 0; r < H; r++)
        for (int64_t c = 0; c < W; c++) {
            if (r > 0 && vt[(r - 1) * W + c] > vt[r * W + c])
                vt[r * W + c] = vt[(r - 1) * W + c];
            if (c > 0 && vt[r * W + c - 1] > vt[r * W + c])
                vt[r * W + c] = vt[r * W + c - 1];
        }
    for (int64_t i = 0; i < L->h_p; i++)
        for (int64_t j = 0; j < L->w_p; j++)
            s->released[vt[rowt[i] * W + colt[j]]] += L->cin;
    return 0;
}

/*
** Fill s->released and s->released_at_start for the release rule of
** s->exec, from s->order (already filled); used by hb_fast_build and again
** by rip_sim_retarget() between the two rules.  Returns 0, or -1 when
** memory runs out (s->released then holds nothing meaningful).  Cost
** O(h_p*w_p + n_pix + h_out*k_h + w_out*k_w) time, O(h_p + w_p + n_pix)
** int64 of temporary memory.
*/
int rip_release_by_corner(rip_sim *s, const int64_t *vt, const int64_t *rowt, const int64_t *colt,
                          int64_t *at_start, int64_t *placed)
{
    const rip_layer *L = &s->L;
    const int64_t H = L->h_out, W = L->w_out;
    int64_t *nr = rip_sim_alloc_i64(H), *nc = rip_sim_alloc_i64(W); /* zeroed */
    int64_t neg_r = 0, neg_c = 0;
    int rc = -1;
    if (nr == NULL || nc == NULL)
        goto out;
    for (int64_t i = 0; i < L->h_p; i++) {
        if (rowt[i] < 0)
            neg_r++;
        else
            nr[rowt[i]]++;
    }
    for (int64_t j = 0; j < L->w_p; j++) {
        if (colt[j] < 0)
            neg_c++;
        else
            nc[colt[j]]++;
    }
    /* pixels with a negative row or column: all of those rows, and the other rows' negative columns */
    *at_start = (neg_r * L->w_p + (L->h_p - neg_r) * neg_c) * L->cin;
    *placed = (L->h_p - neg_r) * (L->w_p - neg_c) * L->cin;
    for (int64_t r = 0; r < H; r++) {
        if (nr[r] == 0)
            continue;
        const int64_t per = nr[r] * L->cin;
        for (int64_t c = 0; c < W; c++)
            s->released[vt[r * W + c]] += per * nc[c];
    }
    rc = 0;
out:
    free(nr);
    free(nc);
    return rc;
}

int hb_fast_release(rip_sim *s)
{
    const rip_layer *L = &s->L;
    const int64_t W = L->w_out;
    const bool reader = (s->exec == RIP_CONFIG_HB_TAPS_READER);
    int rc = -1;
    int64_t *vt = NULL;   /* visit step per output pixel */
    int64_t *rowt = NULL; /* output row per input row */
    int64_t *colt = NULL; /* output column per input column */
    /* all written in full below: order is a permutation of the pixels */
    if ((vt = rip_sim_alloc_i64_raw(s->n_pix)) == NULL || (rowt = rip_sim_alloc_i64_raw(L->h_p)) == NULL ||
        (colt = rip_sim_alloc_i64_raw(L->w_p)) == NULL)
        goto out;
    for (int64_t t = 0; t < s->n_pix; t++) {
        vt[s->order[t]] = t;
        s->released[t] = 0;
    }

    if (reader) {
        rip_axis_last_reader(L->h_p, L->h_out, L->k_h, L->s_h, L->d_h, rowt);
        rip_axis_last_reader(L->w_p, W, L->k_w, L->s_w, L->d_w, colt);
    } else {
        rip_axis_window_corner(L->h_p, L->h_out, L->s_h, rowt);
        rip_axis_window_corner(L->w_p, W, L->s_w, colt);
    }

    if (!s->order_monotone) {
        rc = release_any_order(s, vt, rowt, colt);
        goto out;
    }
    int64_t placed;
    rc = rip_release_by_corner(s, vt, rowt, colt, &s->released_at_start, &placed);
out:
    free(rowt);
    free(colt);
    free(vt);
    return rc;
}

/*
** Fill s->released, s->released_at_start for the order s->order (set by
** exec.c).  Returns 0, or -1 when memory runs out.  Cost as hb_fast_release.
*/
int hb_fast_build(rip_sim *s)
{
    if ((s->released = rip_sim_alloc_i64_raw(s->n_pix)) == NULL) /* zeroed by hb_fast_release */
        return -1;
    return hb_fast_release(s);
}

/*
** Run with gap delta, one check per output pixel: step t needs cout free
** slots; with f < cout free, its write gamma = f is the first to find the
** pool empty.  Returns true iff the traversal completes; rep as in
** hb_plain_run().  Cost O(n_pix).
*/
bool hb_fast_run(const rip_sim *s, int64_t delta, rip_run_report *rep)
{
    const int64_t cout = s->L.cout;
    int64_t t = 0;
    if (delta < (INT64_C(1) << 62)) {
        /* the pool never holds more than delta + every stored scalar
        ** (< 2^62 each, rip_sim_new): plain sums cannot overflow */
        int64_t free_slots = delta + s->released_at_start;
        for (; t < s->n_pix && free_slots >= cout; t++)
            free_slots += s->released[t] - cout;
    } else {
        int64_t free_slots = rip_sat_add(delta, s->released_at_start);
        for (; t < s->n_pix && free_slots >= cout; t++)
            free_slots = rip_sat_add(free_slots - cout, s->released[t]);
    }
    if (t == s->n_pix)
        return true;
    rep->outcome = RIP_RUN_NO_SLOT;
    rep->step = t;
    rep->pixel_r = s->order[t] / s->L.w_out;
    rep->pixel_c = s->order[t] % s->L.w_out;
    rep->address = -1;
    return false;
}
