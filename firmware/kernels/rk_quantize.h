/*
** rk_quantize.h — TFLite Micro's reference QUANTIZE and DEQUANTIZE for
** int8 activations: float32 -> int8 (AffineQuantize), int8 -> float32
** (Dequantize) and int8 -> int8 (Requantize, QUANTIZE between two int8
** quantizations).  Element-wise over n scalars of any shape.
**
** float -> int8: q = clamp(round(x / scale) + zero_point, -128, 127), the
**   division in float (TFLM divides by static_cast<float>(scale), the
**   tensor's own float scale), round half away from zero (TfLiteRound).
**   Beyond TFLM's defined domain this kernel follows the Arm conversion:
**   |x / scale| >= 2^31 saturates (the clamp's bound of its sign) and NaN
**   counts as 0 (zero_point); TFLM's static_cast<int32_t> is undefined
**   there (on x86 it gives INT32_MIN: +inf -> -128 for zero_point >= 0).
** int8 -> float: (q - zero_point) * scale.  TFLM multiplies in double
**   ((double)scale * (q - zp), then casts to float); the exact product has at
**   most 24 + 9 significant bits, so the double product is exact and its
**   rounding to float is the correctly rounded float product computed here
**   (IEEE 754, round to nearest even, no flush to zero): the same bits.
** int8 -> int8: q = clamp(MultiplyByQuantizedMultiplier(x - input_zp,
**   multiplier, shift) + output_zp, -128, 127), multiplier and shift
**   QuantizeMultiplier(input_scale / output_scale) (rk_prepare_requantize in
**   host/rk_prepare.h).
**
** These use float arithmetic (soft float on a Cortex-M0+, no libm).
** Aliasing: quantize and requantize may write their output over their own
** input starting at the same address (output[i] is written after input[i]
** is read and never reaches an input not yet read); dequantize's output
** must not overlap its input.
*/
#ifndef RK_QUANTIZE_H
#define RK_QUANTIZE_H

#include "rk_types.h"

typedef struct rk_affine { float scale; int32_t zero_point; } rk_affine;   /* scale > 0 finite, zp in [-128, 127] */

typedef struct rk_requant_params {
    int32_t input_zero_point, output_zero_point;   /* [-128, 127] */
    int32_t multiplier, shift;                     /* [0, 2^31), [-31, 30] */
} rk_requant_params;

/* RK_OK, or RK_ARG on a bad quantization, n < 0 or NULL buffers. */
rk_status rk_quantize_f32(const rk_affine *q, int32_t n, const float *input, int8_t *output);
rk_status rk_dequantize_f32(const rk_affine *q, int32_t n, const int8_t *input, float *output);
rk_status rk_requantize_s8(const rk_requant_params *p, int32_t n, const int8_t *input, int8_t *output);

/* Scratch bytes: 0. */
size_t rk_quantize_f32_buffer_size(const rk_affine *q, int32_t n);
size_t rk_dequantize_f32_buffer_size(const rk_affine *q, int32_t n);
size_t rk_requantize_s8_buffer_size(const rk_requant_params *p, int32_t n);

#endif
