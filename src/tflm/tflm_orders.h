/*
** tflm_orders.h — the overlap gap of one operator of a TFLite model under
** the kernel library an unchanged TensorFlow Lite Micro runs it with
** (issue 21): the planner's question "may this operator's output overlap
** its input, and by how much", answered by the trace engine
** (sim/kernel_order.h) on the kernel's real order (kernel_orders.h).
**
** Kernel choice, as TFLM makes it for int8:
**   reference  CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, AVERAGE_POOL_2D,
**              MAX_POOL_2D, ADD without broadcast, PAD (int8, rank <= 4),
**              QUANTIZE float32 -> int8 (TFLM's reference kernels);
**   CMSIS-NN   cmsis_nn/conv.cc -> arm_convolve_wrapper_s8 (1x1 fast, 1x1
**              strided, arm_convolve_s8); depthwise_conv.cc ->
**              arm_depthwise_conv_wrapper_s8 (3x3, _opt, arm_depthwise_conv_s8);
**              fully_connected.cc -> arm_convolve_1x1_s8_fast when the output
**              has rank > 2 and accum_depth % 4 == 0, else
**              arm_fully_connected_wrapper_s8; pooling.cc -> arm_avgpool_s8,
**              arm_max_pool_s8; add.cc -> arm_elementwise_add_s8 without
**              broadcast; pad.cc -> arm_pad_s8; QUANTIZE: the reference kernel
**              (TFLM has no CMSIS-NN quantize).
**   CMSIS-NN's gap is the larger of its host (pure C) and Cortex-M33
**   (ARM_MATH_DSP) builds' gaps, -1 when either forbids overlap: one plan is
**   safe for both.
** Not modelled, so never overlapped (gap -1): ADD with broadcasting
** (BroadcastAdd*Slow), every other operator (RESHAPE aliases, SOFTMAX,
** MEAN, TRANSPOSE, DEQUANTIZE, ...), other activation types, a constant input.
*/
#ifndef RIPSIM_TFLM_ORDERS_H
#define RIPSIM_TFLM_ORDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel_orders.h"
#include "tfl_model.h"

typedef enum { RIP_TFLM_REFERENCE = 0, RIP_TFLM_CMSIS_NN = 1 } rip_tflm_lib;

/* Smallest d >= 0 such that operator op (index in subgraph 0's operator list) of the
** checked model m, run by lib's kernel with its output at byte X and its input k at byte
** X + d, never writes over an input scalar it reads later; *gap = -1 when no overlap is
** safe or the order is not modelled. RIP_OK, RIP_S_DATA (op/k out of range, one line in err),
** RIP_S_NOMEM. */
rip_status rip_tflm_overlap_gap(const rip_tfl_model *m, size_t op, int k, rip_tflm_lib lib,
                                int64_t *gap, char err[RIP_ERR_LEN]);

/*
** The order of operator op's input k under lib as a generator context:
** dsp picks the Cortex-M33 build's CMSIS-NN path (ignored for the
** reference kernels).  true with *ctx filled when modelled; false when not
** modelled (see above).  op and k must be in range.
*/
bool rip_tflm_order(const rip_tfl_model *m, size_t op, int k, rip_tflm_lib lib, bool dsp, rip_kctx *ctx);

/* The gap of one context: the trace engine's, -1 when not modelled
** (rip_korder_kernel refuses it) or no overlap is safe.  As rip_tflm_overlap_gap. */
rip_status rip_kctx_gap(const rip_kctx *ctx, int64_t *gap, char err[RIP_ERR_LEN]);

#endif
