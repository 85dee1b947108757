/*
** kernels_others.c — the kernels suite (tests/test_kernels.c) on the other
** kernels: depthwise (in place and dual), pooling (and in place at the
** simulated gap, App. I.1's cases), add, upsample and fully connected,
** each against the reference.
*/
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
#include "kernels_util.h"

/* ------------------------------------------------------------ depthwise */

Test(kernels, depthwise_equals_reference_and_inplace_equals_dual)
{
    rng r = {31337};
    int inplace_runs = 0;
    for (int n = 0; n < 3000; n++) {
        conv_case k;
        draw_conv(&r, &k, true);
        const size_t n_out = (size_t)k.g.h_out * k.g.w_out * k.g.cout;
        const size_t n_in = (size_t)k.g.h_in * k.g.w_in * k.g.cin;
        int8_t *want = run_ref(&k, true);
        int8_t *got = xmalloc(n_out);
        cr_assert_eq(rk_depthwise_buffer_size(&k.p, k.in, k.out), 0);
        cr_assert_eq(rk_depthwise(&k.p, &k.q, k.in, k.input, k.filter, k.bias, k.out, got), RK_OK);
        cr_assert(memcmp(got, want, n_out) == 0, "depthwise layer %d differs from the reference", n);
        const size_t ssz = rk_depthwise_inplace_buffer_size(&k.p, k.in, k.out);
        if (n_out <= n_in) {
            /* one padded plane, or rk_depthwise_inplace.h's four-channel path's 4 h_out w_out bytes where
            ** that is larger (c >= 4, k_h k_w <= 49, h_out w_out <= 128) */
            const size_t plane = (size_t)(k.g.h_in + k.g.p_top + k.p.p_bottom) * (k.g.w_in + k.g.p_left + k.p.p_right);
            const size_t px = (size_t)k.g.h_out * k.g.w_out;
            const bool quad = k.g.cin >= 4 && k.p.k_h * k.p.k_w <= 49 && px <= 128;
            cr_assert_eq(ssz, quad && 4 * px > plane ? 4 * px : plane);
            int8_t *t = xmalloc(n_in), *scratch = xmalloc(ssz);
            memcpy(t, k.input, n_in);
            cr_assert_eq(rk_depthwise_inplace(&k.p, &k.q, k.in, k.out, k.filter, k.bias, t, scratch), RK_OK);
            cr_assert(memcmp(t, want, n_out) == 0, "in-place depthwise layer %d differs from dual", n);
            inplace_runs++;
            free(t);
            free(scratch);
        } else {
            int8_t scratch[1], t[1];
            cr_assert_eq(rk_depthwise_inplace(&k.p, &k.q, k.in, k.out, k.filter, k.bias, t, scratch), RK_ARG);
        }
        free(got);
        free(want);
        case_free(&k);
    }
    cr_assert_gt(inplace_runs, 1000);
}

/* -------------------------------------------------------------- pooling */

typedef struct pool_case {
    rk_pool_params p;
    rk_dims in, out;
    int8_t *input;
} pool_case;

static void draw_pool(rng *r, pool_case *c, bool global)
{
    memset(c, 0, sizeof *c);
    c->in = (rk_dims){(int32_t)rng_int(r, 1, 12), (int32_t)rng_int(r, 1, 12), (int32_t)rng_int(r, 1, 8)};
    for (;;) {
        if (global) {
            c->p.k_h = c->in.h;
            c->p.k_w = c->in.w;
            c->p.s_h = c->p.s_w = 1;
        } else {
            c->p.k_h = (int32_t)rng_int(r, 1, 4);
            c->p.k_w = (int32_t)rng_int(r, 1, 4);
            c->p.s_h = (int32_t)rng_int(r, 1, 3);
            c->p.s_w = (int32_t)rng_int(r, 1, 3);
            const bool pad = rng_int(r, 0, 1);
            c->p.p_top = pad ? (int32_t)rng_int(r, 0, c->p.k_h - 1) : 0;
            c->p.p_bottom = pad ? (int32_t)rng_int(r, 0, c->p.k_h - 1) : 0;
            c->p.p_left = pad ? (int32_t)rng_int(r, 0, c->p.k_w - 1) : 0;
            c->p.p_right = pad ? (int32_t)rng_int(r, 0, c->p.k_w - 1) : 0;
        }
        const int hp = c->in.h + c->p.p_top + c->p.p_bottom, wp = c->in.w + c->p.p_left + c->p.p_right;
        if (hp < c->p.k_h || wp < c->p.k_w)
            continue;
        c->out = (rk_dims){(hp - c->p.k_h) / c->p.s_h + 1, (wp - c->p.k_w) / c->p.s_w + 1, c->in.c};
        break;
    }
    draw_act(r, &c->p.act.min, &c->p.act.max);
    const size_t n = (size_t)c->in.h * c->in.w * c->in.c;
    c->input = xmalloc(n);
    fill_s8(r, c->input, n, -128, 127);
}

