/*
** rk_requantize.c — TFLite's MultiplyByQuantizedMultiplier, the one
** requantization every kernel of firmware/kernels/ uses (the body is in
** rk_requantize_inline.h, which the kernels include to inline it).
*/
#include "rk_requantize_inline.h"

int32_t rk_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    return rk_requantize_inline(acc, multiplier, shift);
}
