/*
** test_tflite_kernels.c — Criterion suite for the kernels real TFLite
** models need beyond convolution (firmware/kernels/: softmax, mean,
** quantize / dequantize / requantize, pad, transpose, concatenation,
** broadcast ADD, nearest resize, depthwise with a depth multiplier) and
** for the host's prepare-time parameters (firmware/kernels/host/rk_prepare.h).
**
** TFLite Micro's reference kernels are the specification.  Expected values
** are (a) small cases worked out by hand from TFLM's formulas (the working
** is in the comments), (b) independent references written here or in
** tests/ref_*.h from TFLM's arithmetic, on seeded random cases (splitmix64),
** with other code paths than the kernels (multi-indices instead of
** odometers, libm's floorf/roundf, int64 fixed point), and (c) a few
** integers TFLM itself computes for the vendored models, pinned where
** noted.  CMSIS-NN is a further peer for softmax and the depth multiplier
** (tests/test_cmsis_peer.c).
*/
#include <criterion/criterion.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_add.h"
#include "rk_concat.h"
#include "rk_depthwise.h"
#include "rk_mean.h"
#include "rk_pad.h"
#include "rk_prepare.h"
#include "rk_quantize.h"
#include "rk_resize_nearest.h"
#include "rk_softmax.h"
#include "rk_transpose.h"
#include "rk_upsample.h"

#include "ref_conv.h"
#include "ref_softmax.h"
#include "splitmix.h"

/* ---------------------------------------------------------------- helpers */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    return p;
}

static void fill_s8(int8_t *p, size_t n, int lo, int hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rng_int(lo, hi);
}

static rk_shape shape_of(int rank, const int32_t *d)
{
    rk_shape s = {.rank = rank};
    for (int i = 0; i < rank; i++)
        s.d[i] = d[i];
    return s;
}

static int64_t count_of(rk_shape s)
{
    int64_t n = 1;
    for (int i = 0; i < s.rank; i++)
        n *= s.d[i];
    return n;
}

/* A random shape of the given rank whose count stays at most max_count. */
static rk_shape random_shape(int rank, int max_extent, int64_t max_count)
{
    rk_shape s = {.rank = rank};
    do {
        for (int i = 0; i < rank; i++)
            s.d[i] = (int32_t)rng_int(1, max_extent);
    } while (count_of(s) > max_count);
    return s;
}

/* Row-major flat index of multi-index idx in shape s. */
static int64_t flat_index(rk_shape s, const int32_t *idx)
{
    int64_t f = 0;
    for (int i = 0; i < s.rank; i++)
        f = f * s.d[i] + idx[i];
    return f;
}

/* The multi-index of flat index f in shape s. */
static void multi_index(rk_shape s, int64_t f, int32_t *idx)
{
    for (int i = s.rank - 1; i >= 0; i--) {
        idx[i] = (int32_t)(f % s.d[i]);
        f /= s.d[i];
    }
}

/* A float with a random magnitude over many binades (and either sign). */
static float random_float(int lo_exp, int hi_exp)
{
    const double m = 1.0 + (double)(rng_next() >> 11) / 9007199254740992.0;
    const float v = (float)ldexp(m, (int)rng_int(lo_exp, hi_exp));
    return rng_int(0, 1) ? -v : v;
}

/* ------------------------------------------------ prepare-time parameters */

Test(tflite_kernels, quantize_multiplier_hand_values)
{
    int32_t m, s;
    /* 0.5 = 0.5 * 2^0: 0.5 * 2^31 = 2^30, shift 0; 1.0 = 0.5 * 2^1 */
    cr_assert_eq(rk_quantize_multiplier(0.5, &m, &s), RK_OK);
    cr_assert(m == 1 << 30 && s == 0);
    cr_assert_eq(rk_quantize_multiplier(1.0, &m, &s), RK_OK);
    cr_assert(m == 1 << 30 && s == 1);
    /* 0.75 * 2^31 = 1610612736 exactly */
    cr_assert_eq(rk_quantize_multiplier(0.75, &m, &s), RK_OK);
    cr_assert(m == 1610612736 && s == 0);
    /* 1 - 2^-40: its fraction * 2^31 = 2^31 - 2^-9 rounds to 2^31, which
    ** is halved and the shift raised: (2^30, 1) */
    cr_assert_eq(rk_quantize_multiplier(1.0 - ldexp(1.0, -40), &m, &s), RK_OK);
    cr_assert(m == 1 << 30 && s == 1, "m=%d s=%d", m, s);
    /* 2^-32 = 0.5 * 2^-31: shift -31 kept; 2^-33: shift -32 flushed to 0 */
    cr_assert_eq(rk_quantize_multiplier(ldexp(1.0, -32), &m, &s), RK_OK);
    cr_assert(m == 1 << 30 && s == -31);
    cr_assert_eq(rk_quantize_multiplier(ldexp(1.0, -33), &m, &s), RK_OK);
    cr_assert(m == 0 && s == 0);
    cr_assert_eq(rk_quantize_multiplier(0.0, &m, &s), RK_OK);
    cr_assert(m == 0 && s == 0);
    /* a tie: 0.5 + 2^-32 -> fraction * 2^31 = 2^30 + 0.5, rounded away: 2^30 + 1 */
    cr_assert_eq(rk_quantize_multiplier(0.5 + ldexp(1.0, -32), &m, &s), RK_OK);
    cr_assert(m == (1 << 30) + 1 && s == 0);
    cr_assert_eq(rk_quantize_multiplier(-0.5, &m, &s), RK_ARG);
    cr_assert_eq(rk_quantize_multiplier(NAN, &m, &s), RK_ARG);
    cr_assert_eq(rk_quantize_multiplier_smaller_than_one_exp(1.0, &m, &s), RK_ARG);
    cr_assert_eq(rk_quantize_multiplier_greater_than_one(1.0, &m, &s), RK_ARG);
    cr_assert_eq(rk_quantize_multiplier_greater_than_one(3.0, &m, &s), RK_OK);
    cr_assert(m == 1610612736 && s == 2);   /* 3 = 0.75 * 2^2 */
}

/* The multiplier is what it stands for: |m * 2^(s-31) - real| <= 2^(s-32)
** (half a unit of the last place), on random reals over 60 binades. */
Test(tflite_kernels, quantize_multiplier_random_within_half_ulp)
{
    rng_state = 2001;
    for (int i = 0; i < 20000; i++) {
        const double real = ldexp(1.0 + (double)(rng_next() >> 11) / 9007199254740992.0, (int)rng_int(-30, 29));
        int32_t m, s;
        cr_assert_eq(rk_quantize_multiplier(real, &m, &s), RK_OK);
        cr_assert(m >= (1 << 30) && m <= INT32_MAX);
        const double err = fabs(ldexp((double)m, s - 31) - real);
        cr_assert_leq(err, ldexp(1.0, s - 32), "real %.17g -> %d, %d", real, m, s);
    }
}

Test(tflite_kernels, activation_range_hand_values)
{
    rk_act a;
    /* RELU6 at scale 6/255, zp -128: q(0) = -128, q(6) = -128 + round(255.0) = 127 */
    cr_assert_eq(rk_activation_range(RK_ACT_RELU6, 6.0f / 255.0f, -128, &a), RK_OK);
    cr_assert(a.min == -128 && a.max == 127);
    /* RELU6 at scale 0.05, zp -10: q(0) = -10, q(6) = -10 + 120 = 110 */
    cr_assert_eq(rk_activation_range(RK_ACT_RELU6, 0.05f, -10, &a), RK_OK);
    cr_assert(a.min == -10 && a.max == 110);
    /* RELU at zp 5: [5, 127]; RELU_N1_TO_1 at scale 0.1, zp 0: [-10, 10] */
    cr_assert_eq(rk_activation_range(RK_ACT_RELU, 0.5f, 5, &a), RK_OK);
    cr_assert(a.min == 5 && a.max == 127);
    cr_assert_eq(rk_activation_range(RK_ACT_RELU_N1_TO_1, 0.1f, 0, &a), RK_OK);
    cr_assert(a.min == -10 && a.max == 10);
    cr_assert_eq(rk_activation_range(RK_ACT_NONE, 0.1f, 0, &a), RK_OK);
    cr_assert(a.min == -128 && a.max == 127);
    cr_assert_eq(rk_activation_range((rk_fused_act)4, 0.1f, 0, &a), RK_ARG);   /* TANH */
}

