/*
** test_kernels.c — Criterion suite for firmware/kernels/: the int8 kernels,
** dual buffer and in place.
**
** Expected values come from tests/ref_conv.h (a plain reference written
** from the definitions, a different code path from the kernels), from the
** dual-buffer kernels once those are checked against it, and from the
** simulator's truths (sim/), which never look at the kernels.  Layers are
** random (seeded splitmix64) or drawn by the sweep's generators
** (rip_sweep_draw, the same draw as `ripsim sweep`).
** The suite's tests are in this file (requantization, convolution and
** pointwise against the reference) and in kernels_rip.c and
** kernels_others.c; their shared helpers in kernels_util.h.
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
#include "rk_internal.h"
#include "ref_conv.h"
#include "kernels_util.h"

/* ------------------------------------------------------- requantization */

Test(kernels, requantize_matches_reference_rounding)
{
    rng r = {11};
    /* hand values: 0.5 * 3 = 1.5 rounds to 2, -1.5 to -2 (away from zero) */
    cr_assert_eq(rk_requantize(3, 1 << 30, 0), 2);
    cr_assert_eq(rk_requantize(-3, 1 << 30, 0), -1); /* doubling high mul rounds -1.5 up */
    cr_assert_eq(rk_requantize(3, INT32_MAX, -1), 2);  /* 3 * ~1 / 2 = 1.5 -> 2 */
    cr_assert_eq(rk_requantize(-3, INT32_MAX, -1), -2);
    cr_assert_eq(rk_requantize(INT32_MIN, INT32_MIN, 0), INT32_MAX);
    for (int i = 0; i < 2000000; i++) {
        const int32_t acc = (int32_t)(rng_int(&r, 0, 3) == 0 ? rng_int(&r, INT32_MIN, INT32_MAX)
                                                               : rng_int(&r, -100000, 100000));
        const int32_t m = (int32_t)(rng_int(&r, 0, 7) == 0 ? rng_int(&r, INT32_MIN, INT32_MAX)
                                                           : rng_int(&r, (int64_t)1 << 30, INT32_MAX));
        const int32_t s = (int32_t)rng_int(&r, -31, 30);
        const int32_t a = rk_requantize(acc, m, s), b = ref_requantize(acc, m, s);
        if (a != b)
            cr_assert_fail("requantize(%d, %d, %d): kernel %d, reference %d", acc, m, s, a, b);
    }
}

/* The host loops' folded requantization (rk_finish_rq, rk_internal.h)
** against the reference's two roundings and clamp, on random and extreme
** operands, the saturating INT32_MIN x INT32_MIN at every shift. */
Test(kernels, folded_finish_matches_reference)
{
    rng r = {12};
    const int32_t edge[] = {INT32_MIN, INT32_MIN + 1, -(1 << 30) - 1, -(1 << 30), -1, 0, 1, 1 << 30, INT32_MAX};
    const int n_edge = (int)(sizeof edge / sizeof edge[0]);
    for (int i = 0; i < 3000000; i++) {
        const int pick = (int)rng_int(&r, 0, 9);
        const int32_t acc = pick == 0   ? edge[rng_int(&r, 0, n_edge - 1)]
                            : pick < 4 ? (int32_t)rng_int(&r, INT32_MIN, INT32_MAX)
                                       : (int32_t)rng_int(&r, -100000, 100000);
        const int32_t m = pick == 0 || rng_int(&r, 0, 9) == 0 ? edge[rng_int(&r, 0, n_edge - 1)]
                          : rng_int(&r, 0, 7) == 0            ? (int32_t)rng_int(&r, INT32_MIN, INT32_MAX)
                                                              : (int32_t)rng_int(&r, (int64_t)1 << 30, INT32_MAX);
        const int32_t s = (int32_t)rng_int(&r, -31, 30), oo = (int32_t)rng_int(&r, -128, 127);
        rk_act act;
        draw_act(&r, &act.min, &act.max);
        const int8_t a = rk_finish_rq((uint32_t)acc, rk_rq_of(m, s), oo, act);
        const int8_t b = ref_clamp8((int64_t)ref_requantize(acc, m, s) + oo, act.min, act.max);
        if (a != b)
            cr_assert_fail("finish(%d, %d, %d, %d): folded %d, reference %d", acc, m, s, oo, a, b);
    }
    for (int32_t s = -31; s <= 30; s++)
        for (int32_t oo = -128; oo <= 127; oo += 255) {
            const rk_act act = {-128, 127};
            cr_assert_eq(rk_finish_rq((uint32_t)INT32_MIN, rk_rq_of(INT32_MIN, s), oo, act),
                         ref_clamp8((int64_t)ref_requantize(INT32_MIN, INT32_MIN, s) + oo, -128, 127), "shift %d", s);
        }
}

