/*
** rk_depthwise.h — int8 depthwise convolution, depth multiplier 1 (TFLite
** DepthwiseConvPerChannel), dual buffer.
**
** Geometry and quantization as rk_conv2d (rk_conv_params, per-channel
** rk_quant, pad taps contribute nothing); out.c must equal in.c.  Filter
** [k_h][k_w][c] (TFLite's 1HWC): filter[(a * k_w + b) * c + ch].  bias one
** int32 per channel or NULL.
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