Test(tflite_kernels, softmax_prepare_hand_values)
{
    rk_softmax_params p;
    /* beta 1, input scale 1/16: 2^-4 * 2^26 = 2^22 = 0.5 * 2^23: multiplier
    ** 2^30, left shift 23; diff_min = -floor(31 * 2^26 / 2^23) = -248 */
    cr_assert_eq(rk_prepare_softmax(1.0f, 0.0625f, 1.0f / 256, -128, &p), RK_OK);
    cr_assert(p.input_multiplier == 1 << 30 && p.input_left_shift == 23 && p.diff_min == -248);
    /* beta 2, scale 1/2: 2^26 = 0.5 * 2^27 -> (2^30, 27), -floor(31 / 2) = -15 */
    cr_assert_eq(rk_prepare_softmax(2.0f, 0.5f, 1.0f / 256, -128, &p), RK_OK);
    cr_assert(p.input_multiplier == 1 << 30 && p.input_left_shift == 27 && p.diff_min == -15);
    /* a large scale caps the multiplier at 2^31 - 1 (shift 31, diff_min 0) */
    cr_assert_eq(rk_prepare_softmax(1.0f, 1000.0f, 1.0f / 256, -128, &p), RK_OK);
    cr_assert(p.input_multiplier == INT32_MAX && p.input_left_shift == 31 && p.diff_min == 0);
    /* the output must be exactly scale 1/256, zero point -128 */
    cr_assert_eq(rk_prepare_softmax(1.0f, 0.0625f, 1.0f / 255, -128, &p), RK_ARG);
    cr_assert_eq(rk_prepare_softmax(1.0f, 0.0625f, 1.0f / 256, 0, &p), RK_ARG);
    /* beta * scale * 2^26 <= 1: QuantizeMultiplierGreaterThanOne's check fails */
    cr_assert_eq(rk_prepare_softmax(1.0f, 1e-9f, 1.0f / 256, -128, &p), RK_ARG);
    cr_assert_eq(rk_calculate_input_radius(5, 23, 31), 248);
    cr_assert_eq(rk_calculate_input_radius(5, 0, 31), 31 << 26);
}

/* Integers TensorFlow Lite Micro (the vendored tree, commit 90b983c2)
** computes in Prepare for the vendored models' own scales (read exactly, as
** hex floats, out of the .tflite files): its PreprocessSoftmaxScaling /
** CalculateInputRadius, CalculateOpDataAdd, CalculateOpDataFullyConnected
** and QuantizeMultiplier, run by a probe linked with libtflm.a.  Pinned
** here as an outside implementation. */
Test(tflite_kernels, prepare_equals_tflm_on_the_vendored_models)
{
    static const struct { const char *model; float scale; int32_t mult, shift, diff_min; } sm[4] = {
        {"mlperf-tiny pretrainedResnet_quant", 0x1.5ff4bcp-3f, 1476210432, 24, -124},
        {"mlperf-tiny vww_96_int8", 0x1.df998p-7f, 2011586560, 20, -1984},
        {"mlperf-tiny kws_ref_model", 0x1.28548cp-3f, 1242899200, 24, -124},
        {"tflite-micro micro_speech_quantized", 0x1.77bbe4p-4f, 1575942400, 23, -248},
    };
    for (int i = 0; i < 4; i++) {
        rk_softmax_params p;
        cr_assert_eq(rk_prepare_softmax(1.0f, sm[i].scale, 1.0f / 256, -128, &p), RK_OK);
        cr_assert(p.input_multiplier == sm[i].mult && p.input_left_shift == sm[i].shift && p.diff_min == sm[i].diff_min,
                  "%s SOFTMAX: %d %d %d", sm[i].model, p.input_multiplier, p.input_left_shift, p.diff_min);
    }
    /* pretrainedResnet_quant op 3, ADD with RELU */
    rk_add_params a;
    cr_assert_eq(rk_prepare_add(0x1.42b644p-5f, -128, 0x1.aac856p-4f, 4, 0x1.a158d2p-5f, -128, RK_ACT_RELU, &a), RK_OK);
    cr_assert(a.input1_multiplier == 1623821475 && a.input1_shift == -2 && a.input2_multiplier == 1073741824 &&
              a.input2_shift == 0 && a.output_multiplier == 1098017566 && a.output_shift == -17 && a.act.min == -128 &&
              a.act.max == 127);
    /* pretrainedResnet_quant op 14, FULLY_CONNECTED per tensor with a bias */
    int32_t m, s;
    const float bias_scale = 0x1.fce3c4p-9f;
    cr_assert_eq(rk_prepare_fc_per_tensor(0x1.043cd4p-3f, 0x1.f49a68p-6f, 0x1.5ff4bcp-3f, &bias_scale, &m, &s), RK_OK);
    cr_assert(m == 1552512742 && s == -5, "%d %d", m, s);
    /* tinyengine vww (MCUNet-VWW) ops 59, 60: MEAN, one quantization */
    rk_mean_params mp;
    cr_assert_eq(rk_prepare_mean(0x1.8da90ep-5f, 6, 0x1.8da90ep-5f, 6, &mp), RK_OK);
    cr_assert(mp.multiplier == 1 << 30 && mp.shift == 1);
}

Test(tflite_kernels, add_prepare_hand_values)
{
    rk_add_params p;
    /* scales 0.5 and 0.25, output 0.5: twice max = 1.0; 0.5 -> (2^30, 0),
    ** 0.25 -> (2^30, -1); 1 / (2^20 * 0.5) = 2^-19 -> (2^30, -18) */
    cr_assert_eq(rk_prepare_add(0.5f, 3, 0.25f, -7, 0.5f, 10, RK_ACT_RELU, &p), RK_OK);
    cr_assert(p.input1_offset == -3 && p.input2_offset == 7 && p.output_offset == 10 && p.left_shift == 20);
    cr_assert(p.input1_multiplier == 1 << 30 && p.input1_shift == 0);
    cr_assert(p.input2_multiplier == 1 << 30 && p.input2_shift == -1);
    cr_assert(p.output_multiplier == 1 << 30 && p.output_shift == -18);
    cr_assert(p.act.min == 10 && p.act.max == 127);
    /* an output scale so small that twice / (2^20 * s) >= 1: TFLM's check fails */
    cr_assert_eq(rk_prepare_add(0.5f, 0, 0.5f, 0, 1e-7f, 0, RK_ACT_NONE, &p), RK_ARG);
}

Test(tflite_kernels, conv_and_fc_prepare_hand_values)
{
    int32_t m[3], s[3];
    /* in 0.5, filters 0.25 / 0.125 / 1.0, out 0.25: 0.5, 0.25, 2.0 */
    const float fs[3] = {0.25f, 0.125f, 1.0f};
    cr_assert_eq(rk_prepare_conv_per_channel(0.5f, fs, 3, 0.25f, 3, m, s), RK_OK);
    cr_assert(m[0] == 1 << 30 && s[0] == 0 && m[1] == 1 << 30 && s[1] == -1 && m[2] == 1 << 30 && s[2] == 2);
    /* one per-tensor scale broadcast to every channel */
    cr_assert_eq(rk_prepare_conv_per_channel(0.5f, fs, 1, 0.25f, 3, m, s), RK_OK);
    cr_assert(s[0] == 0 && s[1] == 0 && s[2] == 0);
    cr_assert_eq(rk_prepare_conv_per_channel(0.5f, fs, 2, 0.25f, 3, m, s), RK_ARG);
    /* FC per tensor: 0.5 * 0.25 / 0.25 = 0.5; the bias scale 0.125 is
    ** exactly the product; 0.13 is off by 0.005 / 0.25 = 0.02: still
    ** accepted; 0.14 (0.06) refused */
    float b = 0.125f;
    cr_assert_eq(rk_prepare_fc_per_tensor(0.5f, 0.25f, 0.25f, &b, m, s), RK_OK);
    cr_assert(m[0] == 1 << 30 && s[0] == 0);
    b = 0.14f;
    cr_assert_eq(rk_prepare_fc_per_tensor(0.5f, 0.25f, 0.25f, &b, m, s), RK_ARG);
    cr_assert_eq(rk_prepare_fc_per_tensor(0.5f, 0.25f, 0.25f, NULL, m, s), RK_OK);
}

/* FULLY_CONNECTED per tensor takes the input x filter product in float,
** CONV_2D in double: on random scales both are QuantizeMultiplier of their
** own product, and the two differ somewhere (so the helper cannot be
** using one formula for both). */
Test(tflite_kernels, fc_per_tensor_uses_the_float_product)
{
    rng_state = 2002;
    int differ = 0;
    for (int i = 0; i < 5000; i++) {
        const float a = fabsf(random_float(-12, -1)), w = fabsf(random_float(-10, -3)), o = fabsf(random_float(-8, 0));
        int32_t mf, sf, mc, sc, me, se;
        if (rk_prepare_fc_per_tensor(a, w, o, NULL, &mf, &sf) != RK_OK)
            continue;
        cr_assert_eq(rk_quantize_multiplier((double)(a * w) / (double)o, &me, &se), RK_OK);
        cr_assert(mf == me && sf == se);
        cr_assert_eq(rk_prepare_conv_per_channel(a, &w, 1, o, 1, &mc, &sc), RK_OK);
        cr_assert_eq(rk_quantize_multiplier((double)a * (double)w / (double)o, &me, &se), RK_OK);
        cr_assert(mc == me && sc == se);
        differ += mf != mc || sf != sc;
    }
    cr_assert_gt(differ, 0, "float and double products never differed");
}

