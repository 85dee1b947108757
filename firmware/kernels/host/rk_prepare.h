/*
** rk_prepare.h — the prepare-time integer parameters of every kernel of
** firmware/kernels/, computed from a model's float scales and zero points
** exactly as TensorFlow Lite Micro's Prepare functions compute them
** (quantization_util.cc, kernel_util.cc, padding.h and the kernels'
** *_common.cc), in the same double and float operations in the same order.
**
** Host side only: it needs <math.h> (frexp, round, floor, roundf, fabs), so
** it is not one of the portable kernels and no board ever runs it; the host
** runtime and the code generator call it, and the boards receive its
** integers.  Every function returns RK_OK, or RK_ARG where TFLM's Prepare
** fails or aborts (TF_LITE_ENSURE, TFLITE_CHECK) or where the result would
** leave the range the kernels accept (a shift above 30, where TFLM's own
** arithmetic is undefined); outputs are written only on RK_OK.
*/
#ifndef RK_PREPARE_H
#define RK_PREPARE_H

#include "rk_add.h"
#include "rk_mean.h"
#include "rk_quantize.h"
#include "rk_softmax.h"
#include "rk_types.h"

/* TFLite's ActivationFunctionType values (schema.fbs) the int8 kernels clamp. */
typedef enum rk_fused_act {
    RK_ACT_NONE = 0,
    RK_ACT_RELU = 1,
    RK_ACT_RELU_N1_TO_1 = 2,
    RK_ACT_RELU6 = 3
} rk_fused_act;

/*
** TFLite's QuantizeMultiplier: real = multiplier * 2^(shift - 31) with
** multiplier = round(frexp fraction * 2^31) (half away from zero; 2^31
** halved and the shift raised), flushed to (0, 0) when the shift falls
** below -31 or real is 0.  real must be finite and >= 0 (RK_ARG
** otherwise); the shift is not bounded above here.
*/
rk_status rk_quantize_multiplier(double real, int32_t *multiplier, int32_t *shift);

/* QuantizeMultiplierSmallerThanOneExp: 0 < real < 1, shift <= 0. */
rk_status rk_quantize_multiplier_smaller_than_one_exp(double real, int32_t *multiplier, int32_t *shift);

/* QuantizeMultiplierGreaterThanOne: real > 1, shift >= 0. */
rk_status rk_quantize_multiplier_greater_than_one(double real, int32_t *multiplier, int32_t *shift);

/*
** CalculateActivationRangeQuantized for an int8 output: NONE [-128, 127];
** RELU [max(-128, q(0)), 127]; RELU6 [max(-128, q(0)), min(127, q(6))];
** RELU_N1_TO_1 [max(-128, q(-1)), min(127, q(1))], where q(f) = zp +
** roundf(f / scale) in float (TFLite's Quantize).  Other activations RK_ARG.
*/
rk_status rk_activation_range(rk_fused_act act, float output_scale, int32_t output_zero_point, rk_act *out);

/*
** PreprocessSoftmaxScaling: min(beta * input_scale * 2^(31 - input_integer_bits),
** 2^31 - 1) through QuantizeMultiplierGreaterThanOne (RK_ARG when it is not
** above 1); input_integer_bits in [1, 31].  Doubles, as TFLite takes them (a model's float beta and scale,
** widened).
*/
rk_status rk_preprocess_softmax_scaling(double beta, double input_scale, int32_t input_integer_bits,
                                        int32_t *multiplier, int32_t *left_shift);

/* CalculateInputRadius: floor((2^bits - 1) * 2^(total_bits - bits) / 2^left_shift)
** in double (TFLite's default total_bits is 31).  Needs bits in [0, 30],
** total_bits - bits and left_shift in [0, 62]; no error is reported. */
int32_t rk_calculate_input_radius(int32_t input_integer_bits, int32_t input_left_shift, int32_t total_signed_bits);

/*
** TFLM's SOFTMAX Prepare for int8 -> int8: the output must be scale 1/256
** (exactly, as a float) and zero point -128; input_multiplier and
** input_left_shift from PreprocessSoftmaxScaling((double)beta,
** (double)input_scale, 5), diff_min = -CalculateInputRadius(5, left_shift, 31).
*/
rk_status rk_prepare_softmax(float beta, float input_scale, float output_scale, int32_t output_zero_point,
                             rk_softmax_params *out);

/*
** PopulateConvolutionQuantizationParams (CONV_2D, DEPTHWISE_CONV_2D, and
** FULLY_CONNECTED per channel, whose Prepare repeats the same loop): for
** each of n_channels output channels, QuantizeMultiplier((double)input_scale
** * (double)filter_scale / (double)output_scale), filter_scale the channel's
** own (n_filter_scales == n_channels) or the one per-tensor scale
** (n_filter_scales == 1).  multiplier and shift get n_channels entries.
*/
rk_status rk_prepare_conv_per_channel(float input_scale, const float *filter_scales, int32_t n_filter_scales,
                                      float output_scale, int32_t n_channels, int32_t *multiplier, int32_t *shift);

/*
** FULLY_CONNECTED per tensor (GetQuantizedConvolutionMultipler): with a bias
** (bias_scale not NULL), |input_scale * filter_scale - bias_scale| /
** output_scale must be <= 0.02 (in double; RK_ARG otherwise); then
** QuantizeMultiplier((double)(input_scale * filter_scale) / output_scale),
** the product taken in float as TFLite takes it.  TFLM takes this path
** whenever the filter has exactly one scale (also for a one-output layer
** converted per channel); more scales go to rk_prepare_conv_per_channel
** (the double product).  The filter zero point must be 0 (TFLM assumes it).
*/
rk_status rk_prepare_fc_per_tensor(float input_scale, float filter_scale, float output_scale,
                                   const float *bias_scale, int32_t *multiplier, int32_t *shift);

/*
** ADD int8 (CalculateOpDataAdd): offsets -zp, left_shift 20, twice the
** larger input scale, each input scaled to it and the output multiplier
** twice / (2^20 * output_scale), all by QuantizeMultiplierSmallerThanOneExp,
** and the activation range.
*/
rk_status rk_prepare_add(float input1_scale, int32_t input1_zero_point, float input2_scale,
                         int32_t input2_zero_point, float output_scale, int32_t output_zero_point, rk_fused_act act,
                         rk_add_params *out);

/* MEAN int8: QuantizeMultiplier((double)input_scale / (double)output_scale). */
rk_status rk_prepare_mean(float input_scale, int32_t input_zero_point, float output_scale, int32_t output_zero_point,
                          rk_mean_params *out);

/* QUANTIZE int8 -> int8: QuantizeMultiplier((double)input_scale / (double)output_scale). */
rk_status rk_prepare_requantize(float input_scale, int32_t input_zero_point, float output_scale,
                                int32_t output_zero_point, rk_requant_params *out);

/*
** One spatial axis of CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D or
** MAX_POOL_2D (ComputeOutSize and ComputePaddingWithOffset; pools take
** dilation 1): out = SAME ? ceil(in / stride) : floor((in - k_eff) / stride)
** + 1; total = max(0, (out - 1) * stride + k_eff - in); p_lo = total / 2
** (TFLM's padding value) and p_hi = total - p_lo (p_lo + TFLM's offset), the
** per-side padding rk_conv_params and rk_pool_params take.  RK_ARG on
** non-positive arguments or an empty output.
*/
rk_status rk_prepare_padding(bool same, int32_t in, int32_t k, int32_t stride, int32_t dilation, int32_t *out,
                             int32_t *p_lo, int32_t *p_hi);

#endif
