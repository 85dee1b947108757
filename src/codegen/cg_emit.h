/*
** cg_emit.h — from a model and a checked plan to the text of the generated
** files (internal to src/codegen/).
**
** rip_cg_steps decides, per operator, which kernel runs it and on which
** arena offsets, from the plan alone: a used ALIAS or GAP candidate of the
** op is executed in place exactly as placed, everything else in dual
** buffers.  It re-checks the placement rules each call relies on, so a
** plan that does not match its kernels is an internal error here, never
** wrong code.
*/
#ifndef RIPSIM_CG_EMIT_H
#define RIPSIM_CG_EMIT_H

#include <stdio.h>

#include "cg_internal.h"

typedef enum rip_cg_call {
    CG_DUAL,            /* the op's dual-buffer kernel */
    CG_DW_INPLACE,      /* rk_depthwise_inplace over the input */
    CG_ADD_INPLACE,     /* rk_add with the output over input `alias` */
    CG_UP_INPLACE,      /* rk_upsample_nearest_inplace */
    CG_CONV_RIP,        /* rk_conv2d_rip, dense, gather first */
    CG_POOL_RIP,        /* rk_pool_inplace */
} rip_cg_call;

typedef struct rip_cg_step {
    rip_cg_call call;
    int64_t x_out;                          /* output offset */
    int64_t x_in[RIP_OP_MAX_INPUTS];        /* input offsets */
    int alias;                              /* CG_ADD_INPLACE: the input overwritten (0 or 1) */
    int64_t gap;                            /* CG_CONV_RIP, CG_POOL_RIP: the kernel's gap (x_in - x_out, or the shift) */
    bool shift;                             /* the input is moved up by gap before the op */
    int64_t ws;                             /* in-place workspace bytes from x_out */
    size_t scratch;                         /* scratch bytes of the call */
} rip_cg_step;

/*
** Fill steps[0 .. n_ops) for plan on problem p (built from m's graph).
** arena: the arena size (>= plan->peak).  RIP_OK, or RIP_S_INTERNAL with
** err when the plan places a pair the kernels cannot run that way.
*/
rip_status rip_cg_steps(const rip_cg_model *m, const rip_problem *p, const rip_plan *plan, int64_t arena,
                        rip_cg_step *steps, char err[RIP_ERR_LEN]);

/* Names go into C strings, C and assembler comments and JSON: anything
** but letters, digits and ._+- becomes '_' in n (a file may be named
** anything). */
void rip_cg_plain_name(char *n);

/* The files of a generated model, as indexes into rip_cg_file_names. */
typedef enum rip_cg_file { RIP_CG_C, RIP_CG_ASM, RIP_CG_BIN, RIP_CG_JSON } rip_cg_file;

/* Writes the text of one file of a generated model to f. */
typedef void (*rip_cg_emitter)(FILE *f, rip_cg_file kind, const void *ctx);

/*
** The four files into dir (model.bin, model_blob.S, model.c, then
** model.json), each under a temporary name, synced and renamed into place.
** RIP_OK; RIP_S_CANTCREATE, RIP_S_IO, RIP_S_NOMEM with err.
*/
rip_status rip_cg_write_files(const char *dir, rip_cg_emitter emit, const void *ctx, char err[RIP_ERR_LEN]);

/* model.c's opening comment: what was generated from source ("the graph
** X.csv"), the arena and scratch, how many of its units ("operators",
** "steps") run in place, then weights: lines starting "** " saying where
** the weights come from and the reference CRC. */
void rip_cg_emit_banner(FILE *f, const rip_cg_summary *s, const char *source, const char *units,
                        const char *weights);

/* The part of model.c every generated model shares: includes, the size
** macros, the blob's accessors (RK_I8, RK_I32; RK_F32 when f32), the
** arena, the scratch array when scratch (some call passes rk_scratch:
** an unused static array breaks the firmware's -Werror) and A(off). */
void rip_cg_emit_head(FILE *f, const rip_cg_summary *s, bool f32, bool scratch);

/* model.c, model_blob.S and model.json to f.  x_input: the model input's
** offset; s: the summary (arena, scratch, names) already filled. */
void rip_cg_emit_c(FILE *f, const rip_cg_model *m, const rip_cg_step *steps, int64_t x_input,
                   const rip_cg_summary *s);
void rip_cg_emit_asm(FILE *f, const rip_cg_summary *s);
void rip_cg_emit_json(FILE *f, const rip_cg_summary *s, uint64_t seed);

#endif