static void expect_conv_equal(const conv_case *k, int which)
{
    const size_t n_out = (size_t)k->g.h_out * k->g.w_out * k->g.cout;
    int8_t *want = run_ref(k, false);
    int8_t *got = xmalloc(n_out);
    const size_t sz = which == 0 ? rk_conv2d_buffer_size(&k->p, k->in, k->out)
                                 : rk_pointwise_buffer_size(&k->p, k->in, k->out);
    cr_assert_gt(sz, 0);
    int8_t *scratch = xmalloc(sz); /* exactly the size the twin names */
    const rk_status st = which == 0
        ? rk_conv2d(&k->p, &k->q, k->in, k->input, k->filter, k->bias, k->out, got, scratch)
        : rk_pointwise(&k->p, &k->q, k->in, k->input, k->filter, k->bias, k->out, got, scratch);
    cr_assert_eq(st, RK_OK);
    for (size_t i = 0; i < n_out; i++)
        if (got[i] != want[i])
            cr_assert_fail("cin=%d cout=%d h=%dx%d k=%dx%d s=%dx%d d=%dx%d pt=%d pl=%d pb=%d pr=%d: "
                           "output %zu is %d, reference %d",
                           k->g.cin, k->g.cout, k->g.h_in, k->g.w_in, k->g.k_h, k->g.k_w, k->g.s_h, k->g.s_w,
                           k->g.d_h, k->g.d_w, k->g.p_top, k->g.p_left, k->p.p_bottom, k->p.p_right, i, got[i],
                           want[i]);
    free(scratch);
    free(got);
    free(want);
}

Test(kernels, conv2d_equals_reference_on_random_layers)
{
    rng r = {2026};
    for (int n = 0; n < 4000; n++) {
        conv_case k;
        draw_conv(&r, &k, false);
        expect_conv_equal(&k, 0);
        case_free(&k);
    }
}

/*
** The register-blocked paths (two pixels x four channels) need wider
** channels than draw_conv's: a second pixel read from the input (tap rows
** of >= 48 bytes, depth > 4 c_out), two gathered fields (depth <= 4 c_out),
** 1x1 at any stride with an odd pixel count, and depthwise channel blocks
** of 32 with a tail.  Every output against the reference convolution.
*/
Test(kernels, blocked_paths_equal_reference_on_wide_layers)
{
    rng r = {909};
    for (int n = 0; n < 600; n++) {
        conv_case k;
        const bool dw = n % 4 == 3, one = n % 8 == 1; /* one: 1x1 without padding, any stride */
        ref_conv *g = &k.g;
        memset(g, 0, sizeof *g);
        g->cin = (int)(n % 2 == 0 ? rng_int(&r, 16, 70) : rng_int(&r, 1, 12));
        g->cout = dw ? g->cin : (int)rng_int(&r, 1, 40);
        g->k_h = one ? 1 : (int)rng_int(&r, 1, 4);
        g->k_w = one ? 1 : (int)rng_int(&r, 1, 4);
        g->s_h = (int)rng_int(&r, 1, 2);
        g->s_w = (int)rng_int(&r, 1, 2);
        g->d_h = one || rng_int(&r, 0, 3) ? 1 : 2;
        g->d_w = one || rng_int(&r, 0, 3) ? 1 : 2;
        const int keh = g->d_h * (g->k_h - 1) + 1, kew = g->d_w * (g->k_w - 1) + 1;
        g->h_in = (int)rng_int(&r, keh, keh + 7);
        g->w_in = (int)rng_int(&r, kew, kew + 9);
        g->p_top = one ? 0 : (int)rng_int(&r, 0, keh - 1);
        g->p_left = one ? 0 : (int)rng_int(&r, 0, kew - 1);
        const int pb = one ? 0 : (int)rng_int(&r, 0, keh - 1), pr = one ? 0 : (int)rng_int(&r, 0, kew - 1);
        g->h_out = (g->h_in + g->p_top + pb - keh) / g->s_h + 1;
        g->w_out = (g->w_in + g->p_left + pr - kew) / g->s_w + 1;
        g->in_zp = (int)rng_int(&r, -128, 127);
        g->out_zp = (int)rng_int(&r, -128, 127);
        draw_act(&r, &g->act_min, &g->act_max);
        case_params(&k);
        k.p.p_bottom = pb;
        k.p.p_right = pr;
        case_data(&r, &k, dw);
        if (dw) {
            const size_t n_out = (size_t)g->h_out * g->w_out * g->cout;
            int8_t *want = run_ref(&k, true), *got = xmalloc(n_out);
            cr_assert_eq(rk_depthwise(&k.p, &k.q, k.in, k.input, k.filter, k.bias, k.out, got), RK_OK);
            cr_assert(memcmp(got, want, n_out) == 0, "wide depthwise layer %d differs from the reference", n);
            free(got);
            free(want);
        } else {
            expect_conv_equal(&k, 0);
        }
        case_free(&k);
    }
}

