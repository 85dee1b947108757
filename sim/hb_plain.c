/*
** hb_plain.c — the plain (scalar by scalar) engine for the two herringbone
** configurations, and the run loop both herringbone engines share the
** semantics of.
**
** Pool: n_in_padded + delta slots, the padded input in n_in_padded of them,
** so delta are free.  Each output scalar written takes a free slot (none
** free: failure); after all cout writes of a step, the input scalars whose
** release time is that step give their slots back.
**
** Release time of an input scalar, computed here per scalar with no
** structure of the traversal assumed:
**   reader rule  the latest step at which an output with a tap on it is
**                visited, found by enumerating every channel of every tap
**                of every output; a scalar no tap touches is released
**                before the first write;
**   window rule  the latest step among the outputs whose window origin
**                (r*s_h, c*s_w) is <= its padded position on both axes,
**                i.e. r <= min(floor(i/s_h), h_out-1) and likewise c: an
**                up-left rectangle of the output grid, whose latest visit
**                is read off a 2D prefix maximum of the visit times.
** Nothing here depends on which order s->order is (herringbone, row-major
** or any permutation of the output pixels).
** The per-scalar times are then counted one scalar at a time into
** released[step] and dropped, so a run costs O(n_out), not O(n_in).
*/
#include "sim_internal.h"

/*
** prefix[r*w_out + c] = the latest visit step (s->order) among the outputs
** (r',c') <= (r,c) on both axes: the window rule's release step of an input
** whose window corner is (r,c).  prefix holds n_pix entries.  The plain
** engines' own computation (the fast one reads window corners instead).
*/
void rip_plain_visit_prefix(const rip_sim *s, int64_t *prefix)
{
    const int64_t H = s->L.h_out, W = s->L.w_out;
    for (int64_t t = 0; t < s->n_pix; t++)
        prefix[s->order[t]] = t;
    for (int64_t r = 0; r < H; r++)
        for (int64_t c = 0; c < W; c++) {
            int64_t m = prefix[r * W + c];
            if (r > 0 && prefix[(r - 1) * W + c] > m)
                m = prefix[(r - 1) * W + c];
            if (c > 0 && prefix[r * W + c - 1] > m)
                m = prefix[r * W + c - 1];
            prefix[r * W + c] = m;
        }
}

/*
** Fill s->released (and s->released_at_start) for the visiting order
** s->order, any permutation (exec.c sets it).  Returns 0, or
** -1 when memory runs out.  Cost O(n_in_padded + n_pix*k_h*k_w*cin) time
** (reader rule) or O(n_in_padded + n_pix) (window rule); peak memory
** 8*n_in_padded bytes for the per-scalar times plus O(n_pix) int64.
*/
int hb_plain_build(rip_sim *s)
{
    const rip_layer *L = &s->L;
    const int64_t H = L->h_out, W = L->w_out;
    int rc = -1;
    int64_t *prefix = NULL;
    /* Largest table first, each checked at once: a layer too large to
    ** simulate fails before anything big has been allocated and zeroed. */
    int64_t *when = rip_sim_alloc_i64(L->n_in_padded); /* release step per scalar */
    if (when == NULL || (s->released = rip_sim_alloc_i64(s->n_pix)) == NULL)
        goto out;

    if (s->exec == RIP_CONFIG_HB_TAPS_READER) {
        for (int64_t x = 0; x < L->n_in_padded; x++)
            when[x] = -1;
        for (int64_t t = 0; t < s->n_pix; t++) {
            const int64_t r = s->order[t] / W, c = s->order[t] % W;
            for (int64_t a = 0; a < L->k_h; a++)
                for (int64_t b = 0; b < L->k_w; b++) {
                    const int64_t i = r * L->s_h + a * L->d_h;
                    const int64_t j = c * L->s_w + b * L->d_w;
                    const int64_t base = (i * L->w_p + j) * L->cin;
                    for (int64_t ch = 0; ch < L->cin; ch++)
                        if (when[base + ch] < t)
                            when[base + ch] = t;
                }
        }
    } else {
        /* prefix[r*W + c] = latest visit among outputs (r',c') <= (r,c). */
        prefix = rip_sim_alloc_i64(s->n_pix);
        if (prefix == NULL)
            goto out;
        rip_plain_visit_prefix(s, prefix);
        int64_t x = 0;
        for (int64_t i = 0; i < L->h_p; i++)
            for (int64_t j = 0; j < L->w_p; j++)
                for (int64_t ch = 0; ch < L->cin; ch++, x++) {
                    int64_t r = i / L->s_h, c = j / L->s_w;
                    if (r > H - 1)
                        r = H - 1;
                    if (c > W - 1)
                        c = W - 1;
                    when[x] = prefix[r * W + c];
                }
    }

    s->released_at_start = 0;
    for (int64_t x = 0; x < L->n_in_padded; x++) {
        if (when[x] < 0)
            s->released_at_start++;
        else
            s->released[when[x]]++;
    }
    rc = 0;
out:
    free(when);
    free(prefix);
    return rc;
}

/*
** Run with gap delta, one slot per output scalar: the free count starts at
** delta (+ the scalars released before the first write); every write
** checks it and takes one; after step t's cout writes, released[t] come
** back.  Returns true iff no write finds the pool empty; rep gets the
** step and pixel of the first that does (address -1: a pool has none).
** Cost O(n_out).
*/
bool hb_plain_run(const rip_sim *s, int64_t delta, rip_run_report *rep)
{
    const rip_layer *L = &s->L;
    int64_t free_slots = rip_sat_add(delta, s->released_at_start);
    for (int64_t t = 0; t < s->n_pix; t++) {
        for (int64_t g = 0; g < L->cout; g++) {
            if (free_slots == 0) {
                rep->outcome = RIP_RUN_NO_SLOT;
                rep->step = t;
                rep->pixel_r = s->order[t] / L->w_out;
                rep->pixel_c = s->order[t] % L->w_out;
                rep->address = -1;
                return false;
            }
            free_slots--;
        }
        free_slots = rip_sat_add(free_slots, s->released[t]);
    }
    return true;
}
