/*
** tflm_alloc.h — the buffers TensorFlow Lite Micro places in its arena for a
** model, with the sizes and lifetimes TFLM's own allocator gives them, and
** TFLM's greedy planner re-enacted (what TFLM does with an offline plan and
** without one).  Everything here follows TFLM 90b983c2:
**
**   which tensors  micro_allocation_info.cc 202-205: a tensor is placed when
**                  it has no constant data (micro_allocator.cc 206-214: a
**                  buffer with data of size > 0), is not a variable, and has
**                  a byte length > 0 (element count times type size).
**                  Variables are allocated whole in the persistent tail
**                  (micro_allocator.cc 1072-1094) unless given an offline
**                  offset: rip_tflm_alloc leaves them online (persistent)
**                  and counts their bytes in variable_bytes.
**   sizes          micro_allocator.cc 113-114: each placed buffer's bytes
**                  rounded up to MicroArenaBufferAlignment() = 16
**                  (micro_arena_constants.h 24).
**   lifetimes      micro_allocation_info.cc 246-332, in allocation scopes:
**                  scope 0 before the first operator, operator i is scope
**                  i + 1.  Subgraph inputs are created and used at 0; each
**                  operator's outputs are created at its scope unless
**                  created before, and its inputs (index >= 0) and outputs
**                  are last used there; subgraph outputs are last used at
**                  the last scope (created there if never before).  A
**                  RESHAPE output is a tensor of its own (TFLM aliases
**                  nothing); TFLM's RESHAPE kernel copies nothing when its
**                  output is at its input's address (kernels/reshape.cc
**                  44-48), so a plan may put it there.
**   greedy         memory_planner/greedy_memory_planner.cc 165-300: offline
**                  buffers first at their offsets (in order added), then the
**                  online ones by decreasing size (a stable sort of them in
**                  reverse order added), each at the lowest gap between the
**                  buffers active in its time range, walking them by offset.
**
** One subgraph only (control flow, which makes more, is refused).
*/
#ifndef RIPSIM_TFLM_ALLOC_H
#define RIPSIM_TFLM_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "tflite/tfl_model.h"

#define RIP_TFLM_ALIGN 16

/* What TFLM places for a buffer of bytes: rounded up to RIP_TFLM_ALIGN (micro_allocator.cc CreatePlan). */
static inline int64_t rip_tflm_placed_size(int64_t bytes)
{
    return (bytes + RIP_TFLM_ALIGN - 1) / RIP_TFLM_ALIGN * RIP_TFLM_ALIGN;
}

typedef struct rip_tflm_buf {
    int32_t tensor;      /* index in subgraph 0 */
    int64_t bytes;       /* TfLiteEvalTensorByteLength */
    int64_t size;        /* bytes rounded up to RIP_TFLM_ALIGN: what TFLM places */
    int first, last;     /* allocation scopes, inclusive; -1: never used (TFLM places it all the same) */
} rip_tflm_buf;

typedef struct rip_tflm_alloc {
    size_t n_tensors;    /* of subgraph 0 */
    size_t n_ops;
    size_t n;            /* placed buffers, in tensor order (TFLM's order added) */
    rip_tflm_buf *buf;
    int32_t *buf_of;     /* per tensor: its buffer's index, -1 when TFLM does not place it */
    size_t n_variables;
    int64_t variable_bytes;   /* persistent, outside the planned area */
} rip_tflm_alloc;

/*
** The placed buffers of m (its subgraph 0) as TFLM computes them (above).
** RIP_OK with *a (free with rip_tflm_alloc_free); RIP_S_DATA with err
** "LABEL: WHAT" (not one subgraph, an operator's tensor index out of range,
** a placed tensor whose type has no byte size or whose size passes 2^31);
** RIP_S_NOMEM.
*/
rip_status rip_tflm_alloc_build(const rip_tfl_model *m, rip_tflm_alloc *a, char err[RIP_ERR_LEN]);
void rip_tflm_alloc_free(rip_tflm_alloc *a);

/*
** TFLM's greedy planner over a's buffers: offline[i] (per buffer, or NULL
** for none) is a fixed offset or -1 (online).  off[i] receives every
** buffer's offset; *area the highest end (GetMaximumMemorySize).  RIP_OK or
** RIP_S_NOMEM (err).
*/
rip_status rip_tflm_greedy(const rip_tflm_alloc *a, const int64_t *offline, int64_t *off, int64_t *area,
                           char err[RIP_ERR_LEN]);

#endif