static int8_t *pool_ref(const pool_case *c, bool avg)
{
    int8_t *o = xmalloc((size_t)c->out.h * c->out.w * c->out.c);
    ref_pool(avg, c->in.c, c->in.h, c->in.w, c->out.h, c->out.w, c->p.k_h, c->p.k_w, c->p.s_h, c->p.s_w, c->p.p_top,
             c->p.p_left, c->p.act.min, c->p.act.max, c->input, o);
    return o;
}

Test(kernels, pooling_equals_reference)
{
    rng r = {8};
    for (int n = 0; n < 4000; n++) {
        pool_case c;
        draw_pool(&r, &c, n % 5 == 0);
        const size_t n_out = (size_t)c.out.h * c.out.w * c.out.c;
        int8_t *got = xmalloc(n_out);
        for (int avg = 0; avg < 2; avg++) {
            int8_t *want = pool_ref(&c, avg);
            cr_assert_eq(avg ? rk_avgpool(&c.p, c.in, c.input, c.out, got) : rk_maxpool(&c.p, c.in, c.input, c.out, got),
                         RK_OK);
            cr_assert(memcmp(got, want, n_out) == 0, "%s pool %d differs from the reference", avg ? "avg" : "max", n);
            free(want);
        }
        free(got);
        free(c.input);
    }
    /* hand values: TFLite rounds the average half away from zero */
    const int8_t in2[2] = {1, 2}, neg2[2] = {-1, -2};
    int8_t out1[1];
    rk_pool_params gp = {1, 2, 1, 1, 0, 0, 0, 0, {-128, 127}};
    cr_assert_eq(rk_avgpool(&gp, (rk_dims){1, 2, 1}, in2, (rk_dims){1, 1, 1}, out1), RK_OK);
    cr_assert_eq(out1[0], 2);   /* 1.5 -> 2 */
    cr_assert_eq(rk_avgpool(&gp, (rk_dims){1, 2, 1}, neg2, (rk_dims){1, 1, 1}, out1), RK_OK);
    cr_assert_eq(out1[0], -2);  /* -1.5 -> -2 */
    gp.p_left = 2; /* padding as wide as the window: refused */
    cr_assert_eq(rk_avgpool(&gp, (rk_dims){1, 2, 1}, in2, (rk_dims){1, 2, 1}, out1), RK_ARG);
}

/* The pool's gap, simulated independently of the kernels and of sim/ as
** src/plan/check.c defines it: the largest (P - m(P) + 1) c over output
** pixels P, m(P) the first input pixel a later output still reads. */
static int64_t pool_gap_brute(const pool_case *c)
{
    const int64_t n_in = (int64_t)c->in.h * c->in.w, n_out = (int64_t)c->out.h * c->out.w;
    int64_t *last = xmalloc((size_t)n_in * sizeof *last);
    for (int64_t x = 0; x < n_in; x++)
        last[x] = -1;
    for (int64_t P = 0; P < n_out; P++)
        for (int a = 0; a < c->p.k_h; a++)
            for (int b = 0; b < c->p.k_w; b++) {
                const int64_t i = (P / c->out.w) * c->p.s_h - c->p.p_top + a;
                const int64_t j = (P % c->out.w) * c->p.s_w - c->p.p_left + b;
                if (i >= 0 && i < c->in.h && j >= 0 && j < c->in.w)
                    last[i * c->in.w + j] = P;
            }
    int64_t worst = 0;
    for (int64_t P = 0; P < n_out; P++) {
        int64_t m = 0;
        while (m < n_in && last[m] <= P)
            m++;
        if (m < n_in && P - m + 1 > worst)
            worst = P - m + 1;
    }
    free(last);
    return worst * c->in.c;
}

