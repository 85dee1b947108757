/*
** layer.h — the geometry of one convolution layer (sim/README.md, "Geometry").
**
** A layer is the twelve user-facing numbers of the README's JSON `layer` object plus per-side
** padding.  rip_layer_derive() checks it and fills the derived sizes; every
** other module (formulas/, sim/, sweeps/, src/) takes a derived layer and may
** assume the invariants listed below.  All quantities are int64_t scalars:
** one scalar = one activation element.
**
** Invariants after a successful rip_layer_derive():
**   - cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w >= 1;
**   - p_top, p_bottom, p_left, p_right >= 0;
**   - h_out, w_out >= 1;
**   - every size and every product the closed forms build from them
**     (see rip_layer_derive) fits in int64_t with headroom, so callers may
**     multiply derived sizes pairwise as documented there without checking.
*/
#ifndef RIPSIM_LAYER_H
#define RIPSIM_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rip_layer {
    /* user-facing parameters */
    int64_t cin, cout;
    int64_t h_in, w_in;
    int64_t k_h, k_w;
    int64_t s_h, s_w;
    int64_t d_h, d_w;
    int64_t p_top, p_bottom, p_left, p_right;

    /* derived by rip_layer_derive() */
    int64_t keff_h, keff_w;  /* d(k-1)+1 */
    int64_t h_p, w_p;        /* padded extents: h_in + p_top + p_bottom */
    int64_t h_out, w_out;    /* floor((h_p - keff_h)/s_h) + 1 */
    int64_t n_in_padded;     /* h_p * w_p * cin */
    int64_t n_in_dense;      /* h_in * w_in * cin */
    int64_t n_out;           /* h_out * w_out * cout */
} rip_layer;

/* Longest error message rip_layer_derive() writes, including the NUL. */
#define RIP_ERR_LEN 512

/*
** Check a layer whose user-facing fields are set and fill its derived
** fields.  Returns 0 on success.  On failure returns -1 and writes one line
** (no trailing newline) into err naming the offending field, e.g.
** "s_h: stride must be >= 1 (got 0)" or "h_out: padded height 2 is smaller
** than the dilated kernel 3, the layer has no output".
**
** Overflow policy: besides n_in_padded, n_in_dense and n_out, the layer must
** satisfy  (cin + cout) * s_h * s_w * (h_p + w_p + keff_h + keff_w)^2 < 2^62,
** which bounds every intermediate term of the closed forms in formulas/
** except Eq. 1 as published (its unclamped floor(x*) grows like cin, so its
** square times cout can exceed this; gm2019_eq1.c checks its own arithmetic
** and reports "not defined" rather than a wrapped number).  A layer that
** fails the bound is rejected rather than evaluated with wrapped
** arithmetic, with "FIELD: too large (got V): WHAT exceeds 2^62" naming
** the input field that contributes most to the sum or product that failed
** (h=2^63-1 names h_in, not the padding beside it).
*/
int rip_layer_derive(rip_layer *L, char err[RIP_ERR_LEN]);

/* Gural & Murmann's restricted setting: no padding, unit stride and
** dilation, odd square kernel, square input. */
bool rip_layer_is_restricted(const rip_layer *L);

/* Convenience constructor for tests and generators: symmetric padding p_h
** (top and bottom) and p_w (left and right).  Does not derive. */
rip_layer rip_layer_make(int64_t cin, int64_t cout, int64_t h_in, int64_t w_in,
                         int64_t k_h, int64_t k_w, int64_t s_h, int64_t s_w,
                         int64_t d_h, int64_t d_w, int64_t p_h, int64_t p_w);

/* The geometry columns of a stored layer, in the order of the database's
** layer_results: cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w,
** p_top, p_bottom, p_left, p_right. */
#define RIP_LAYER_GEOMETRY 14

/* The layer of those RIP_LAYER_GEOMETRY values.  Does not derive. */
rip_layer rip_layer_from_geometry(const int64_t g[RIP_LAYER_GEOMETRY]);

/*
** The layer with its two spatial axes swapped (heights <-> widths, top <->
** left, bottom <-> right), derived.  Row-major traversal of the transposed
** layer is column-major traversal of the original with input and kernel
** transposed (paper Sec. 5.3).  A derived layer always transposes.
*/
rip_layer rip_layer_transpose(const rip_layer *L);

/* Floor and ceiling division for any signs, b != 0 (inline: the closed
** forms call them in their inner loops). */
static inline int64_t rip_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q -= 1;
    return q;
}

static inline int64_t rip_ceil_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) == (b < 0)))
        q += 1;
    return q;
}

#endif