/* Brute force over small axes: SAME gives ceil(in / s) outputs, VALID the
** outputs whose window fits; p_lo is half the total padding, p_hi the rest,
** and the convolution extent of in + p_lo + p_hi is out. */
Test(tflite_kernels, padding_prepare_brute_force)
{
    for (int same = 0; same < 2; same++)
        for (int32_t in = 1; in <= 40; in++)
            for (int32_t k = 1; k <= 7; k++)
                for (int32_t st = 1; st <= 4; st++)
                    for (int32_t d = 1; d <= 3; d++) {
                        int32_t out, lo, hi;
                        const int32_t keff = (k - 1) * d + 1;
                        const rk_status r = rk_prepare_padding(same, in, k, st, d, &out, &lo, &hi);
                        int32_t want = 0;
                        if (same)
                            want = (in + st - 1) / st;
                        else
                            for (int32_t y = 0; y * st + keff <= in; y++)
                                want = y + 1;
                        if (want == 0) {
                            cr_assert_eq(r, RK_ARG);
                            continue;
                        }
                        cr_assert_eq(r, RK_OK);
                        cr_assert_eq(out, want);
                        int32_t total = (out - 1) * st + keff - in;
                        total = total > 0 ? total : 0;
                        cr_assert(lo == total / 2 && hi == total - total / 2);
                        cr_assert_eq((in + lo + hi - keff) / st + 1, out);
                        if (!same)
                            cr_assert(lo == 0 && hi == 0);
                    }
}

/* ------------------------------------------------------------- softmax */

static rk_status run_softmax(const rk_softmax_params *p, int rows, int depth, const int8_t *in, int8_t *out)
{
    cr_assert_eq(rk_softmax_buffer_size(p, rows, depth), 0);
    return rk_softmax(p, rows, depth, in, out);
}

Test(tflite_kernels, softmax_hand_values)
{
    rk_softmax_params p;
    cr_assert_eq(rk_prepare_softmax(1.0f, 0.0625f, 1.0f / 256, -128, &p), RK_OK);
    int8_t out[4];
    /* one entry: probability 1 = 256/256, clamped to 127 */
    const int8_t one[1] = {-7};
    cr_assert_eq(run_softmax(&p, 1, 1, one, out), RK_OK);
    cr_assert_eq(out[0], 127);
    /* two equal entries: 1/2 each = 128/256 -> 0 */
    const int8_t two[2] = {5, 5};
    cr_assert_eq(run_softmax(&p, 1, 2, two, out), RK_OK);
    cr_assert(out[0] == 0 && out[1] == 0);
    /* differences 0 and -16 at scale 1/16 (real 0 and -1): probabilities
    ** 1 / (1 + e^-1) = 0.7311 and 0.2689, 187.2 and 68.8 in 1/256:
    ** 187 - 128 = 59, 69 - 128 = -59 */
    const int8_t pair[2] = {20, 4};
    cr_assert_eq(run_softmax(&p, 1, 2, pair, out), RK_OK);
    cr_assert(out[0] == 59 && out[1] == -59, "%d %d", out[0], out[1]);
    /* an entry below diff_min (-248) is exactly -128, and does not count:
    ** {127, -128}: difference -255 */
    const int8_t far[2] = {127, -128};
    cr_assert_eq(run_softmax(&p, 1, 2, far, out), RK_OK);
    cr_assert(out[0] == 127 && out[1] == -128);
    /* four equal entries: 64/256 -> -64 */
    const int8_t four[4] = {-3, -3, -3, -3};
    cr_assert_eq(run_softmax(&p, 1, 4, four, out), RK_OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(out[i], -64);
}

/* 511 entries at the maximum sum to 511 * 2^19 < 2^28 and are computed;
** 512 reach 2^28, where TFLM's TFLITE_CHECK(exponent <= 31) aborts: refused. */
Test(tflite_kernels, softmax_refuses_where_tflm_aborts)
{
    rk_softmax_params p;
    cr_assert_eq(rk_prepare_softmax(1.0f, 0.0625f, 1.0f / 256, -128, &p), RK_OK);
    int8_t in[2 * 512], out[2 * 512], ref[512];
    memset(in, 9, sizeof in);
    cr_assert_eq(run_softmax(&p, 1, 511, in, out), RK_OK);
    cr_assert(ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, 511, in, ref));
    cr_assert_eq(memcmp(out, ref, 511), 0);
    cr_assert(!ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, 512, in, ref));
    cr_assert_eq(run_softmax(&p, 2, 512, in, out), RK_ARG);
    /* the same depth with one clear maximum is fine */
    in[0] = 100;
    memset(in + 1, 0, 511);
    cr_assert_eq(run_softmax(&p, 1, 512, in, out), RK_OK);
    cr_assert(ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, 512, in, ref));
    cr_assert_eq(memcmp(out, ref, 512), 0);
}

Test(tflite_kernels, softmax_refuses_bad_parameters)
{
    rk_softmax_params p = {1 << 30, 23, -248};
    int8_t x[4] = {0}, y[4];
    cr_assert_eq(rk_softmax(&p, 1, 4, x, y), RK_OK);
    cr_assert_eq(rk_softmax(NULL, 1, 4, x, y), RK_ARG);
    cr_assert_eq(rk_softmax(&p, 0, 4, x, y), RK_ARG);
    cr_assert_eq(rk_softmax(&p, 1, 0, x, y), RK_ARG);
    cr_assert_eq(rk_softmax(&p, 1, 4, NULL, y), RK_ARG);
    rk_softmax_params q = p;
    q.input_left_shift = 32;
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
    q = p;
    q.diff_min = 1;
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
    q = p;
    q.input_left_shift = 24;   /* 248 * 2^24 > 2^31: the scaled difference would overflow */
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
    q = p;
    q.input_multiplier = -1;
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
}

/* Softmax parameters: mostly from a random beta and input scale through
** TFLM's Prepare (rk_prepare_softmax), else raw in the kernel's range with
** diff_min between TFLM's radius and 0. */
static void draw_softmax_params(rk_softmax_params *p)
{
    for (;;) {
        if (rng_int(0, 3) != 0) {
            const float beta = rng_int(0, 2) ? 1.0f : (float)ldexp(1.0 + (double)rng_int(0, 999) / 1000.0, (int)rng_int(-3, 3));
            const float scale = (float)ldexp(1.0 + (double)rng_int(0, 9999) / 10000.0, (int)rng_int(-12, 2));
            if (rk_prepare_softmax(beta, scale, 1.0f / 256, -128, p) == RK_OK)
                return;
            continue;
        }
        p->input_multiplier = (int32_t)rng_int((int64_t)1 << 30, INT32_MAX);
        p->input_left_shift = (int32_t)rng_int(0, 31);
        const int64_t radius = ((int64_t)31 << 26) >> p->input_left_shift;   /* floor(31 * 2^26 / 2^ls) */
        p->diff_min = -(int32_t)rng_int(0, radius);
        return;
    }
}

/* A row: uniform, clustered near one value, or a few high entries over a low floor. */
static void draw_softmax_row(int8_t *x, int depth)
{
    const int64_t kind = rng_int(0, 2);
    if (kind == 0) {
        fill_s8(x, (size_t)depth, -128, 127);
    } else if (kind == 1) {
        const int c = (int)rng_int(-100, 100), w = (int)rng_int(0, 27);
        fill_s8(x, (size_t)depth, c - w, c + w);
    } else {
        fill_s8(x, (size_t)depth, -128, -60);
        for (int k = 0; k < 3; k++)
            x[rng_int(0, depth - 1)] = (int8_t)rng_int(40, 127);
    }
}

