/*
** rk_depthwise.h — int8 depthwise convolution, any depth multiplier
** (TFLite's reference_integer_ops::DepthwiseConvPerChannel), dual buffer.
**
** Geometry and quantization as rk_conv2d (rk_conv_params, per-channel
** rk_quant along the output channels, pad taps contribute nothing).  The
** depth multiplier is m = out.c / in.c: out.c must be a multiple of in.c,
** and output channel oc = ic * m + j reads input channel ic = oc / m
** (m = 1: out.c = in.c).  Filter [k_h][k_w][out.c] (TFLite's 1HWC):
** filter[(a * k_w + b) * out.c + oc].  bias one int32 per output channel
** or NULL.
**
** Aliasing: input and output must not overlap (for the in-place variant see
** rk_depthwise_inplace.h); filter, bias, q only read.
*/
#ifndef RK_DEPTHWISE_H
#define RK_DEPTHWISE_H

#include "rk_types.h"

/* RK_OK, or RK_ARG on bad parameters or a NULL buffer. */
rk_status rk_depthwise(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output);

/* Scratch bytes: 0 (no scratch). */
size_t rk_depthwise_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out);

#endif
