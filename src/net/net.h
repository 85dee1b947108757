/*
** net.h — a TFLite model (tfl_model.h) as an executable int8 network: the
** host runtime of `ripsim run`, the planning problem of `ripsim plan
** MODEL.tflite`, and what a code generator needs to emit the same network
** for a board.
**
** Building (rip_net_build, net_build.c) checks the model (rip_tfl_check)
** and turns every operator into one of three things:
**   a step      one call of one kernel of firmware/kernels/, with the
**               integers TensorFlow Lite Micro's Prepare computes
**               (host/rk_prepare.h): CONV_2D, DEPTHWISE_CONV_2D,
**               FULLY_CONNECTED, the pools, ADD, MEAN, SOFTMAX, PAD,
**               TRANSPOSE, CONCATENATION, RESIZE_NEAREST_NEIGHBOR,
**               QUANTIZE, DEQUANTIZE;
**   an alias    RESHAPE: its output is its input's buffer, no copy and no
**               buffer of its own;
**   folded      a PAD whose only consumer is a CONV_2D or
**               DEPTHWISE_CONV_2D reading it as its input, that pads only
**               H and W (TFLite's PAD pads an int8 tensor with its zero
**               point, which a convolution's padding taps stand for): its
**               paddings are added to the consumer's, which reads the
**               PAD's input (TinyEngine's code generator does the same).
**               A PAD before a pool is executed: TFLite's pools leave
**               padding out of the average and the maximum, so a padded
**               cell is not the same as a pool's padding.
** The int8 activations live in *buffers* of one arena: every model input
** of type int8 (the caller's bytes are copied in before the first step)
** and every step's output.  A float32 model input or output is not in the
** arena: the QUANTIZE step reads the caller's floats, DEQUANTIZE writes
** the caller's floats.  Constants (weights, bias, the operands of an ADD or
** CONCATENATION that are constant) are read where they are in the model's
** file, never copied into the arena; a bias that is not 4-byte aligned in
** the file (or on a big-endian host) is decoded once into the net.
**
** Steps run in the model's operator order.  Buffer lifetimes are in steps:
** from the step that writes it (0 for a model input) to the last step that
** reads it through any alias, or to the last step for a model output.
**
** Planning (net_problem.c): buffer i is tensor i of a rip_problem, step s
** is step s; the in-place candidates come from rip_graph_op_candidates
** (graph.h), the operator classes CSV graphs use: RiP GAP for CONV_2D and
** local pools, ALIAS for ADD and integer nearest upsampling, TinyEngine's
** ALIAS for a depthwise of multiplier 1 whose output is not larger.
** A plan becomes a layout (net_layout.c): an offset per buffer and, per
** step, whether it runs in dual buffers, over its input (ALIAS) or below
** it (GAP, optionally after a runtime shift).  rip_net_run (net_run.c)
** executes a layout in one caller-given arena with the matching kernels
** (rk_conv2d_rip, rk_pool_inplace, rk_depthwise_inplace,
** rk_upsample_nearest_inplace, rk_add over its input), allocating nothing.
**
** Library code: statuses and one line of error, never output.
*/
#ifndef RIPSIM_NET_H
#define RIPSIM_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"
#include "plan.h"
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
#include "tfl_model.h"

/* Most operands of one step (CONCATENATION): more is refused when building. */
#define RIP_NET_MAX_OPERANDS 32

typedef enum rip_net_kind {
    RIP_NET_CONV,        /* CONV_2D: rk_conv2d; GAP: rk_conv2d_rip (dense, gathered) */
    RIP_NET_DEPTHWISE,   /* DEPTHWISE_CONV_2D: rk_depthwise; ALIAS: rk_depthwise_inplace */
    RIP_NET_FC,          /* FULLY_CONNECTED: rk_fully_connected */
    RIP_NET_AVGPOOL,     /* AVERAGE_POOL_2D: rk_avgpool; GAP: rk_pool_inplace */
    RIP_NET_MAXPOOL,     /* MAX_POOL_2D: rk_maxpool; GAP: rk_pool_inplace */
    RIP_NET_ADD,         /* ADD: rk_add (broadcast by runs); ALIAS: output over an input */
    RIP_NET_MEAN,        /* MEAN: rk_mean */
    RIP_NET_SOFTMAX,     /* SOFTMAX: rk_softmax over the last axis */
    RIP_NET_PAD,         /* PAD not folded: rk_pad with the zero point */
    RIP_NET_TRANSPOSE,   /* TRANSPOSE: rk_transpose */
    RIP_NET_CONCAT,      /* CONCATENATION: rk_concat */
    RIP_NET_RESIZE,      /* RESIZE_NEAREST_NEIGHBOR: rk_resize_nearest; ALIAS (integer
                            upsampling only): rk_upsample_nearest_inplace */
    RIP_NET_QUANTIZE,    /* QUANTIZE: the caller's float32 input -> int8 (rk_quantize_f32) */
    RIP_NET_DEQUANTIZE,  /* DEQUANTIZE: int8 -> the caller's float32 output (rk_dequantize_f32) */
} rip_net_kind;