Test(tflite_kernels, softmax_equals_reference_on_random_rows)
{
    rng_state = 2003;
    long rows_done = 0;
    for (int t = 0; t < 600; t++) {
        rk_softmax_params p;
        draw_softmax_params(&p);
        const int rows = (int)rng_int(1, 4), depth = rng_int(0, 4) ? (int)rng_int(1, 40) : (int)rng_int(41, 1200);
        int8_t *in = xmalloc((size_t)rows * (size_t)depth), *out = xmalloc((size_t)rows * (size_t)depth);
        int8_t *ref = xmalloc((size_t)rows * (size_t)depth);
        for (int r = 0; r < rows; r++)
            draw_softmax_row(in + (size_t)r * (size_t)depth, depth);
        bool ok = true;
        for (int r = 0; r < rows && ok; r++)
            ok = ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, depth,
                                 in + (size_t)r * (size_t)depth, ref + (size_t)r * (size_t)depth);
        const rk_status st = run_softmax(&p, rows, depth, in, out);
        cr_assert_eq(st, ok ? RK_OK : RK_ARG, "case %d: status %d, reference %s", t, st, ok ? "computes" : "aborts");
        if (ok) {
            for (int i = 0; i < rows * depth; i++)
                cr_assert_eq(out[i], ref[i], "case %d (mult %d shift %d diff_min %d depth %d) entry %d: %d, reference %d",
                             t, p.input_multiplier, p.input_left_shift, p.diff_min, depth, i, out[i], ref[i]);
            /* in place: the same bytes */
            cr_assert_eq(run_softmax(&p, rows, depth, in, in), RK_OK);
            cr_assert_eq(memcmp(in, ref, (size_t)rows * (size_t)depth), 0, "case %d in place", t);
            rows_done += rows;
        }
        free(in);
        free(out);
        free(ref);
    }
    cr_assert_gt(rows_done, 1000);
}

/* Every input difference 0..-255 at every left shift, one row per (diff,
** shift) pair against a row maximum: exercises the whole exp range. */
Test(tflite_kernels, softmax_every_difference_and_shift)
{
    rng_state = 2004;
    for (int32_t ls = 0; ls <= 31; ls++)
        for (int rep = 0; rep < 3; rep++) {
            rk_softmax_params p = {(int32_t)rng_int((int64_t)1 << 30, INT32_MAX), ls, 0};
            p.diff_min = -(int32_t)(((int64_t)31 << 26) >> ls);
            for (int d = 0; d <= 255; d++) {
                const int8_t in[3] = {127, (int8_t)(127 - d), (int8_t)(127 - d / 2)};
                int8_t out[3], ref[3];
                cr_assert(ref_softmax_row(p.input_multiplier, ls, p.diff_min, 3, in, ref));
                cr_assert_eq(run_softmax(&p, 1, 3, in, out), RK_OK);
                cr_assert(memcmp(out, ref, 3) == 0, "shift %d diff %d: %d %d %d vs %d %d %d", ls, d, out[0], out[1],
                          out[2], ref[0], ref[1], ref[2]);
            }
        }
}

/* ---------------------------------------------------------------- mean */

/* TFLM's mean, written from reduce.h: reduced axes resolved, every input
** added into its output (output index = the kept coordinates, row-major),
** then the eval-time multiplier scaling and MultiplyByQuantizedMultiplier. */
static void ref_mean(const rk_mean_params *p, rk_shape in, const int32_t *axis, int n_axis, const int8_t *x,
                     int8_t *y)
{
    bool red[RK_MAX_RANK] = {false};
    for (int i = 0; i < n_axis; i++)
        red[axis[i] < 0 ? axis[i] + in.rank : axis[i]] = true;
    rk_shape kept = {.rank = 0};
    int64_t count = 1;
    for (int d = 0; d < in.rank; d++) {
        if (red[d])
            count *= in.d[d];
        else
            kept.d[kept.rank++] = in.d[d];
    }
    const int64_t n_out = kept.rank ? count_of(kept) : 1;
    int64_t *sum = calloc((size_t)n_out, sizeof *sum);
    cr_assert_not_null(sum);
    const int64_t n = count_of(in);
    for (int64_t f = 0; f < n; f++) {
        int32_t idx[RK_MAX_RANK], kidx[RK_MAX_RANK];
        multi_index(in, f, idx);
        int k = 0;
        for (int d = 0; d < in.rank; d++)
            if (!red[d])
                kidx[k++] = idx[d];
        sum[kept.rank ? flat_index(kept, kidx) : 0] += x[f];
    }
    int shift = 0;
    while (((int64_t)1 << (shift + 1)) <= count)
        shift++;
    if (shift > 32)
        shift = 32;
    if (shift > 31 + p->shift)
        shift = 31 + p->shift;
    const int32_t m = (int32_t)(((int64_t)p->multiplier << shift) / count);
    for (int64_t o = 0; o < n_out; o++) {
        const int32_t diff = (int32_t)ref_wrap32(sum[o] - (int64_t)p->input_zero_point * count);
        y[o] = ref_clamp8((int64_t)ref_requantize(diff, m, p->shift - shift) + p->output_zero_point, -128, 127);
    }
    free(sum);
}

static rk_status run_mean(const rk_mean_params *p, rk_shape in, const int32_t *axis, int n_axis, const int8_t *x,
                          int8_t *y)
{
    cr_assert_eq(rk_mean_buffer_size(p, in, axis, n_axis), 0);
    return rk_mean(p, in, axis, n_axis, x, y);
}

Test(tflite_kernels, mean_hand_values)
{
    rk_mean_params p;
    int8_t y[4];
    /* same scales: QuantizeMultiplier(1) = (2^30, 1).  Count 4: s = 2,
    ** m = 2^30 * 4 / 4 = 2^30, e = -1: (1+2+3+4) = 10 -> 10 * 2^30 / 2^31 = 5
    ** -> 5 / 2 rounded away from zero = 3 (the mean 2.5) */
    cr_assert_eq(rk_prepare_mean(0.5f, 0, 0.5f, 0, &p), RK_OK);
    cr_assert(p.multiplier == 1 << 30 && p.shift == 1);
    const int32_t d4[4] = {1, 2, 2, 1}, hw[2] = {1, 2};
    const int8_t x4[4] = {1, 2, 3, 4}, xn[4] = {-1, -2, -3, -4};
    cr_assert_eq(run_mean(&p, shape_of(4, d4), hw, 2, x4, y), RK_OK);
    cr_assert_eq(y[0], 3);
    cr_assert_eq(run_mean(&p, shape_of(4, d4), hw, 2, xn, y), RK_OK);
    cr_assert_eq(y[0], -3);
    /* count 3: s = 1, m = floor(2^31 / 3) = 715827882, e = 0: sum 4 ->
    ** round(4 * 715827882 / 2^31) = round(1.33) = 1 */
    const int32_t d3[2] = {1, 3}, last[1] = {-1};
    const int8_t x3[3] = {1, 1, 2};
    cr_assert_eq(run_mean(&p, shape_of(2, d3), last, 1, x3, y), RK_OK);
    cr_assert_eq(y[0], 1);
    /* zero points: input zp 10, output zp -5: {12, 14} -> 26 - 20 = 6,
    ** count 2 (s = 1, m = 2^30, e = 0): 3, then -5 -> -2 */
    cr_assert_eq(rk_prepare_mean(0.5f, 10, 0.5f, -5, &p), RK_OK);
    const int32_t d2[1] = {2}, a0[1] = {0};
    const int8_t x2[2] = {12, 14};
    cr_assert_eq(run_mean(&p, shape_of(1, d2), a0, 1, x2, y), RK_OK);
    cr_assert_eq(y[0], -2);
    /* scales 0.5 -> 0.25: QuantizeMultiplier(2) = (2^30, 2); count 2: m = 2^30,
    ** e = 1: {1, 2} -> 3 * 2 * 2^30 / 2^31 = 3 (mean 1.5 * 0.5 / 0.25 = 3) */
    cr_assert_eq(rk_prepare_mean(0.5f, 0, 0.25f, 0, &p), RK_OK);
    const int8_t x12[2] = {1, 2};
    cr_assert_eq(run_mean(&p, shape_of(1, d2), a0, 1, x12, y), RK_OK);
    cr_assert_eq(y[0], 3);
    /* keep_dims or not, axes {1, 2} of [1, 2, 2, 2]: per channel, and a
    ** duplicated / negative axis changes nothing */
    cr_assert_eq(rk_prepare_mean(0.5f, 0, 0.5f, 0, &p), RK_OK);
    const int32_t d222[4] = {1, 2, 2, 2}, dup[3] = {1, -2, 2};
    const int8_t x8[8] = {1, 10, 2, 20, 3, 30, 4, 40};
    cr_assert_eq(run_mean(&p, shape_of(4, d222), dup, 3, x8, y), RK_OK);
    cr_assert(y[0] == 3 && y[1] == 25);   /* 2.5 -> 3, 25 */
    const int32_t bad[1] = {4};
    cr_assert_eq(run_mean(&p, shape_of(4, d222), bad, 1, x8, y), RK_ARG);
}

