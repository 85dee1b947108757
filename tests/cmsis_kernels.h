/*
** cmsis_kernels.h — runs the CMSIS-NN int8 kernel TFLM's cmsis_nn wrappers
** call for one job of the kernel-order suites (korder_job.h), on given
** buffers: shared by the cmsis_orders suite (host, pure C, in process) and
** the Cortex-M33 harness of the cmsis_orders_m33 suite
** (tests/cmsis_m33/orders_m33.c, ARM_MATH_DSP), so both builds run the very
** same calls.  Plain C: CMSIS-NN and calloc, nothing of the test framework.
*/
#ifndef RIPSIM_CMSIS_KERNELS_H
#define RIPSIM_CMSIS_KERNELS_H

#include <stdlib.h>
#include <string.h>

#include "arm_nnfunctions.h"
#include "korder_job.h"

/* ck_run's status when a buffer cannot be allocated (CMSIS-NN's own: 0 and -1 to -3). */
#define CK_NO_MEMORY (-100)

/* A job's values (korder_job.h): filter, the per-channel quantization, ADD's other operand. */
typedef struct ck_values {
    const int8_t *filter, *other;
    int32_t *bias, *mult, *shift;
} ck_values;

/* Run job h's kernel (the header's kind; the CMSIS-NN wrappers choose the path as under TFLM) on
** in, writing out (which may overlap in).  Returns the kernel's status (arm_cmsis_nn_status), CK_NO_MEMORY when
** its scratch buffer cannot be allocated; *buf_size: the scratch size the kernel asked. */
static int ck_run(const int64_t *h, const ck_values *v, const int8_t *in, int8_t *out,
                  int32_t *buf_size)
{
    cmsis_nn_dims id = { .n = (int32_t)h[F_BATCHES], .h = (int32_t)h[F_H_IN], .w = (int32_t)h[F_W_IN],
                         .c = (int32_t)h[F_C_IN] };
    cmsis_nn_dims od = { .n = (int32_t)h[F_BATCHES], .h = (int32_t)h[F_H_OUT], .w = (int32_t)h[F_W_OUT],
                         .c = (int32_t)h[F_C_OUT] };
    cmsis_nn_dims bd = { .n = 1, .h = 1, .w = 1, .c = (int32_t)h[F_C_OUT] };
    cmsis_nn_per_channel_quant_params qp = { .multiplier = v->mult, .shift = v->shift };
    cmsis_nn_activation act = { .min = -128, .max = 127 };
    cmsis_nn_tile stride = { .w = (int32_t)h[F_S_W], .h = (int32_t)h[F_S_H] };
    cmsis_nn_tile pad = { .w = (int32_t)h[F_PAD_LEFT], .h = (int32_t)h[F_PAD_TOP] };
    cmsis_nn_tile dil = { .w = (int32_t)h[F_D_W], .h = (int32_t)h[F_D_H] };
    cmsis_nn_context ctx = { .buf = NULL, .size = 0 };
    const int32_t in_off = (int32_t)h[F_IN_OFF], out_off = (int32_t)h[F_OUT_OFF];
    arm_cmsis_nn_status st = ARM_CMSIS_NN_ARG_ERROR;
    cmsis_nn_conv_params cp = { .input_offset = in_off, .output_offset = out_off, .stride = stride,
                                .padding = pad, .dilation = dil, .activation = act };
    cmsis_nn_dw_conv_params dp = { .input_offset = in_off, .output_offset = out_off,
                                   .ch_mult = (int32_t)h[F_DEPTH_MULT], .stride = stride, .padding = pad,
                                   .dilation = dil, .activation = act };
    cmsis_nn_fc_params fp = { .input_offset = in_off, .filter_offset = 0, .output_offset = out_off,
                              .activation = act };
    cmsis_nn_dims fid = { .n = (int32_t)h[F_BATCHES], .h = 1, .w = 1, .c = (int32_t)h[F_C_IN] };
    cmsis_nn_dims ffd = { .n = (int32_t)h[F_C_IN], .h = 1, .w = 1, .c = (int32_t)h[F_C_OUT] };
    cmsis_nn_dims fod = { .n = (int32_t)h[F_BATCHES], .h = 1, .w = 1, .c = (int32_t)h[F_C_OUT] };
    cmsis_nn_pool_params pp = { .stride = stride, .padding = pad, .activation = act };
    cmsis_nn_dims pfd = { .n = 1, .h = (int32_t)h[F_K_H], .w = (int32_t)h[F_K_W], .c = 1 };
    cmsis_nn_dims cfd = { .n = (int32_t)h[F_C_OUT], .h = (int32_t)h[F_K_H], .w = (int32_t)h[F_K_W],
                          .c = (int32_t)(h[F_C_IN] / (h[F_GROUPS] < 1 ? 1 : h[F_GROUPS])) };
    cmsis_nn_dims dfd = { .n = 1, .h = (int32_t)h[F_K_H], .w = (int32_t)h[F_K_W], .c = (int32_t)h[F_C_OUT] };
    switch (h[F_KIND]) {
    case KV_CONV: ctx.size = arm_convolve_wrapper_s8_get_buffer_size(&cp, &id, &cfd, &od); break;
    case KV_DW: ctx.size = arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &id, &dfd, &od); break;
    case KV_FC: ctx.size = arm_fully_connected_s8_get_buffer_size(&ffd); break;
    case KV_AVG: ctx.size = arm_avgpool_s8_get_buffer_size((int)h[F_W_OUT], (int)h[F_C_IN]); break;
    default: break;
    }
    *buf_size = ctx.size;
    if (ctx.size > 0 && (ctx.buf = calloc((size_t)ctx.size, 1)) == NULL)
        return CK_NO_MEMORY;
    switch (h[F_KIND]) {
    case KV_CONV:
        st = arm_convolve_wrapper_s8(&ctx, &cp, &qp, &id, in, &cfd, v->filter, &bd, v->bias, &od, out);
        break;
    case KV_DW:
        st = arm_depthwise_conv_wrapper_s8(&ctx, &dp, &qp, &id, in, &dfd, v->filter, &bd, v->bias, &od, out);
        break;
    case KV_FC:
        if (h[F_PER_CHANNEL]) {
            st = arm_fully_connected_per_channel_s8(&ctx, &fp, &qp, &fid, in, &ffd, v->filter, &bd, v->bias,
                                                    &fod, out);
        } else {
            cmsis_nn_per_tensor_quant_params tq = { .multiplier = v->mult[0], .shift = v->shift[0] };
            st = arm_fully_connected_s8(&ctx, &fp, &tq, &fid, in, &ffd, v->filter, &bd, v->bias, &fod, out);
        }
        break;
    case KV_AVG: st = arm_avgpool_s8(&ctx, &pp, &id, in, &pfd, &od, out); break;
    case KV_MAX: st = arm_max_pool_s8(&ctx, &pp, &id, in, &pfd, &od, out); break;
    case KV_PAD: {
        const cmsis_nn_dims pre = { .n = (int32_t)h[F_PAD_N], .h = (int32_t)h[F_PAD_TOP],
                                    .w = (int32_t)h[F_PAD_LEFT], .c = (int32_t)h[F_PAD_C] };
        const cmsis_nn_dims post = { .n = (int32_t)(h[F_B_OUT] - h[F_BATCHES] - h[F_PAD_N]),
                                     .h = (int32_t)(h[F_H_OUT] - h[F_H_IN] - h[F_PAD_TOP]),
                                     .w = (int32_t)(h[F_W_OUT] - h[F_W_IN] - h[F_PAD_LEFT]),
                                     .c = (int32_t)(h[F_C_OUT] - h[F_C_IN] - h[F_PAD_C]) };
        st = arm_pad_s8(in, out, (int8_t)out_off, &id, &pre, &post);
        break;
    }
    case KV_ADD: {
        const int8_t *a = h[F_OPERAND] == 0 ? in : v->other, *b = h[F_OPERAND] == 0 ? v->other : in;
        st = arm_elementwise_add_s8(a, b, in_off, 1 << 30, -1, -out_off / 2, 1 << 30, -1, 20, out, out_off,
                                    1 << 30, -19, -128, 127, (int32_t)h[F_N_ELEM]);
        break;
    }
    default: break;                     /* QUANT: no CMSIS-NN kernel */
    }
    free(ctx.buf);
    return st;
}

/* Run job h as korder_job.h says: h[F_GAP] < 0 on in and out; else on one buffer holding a copy of
** in (kj_n_in(h) bytes) from byte h[F_GAP] and the output from byte 0, out receiving its first
** kj_n_out(h) bytes.  Returns ck_run's status (CK_NO_MEMORY: no room for the buffer). */
static int ck_run_job(const int64_t *h, const ck_values *v, const int8_t *in, int8_t *out,
                      int32_t *buf_size)
{
    const int64_t d = h[F_GAP], n_in = kj_n_in(h), n_out = kj_n_out(h);
    if (d < 0)
        return ck_run(h, v, in, out, buf_size);
    const int64_t size = (d + n_in > n_out ? d + n_in : n_out) + 16;
    int8_t *buf = malloc((size_t)size);
    if (buf == NULL)
        return CK_NO_MEMORY;
    memset(buf, 0x55, (size_t)size);
    memcpy(buf + d, in, (size_t)n_in);
    const int st = ck_run(h, v, buf + d, buf, buf_size);
    memcpy(out, buf, (size_t)n_out);
    free(buf);
    return st;
}

#endif
