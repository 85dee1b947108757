/*
** test_cmsis_peer.c — ripsim's int8 kernels (firmware/kernels/, dual-buffer
** mode) against CMSIS-NN v7's int8 kernels, bit for bit, on seeded random
** layers of every kernel type CMSIS-NN supports: convolution (dilation 1,
** and 2-3 as an extra), pointwise 1x1, depthwise (multiplier 1, and 2-8),
** average and max pooling, elementwise add, fully connected (per tensor and
** per channel), softmax.  CMSIS-NN is linked from the tree named by the meson option
** cmsis_nn_path (tests/meson.build); it is never copied into ripsim.
**
** Every layer also runs through a third, independent computation written
** here from TFLite's reference int8 kernels (tfl_* below), so that when
** ours and CMSIS-NN disagree the test says which of the two computes
** TFLite's number.  A mismatch fails the test and prints the layer and its
** first differing byte; the comparison is exact, never loosened.
**
** Layers: only those CMSIS-NN can express.  It takes one padding per axis
** (the top/left one, padding.h/w) and the output size, TFLite style; the
** bottom/right padding is whatever the output size implies.  So each axis
** is drawn as TFLite VALID, TFLite SAME, or an explicit symmetric padding
** p < k_eff, its output size computed from that, and the bottom/right
** padding given to our kernels is the one that output size implies (which
** may differ from the top/left one: SAME with an odd total, or a stride
** that skips the last rows).
** The suite's tests are in this file (convolution, pointwise, depthwise)
** and in cmsis_peer_others.c (pooling, add, fully connected, softmax);
** their shared helpers in cmsis_peer_util.h.
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm_nnfunctions.h"
#include "pcg32.h"
#include "rk_prepare.h"
#include "rk_add.h"
#include "rk_conv2d.h"
#include "rk_depthwise.h"
#include "rk_fully_connected.h"
#include "rk_pool.h"
#include "rk_softmax.h"
#include "rk_types.h"
#include "cmsis_peer_util.h"

/* --------------------------------------------------- convolution layers */

typedef struct conv_case {
    axis y, x;
    int32_t cin, cout;
    bool depthwise;
    int32_t in_off, out_off, act_lo, act_hi;
    int8_t *input, *filter;
    int32_t *bias;           /* NULL: no bias */
    int32_t *mult, *shift;
} conv_case;

static void conv_desc(const conv_case *L, char *buf, size_t len)
{
    snprintf(buf, len,
             "(%s cin=%d cout=%d h=%d w=%d k=%dx%d s=%dx%d d=%dx%d pad t/b/l/r=%d/%d/%d/%d out=%dx%d "
             "in_off=%d out_off=%d act=[%d,%d] bias=%s)",
             L->depthwise ? "depthwise" : "conv", L->cin, L->cout, L->y.in, L->x.in, L->y.k, L->x.k, L->y.s, L->x.s,
             L->y.d, L->x.d, L->y.p_lo, L->y.p_hi, L->x.p_lo, L->x.p_hi, L->y.out, L->x.out, L->in_off, L->out_off,
             L->act_lo, L->act_hi, L->bias ? "yes" : "NULL");
}