Test(tflite_kernels, mean_equals_reference_on_random_tensors)
{
    rng_state = 2005;
    for (int t = 0; t < 800; t++) {
        const int rank = (int)rng_int(1, RK_MAX_RANK);
        const rk_shape in = random_shape(rank, 7, 4000);
        int32_t axis[8];
        const int n_axis = (int)rng_int(0, rank + 1);
        for (int i = 0; i < n_axis; i++)
            axis[i] = (int32_t)rng_int(-rank, rank - 1);
        rk_mean_params p;
        const float si = (float)ldexp(1.0 + (double)rng_int(0, 999) / 1000.0, (int)rng_int(-9, -1));
        const float so = rng_int(0, 2) ? si : (float)ldexp(1.0 + (double)rng_int(0, 999) / 1000.0, (int)rng_int(-9, -1));
        cr_assert_eq(rk_prepare_mean(si, (int32_t)rng_int(-128, 127), so, (int32_t)rng_int(-128, 127), &p), RK_OK);
        const int64_t n = count_of(in);
        int8_t *x = xmalloc((size_t)n), *y = xmalloc((size_t)n), *r = xmalloc((size_t)n);
        fill_s8(x, (size_t)n, -128, 127);
        memset(y, 0x5a, (size_t)n);
        ref_mean(&p, in, axis, n_axis, x, r);
        cr_assert_eq(run_mean(&p, in, axis, n_axis, x, y), RK_OK);
        bool red[RK_MAX_RANK] = {false};
        for (int i = 0; i < n_axis; i++)
            red[axis[i] < 0 ? axis[i] + rank : axis[i]] = true;
        int64_t n_out = 1;
        for (int d = 0; d < rank; d++)
            n_out *= red[d] ? 1 : in.d[d];
        cr_assert_eq(memcmp(y, r, (size_t)n_out), 0, "case %d", t);
        /* in place */
        cr_assert_eq(run_mean(&p, in, axis, n_axis, x, x), RK_OK);
        cr_assert_eq(memcmp(x, r, (size_t)n_out), 0, "case %d in place", t);
        free(x);
        free(y);
        free(r);
    }
}

/* MCUNet-VWW's tail (tinyengine vww.tflite): MEAN over axis 3 of
** [1, 160, 3, 3], then over axis 2 of [1, 160, 3], one quantization
** (scale 0.048543..., zero point 6), and the large counts a global mean
** of a big map has (count 2^k and not). */
Test(tflite_kernels, mean_model_shapes_and_large_counts)
{
    rng_state = 2006;
    rk_mean_params p;
    cr_assert_eq(rk_prepare_mean(0.048543f, 6, 0.048543f, 6, &p), RK_OK);
    const int32_t d1[4] = {1, 160, 3, 3}, d2[3] = {1, 160, 3}, a3[1] = {3}, a2[1] = {2};
    int8_t x[1440], y1[480], y2[160], r1[480], r2[160];
    fill_s8(x, sizeof x, -128, 127);
    cr_assert_eq(run_mean(&p, shape_of(4, d1), a3, 1, x, y1), RK_OK);
    ref_mean(&p, shape_of(4, d1), a3, 1, x, r1);
    cr_assert_eq(memcmp(y1, r1, sizeof y1), 0);
    cr_assert_eq(run_mean(&p, shape_of(3, d2), a2, 1, y1, y2), RK_OK);
    ref_mean(&p, shape_of(3, d2), a2, 1, r1, r2);
    cr_assert_eq(memcmp(y2, r2, sizeof y2), 0);
    const int32_t sizes[4][4] = {{1, 64, 64, 2}, {1, 63, 65, 2}, {1, 128, 160, 1}, {1, 7, 7, 3}};
    for (int k = 0; k < 4; k++) {
        const rk_shape s = shape_of(4, sizes[k]);
        const int64_t n = count_of(s);
        int8_t *big = xmalloc((size_t)n), got[3], want[3];
        fill_s8(big, (size_t)n, rng_int(0, 1) ? -128 : 100, 127);
        for (int q = 0; q < 3; q++) {
            const float so = q == 0 ? 0.048543f : q == 1 ? 0.01f : 0.5f;
            cr_assert_eq(rk_prepare_mean(0.048543f, 6, so, -3, &p), RK_OK);
            cr_assert_eq(run_mean(&p, s, (const int32_t[2]){1, 2}, 2, big, got), RK_OK);
            ref_mean(&p, s, (const int32_t[2]){1, 2}, 2, big, want);
            cr_assert_eq(memcmp(got, want, (size_t)s.d[3]), 0, "shape %d scale %d", k, q);
        }
        free(big);
    }
}

/* ------------------------------------------- quantize / dequantize / requantize */

/* TFLM's AffineQuantize expression with libm's roundf, for |x / scale| < 2^31. */
static int8_t ref_quantize(float x, float scale, int32_t zp)
{
    const float q = roundf(x / scale);
    return ref_clamp8((int64_t)(int32_t)q + zp, -128, 127);
}

Test(tflite_kernels, quantize_hand_values)
{
    const rk_affine q = {0.5f, 0};
    const float x[9] = {1.25f, -1.25f, 0.74f, 0.25f, -0.25f, 100.0f, -100.0f, 0.0f, -0.0f};
    /* 2.5 -> 3, -2.5 -> -3 (ties away from zero), 1.48 -> 1, 0.5 -> 1,
    ** -0.5 -> -1, 200 -> 127, -200 -> -128, 0, 0 */
    const int8_t want[9] = {3, -3, 1, 1, -1, 127, -128, 0, 0};
    int8_t y[9];
    cr_assert_eq(rk_quantize_f32_buffer_size(&q, 9), 0);
    cr_assert_eq(rk_quantize_f32(&q, 9, x, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 9), 0);
    /* zero point 100: 1.25 -> 103; 20 -> 140 -> 127 */
    const rk_affine z = {0.5f, 100};
    const float x2[2] = {1.25f, 20.0f};
    cr_assert_eq(rk_quantize_f32(&z, 2, x2, y), RK_OK);
    cr_assert(y[0] == 103 && y[1] == 127);
    /* outside TFLM's defined domain: +-inf saturate, NaN counts as 0 */
    const float odd[3] = {INFINITY, -INFINITY, NAN};
    const rk_affine w = {0.1f, -20};
    cr_assert_eq(rk_quantize_f32(&w, 3, odd, y), RK_OK);
    cr_assert(y[0] == 127 && y[1] == -128 && y[2] == -20);
    const rk_affine bad = {0.0f, 0}, badzp = {1.0f, 128};
    cr_assert_eq(rk_quantize_f32(&bad, 1, x, y), RK_ARG);
    cr_assert_eq(rk_quantize_f32(&badzp, 1, x, y), RK_ARG);
}

Test(tflite_kernels, quantize_equals_reference_on_random_floats)
{
    rng_state = 2007;
    float x[512];
    int8_t y[512];
    for (int t = 0; t < 400; t++) {
        const rk_affine q = {fabsf(random_float(-12, 4)), (int32_t)rng_int(-128, 127)};
        for (int i = 0; i < 512; i++) {
            const int64_t k = rng_int(0, 3);
            if (k == 0)   /* exact ties: (n + 1/2) * scale with a power-of-two scale is exact */
                x[i] = (float)((double)rng_int(-300, 300) + 0.5) * (float)ldexp(1.0, (int)rng_int(-10, 3));
            else if (k == 1)
                x[i] = ((float)rng_int(-40000, 40000) / 100.0f) * q.scale;
            else
                x[i] = random_float(-30, 20);
        }
        cr_assert_eq(rk_quantize_f32(&q, 512, x, y), RK_OK);
        for (int i = 0; i < 512; i++) {
            const float v = x[i] / q.scale;
            if (!(fabsf(v) < 2147483648.0f))
                continue;   /* outside TFLM's defined domain: the hand-value test covers it */
            cr_assert_eq(y[i], ref_quantize(x[i], q.scale, q.zero_point), "case %d x %a scale %a zp %d", t,
                         (double)x[i], (double)q.scale, q.zero_point);
        }
        /* in place: int8 outputs over the float input, from the same address */
        float *buf = xmalloc(sizeof x);
        memcpy(buf, x, sizeof x);
        cr_assert_eq(rk_quantize_f32(&q, 512, buf, (int8_t *)buf), RK_OK);
        cr_assert_eq(memcmp(buf, y, 512), 0);
        free(buf);
    }
}

