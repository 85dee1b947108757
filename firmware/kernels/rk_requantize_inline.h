/*
** rk_requantize_inline.h — TFLite's MultiplyByQuantizedMultiplier as a
** static inline function, so that the kernels' inner loops pay no call per
** output value (CMSIS-NN inlines its requantization too).  rk_requantize()
** in rk_types.h is the same function with external linkage.
*/
#ifndef RK_REQUANTIZE_INLINE_H
#define RK_REQUANTIZE_INLINE_H

#include "rk_types.h"

/* ARMv6-M and ARMv8-M Baseline (Cortex-M0, M0+, M23: Thumb-1, no DSP, no
** 32 x 32 -> 64 bit multiply; RK_THUMB1): GCC turns every 64-bit product
** into a call to __aeabi_lmul and every variable 64-bit shift into
** __aeabi_llsl, so there the same two functions are written in 32-bit
** arithmetic (below).  Elsewhere the 64-bit forms. */
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1
#define RK_THUMB1 1
#else
#define RK_THUMB1 0
#endif

#if RK_THUMB1
/* rk_doubling_high_mul below, exactly: for a b >= 0 its truncation of
** (a b + 2^30) / 2^31 is the floor; for a b < 0, trunc((a b + 1 - 2^30)
** / 2^31) is the floor of (a b + 2^30) / 2^31 too.  That floor from 16-bit
** halves, a = ah 2^16 + al (ah = a >> 16 arithmetic, al = a & 0xffff),
** ll = al bl, lh = ah bl, hl = al bh, hh = ah bh, each exact in 32 bits:
** a b + 2^30 = hh 2^32 + (t + hl) 2^16 + (ll & 0xffff) with t = lh +
** (ll >> 16) + 2^14 (no overflow: |lh| <= 32768 * 65535), so the floor
** over 2^31 is 2 hh + floor((t + hl) / 2^15) = 2 hh + (t >> 15) +
** (((t & 0x7fff) + hl) >> 15), whose last sum does not overflow either.
** The total wraps like the 64-bit form's narrowing, which never truncates
** (the result fits int32). */
static inline int32_t rk_doubling_high_mul(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN)
        return INT32_MAX;
    const int32_t ah = a >> 16, bh = b >> 16;
    const uint32_t al = (uint32_t)a & 0xffffu, bl = (uint32_t)b & 0xffffu;
    const uint32_t ll = al * bl;
    const int32_t t = ah * (int32_t)bl + (int32_t)(ll >> 16) + 0x4000;
    const int32_t u = (t & 0x7fff) + (int32_t)al * bh;
    return (int32_t)(2u * (uint32_t)(ah * bh) + (uint32_t)(t >> 15) + (uint32_t)(u >> 15));
}

/* The same as below; (1 << e) - 1 is formed in uint32_t, defined for e = 31. */
static inline int32_t rk_rounding_divide_by_pot(int32_t x, int32_t e)
{
    const int32_t mask = (int32_t)((1u << e) - 1u);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (remainder > threshold ? 1 : 0);
}
#else
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
#endif

static inline int32_t rk_requantize_inline(int32_t acc, int32_t multiplier, int32_t shift)
{
#if RK_THUMB1
    /* One side only: at a left shift the rounding divide by 2^0 returns
    ** its argument, at a right shift the left shift by 0 is the identity. */
    if (shift > 0)
        return rk_doubling_high_mul((int32_t)((uint32_t)acc << shift), multiplier);
    return rk_rounding_divide_by_pot(rk_doubling_high_mul(acc, multiplier), -shift);
#else
    const int32_t left = shift > 0 ? shift : 0;
    const int32_t right = shift > 0 ? 0 : -shift;
    /* TFLite multiplies by (1 << left) in int32; an overflow there is
    ** undefined in C and wraps on every target, so wrap explicitly. */
    const int32_t shifted = (int32_t)((uint32_t)acc << left);
    return rk_rounding_divide_by_pot(rk_doubling_high_mul(shifted, multiplier), right);
#endif
}

#endif
