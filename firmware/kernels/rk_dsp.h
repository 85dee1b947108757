/*
** rk_dsp.h — the Cortex-M33 DSP path of the int8 kernels (not installed,
** not part of the API): the few ACLE SIMD32 intrinsics the DSP loops use,
** a portable C emulation of each for the host tests, the packed dot
** products and a requantization with per-channel constants hoisted.
**
** RK_DSP is 1 when the DSP loops are compiled: on a core with the DSP
** extension (__ARM_FEATURE_DSP: Cortex-M33 with DSP, M4, M7, M55) through
** <arm_acle.h>, or anywhere with -DRK_DSP_EMULATE through the C versions
** below (tests/test_kernels_dsp.c compares that build with the plain path
** byte for byte).  Elsewhere (the Cortex-M0, the host library) it is 0 and
** the kernels keep their plain C loops, unchanged.
**
** Exactness: every product is (x + input_offset) * w with x + offset in
** [-255, 255] held as a 16-bit half, summed by SMLAD/SMLABB/SMLATT into a
** 32-bit accumulator that wraps (the Q flag they may set is never read):
** the same products, summed modulo 2^32, as the plain loops' uint32_t sums,
** so the accumulator is the same whatever the order.
*/
#ifndef RK_DSP_H
#define RK_DSP_H

#include <string.h>

#include "rk_add.h"
#include "rk_fully_connected.h"
#include "rk_types.h"

#if defined(__ARM_FEATURE_DSP) && !defined(RK_DSP_EMULATE)
#include <arm_acle.h>
#define RK_DSP 1
#define RK_DSP_ASM 1 /* rk_dsp_dot4's loop as one asm block */

/* Halves (sext byte 0, sext byte 2) of x. */
static inline uint32_t rk_sxtb16(uint32_t x)
{
    return (uint32_t)__sxtb16((int8x4_t)x);
}

/* Halves (a.lo + sext byte 0 of x, a.hi + sext byte 2 of x), each mod 2^16. */
static inline uint32_t rk_sxtab16(uint32_t a, uint32_t x)
{
    return (uint32_t)__sxtab16((int16x2_t)a, (int8x4_t)x);
}

/* The same on x rotated right by 8 (bytes 1 and 3): one instruction with
** the ROR #8 operand, which GCC 12 does not fold from the intrinsics. */
static inline uint32_t rk_sxtb16_r8(uint32_t x)
{
    uint32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
    return r;
}

static inline uint32_t rk_sxtab16_r8(uint32_t a, uint32_t x)
{
    uint32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(x));
    return r;
}

/* acc + a.lo b.lo + a.hi b.hi (signed halves), mod 2^32. */
static inline uint32_t rk_smlad(uint32_t a, uint32_t b, uint32_t acc)
{
    return (uint32_t)__smlad((int16x2_t)a, (int16x2_t)b, (int32_t)acc);
}

/* acc + a.lo b.lo, and acc + a.hi b.hi (signed halves), mod 2^32. */
static inline uint32_t rk_smlabb(uint32_t a, uint32_t b, uint32_t acc)
{
    return (uint32_t)__smlabb((int32_t)a, (int32_t)b, (int32_t)acc);
}

static inline uint32_t rk_smlatt(uint32_t a, uint32_t b, uint32_t acc)
{
    return (uint32_t)__smlatt((int32_t)a, (int32_t)b, (int32_t)acc);
}

/* acc + a.hi b.lo (signed halves), mod 2^32. */
static inline uint32_t rk_smlatb(uint32_t a, uint32_t b, uint32_t acc)
{
    return (uint32_t)__smlatb((int32_t)a, (int32_t)b, (int32_t)acc);
}

#elif defined(RK_DSP_EMULATE)
#define RK_DSP 1

/* The Arm ARM's definitions (SXTB16, SXTAB16, SMLAD, SMLABB, SMLATT) in
** portable C: halves and bytes sign-extended by hand, sums in uint32_t. */
static inline uint32_t rk_dsp_sext8(uint32_t b)
{
    return ((b & 0xffu) ^ 0x80u) - 0x80u;
}

static inline int32_t rk_dsp_half(uint32_t x, int hi)
{
    const uint32_t h = (hi ? x >> 16 : x) & 0xffffu;
    return (int32_t)((h ^ 0x8000u)) - 0x8000;
}

static inline uint32_t rk_sxtb16(uint32_t x)
{
    return (rk_dsp_sext8(x) & 0xffffu) | (rk_dsp_sext8(x >> 16) << 16);
}

