/*
** rk_requantize.c — TFLite's MultiplyByQuantizedMultiplier, the one
** requantization every kernel of firmware/kernels/ uses.
*/
#include "rk_types.h"

/* gemmlowp's SaturatingRoundingDoublingHighMul: round(a * b / 2^31), the
** one overflowing case (INT32_MIN squared) saturated.  The division
** truncates toward zero after the nudge, exactly as gemmlowp writes it. */
static int32_t doubling_high_mul(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN)
        return INT32_MAX;
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

/* gemmlowp's RoundingDivideByPOT: x / 2^e rounded to nearest, ties away
** from zero; e in [0, 31].  The mask is formed in 64 bits so e = 31 is
** defined. */
static int32_t rounding_divide_by_pot(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    /* >> on a negative int32_t is arithmetic on every compiler we target
    ** (gcc, clang, arm-none-eabi-gcc), as TFLite itself assumes. */
    return (x >> e) + (remainder > threshold ? 1 : 0);
}

int32_t rk_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    /* TFLite multiplies by (1 << left) in int32; an overflow there is
    ** undefined in C and wraps on every target, so wrap explicitly. */
    const int32_t shifted = (int32_t)((uint32_t)acc << left);
    return rounding_divide_by_pot(doubling_high_mul(shifted, multiplier), right);
}