/* Every int8 value at every zero point against TFLM's double product
** (float)((double)scale * (q - zp)), on random scales over the whole float
** range, tiny (subnormal products) and huge ones included. */
Test(tflite_kernels, dequantize_equals_the_double_product)
{
    rng_state = 2008;
    int8_t in[256];
    float out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (int8_t)(i - 128);
    for (int t = 0; t < 3000; t++) {
        const rk_affine q = {fabsf(random_float(-149, 120)), (int32_t)rng_int(-128, 127)};
        if (!(q.scale > 0.0f))
            continue;
        cr_assert_eq(rk_dequantize_f32_buffer_size(&q, 256), 0);
        cr_assert_eq(rk_dequantize_f32(&q, 256, in, out), RK_OK);
        for (int i = 0; i < 256; i++) {
            const float want = (float)((double)q.scale * (double)(in[i] - q.zero_point));
            cr_assert(memcmp(&out[i], &want, sizeof want) == 0, "scale %a zp %d q %d: %a vs %a", (double)q.scale,
                      q.zero_point, in[i], (double)out[i], (double)want);
        }
    }
    /* hand: scale 0.5, zp 3: q = 10 -> 3.5 */
    const rk_affine h = {0.5f, 3};
    cr_assert_eq(rk_dequantize_f32(&h, 1, (const int8_t[1]){10}, out), RK_OK);
    cr_assert(out[0] == 3.5f);
}

Test(tflite_kernels, requantize_hand_and_random)
{
    rk_requant_params p;
    int8_t y[4];
    /* scale 1 -> 0.5: QuantizeMultiplier(2) = (2^30, 2); zps 1 -> -2:
    ** x = 4: (3 * 4 * 2^30) / 2^31 = 6, -2 -> 4; x = 100: 198 -> 127 */
    cr_assert_eq(rk_prepare_requantize(1.0f, 1, 0.5f, -2, &p), RK_OK);
    cr_assert(p.multiplier == 1 << 30 && p.shift == 2);
    cr_assert_eq(rk_requantize_s8_buffer_size(&p, 2), 0);
    cr_assert_eq(rk_requantize_s8(&p, 2, (const int8_t[2]){4, 100}, y), RK_OK);
    cr_assert(y[0] == 4 && y[1] == 127);
    rng_state = 2009;
    int8_t x[300], r[300];
    for (int t = 0; t < 500; t++) {
        const float si = fabsf(random_float(-10, 0)), so = fabsf(random_float(-10, 0));
        if (rk_prepare_requantize(si, (int32_t)rng_int(-128, 127), so, (int32_t)rng_int(-128, 127), &p) != RK_OK)
            continue;
        fill_s8(x, sizeof x, -128, 127);
        for (int i = 0; i < 300; i++)
            r[i] = ref_clamp8((int64_t)ref_requantize(x[i] - p.input_zero_point, p.multiplier, p.shift) +
                                  p.output_zero_point,
                              -128, 127);
        int8_t got[300];
        cr_assert_eq(rk_requantize_s8(&p, 300, x, got), RK_OK);
        cr_assert_eq(memcmp(got, r, 300), 0, "case %d", t);
        cr_assert_eq(rk_requantize_s8(&p, 300, x, x), RK_OK);
        cr_assert_eq(memcmp(x, r, 300), 0, "case %d in place", t);
    }
}

/* ------------------------------------------------ pad, transpose, concat */

Test(tflite_kernels, pad_hand_values)
{
    /* [1, 2, 2, 1] = 1 2 / 3 4, one row above and one column on the right,
    ** value 9:  9 9 9 / 1 2 9 / 3 4 9 */
    const int32_t d[4] = {1, 2, 2, 1};
    rk_pad_params p = {.before = {0, 1, 0, 0}, .after = {0, 0, 1, 0}, .value = 9};
    const int8_t x[4] = {1, 2, 3, 4}, want[9] = {9, 9, 9, 1, 2, 9, 3, 4, 9};
    int8_t y[9];
    rk_shape out;
    cr_assert(rk_pad_output_shape(&p, shape_of(4, d), &out));
    cr_assert(out.rank == 4 && out.d[0] == 1 && out.d[1] == 3 && out.d[2] == 3 && out.d[3] == 1);
    cr_assert_eq(rk_pad_buffer_size(&p, shape_of(4, d)), 0);
    cr_assert_eq(rk_pad(&p, shape_of(4, d), x, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 9), 0);
    p.before[1] = -1;
    cr_assert_eq(rk_pad(&p, shape_of(4, d), x, y), RK_ARG);
}

/* Reference: every output multi-index, inside the box or not. */
static void ref_pad(const rk_pad_params *p, rk_shape in, const int8_t *x, int8_t *y)
{
    rk_shape out = in;
    for (int i = 0; i < in.rank; i++)
        out.d[i] = in.d[i] + p->before[i] + p->after[i];
    const int64_t n = count_of(out);
    for (int64_t f = 0; f < n; f++) {
        int32_t idx[RK_MAX_RANK];
        multi_index(out, f, idx);
        bool inside = true;
        for (int i = 0; i < in.rank; i++) {
            idx[i] -= p->before[i];
            inside = inside && idx[i] >= 0 && idx[i] < in.d[i];
        }
        y[f] = inside ? x[flat_index(in, idx)] : p->value;
    }
}

Test(tflite_kernels, pad_equals_reference_on_random_tensors)
{
    rng_state = 2010;
    for (int t = 0; t < 600; t++) {
        const rk_shape in = random_shape((int)rng_int(1, RK_MAX_RANK), 6, 2000);
        rk_pad_params p = {.value = (int8_t)rng_int(-128, 127)};
        for (int i = 0; i < in.rank; i++) {
            p.before[i] = rng_int(0, 2) ? 0 : (int32_t)rng_int(0, 3);
            p.after[i] = rng_int(0, 2) ? 0 : (int32_t)rng_int(0, 3);
        }
        rk_shape out;
        cr_assert(rk_pad_output_shape(&p, in, &out));
        const size_t n_in = (size_t)count_of(in), n_out = (size_t)count_of(out);
        int8_t *x = xmalloc(n_in), *y = xmalloc(n_out), *r = xmalloc(n_out);
        fill_s8(x, n_in, -128, 127);
        memset(y, 0x5a, n_out);
        ref_pad(&p, in, x, r);
        cr_assert_eq(rk_pad(&p, in, x, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n_out), 0, "case %d", t);
        free(x);
        free(y);
        free(r);
    }
}

Test(tflite_kernels, transpose_hand_values)
{
    /* [2, 3] = 1 2 3 / 4 5 6, perm (1, 0): [3, 2] = 1 4 / 2 5 / 3 6 */
    const int32_t d[2] = {2, 3};
    const rk_transpose_params p = {.perm = {1, 0}};
    const int8_t x[6] = {1, 2, 3, 4, 5, 6}, want[6] = {1, 4, 2, 5, 3, 6};
    int8_t y[6];
    cr_assert_eq(rk_transpose_buffer_size(&p, shape_of(2, d)), 0);
    cr_assert_eq(rk_transpose(&p, shape_of(2, d), x, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 6), 0);
    const rk_transpose_params rep = {.perm = {0, 0}}, range = {.perm = {0, 2}};
    cr_assert_eq(rk_transpose(&rep, shape_of(2, d), x, y), RK_ARG);
    cr_assert_eq(rk_transpose(&range, shape_of(2, d), x, y), RK_ARG);
}

/* Reference: output multi-index o reads input i with i[perm[k]] = o[k]. */
static void ref_transpose(const int32_t *perm, rk_shape in, const int8_t *x, int8_t *y)
{
    rk_shape out = in;
    for (int k = 0; k < in.rank; k++)
        out.d[k] = in.d[perm[k]];
    const int64_t n = count_of(out);
    for (int64_t f = 0; f < n; f++) {
        int32_t o[RK_MAX_RANK], i[RK_MAX_RANK];
        multi_index(out, f, o);
        for (int k = 0; k < in.rank; k++)
            i[perm[k]] = o[k];
        y[f] = x[flat_index(in, i)];
    }
}

Test(tflite_kernels, transpose_equals_reference_on_random_tensors)
{
    rng_state = 2011;
    for (int t = 0; t < 600; t++) {
        const int rank = t == 0 ? 4 : (int)rng_int(1, RK_MAX_RANK);
        /* case 0: MCUNet-VWW's [1, 3, 3, 160] -> perm (0, 3, 1, 2) */
        const rk_shape in = t == 0 ? shape_of(4, (const int32_t[4]){1, 3, 3, 160}) : random_shape(rank, 7, 3000);
        rk_transpose_params p;
        for (int k = 0; k < rank; k++)
            p.perm[k] = k;
        if (t == 0) {
            const int32_t vww[4] = {0, 3, 1, 2};
            memcpy(p.perm, vww, sizeof vww);
        } else {
            for (int k = rank - 1; k > 0; k--) {   /* Fisher-Yates */
                const int j = (int)rng_int(0, k);
                const int32_t tmp = p.perm[k];
                p.perm[k] = p.perm[j];
                p.perm[j] = tmp;
            }
        }
        const size_t n = (size_t)count_of(in);
        int8_t *x = xmalloc(n), *y = xmalloc(n), *r = xmalloc(n);
        fill_s8(x, n, -128, 127);
        ref_transpose(p.perm, in, x, r);
        cr_assert_eq(rk_transpose(&p, in, x, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n), 0, "case %d", t);
        rk_shape out;
        cr_assert(rk_transpose_output_shape(&p, in, &out));
        for (int k = 0; k < rank; k++)
            cr_assert_eq(out.d[k], in.d[p.perm[k]]);
        free(x);
        free(y);
        free(r);
    }
}