/*
** Draw one layer: sizes within the given bounds, kernel k in [1, kmax],
** stride in [1, smax], dilation in [dmin, dmax]; pointwise forces k = 1,
** p = 0 (the shape of CMSIS-NN's 1x1 paths).
*/
static void conv_draw(rip_pcg32 *g, conv_case *L, bool depthwise, bool pointwise, int32_t cmax, int32_t hmax,
                      int32_t kmax, int32_t smax, int32_t dmin, int32_t dmax, int32_t mmax)
{
    memset(L, 0, sizeof *L);
    L->depthwise = depthwise;
    for (;;) {
        L->cin = rnd(g, 1, cmax);
        L->cout = depthwise ? L->cin * (mmax > 1 ? rnd(g, 2, mmax) : 1) : rnd(g, 1, cmax);
        L->y.in = rnd(g, 1, hmax);
        L->x.in = chance(g, 70) ? L->y.in : rnd(g, 1, hmax);
        if (chance(g, 10))
            L->y.in = 1;                 /* 1 x W: CMSIS-NN's 1xN conv path */
        if (pointwise) {
            L->y.k = L->x.k = 1;
        } else {
            L->y.k = rnd(g, 1, kmax);
            L->x.k = chance(g, 70) ? L->y.k : rnd(g, 1, kmax);
            if (chance(g, 25))
                L->y.k = L->x.k = 3;     /* CMSIS-NN's 3x3 depthwise path */
            if (L->y.in == 1)
                L->y.k = 1;
        }
        L->y.s = rnd(g, 1, smax);
        L->x.s = chance(g, 70) ? L->y.s : rnd(g, 1, smax);
        L->y.d = rnd(g, dmin, dmax);
        L->x.d = chance(g, 70) ? L->y.d : rnd(g, dmin, dmax);
        int mode = pointwise ? 0 : (int)rip_pcg32_below(g, 3);
        if (draw_axis(g, &L->y, mode) && draw_axis(g, &L->x, mode))
            break;
    }
    int32_t in_zp = rnd(g, -128, 127);
    L->in_off = -in_zp;
    L->out_off = rnd(g, -128, 127);
    draw_act(g, L->out_off, &L->act_lo, &L->act_hi);

    size_t n_in = (size_t)L->y.in * (size_t)L->x.in * (size_t)L->cin;
    int64_t taps = (int64_t)L->y.k * L->x.k * (depthwise ? 1 : L->cin);
    size_t n_f = (size_t)L->y.k * (size_t)L->x.k * (size_t)(depthwise ? L->cout : L->cin * L->cout);
    L->input = xcalloc(n_in, 1);
    L->filter = xcalloc(n_f, 1);
    fill_i8(g, L->input, n_in);
    fill_i8(g, L->filter, n_f);
    int64_t bias_bound = 0;
    if (!chance(g, 10)) {
        bias_bound = (int64_t)(2.0 * typical_acc(taps));
        L->bias = xcalloc((size_t)L->cout, sizeof *L->bias);
        for (int32_t i = 0; i < L->cout; i++)
            L->bias[i] = (int32_t)rip_pcg32_range(g, -bias_bound, bias_bound);
    }
    L->mult = xcalloc((size_t)L->cout, sizeof *L->mult);
    L->shift = xcalloc((size_t)L->cout, sizeof *L->shift);
    draw_quant(g, L->cout, taps, bias_bound + taps * 255 * 128, L->mult, L->shift);
}

static void conv_free(conv_case *L)
{
    free(L->input);
    free(L->filter);
    free(L->bias);
    free(L->mult);
    free(L->shift);
}

/* TFLite reference conv / depthwise (output channel oc reads input channel
** oc / m for depth multiplier m = cout / cin): pad taps contribute 0. */
static void tfl_conv(const conv_case *L, int8_t *out)
{
    for (int32_t r = 0; r < L->y.out; r++)
        for (int32_t c = 0; c < L->x.out; c++)
            for (int32_t oc = 0; oc < L->cout; oc++) {
                int32_t acc = L->bias ? L->bias[oc] : 0;
                for (int32_t a = 0; a < L->y.k; a++)
                    for (int32_t b = 0; b < L->x.k; b++) {
                        int32_t iy = r * L->y.s - L->y.p_lo + a * L->y.d;
                        int32_t ix = c * L->x.s - L->x.p_lo + b * L->x.d;
                        if (iy < 0 || iy >= L->y.in || ix < 0 || ix >= L->x.in)
                            continue;
                        const int8_t *px = L->input + ((size_t)iy * (size_t)L->x.in + (size_t)ix) * (size_t)L->cin;
                        if (L->depthwise) {
                            acc += (px[oc / (L->cout / L->cin)] + L->in_off) * L->filter[((size_t)a * (size_t)L->x.k + (size_t)b) *
                                                                        (size_t)L->cout + (size_t)oc];
                        } else {
                            const int8_t *f = L->filter + (((size_t)oc * (size_t)L->y.k + (size_t)a) * (size_t)L->x.k +
                                                           (size_t)b) * (size_t)L->cin;
                            for (int32_t ic = 0; ic < L->cin; ic++)
                                acc += (px[ic] + L->in_off) * f[ic];
                        }
                    }
                acc = tfl_mbqm(acc, L->mult[oc], L->shift[oc]) + L->out_off;
                out[((size_t)r * (size_t)L->x.out + (size_t)c) * (size_t)L->cout + (size_t)oc] =
                    tfl_clamp(acc, L->act_lo, L->act_hi);
            }
}