static rip_layer pool_layer(const pool_case *c)
{
    rip_layer L = rip_layer_make(c->in.c, c->in.c, c->in.h, c->in.w, c->p.k_h, c->p.k_w, c->p.s_h, c->p.s_w, 1, 1, 0,
                                 0);
    L.p_top = c->p.p_top;
    L.p_bottom = c->p.p_bottom;
    L.p_left = c->p.p_left;
    L.p_right = c->p.p_right;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    return L;
}

/* Run the pool in place at gap; checked run too; returns the violation of
** the checked run. */
static rk_violation pool_inplace_run(const pool_case *c, rk_pool_kind kind, int64_t gap, const int8_t *want,
                                     bool release)
{
    const int64_t n_in = (int64_t)c->in.h * c->in.w * c->in.c;
    const int64_t ws_size = gap + n_in;
    int8_t *ws = xmalloc((size_t)ws_size), *scratch = xmalloc(rk_pool_inplace_buffer_size(&c->p, kind, c->in, c->out));
    uint8_t *shadow = xmalloc((size_t)ws_size);
    const size_t n_out = (size_t)c->out.h * c->out.w * c->out.c;
    if (release) {
        memcpy(ws + gap, c->input, (size_t)n_in);
        cr_assert_eq(rk_pool_inplace(&c->p, kind, c->in, c->out, gap, ws, ws_size, scratch), RK_OK);
        cr_assert(memcmp(ws, want, n_out) == 0, "pool in place differs from dual");
    }
    memcpy(ws + gap, c->input, (size_t)n_in);
    rk_violation v;
    cr_assert_eq(rk_pool_inplace_checked(&c->p, kind, c->in, c->out, gap, ws, ws_size, scratch, shadow, true, &v),
                 RK_OK);
    if (!v.found)
        cr_assert(memcmp(ws, want, n_out) == 0);
    free(shadow);
    free(scratch);
    free(ws);
    return v;
}

Test(kernels, pool_inplace_forward_bit_exact_at_the_simulated_gap)
{
    rng r = {1414};
    int with_gap = 0;
    for (int n = 0; n < 1500; n++) {
        pool_case c;
        draw_pool(&r, &c, n % 7 == 0);
        const rip_layer L = pool_layer(&c);
        int64_t truth;
        cr_assert_eq(rip_sim_truth(&L, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST, &truth), 0);
        /* the planner's pool gap equals the simulator's dense-gather truth */
        cr_assert_eq(truth, pool_gap_brute(&c));
        if (c.p.p_top == 0 && c.p.p_left == 0 && c.p.p_bottom == 0 && c.p.p_right == 0)
            cr_assert_eq(truth, 0, "App. I.1: an unpadded pool needs no gap");
        for (int kind = 0; kind < 2; kind++) {
            int8_t *want = pool_ref(&c, kind == RK_POOL_AVG);
            rk_violation v = pool_inplace_run(&c, (rk_pool_kind)kind, truth, want, true);
            cr_assert(!v.found, "pool %d at its gap %ld: violation at address %ld", n, (long)truth, (long)v.address);
            if (truth > 0) {
                v = pool_inplace_run(&c, (rk_pool_kind)kind, truth - 1, want, false);
                cr_assert(v.found, "pool %d: not caught at gap %ld", n, (long)truth - 1);
                with_gap++;
            }
            free(want);
        }
        free(c.input);
    }
    cr_assert_gt(with_gap, 100);
}

