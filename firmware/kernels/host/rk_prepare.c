/*
** rk_prepare.c — TFLite Micro's prepare-time integer parameters
** (rk_prepare.h), written from quantization_util.cc, kernel_util.cc,
** padding.h and the kernels' Prepare functions: the same double and float
** expressions, evaluated in the same order, so the integers are TFLM's.
*/
#include "rk_prepare.h"

#include <math.h>

rk_status rk_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift)
{
    if (multiplier == NULL || shift == NULL || !isfinite(real) || real < 0.0)
        return RK_ARG;
    if (real == 0.0) {
        *multiplier = 0;
        *shift = 0;
        return RK_OK;
    }
    int e = 0;
    const double q = frexp(real, &e);                  /* q in [0.5, 1) */
    int64_t q_fixed = (int64_t)round(q * (double)(1LL << 31));   /* TfLiteRound: half away from zero */
    if (q_fixed == (1LL << 31)) {
        q_fixed /= 2;
        e++;
    }
    if (e < -31) {   /* flushed to zero rather than shifted out */
        e = 0;
        q_fixed = 0;
    }
    *multiplier = (int32_t)q_fixed;
    *shift = e;
    return RK_OK;
}

rk_status rk_quantize_multiplier_smaller_than_one_exp(double real, int32_t *multiplier, int32_t *shift)
{
    int32_t m, s;
    if (!(real < 1.0 && real > 0.0) || rk_quantize_multiplier(real, &m, &s) != RK_OK || s > 0)
        return RK_ARG;
    *multiplier = m;
    *shift = s;
    return RK_OK;
}

rk_status rk_quantize_multiplier_greater_than_one(double real, int32_t *multiplier, int32_t *shift)
{
    int32_t m, s;
    if (!(real > 1.0) || rk_quantize_multiplier(real, &m, &s) != RK_OK || s < 0)
        return RK_ARG;
    *multiplier = m;
    *shift = s;
    return RK_OK;
}

/* TFLite's Quantize (kernel_util.cc): zero_point + (int32)roundf(f / scale),
** false where the rounded value leaves int32 (TF_LITE_ENSURE) or the sum
** would overflow. */
static bool quantize_value(float scale, int32_t zero_point, float f, int32_t *q)
{
    const float tmp = roundf(f / scale);
    /* TFLM's bound is (float)INT32_MAX = 2^31, where the cast is undefined:
    ** 2^31 is refused here */
    if (!(tmp >= -2147483648.0f && tmp < 2147483648.0f))
        return false;
    const int64_t v = (int64_t)zero_point + (int64_t)tmp;
    if (v < INT32_MIN || v > INT32_MAX)
        return false;
    *q = (int32_t)v;
    return true;
}

rk_status rk_activation_range(rk_fused_act act, float output_scale, int32_t output_zero_point, rk_act *out)
{
    /* the real bounds each activation clamps to, quantized below as TFLite does */
    bool has_lo = false, has_hi = false;
    float lo_f = 0.0f, hi_f = 0.0f;
    switch (act) {
    case RK_ACT_NONE:
        break;
    case RK_ACT_RELU:
        has_lo = true;
        break;
    case RK_ACT_RELU6:
        has_lo = has_hi = true;
        hi_f = 6.0f;
        break;
    case RK_ACT_RELU_N1_TO_1:
        has_lo = has_hi = true;
        lo_f = -1.0f;
        hi_f = 1.0f;
        break;
    default:
        return RK_ARG;
    }
    int32_t lo = -128, hi = 127, q;
    if (out == NULL || (has_lo && !quantize_value(output_scale, output_zero_point, lo_f, &q)))
        return RK_ARG;
    if (has_lo)
        lo = q > lo ? q : lo;
    if (has_hi && !quantize_value(output_scale, output_zero_point, hi_f, &q))
        return RK_ARG;
    if (has_hi)
        hi = q < hi ? q : hi;
    out->min = lo;
    out->max = hi;
    return RK_OK;
}