static inline uint32_t rk_sxtab16(uint32_t a, uint32_t x)
{
    const uint32_t lo = (a + rk_dsp_sext8(x)) & 0xffffu;
    const uint32_t hi = ((a >> 16) + rk_dsp_sext8(x >> 16)) & 0xffffu;
    return lo | (hi << 16);
}

static inline uint32_t rk_sxtb16_r8(uint32_t x)
{
    return rk_sxtb16((x >> 8) | (x << 24));
}

static inline uint32_t rk_sxtab16_r8(uint32_t a, uint32_t x)
{
    return rk_sxtab16(a, (x >> 8) | (x << 24));
}

static inline uint32_t rk_smlad(uint32_t a, uint32_t b, uint32_t acc)
{
    return acc + (uint32_t)(rk_dsp_half(a, 0) * rk_dsp_half(b, 0)) +
           (uint32_t)(rk_dsp_half(a, 1) * rk_dsp_half(b, 1));
}

static inline uint32_t rk_smlabb(uint32_t a, uint32_t b, uint32_t acc)
{
    return acc + (uint32_t)(rk_dsp_half(a, 0) * rk_dsp_half(b, 0));
}

static inline uint32_t rk_smlatt(uint32_t a, uint32_t b, uint32_t acc)
{
    return acc + (uint32_t)(rk_dsp_half(a, 1) * rk_dsp_half(b, 1));
}

static inline uint32_t rk_smlatb(uint32_t a, uint32_t b, uint32_t acc)
{
    return acc + (uint32_t)(rk_dsp_half(a, 1) * rk_dsp_half(b, 0));
}

#else
#define RK_DSP 0
#endif

#if RK_DSP
#include "rk_requantize_inline.h"

/* Four bytes at p, any alignment (one LDR on the M33, which allows
** unaligned word loads). */
static inline uint32_t rk_load4(const int8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* n bytes from s to d (not overlapping), a word at a time (unaligned
** word loads and stores are allowed on the M33): the gathers' copies,
** which picolibc's memcpy (-Os) moves a byte per iteration after a call. */
static inline void rk_dsp_copy(int8_t *d, const int8_t *s, int32_t n)
{
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t v = rk_load4(s + i);
        memcpy(d + i, &v, sizeof v);
    }
    for (; i < n; i++)
        d[i] = s[i];
}

/* The input offset twice, as 16-bit halves: the SXTAB16 addend. */
static inline uint32_t rk_dsp_off2(int32_t offset)
{
    const uint32_t h = (uint32_t)offset & 0xffffu;
    return h | (h << 16);
}

/*
** acc[k] = bias[k] + sum (x[i] + offset) * w[k * stride + i], i < n, k <
** 4, wrapped (rk_dot4_off_acc of rk_internal.h from the four biases at
** bias, or from 0 when bias is NULL); off2 = rk_dsp_off2(offset).  In
** rk_pointwise_dsp.c, out of line: inlined into its callers the asm
** block's thirteen registers cannot be found (GCC 12: impossible
** constraints).
*/
void rk_dsp_dot4(const int8_t *x, const int8_t *w, ptrdiff_t stride, int32_t n, uint32_t off2, int32_t offset,
                 const int32_t *bias, uint32_t acc[4]);

/* sum (x[i] + offset) * w[i], i < n, wrapped: rk_dot_off, four bytes a step. */
static inline uint32_t rk_dsp_dot1(const int8_t *x, const int8_t *w, int32_t n, uint32_t off2, int32_t offset)
{
    uint32_t a = 0;
    int32_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t xw = rk_load4(x + i), v = rk_load4(w + i);
        a = rk_smlad(rk_sxtb16(v), rk_sxtab16(off2, xw), a);
        a = rk_smlad(rk_sxtb16_r8(v), rk_sxtab16_r8(off2, xw), a);
    }
    for (; i < n; i++)
        a += (uint32_t)(((int32_t)x[i] + offset) * w[i]);
    return a;
}

/*
** One channel's requantization (rk_finish of rk_internal.h) with what
** depends only on the channel taken out of the per-pixel step: the left
** and right shifts, and the clamp moved before the output offset
** ([act.min - offset, act.max - offset], so no addition can overflow).
** The doubling high multiply is floor((a m + 2^30) / 2^31), one SMULL and
** an add: it equals gemmlowp's nudge-and-truncate form except for
** INT32_MIN * INT32_MIN (a multiplier outside rk_quant's [0, 2^31)), which
** takes rk_doubling_high_mul itself.  The rounding division is gemmlowp's
** (mask, threshold plus one for a negative value).
*/
typedef struct rk_dsp_rq {
    int32_t mult, left, right, lo, hi, out_off;
} rk_dsp_rq;

