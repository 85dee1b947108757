/*
** cmsis_peer_others.c — the cmsis_peer suite (tests/test_cmsis_peer.c) on
** the kernels other than convolution: average and max pooling, elementwise
** add, fully connected (per tensor and per channel) and softmax, each
** against CMSIS-NN and TFLite's reference, bit for bit.
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
#include "ref_softmax.h"
#include "cmsis_peer_util.h"

/* TFLite's QuantizeMultiplier of a real scale in (0, 1): multiplier, shift. */
static void quantize_multiplier(double real, int32_t *mult, int32_t *shift)
{
    int e = 0;
    double q = frexp(real, &e);
    int64_t qf = llround(q * (double)(1LL << 31));
    if (qf == (1LL << 31)) {
        qf /= 2;
        e++;
    }
    *mult = (int32_t)qf;
    *shift = e;
}

/* --------------------------------------------------------------- pooling */

typedef struct pool_case {
    axis y, x;
    int32_t c, act_lo, act_hi;
    bool global;
    int8_t *input;
} pool_case;

static void pool_draw(rip_pcg32 *g, pool_case *L)
{
    memset(L, 0, sizeof *L);
    for (;;) {
        L->c = rnd(g, 1, 24);
        L->y.in = rnd(g, 1, 14);
        L->x.in = chance(g, 70) ? L->y.in : rnd(g, 1, 14);
        L->global = chance(g, 10);
        L->y.d = L->x.d = 1;
        if (L->global) {
            L->y.k = L->y.in;
            L->x.k = L->x.in;
            L->y.s = L->x.s = 1;
        } else {
            L->y.k = rnd(g, 1, 4);
            L->x.k = chance(g, 70) ? L->y.k : rnd(g, 1, 4);
            L->y.s = rnd(g, 1, 3);
            L->x.s = chance(g, 70) ? L->y.s : rnd(g, 1, 3);
        }
        int mode = L->global ? 0 : (int)rip_pcg32_below(g, 3);
        if (draw_axis(g, &L->y, mode) && draw_axis(g, &L->x, mode))
            break;
    }
    draw_act(g, rnd(g, -128, 127), &L->act_lo, &L->act_hi);
    size_t n = (size_t)L->y.in * (size_t)L->x.in * (size_t)L->c;
    L->input = xcalloc(n, 1);
    fill_i8(g, L->input, n);
}

static void pool_desc(const pool_case *L, const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "(%s%s c=%d h=%d w=%d k=%dx%d s=%dx%d pad t/b/l/r=%d/%d/%d/%d out=%dx%d act=[%d,%d])", what,
             L->global ? " global" : "", L->c, L->y.in, L->x.in, L->y.k, L->x.k, L->y.s, L->x.s, L->y.p_lo, L->y.p_hi,
             L->x.p_lo, L->x.p_hi, L->y.out, L->x.out, L->act_lo, L->act_hi);
}

/* TFLite reference int8 pooling: the window's real pixels only; the average
** divides by their count, rounding half away from zero. */
static void tfl_pool(const pool_case *L, bool avg, int8_t *out)
{
    for (int32_t r = 0; r < L->y.out; r++)
        for (int32_t c = 0; c < L->x.out; c++)
            for (int32_t ch = 0; ch < L->c; ch++) {
                int32_t acc = 0, count = 0, mx = -128;
                for (int32_t a = 0; a < L->y.k; a++)
                    for (int32_t b = 0; b < L->x.k; b++) {
                        int32_t iy = r * L->y.s - L->y.p_lo + a, ix = c * L->x.s - L->x.p_lo + b;
                        if (iy < 0 || iy >= L->y.in || ix < 0 || ix >= L->x.in)
                            continue;
                        int32_t v = L->input[((size_t)iy * (size_t)L->x.in + (size_t)ix) * (size_t)L->c + (size_t)ch];
                        acc += v;
                        count++;
                        if (v > mx)
                            mx = v;
                    }
                cr_assert_gt(count, 0, "pool window without a real pixel");
                int32_t v = avg ? (acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count) : mx;
                out[((size_t)r * (size_t)L->x.out + (size_t)c) * (size_t)L->c + (size_t)ch] =
                    tfl_clamp(v, L->act_lo, L->act_hi);
            }
}