rk_status rk_preprocess_softmax_scaling(double beta, double input_scale, int32_t input_integer_bits,
                                        int32_t *multiplier, int32_t *left_shift)
{
    if (input_integer_bits < 1 || input_integer_bits > 31)
        return RK_ARG;
    const double max_real_multiplier = (double)((1LL << 31) - 1);   /* (1LL << 31) - 1.0 */
    const double real = beta * input_scale * (double)(1 << (31 - input_integer_bits));
    /* std::min<double>(real, max): the maximum only when it is smaller */
    const double clamped = max_real_multiplier < real ? max_real_multiplier : real;
    return rk_quantize_multiplier_greater_than_one(clamped, multiplier, left_shift);
}

int32_t rk_calculate_input_radius(int32_t input_integer_bits, int32_t input_left_shift, int32_t total_signed_bits)
{
    const double max_input_rescaled = 1.0 * (double)((1 << input_integer_bits) - 1) *
                                      (double)(1LL << (total_signed_bits - input_integer_bits)) /
                                      (double)(1LL << input_left_shift);
    return (int32_t)floor(max_input_rescaled);
}

rk_status rk_prepare_softmax(float beta, float input_scale, float output_scale, int32_t output_zero_point,
                             rk_softmax_params *out)
{
    const int32_t bits = 5;   /* kScaledDiffIntegerBits */
    int32_t m, ls;
    if (out == NULL || output_zero_point != -128 || output_scale != 1.0f / 256 ||
        rk_preprocess_softmax_scaling((double)beta, (double)input_scale, bits, &m, &ls) != RK_OK || ls > 31)
        return RK_ARG;
    out->input_multiplier = m;
    out->input_left_shift = ls;
    /* diff_min = -1.0 * CalculateInputRadius(...), stored in an int */
    out->diff_min = (int32_t)(-1.0 * (double)rk_calculate_input_radius(bits, ls, 31));
    return RK_OK;
}

/* A multiplier the requantizing kernels take: shift in [-31, 30]. */
static rk_status kernel_multiplier(double real, int32_t *multiplier, int32_t *shift)
{
    int32_t m, s;
    if (rk_quantize_multiplier(real, &m, &s) != RK_OK || s > 30)
        return RK_ARG;
    *multiplier = m;
    *shift = s;
    return RK_OK;
}

rk_status rk_prepare_conv_per_channel(float input_scale, const float *filter_scales, int32_t n_filter_scales,
                                      float output_scale, int32_t n_channels, int32_t *multiplier, int32_t *shift)
{
    if (filter_scales == NULL || multiplier == NULL || shift == NULL || n_channels < 1 ||
        (n_filter_scales != 1 && n_filter_scales != n_channels))
        return RK_ARG;
    const bool per_channel = n_filter_scales > 1;
    /* twice: every channel checked before any entry is written */
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < n_channels; i++) {
            const double filter_scale = (double)(per_channel ? filter_scales[i] : filter_scales[0]);
            const double effective = (double)input_scale * filter_scale / (double)output_scale;
            int32_t m, s;
            if (kernel_multiplier(effective, &m, &s) != RK_OK)
                return RK_ARG;
            if (pass == 1) {
                multiplier[i] = m;
                shift[i] = s;
            }
        }
    return RK_OK;
}

rk_status rk_prepare_fc_per_tensor(float input_scale, float filter_scale, float output_scale,
                                   const float *bias_scale, int32_t *multiplier, int32_t *shift)
{
    if (multiplier == NULL || shift == NULL)
        return RK_ARG;
    if (bias_scale != NULL) {
        const double input_product_scale = (double)input_scale * (double)filter_scale;
        const double scale_diff = fabs(input_product_scale - (double)*bias_scale);
        if (!(scale_diff / (double)output_scale <= 0.02))
            return RK_ARG;
    }
    const double input_product_scale = (double)(input_scale * filter_scale);   /* the float product */
    if (!(input_product_scale >= 0))
        return RK_ARG;
    return kernel_multiplier(input_product_scale / (double)output_scale, multiplier, shift);
}