/* max(shift, 0) without a branch (GCC 12 branches on shift > 0 and sends
** the common right shifts out of line); the right shift is left - shift. */
static inline int32_t rk_dsp_left(int32_t shift)
{
    return shift & ~(shift >> 31);
}

static inline rk_dsp_rq rk_dsp_rq_make(int32_t multiplier, int32_t shift, int32_t output_offset, rk_act act)
{
    rk_dsp_rq r;
    r.mult = multiplier;
    r.left = rk_dsp_left(shift);
    r.right = r.left - shift;
    r.lo = act.min - output_offset;
    r.hi = act.max - output_offset;
    r.out_off = output_offset;
    return r;
}

static inline int8_t rk_dsp_finish(uint32_t acc, const rk_dsp_rq *r)
{
    const int32_t shifted = (int32_t)(acc << r->left);
    int32_t h;
    if (__builtin_expect(r->mult == INT32_MIN, 0))
        h = rk_doubling_high_mul(shifted, r->mult);
    else /* >> of a negative value is arithmetic on every target (rk_requantize_inline.h) */
        h = (int32_t)(((int64_t)shifted * r->mult + ((int64_t)1 << 30)) >> 31);
    const int32_t mask = (int32_t)((1u << r->right) - 1u);
    const int32_t threshold = (mask >> 1) + (int32_t)((uint32_t)h >> 31);
    int32_t v = (h >> r->right) + ((h & mask) > threshold ? 1 : 0);
    if (v < r->lo)
        v = r->lo;
    if (v > r->hi)
        v = r->hi;
    return (int8_t)(v + r->out_off);
}

/*
** rk_dsp_finish with every per-channel term precomputed (rk_dsp_chan_of),
** for loops that finish several outputs of one channel (the pixel pairs of
** rk_pointwise_dsp.c): per output one SMULL-and-add high multiply, the
** rounding division with its mask and half-mask ready, the clamp before
** the offset.  Bit-exact with rk_finish for every input: a multiplier of
** INT32_MIN (the doubling high multiply's one saturating case) sets slow,
** and then the caller runs rk_dsp_finish instead (tests/test_kernels_dsp.c
** compares both with rk_finish on random and extreme operands).
*/
typedef struct rk_dsp_chan {
    int32_t mult, left, right, mask, half;
} rk_dsp_chan;

static inline rk_dsp_chan rk_dsp_chan_of(int32_t multiplier, int32_t shift)
{
    rk_dsp_chan c;
    c.mult = multiplier;
    c.left = rk_dsp_left(shift);
    c.right = c.left - shift;
    c.mask = (int32_t)((1u << c.right) - 1u);
    c.half = c.mask >> 1;
    return c;
}

/* The value before the clamp: rk_requantize_inline for c.mult != INT32_MIN. */
static inline int32_t rk_dsp_scale(uint32_t acc, const rk_dsp_chan *c)
{
    const int32_t shifted = (int32_t)(acc << c->left);
    /* >> of a negative value is arithmetic on every target (rk_requantize_inline.h) */
    const int32_t h = (int32_t)(((int64_t)shifted * c->mult + ((int64_t)1 << 30)) >> 31);
    const int32_t threshold = c->half + (int32_t)((uint32_t)h >> 31);
    return (h >> c->right) + ((h & c->mask) > threshold ? 1 : 0);
}

/* v clamped to [lo, hi] (the activation less the offset), plus the offset. */
static inline int8_t rk_dsp_clamp(int32_t v, int32_t lo, int32_t hi, int32_t out_off)
{
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    return (int8_t)(v + out_off);
}

/*
** The finishing step of four outputs at once (the 2 x 2 blocks of
** rk_pointwise_dsp.c): each value plus the output offset, saturated to
** int8 (QADD, SSAT: a saturated sum lands on the same int8 as the exact
** one, so no overflow can change a byte), the four packed into one word,
** then clamped to the activation a byte at a time (SSUB8 + SEL: a signed
** byte max, then min).  The clamp bounds lie in [-128, 127], so clamping
** the saturated value equals clamping the exact one (rk_finish's order).
*/
static inline int32_t rk_dsp_sat8(int32_t v, int32_t out_off)
{
#if defined(RK_DSP_ASM)
    return __ssat(__qadd(v, out_off), 8);
#else
    const int64_t t = (int64_t)v + out_off;
    return t < -128 ? -128 : t > 127 ? 127 : (int32_t)t;
#endif
}

