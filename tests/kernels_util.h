/*
** kernels_util.h — helpers shared by the files of the kernels suite
** (tests/test_kernels.c, kernels_rip.c, kernels_others.c): the seeded
** generator, random quantization and activations, random convolution
** cases and running them through the reference.
*/
#ifndef RIPSIM_TEST_KERNELS_UTIL_H
#define RIPSIM_TEST_KERNELS_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "layer.h"
#include "sim.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_pointwise.h"
#include "rk_add.h"
#include "rk_depthwise.h"
#include "rk_depthwise_inplace.h"
#include "rk_fully_connected.h"
#include "rk_pool.h"
#include "rk_shadow.h"
#include "rk_upsample.h"
#include "ref_conv.h"

/* ---------------------------------------------------------------- helpers */

typedef struct rng { uint64_t s; } rng;

/* The next 64 bits of g's splitmix64 sequence. */
static inline uint64_t rng_next(rng *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static inline int64_t rng_int(rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(g) % (uint64_t)(hi - lo + 1));
}

/* n values uniform in [lo, hi] from g into p. */
static inline void fill_s8(rng *g, int8_t *p, size_t n, int lo, int hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rng_int(g, lo, hi);
}

/* malloc of n bytes (at least one); fails the test when out of memory. */
static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    return p;
}

/* Requantization parameters in TFLite's range: multiplier in [2^30, 2^31)
** (0 now and then), shift in [-31, 30], most of the time where real layers
** put it (-12..1) so the outputs are not all saturated. */
static inline void draw_quant(rng *g, int n, int32_t *mult, int32_t *shift)
{
    for (int i = 0; i < n; i++) {
        mult[i] = rng_int(g, 0, 19) == 0 ? 0 : (int32_t)rng_int(g, (int64_t)1 << 30, INT32_MAX);
        const int64_t k = rng_int(g, 0, 9);
        shift[i] = (int32_t)(k == 0 ? rng_int(g, -31, 30) : k == 1 ? rng_int(g, -31, -20) : rng_int(g, -12, 1));
    }
    if (n > 0 && rng_int(g, 0, 3) == 0) { /* the extremes */
        shift[0] = rng_int(g, 0, 1) ? -31 : 30;
        mult[0] = rng_int(g, 0, 1) ? INT32_MAX : (int32_t)1 << 30;
    }
}

