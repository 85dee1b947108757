/*
** rk_mean.h — int8 MEAN over any set of axes (TFLite Micro's reference
** MEAN for int8: reference_ops::QuantizedMeanOrSum, the only int8 path of
** this TFLM version's reduce.cc, whatever the two quantizations are).
**
** Each output is the int32 (wrapping) sum S of its count = prod(reduced
** extents) inputs, requantized as TFLM does at eval time:
**   s = min(floor(log2(count)), 32, 31 + shift),
**   m = floor(multiplier * 2^s / count), e = shift - s,
**   out = clamp(MultiplyByQuantizedMultiplier(S - input_zp * count, m, e)
**               + output_zp, -128, 127)
** (the difference wraps to 32 bits, as TFLM's int32 cast does).  multiplier
** and shift are TFLM's prepare-time QuantizeMultiplier(input_scale /
** output_scale) (rk_prepare_mean in host/rk_prepare.h).  There is no fused
** activation.  keep_dims does not change the data: the outputs are the
** kept axes in row-major order, with or without the unit axes.
**
** Axes as TFLite's axis tensor: each in [-rank, rank), negative ones
** counted from the end, duplicates ignored; none reduces nothing (count 1).
**
** Aliasing: output may be the very same pointer as input (output o reads
** inputs at indices >= o only, before it is written); any other overlap is
** not allowed.
*/
#ifndef RK_MEAN_H
#define RK_MEAN_H

#include "rk_types.h"

typedef struct rk_mean_params {
    int32_t input_zero_point;    /* [-128, 127] */
    int32_t output_zero_point;   /* [-128, 127] */
    int32_t multiplier;          /* [0, 2^31) */
    int32_t shift;               /* [-31, 30] */
} rk_mean_params;

/* RK_OK, or RK_ARG on bad parameters, a bad shape or axis, or NULL buffers
** (axis may be NULL when n_axis is 0). */
rk_status rk_mean(const rk_mean_params *p, rk_shape in, const int32_t *axis, int32_t n_axis, const int8_t *input,
                  int8_t *output);

/* Scratch bytes: 0 (each output is summed on its own, no int32 row). */
size_t rk_mean_buffer_size(const rk_mean_params *p, rk_shape in, const int32_t *axis, int32_t n_axis);

#endif