static rk_status ours_pool(const pool_case *L, bool avg, int8_t *out)
{
    rk_pool_params p = {
        .k_h = L->y.k, .k_w = L->x.k, .s_h = L->y.s, .s_w = L->x.s,
        .p_top = L->y.p_lo, .p_bottom = L->y.p_hi, .p_left = L->x.p_lo, .p_right = L->x.p_hi,
        .act = {.min = L->act_lo, .max = L->act_hi},
    };
    rk_dims in = {.h = L->y.in, .w = L->x.in, .c = L->c};
    rk_dims od = {.h = L->y.out, .w = L->x.out, .c = L->c};
    return avg ? rk_avgpool(&p, in, L->input, od, out) : rk_maxpool(&p, in, L->input, od, out);
}

static arm_cmsis_nn_status cmsis_pool(const pool_case *L, bool avg, int8_t *out)
{
    cmsis_nn_pool_params pp = {.stride = {.w = L->x.s, .h = L->y.s}, .padding = {.w = L->x.p_lo, .h = L->y.p_lo},
                               .activation = {.min = L->act_lo, .max = L->act_hi}};
    cmsis_nn_dims id = {.n = 1, .h = L->y.in, .w = L->x.in, .c = L->c};
    cmsis_nn_dims fd = {.n = 1, .h = L->y.k, .w = L->x.k, .c = 1};
    cmsis_nn_dims od = {.n = 1, .h = L->y.out, .w = L->x.out, .c = L->c};
    cmsis_nn_context ctx = {.buf = NULL, .size = 0};
    if (avg) {
        ctx.size = arm_avgpool_s8_get_buffer_size(L->x.out, L->c);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
    }
    arm_cmsis_nn_status st = avg ? arm_avgpool_s8(&ctx, &pp, &id, L->input, &fd, &od, out)
                                 : arm_max_pool_s8(&ctx, &pp, &id, L->input, &fd, &od, out);
    free(ctx.buf);
    return st;
}

static void run_pool_kind(const char *kind, bool avg, uint64_t stream)
{
    tally t = {.kind = kind};
    rip_pcg32 g;
    rip_pcg32_seed(&g, SEED, stream);
    long global = 0;
    for (long i = 0; i < N_LAYERS; i++) {
        pool_case L;
        pool_draw(&g, &L);
        char desc[320];
        pool_desc(&L, kind, desc, sizeof desc);
        size_t n_out = (size_t)L.y.out * (size_t)L.x.out * (size_t)L.c;
        int8_t *o_ours = xcalloc(n_out, 1), *o_cm = xcalloc(n_out, 1), *o_ref = xcalloc(n_out, 1);
        memset(o_ours, 0x5a, n_out);
        memset(o_cm, 0xa5, n_out);
        tfl_pool(&L, avg, o_ref);
        rk_status rs = ours_pool(&L, avg, o_ours);
        cr_assert_eq(rs, RK_OK, "%s layer %ld: ours returned %d %s", kind, i, (int)rs, desc);
        if (cmsis_pool(&L, avg, o_cm) != ARM_CMSIS_NN_SUCCESS) {
            printf("cmsis_peer: %s layer %ld: CMSIS-NN refused %s\n", kind, i, desc);
            t.cmsis_refused++;
        } else {
            compare3(&t, i, desc, o_ours, o_cm, o_ref, L.y.out, L.x.out, L.c, L.act_lo, L.act_hi);
        }
        global += L.global;
        t.layers++;
        free(o_ours);
        free(o_cm);
        free(o_ref);
        free(L.input);
    }
    char paths[64];
    snprintf(paths, sizeof paths, "%ld of them global", global);
    finish(&t, paths);
}

Test(cmsis_peer, avgpool, .timeout = 600)
{
    run_pool_kind("avgpool", true, 10);
}

Test(cmsis_peer, maxpool, .timeout = 600)
{
    run_pool_kind("maxpool", false, 11);
}

/* ------------------------------------------------------ elementwise add */

typedef struct add_case {
    int32_t n;
    int32_t off1, off2, m1, s1, m2, s2, left_shift, out_off, om, os, act_lo, act_hi;
    bool realistic;    /* derived from scales as TFLite's Prepare does */
    int8_t *a, *b;
} add_case;

