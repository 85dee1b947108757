/*
** kcount_job.h — one layer of the kernel-count harness (tests/kcount/): the
** descriptor the host driver (kcount.c) writes and the bare-metal harness
** (kcount_target.c) reads over semihosting, KC_FIELDS little-endian int32
** per layer, nothing else: the target draws the layer's weights, inputs and
** quantization itself from J_SEED (kc_draw_*), so the stream stays small.
** Answered by one text line per layer (kcount_target.c) and, from the QEMU
** instruction counter (firmware/tools/icount.c), three "icount" lines per
** layer: ripsim dual buffer, ripsim in place (an empty pair when the layer
** has none), CMSIS-NN.  Plain C: stdint only.
*/
#ifndef RIPSIM_KCOUNT_JOB_H
#define RIPSIM_KCOUNT_JOB_H

#include <stdint.h>

/* The layer's operator. */
enum { KC_CONV, KC_DW, KC_FC, KC_ADD, KC_KINDS };

/* The descriptor's fields.  FC: C_IN in features, C_OUT out features, the other sizes 1.
** ADD: H_IN * W_IN * C_IN elements, the output the same.  GAP: the in-place run's gap
** (rk_conv2d_rip, dense gather: the simulator's truth), -1 for none; a depthwise layer
** with GAP 0 runs rk_depthwise_inplace. */
enum {
    J_KIND, J_H_IN, J_W_IN, J_C_IN, J_H_OUT, J_W_OUT, J_C_OUT, J_K_H, J_K_W, J_S_H, J_S_W, J_D_H, J_D_W,
    J_P_TOP, J_P_BOTTOM, J_P_LEFT, J_P_RIGHT, J_GAP, J_SEED, KC_FIELDS
};

/* The three counted runs of a layer, in the order the target marks them. */
enum { KC_RUN_DUAL, KC_RUN_INPLACE, KC_RUN_CMSIS, KC_RUNS };

#endif
