/*
** rk_upsample.h — int8 nearest-neighbour upsampling by integer factors
** (TFLite ResizeNearestNeighbor with an integer scale, no align_corners,
** no half-pixel centres): output (r, c) = input (floor(r / s_h),
** floor(c / s_w)), every channel; out = (s_h h_in, s_w w_in, c).  Input and
** output share one quantization, so values are copied.
*/
#ifndef RK_UPSAMPLE_H
#define RK_UPSAMPLE_H

#include "rk_types.h"

typedef struct rk_upsample_params { int32_t s_h, s_w; } rk_upsample_params;

/* Dual buffer; input and output must not overlap.  RK_OK or RK_ARG. */
rk_status rk_upsample_nearest(const rk_upsample_params *p, rk_dims in, const int8_t *input, rk_dims out,
                              int8_t *output);
/* Scratch bytes: 0. */
size_t rk_upsample_nearest_buffer_size(const rk_upsample_params *p, rk_dims in, rk_dims out);

/*
** In place, by reverse traversal (paper App. I.1, Theorem 14): one
** workspace of h_out*w_out*c scalars, the input packed row-major at
** [0, h_in*w_in*c) (left-aligned, gap 0), output pixels written row-major
** from 0 but visited from (h_out-1, w_out-1) down to (0, 0).  The pixel
** written at index o reads input pixel i <= o, and i = o only at (0, 0)
** (or everywhere when s = 1x1), where the copy is the identity; every
** input a later (lower) pixel reads lies below the write.  So no gap and
** no scratch are needed.  ws_size >= h_out*w_out*c (RK_SPACE otherwise).
*/
rk_status rk_upsample_nearest_inplace(const rk_upsample_params *p, rk_dims in, rk_dims out, int8_t *workspace,
                                      int64_t ws_size);
/* Scratch bytes: 0. */
size_t rk_upsample_nearest_inplace_buffer_size(const rk_upsample_params *p, rk_dims in, rk_dims out);
/* Workspace scalars: h_out*w_out*c (= max(N_in, N_out)); -1 on bad parameters. */
int64_t rk_upsample_nearest_inplace_workspace_size(const rk_upsample_params *p, rk_dims in);

/* Instrumented build: as rk_conv2d_rip_checked (rk_conv2d_rip.h), shadow
** tagged by the kernel ([0, h_in*w_in*c) input). */
rk_status rk_upsample_nearest_inplace_checked(const rk_upsample_params *p, rk_dims in, rk_dims out,
                                              int8_t *workspace, int64_t ws_size, uint8_t *shadow,
                                              bool stop_at_first, rk_violation *v);

#endif