static void add_draw(rip_pcg32 *g, add_case *L)
{
    memset(L, 0, sizeof *L);
    L->n = chance(g, 20) ? rnd(g, 1, 8) : rnd(g, 9, 400);
    L->off1 = -rnd(g, -128, 127);
    L->off2 = -rnd(g, -128, 127);
    L->out_off = rnd(g, -128, 127);
    L->left_shift = chance(g, 80) ? 20 : rnd(g, 0, 20);
    L->realistic = chance(g, 60);
    if (L->realistic) {
        /* TFLite int8 Add's Prepare: twice the larger input scale, inputs
        ** scaled to it, output multiplier with the 2^left_shift headroom. */
        double s1 = exp(rip_pcg32_below(g, 1000) / 1000.0 * 6.0 - 7.0);
        double s2 = chance(g, 20) ? s1 : exp(rip_pcg32_below(g, 1000) / 1000.0 * 6.0 - 7.0);
        double so = (s1 > s2 ? s1 : s2) * exp(rip_pcg32_below(g, 1000) / 1000.0 * 1.2);
        double twice = 2.0 * (s1 > s2 ? s1 : s2);
        quantize_multiplier(s1 / twice, &L->m1, &L->s1);
        quantize_multiplier(s2 / twice, &L->m2, &L->s2);
        quantize_multiplier(twice / ((double)(1 << L->left_shift) * so), &L->om, &L->os);
        if (L->os > 0)
            L->os = 0, L->om = INT32_MAX;   /* keep the TFLite range (< 1) */
    } else {
        L->m1 = rnd(g, 1 << 30, INT32_MAX);
        L->m2 = rnd(g, 1 << 30, INT32_MAX);
        L->om = rnd(g, 1 << 30, INT32_MAX);
        if (chance(g, 25)) {        /* anywhere in the range */
            L->s1 = rnd(g, -31, 0);
            L->s2 = rnd(g, -31, 0);
            L->os = rnd(g, -31, 0);
        } else {                    /* near the shifts that undo left_shift */
            L->s1 = rnd(g, -3, 0);
            L->s2 = rnd(g, -3, 0);
            L->os = -L->left_shift + rnd(g, -2, 1);
            if (L->os > 0)
                L->os = 0;
        }
    }
    draw_act(g, L->out_off, &L->act_lo, &L->act_hi);
    L->a = xcalloc((size_t)L->n, 1);
    L->b = xcalloc((size_t)L->n, 1);
    fill_i8(g, L->a, (size_t)L->n);
    fill_i8(g, L->b, (size_t)L->n);
}

static void tfl_add(const add_case *L, int8_t *out)
{
    for (int32_t i = 0; i < L->n; i++) {
        int32_t x1 = (L->a[i] + L->off1) * (1 << L->left_shift);
        int32_t x2 = (L->b[i] + L->off2) * (1 << L->left_shift);
        int32_t y1 = tfl_mbqm(x1, L->m1, L->s1), y2 = tfl_mbqm(x2, L->m2, L->s2);
        out[i] = tfl_clamp(tfl_mbqm(y1 + y2, L->om, L->os) + L->out_off, L->act_lo, L->act_hi);
    }
}

static rk_status ours_add(const add_case *L, int8_t *out)
{
    rk_add_params p = {
        .input1_offset = L->off1, .input1_multiplier = L->m1, .input1_shift = L->s1,
        .input2_offset = L->off2, .input2_multiplier = L->m2, .input2_shift = L->s2,
        .left_shift = L->left_shift,
        .output_offset = L->out_off, .output_multiplier = L->om, .output_shift = L->os,
        .act = {.min = L->act_lo, .max = L->act_hi},
    };
    return rk_add(&p, L->n, L->a, L->b, out);
}

