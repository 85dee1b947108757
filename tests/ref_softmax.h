/*
** ref_softmax.h — a plain reference of TFLite Micro's int8 softmax for the
** tests (tests/test_tflite_kernels.c, tests/test_cmsis_peer.c), written
** from the algorithm's description (reference_ops::Softmax over gemmlowp's
** fixed point) and on purpose with other primitives than
** firmware/kernels/rk_softmax.c: every fixed-point step in int64 from its
** arithmetic meaning,
**   doubling high multiply  = a*b / 2^31 rounded half toward +infinity
**                             (ref_conv.h's form), INT32_MIN^2 saturated;
**   rounding divide by 2^e  = round half away from zero;
**   saturating times 2^e    = the exact product clamped to int32;
**   rounding half sum       = (a + b) / 2 rounded half away from zero;
** and the exp's range reduction taken from -a = n/4 + r, r in (0, 1/4]
** rather than from gemmlowp's masks.  Header-only.
*/
#ifndef RIPSIM_REF_SOFTMAX_H
#define RIPSIM_REF_SOFTMAX_H

#include <stdbool.h>
#include <stdint.h>

#include "ref_conv.h"

static inline int32_t rs_clamp32(int64_t v)
{
    return (int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);
}

static inline int32_t rs_mul(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    return (int32_t)ref_floor_div((int64_t)a * b + ((int64_t)1 << 30), (int64_t)1 << 31);
}

static inline int32_t rs_div_pot(int64_t x, int e)
{
    if (e == 0)
        return (int32_t)x;
    const int64_t mag = x < 0 ? -x : x;
    const int64_t r = (mag + ((int64_t)1 << (e - 1))) >> e;
    return (int32_t)(x < 0 ? -r : r);
}

static inline int32_t rs_mul_pot(int64_t x, int e)
{
    return rs_clamp32(x * ((int64_t)1 << e));
}

/* exp(x) for x = a / 2^31 in [-1/4, 0): the Taylor series around -1/8 to
** the fourth power, Q0.31 in and out. */
static inline int32_t rs_exp_quarter(int64_t a)
{
    const int64_t e18 = 1895147668;                  /* exp(-1/8) */
    const int64_t x = a + ((int64_t)1 << 28);        /* a + 1/8 */
    const int64_t x2 = rs_mul((int32_t)x, (int32_t)x), x3 = rs_mul((int32_t)x2, (int32_t)x);
    const int64_t x4 = rs_mul((int32_t)x2, (int32_t)x2);
    const int64_t inner = rs_mul((int32_t)(rs_div_pot(x4, 2) + x3), 715827883) + x2;   /* * 1/3 */
    return (int32_t)(e18 + rs_mul((int32_t)e18, (int32_t)(x + rs_div_pot(inner, 1))));
}

/* exp(a / 2^26) in Q0.31 for a <= 0 (a Q5.26 raw value). */
static inline int32_t rs_exp_neg(int32_t a)
{
    static const int32_t f[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
    if (a == 0)
        return INT32_MAX;
    const int64_t quarter = (int64_t)1 << 24, neg = -(int64_t)a;
    int64_t r = neg % quarter;
    if (r == 0)
        r = quarter;                                  /* r in (0, 1/4] */
    const int64_t n = (neg - r) / quarter;            /* -a = n/4 + r */
    int32_t y = rs_exp_quarter(rs_mul_pot(-r, 5));  /* -r in Q0.31 */
    for (int j = 0; j < 7; j++)
        if ((n >> j) & 1)
            y = rs_mul(y, f[j]);                     /* exp(-2^(j-2)) */
    return y;
}

/* 1 / (1 + a / 2^31) in Q0.31 for a in [0, 2^31): Newton-Raphson on the
** half denominator, x in Q2.29. */
static inline int32_t rs_reciprocal(int32_t a)
{
    const int64_t sum = (int64_t)a + INT32_MAX;
    const int32_t d = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int64_t x = 1515870810 + (int64_t)rs_mul(d, -1010580540);
    for (int i = 0; i < 3; i++)
        x = x + rs_mul_pot(rs_mul((int32_t)x, (int32_t)(((int64_t)1 << 29) - rs_mul(d, (int32_t)x))), 2);
    return rs_mul_pot(x, 1);
}

/*
** One softmax row of depth int8 values into int8 (scale 1/256, zero point
** -128), TFLM's parameters (input multiplier, left shift, diff_min).
** Returns false where TFLM's TFLITE_CHECK(exponent <= 31) aborts (the sum
** of exps at or above 2^28); out is then untouched.
*/
static inline bool ref_softmax_row(int32_t mult, int32_t left_shift, int32_t diff_min, int depth, const int8_t *in,
                                   int8_t *out)
{
    int maxv = -128;
    for (int c = 0; c < depth; c++)
        maxv = in[c] > maxv ? in[c] : maxv;
    int64_t sum = 0;
    for (int c = 0; c < depth; c++) {
        const int64_t diff = in[c] - maxv;
        if (diff >= diff_min)
            sum += rs_div_pot(rs_exp_neg(rs_mul((int32_t)(diff * ((int64_t)1 << left_shift)), mult)), 12);
    }
    if (sum >= ((int64_t)1 << 28))
        return false;
    int h = 0;                                        /* leading zeros of sum as a uint32 */
    while ((sum << h) < ((int64_t)1 << 31))
        h++;
    const int32_t scale = rs_reciprocal((int32_t)((sum << h) - ((int64_t)1 << 31)));
    const int exponent = (12 - h) + 31 - 8;
    for (int c = 0; c < depth; c++) {
        const int64_t diff = in[c] - maxv;
        int64_t v = -128;
        if (diff >= diff_min)
            v = rs_div_pot(rs_mul(scale, rs_exp_neg(rs_mul((int32_t)(diff * ((int64_t)1 << left_shift)), mult))), exponent) - 128;
        out[c] = ref_clamp8(v, -128, 127);
    }
    return true;
}

#endif
