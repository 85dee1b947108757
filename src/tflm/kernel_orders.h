/*
** kernel_orders.h — the read/write orders of the int8 kernels TFLite Micro
** runs, TFLM's reference kernels and the CMSIS-NN ones its cmsis_nn
** wrappers call, as generators for the trace engine (sim/kernel_order.h).
**
** Each order is read from the kernel's own loops (kernel_orders.c names
** the file and the loop nest of each); NHWC tensors, int8 scalars, input
** scalar ((b*h_in + y)*w_in + x)*c_in + c, output likewise (QUANTIZE's
** float32 input: scalar = byte, in_bytes of them per element).  The gap of a
** kernel is then the trace engine's truth, never a closed form.
*/
#ifndef RIPSIM_KERNEL_ORDERS_H
#define RIPSIM_KERNEL_ORDERS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel_order.h"

typedef enum rip_korder {
    /* TFLM reference kernels (tensorflow/lite/kernels/internal/reference/integer_ops/) */
    RIP_KO_REF_CONV = 0,        /* conv.h ConvPerChannel (groups allowed) */
    RIP_KO_REF_DW,              /* depthwise_conv.h DepthwiseConvPerChannel */
    RIP_KO_REF_FC,              /* fully_connected.h FullyConnected */
    RIP_KO_REF_POOL,            /* pooling.h AveragePool and MaxPool (one loop nest) */
    RIP_KO_REF_ADD,             /* add.h AddElementwise (no broadcast) */
    RIP_KO_REF_PAD,             /* reference/pad.h PadImpl (TFLM's pad.cc, int8) */
    RIP_KO_REF_QUANTIZE,        /* reference/quantize.h AffineQuantize, float32 -> int8 (both builds) */
    /* CMSIS-NN v7.0.0, host (pure C) and Cortex-M33 (ARM_MATH_DSP) */
    RIP_KO_CMSIS_CONV,          /* arm_convolve_s8: im2col of two pixels, then their product */
    RIP_KO_CMSIS_1X1_FAST,      /* arm_convolve_1x1_s8_fast -> arm_nn_mat_mult_nt_t_s8 */
    RIP_KO_CMSIS_1X1,           /* arm_convolve_1x1_s8 (strided): one mat_mult per output row */
    RIP_KO_CMSIS_DW_3X3,        /* arm_depthwise_conv_3x3_s8 */
    RIP_KO_CMSIS_DW_GENERIC,    /* arm_depthwise_conv_s8: depthwise_conv_s8_generic */
    RIP_KO_CMSIS_DW_MULT4,      /* arm_depthwise_conv_s8: depthwise_conv_s8_mult_4 */
    RIP_KO_CMSIS_DW_OPT_DSP,    /* arm_depthwise_conv_s8_opt, ARM_MATH_DSP path (im2col per pixel) */
    RIP_KO_CMSIS_FC,            /* arm_fully_connected_s8 / _per_channel_s8, pure C: 3 rows at a time */
    RIP_KO_CMSIS_FC_DSP,        /* the same, ARM_MATH_DSP: 2 rows at a time */
    RIP_KO_CMSIS_AVGPOOL,       /* arm_avgpool_s8, pure C: per pixel, per channel */
    RIP_KO_CMSIS_AVGPOOL_DSP,   /* arm_avgpool_s8, ARM_MATH_DSP: per pixel, tap by tap over all channels */
    RIP_KO_CMSIS_MAXPOOL,       /* arm_max_pool_s8 (pure C and DSP alike) */
    RIP_KO_CMSIS_ADD,           /* arm_elementwise_add_s8, pure C: one scalar at a time */
    RIP_KO_CMSIS_ADD_DSP,       /* arm_elementwise_add_s8, ARM_MATH_DSP: four at a time */
    RIP_KO_CMSIS_PAD,           /* arm_pad_s8 (cmsis_nn/pad.cc; pure C and DSP alike): memset and memcpy */
    RIP_KO_COUNT
} rip_korder;

/* Stable name of an order ("ref_conv", "cmsis_1x1_fast", ...). */
const char *rip_korder_name(rip_korder k);

/* Geometry of one operator, as TFLite computes it (padding from SAME/VALID). */
typedef struct rip_kgeom {
    int64_t batches, h_in, w_in, c_in, h_out, w_out, c_out;
    int64_t k_h, k_w, s_h, s_w, d_h, d_w;   /* kernel window, strides, dilations (pools: d = 1) */
    int64_t pad_top, pad_left;
    int64_t groups;                         /* conv: c_in / filter input depth (1 when 0) */
    int64_t depth_mult;                     /* depthwise: c_out / c_in */
    int64_t n_elem;                         /* ADD, QUANTIZE: elements of each operand and the output */
    int64_t in_bytes;                       /* QUANTIZE: bytes of one input element (float32: 4) */
    int64_t batches_out, pad_batch, pad_depth; /* PAD: output batches; padding before the batches and
                                            ** the channels (pad_top, pad_left: before rows, columns;
                                            ** the padding after is the output's extent minus both) */
} rip_kgeom;

/* A generator's context: which order, its geometry, and for the orders
** that re-read one field for many outputs whether to emit every re-read
** (full) or the equivalent stream without the re-reads a later re-read of
** the same scalars makes irrelevant (the default; kernel_orders.c says why
** both give the same runs).  The engine's kernel points at it. */
typedef struct rip_kctx {
    rip_korder order;
    rip_kgeom g;
    bool full;
} rip_kctx;

/* The engine's view of ctx: N_in, N_out and the generator.  false when the
** geometry is not one the order can run (sizes below 1, an ADD without
** elements, groups not dividing the channels, a depth multiplier that does
** not give c_out), with *k untouched. */
bool rip_korder_kernel(const rip_kctx *ctx, rip_kt_kernel *k);

/* Which CMSIS-NN function TFLM's cmsis_nn conv.cc reaches for an int8
** CONV_2D (arm_convolve_wrapper_s8): 1x1 fast, 1x1 strided, or
** arm_convolve_s8 (arm_convolve_1_x_n_s8 calls it on every non-MVE core). */
rip_korder rip_cmsis_conv_pick(const rip_kgeom *g);
/* The same for DEPTHWISE_CONV_2D (arm_depthwise_conv_wrapper_s8), dsp
** choosing the Cortex-M33 build's path. */
rip_korder rip_cmsis_dw_pick(const rip_kgeom *g, bool dsp);

#endif
