/*
** tfl_check.h — is a decoded TFLite model (tfl_model.h) one ripsim can
** run and plan?  The semantics of the supported set, checked once so the
** runtime, the planner import and the firmware can rely on them.
**
** The supported set: int8 activations with one scale and zero point per
** tensor; int8 weights, per tensor or per channel along
** quantized_dimension (0 for CONV_2D and FULLY_CONNECTED, 3 for
** DEPTHWISE_CONV_2D), zero points 0; int32 bias; fused activation NONE,
** RELU or RELU6; the operators CONV_2D, DEPTHWISE_CONV_2D (any depth
** multiplier), FULLY_CONNECTED, AVERAGE_POOL_2D, MAX_POOL_2D, ADD (with
** broadcasting), MEAN (over any constant axes), SOFTMAX, RESHAPE, PAD,
** TRANSPOSE, CONCATENATION, RESIZE_NEAREST_NEIGHBOR, and QUANTIZE /
** DEQUANTIZE between a float32 model input or output and int8.  Float
** tensors exist only there.  One subgraph.
**
** What rip_tfl_check verifies, in this order (the first failure is the
** message):
**   1. one subgraph;
**   2. every tensor: buffer index in range, rank at most RIP_TFL_RANK_MAX,
**      no negative dimension, its byte count (dimensions times the type's
**      size) at most RIP_TFL_TENSOR_BYTES_MAX with every product checked,
**      a constant's buffer (data present) exactly that many bytes, not
**      sparse; metadata buffer indexes in range;
**   3. the graph's inputs and outputs are tensor indexes in range, inputs
**      not constant;
**   4. every operator's opcode index in range and its operator supported,
**      else exactly "LABEL: operator N (NAME): not supported" for the first
**      one that is not (so a model is refused for what it is made of before
**      anything it does); then every operator in execution order: its
**      options of the type its operator uses; its input
**      and output counts and indexes (-1 only for an absent bias); each
**      input a constant, a model input or an earlier operator's output,
**      each output written once and not constant; every activation int8
**      (else "LABEL: tensor N (NAME): int16 activations are not
**      supported", or the type found), not a variable, with one finite
**      positive scale and a zero point in [-128, 127]; weights and bias
**      constant with the shapes, scale counts and quantized dimension the
**      operator needs; every output shape what the input shapes and the
**      options give (TFLite's SAME/VALID arithmetic, rip_tfl_window);
**      the operator's own quantization rules (pools, RESHAPE, PAD,
**      TRANSPOSE and RESIZE keep the input's scale and zero point; SOFTMAX
**      outputs scale 1/256, zero point -128);
**   5. every graph output is written by an operator.
** Every refusal is RIP_S_DATA with one line in err, "LABEL: ...", where
** LABEL is m->label; RIP_S_NOMEM when the check's own tables cannot be
** allocated.
*/
#ifndef RIPSIM_TFL_CHECK_H
#define RIPSIM_TFL_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "tfl_model.h"

/* Largest tensor in bytes (the graph planner's bound, graph.h), and rank. */
#define RIP_TFL_TENSOR_BYTES_MAX ((int64_t)1 << 46)
#define RIP_TFL_RANK_MAX 8

rip_status rip_tfl_check(const rip_tfl_model *m, char err[RIP_ERR_LEN]);

/* Is builtin one of the supported operators? */
bool rip_tfl_op_supported(int32_t builtin);

/* Does the tensor hold constant data (its buffer, in range, has bytes)? */
bool rip_tfl_is_constant(const rip_tfl_model *m, const rip_tfl_tensor *t);

/* Element i of a constant INT32 or INT64 tensor (little-endian in the
** file; INT32 sign-extended).  The caller guarantees t is such a constant
** with more than i elements (a checked model's axis, paddings, perm, size
** and shape tensors are). */
int64_t rip_tfl_const_int(const rip_tfl_model *m, const rip_tfl_tensor *t, int64_t i);

/*
** The tensor's element count and byte count: false when a dimension is
** negative, the type has no fixed byte size (rip_tfl_type_bytes 0) or the
** bytes would pass RIP_TFL_TENSOR_BYTES_MAX (every product is checked
** before it is made).  Rank 0 is one element.
*/
bool rip_tfl_tensor_bytes(const rip_tfl_tensor *t, int64_t *elements, int64_t *bytes);

/*
** TFLite's output size and padding along one spatial axis (its
** ComputeOutSize / ComputePaddingWithOffset): effective kernel
** e = (kernel - 1) * dilation + 1; SAME: out = ceil(in / stride); VALID:
** out = ceil((in - e + 1) / stride); total padding
** max((out - 1) * stride + e - in, 0), of which total / 2 before and the
** rest (the odd one) after.  false when in, kernel, stride or dilation is
** below 1, padding is neither SAME nor VALID, or VALID leaves no output.
*/
bool rip_tfl_window(int padding, int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t *out,
                    int64_t *pad_before, int64_t *pad_after);

#endif