Test(cmsis_peer, add, .timeout = 600)
{
    tally t = {.kind = "add"};
    rip_pcg32 g;
    rip_pcg32_seed(&g, SEED, 20);
    long realistic = 0;
    for (long i = 0; i < N_LAYERS; i++) {
        add_case L;
        add_draw(&g, &L);
        char desc[320];
        snprintf(desc, sizeof desc,
                 "(add n=%d off=%d,%d mult=%d,%d shift=%d,%d left_shift=%d out off=%d mult=%d shift=%d act=[%d,%d])",
                 L.n, L.off1, L.off2, L.m1, L.m2, L.s1, L.s2, L.left_shift, L.out_off, L.om, L.os, L.act_lo, L.act_hi);
        int8_t *o_ours = xcalloc((size_t)L.n, 1), *o_cm = xcalloc((size_t)L.n, 1), *o_ref = xcalloc((size_t)L.n, 1);
        memset(o_ours, 0x5a, (size_t)L.n);
        memset(o_cm, 0xa5, (size_t)L.n);
        tfl_add(&L, o_ref);
        rk_status rs = ours_add(&L, o_ours);
        cr_assert_eq(rs, RK_OK, "add layer %ld: ours returned %d %s", i, (int)rs, desc);
        if (arm_elementwise_add_s8(L.a, L.b, L.off1, L.m1, L.s1, L.off2, L.m2, L.s2, L.left_shift, o_cm, L.out_off,
                                   L.om, L.os, L.act_lo, L.act_hi, L.n) != ARM_CMSIS_NN_SUCCESS) {
            printf("cmsis_peer: add layer %ld: CMSIS-NN refused %s\n", i, desc);
            t.cmsis_refused++;
        } else {
            compare3(&t, i, desc, o_ours, o_cm, o_ref, 1, L.n, 1, L.act_lo, L.act_hi);
        }
        realistic += L.realistic;
        t.layers++;
        free(o_ours);
        free(o_cm);
        free(o_ref);
        free(L.a);
        free(L.b);
    }
    char paths[96];
    snprintf(paths, sizeof paths, "%ld with multipliers from scales as TFLite's Prepare, the rest raw", realistic);
    finish(&t, paths);
}

/* ------------------------------------------------------ fully connected */

typedef struct fc_case {
    int32_t batches, n_in, n_out, in_off, out_off, act_lo, act_hi;
    bool per_channel;
    int8_t *input, *weights;
    int32_t *bias, *mult, *shift;   /* mult/shift: n_out entries, or 1 per tensor */
} fc_case;

static void fc_draw(rip_pcg32 *g, fc_case *L, bool per_channel)
{
    memset(L, 0, sizeof *L);
    L->per_channel = per_channel;
    L->n_in = chance(g, 10) ? rnd(g, 1, 4) : rnd(g, 5, 300);
    L->n_out = rnd(g, 1, 40);
    L->batches = chance(g, 70) ? 1 : rnd(g, 2, 4);
    L->in_off = -rnd(g, -128, 127);
    L->out_off = rnd(g, -128, 127);
    draw_act(g, L->out_off, &L->act_lo, &L->act_hi);
    L->input = xcalloc((size_t)L->batches * (size_t)L->n_in, 1);
    L->weights = xcalloc((size_t)L->n_in * (size_t)L->n_out, 1);
    fill_i8(g, L->input, (size_t)L->batches * (size_t)L->n_in);
    fill_i8(g, L->weights, (size_t)L->n_in * (size_t)L->n_out);
    int64_t bias_bound = 0;
    if (!chance(g, 10)) {
        bias_bound = (int64_t)(2.0 * typical_acc(L->n_in));
        L->bias = xcalloc((size_t)L->n_out, sizeof *L->bias);
        for (int32_t i = 0; i < L->n_out; i++)
            L->bias[i] = (int32_t)rip_pcg32_range(g, -bias_bound, bias_bound);
    }
    int32_t nq = per_channel ? L->n_out : 1;
    L->mult = xcalloc((size_t)nq, sizeof *L->mult);
    L->shift = xcalloc((size_t)nq, sizeof *L->shift);
    draw_quant(g, nq, L->n_in, bias_bound + (int64_t)L->n_in * 255 * 128, L->mult, L->shift);
}

static void tfl_fc(const fc_case *L, int8_t *out)
{
    for (int32_t bt = 0; bt < L->batches; bt++)
        for (int32_t o = 0; o < L->n_out; o++) {
            const int8_t *x = L->input + (size_t)bt * (size_t)L->n_in;
            int32_t acc = L->bias ? L->bias[o] : 0;
            for (int32_t i = 0; i < L->n_in; i++)
                acc += (x[i] + L->in_off) * L->weights[(size_t)o * (size_t)L->n_in + (size_t)i];
            int32_t q = L->per_channel ? o : 0;
            out[(size_t)bt * (size_t)L->n_out + (size_t)o] =
                tfl_clamp(tfl_mbqm(acc, L->mult[q], L->shift[q]) + L->out_off, L->act_lo, L->act_hi);
        }
}

