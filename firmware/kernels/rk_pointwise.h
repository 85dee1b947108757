/*
** rk_pointwise.h — int8 1x1 convolution, dual buffer: the fast path of
** rk_conv2d for k = 1x1, stride 1, no padding (dilation is irrelevant).
** Each output pixel is a matrix-vector product of the filter [c_out][c_in]
** with the input pixel, which is already contiguous in NHWC.
**
** Parameters and semantics as rk_conv2d (rk_conv2d.h); p must have
** k_h = k_w = s_h = s_w = 1 and no padding (RK_ARG otherwise), out.h = in.h,
** out.w = in.w.  Aliasing: input, output and scratch must not overlap;
** filter, bias, q only read.
*/
#ifndef RK_POINTWISE_H
#define RK_POINTWISE_H

#include "rk_types.h"

rk_status rk_pointwise(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch);

/* Scratch bytes: one int32 per output channel (plus alignment slack); 0 on bad parameters. */
size_t rk_pointwise_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out);

#endif
