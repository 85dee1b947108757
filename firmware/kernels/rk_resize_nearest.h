/*
** rk_resize_nearest.h — int8 RESIZE_NEAREST_NEIGHBOR at any output size
** (TFLite Micro's reference ResizeNearestNeighbor with align_corners and
** half_pixel_centers), NHWC batch 1; values are copied (input and output
** share one quantization).
**
** Output row y reads input row GetNearestNeighbor(y, h_in, h_out), columns
** alike, computed in float exactly as TFLM does:
**   scale = align_corners && out > 1 ? (in - 1) / (float)(out - 1) : in / (float)out
**   v = ((float)y + (half_pixel_centers ? 0.5f : 0.0f)) * scale
**   i = min(align_corners ? round_half_away(v) : floor(v), in - 1),
**   then max(i, 0) when half_pixel_centers.
** For an integer factor without either flag this is rk_upsample_nearest's
** floor(y / s) (tests/test_tflite_kernels.c checks it).
**
** Aliasing: input and output must not overlap.
*/
#ifndef RK_RESIZE_NEAREST_H
#define RK_RESIZE_NEAREST_H

#include "rk_types.h"

typedef struct rk_resize_params { bool align_corners, half_pixel_centers; } rk_resize_params;

/* The input index TFLM's GetNearestNeighbor gives output index o of an axis
** of in_size -> out_size (both >= 1, o in [0, out_size)). */
int32_t rk_resize_nearest_index(const rk_resize_params *p, int32_t o, int32_t in_size, int32_t out_size);

/* out.c must equal in.c; any out.h, out.w >= 1.  RK_OK or RK_ARG. */
rk_status rk_resize_nearest(const rk_resize_params *p, rk_dims in, const int8_t *input, rk_dims out,
                            int8_t *output);

/* Scratch bytes: 0. */
size_t rk_resize_nearest_buffer_size(const rk_resize_params *p, rk_dims in, rk_dims out);

#endif
