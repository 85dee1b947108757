/*
** rk_conv2d.h — int8 2D convolution, dual buffer (TFLite ConvPerChannel).
**
** Any k_h x k_w, stride, dilation and per-side padding; a pad tap
** contributes nothing (it holds the input zero point).  Filter OHWI:
** filter[((oc * k_h + a) * k_w + b) * c_in + ic]; bias one int32 per output
** channel, or NULL for none; q one multiplier and shift per output channel.
** out.h and out.w must be the output extents of the geometry (RK_ARG
** otherwise), out.c is the number of output channels.
**
** Aliasing: input, output and scratch must not overlap one another;
** filter, bias and the quantization arrays are only read and may overlap
** anything but output and scratch.  (For in-place execution see
** rk_conv2d_rip.h.)  No pointer is declared restrict.
*/
#ifndef RK_CONV2D_H
#define RK_CONV2D_H

#include "rk_types.h"

/* Returns RK_OK, or RK_ARG on bad parameters or a NULL buffer (scratch may
** be NULL only when rk_conv2d_buffer_size() is 0). */
rk_status rk_conv2d(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                    const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch);

/* Scratch bytes rk_conv2d needs (any alignment): the receptive field of one
** pixel plus one int32 per output channel.  0 on bad parameters. */
size_t rk_conv2d_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out);

#endif
