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
** The suite's tests are in this file (the prepare-time parameters) and in
** tflite_kernels_softmax_mean.c and tflite_kernels_data.c; their shared
** helpers in tflite_kernels_util.h.
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
#include "splitmix.h"
#include "tflite_kernels_util.h"

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