static rk_conv_params conv_params_ours(const conv_case *L)
{
    rk_conv_params p = {
        .k_h = L->y.k, .k_w = L->x.k, .s_h = L->y.s, .s_w = L->x.s, .d_h = L->y.d, .d_w = L->x.d,
        .p_top = L->y.p_lo, .p_bottom = L->y.p_hi, .p_left = L->x.p_lo, .p_right = L->x.p_hi,
        .input_offset = L->in_off, .output_offset = L->out_off,
        .act = {.min = L->act_lo, .max = L->act_hi},
    };
    return p;
}

static rk_status ours_conv(const conv_case *L, int8_t *out)
{
    rk_conv_params p = conv_params_ours(L);
    rk_quant q = {.multiplier = L->mult, .shift = L->shift};
    rk_dims in = {.h = L->y.in, .w = L->x.in, .c = L->cin};
    rk_dims od = {.h = L->y.out, .w = L->x.out, .c = L->cout};
    rk_status st;
    if (L->depthwise) {
        cr_assert_eq(rk_depthwise_buffer_size(&p, in, od), 0, "rk_depthwise needs no scratch");
        st = rk_depthwise(&p, &q, in, L->input, L->filter, L->bias, od, out);
    } else {
        size_t sz = rk_conv2d_buffer_size(&p, in, od);
        int8_t *scratch = sz ? xcalloc(sz, 1) : NULL;
        st = rk_conv2d(&p, &q, in, L->input, L->filter, L->bias, od, out, scratch);
        free(scratch);
    }
    return st;
}

/* Which CMSIS-NN conv path the wrapper takes (its documented dispatch). */
static int conv_path(const conv_case *L)
{
    if (L->y.p_lo == 0 && L->x.p_lo == 0 && L->y.k == 1 && L->x.k == 1 && L->y.d == 1 && L->x.d == 1)
        return L->y.s == 1 && L->x.s == 1 ? 0 : 1;      /* 1x1 fast, 1x1 */
    if (L->y.in == 1 && L->x.d == 1 && L->y.k == 1 && (L->x.s * L->cin) % 4 == 0)
        return 2;                                        /* 1 x N */
    return 3;                                            /* generic (im2col) */
}

/* Which CMSIS-NN depthwise path the wrapper takes on the host (no DSP/MVE). */
static int dw_path(const conv_case *L)
{
    if (L->cout != L->cin)                               /* multiplier: arm_depthwise_conv_s8 */
        return (L->cout / L->cin) % 4 == 0 && L->y.d == 1 && L->x.d == 1 ? 3 : 2;   /* mult-4 path, generic */
    if (L->y.d == 1 && L->x.d == 1) {
        if (L->y.k == 3 && L->x.k == 3 && L->y.p_lo <= 1 && L->x.p_lo <= 1)
            return 0;                                    /* 3x3 */
        return 1;                                        /* opt (pure C: falls back to the generic) */
    }
    return 2;                                            /* generic, dilated */
}