Test(tflite_kernels, concat_hand_values)
{
    /* [2, 1] (1 2) and [2, 2] (3 4 / 5 6) along axis 1 (also given as -1):
    ** 1 3 4 / 2 5 6 */
    const rk_shape s[2] = {shape_of(2, (const int32_t[2]){2, 1}), shape_of(2, (const int32_t[2]){2, 2})};
    const int8_t a[2] = {1, 2}, b[4] = {3, 4, 5, 6}, want[6] = {1, 3, 4, 2, 5, 6};
    const int8_t *in[2] = {a, b};
    int8_t y[6];
    for (int32_t axis = -1; axis <= 1; axis += 2) {
        const rk_concat_params p = {axis, 2};
        cr_assert_eq(rk_concat_buffer_size(&p, s), 0);
        cr_assert_eq(rk_concat(&p, s, in, y), RK_OK);
        cr_assert_eq(memcmp(y, want, 6), 0);
    }
    const rk_concat_params p0 = {0, 2};   /* axis 0: the other extents differ */
    cr_assert_eq(rk_concat(&p0, s, in, y), RK_ARG);
}

Test(tflite_kernels, concat_equals_reference_on_random_tensors)
{
    rng_state = 2012;
    for (int t = 0; t < 500; t++) {
        const int rank = (int)rng_int(1, RK_MAX_RANK), n_in = (int)rng_int(1, 5);
        const rk_shape base = random_shape(rank, 5, 600);
        const int axis = (int)rng_int(0, rank - 1);
        rk_shape s[5];
        int8_t *in[5];
        for (int i = 0; i < n_in; i++) {
            s[i] = base;
            s[i].d[axis] = (int32_t)rng_int(1, 4);
            in[i] = xmalloc((size_t)count_of(s[i]));
            fill_s8(in[i], (size_t)count_of(s[i]), -128, 127);
        }
        const rk_concat_params p = {rng_int(0, 1) ? axis : axis - rank, n_in};
        rk_shape out;
        cr_assert(rk_concat_output_shape(&p, s, &out));
        const size_t n = (size_t)count_of(out);
        int8_t *y = xmalloc(n), *r = xmalloc(n);
        /* reference: output coordinate along axis -> (input, its coordinate) */
        for (size_t f = 0; f < n; f++) {
            int32_t idx[RK_MAX_RANK];
            multi_index(out, (int64_t)f, idx);
            int i = 0;
            while (idx[axis] >= s[i].d[axis])
                idx[axis] -= s[i++].d[axis];
            r[f] = in[i][flat_index(s[i], idx)];
        }
        cr_assert_eq(rk_concat(&p, s, (const int8_t *const *)in, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n), 0, "case %d", t);
        for (int i = 0; i < n_in; i++)
            free(in[i]);
        free(y);
        free(r);
    }
}

/* ------------------------------------------------------- nearest resize */

/* TFLM's GetNearestNeighbor with libm's floorf / roundf. */
static int32_t ref_nearest(int32_t o, int32_t in, int32_t out, bool align, bool half)
{
    const float scale = (align && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float v = ((float)o + (half ? 0.5f : 0.0f)) * scale;
    int32_t i = align ? (int32_t)roundf(v) : (int32_t)floorf(v);
    i = i < in - 1 ? i : in - 1;
    return half && i < 0 ? 0 : i;
}

Test(tflite_kernels, resize_nearest_hand_values)
{
    /* 2 -> 3: no flags, scale 2/3: 0, 0.67, 1.33 -> 0 0 1; align_corners,
    ** scale 1/2: round(0, 0.5, 1) -> 0 1 1; half_pixel_centers: (0.5, 1.5,
    ** 2.5) * 2/3 = 0.33, 1.0, 1.67 -> 0 1 1; both: (0.5, 1.5, 2.5) / 2 =
    ** 0.25, 0.75, 1.25 -> 0 1 1 */
    const int32_t want[4][3] = {{0, 0, 1}, {0, 1, 1}, {0, 1, 1}, {0, 1, 1}};
    for (int f = 0; f < 4; f++) {
        const rk_resize_params p = {(f & 1) != 0, (f & 2) != 0};
        for (int32_t o = 0; o < 3; o++)
            cr_assert_eq(rk_resize_nearest_index(&p, o, 2, 3), want[f][o], "flags %d o %d", f, o);
    }
    /* 4 -> 2 with half_pixel_centers: (0.5, 1.5) * 2 = 1, 3 */
    const rk_resize_params hp = {false, true};
    cr_assert(rk_resize_nearest_index(&hp, 0, 4, 2) == 1 && rk_resize_nearest_index(&hp, 1, 4, 2) == 3);
}

Test(tflite_kernels, resize_nearest_equals_reference)
{
    rng_state = 2013;
    for (int f = 0; f < 4; f++) {
        const rk_resize_params p = {(f & 1) != 0, (f & 2) != 0};
        for (int32_t in = 1; in <= 70; in++)
            for (int32_t out = 1; out <= 150; out++)
                for (int32_t o = 0; o < out; o++)
                    cr_assert_eq(rk_resize_nearest_index(&p, o, in, out), ref_nearest(o, in, out, p.align_corners,
                                                                                     p.half_pixel_centers),
                                 "flags %d %d -> %d at %d", f, in, out, o);
    }
    for (int t = 0; t < 200; t++) {
        const rk_resize_params p = {rng_int(0, 1) != 0, rng_int(0, 1) != 0};
        const rk_dims in = {(int32_t)rng_int(1, 9), (int32_t)rng_int(1, 9), (int32_t)rng_int(1, 5)};
        const rk_dims out = {(int32_t)rng_int(1, 20), (int32_t)rng_int(1, 20), in.c};
        const size_t n_in = (size_t)(in.h * in.w * in.c), n_out = (size_t)(out.h * out.w * out.c);
        int8_t *x = xmalloc(n_in), *y = xmalloc(n_out), *r = xmalloc(n_out);
        fill_s8(x, n_in, -128, 127);
        for (int32_t a = 0; a < out.h; a++)
            for (int32_t b = 0; b < out.w; b++)
                for (int32_t c = 0; c < in.c; c++)
                    r[((size_t)a * (size_t)out.w + (size_t)b) * (size_t)in.c + (size_t)c] =
                        x[((size_t)ref_nearest(a, in.h, out.h, p.align_corners, p.half_pixel_centers) * (size_t)in.w +
                           (size_t)ref_nearest(b, in.w, out.w, p.align_corners, p.half_pixel_centers)) *
                              (size_t)in.c +
                          (size_t)c];
        cr_assert_eq(rk_resize_nearest_buffer_size(&p, in, out), 0);
        cr_assert_eq(rk_resize_nearest(&p, in, x, out, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n_out), 0, "case %d", t);
        free(x);
        free(y);
        free(r);
    }
}

/* rk_upsample_nearest (integer factors, floor(y / s)) is TFLM's resize
** without flags at out = s * in: every factor 1..16, every size 1..300. */
Test(tflite_kernels, upsample_nearest_is_tflm_resize_for_integer_factors)
{
    const rk_resize_params none = {false, false};
    for (int32_t s = 1; s <= 16; s++)
        for (int32_t in = 1; in <= 300; in++)
            for (int32_t o = 0; o < s * in; o++)
                cr_assert_eq(rk_resize_nearest_index(&none, o, in, s * in), o / s, "s %d in %d o %d", s, in, o);
    /* and the kernels agree byte for byte on a Person-Det-like 2x upsample */
    const rk_dims in = {4, 5, 32}, out = {8, 10, 32};
    int8_t x[4 * 5 * 32], a[8 * 10 * 32], b[8 * 10 * 32];
    rng_state = 2014;
    fill_s8(x, sizeof x, -128, 127);
    const rk_upsample_params up = {2, 2};
    cr_assert_eq(rk_upsample_nearest(&up, in, x, out, a), RK_OK);
    cr_assert_eq(rk_resize_nearest(&none, in, x, out, b), RK_OK);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
}

/* ------------------------------------------------- depthwise, multiplier */

Test(tflite_kernels, depthwise_multiplier_hand_values)
{
    /* 1x1 input, 2 channels (3, -2), multiplier 2, 1x1 filter (1, 2, 3, 4),
    ** zero points 0, requantize by 1 (2^30, shift 1): channel oc reads
    ** input oc / 2: 3*1, 3*2, -2*3, -2*4 = 3 6 -6 -8; bias (1, 0, 0, 1):
    ** 4 6 -6 -7 */
    const rk_conv_params p = {.k_h = 1, .k_w = 1, .s_h = 1, .s_w = 1, .d_h = 1, .d_w = 1,
                              .act = {-128, 127}};
    const int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30}, shift[4] = {1, 1, 1, 1}, bias[4] = {1, 0, 0, 1};
    const rk_quant q = {mult, shift};
    const int8_t x[2] = {3, -2}, w[4] = {1, 2, 3, 4}, want[4] = {4, 6, -6, -7};
    int8_t y[4];
    cr_assert_eq(rk_depthwise(&p, &q, (rk_dims){1, 1, 2}, x, w, bias, (rk_dims){1, 1, 4}, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 4), 0);
    cr_assert_eq(rk_depthwise(&p, &q, (rk_dims){1, 1, 2}, x, w, bias, (rk_dims){1, 1, 3}, y), RK_ARG);
}