/* An activation range into *lo <= *hi: the full int8 range 2 times in 3, else random. */
static inline void draw_act(rng *g, int32_t *lo, int32_t *hi)
{
    if (rng_int(g, 0, 2) != 0) {
        *lo = -128;
        *hi = 127;
        return;
    }
    int32_t a = (int32_t)rng_int(g, -128, 127), b = (int32_t)rng_int(g, -128, 127);
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* One random convolution and its data. */
typedef struct conv_case {
    ref_conv g;
    rk_conv_params p;
    rk_dims in, out;
    int8_t *input, *filter;
    int32_t *bias, *mult, *shift;
    rk_quant q;
} conv_case;

/* Fills k's kernel parameters and dimensions (k->p, k->in, k->out) from its geometry k->g. */
static inline void case_params(conv_case *k)
{
    const ref_conv *g = &k->g;
    memset(&k->p, 0, sizeof k->p);
    k->p.k_h = g->k_h;
    k->p.k_w = g->k_w;
    k->p.s_h = g->s_h;
    k->p.s_w = g->s_w;
    k->p.d_h = g->d_h;
    k->p.d_w = g->d_w;
    k->p.p_top = g->p_top;
    k->p.p_left = g->p_left;
    k->p.input_offset = -g->in_zp;
    k->p.output_offset = g->out_zp;
    k->p.act.min = g->act_min;
    k->p.act.max = g->act_max;
    k->in = (rk_dims){g->h_in, g->w_in, g->cin};
    k->out = (rk_dims){g->h_out, g->w_out, g->cout};
}

/* Data of a case whose geometry is set (g, p incl. p_bottom/p_right, in, out). */
static inline void case_data(rng *r, conv_case *k, bool dw)
{
    const ref_conv *g = &k->g;
    const size_t n_in = (size_t)g->h_in * g->w_in * g->cin;
    const size_t n_f = dw ? (size_t)g->k_h * g->k_w * g->cout : (size_t)g->cout * g->k_h * g->k_w * g->cin;
    k->input = xmalloc(n_in);
    k->filter = xmalloc(n_f);
    k->bias = xmalloc((size_t)g->cout * sizeof(int32_t));
    k->mult = xmalloc((size_t)g->cout * sizeof(int32_t));
    k->shift = xmalloc((size_t)g->cout * sizeof(int32_t));
    fill_s8(r, k->input, n_in, -128, 127);
    fill_s8(r, k->filter, n_f, -127, 127);
    for (int i = 0; i < g->cout; i++)
        k->bias[i] = (int32_t)rng_int(r, -(1 << 16), 1 << 16);
    draw_quant(r, g->cout, k->mult, k->shift);
    k->q.multiplier = k->mult;
    k->q.shift = k->shift;
}

/* Frees k's buffers (input, filter, bias, multipliers, shifts). */
static inline void case_free(conv_case *k)
{
    free(k->input);
    free(k->filter);
    free(k->bias);
    free(k->mult);
    free(k->shift);
}

/* A random small convolution: per-side padding below the dilated kernel
** most of the time, any up to 2 more now and then. */
static inline void draw_conv(rng *r, conv_case *k, bool dw)
{
    ref_conv *g = &k->g;
    for (;;) {
        memset(g, 0, sizeof *g);
        g->cin = (int)rng_int(r, 1, 9);
        g->cout = dw ? g->cin : (int)rng_int(r, 1, 11);
        g->h_in = (int)rng_int(r, 1, 10);
        g->w_in = (int)rng_int(r, 1, 10);
        g->k_h = (int)rng_int(r, 1, 4);
        g->k_w = (int)rng_int(r, 1, 4);
        g->s_h = (int)rng_int(r, 1, 3);
        g->s_w = (int)rng_int(r, 1, 3);
        g->d_h = (int)(rng_int(r, 0, 2) ? 1 : rng_int(r, 2, 3));
        g->d_w = (int)(rng_int(r, 0, 2) ? 1 : rng_int(r, 2, 3));
        const int keh = g->d_h * (g->k_h - 1) + 1, kew = g->d_w * (g->k_w - 1) + 1;
        const int extra = rng_int(r, 0, 9) == 0 ? 2 : 0;
        g->p_top = (int)rng_int(r, 0, keh - 1 + extra);
        g->p_left = (int)rng_int(r, 0, kew - 1 + extra);
        const int pb = (int)rng_int(r, 0, keh - 1 + extra), pr = (int)rng_int(r, 0, kew - 1 + extra);
        const int hp = g->h_in + g->p_top + pb, wp = g->w_in + g->p_left + pr;
        if (hp < keh || wp < kew)
            continue;
        g->h_out = (hp - keh) / g->s_h + 1;
        g->w_out = (wp - kew) / g->s_w + 1;
        g->in_zp = (int)rng_int(r, -128, 127);
        g->out_zp = (int)rng_int(r, -128, 127);
        draw_act(r, &g->act_min, &g->act_max);
        case_params(k);
        k->p.p_bottom = pb;
        k->p.p_right = pr;
        break;
    }
    case_data(r, k, dw);
}

/* ------------------------------------------------------ conv2d, dual buffer */

static inline int8_t *run_ref(const conv_case *k, bool dw)
{
    int8_t *want = xmalloc((size_t)k->g.h_out * k->g.w_out * k->g.cout);
    cr_assert(ref_conv2d(&k->g, dw, k->input, k->filter, k->bias, k->mult, k->shift, want),
              "reference accumulator left int32");
    return want;
}

#endif
