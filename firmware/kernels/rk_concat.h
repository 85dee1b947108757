/*
** rk_concat.h — int8 CONCATENATION along one axis (TFLite Micro's
** concatenation.cc, int8 case: reference_ops::Concatenation on the raw
** int8 values).  TFLM stores the inputs' scales and zero points but never
** uses them: int8 concatenation is a plain copy, even when the inputs'
** quantizations differ from the output's (no requantization, no check).
** This kernel is that copy; refusing mixed quantizations is the caller's
** choice, not TFLM's behaviour.
**
** All inputs have the output's rank and extents except along axis, where
** the output's extent is their sum; axis in [-rank, rank), negative counted
** from the end.  TFLM takes at most 10 inputs of at most 4 axes; this
** kernel takes any number and RK_MAX_RANK axes.
**
** Aliasing: output must not overlap any input.
*/
#ifndef RK_CONCAT_H
#define RK_CONCAT_H

#include "rk_types.h"

typedef struct rk_concat_params { int32_t axis, n_inputs; } rk_concat_params;   /* n_inputs >= 1 */

/* The output shape of the n_inputs shapes; false (and *out untouched) when
** they do not fit together or the axis is out of range. */
bool rk_concat_output_shape(const rk_concat_params *p, const rk_shape *shapes, rk_shape *out);

/* inputs[i] holds a tensor of shapes[i].  RK_OK, or RK_ARG on bad
** parameters or shapes or a NULL pointer. */
rk_status rk_concat(const rk_concat_params *p, const rk_shape *shapes, const int8_t *const *inputs,
                    int8_t *output);

/* Scratch bytes: 0. */
size_t rk_concat_buffer_size(const rk_concat_params *p, const rk_shape *shapes);

#endif
