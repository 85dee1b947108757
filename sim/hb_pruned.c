/*
** hb_pruned.c — the herringbone traversal after Appendix E.3's pruning
** step (configuration herringbone_pruned), both engines.
**
** E.3: "some input pixels are stale on arrival: no output ever depends on
** them.  A traversal that discards those before storing the input and then
** runs herringbone uses strictly less memory."  Reading (sim/README.md): the
** pool holds only the padded input scalars some output tap reads
** (rip_sim_read_scalars), plus delta free slots; the traversal is the
** herringbone order and each stored scalar is released by the window rule
** of herringbone_taps (the traversal the paper's Theorem 11 describes).  A
** stale scalar is never stored, so it neither takes a slot nor gives one
** back.  The run loops are hb_plain_run / hb_fast_run: only the release
** table differs (released_at_start is 0: nothing stored is stale).
**
** Plain: enumerate every channel of every tap of every output to mark the
** read scalars, and take each read scalar's window release step from a 2D
** prefix maximum of the visit times, one scalar at a time.  Fast: the read
** padded pixels are the product of the read rows and read columns
** (separable taps, readers.c) and the window release step is the visit
** time of the window corner (visit times are monotone, hb_fast.c), cin
** scalars per pixel.  The tests compare the two run by run.
*/
#include "sim_internal.h"

/*
** Contract (sim.h): the number of padded input scalars some output tap
** reads, h_read * w_read * cin with h_read (w_read) the padded rows
** (columns) some row (column) tap lands on.  -1 when L is NULL or memory
** for the two per-axis tables runs out.  L must be derived.
*/
int64_t rip_sim_read_scalars(const rip_layer *L)
{
    if (L == NULL)
        return -1;
    int64_t *row = rip_sim_alloc_i64_raw(L->h_p), *col = rip_sim_alloc_i64_raw(L->w_p), n = -1;
    if (row != NULL && col != NULL) {
        rip_axis_last_reader(L->h_p, L->h_out, L->k_h, L->s_h, L->d_h, row);
        rip_axis_last_reader(L->w_p, L->w_out, L->k_w, L->s_w, L->d_w, col);
        int64_t hr = 0, wr = 0;
        for (int64_t i = 0; i < L->h_p; i++)
            hr += row[i] >= 0;
        for (int64_t j = 0; j < L->w_p; j++)
            wr += col[j] >= 0;
        n = hr * wr * L->cin; /* <= n_in_padded < 2^62 */
    }
    free(row);
    free(col);
    return n;
}

/* Plain: per-scalar read mask and window release; fills s->released and
** s->n_stored.  Returns 0, or -1 when memory runs out.  Cost
** O(n_in_padded + n_pix*k_h*k_w*cin); 8*n_in_padded bytes temporary. */
static int pruned_plain_release(rip_sim *s)
{
    const rip_layer *L = &s->L;
    const int64_t H = L->h_out, W = L->w_out;
    int rc = -1;
    int64_t *read = rip_sim_alloc_i64(L->n_in_padded), *prefix = rip_sim_alloc_i64(s->n_pix);
    if (read == NULL || prefix == NULL)
        goto out;
    for (int64_t t = 0; t < s->n_pix; t++) {
        const int64_t r = s->order[t] / W, c = s->order[t] % W;
        for (int64_t a = 0; a < L->k_h; a++)
            for (int64_t b = 0; b < L->k_w; b++) {
                const int64_t base = ((r * L->s_h + a * L->d_h) * L->w_p + c * L->s_w + b * L->d_w) * L->cin;
                for (int64_t ch = 0; ch < L->cin; ch++)
                    read[base + ch] = 1;
            }
    }
    rip_plain_visit_prefix(s, prefix);
    s->n_stored = 0;
    int64_t x = 0;
    for (int64_t i = 0; i < L->h_p; i++)
        for (int64_t j = 0; j < L->w_p; j++)
            for (int64_t ch = 0; ch < L->cin; ch++, x++) {
                if (!read[x])
                    continue; /* pruned: never stored */
                const int64_t r = i / L->s_h < H - 1 ? i / L->s_h : H - 1;
                const int64_t c = j / L->s_w < W - 1 ? j / L->s_w : W - 1;
                s->released[prefix[r * W + c]]++;
                s->n_stored++;
            }
    rc = 0;
out:
    free(read);
    free(prefix);
    return rc;
}

/* Fast: read rows x read columns, released at the visit of the window
** corner.  Returns 0, or -1 when memory runs out.  Cost
** O(h_p*w_p + n_pix + h_out*k_h + w_out*k_w). */
static int pruned_fast_release(rip_sim *s)
{
    const rip_layer *L = &s->L;
    const int64_t W = L->w_out;
    int rc = -1;
    int64_t *vt = rip_sim_alloc_i64_raw(s->n_pix);
    int64_t *rowr = rip_sim_alloc_i64_raw(L->h_p), *colr = rip_sim_alloc_i64_raw(L->w_p);
    int64_t *roww = rip_sim_alloc_i64_raw(L->h_p), *colw = rip_sim_alloc_i64_raw(L->w_p);
    if (vt == NULL || rowr == NULL || colr == NULL || roww == NULL || colw == NULL)
        goto out;
    for (int64_t t = 0; t < s->n_pix; t++)
        vt[s->order[t]] = t;
    rip_axis_last_reader(L->h_p, L->h_out, L->k_h, L->s_h, L->d_h, rowr);
    rip_axis_last_reader(L->w_p, W, L->k_w, L->s_w, L->d_w, colr);
    rip_axis_window_corner(L->h_p, L->h_out, L->s_h, roww);
    rip_axis_window_corner(L->w_p, W, L->s_w, colw);
    /* a stale row or column is not stored: mark it so that it is not counted */
    for (int64_t i = 0; i < L->h_p; i++)
        roww[i] = rowr[i] < 0 ? -1 : roww[i];
    for (int64_t j = 0; j < L->w_p; j++)
        colw[j] = colr[j] < 0 ? -1 : colw[j];
    int64_t stale;
    rc = rip_release_by_corner(s, vt, roww, colw, &stale, &s->n_stored);
    s->released_at_start = 0;
out:
    free(vt);
    free(rowr);
    free(colr);
    free(roww);
    free(colw);
    return rc;
}

/*
** Fill s->order, s->released (released_at_start 0) and s->n_stored (the
** read scalars) for herringbone_pruned with s->engine.  Returns 0, or -1
** when memory runs out (tables left in s for rip_sim_free).
*/
int hb_pruned_build(rip_sim *s)
{
    /* order is written in full below; released is summed into (zeroed) */
    if ((s->order = rip_sim_alloc_i64_raw(s->n_pix)) == NULL || (s->released = rip_sim_alloc_i64(s->n_pix)) == NULL)
        return -1;
    if (rip_herringbone_order(s->L.h_out, s->L.w_out, s->order) != 0)
        return -1;
    s->released_at_start = 0;
    return s->engine == RIP_ENGINE_PLAIN ? pruned_plain_release(s) : pruned_fast_release(s);
}