/* The kernel family's name for messages and listings ("conv", "depthwise", ...). */
const char *rip_net_kind_name(rip_net_kind k);

/* One operand of a step: an arena buffer, constant data in the model's
** file, or (QUANTIZE's input, DEQUANTIZE's output) a float32 model
** input or output, which is the caller's. */
typedef struct rip_net_operand {
    int32_t tensor;            /* the model's tensor */
    int32_t buf;               /* its arena buffer, or -1 */
    const int8_t *data;        /* a constant's bytes (buf -1), else NULL */
    int32_t io;                /* float32 model input (QUANTIZE) or output (DEQUANTIZE) index, else -1 */
} rip_net_operand;

/* CONV and DEPTHWISE.  q's arrays have out.c entries, owned by the net. */
typedef struct rip_net_conv {
    rk_conv_params p;          /* padding includes a folded PAD's */
    rk_quant q;
    rk_dims in, out;           /* in: the tensor read (a folded PAD's input) */
    const int8_t *filter;      /* OHWI (conv) or 1HWC (depthwise), in the model's file */
    const int32_t *bias;       /* out.c values, or NULL */
    bool pointwise;            /* 1x1, stride 1, no padding */
} rip_net_conv;

typedef struct rip_net_fc {
    rk_fc_params p;
    rk_quant q;                /* one entry (per tensor) or out_features */
    const int8_t *weights;     /* [out_features][in_features] in the model's file */
    const int32_t *bias;       /* or NULL */
} rip_net_fc;

typedef struct rip_net_pool {
    rk_pool_params p;
    rk_dims in, out;
} rip_net_pool;

/* ADD: n output elements; when broadcast, the three shapes aligned to
** the output's rank (unit extents where an input is broadcast). */
typedef struct rip_net_add {
    rk_add_params p;
    int32_t n;
    bool broadcast;
    rk_shape out, in1, in2;
} rip_net_add;

typedef struct rip_net_mean {
    rk_mean_params p;
    rk_shape in;
    int32_t axis[RK_MAX_RANK];
    int32_t n_axis;
} rip_net_mean;

typedef struct rip_net_softmax {
    rk_softmax_params p;
    int32_t rows, depth;
} rip_net_softmax;

typedef struct rip_net_pad {
    rk_pad_params p;
    rk_shape in;
} rip_net_pad;

typedef struct rip_net_transpose {
    rk_transpose_params p;
    rk_shape in;
} rip_net_transpose;

typedef struct rip_net_concat {
    rk_concat_params p;
    const rk_shape *shapes;    /* n_inputs shapes, owned by the net */
} rip_net_concat;

/* RESIZE: up.s_h/s_w > 0 when the resize is an integer nearest upsampling
** (TFLM's index of every output row and column is o / s), else 0. */
typedef struct rip_net_resize {
    rk_resize_params p;
    rk_dims in, out;
    rk_upsample_params up;
} rip_net_resize;

/* QUANTIZE / DEQUANTIZE: n elements, q the int8 side's scale and zero point. */
typedef struct rip_net_quant {
    rk_affine q;
    int32_t n;
} rip_net_quant;

typedef struct rip_net_step {
    rip_net_kind kind;
    int32_t op;                /* the model's operator index */
    int32_t folded_pad;        /* the PAD operator folded into it, or -1 */
    int32_t n_in;
    const rip_net_operand *in; /* n_in operands, owned by the net (in[0]: the activation) */
    rip_net_operand out;
    union {
        rip_net_conv conv;           /* CONV, DEPTHWISE */
        rip_net_fc fc;               /* FC */
        rip_net_pool pool;           /* AVGPOOL, MAXPOOL */
        rip_net_add add;             /* ADD */
        rip_net_mean mean;           /* MEAN */
        rip_net_softmax softmax;     /* SOFTMAX */
        rip_net_pad pad;             /* PAD */
        rip_net_transpose transpose; /* TRANSPOSE */
        rip_net_concat concat;       /* CONCAT */
        rip_net_resize resize;       /* RESIZE */
        rip_net_quant quant;         /* QUANTIZE, DEQUANTIZE */
    } u;
} rip_net_step;

