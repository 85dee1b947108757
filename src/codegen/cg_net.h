/*
** cg_net.h — a TFLite model's generated code (internal to src/codegen/):
** what cg_net.c prepares from the net (net.h) and its layout, and what
** cg_net_emit.c prints from it.
**
** Everything the generated model reads is in the blob: each step's
** constants (filters, biases, TFLM's prepare-time multipliers and shifts,
** constant operands), exactly the bytes the host runner reads (the model
** file's, or the net's own arrays), and the model's inputs; the int8
** inputs are copied into the arena before the first step, a float32
** input is read from the blob by its QUANTIZE.
*/
#ifndef RIPSIM_CG_NET_H
#define RIPSIM_CG_NET_H

#include <stdint.h>
#include <stdio.h>

#include "cg_blob.h"
#include "codegen.h"
#include "net.h"

/* Where one step's constants are in the blob (-1: none). */
typedef struct rip_cg_net_step {
    int64_t filter, bias, mult, shift;        /* CONV, DEPTHWISE, FC (filter: the FC's weights) */
    int64_t operand[RIP_NET_MAX_OPERANDS];    /* constant operands (ADD, CONCAT): per step.in[k] */
} rip_cg_net_step;

typedef struct rip_cg_net_model {
    const rip_net *net;
    const rip_net_layout *L;
    const char *source;          /* the model file's name (no folders), for comments */
    rip_cg_blob blob;
    rip_cg_net_step *step;       /* per step */
    int64_t *input;              /* per model input: its bytes in the blob */
    uint8_t *logits;             /* the host run's outputs, concatenated (float32 little-endian) */
    int64_t n_logits;
    uint32_t checksum;           /* CRC-32 of logits */
} rip_cg_net_model;

/* model.c and model.json of m to f; s the summary already filled. */
void rip_cg_net_emit_c(FILE *f, const rip_cg_net_model *m, const rip_cg_summary *s);
void rip_cg_net_emit_json(FILE *f, const rip_cg_net_model *m, const rip_cg_summary *s);

#endif