Test(kernels, pool_inplace_appendix_i1_cases)
{
    /* k, s, h, w, c, p, expected gap.  Unpadded (2x2/2, 3x3/2, 3x3/1,
    ** global 7x7): gap 0 (App. I.1).  3x3/2 with p = 1: output (0,0) is the
    ** last reader of input (0,0) (the next window starts at column 1), so
    ** still 0.  3x3/1 with p = 1 on width 14: output (r,c), r >= 1, must
    ** spare input (r-1,c), which output (r,c+1) still reads, W + 1 = 15
    ** pixels below it: 15 * 5 = 75 (row 0 needs only up to W). */
    const int32_t cases[][7] = {{2, 2, 16, 16, 8, 0, 0}, {3, 2, 15, 15, 4, 0, 0}, {3, 1, 9, 7, 3, 0, 0},
                                {7, 1, 7, 7, 16, 0, 0},  {2, 2, 14, 14, 32, 0, 0}, {3, 2, 14, 14, 5, 1, 0},
                                {3, 1, 14, 14, 5, 1, 75}};
    rng r = {3};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pool_case c;
        memset(&c, 0, sizeof c);
        c.p.k_h = c.p.k_w = cases[i][0];
        c.p.s_h = c.p.s_w = cases[i][1];
        c.p.p_top = c.p.p_bottom = c.p.p_left = c.p.p_right = cases[i][5];
        c.p.act = (rk_act){-128, 127};
        c.in = (rk_dims){cases[i][2], cases[i][3], cases[i][4]};
        c.out = (rk_dims){(c.in.h + 2 * cases[i][5] - c.p.k_h) / c.p.s_h + 1,
                          (c.in.w + 2 * cases[i][5] - c.p.k_w) / c.p.s_w + 1, c.in.c};
        const size_t n = (size_t)c.in.h * c.in.w * c.in.c;
        c.input = xmalloc(n);
        fill_s8(&r, c.input, n, -128, 127);
        const int64_t gap = pool_gap_brute(&c);
        cr_assert_eq(gap, cases[i][6]);
        if (gap > 0)
            for (int kind = 0; kind < 2; kind++) {
                int8_t *want = pool_ref(&c, kind == RK_POOL_AVG);
                cr_assert(pool_inplace_run(&c, (rk_pool_kind)kind, gap - 1, want, false).found);
                free(want);
            }
        for (int kind = 0; kind < 2; kind++) {
            int8_t *want = pool_ref(&c, kind == RK_POOL_AVG);
            const rk_violation v = pool_inplace_run(&c, (rk_pool_kind)kind, gap, want, true);
            cr_assert(!v.found);
            free(want);
        }
        free(c.input);
    }
}

/* ------------------------------------------------------------------ add */

Test(kernels, add_equals_reference_and_works_in_place)
{
    rng r = {55};
    for (int n = 0; n < 3000; n++) {
        const int len = (int)rng_int(&r, 1, 64);
        int8_t *a = xmalloc((size_t)len), *b = xmalloc((size_t)len), *got = xmalloc((size_t)len),
               *want = xmalloc((size_t)len);
        fill_s8(&r, a, (size_t)len, -128, 127);
        fill_s8(&r, b, (size_t)len, -128, 127);
        rk_add_params p;
        memset(&p, 0, sizeof p);
        const int zp1 = (int)rng_int(&r, -128, 127), zp2 = (int)rng_int(&r, -128, 127);
        p.input1_offset = -zp1;
        p.input2_offset = -zp2;
        p.left_shift = n % 10 == 0 ? (int32_t)rng_int(&r, 0, 22) : 20;
        int32_t m[3], s[3];
        draw_quant(&r, 3, m, s);
        for (int i = 0; i < 3; i++)
            if (n % 4 != 0 && s[i] > 0)
                s[i] = -s[i]; /* TFLite's range most of the time, any shift now and then */
        p.input1_multiplier = m[0];
        p.input1_shift = s[0];
        p.input2_multiplier = m[1];
        p.input2_shift = s[1];
        p.output_multiplier = m[2];
        p.output_shift = s[2];
        p.output_offset = (int32_t)rng_int(&r, -128, 127);
        draw_act(&r, &p.act.min, &p.act.max);
        ref_add(len, a, b, zp1, zp2, p.left_shift, m[0], s[0], m[1], s[1], m[2], s[2], p.output_offset, p.act.min,
                p.act.max, want);
        cr_assert_eq(rk_add(&p, len, a, b, got), RK_OK);
        cr_assert(memcmp(got, want, (size_t)len) == 0, "add %d differs from the reference", n);
        cr_assert_eq(rk_add(&p, len, a, b, a), RK_OK); /* output over input1 */
        cr_assert(memcmp(a, want, (size_t)len) == 0, "in-place add %d differs", n);
        free(a);
        free(b);
        free(got);
        free(want);
    }
}

/* ----------------------------------------------------------- upsampling */