static bool zero_point_ok(int32_t zp)
{
    return zp >= -128 && zp <= 127;
}

rk_status rk_prepare_add(float input1_scale, int32_t input1_zero_point, float input2_scale,
                         int32_t input2_zero_point, float output_scale, int32_t output_zero_point, rk_fused_act act,
                         rk_add_params *out)
{
    rk_add_params p = {0};
    if (out == NULL || !zero_point_ok(input1_zero_point) || !zero_point_ok(input2_zero_point) ||
        !zero_point_ok(output_zero_point))
        return RK_ARG;
    p.input1_offset = -input1_zero_point;
    p.input2_offset = -input2_zero_point;
    p.output_offset = output_zero_point;
    p.left_shift = 20;
    const double twice_max_input_scale = 2 * (double)(input1_scale > input2_scale ? input1_scale : input2_scale);
    const double real1 = (double)input1_scale / twice_max_input_scale;
    const double real2 = (double)input2_scale / twice_max_input_scale;
    const double real_out = twice_max_input_scale / ((1 << p.left_shift) * (double)output_scale);
    if (rk_quantize_multiplier_smaller_than_one_exp(real1, &p.input1_multiplier, &p.input1_shift) != RK_OK ||
        rk_quantize_multiplier_smaller_than_one_exp(real2, &p.input2_multiplier, &p.input2_shift) != RK_OK ||
        rk_quantize_multiplier_smaller_than_one_exp(real_out, &p.output_multiplier, &p.output_shift) != RK_OK ||
        rk_activation_range(act, output_scale, output_zero_point, &p.act) != RK_OK)
        return RK_ARG;
    *out = p;
    return RK_OK;
}

rk_status rk_prepare_mean(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                          rk_mean_params *out)
{
    rk_mean_params p = {.input_zero_point = input_zero_point, .output_zero_point = output_zero_point};
    if (out == NULL || !zero_point_ok(input_zero_point) || !zero_point_ok(output_zero_point) ||
        kernel_multiplier((double)input_scale / (double)output_scale, &p.multiplier, &p.shift) != RK_OK)
        return RK_ARG;
    *out = p;
    return RK_OK;
}

rk_status rk_prepare_requantize(float input_scale, int32_t input_zero_point, float output_scale,
                                int32_t output_zero_point, rk_requant_params *out)
{
    rk_requant_params p = {.input_zero_point = input_zero_point, .output_zero_point = output_zero_point};
    if (out == NULL || !zero_point_ok(input_zero_point) || !zero_point_ok(output_zero_point) ||
        kernel_multiplier((double)input_scale / (double)output_scale, &p.multiplier, &p.shift) != RK_OK)
        return RK_ARG;
    *out = p;
    return RK_OK;
}

rk_status rk_prepare_padding(bool same, int32_t in, int32_t k, int32_t stride, int32_t dilation, int32_t *out,
                             int32_t *p_lo, int32_t *p_hi)
{
    if (out == NULL || p_lo == NULL || p_hi == NULL || in < 1 || k < 1 || stride < 1 || dilation < 1)
        return RK_ARG;
    const int64_t k_eff = ((int64_t)k - 1) * dilation + 1;
    const int64_t o = same ? ((int64_t)in + stride - 1) / stride : ((int64_t)in + stride - k_eff) / stride;
    if (o < 1 || o > INT32_MAX)
        return RK_ARG;
    int64_t total = (o - 1) * stride + k_eff - in;
    total = total > 0 ? total : 0;
    if (total / 2 + total % 2 > INT32_MAX)
        return RK_ARG;
    *out = (int32_t)o;
    *p_lo = (int32_t)(total / 2);
    *p_hi = (int32_t)(total / 2 + total % 2);
    return RK_OK;
}