/*
** Fields deeper than RK_WIDE_MAX (4096 scalars) skip the host's widened
** loops and run the int8 ones (on M-profile these are the only loops):
** 3x3 layers of 460-600 channels and 1x1 layers of 4097-4300, with pads,
** strides and odd widths, against the reference.
*/
Test(kernels, deep_fields_equal_reference)
{
    rng r = {4097};
    for (int n = 0; n < 24; n++) {
        conv_case k;
        const bool one = n % 3 == 2;
        ref_conv *g = &k.g;
        memset(g, 0, sizeof *g);
        g->cin = one ? (int)rng_int(&r, 4097, 4300) : (int)rng_int(&r, 460, 600);
        g->cout = (int)rng_int(&r, 1, 9);
        g->k_h = g->k_w = one ? 1 : 3;
        g->s_h = (int)rng_int(&r, 1, 2);
        g->s_w = (int)rng_int(&r, 1, 2);
        g->d_h = g->d_w = 1;
        g->h_in = (int)rng_int(&r, g->k_h, g->k_h + 3);
        g->w_in = (int)rng_int(&r, g->k_w, g->k_w + 4);
        g->p_top = one ? 0 : (int)rng_int(&r, 0, 2);
        g->p_left = one ? 0 : (int)rng_int(&r, 0, 2);
        const int pb = one ? 0 : (int)rng_int(&r, 0, 2), pr = one ? 0 : (int)rng_int(&r, 0, 2);
        g->h_out = (g->h_in + g->p_top + pb - g->k_h) / g->s_h + 1;
        g->w_out = (g->w_in + g->p_left + pr - g->k_w) / g->s_w + 1;
        g->in_zp = (int)rng_int(&r, -128, 127);
        g->out_zp = (int)rng_int(&r, -128, 127);
        draw_act(&r, &g->act_min, &g->act_max);
        case_params(&k);
        k.p.p_bottom = pb;
        k.p.p_right = pr;
        case_data(&r, &k, false);
        expect_conv_equal(&k, 0);
        case_free(&k);
    }
}

Test(kernels, pointwise_equals_reference_on_random_layers)
{
    rng r = {77};
    for (int n = 0; n < 2000; n++) {
        conv_case k;
        memset(&k, 0, sizeof k);
        ref_conv *g = &k.g;
        g->cin = (int)rng_int(&r, 1, 40);
        g->cout = (int)rng_int(&r, 1, 40);
        g->h_in = g->h_out = (int)rng_int(&r, 1, 6);
        g->w_in = g->w_out = (int)rng_int(&r, 1, 6);
        g->k_h = g->k_w = g->s_h = g->s_w = g->d_h = g->d_w = 1;
        g->in_zp = (int)rng_int(&r, -128, 127);
        g->out_zp = (int)rng_int(&r, -128, 127);
        draw_act(&r, &g->act_min, &g->act_max);
        case_params(&k);
        case_data(&r, &k, false);
        expect_conv_equal(&k, 1);
        expect_conv_equal(&k, 0); /* rk_conv2d's dispatch to the fast path */
        case_free(&k);
    }
}

Test(kernels, conv2d_refuses_bad_parameters)
{
    rng r = {5};
    conv_case k;
    draw_conv(&r, &k, false);
    int8_t out[4096], scratch[4096];
    rk_conv_params p = k.p;
    rk_dims o = k.out;
    o.h++;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, o, out, scratch), RK_ARG);
    p.s_h = 0;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    cr_assert_eq(rk_conv2d_buffer_size(&p, k.in, k.out), 0);
    p = k.p;
    p.act.min = 5;
    p.act.max = 4;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    p = k.p;
    k.shift[0] = 31;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, NULL, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    case_free(&k);
}