/* Bytes (a, b, c, d) from the low bytes of four values. */
static inline uint32_t rk_dsp_pack4(int32_t a, int32_t b, int32_t c, int32_t d)
{
#if defined(RK_DSP_ASM)
    uint32_t r = (uint32_t)a;
    __asm__("bfi %0, %1, #8, #8\n\tbfi %0, %2, #16, #8\n\tbfi %0, %3, #24, #8"
            : "+&r"(r)
            : "r"(b), "r"(c), "r"(d));
    return r;
#else
    return ((uint32_t)a & 0xffu) | ((uint32_t)b & 0xffu) << 8 | ((uint32_t)c & 0xffu) << 16 |
           ((uint32_t)d & 0xffu) << 24;
#endif
}

/* Each signed byte of v clamped to [the byte of lo4, the byte of hi4]
** (every byte of lo4 the same, of hi4 too, lo <= hi). */
static inline uint32_t rk_dsp_clamp4(uint32_t v, uint32_t lo4, uint32_t hi4)
{
#if defined(RK_DSP_ASM)
    uint32_t t;
    __asm__("ssub8 %1, %0, %2\n\tsel %0, %0, %2\n\tssub8 %1, %3, %0\n\tsel %0, %0, %3"
            : "+&r"(v), "=&r"(t)
            : "r"(lo4), "r"(hi4)
            : "cc");
    return v;
#else
    uint32_t r = 0;
    for (int i = 0; i < 32; i += 8) {
        int32_t b = (int32_t)rk_dsp_sext8(v >> i);
        const int32_t lo = (int32_t)rk_dsp_sext8(lo4 >> i), hi = (int32_t)rk_dsp_sext8(hi4 >> i);
        b = b < lo ? lo : b > hi ? hi : b;
        r |= ((uint32_t)b & 0xffu) << i;
    }
    return r;
#endif
}

/* The byte b four times. */
static inline uint32_t rk_dsp_bytes4(int32_t b)
{
    return ((uint32_t)b & 0xffu) * 0x01010101u;
}

/* The DSP loops, called where the plain loops would run, on arguments the
** caller has checked; each with its contract at its definition. */
/* rk_pointwise_dsp.c: rk_one_channels (rk_internal.h) */
void rk_one_channels_dsp(const rk_conv_params *p, const rk_quant *q, const int8_t *x, const int8_t *filter,
                         const int32_t *bias, int32_t depth, int32_t cout, int8_t *y);
/* rk_pointwise_dsp.c: rk_pair_channels (rk_internal.h), fastest when
** x1 = x0 + depth (a stride-1 1x1 row, a pair gathered back to back) */
void rk_pair_channels_dsp(const rk_conv_params *p, const rk_quant *q, const int8_t *x0, const int8_t *x1,
                          const int8_t *filter, const int32_t *bias, int32_t depth, int32_t cout, int8_t *y0,
                          int8_t *y1);
/* rk_depthwise_dsp.c: rk_depthwise, any multiplier; one channel's output
** plane of rk_depthwise_inplace, for k_h k_w <= RK_DW_TAPS (a stack array
** of the channel's taps: 7 x 7 and smaller, every model's depthwise) */
#define RK_DW_TAPS 64
void rk_depthwise_dsp_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output);
void rk_depthwise_plane_dsp(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                            const int32_t *bias, int32_t ch_n, int32_t ch, const int8_t *plane, int32_t w_p,
                            int8_t *tensor);
/* rk_depthwise_window_dsp.c: rk_depthwise at multiplier 1, stride 1 and
** a 3 x 3 or 7 x 7 filter by the plane loop on a window of rows on the
** stack, where _fits says the window holds enough rows */
bool rk_depthwise_window_dsp_fits(const rk_conv_params *p, rk_dims in, rk_dims out);
void rk_depthwise_window_dsp(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output);
/* rk_depthwise_dsp.c: rk_depthwise_inplace's channels [0, c - c % 4) four
** at a time, the group's outputs through a scratch of 4 h_out w_out bytes,
** where rk_depthwise_inplace.h's four-channel path runs; returns c - c % 4 */
int32_t rk_depthwise_quad_dsp(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                              const int8_t *filter, const int32_t *bias, int8_t *tensor, int8_t *scratch);
/* rk_add_dsp.c: rk_add's loop; false (nothing written) where its fast
** requantization does not apply and the plain loop must run */
bool rk_add_dsp(const rk_add_params *p, int32_t n, const int8_t *input1, const int8_t *input2, int8_t *output);
/* rk_fully_connected_dsp.c: the output loop of rk_fully_connected */
void rk_fully_connected_dsp(const rk_fc_params *p, const rk_quant *q, const int8_t *input, const int8_t *weights,
                            const int32_t *bias, int8_t *output);
