/*
** herringbone_order.c — the herringbone visiting order of an output grid
** (sim/README.md, "Herringbone"; paper Eq. 25, Lemma 10).
**
** With M, n the longer and shorter output axes, the legs are
**   maj(M), min(n-1), maj(M-1), min(n-2), ..., min(1), maj(M-n+1).
** W >= H (rows major): major leg i is row i, columns i..W-1 left to right;
** minor leg i is column i, rows i+1..H-1 top to bottom.
** H > W (columns major): major leg i is column i, rows i..H-1 top to
** bottom; minor leg i is row i, columns i+1..W-1 left to right.
** Major leg i has length M-i (i = 0..n-1) and minor leg i length n-1-i
** (i = 0..n-2): the sequence above, which covers the grid exactly once
** (pixel (r,c) with r <= c lies on major leg r, one with r > c on minor
** leg c, in the rows-major case; symmetric otherwise).
** Also the row-major order: the two are instances of the visiting order
** the herringbone engines take (rip_sim_new_order).
*/
#include "sim.h"

/*
** Contract (sim.h): writes the h_out*w_out pixel indices r*w_out + c in
** visit order into order[].  Returns 0, or -1 (order untouched) if h_out or
** w_out < 1 or order is NULL.  Cost O(h_out*w_out).
*/
int rip_herringbone_order(int64_t h_out, int64_t w_out, int64_t *order)
{
    if (h_out < 1 || w_out < 1 || order == NULL)
        return -1;
    int64_t k = 0;
    if (w_out >= h_out) {
        for (int64_t i = 0; i < h_out; i++) {
            for (int64_t c = i; c < w_out; c++)       /* major leg i: row i */
                order[k++] = i * w_out + c;
            for (int64_t r = i + 1; r < h_out; r++)   /* minor leg i: column i */
                order[k++] = r * w_out + i;
        }
    } else {
        for (int64_t i = 0; i < w_out; i++) {
            for (int64_t r = i; r < h_out; r++)       /* major leg i: column i */
                order[k++] = r * w_out + i;
            for (int64_t c = i + 1; c < w_out; c++)   /* minor leg i: row i */
                order[k++] = i * w_out + c;
        }
    }
    return 0;
}

/* Contract (sim.h): 0, 1, ..., h_out*w_out - 1; -1 as above. */
int rip_row_major_order(int64_t h_out, int64_t w_out, int64_t *order)
{
    if (h_out < 1 || w_out < 1 || order == NULL)
        return -1;
    for (int64_t q = 0; q < h_out * w_out; q++)
        order[q] = q;
    return 0;
}