/* CMSIS-NN: via_wrapper selects arm_*_wrapper_s8, else the generic kernel. */
static arm_cmsis_nn_status cmsis_conv(const conv_case *L, bool via_wrapper, int8_t *out)
{
    cmsis_nn_dims id = {.n = 1, .h = L->y.in, .w = L->x.in, .c = L->cin};
    cmsis_nn_dims bd = {.n = 1, .h = 1, .w = 1, .c = L->cout};
    cmsis_nn_dims od = {.n = 1, .h = L->y.out, .w = L->x.out, .c = L->cout};
    cmsis_nn_per_channel_quant_params qp = {.multiplier = L->mult, .shift = L->shift};
    cmsis_nn_activation act = {.min = L->act_lo, .max = L->act_hi};
    cmsis_nn_tile stride = {.w = L->x.s, .h = L->y.s};
    cmsis_nn_tile pad = {.w = L->x.p_lo, .h = L->y.p_lo};
    cmsis_nn_tile dil = {.w = L->x.d, .h = L->y.d};
    arm_cmsis_nn_status st;
    cmsis_nn_context ctx = {.buf = NULL, .size = 0};
    if (L->depthwise) {
        cmsis_nn_dw_conv_params dp = {.input_offset = L->in_off, .output_offset = L->out_off,
                                      .ch_mult = L->cout / L->cin,
                                      .stride = stride, .padding = pad, .dilation = dil, .activation = act};
        cmsis_nn_dims fd = {.n = 1, .h = L->y.k, .w = L->x.k, .c = L->cout};
        ctx.size = arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &id, &fd, &od);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        st = via_wrapper ? arm_depthwise_conv_wrapper_s8(&ctx, &dp, &qp, &id, L->input, &fd, L->filter, &bd, L->bias,
                                                         &od, out)
                         : arm_depthwise_conv_s8(&ctx, &dp, &qp, &id, L->input, &fd, L->filter, &bd, L->bias, &od, out);
    } else {
        cmsis_nn_conv_params cp = {.input_offset = L->in_off, .output_offset = L->out_off, .stride = stride,
                                   .padding = pad, .dilation = dil, .activation = act};
        cmsis_nn_dims fd = {.n = L->cout, .h = L->y.k, .w = L->x.k, .c = L->cin};
        ctx.size = via_wrapper ? arm_convolve_wrapper_s8_get_buffer_size(&cp, &id, &fd, &od)
                               : arm_convolve_s8_get_buffer_size(&id, &fd);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        st = via_wrapper ? arm_convolve_wrapper_s8(&ctx, &cp, &qp, &id, L->input, &fd, L->filter, &bd, L->bias, &od, out)
                         : arm_convolve_s8(&ctx, &cp, &qp, &id, L->input, &fd, L->filter, &bd, L->bias, NULL, &od, out);
    }
    free(ctx.buf);
    return st;
}

typedef struct conv_spec {
    const char *kind;
    bool depthwise, pointwise;
    int32_t cmax, hmax, kmax, smax, dmin, dmax;
    uint64_t stream;
    int32_t mmax;   /* depthwise: largest depth multiplier drawn (0, 1: multiplier 1 only) */
} conv_spec;

