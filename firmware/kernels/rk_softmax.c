/*
** rk_softmax.c — int8 softmax (rk_softmax.h): gemmlowp's fixed-point
** exp_on_negative_values and one_over_one_plus_x_for_x_in_0_1 on int32
** raw values, as TFLite's reference kernel instantiates them (input Q5.26,
** accumulator Q12.19, results Q0.31).  Sums that gemmlowp adds in int32
** are added in uint32 (the same bits, without undefined behaviour).
*/
#include "rk_softmax.h"
#include "rk_internal.h"

#define RK_SM_INPUT_INT_BITS 5    /* kScaledDiffIntegerBits: Q5.26 */
#define RK_SM_ACCUM_INT_BITS 12   /* kAccumulationIntegerBits: Q12.19 */

static int32_t add32(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

/* gemmlowp's SaturatingRoundingMultiplyByPOT<e> for e in [1, 30]: x * 2^e,
** saturated at the int32 bounds. */
static int32_t sat_shift_left(int32_t x, int32_t e)
{
    const int32_t threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
    if (x > threshold)
        return INT32_MAX;
    if (x < -threshold)
        return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* exp(a) for a Q0.31 value a in [-1/4, 0), Taylor series around -1/8
** (gemmlowp's exp_on_interval_between_negative_one_quarter_and_0_excl). */
static int32_t exp_quarter(int32_t a)
{
    const int32_t exp_minus_one_eighth = 1895147668;   /* exp(-1/8) in Q0.31 */
    const int32_t one_third = 715827883;               /* 1/3 in Q0.31 */
    const int32_t x = add32(a, (int32_t)1 << 28);     /* a + 1/8 */
    const int32_t x2 = rk_doubling_high_mul(x, x);
    const int32_t x3 = rk_doubling_high_mul(x2, x);
    const int32_t x4 = rk_doubling_high_mul(x2, x2);
    const int32_t x4_over_4 = rk_rounding_divide_by_pot(x4, 2);
    const int32_t poly =
        rk_rounding_divide_by_pot(add32(rk_doubling_high_mul(add32(x4_over_4, x3), one_third), x2), 1);
    return add32(exp_minus_one_eighth, rk_doubling_high_mul(exp_minus_one_eighth, add32(x, poly)));
}

/* exp(a) in Q0.31 for a Q5.26 value a <= 0 (gemmlowp's exp_on_negative_values
** with 5 integer bits): a = -(k/4) + r, r in [-1/4, 0); exp(r) by the series,
** then one factor exp(-2^j) for every bit j of the multiple of 1/4. */
static int32_t exp_on_negative_q5_26(int32_t a)
{
    static const int32_t factor[7] = {
        1672461947,   /* exp(-1/4) */
        1302514674,   /* exp(-1/2) */
        790015084,    /* exp(-1) */
        290630308,    /* exp(-2) */
        39332535,     /* exp(-4) */
        720401,       /* exp(-8) */
        242,          /* exp(-16) */
    };
    const int32_t frac_bits = 31 - RK_SM_INPUT_INT_BITS;            /* 26 */
    const int32_t quarter = (int32_t)1 << (frac_bits - 2);
    const int32_t a_mod_quarter_minus_quarter = add32(a & (quarter - 1), -quarter);
    /* Rescale<0>: Q5.26 -> Q0.31, a saturating multiply by 2^5 */
    int32_t result = exp_quarter(sat_shift_left(a_mod_quarter_minus_quarter, RK_SM_INPUT_INT_BITS));
    const int32_t remainder = (int32_t)((uint32_t)a_mod_quarter_minus_quarter - (uint32_t)a);
    for (int32_t j = 0; j < 7; j++)
        if (remainder & ((int32_t)1 << (frac_bits - 2 + j)))
            result = rk_doubling_high_mul(result, factor[j]);
    return a == 0 ? INT32_MAX : result;
}

/* gemmlowp's RoundingHalfSum: (a + b) / 2 rounded half away from zero. */
static int32_t rounding_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + b;
    return (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
}

/* 1 / (1 + a) in Q0.31 for a Q0.31 value a in [0, 1): Newton-Raphson on
** the half denominator in Q2.29, three steps (gemmlowp's
** one_over_one_plus_x_for_x_in_0_1). */
static int32_t one_over_one_plus_x(int32_t a)
{
    const int32_t half_denominator = rounding_half_sum(a, INT32_MAX);
    const int32_t c48_over_17 = 1515870810;        /* 48/17 in Q2.29 */
    const int32_t c_neg32_over_17 = -1010580540;   /* -32/17 in Q2.29 */
    const int32_t one_q2 = (int32_t)1 << 29;
    int32_t x = add32(c48_over_17, rk_doubling_high_mul(half_denominator, c_neg32_over_17));
    for (int32_t i = 0; i < 3; i++) {
        const int32_t half_denominator_times_x = rk_doubling_high_mul(half_denominator, x);
        const int32_t one_minus = (int32_t)((uint32_t)one_q2 - (uint32_t)half_denominator_times_x);
        x = add32(x, sat_shift_left(rk_doubling_high_mul(x, one_minus), 2));   /* Q4 -> Q2 */
    }
    return sat_shift_left(x, 1);   /* x / 2 in Q1, rescaled to Q0 */
}

/* The Q0.31 exp of one entry whose difference to the row maximum is diff
** (diff_min <= diff <= 0, so diff * 2^left_shift fits int32). */
static int32_t entry_exp(const rk_softmax_params *p, int32_t diff)
{
    const int32_t shifted = (int32_t)((int64_t)diff * ((int64_t)1 << p->input_left_shift));
    return exp_on_negative_q5_26(rk_doubling_high_mul(shifted, p->input_multiplier));
}

size_t rk_softmax_buffer_size(const rk_softmax_params *p, int32_t rows, int32_t depth)
{
    (void)p;
    (void)rows;
    (void)depth;
    return 0;
}

/* One row; false when its sum of exps is outside TFLite's domain. */
static bool softmax_row(const rk_softmax_params *p, int32_t depth, const int8_t *x, int8_t *y)
{
    int32_t max = -128;
    for (int32_t c = 0; c < depth; c++)
        max = x[c] > max ? x[c] : max;
    /* Each term is at most 2^19 (exp(0) = 1 in Q12.19): the sum is exact in
    ** 64 bits; TFLite's int32 sum is only meaningful below 2^28. */
    uint64_t sum = 0;
    for (int32_t c = 0; c < depth; c++) {
        const int32_t diff = (int32_t)x[c] - max;
        if (diff >= p->diff_min)
            sum += (uint64_t)rk_rounding_divide_by_pot(entry_exp(p, diff), RK_SM_ACCUM_INT_BITS);   /* Q0.31 -> Q12.19 */
    }
    if (sum >= ((uint64_t)1 << 28))
        return false;
    /* GetReciprocal: sum = 2^(num_bits_over_unit) * (1 + f), f in [0, 1) */
    int32_t headroom_plus_one = 0;
    while ((sum << headroom_plus_one) < ((uint64_t)1 << 31))
        headroom_plus_one++;
    const int32_t num_bits_over_unit = RK_SM_ACCUM_INT_BITS - headroom_plus_one;
    const int32_t shifted_sum_minus_one = (int32_t)((uint32_t)(sum << headroom_plus_one) - ((uint32_t)1 << 31));
    const int32_t shifted_scale = one_over_one_plus_x(shifted_sum_minus_one);
    const int32_t exponent = num_bits_over_unit + 31 - 8;   /* in [0, 31] since sum < 2^28 */
    for (int32_t c = 0; c < depth; c++) {
        const int32_t diff = (int32_t)x[c] - max;
        int32_t v = -128;
        if (diff >= p->diff_min) {
            v = rk_rounding_divide_by_pot(rk_doubling_high_mul(shifted_scale, entry_exp(p, diff)), exponent) - 128;
            v = v > 127 ? 127 : v < -128 ? -128 : v;
        }
        y[c] = (int8_t)v;
    }
    return true;
}

rk_status rk_softmax(const rk_softmax_params *p, int32_t rows, int32_t depth, const int8_t *input, int8_t *output)
{
    if (p == NULL || input == NULL || output == NULL || rows < 1 || depth < 1 ||
        (int64_t)rows * depth > RK_MAX_SCALARS || p->input_multiplier < 0 || p->input_left_shift < 0 ||
        p->input_left_shift > 31 || p->diff_min > 0)
        return RK_ARG;
    /* the most negative difference the kernel scales: no int32 overflow */
    const int64_t worst = p->diff_min > -255 ? p->diff_min : -255;
    if (-worst * ((int64_t)1 << p->input_left_shift) > ((int64_t)1 << 31))
        return RK_ARG;
    for (int32_t r = 0; r < rows; r++)
        if (!softmax_row(p, depth, input + (ptrdiff_t)r * depth, output + (ptrdiff_t)r * depth))
            return RK_ARG;
    return RK_OK;
}
