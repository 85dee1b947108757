/*
** tflm_scratch.h — the scratch buffers an unchanged TensorFlow Lite Micro
** requests for a model at Prepare, and the head of its arena: the highest
** end of the tensors and those scratch buffers as TFLM's greedy planner
** places them (issue 21, item 3).
**
** TFLM's arena is a head (the planned tensors and the scratch buffers,
** from its start: SingleArenaBufferAllocator's non-persistent part) and a
** tail (persistent: the interpreter's structures, per-kernel OpData,
** quantization arrays, variables).  The tail does not depend on where the
** offline plan puts the tensors, so the arena one plan needs is
** arena(other plan) - head(other plan) + head(this plan); the head is
** what this file computes.  Read from TFLM 90b983c2 and CMSIS-NN v7.0.0:
**
**   requests   kernels' Prepare call RequestScratchBufferInArena; TFLM keeps
**              them in request order (operator by operator) and adds them to
**              the planner after every tensor (micro_allocation_info.cc
**              126-130, 220-230), each alive at its operator's scope only
**              (298-320), online (no offline offset), its size rounded up
**              to 16 as a tensor's (micro_allocator.cc CreatePlan).
**   head       GetMaximumMemorySize of the greedy planner (micro_allocator.cc
**              1194), kept by ReserveNonPersistentOverlayMemory.
**
** Requests per operator, int8 models (gcc builds: no MVE; armclang's 1x1
** DSP buffer is not taken):
**   both libraries  MEAN, SUM (reduce_common.cc PrepareMeanOrSumHelper):
**              int8/int16 input 4 x output elements, then 4 x input rank,
**              4 x axis elements; REDUCE_MAX, REDUCE_MIN (PrepareMinMaxHelper):
**              4 x input rank, 4 x axis elements.
**   reference  CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED request only to
**              unpack an int4 filter (not modelled); no other reference
**              kernel requests.
**   CMSIS-NN   CONV_2D int8 (cmsis_nn/conv.cc -> arm_convolve_wrapper_s8_
**              get_buffer_size): 0 for a 1x1 kernel without padding and
**              dilation 1, else 2 x align4(k_w k_h c_in) x 2 bytes, host and
**              DSP alike; DEPTHWISE_CONV_2D int8 filter (arm_depthwise_conv_
**              wrapper_s8_get_buffer_size): with DSP c_in k_w k_h x 2 bytes
**              when c_in = c_out, one batch, dilation 1 and not a 3x3 kernel
**              with padding <= 1, else 0; without DSP 0; FULLY_CONNECTED int8
**              (cmsis_nn/fully_connected.cc): 8 x output depth when the
**              output has rank > 2, accum_depth % 4 = 0 and the filter is
**              per-tensor quantized, else nothing (arm_fully_connected_s8's
**              buffer is 0 without MVE); AVERAGE_POOL_2D int8 (pooling.cc):
**              with DSP 4 x depth, without 0.  Requests of size 0 are not
**              made (the wrappers test > 0).
**   not modelled  TRANSPOSE_CONV, SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM,
**              BATCH_MATMUL, REDUCE_PROD and the CMSIS-NN kernels on int16 or
**              int4 data: the first such operator is named, and a head
**              computed without its requests is a lower bound.
*/
#ifndef RIPSIM_TFLM_SCRATCH_H
#define RIPSIM_TFLM_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tflm_alloc.h"
#include "tflm_orders.h"

typedef struct rip_tflm_scratch {
    size_t n;                /* requests, in TFLM's order */
    size_t *op;              /* the requesting operator (subgraph 0) */
    int64_t *bytes;          /* as requested (placed rounded up to 16) */
    int64_t total;           /* sum of bytes */
    long unmodelled_op;      /* the first operator whose requests are not modelled, -1 none */
    char why[RIP_ERR_LEN];   /* unmodelled_op >= 0: "operator 4 (SVDF): ..." */
} rip_tflm_scratch;

/*
** The scratch requests of model m's subgraph 0 under lib (dsp: CMSIS-NN's
** ARM_MATH_DSP build, the Cortex-M33's; ignored for the reference kernels),
** as listed above.  RIP_OK with *s (free with rip_tflm_scratch_free; an
** unmodelled operator is reported in s, not an error); RIP_S_DATA (no
** subgraph, a tensor index out of range) or RIP_S_NOMEM, with err.
*/
rip_status rip_tflm_scratch_build(const rip_tfl_model *m, rip_tflm_lib lib, bool dsp, rip_tflm_scratch *s,
                                  char err[RIP_ERR_LEN]);
void rip_tflm_scratch_free(rip_tflm_scratch *s);

/*
** TFLM's head for a's buffers at offline (per buffer, a fixed offset or
** -1 online; NULL: TFLM's own plan, all online) with the scratch requests
** s (may be NULL: none): the greedy planner (rip_tflm_greedy) over the
** buffers followed by one online buffer per request alive at its
** operator's scope; *head its highest end.  RIP_OK or RIP_S_NOMEM (err).
*/
rip_status rip_tflm_head(const rip_tflm_alloc *a, const int64_t *offline, const rip_tflm_scratch *s, int64_t *head,
                         char err[RIP_ERR_LEN]);

#endif
