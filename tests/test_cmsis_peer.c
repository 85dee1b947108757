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

#define SEED 20261130u
#define N_LAYERS 1000    /* per kernel type: the issue asks for at least 1,000 */
#define MAX_PRINTED 10   /* differing layers printed per kernel type (all are counted) */

/* ---------------------------------------------------------------- draws */

static int32_t rnd(rip_pcg32 *g, int32_t lo, int32_t hi)
{
    return (int32_t)rip_pcg32_range(g, lo, hi);
}

static bool chance(rip_pcg32 *g, uint32_t percent)
{
    return rip_pcg32_below(g, 100) < percent;
}

static void fill_i8(rip_pcg32 *g, int8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rnd(g, -128, 127);
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    cr_assert_not_null(p, "out of memory");
    return p;
}

/* One spatial axis of a layer, as CMSIS-NN and ours see it. */
typedef struct axis {
    int32_t in, k, s, d, keff;
    int32_t p_lo, p_hi;   /* ours: both sides; CMSIS-NN gets p_lo only */
    int32_t out;
    int mode;             /* 0 VALID, 1 SAME, 2 explicit symmetric */
} axis;

/*
** Draw the padding of one axis whose in, k, s, d are set.  Returns false
** when the axis has no output (the caller draws again).
*/
static bool draw_axis(rip_pcg32 *g, axis *a, int mode)
{
    a->keff = a->d * (a->k - 1) + 1;
    a->mode = mode;
    if (mode == 0) {                       /* VALID */
        if (a->in < a->keff)
            return false;
        a->p_lo = 0;
        a->out = (a->in - a->keff) / a->s + 1;
    } else if (mode == 1) {                /* SAME: out = ceil(in / s), TFLite's split */
        a->out = (a->in + a->s - 1) / a->s;
        int32_t total = (a->out - 1) * a->s + a->keff - a->in;
        if (total < 0)
            total = 0;
        a->p_lo = total / 2;
    } else {                               /* explicit symmetric p < k_eff */
        a->p_lo = rnd(g, 0, a->keff - 1);
        if (a->in + 2 * a->p_lo < a->keff)
            return false;
        a->out = (a->in + 2 * a->p_lo - a->keff) / a->s + 1;
    }
    /* The bottom/right padding the output size implies. */
    a->p_hi = (a->out - 1) * a->s + a->keff - a->in - a->p_lo;
    if (a->p_hi < 0)
        a->p_hi = 0;
    /* Self-check: our output-size formula on the implied padding gives the
    ** same size CMSIS-NN is told. */
    cr_assert_eq((a->in + a->p_lo + a->p_hi - a->keff) / a->s + 1, a->out, "axis geometry");
    return true;
}

/* Activation clamp around the output zero point zp: mostly the full range
** or ReLU, sometimes a narrower window (ReLU6-like, random), so that the
** clamp is exercised without saturating most outputs. */
static void draw_act(rip_pcg32 *g, int32_t zp, int32_t *lo, int32_t *hi)
{
    uint32_t r = rip_pcg32_below(g, 100);
    if (r < 40) {
        *lo = -128;
        *hi = 127;
    } else if (r < 70) {                                              /* ReLU */
        *lo = zp;
        *hi = 127;
    } else if (r < 85) {                                              /* ReLU6-like */
        *lo = zp;
        *hi = zp + rnd(g, 0, 127 - zp);
        if (*hi - *lo < 32)
            *hi = *lo + 32 > 127 ? 127 : *lo + 32;
    } else {
        *lo = rnd(g, -128, 111);
        *hi = rnd(g, *lo + 16, 127);
    }
}

/* Typical magnitude of an accumulator of `taps` products of an offset int8
** input and an int8 weight (for the shift that maps it into int8). */
static double typical_acc(int64_t taps)
{
    return sqrt((double)(taps > 0 ? taps : 1)) * 74.0 * 120.0;
}

/*
** Per-channel multipliers and shifts in TFLite's range (multiplier in
** [2^30, 2^31 - 1] as QuantizeMultiplier makes them, rarely 0; shift <= 0
** mostly, positive only where acc_bound << shift cannot overflow int32),
** centred on the shift that maps a typical accumulator (taps terms) into
** int8, so that outputs are neither all clamped nor all zero.
*/
static void draw_quant(rip_pcg32 *g, int32_t n, int64_t taps, int64_t acc_bound, int32_t *mult, int32_t *shift)
{
    int32_t max_left = 0;
    while (max_left < 30 && (acc_bound << (max_left + 1)) < ((int64_t)1 << 31))
        max_left++;
    int32_t mid = 6 - (int32_t)floor(log2(typical_acc(taps)));
    for (int32_t i = 0; i < n; i++) {
        uint32_t r = rip_pcg32_below(g, 100);
        mult[i] = r < 1 ? 0 : r < 5 ? (1 << 30) : r < 9 ? INT32_MAX : rnd(g, 1 << 30, INT32_MAX);
        int32_t s = mid + rnd(g, -2, 1);
        uint32_t e = rip_pcg32_below(g, 100);
        if (e < 2)
            s = -31;
        else if (e < 4)
            s = max_left;
        else if (e < 6)
            s = 0;
        if (s < -31)
            s = -31;
        if (s > max_left)
            s = max_left;
        shift[i] = s;
    }
}

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

