/*
** kgeom_draw.h — random operator geometries for the kernel-order suites
** (test_tflm_orders.c, test_cmsis_orders.c): a window with TFLite's SAME or
** VALID arithmetic written here by hand (out = ceil(in / s) or
** ceil((in - e + 1) / s), padding before = total / 2), so the orders are
** exercised on the geometries TFLM hands its kernels.
*/
#ifndef RIPSIM_KGEOM_DRAW_H
#define RIPSIM_KGEOM_DRAW_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_orders.h"
#include "pcg32.h"

static inline int64_t kg_rnd(rip_pcg32 *g, int64_t lo, int64_t hi)
{
    return rip_pcg32_range(g, lo, hi);
}

/* A window of at most max_hw rows and columns, kernels up to max_k, strides and dilations up to 2
** (dilation only when dilate), batches up to max_b. */
static inline rip_kgeom kg_window(rip_pcg32 *r, int64_t c_in, int64_t c_out, int64_t max_hw, int64_t max_k,
                                  bool dilate, int64_t max_b)
{
    for (;;) {
        rip_kgeom g = { .batches = kg_rnd(r, 1, max_b), .h_in = kg_rnd(r, 1, max_hw), .w_in = kg_rnd(r, 1, max_hw),
                        .c_in = c_in, .c_out = c_out, .k_h = kg_rnd(r, 1, max_k), .k_w = kg_rnd(r, 1, max_k),
                        .s_h = kg_rnd(r, 1, 2), .s_w = kg_rnd(r, 1, 2), .d_h = dilate ? kg_rnd(r, 1, 2) : 1,
                        .d_w = dilate ? kg_rnd(r, 1, 2) : 1, .groups = 1, .depth_mult = 1 };
        const bool same = rip_pcg32_below(r, 2);
        const int64_t eh = (g.k_h - 1) * g.d_h + 1, ew = (g.k_w - 1) * g.d_w + 1;
        g.h_out = same ? (g.h_in + g.s_h - 1) / g.s_h : (g.h_in - eh + g.s_h) / g.s_h;
        g.w_out = same ? (g.w_in + g.s_w - 1) / g.s_w : (g.w_in - ew + g.s_w) / g.s_w;
        if (g.h_out < 1 || g.w_out < 1)
            continue;
        const int64_t th = (g.h_out - 1) * g.s_h + eh - g.h_in, tw = (g.w_out - 1) * g.s_w + ew - g.w_in;
        g.pad_top = same && th > 0 ? th / 2 : 0;
        g.pad_left = same && tw > 0 ? tw / 2 : 0;
        return g;
    }
}

#endif