/* An arena buffer. */
typedef struct rip_net_buffer {
    int32_t tensor;            /* the tensor written into it (RESHAPE outputs share it) */
    int64_t size;              /* bytes (int8: elements), > 0 */
    int32_t first, last;       /* steps, inclusive */
    int32_t producer;          /* the step writing it, -1 for a model input */
    int32_t input;             /* the model input copied into it before step 0, or -1 */
} rip_net_buffer;

/* A model input or output, as the caller gives or receives it. */
typedef struct rip_net_io {
    int32_t tensor;
    int type;                  /* RIP_TFL_INT8 or RIP_TFL_FLOAT32 */
    int64_t elements, bytes;   /* bytes: elements * 1 or 4 */
    int32_t buf;               /* int8: its arena buffer; float32: -1 (the caller's) */
} rip_net_io;

/* What happened to an operator, as rip_net_run reports it. */
typedef enum rip_net_how {
    RIP_NET_STEP,              /* ran as a step */
    RIP_NET_ALIAS,             /* RESHAPE: its output is its input's buffer */
    RIP_NET_FOLDED,            /* PAD folded into the next convolution: no output exists */
} rip_net_how;

struct rip_net_store;

typedef struct rip_net {
    const rip_tfl_model *model;      /* not owned: must outlive the net */
    const rip_tfl_subgraph *sg;      /* the model's subgraph */
    size_t n_steps, n_buffers, n_inputs, n_outputs, n_ops;
    rip_net_step *steps;
    rip_net_buffer *buffers;
    rip_net_io *inputs, *outputs;    /* in the model's order */
    int32_t *tensor_buf;             /* per tensor: its arena buffer, or -1 */
    int32_t *op_step;                /* per operator: its step, or -1 */
    rip_net_how *op_how;             /* per operator */
    struct rip_net_store *store;     /* everything the net allocated */
} rip_net;

/*
** Build the net of model m (decoded; rip_net_build runs rip_tfl_check
** first).  RIP_OK with *net (free with rip_net_free); RIP_S_DATA with the
** check's message, or "LABEL: operator N (NAME): ..." for what the kernels
** cannot run (a batch other than 1 for a 2-D operator, more than
** RIP_NET_MAX_OPERANDS operands or RK_MAX_RANK axes, a tensor of 2^31
** elements or more, prepare-time arithmetic TFLM refuses); RIP_S_NOMEM.
** On failure *net is empty (freeing it is harmless).
*/
rip_status rip_net_build(const rip_tfl_model *m, rip_net *net, char err[RIP_ERR_LEN]);
void rip_net_free(rip_net *net);

/* "operator N (NAME)" of the model's operator op, for messages. */
void rip_net_op_label(const rip_net *net, int32_t op, char *out, size_t len);

/*
** The planning problem of the net (buffers = tensors, ids "tN" with N the
** model's tensor index; steps = steps, at least one), with the in-place
** candidates o allows (graph.h; o->align is the alignment).  RIP_OK;
** RIP_S_DATA beyond RIP_PLAN_TOTAL_MAX, RIP_S_INTERNAL for a bad
** alignment, RIP_S_NOMEM, with err.
*/
rip_status rip_net_problem(const rip_net *net, const rip_graph_opts *o, rip_problem *p, char err[RIP_ERR_LEN]);

/*
** The problem of the model in the file at path (`ripsim plan
** MODEL.tflite`): read, checked, built and planned as rip_net_problem;
** the model and net are released.  The statuses of rip_tfl_model_load,
** rip_net_build and rip_net_problem, with err.
*/
rip_status rip_net_problem_from_file(const char *path, const rip_graph_opts *o, rip_problem *p, char err[RIP_ERR_LEN]);

/* ---- layouts: where the buffers are, how each step runs ---- */

typedef enum rip_net_mode {
    RIP_NET_DUAL,              /* output and inputs in disjoint blocks */
    RIP_NET_OVER,              /* ALIAS: the output is written over input `in` (same offset) */
    RIP_NET_BELOW,             /* GAP: the output starts `gap` bytes below input `in` */
} rip_net_mode;

typedef struct rip_net_place {
    rip_net_mode mode;
    int32_t in;                /* OVER, BELOW: the operand overwritten (index into step.in) */
    int64_t gap;               /* BELOW: bytes from the output's start to the input's while it runs */
    bool shift;                /* BELOW: the input sits at the output's offset and is moved up
                                  by gap bytes right before the step (a runtime shift) */
} rip_net_place;