/* rk_fully_connected_dsp.c: its path for a head (one to three outputs)
** per tensor with a multiplier >= 0 and a shift < 0, which
** rk_fully_connected calls directly (a tiny layer's whole run is a couple
** of hundred instructions: the dispatch would show) */
void rk_fully_connected_dsp_head(const rk_fc_params *p, const rk_quant *q, const int8_t *input,
                                 const int8_t *weights, const int32_t *bias, int8_t *output);
/* ... and the one output of such a head, rows x and w: acc (the bias) plus
** their sum, requantized */
int8_t rk_fully_connected_dsp_one(const rk_fc_params *p, const rk_quant *q, const int8_t *x, const int8_t *w,
                                  uint32_t acc);
#endif


#if RK_DSP
/*
** Appended for rk_depthwise_dsp.c's four-channel output step: two int32
** values saturated to 16-bit halves (SSAT #16 each, PKHBT), a saturating
** halfwise add (QADD16), halfwise signed max and min (SSUB16 setting the
** GE flags, then SEL: one asm block, so no other instruction comes between
** them).  The C versions below the core's are their definitions.
*/
#if defined(__ARM_FEATURE_DSP) && !defined(RK_DSP_EMULATE)
static inline uint32_t rk_dsp_sat16x2(int32_t lo, int32_t hi)
{
    return ((uint32_t)__ssat(lo, 16) & 0xffffu) | ((uint32_t)__ssat(hi, 16) << 16);
}

static inline uint32_t rk_qadd16(uint32_t a, uint32_t b)
{
    return (uint32_t)__qadd16((int16x2_t)a, (int16x2_t)b);
}

static inline uint32_t rk_max16(uint32_t a, uint32_t b)
{
    uint32_t r, t;
    __asm__("ssub16 %1, %2, %3\n\tsel %0, %2, %3" : "=r"(r), "=&r"(t) : "r"(a), "r"(b) : "cc");
    return r;
}

static inline uint32_t rk_min16(uint32_t a, uint32_t b)
{
    uint32_t r, t;
    __asm__("ssub16 %1, %2, %3\n\tsel %0, %3, %2" : "=r"(r), "=&r"(t) : "r"(a), "r"(b) : "cc");
    return r;
}
#else
static inline uint32_t rk_dsp_sat16(int32_t v)
{
    return (uint32_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v) & 0xffffu;
}

static inline uint32_t rk_dsp_sat16x2(int32_t lo, int32_t hi)
{
    return rk_dsp_sat16(lo) | (rk_dsp_sat16(hi) << 16);
}

static inline uint32_t rk_qadd16(uint32_t a, uint32_t b)
{
    return rk_dsp_sat16(rk_dsp_half(a, 0) + rk_dsp_half(b, 0)) | (rk_dsp_sat16(rk_dsp_half(a, 1) + rk_dsp_half(b, 1)) << 16);
}

/* SSUB16 a - b sets GE for a half where a - b >= 0; SEL takes a there. */
static inline uint32_t rk_max16(uint32_t a, uint32_t b)
{
    const uint32_t lo = rk_dsp_half(a, 0) >= rk_dsp_half(b, 0) ? a : b;
    const uint32_t hi = rk_dsp_half(a, 1) >= rk_dsp_half(b, 1) ? a : b;
    return (lo & 0xffffu) | (hi & 0xffff0000u);
}

static inline uint32_t rk_min16(uint32_t a, uint32_t b)
{
    const uint32_t lo = rk_dsp_half(a, 0) >= rk_dsp_half(b, 0) ? b : a;
    const uint32_t hi = rk_dsp_half(a, 1) >= rk_dsp_half(b, 1) ? b : a;
    return (lo & 0xffffu) | (hi & 0xffff0000u);
}
#endif
#endif

#if RK_DSP
/*
** Appended for rk_depthwise_dsp.c's 3x3 plane pairs at stride 2: acc +
** a.lo b.hi (signed halves), mod 2^32 (SMLABT), so a tap byte in a's low
** half meets the weight in b's high half without a shift.
*/
#if defined(__ARM_FEATURE_DSP) && !defined(RK_DSP_EMULATE)
static inline uint32_t rk_smlabt(uint32_t a, uint32_t b, uint32_t acc)
{
    return (uint32_t)__smlabt((int32_t)a, (int32_t)b, (int32_t)acc);
}
#else
static inline uint32_t rk_smlabt(uint32_t a, uint32_t b, uint32_t acc)
{
    return acc + (uint32_t)(rk_dsp_half(a, 0) * rk_dsp_half(b, 1));
}
#endif
#endif

#endif
