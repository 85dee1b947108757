/*
** rk_requantize_inline.h — TFLite's MultiplyByQuantizedMultiplier as a
** static inline function, so that the kernels' inner loops pay no call per
** output value (CMSIS-NN inlines its requantization too).  rk_requantize()
** in rk_types.h is the same function with external linkage.
*/
#ifndef RK_REQUANTIZE_INLINE_H
#define RK_REQUANTIZE_INLINE_H

#include "rk_types.h"

/* gemmlowp's SaturatingRoundingDoublingHighMul: round(a * b / 2^31), the
** one overflowing case (INT32_MIN squared) saturated.  gemmlowp adds a
** sign-dependent nudge (2^30, or 1 - 2^30 below 0) and truncates toward
** zero; for ab = -X < 0 that is -floor((X + 2^30 - 1) / 2^31), which is
** floor((-X + 2^30) / 2^31): one nudge and an arithmetic shift (floor) give
** the same integer for every product, with no branch on the sign (the
** kernels requantize every output, and M0 pays for each branch).  The only
** result above INT32_MAX is INT32_MIN squared's 2^31, saturated. */
static inline int32_t rk_doubling_high_mul(int32_t a, int32_t b)
{
    /* >> on a negative int64_t is arithmetic on every compiler we target,
    ** as for int32_t in rk_rounding_divide_by_pot */
    const int64_t r = ((int64_t)a * (int64_t)b + ((int64_t)1 << 30)) >> 31;
    return r > INT32_MAX ? INT32_MAX : (int32_t)r;
}

/* gemmlowp's RoundingDivideByPOT: x / 2^e rounded to nearest, ties away
** from zero; e in [0, 31].  The mask is formed in 64 bits so e = 31 is
** defined. */
static inline int32_t rk_rounding_divide_by_pot(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    /* >> on a negative int32_t is arithmetic on every compiler we target
    ** (gcc, clang, arm-none-eabi-gcc), as TFLite itself assumes. */
    return (x >> e) + (remainder > threshold ? 1 : 0);
}

static inline int32_t rk_requantize_inline(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    /* TFLite multiplies by (1 << left) in int32; an overflow there is
    ** undefined in C and wraps on every target, so wrap explicitly. */
    const int32_t shifted = (int32_t)((uint32_t)acc << left);
    return rk_rounding_divide_by_pot(rk_doubling_high_mul(shifted, multiplier), right);
}

#endif
