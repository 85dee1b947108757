/*
** rk_types.h — types shared by every int8 kernel of firmware/kernels/.
**
** The kernels compute what TFLite's reference int8 kernels compute (NHWC,
** batch 1, per-output-channel requantization, zero points, activation
** clamp), in portable C11 for the host and for arm-none-eabi: no malloc, no
** libc beyond memcpy/memset, every buffer supplied by the caller.  Each
** kernel has a *_buffer_size twin, taking the same parameter structs, that
** says how many scratch bytes it needs (0 where it needs none).
**
** Sizes: every tensor, workspace and scratch a kernel touches must hold
** fewer than 2^31 scalars (kernels index in int32_t so the same code is
** cheap on a Cortex-M0); a larger request is refused with RK_ARG.
*/
#ifndef RK_TYPES_H
#define RK_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum rk_status {
    RK_OK = 0,
    RK_ARG = 1,   /* bad parameters (inconsistent shapes, out-of-range values, NULL) */
    RK_SPACE = 2  /* a buffer is too small */
} rk_status;

typedef struct rk_dims { int32_t h, w, c; } rk_dims;   /* NHWC, batch 1 */
typedef struct rk_act { int32_t min, max; } rk_act;     /* clamp, within [-128, 127], min <= max */

/* An n-d tensor shape for the kernels that take TFLite's any-rank tensors
** (mean, pad, transpose, concatenation): rank in [1, RK_MAX_RANK], d[0] the
** outermost axis, row-major; every extent >= 1. */
#define RK_MAX_RANK 6
typedef struct rk_shape { int32_t rank; int32_t d[RK_MAX_RANK]; } rk_shape;

/* Per output channel requantization, TFLite style: real scale ~
** multiplier * 2^(shift - 31); multiplier in [0, 2^31), shift in [-31, 30]. */
typedef struct rk_quant { const int32_t *multiplier, *shift; } rk_quant;

typedef struct rk_conv_params {
    int32_t k_h, k_w, s_h, s_w, d_h, d_w;
    int32_t p_top, p_bottom, p_left, p_right;
    int32_t input_offset;    /* minus the input zero point, as TFLite/CMSIS-NN: [-127, 128] */
    int32_t output_offset;   /* the output zero point (added after requantization): [-128, 127] */
    rk_act act;
} rk_conv_params;

/*
** TFLite's MultiplyByQuantizedMultiplier (reference kernels, double
** rounding; equal to CMSIS-NN's arm_nn_requantize): acc * 2^max(shift,0)
** (wrapping in 32 bits, as compiled TFLite does), then the saturating
** rounding doubling high multiply by multiplier, then a rounding right
** shift by max(-shift, 0), ties rounded away from zero (gemmlowp's
** RoundingDivideByPOT).
** shift must be in [-31, 30]; no error is possible.
*/
int32_t rk_requantize(int32_t acc, int32_t multiplier, int32_t shift);

/*
** What an instrumented (*_checked) in-place kernel found.  The shadow
** array beside its workspace holds one tag per byte (rk_shadow.h); every
** read of an input scalar checks that the byte still holds the input stored
** at the start, every write is checked against the workspace size.  The
** first event in execution order is described here; count counts them all
** (one per byte read stale, one per write refused).
*/
typedef struct rk_violation {
    bool found;
    int64_t step;      /* output scalar writes done (or refused) before the event */
    int32_t pixel_r, pixel_c;   /* the output pixel being computed */
    int64_t address;   /* workspace index read (stale) or written (overflow) */
    bool overflow;     /* a write at an address >= ws_size, reported instead of performed */
    int64_t count;     /* all events of the run (only the first when stopping at it) */
} rk_violation;

#endif