/* ------------------------------------------- TFLite reference semantics */

/*
** Written from TFLite's reference int8 kernels (gemmlowp fixed point):
** SaturatingRoundingDoublingHighMul, RoundingDivideByPOT,
** MultiplyByQuantizedMultiplier.  Independent of both kernels under test.
*/
static int32_t tfl_srdhm(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    int64_t ab = (int64_t)a * b;
    int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

static int32_t tfl_rdbpot(int32_t x, int32_t e)
{
    int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    int32_t rem = x & mask;
    int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (rem > thr ? 1 : 0);
}

static int32_t tfl_mbqm(int32_t x, int32_t m, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return tfl_rdbpot(tfl_srdhm((int32_t)((int64_t)x * ((int64_t)1 << left)), m), right);
}

static int8_t tfl_clamp(int32_t v, int32_t lo, int32_t hi)
{
    return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* ------------------------------------------------------------ reporting */

typedef struct tally {
    const char *kind;
    long layers, bytes, clamped, mismatched_layers, ref_disagree, cmsis_refused;
    long path[5];
} tally;

/*
** Compare ours, CMSIS-NN's and the reference output of one layer.  On a
** difference print the layer (desc) and the first differing byte with its
** (row, column, channel) for a h x w x c output, and count it (the first
** MAX_PRINTED per kernel type are printed).
*/
static void compare3(tally *t, long idx, const char *desc, const int8_t *ours, const int8_t *cmsis,
                     const int8_t *ref, int32_t h, int32_t w, int32_t c, int32_t act_lo, int32_t act_hi)
{
    size_t n = (size_t)h * (size_t)w * (size_t)c;
    t->bytes += (long)n;
    for (size_t i = 0; i < n; i++)
        t->clamped += ref[i] == act_lo || ref[i] == act_hi;
    for (size_t i = 0; i < n; i++) {
        if (ours[i] != cmsis[i]) {
            long px = (long)(i / (size_t)c);
            if (t->mismatched_layers++ >= MAX_PRINTED)
                return;
            printf("cmsis_peer: %s layer %ld MISMATCH %s: first differing byte %zu (row %ld, col %ld, ch %ld): "
                   "ours %d, CMSIS-NN %d, TFLite reference %d\n",
                   t->kind, idx, desc, i, px / w, px % w, (long)(i % (size_t)c), ours[i], cmsis[i], ref[i]);
            return;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (ref[i] != ours[i]) {
            long px = (long)(i / (size_t)c);
            if (t->ref_disagree++ >= MAX_PRINTED)
                return;
            printf("cmsis_peer: %s layer %ld: ours = CMSIS-NN but the TFLite reference differs %s: byte %zu "
                   "(row %ld, col %ld, ch %ld): ours/CMSIS-NN %d, reference %d\n",
                   t->kind, idx, desc, i, px / w, px % w, (long)(i % (size_t)c), ours[i], ref[i]);
            return;
        }
    }
}

static void finish(const tally *t, const char *notes)
{
    printf("cmsis_peer: %s: %ld layers, %ld output bytes compared (%.1f%% at a clamp bound), "
           "%ld layers differ from CMSIS-NN, %ld from the TFLite reference, %ld refused by CMSIS-NN%s%s\n",
           t->kind, t->layers, t->bytes, t->bytes ? 100.0 * (double)t->clamped / (double)t->bytes : 0.0,
           t->mismatched_layers, t->ref_disagree, t->cmsis_refused, notes ? "; " : "", notes ? notes : "");
    fflush(stdout);
    cr_expect_geq(t->layers, N_LAYERS, "%s: only %ld layers", t->kind, t->layers);
    cr_expect_eq(t->cmsis_refused, 0, "%s: CMSIS-NN refused %ld layers it should take", t->kind, t->cmsis_refused);
    cr_expect_eq(t->ref_disagree, 0, "%s: %ld layers differ from the TFLite reference", t->kind, t->ref_disagree);
    cr_assert_eq(t->mismatched_layers, 0, "%s: %ld layers differ from CMSIS-NN", t->kind, t->mismatched_layers);
}

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