static void run_conv_kind(const conv_spec *sp)
{
    tally t = {.kind = sp->kind};
    rip_pcg32 g;
    rip_pcg32_seed(&g, SEED, sp->stream);
    for (long i = 0; i < N_LAYERS; i++) {
        conv_case L;
        conv_draw(&g, &L, sp->depthwise, sp->pointwise, sp->cmax, sp->hmax, sp->kmax, sp->smax, sp->dmin, sp->dmax,
                  sp->mmax);
        char desc[512];
        conv_desc(&L, desc, sizeof desc);
        size_t n_out = (size_t)L.y.out * (size_t)L.x.out * (size_t)L.cout;
        int8_t *o_ours = xcalloc(n_out, 1), *o_wrap = xcalloc(n_out, 1), *o_gen = xcalloc(n_out, 1);
        int8_t *o_ref = xcalloc(n_out, 1);
        /* Different garbage in each output, so an unwritten byte cannot match by accident. */
        memset(o_ours, 0x5a, n_out);
        memset(o_wrap, 0xa5, n_out);
        memset(o_gen, 0x3c, n_out);
        tfl_conv(&L, o_ref);
        rk_status rs = ours_conv(&L, o_ours);
        cr_assert_eq(rs, RK_OK, "%s layer %ld: ours returned %d %s", sp->kind, i, (int)rs, desc);
        t.path[L.depthwise ? dw_path(&L) : conv_path(&L)]++;
        long differed = t.mismatched_layers;
        if (cmsis_conv(&L, true, o_wrap) != ARM_CMSIS_NN_SUCCESS) {
            printf("cmsis_peer: %s layer %ld: CMSIS-NN wrapper refused %s\n", sp->kind, i, desc);
            t.cmsis_refused++;
        } else {
            compare3(&t, i, desc, o_ours, o_wrap, o_ref, L.y.out, L.x.out, L.cout, L.act_lo, L.act_hi);
        }
        /* The generic kernel too, where the wrapper chose a specialized one. */
        bool generic_differs = L.depthwise ? dw_path(&L) < 2 : conv_path(&L) != 3;
        if (generic_differs) {
            if (cmsis_conv(&L, false, o_gen) != ARM_CMSIS_NN_SUCCESS) {
                printf("cmsis_peer: %s layer %ld: CMSIS-NN generic kernel refused %s\n", sp->kind, i, desc);
                t.cmsis_refused++;
            } else {
                /* Counted once per layer: only if the wrapper's output matched. */
                tally t2 = {.kind = sp->depthwise ? "depthwise (arm_depthwise_conv_s8)" : "conv (arm_convolve_s8)",
                            .mismatched_layers = t.mismatched_layers};
                compare3(&t2, i, desc, o_ours, o_gen, o_ref, L.y.out, L.x.out, L.cout, L.act_lo, L.act_hi);
                if (t.mismatched_layers == differed)
                    t.mismatched_layers = t2.mismatched_layers;
            }
        }
        t.layers++;
        free(o_ours);
        free(o_wrap);
        free(o_gen);
        free(o_ref);
        conv_free(&L);
    }
    char paths[160];
    if (sp->depthwise && sp->mmax > 1)
        snprintf(paths, sizeof paths, "arm_depthwise_conv_s8 paths: multiplier %% 4 == 0 %ld, generic %ld", t.path[3],
                 t.path[2]);
    else if (sp->depthwise)
        snprintf(paths, sizeof paths, "CMSIS-NN wrapper paths: 3x3 %ld, opt %ld, generic %ld; every layer also through arm_depthwise_conv_s8",
                 t.path[0], t.path[1], t.path[2]);
    else
        snprintf(paths, sizeof paths, "CMSIS-NN wrapper paths: 1x1 fast %ld, 1x1 %ld, 1xN %ld, generic %ld; every layer also through arm_convolve_s8",
                 t.path[0], t.path[1], t.path[2], t.path[3]);
    finish(&t, paths);
}

Test(cmsis_peer, conv, .timeout = 600)
{
    conv_spec sp = {"conv", false, false, 12, 12, 5, 3, 1, 1, 1, 1};
    run_conv_kind(&sp);
}

Test(cmsis_peer, conv_dilated, .timeout = 600)
{
    conv_spec sp = {"conv dilation 2-3", false, false, 10, 14, 3, 2, 2, 3, 2, 1};
    run_conv_kind(&sp);
}

Test(cmsis_peer, pointwise, .timeout = 600)
{
    conv_spec sp = {"pointwise 1x1", false, true, 40, 10, 1, 2, 1, 1, 3, 1};
    run_conv_kind(&sp);
}

Test(cmsis_peer, depthwise, .timeout = 600)
{
    conv_spec sp = {"depthwise", true, false, 24, 14, 5, 3, 1, 1, 4, 1};
    run_conv_kind(&sp);
}

Test(cmsis_peer, depthwise_dilated, .timeout = 600)
{
    conv_spec sp = {"depthwise dilation 2-3", true, false, 16, 14, 3, 2, 2, 3, 5, 1};
    run_conv_kind(&sp);
}

/* Depth multiplier 2-8 (micro_speech's DEPTHWISE_CONV_2D has 8), dilation
** 1 or 2: CMSIS-NN's multiplier-of-4 path and its generic one. */
Test(cmsis_peer, depthwise_multiplier, .timeout = 600)
{
    conv_spec sp = {"depthwise multiplier 2-8", true, false, 6, 14, 5, 3, 1, 2, 6, 8};
    run_conv_kind(&sp);
}
