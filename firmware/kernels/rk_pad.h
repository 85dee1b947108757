/*
** rk_pad.h — int8 constant padding (TFLite Micro's reference PAD / PADV2:
** reference_ops::Pad, up to 5 axes there, RK_MAX_RANK here).
**
** out.d[i] = in.d[i] + before[i] + after[i]; every output scalar outside
** the input's box is value, the others are the input copied in order.
** value is TFLM's: the output zero point for PAD (and for PADV2 without a
** constant), else PADV2's constant_values scalar, already int8.  Paddings
** must be >= 0 (TFLite's converter writes no negative ones).
**
** Aliasing: input and output must not overlap.
*/
#ifndef RK_PAD_H
#define RK_PAD_H

#include "rk_types.h"

typedef struct rk_pad_params {
    int32_t before[RK_MAX_RANK], after[RK_MAX_RANK];   /* per axis of the input, >= 0 */
    int8_t value;
} rk_pad_params;

/* The output shape of p over in; false (and *out untouched) on a bad shape,
** a negative padding or an output of 2^31 scalars or more. */
bool rk_pad_output_shape(const rk_pad_params *p, rk_shape in, rk_shape *out);

/* RK_OK, or RK_ARG on bad parameters (as rk_pad_output_shape) or NULL buffers. */
rk_status rk_pad(const rk_pad_params *p, rk_shape in, const int8_t *input, int8_t *output);

/* Scratch bytes: 0. */
size_t rk_pad_buffer_size(const rk_pad_params *p, rk_shape in);

#endif
