/*
** korder_job.h — one job of the kernel-order suites (korder_verify.h), as
** their kernel runners receive it: the operator kind, the layer's geometry
** and quantization as a header of int64 fields, then its values.  Shared by
** the host suites, the TFLM reference harness (tests/tflm/ref_orders.cc) and
** the Cortex-M33 CMSIS-NN harness (tests/cmsis_m33/orders_m33.c), which read
** it from a pipe, host byte order (x86-64 and Cortex-M33: little-endian):
**   int64 h[KJ_FIELDS]
**   int8 filter[h[F_N_FILTER]]; int32 bias[h[F_N_CH]], mult[h[F_N_CH]], shift[h[F_N_CH]]
**   int8 input[kj_n_in(h)]; ADD only: int8 other[h[F_N_ELEM]]
** answered by int8 output[kj_n_out(h)].  With h[F_GAP] = d >= 0 the input is
** copied to byte d of one buffer and the output written from byte 0 of the
** same buffer (the overlapped run); d < 0: two buffers.  PAD pads with
** OUT_OFF; QUANT's input is n_elem float32 values, quantized with scale 1/16
** and zero point OUT_OFF.  Plain C (and C++): no library beyond stdint.
*/
#ifndef RIPSIM_KORDER_JOB_H
#define RIPSIM_KORDER_JOB_H

#include <stdint.h>

/* The operator of a layer. */
typedef enum { KV_CONV, KV_DW, KV_FC, KV_AVG, KV_MAX, KV_ADD, KV_PAD, KV_QUANT, KV_KINDS } kv_kind;

/* The job header's fields. */
enum {
    F_KIND, F_BATCHES, F_H_IN, F_W_IN, F_C_IN, F_H_OUT, F_W_OUT, F_C_OUT, F_K_H, F_K_W, F_S_H, F_S_W, F_D_H,
    F_D_W, F_PAD_TOP, F_PAD_LEFT, F_DEPTH_MULT, F_N_ELEM, F_IN_OFF, F_OUT_OFF, F_OPERAND, F_GAP, F_N_FILTER,
    F_N_CH, F_PER_CHANNEL, F_GROUPS, F_B_OUT, F_PAD_N, F_PAD_C, KJ_FIELDS
};

/* Bytes of the job's input. */
static inline int64_t kj_n_in(const int64_t *h)
{
    if (h[F_KIND] == KV_ADD || h[F_KIND] == KV_QUANT)
        return h[F_N_ELEM] * (h[F_KIND] == KV_QUANT ? 4 : 1);
    return h[F_BATCHES] * h[F_H_IN] * h[F_W_IN] * h[F_C_IN];
}

/* Bytes of the job's output. */
static inline int64_t kj_n_out(const int64_t *h)
{
    if (h[F_KIND] == KV_ADD || h[F_KIND] == KV_QUANT)
        return h[F_N_ELEM];
    return (h[F_KIND] == KV_PAD ? h[F_B_OUT] : h[F_BATCHES]) * h[F_H_OUT] * h[F_W_OUT] * h[F_C_OUT];
}

/* A header a harness can run: a known kind, some input and output, sizes of the values not negative. */
static inline int kj_valid(const int64_t *h)
{
    return h[F_KIND] >= KV_CONV && h[F_KIND] < KV_KINDS && kj_n_in(h) >= 1 && kj_n_out(h) >= 1 &&
           h[F_N_FILTER] >= 0 && h[F_N_CH] >= 1;
}

#endif