Test(tflite_kernels, depthwise_multiplier_equals_reference)
{
    rng_state = 2015;
    for (int t = 0; t < 400; t++) {
        ref_conv g = {0};
        const int m = (int)rng_int(1, 8);
        g.cin = (int)rng_int(1, 6);
        g.cout = g.cin * m;
        g.k_h = (int)rng_int(1, 4);
        g.k_w = (int)rng_int(1, 4);
        g.s_h = (int)rng_int(1, 3);
        g.s_w = (int)rng_int(1, 3);
        g.d_h = (int)rng_int(1, 2);
        g.d_w = (int)rng_int(1, 2);
        g.h_in = (int)rng_int(1, 12);
        g.w_in = (int)rng_int(1, 12);
        const int kh = (g.k_h - 1) * g.d_h + 1, kw = (g.k_w - 1) * g.d_w + 1;
        g.p_top = (int)rng_int(0, kh - 1);
        g.p_left = (int)rng_int(0, kw - 1);
        const int pb = (int)rng_int(0, kh - 1), pr = (int)rng_int(0, kw - 1);
        if (g.h_in + g.p_top + pb < kh || g.w_in + g.p_left + pr < kw)
            continue;
        g.h_out = (g.h_in + g.p_top + pb - kh) / g.s_h + 1;
        g.w_out = (g.w_in + g.p_left + pr - kw) / g.s_w + 1;
        g.in_zp = (int)rng_int(-128, 127);
        g.out_zp = (int)rng_int(-128, 127);
        g.act_min = -128;
        g.act_max = 127;
        if (rng_int(0, 2) == 0) {
            g.act_min = g.out_zp;
            g.act_max = (int)rng_int(g.out_zp, 127);
        }
        const size_t n_in = (size_t)(g.h_in * g.w_in * g.cin), n_f = (size_t)(g.k_h * g.k_w * g.cout);
        const size_t n_out = (size_t)(g.h_out * g.w_out * g.cout);
        int8_t *x = xmalloc(n_in), *w = xmalloc(n_f), *y = xmalloc(n_out), *r = xmalloc(n_out);
        int32_t *bias = xmalloc((size_t)g.cout * sizeof *bias), *mult = xmalloc((size_t)g.cout * sizeof *mult);
        int32_t *shift = xmalloc((size_t)g.cout * sizeof *shift);
        fill_s8(x, n_in, -128, 127);
        fill_s8(w, n_f, -127, 127);
        for (int o = 0; o < g.cout; o++) {
            bias[o] = (int32_t)rng_int(-20000, 20000);
            mult[o] = (int32_t)rng_int((int64_t)1 << 30, INT32_MAX);
            shift[o] = (int32_t)rng_int(-12, -4);
        }
        const bool with_bias = rng_int(0, 4) != 0;
        cr_assert(ref_conv2d(&g, true, x, w, with_bias ? bias : NULL, mult, shift, r));
        const rk_conv_params p = {.k_h = g.k_h, .k_w = g.k_w, .s_h = g.s_h, .s_w = g.s_w, .d_h = g.d_h,
                                  .d_w = g.d_w, .p_top = g.p_top, .p_bottom = pb, .p_left = g.p_left,
                                  .p_right = pr, .input_offset = -g.in_zp, .output_offset = g.out_zp,
                                  .act = {g.act_min, g.act_max}};
        const rk_quant q = {mult, shift};
        const rk_dims din = {g.h_in, g.w_in, g.cin}, dout = {g.h_out, g.w_out, g.cout};
        cr_assert_eq(rk_depthwise_buffer_size(&p, din, dout), 0);
        cr_assert_eq(rk_depthwise(&p, &q, din, x, w, with_bias ? bias : NULL, dout, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n_out), 0, "case %d (m %d)", t, m);
        free(x);
        free(w);
        free(y);
        free(r);
        free(bias);
        free(mult);
        free(shift);
    }
}

/* ------------------------------------------------------- broadcast ADD */

/*
** rk_add_broadcast against the inputs expanded to the output's shape
** here, by every output coordinate (a multi-index, each input's index the
** coordinate or 0 on its unit axes), then one elementwise rk_add: random
** ranks 1-6, unit axes on either side, runs and single elements.
*/
Test(tflite_kernels, add_broadcast_equals_the_expanded_add)
{
    rng_state = 2016;
    const rk_add_params p = {.input1_offset = 5, .input2_offset = -3, .left_shift = 20,
                             .input1_multiplier = 1 << 30, .input1_shift = -1,
                             .input2_multiplier = 1518500250, .input2_shift = -2,
                             .output_multiplier = 1 << 30, .output_shift = -17, .output_offset = 7,
                             .act = {-128, 127}};
    for (int t = 0; t < 300; t++) {
        rk_shape out = {.rank = (int32_t)rng_int(1, RK_MAX_RANK)}, a = out, b = out;
        int64_t n = 1;
        for (int i = 0; i < out.rank; i++) {
            out.d[i] = (int32_t)rng_int(1, 4);
            a.d[i] = rng_int(0, 2) == 0 ? 1 : out.d[i];
            b.d[i] = rng_int(0, 2) == 0 ? 1 : out.d[i];
            n *= out.d[i];
        }
        int64_t na = 1, nb = 1;
        for (int i = 0; i < out.rank; i++)
            na *= a.d[i], nb *= b.d[i];
        int8_t *x1 = xmalloc((size_t)na), *x2 = xmalloc((size_t)nb), *e1 = xmalloc((size_t)n),
               *e2 = xmalloc((size_t)n), *y = xmalloc((size_t)n), *r = xmalloc((size_t)n);
        fill_s8(x1, (size_t)na, -128, 127);
        fill_s8(x2, (size_t)nb, -128, 127);
        for (int64_t o = 0; o < n; o++) {
            int64_t rest = o, ia = 0, ib = 0, sa = 1, sb = 1;
            for (int i = out.rank - 1; i >= 0; i--) {
                const int64_t c = rest % out.d[i];
                rest /= out.d[i];
                ia += (a.d[i] == 1 ? 0 : c) * sa;
                ib += (b.d[i] == 1 ? 0 : c) * sb;
                sa *= a.d[i];
                sb *= b.d[i];
            }
            e1[o] = x1[ia];
            e2[o] = x2[ib];
        }
        cr_assert_eq(rk_add(&p, (int32_t)n, e1, e2, r), RK_OK);
        cr_assert_eq(rk_add_broadcast(&p, &out, &a, &b, x1, x2, y), RK_OK);
        cr_assert_arr_eq(y, r, (size_t)n, "case %d", t);
        free(x1), free(x2), free(e1), free(e2), free(y), free(r);
    }
    /* shapes that do not broadcast, ranks that differ */
    const rk_shape o = {2, {2, 3}}, bad = {2, {2, 2}}, r1 = {1, {3}};
    int8_t buf[8] = {0};
    cr_expect_eq(rk_add_broadcast(&p, &o, &bad, &o, buf, buf, buf), RK_ARG);
    cr_expect_eq(rk_add_broadcast(&p, &o, &o, &r1, buf, buf, buf), RK_ARG);
    cr_expect_eq(rk_add_broadcast(&p, NULL, &o, &o, buf, buf, buf), RK_ARG);
}
