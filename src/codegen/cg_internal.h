/*
** cg_internal.h — the model's per-operator parameters, shared by the
** model builder (cg_model.c) and the emitter (cg_emit.c); internal to
** src/codegen/.
*/
#ifndef RIPSIM_CG_INTERNAL_H
#define RIPSIM_CG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cg_blob.h"
#include "codegen.h"
#include "rk_add.h"
#include "rk_conv2d.h"
#include "rk_fully_connected.h"
#include "rk_pool.h"
#include "rk_upsample.h"

/* One operator's kernel parameters; blob offsets are -1 where unused. */
typedef struct rip_cg_op {
    rk_dims in, out;          /* first input, output (fc: in = h x w x c of the tensor read) */
    rk_conv_params conv;      /* conv2d, pointwise, depthwise */
    rk_fc_params fc;
    rk_add_params add;
    rk_pool_params pool;
    rk_upsample_params up;
    int64_t off_filter, off_bias, off_mult, off_shift;
} rip_cg_op;

struct rip_cg_model {
    const rip_graph *g;
    size_t n_t;               /* tensors: 0 = model input, i + 1 = output of op i */
    int64_t *tsize;           /* bytes of each tensor */
    int *tin;                 /* tensor of input j of op i: tin[i * RIP_OP_MAX_INPUTS + j] */
    rip_cg_op *op;
    rip_cg_blob blob;         /* model.bin */
    int64_t off_input;        /* the model input's bytes in the blob */
    int8_t **ref;             /* reference values of every tensor */
    int *outputs;             /* graph outputs (tensor indices) in graph order */
    size_t n_outputs;
    int8_t *logits;           /* their reference values, concatenated */
    int64_t n_logits;
    uint32_t checksum;
};

/* The tensor index of input j of op i. */
static inline int rip_cg_tin(const rip_cg_model *m, size_t i, int j)
{
    return m->tin[i * RIP_OP_MAX_INPUTS + (size_t)j];
}

/* The scratch bytes op i needs with its dual-buffer kernel. */
size_t rip_cg_dual_scratch(const rip_cg_model *m, size_t i);

#endif
