/*
** rk_transpose.h — int8 TRANSPOSE (TFLite Micro's reference Transpose,
** 1 to 5 axes there, RK_MAX_RANK here): out.d[i] = in.d[perm[i]] and
** output[o_0, ..., o_{r-1}] = input[i] with i[perm[k]] = o_k.  perm must be
** a permutation of 0..rank-1 (TFLM checks only the range of each entry;
** a repeated axis is refused here).
**
** Aliasing: input and output must not overlap.
*/
#ifndef RK_TRANSPOSE_H
#define RK_TRANSPOSE_H

#include "rk_types.h"

typedef struct rk_transpose_params { int32_t perm[RK_MAX_RANK]; } rk_transpose_params;   /* perm[0..in.rank) */

/* The output shape; false (and *out untouched) on a bad shape or permutation. */
bool rk_transpose_output_shape(const rk_transpose_params *p, rk_shape in, rk_shape *out);

/* RK_OK, or RK_ARG on a bad shape or permutation or NULL buffers. */
rk_status rk_transpose(const rk_transpose_params *p, rk_shape in, const int8_t *input, int8_t *output);

/* Scratch bytes: 0. */
size_t rk_transpose_buffer_size(const rk_transpose_params *p, rk_shape in);

#endif