typedef struct rip_net_layout {
    int64_t arena_bytes;       /* the arena the layout needs: the plan's peak */
    int64_t scratch_bytes;     /* the largest scratch one step needs (outside the arena) */
    int64_t *offset;           /* per buffer */
    rip_net_place *place;      /* per step */
} rip_net_layout;

/*
** The layout of plan (made by a strategy for p = rip_net_problem(net, ...)):
** the plan's offsets, and a place per step from its used candidate.  Checks
** what the kernels rely on (the plan's own validity is rip_plan_check's):
** every buffer within the arena; a dual step's output disjoint from its
** inputs; an in-place step one whose kernel runs in place (a depthwise of
** multiplier 1 not growing, ADD, an integer upsampling, a convolution or a
** local pool below its input) with its other inputs disjoint from the
** output.  RIP_OK with *L (free with rip_net_layout_free); RIP_S_DATA
** naming the step for a plan that does not fit the net; RIP_S_NOMEM.
*/
rip_status rip_net_layout_from_plan(const rip_net *net, const rip_problem *p, const rip_plan *plan,
                                    rip_net_layout *L, char err[RIP_ERR_LEN]);
void rip_net_layout_free(rip_net_layout *L);

/* The plans `ripsim run --plan` names. */
typedef enum rip_net_plan_kind {
    RIP_NET_PLAN_BASE,         /* tinyengine, TinyEngine's in-place depthwise only (Tab. 3 "Base") */
    RIP_NET_PLAN_RIP,          /* milp with every RiP candidate, gathered gaps (Tab. 3 "RiP") */
} rip_net_plan_kind;

/* The options of a plan kind: base {rip false, in-place depthwise}, rip
** {rip, in-place depthwise}; alignment 4 (as on the Picos). */
rip_graph_opts rip_net_plan_opts(rip_net_plan_kind k);
/* Its strategy's name: "tinyengine" or "milp". */
const char *rip_net_plan_strategy(rip_net_plan_kind k);

/*
** Plan the net: its problem under rip_net_plan_opts(k), the strategy
** (milp on budgets, reproducible), the plan checked by rip_plan_check
** with simulated gaps, and its layout.  *p, *plan and *L are the caller's
** to free (any may be NULL when not wanted: then freed here).  RIP_OK;
** RIP_S_UNAVAILABLE (milp's module missing), RIP_S_INTERNAL (an invalid
** plan), the statuses of rip_net_problem and rip_net_layout_from_plan,
** with err.
*/
rip_status rip_net_plan(const rip_net *net, rip_net_plan_kind k, rip_problem *p, rip_plan **plan,
                        rip_net_layout *L, char err[RIP_ERR_LEN]);

/* ---- running ---- */

/*
** Called after every operator in the model's order: how it was executed
** and its output 0, bytes bytes at data (int8 in the arena, or the
** caller's float32 output for DEQUANTIZE; an alias's bytes for RESHAPE;
** NULL and 0 for a folded PAD).  data is valid until the hook returns.
*/
typedef void (*rip_net_hook)(void *ctx, int32_t op, rip_net_how how, const void *data, int64_t bytes);

/*
** Run the net under layout L.  arena: L->arena_bytes bytes; scratch:
** L->scratch_bytes bytes outside it (NULL when 0); inputs[i]:
** net->inputs[i].bytes bytes in the input's type (float32 in the host's
** order); outputs[i]: net->outputs[i].bytes bytes, written at the end.
** hook may be NULL.  Allocates nothing.  RIP_OK; RIP_S_DATA when the
** model's data make a kernel stop where TFLM aborts (a softmax row whose
** exponentials sum to 2^28 or more), RIP_S_INTERNAL when a kernel refuses
** its parameters, with err naming the operator.
*/
rip_status rip_net_run(const rip_net *net, const rip_net_layout *L, int8_t *arena, int8_t *scratch,
                       const void *const *inputs, void *const *outputs, rip_net_hook hook, void *ctx,
                       char err[RIP_ERR_LEN]);

/*
** Fill dst (net->inputs[i].bytes) from the file at path: a BMP (name
** ending in .bmp, any case) converted as TFLM's person-detection example
** does (bmp.h; an int8 input of shape [1, H, W, C]); any other file is the
** input's raw bytes, exactly that many, little-endian float32 for a float
** input.  RIP_OK; RIP_S_NOINPUT (cannot be opened), RIP_S_IO, RIP_S_DATA
** (wrong size, a bad BMP, a BMP for a float input), with err.
*/
rip_status rip_net_read_input(const rip_net *net, size_t i, const char *path, void *dst, char err[RIP_ERR_LEN]);

#endif
