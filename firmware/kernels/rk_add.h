/*
** rk_add.h — int8 elementwise addition of two requantized inputs (TFLite
** reference_integer_ops AddElementwise, the same tensor shape on both
** sides), and with broadcasting (rk_add_broadcast: TFLite's
** BroadcastAdd6DSlow, an input extent 1 repeated along its axis).
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
** elementwise class); any other overlap is not allowed.  With
** broadcasting, only an input whose shape is the output's may be the
** output's pointer.
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

/*
** ADD with broadcasting: out, in1 and in2 of one rank (the shapes aligned
** to the output's rank by the caller), every input extent 1 or the
** output's.  Output element o reads the elements of in1 and in2 at o's
** index, 0 on their unit axes.  Runs along the last axis where both
** inputs have it whole (one rk_add each), else one element at a time;
** output in row-major order.  RK_OK, or RK_ARG (bad parameters, shapes
** that do not broadcast, NULL pointers).
*/
rk_status rk_add_broadcast(const rk_add_params *p, const rk_shape *out, const rk_shape *in1, const rk_shape *in2,
                           const int8_t *input1, const int8_t *input2, int8_t *output);

/* Scratch bytes: 0. */
size_t rk_add_broadcast_buffer_size(const rk_add_params *p, const rk_shape *out);

#endif
