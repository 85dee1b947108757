/*
** rk_add_dsp.c — the Cortex-M33 DSP path of rk_add (rk_add.h, rk_dsp.h):
** TFLite's int8 add with its three requantizations reduced to what its
** parameters need, one SMMULR each and a shift-and-add rounding.
**
** Why it is exact.  For an input, x = (in + offset) 2^ls with |in + offset|
** <= 255 and ls <= 22, so a = 2x fits in 30 bits and the doubling high
** multiply floor((x m + 2^30) / 2^31) is floor((a m + 2^31) / 2^32):
** SMMULR(a, m), and a = in 2^(ls+1) + offset 2^(ls+1) is one MLA.  For a
** right shift e >= 1, gemmlowp's RoundingDivideByPOT (ties away from zero)
** is (h + 2^(e-1) - [h < 0]) >> e, exact while h + 2^(e-1) cannot overflow.
** The output side takes the same steps on 2 (s1 + s2) when a bound on
** |s1| + |s2| from the parameters shows it below 2^29.  Anything else
** (a positive shift, a right shift of 0, a negative multiplier, a bound
** too large) returns false and rk_add runs its plain loop.
*/
#include "rk_add.h"
#include "rk_dsp.h"

#if RK_DSP

#if defined(RK_DSP_EMULATE) || !defined(__ARM_FEATURE_DSP)
/* SMMULR: the top word of a b + 2^31 (signed). */
static inline int32_t rk_smmulr(int32_t a, int32_t b)
{
    return (int32_t)(((int64_t)a * b + ((int64_t)1 << 31)) >> 32);
}
#else
static inline int32_t rk_smmulr(int32_t a, int32_t b)
{
    int32_t r;
    __asm__("smmulr %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
#endif

/* One requantization's constants: the multiplier, the right shift e >= 1
** and 2^(e-1). */
typedef struct add_rq {
    int32_t mult, right, half;
} add_rq;

/* Can shift (<= -1) and multiplier (>= 0) take the fast form?  On true, r
** holds the constants and *bound a bound on |rounding(SMMULR(a, m))| for
** |a| <= amax. */
static bool add_rq_make(int32_t multiplier, int32_t shift, int64_t amax, add_rq *r, int64_t *bound)
{
    if (multiplier < 0 || shift > -1 || shift < -31)
        return false;
    r->mult = multiplier;
    r->right = -shift;
    r->half = (int32_t)1 << (r->right - 1);
    /* |h| <= |a| m / 2^32 + 1, and |h| + 2^(e-1) must not overflow */
    const int64_t h = ((amax * multiplier) >> 32) + 1;
    if (h + r->half > INT32_MAX)
        return false;
    *bound = (h >> r->right) + 1;
    return true;
}

/* RoundingDivideByPOT(SMMULR(a, m), e) for the constants of add_rq_make. */
static inline int32_t add_rq_apply(int32_t a, const add_rq *r)
{
    const int32_t h = rk_smmulr(a, r->mult);
    return (h + r->half + (h >> 31)) >> r->right;
}

/*
** rk_add's loop on parameters it has checked: true when done, false (with
** nothing written) when the parameters need the plain loop.  Output may
** be input1 or input2 (each element read before it is written).
*/
bool rk_add_dsp(const rk_add_params *p, int32_t n, const int8_t *input1, const int8_t *input2, int8_t *output)
{
    add_rq r1, r2, ro;
    int64_t b1, b2, bo;
    const int64_t amax = (int64_t)255 << (p->left_shift + 1);
    if (!add_rq_make(p->input1_multiplier, p->input1_shift, amax, &r1, &b1) ||
        !add_rq_make(p->input2_multiplier, p->input2_shift, amax, &r2, &b2) || b1 + b2 >= ((int64_t)1 << 29) ||
        !add_rq_make(p->output_multiplier, p->output_shift, 2 * (b1 + b2), &ro, &bo))
        return false;
    const int32_t k = (int32_t)1 << (p->left_shift + 1);
    const int32_t c1 = p->input1_offset * k, c2 = p->input2_offset * k;
    const int32_t lo = p->act.min - p->output_offset, hi = p->act.max - p->output_offset;
    const int32_t off = p->output_offset;
    for (int32_t i = 0; i < n; i++) {
        const int32_t s1 = add_rq_apply(input1[i] * k + c1, &r1);
        const int32_t s2 = add_rq_apply(input2[i] * k + c2, &r2);
        int32_t v = add_rq_apply((s1 + s2) * 2, &ro);
        if (v < lo)
            v = lo;
        if (v > hi)
            v = hi;
        output[i] = (int8_t)(v + off);
    }
    return true;
}

#endif