static rk_status ours_fc(const fc_case *L, int8_t *out)
{
    rk_fc_params p = {.batches = L->batches, .in_features = L->n_in, .out_features = L->n_out,
                      .input_offset = L->in_off, .output_offset = L->out_off,
                      .act = {.min = L->act_lo, .max = L->act_hi}, .per_channel = L->per_channel};
    rk_quant q = {.multiplier = L->mult, .shift = L->shift};
    cr_assert_eq(rk_fully_connected_buffer_size(&p), 0, "rk_fully_connected needs no scratch");
    return rk_fully_connected(&p, &q, L->input, L->weights, L->bias, out);
}

static arm_cmsis_nn_status cmsis_fc(const fc_case *L, int8_t *out)
{
    cmsis_nn_fc_params fp = {.input_offset = L->in_off, .filter_offset = 0, .output_offset = L->out_off,
                             .activation = {.min = L->act_lo, .max = L->act_hi}};
    cmsis_nn_dims id = {.n = L->batches, .h = 1, .w = 1, .c = L->n_in};
    cmsis_nn_dims fd = {.n = L->n_in, .h = 1, .w = 1, .c = L->n_out};
    cmsis_nn_dims bd = {.n = 1, .h = 1, .w = 1, .c = L->n_out};
    cmsis_nn_dims od = {.n = L->batches, .h = 1, .w = 1, .c = L->n_out};
    cmsis_nn_context ctx = {.buf = NULL, .size = arm_fully_connected_s8_get_buffer_size(&fd)};
    ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
    arm_cmsis_nn_status st;
    if (L->per_channel) {
        cmsis_nn_per_channel_quant_params qp = {.multiplier = L->mult, .shift = L->shift};
        st = arm_fully_connected_per_channel_s8(&ctx, &fp, &qp, &id, L->input, &fd, L->weights, &bd, L->bias, &od, out);
    } else {
        cmsis_nn_per_tensor_quant_params qp = {.multiplier = L->mult[0], .shift = L->shift[0]};
        st = arm_fully_connected_s8(&ctx, &fp, &qp, &id, L->input, &fd, L->weights, &bd, L->bias, &od, out);
    }
    free(ctx.buf);
    return st;
}

static void run_fc_kind(const char *kind, bool per_channel, uint64_t stream)
{
    tally t = {.kind = kind};
    rip_pcg32 g;
    rip_pcg32_seed(&g, SEED, stream);
    for (long i = 0; i < N_LAYERS; i++) {
        fc_case L;
        fc_draw(&g, &L, per_channel);
        char desc[256];
        snprintf(desc, sizeof desc, "(%s batches=%d in=%d out=%d in_off=%d out_off=%d act=[%d,%d] bias=%s)", kind,
                 L.batches, L.n_in, L.n_out, L.in_off, L.out_off, L.act_lo, L.act_hi, L.bias ? "yes" : "NULL");
        size_t n_out = (size_t)L.batches * (size_t)L.n_out;
        int8_t *o_ours = xcalloc(n_out, 1), *o_cm = xcalloc(n_out, 1), *o_ref = xcalloc(n_out, 1);
        memset(o_ours, 0x5a, n_out);
        memset(o_cm, 0xa5, n_out);
        tfl_fc(&L, o_ref);
        rk_status rs = ours_fc(&L, o_ours);
        cr_assert_eq(rs, RK_OK, "%s layer %ld: ours returned %d %s", kind, i, (int)rs, desc);
        if (cmsis_fc(&L, o_cm) != ARM_CMSIS_NN_SUCCESS) {
            printf("cmsis_peer: %s layer %ld: CMSIS-NN refused %s\n", kind, i, desc);
            t.cmsis_refused++;
        } else {
            compare3(&t, i, desc, o_ours, o_cm, o_ref, 1, L.batches, L.n_out, L.act_lo, L.act_hi);
        }
        t.layers++;
        free(o_ours);
        free(o_cm);
        free(o_ref);
        free(L.input);
        free(L.weights);
        free(L.bias);
        free(L.mult);
        free(L.shift);
    }
    finish(&t, NULL);
}

Test(cmsis_peer, fully_connected, .timeout = 600)
{
    run_fc_kind("fully connected per tensor", false, 30);
}

Test(cmsis_peer, fully_connected_per_channel, .timeout = 600)
{
    run_fc_kind("fully connected per channel", true, 31);
}

/* ------------------------------------------------------------- softmax */