Test(kernels, upsample_dual_and_reverse_inplace_equal_reference)
{
    rng r = {14};
    for (int n = 0; n < 1500; n++) {
        const rk_upsample_params p = {(int32_t)rng_int(&r, 1, 4), (int32_t)rng_int(&r, 1, 4)};
        const rk_dims in = {(int32_t)rng_int(&r, 1, 9), (int32_t)rng_int(&r, 1, 9), (int32_t)rng_int(&r, 1, 6)};
        const rk_dims out = {in.h * p.s_h, in.w * p.s_w, in.c};
        const size_t n_in = (size_t)in.h * in.w * in.c, n_out = (size_t)out.h * out.w * out.c;
        int8_t *x = xmalloc(n_in), *want = xmalloc(n_out), *got = xmalloc(n_out);
        fill_s8(&r, x, n_in, -128, 127);
        ref_upsample(in.c, in.h, in.w, p.s_h, p.s_w, x, want);
        cr_assert_eq(rk_upsample_nearest(&p, in, x, out, got), RK_OK);
        cr_assert(memcmp(got, want, n_out) == 0);
        /* in place: workspace of exactly N_out (Theorem 14), input at 0 */
        const int64_t ws_size = rk_upsample_nearest_inplace_workspace_size(&p, in);
        cr_assert_eq(ws_size, (int64_t)n_out);
        int8_t *ws = xmalloc((size_t)ws_size);
        memcpy(ws, x, n_in);
        cr_assert_eq(rk_upsample_nearest_inplace(&p, in, out, ws, ws_size), RK_OK);
        cr_assert(memcmp(ws, want, n_out) == 0, "in-place upsampling differs, scale %dx%d", p.s_h, p.s_w);
        memcpy(ws, x, n_in);
        uint8_t *shadow = xmalloc((size_t)ws_size);
        rk_violation v;
        cr_assert_eq(rk_upsample_nearest_inplace_checked(&p, in, out, ws, ws_size, shadow, false, &v), RK_OK);
        cr_assert(!v.found, "reverse traversal read a stale byte at %ld", (long)v.address);
        cr_assert(memcmp(ws, want, n_out) == 0);
        cr_assert_eq(rk_upsample_nearest_inplace(&p, in, out, ws, ws_size - 1), RK_SPACE);
        free(shadow);
        free(ws);
        free(x);
        free(want);
        free(got);
    }
}

/* --------------------------------------------------------- fully connected */

Test(kernels, fully_connected_equals_reference)
{
    rng r = {6};
    for (int n = 0; n < 3000; n++) {
        rk_fc_params p;
        memset(&p, 0, sizeof p);
        p.batches = (int32_t)rng_int(&r, 1, 3);
        /* every 100th deeper than RK_WIDE_MAX (4096): the host's int8 loop */
        p.in_features = (int32_t)(n % 100 == 0 ? rng_int(&r, 4097, 4400) : rng_int(&r, 1, 300));
        p.out_features = (int32_t)rng_int(&r, 1, 20);
        const int in_zp = (int)rng_int(&r, -128, 127);
        p.input_offset = -in_zp;
        p.output_offset = (int32_t)rng_int(&r, -128, 127);
        p.per_channel = rng_int(&r, 0, 1);
        draw_act(&r, &p.act.min, &p.act.max);
        const size_t nx = (size_t)p.batches * p.in_features, nw = (size_t)p.in_features * p.out_features,
                     ny = (size_t)p.batches * p.out_features;
        int8_t *x = xmalloc(nx), *w = xmalloc(nw), *got = xmalloc(ny), *want = xmalloc(ny);
        int32_t *bias = xmalloc((size_t)p.out_features * sizeof(int32_t)),
                *m = xmalloc((size_t)p.out_features * sizeof(int32_t)),
                *s = xmalloc((size_t)p.out_features * sizeof(int32_t));
        fill_s8(&r, x, nx, -128, 127);
        fill_s8(&r, w, nw, -127, 127);
        for (int i = 0; i < p.out_features; i++)
            bias[i] = (int32_t)rng_int(&r, -(1 << 16), 1 << 16);
        draw_quant(&r, p.out_features, m, s);
        const rk_quant q = {m, s};
        cr_assert(ref_fc(p.batches, p.in_features, p.out_features, x, w, n % 3 ? bias : NULL, in_zp, p.output_offset,
                         p.per_channel, m, s, p.act.min, p.act.max, want));
        cr_assert_eq(rk_fully_connected(&p, &q, x, w, n % 3 ? bias : NULL, got), RK_OK);
        cr_assert(memcmp(got, want, ny) == 0, "fc %d differs from the reference", n);
        free(x);
        free(w);
        free(got);
        free(want);
        free(bias);
        free(m);
        free(s);
    }
}
