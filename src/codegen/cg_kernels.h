/*
** cg_kernels.h — the text of every kernel call a generated model.c makes,
** and of the const parameter structs those calls take (internal to
** src/codegen/).  Both generators, the CSV graphs' (cg_emit.c) and the
** TFLite nets' (cg_net_emit.c), print their calls through these functions
** only, so a kernel's calling convention is written down once.
**
** Names in the generated code: the parameters of step (or op) i are
** `conv<i>`, `q<i>`, `fc<i>`, `add<i>`, `pool<i>`, `up<i>`, `ip<i>`,
** `mean<i>`, `sm<i>`, `pad<i>`, `tr<i>`, `cat<i>`, `rs<i>`, `aff<i>`, the
** dims `in<i>` / `out<i>`, the shapes `sh<i>_<k>`.  A pointer operand is a
** cg_ptr, an expression over the macros model.c defines: A(off) (the
** arena), RK_I8(off), RK_I32(off), RK_F32(off) (the blob), or a named
** buffer.  A call function prints the call expression only (the caller
** wraps it in `if (... != RK_OK)`).
*/
#ifndef RIPSIM_CG_KERNELS_H
#define RIPSIM_CG_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rk_add.h"
#include "rk_concat.h"
#include "rk_fully_connected.h"
#include "rk_mean.h"
#include "rk_pad.h"
#include "rk_pool.h"
#include "rk_quantize.h"
#include "rk_resize_nearest.h"
#include "rk_softmax.h"
#include "rk_transpose.h"
#include "rk_types.h"
#include "rk_upsample.h"

/* A pointer expression of the generated code. */
typedef struct cg_ptr {
    char s[64];
} cg_ptr;

cg_ptr cg_arena(int64_t off);        /* A(off) */
cg_ptr cg_i8(int64_t off);           /* RK_I8(off) */
cg_ptr cg_i32(int64_t off);          /* RK_I32(off), or NULL for off < 0 (no array) */
cg_ptr cg_f32(int64_t off);          /* RK_F32(off) */
cg_ptr cg_named(const char *name);   /* the name itself */

/* ---- parameter structs: `static const TYPE NAME<i> = {...};` lines ---- */

void cg_dims(FILE *f, const char *name, size_t i, rk_dims d);
void cg_conv_params(FILE *f, size_t i, const rk_conv_params *c);
void cg_fc_params(FILE *f, size_t i, const rk_fc_params *c);
void cg_add_params(FILE *f, size_t i, const rk_add_params *a);
void cg_pool_params(FILE *f, size_t i, const rk_pool_params *c);
void cg_up_params(FILE *f, size_t i, const rk_upsample_params *u);
/* q<i> = {RK_I32(mult), RK_I32(shift)} */
void cg_quant(FILE *f, size_t i, int64_t off_mult, int64_t off_shift);
/* ip<i> = {RK_DENSE, RK_GATHER, gap}: rk_conv2d_rip's mode */
void cg_inplace(FILE *f, size_t i, int64_t gap);
/* sh<i>_<k> */
void cg_shape(FILE *f, size_t i, size_t k, const rk_shape *s);
void cg_mean_params(FILE *f, size_t i, const rk_mean_params *p, const int32_t *axis, int32_t n_axis);
void cg_softmax_params(FILE *f, size_t i, const rk_softmax_params *p);
void cg_pad_params(FILE *f, size_t i, const rk_pad_params *p);
void cg_transpose_params(FILE *f, size_t i, const rk_transpose_params *p);
void cg_resize_params(FILE *f, size_t i, const rk_resize_params *p);
/* aff<i> = {scale, zero point}, the scale as an exact hexadecimal float */
void cg_affine(FILE *f, size_t i, const rk_affine *q);
/* cat<i> and its tables cat<i>_shapes and cat<i>_inputs: the n_inputs
** shapes and input pointers */
void cg_concat_params(FILE *f, size_t i, const rk_concat_params *p, const rk_shape *shapes, const cg_ptr *inputs);

/* ---- calls ---- */

/* fn: "rk_conv2d" or "rk_pointwise" */
void cg_call_conv(FILE *f, const char *fn, size_t i, cg_ptr in, cg_ptr filter, cg_ptr bias, cg_ptr out);
void cg_call_conv_rip(FILE *f, size_t i, cg_ptr filter, cg_ptr bias, cg_ptr ws, int64_t ws_size);
void cg_call_depthwise(FILE *f, size_t i, cg_ptr in, cg_ptr filter, cg_ptr bias, cg_ptr out);
void cg_call_depthwise_inplace(FILE *f, size_t i, cg_ptr filter, cg_ptr bias, cg_ptr tensor);
void cg_call_fc(FILE *f, size_t i, cg_ptr in, cg_ptr weights, cg_ptr bias, cg_ptr out);
void cg_call_add(FILE *f, size_t i, int64_t n, cg_ptr in1, cg_ptr in2, cg_ptr out);
/* shapes sh<i>_0 (out), sh<i>_1 (in1), sh<i>_2 (in2) */
void cg_call_add_broadcast(FILE *f, size_t i, cg_ptr in1, cg_ptr in2, cg_ptr out);
void cg_call_pool(FILE *f, size_t i, bool avg, cg_ptr in, cg_ptr out);
void cg_call_pool_inplace(FILE *f, size_t i, bool avg, int64_t gap, cg_ptr ws, int64_t ws_size);
void cg_call_upsample(FILE *f, size_t i, cg_ptr in, cg_ptr out);
void cg_call_upsample_inplace(FILE *f, size_t i, cg_ptr ws, int64_t ws_size);
/* the input's shape sh<i>_0 */
void cg_call_mean(FILE *f, size_t i, int32_t n_axis, cg_ptr in, cg_ptr out);
void cg_call_softmax(FILE *f, size_t i, int32_t rows, int32_t depth, cg_ptr in, cg_ptr out);
void cg_call_pad(FILE *f, size_t i, cg_ptr in, cg_ptr out);
void cg_call_transpose(FILE *f, size_t i, cg_ptr in, cg_ptr out);
void cg_call_concat(FILE *f, size_t i, cg_ptr out);
void cg_call_resize(FILE *f, size_t i, cg_ptr in, cg_ptr out);
void cg_call_quantize(FILE *f, size_t i, int64_t n, cg_ptr in, cg_ptr out);
void cg_call_dequantize(FILE *f, size_t i, int64_t n, cg_ptr in, cg_ptr out);

/* The kernel headers a model.c calling any of the above includes, NULL-terminated. */
extern const char *const cg_kernel_headers[];

#endif
