/*
** rk_add.h — int8 elementwise addition of two requantized inputs (TFLite
** reference_integer_ops AddElementwise, the same tensor shape on both
** sides; no broadcasting).
**
** Per element: x_k = (in_k + input_k_offset) * 2^left_shift, scaled by
** rk_requantize(x_k, input_k_multiplier, input_k_shift); the sum
** requantized by output_multiplier/output_shift, plus output_offset,
** clamped to act.  TFLite int8 uses left_shift = 20 and shifts <= 0 (its
** MultiplyByQuantizedMultiplierSmallerThanOneExp, which equals
** rk_requantize there); shifts in (0, 30] take rk_requantize's meaning.
**
** Aliasing: output may be the very same pointer as input1 or input2 (each
** element is read before it is written: the in-place add of the planner's
** elementwise class); any other overlap is not allowed.
*/
#ifndef RK_ADD_H
#define RK_ADD_H

#include "rk_types.h"

typedef struct rk_add_params {
    int32_t input1_offset, input2_offset;   /* minus the zero points: [-127, 128] */
    int32_t left_shift;                     /* [0, 22]; 20 in TFLite int8 */
    int32_t input1_multiplier, input1_shift;
    int32_t input2_multiplier, input2_shift;
    int32_t output_multiplier, output_shift;
    int32_t output_offset;                  /* the output zero point: [-128, 127] */
    rk_act act;
} rk_add_params;

/* n elements.  RK_OK, or RK_ARG on bad parameters, n < 0 or NULL buffers. */
rk_status rk_add(const rk_add_params *p, int32_t n, const int8_t *input1, const int8_t *input2, int8_t *output);

/* Scratch bytes: 0. */
size_t rk_add_buffer_size(const rk_add_params *p, int32_t n);

#endif
