/*
** readers.c — who reads an input position, one axis at a time.
**
** A convolution's reader relation is separable: output (r,c) reads padded
** position (i,j) iff some row tap of r lands on i and some column tap of c
** lands on j.  The set of outputs reading (i,j) is therefore the product
** rows(i) x cols(j), and everything the fast engines need about it (its
** largest member on each axis, or the window corner) is a per-axis table.
** The plain engines do not use this file: they enumerate taps themselves.
*/
#include "sim_internal.h"

/*
** last[i] for i in [0,n_pos): the largest output o in [0,n_out) with a tap
** a in [0,k) such that o*s + a*d == i, or -1 if no tap of any output lands
** on i.  Outputs are visited in increasing o, so the last assignment is the
** largest reader.  Cost O(n_pos + n_out*k).  The caller guarantees
** (n_out-1)*s + (k-1)*d < n_pos (that is how n_out is derived).
*/
void rip_axis_last_reader(int64_t n_pos, int64_t n_out, int64_t k, int64_t s, int64_t d,
                          int64_t *last)
{
    for (int64_t i = 0; i < n_pos; i++)
        last[i] = -1;
    for (int64_t o = 0; o < n_out; o++)
        for (int64_t a = 0; a < k; a++)
            last[o * s + a * d] = o;
}

/*
** corner[i] = min(floor(i/s), n_out-1): the last output whose window origin
** o*s is <= i.  Every position has one (o = 0 qualifies), so the window
** rule releases every input, read or not.  Cost O(n_pos).
*/
void rip_axis_window_corner(int64_t n_pos, int64_t n_out, int64_t s, int64_t *corner)
{
    for (int64_t i = 0; i < n_pos; i++) {
        int64_t o = i / s;
        corner[i] = o < n_out - 1 ? o : n_out - 1;
    }
}
