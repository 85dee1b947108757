/*
** rk_fully_connected.h — int8 fully connected layer (TFLite
** reference_integer_ops FullyConnected, weight zero point 0).
**
** output[b][o] = clamp(requantize(sum_i (input[b][i] + input_offset) *
** weights[o][i] + bias[o]) + output_offset), weights [out_features]
** [in_features] row-major, bias one int32 per output or NULL.
** Quantization per tensor (q->multiplier[0], q->shift[0] for every output)
** or per output channel (per_channel).
**
** Aliasing: input and output must not overlap; weights, bias, q only read.
*/
#ifndef RK_FULLY_CONNECTED_H
#define RK_FULLY_CONNECTED_H

#include "rk_types.h"

typedef struct rk_fc_params {
    int32_t batches, in_features, out_features;
    int32_t input_offset;    /* minus the input zero point: [-127, 128] */
    int32_t output_offset;   /* the output zero point: [-128, 127] */
    rk_act act;
    bool per_channel;
} rk_fc_params;

/* RK_OK, or RK_ARG on bad parameters or NULL buffers. */
rk_status rk_fully_connected(const rk_fc_params *p, const rk_quant *q, const int8_t *input, const int8_t *weights,
                             const int32_t *bias, int8_t *output);

/* Scratch bytes: 0. */
size_t rk_fully_connected_buffer_size(const rk_fc_params *p);

#endif
