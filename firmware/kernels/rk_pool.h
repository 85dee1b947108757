/*
** rk_pool.h — int8 average and max pooling (TFLite reference_integer_ops
** AveragePool / MaxPool), dual buffer and in place.
**
** Window k_h x k_w, stride s_h x s_w, per-side padding, no dilation;
** out.h = floor((h_in + p_top + p_bottom - k_h) / s_h) + 1 (out.w alike),
** out.c = in.c.  Padding is never read: the average divides by the number
** of real taps in the window, rounding half away from zero, exactly as
** TFLite ((sum +- count/2) / count); the maximum is over the real taps.
** Every side's padding must be below the window (so every window holds a
** real tap).  Input and output share one quantization, so there is no zero
** point; act clamps the result.  Global pooling: k = the input extents,
** no padding (output 1x1).
**
** Aliasing (dual): input and output must not overlap.
*/
#ifndef RK_POOL_H
#define RK_POOL_H

#include "rk_types.h"

typedef struct rk_pool_params {
    int32_t k_h, k_w, s_h, s_w;
    int32_t p_top, p_bottom, p_left, p_right;
    rk_act act;
} rk_pool_params;

typedef enum rk_pool_kind { RK_POOL_AVG, RK_POOL_MAX } rk_pool_kind;

/* RK_OK, or RK_ARG on bad parameters or NULL buffers. */
rk_status rk_avgpool(const rk_pool_params *p, rk_dims in, const int8_t *input, rk_dims out, int8_t *output);
rk_status rk_maxpool(const rk_pool_params *p, rk_dims in, const int8_t *input, rk_dims out, int8_t *output);
/* Scratch bytes: 0. */
size_t rk_avgpool_buffer_size(const rk_pool_params *p, rk_dims in, rk_dims out);
size_t rk_maxpool_buffer_size(const rk_pool_params *p, rk_dims in, rk_dims out);

/*
** Pooling in place, forward (paper App. I.1), in the layout the planner
** uses for pools (src/plan/check.c, pool_gap): dense input (h_in x w_in x
** c, no padding stored) at workspace[gap], output written left-aligned
** from workspace[0], pixel P = r*w_out + col over [P c, P c + c), pixels in
** row-major order, each pixel's whole window read (into scratch, c bytes)
** before its c channels are written (gather first).  That is exactly the
** simulator's rip_dense_gather semantics with c_in = c_out = c, so the
** smallest safe gap is that configuration's truth (0 with no padding, as
** App. I.1 argues: alpha, beta <= 0); with padding it can be positive
** because a window then starts at its own input pixel.  ws_size >=
** gap + h_in*w_in*c and >= h_out*w_out*c (RK_SPACE otherwise).
** Aliasing: workspace is input and output; scratch must not overlap it.
*/
rk_status rk_pool_inplace(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out, int64_t gap,
                          int8_t *workspace, int64_t ws_size, int8_t *scratch);
/* Scratch bytes: c (one output pixel); 0 on bad parameters. */
size_t rk_pool_inplace_buffer_size(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out);

/* Instrumented build: as rk_conv2d_rip_checked (rk_conv2d_rip.h); the
** shadow is tagged by the kernel, a small output is reported as overflow. */
rk_status rk_pool_inplace_checked(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out,
                                  int64_t gap, int8_t *workspace, int64_t ws_size, int8_t *scratch,
                                  uint8_t *shadow, bool stop_at_first, rk_violation *v);

#endif
