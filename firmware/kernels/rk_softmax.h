/*
** rk_softmax.h — int8 softmax over the last axis, int8 output of scale
** 1/256 and zero point -128 (TFLite Micro's reference SOFTMAX, int8 in,
** int8 out: reference_ops::Softmax with gemmlowp fixed point).
**
** Per row of depth scalars: diff = x - max(row); entries with diff <
** diff_min give -128; the others diff * 2^input_left_shift, times
** input_multiplier (saturating rounding doubling high multiply), read as a
** Q5.26 value, go through gemmlowp's exp_on_negative_values; the sum of
** those exps (each rescaled to Q12.19) is inverted by gemmlowp's
** one_over_one_plus_x_for_x_in_0_1 after normalising it, and each output is
** exp * (1/sum) rounded by 2^(num_bits_over_unit + 23), minus 128, clamped.
**
** The parameters are TFLite's prepare-time ones (SoftmaxParams): the host
** computes them from beta and the input scale (rk_prepare_softmax in
** host/rk_prepare.h, TFLite's PreprocessSoftmaxScaling and
** CalculateInputRadius, in double); the kernel itself uses no floating point.
**
** Aliasing: output may be the very same pointer as input (each row's
** outputs are written after all of its inputs were read, each output only
** after its own input); any other overlap is not allowed.
*/
#ifndef RK_SOFTMAX_H
#define RK_SOFTMAX_H

#include "rk_types.h"

typedef struct rk_softmax_params {
    int32_t input_multiplier;   /* TFLite's input_beta_multiplier: [0, 2^31) */
    int32_t input_left_shift;   /* [0, 31] */
    int32_t diff_min;           /* <= 0, and diff_min * 2^input_left_shift >= -2^31 */
} rk_softmax_params;

/*
** rows x depth scalars, row-major (the last axis is the one normalised).
** RK_OK; RK_ARG on bad parameters or NULL buffers, and for a row whose sum
** of exps reaches 2^28 (at least 512 entries at or near the row's
** maximum), where TFLite Micro's TFLITE_CHECK(exponent <= 31) aborts: the
** rows before it are written, that row and those after are not.
*/
rk_status rk_softmax(const rk_softmax_params *p, int32_t rows, int32_t depth, const int8_t *input, int8_t *output);

/* Scratch bytes: 0. */
size_t rk_softmax_buffer_size(const rk_softmax_params *p, int32_t rows, int32_t depth);

#endif