/* Softmax rows (int8 -> int8, scale 1/256, zero point -128): parameters
** mostly from a beta and an input scale through TFLM's Prepare
** (rk_prepare_softmax), else raw; rows uniform, clustered, or a few peaks
** over a low floor.  Rows whose sum of exps reaches 2^28 (where TFLM
** aborts) are drawn again; ours refusing them is tested in
** test_tflite_kernels.c. */
Test(cmsis_peer, softmax, .timeout = 600)
{
    tally t = {.kind = "softmax"};
    rip_pcg32 g;
    rip_pcg32_seed(&g, SEED, 40);
    long prepared = 0, entries_below_diff_min = 0;
    for (long i = 0; i < N_LAYERS; i++) {
        rk_softmax_params p;
        bool from_scales = chance(&g, 70);
        for (;;) {
            if (from_scales) {
                float beta = chance(&g, 80) ? 1.0f : (float)exp(rip_pcg32_below(&g, 1000) / 1000.0 * 3.0 - 1.5);
                float scale = (float)exp(rip_pcg32_below(&g, 10000) / 10000.0 * 8.3 - 6.9);
                if (rk_prepare_softmax(beta, scale, 1.0f / 256, -128, &p) == RK_OK)
                    break;
            } else {
                p.input_multiplier = rnd(&g, 1 << 30, INT32_MAX);
                p.input_left_shift = rnd(&g, 0, 30);
                p.diff_min = -rnd(&g, 0, (int32_t)((31LL << 26) >> p.input_left_shift > 300
                                                       ? 300 : (31LL << 26) >> p.input_left_shift));
                break;
            }
        }
        prepared += from_scales;
        int32_t rows = rnd(&g, 1, 4), depth = chance(&g, 80) ? rnd(&g, 1, 40) : rnd(&g, 41, 300);
        size_t n = (size_t)rows * (size_t)depth;
        int8_t *in = xcalloc(n, 1), *o_ours = xcalloc(n, 1), *o_cm = xcalloc(n, 1), *o_ref = xcalloc(n, 1);
        for (bool fits = false; !fits;) {
            for (int32_t r = 0; r < rows; r++) {
                int8_t *x = in + (size_t)r * (size_t)depth;
                uint32_t kind = rip_pcg32_below(&g, 3);
                int32_t c = rnd(&g, -100, 100), w = rnd(&g, 0, 27);
                for (int32_t k = 0; k < depth; k++)
                    x[k] = (int8_t)(kind == 0 ? rnd(&g, -128, 127) : kind == 1 ? rnd(&g, c - w, c + w)
                                                                                : rnd(&g, -128, -60));
                if (kind == 2)
                    for (int32_t k = 0; k < 3; k++)
                        x[rnd(&g, 0, depth - 1)] = (int8_t)rnd(&g, 40, 127);
            }
            fits = true;
            for (int32_t r = 0; r < rows && fits; r++)
                fits = ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, depth,
                                       in + (size_t)r * (size_t)depth, o_ref + (size_t)r * (size_t)depth);
        }
        for (int32_t r = 0; r < rows; r++) {
            int mx = -128;
            for (int32_t k = 0; k < depth; k++)
                mx = in[(size_t)r * (size_t)depth + (size_t)k] > mx ? in[(size_t)r * (size_t)depth + (size_t)k] : mx;
            for (int32_t k = 0; k < depth; k++)
                entries_below_diff_min += in[(size_t)r * (size_t)depth + (size_t)k] - mx < p.diff_min;
        }
        char desc[192];
        snprintf(desc, sizeof desc, "(softmax rows=%d depth=%d mult=%d left_shift=%d diff_min=%d)", rows, depth,
                 p.input_multiplier, p.input_left_shift, p.diff_min);
        memset(o_ours, 0x5a, n);
        memset(o_cm, 0xa5, n);
        cr_assert_eq(rk_softmax(&p, rows, depth, in, o_ours), RK_OK, "softmax layer %ld %s", i, desc);
        arm_softmax_s8(in, rows, depth, p.input_multiplier, p.input_left_shift, p.diff_min, o_cm);
        compare3(&t, i, desc, o_ours, o_cm, o_ref, rows, depth, 1, -128, 127);
        t.layers++;
        free(in);
        free(o_ours);
        free(o_cm);
        free(o_ref);
    }
    char notes[128];
    snprintf(notes, sizeof notes, "%ld with parameters from scales as TFLM's Prepare, %ld entries below diff_min",
             prepared, entries_below_diff_min);
    finish(&t, notes);
}
