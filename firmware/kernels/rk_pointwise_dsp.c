/*
** rk_pointwise_dsp.c — the DSP path (rk_dsp.h) of the channel loops every
** convolution runs per output pixel: rk_one_channels of rk_pointwise.c,
** which the 1x1 path, the gathered path of rk_conv2d and both orders of
** rk_conv2d_rip call, and rk_pair_channels_dsp, two pixels at once, which
** rk_pointwise_range (1x1 rows, dual buffer and in place), rk_conv2d_run
** (two fields gathered back to back) and rk_conv2d_rip's pixels through
** scratch call; so dual buffer and in place run this same code.  The
** pairs reuse each widened filter word for both pixels and each channel's
** requantization constants for both outputs, which is what puts the M33's
** 1x1 and gathered layers below CMSIS-NN's DSP path (results/kernels.md).
** Compiled to nothing where RK_DSP is 0.
*/
#include "rk_dsp.h"

#if RK_DSP
#include "rk_internal.h"

/*
** acc[k] = bias[k] (0 without bias) + sum (x[i] + offset) * w[k * stride +
** i], i < n, k < 4, wrapped: rk_dot4_off_acc of rk_internal.h from the
** biases, four bytes a step.  Per step one
** input word, widened with the offset into (x0, x2) and (x1, x3), and per
** filter row one word widened to the same pairs, two SMLADs: 26
** instructions for 16 products.  On the core the step is one asm block:
** GCC 12 spills five of the loop's fourteen registers when given the
** intrinsics (36 instructions a step); the block keeps thirteen, the
** offset pair read from the stack once a step, and is the same sequence of
** the same instructions the emulated C spells out below it, which the
** host tests run.  Rows 1 and 3 are read at [w0 + stride] and [w2 +
** stride] before w0 and w2 step on.
*/
void rk_dsp_dot4(const int8_t *x, const int8_t *w, ptrdiff_t stride, int32_t n, uint32_t off2, int32_t offset,
                 const int32_t *bias, uint32_t acc[4])
{
    const int8_t *w0 = w, *w2 = w + 2 * stride;
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (bias != NULL) {
        a0 = (uint32_t)bias[0];
        a1 = (uint32_t)bias[1];
        a2 = (uint32_t)bias[2];
        a3 = (uint32_t)bias[3];
    }
    int32_t steps = n >> 2;
#if defined(RK_DSP_ASM)
    uint32_t xa, xb, v, t;
    if (steps > 0)
        __asm__("1:\n\t"
                "ldr %[t], %[off]\n\t"
                "ldr %[xa], [%[x]], #4\n\t"
                "sxtab16 %[xb], %[t], %[xa], ror #8\n\t"
                "sxtab16 %[xa], %[t], %[xa]\n\t"
                "ldr %[v], [%[w0], %[s]]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[a1], %[t], %[xa], %[a1]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a1], %[v], %[xb], %[a1]\n\t"
                "ldr %[v], [%[w0]], #4\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[a0], %[t], %[xa], %[a0]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a0], %[v], %[xb], %[a0]\n\t"
                "ldr %[v], [%[w2], %[s]]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[a3], %[t], %[xa], %[a3]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a3], %[v], %[xb], %[a3]\n\t"
                "ldr %[v], [%[w2]], #4\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[a2], %[t], %[xa], %[a2]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a2], %[v], %[xb], %[a2]\n\t"
                "subs %[n], %[n], #1\n\t"
                "bne 1b"
                : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [x] "+r"(x), [w0] "+r"(w0),
                  [w2] "+r"(w2), [n] "+r"(steps), [xa] "=&r"(xa), [xb] "=&r"(xb), [v] "=&r"(v), [t] "=&r"(t)
                : [s] "r"(stride), [off] "m"(off2)
                : "cc", "memory");
#else
    for (; steps > 0; steps--, x += 4, w0 += 4, w2 += 4) {
        const uint32_t xw = rk_load4(x);
        const uint32_t xa = rk_sxtab16(off2, xw), xb = rk_sxtab16_r8(off2, xw);
        uint32_t v = rk_load4(w0 + stride);
        a1 = rk_smlad(rk_sxtb16(v), xa, a1);
        a1 = rk_smlad(rk_sxtb16_r8(v), xb, a1);
        v = rk_load4(w0);
        a0 = rk_smlad(rk_sxtb16(v), xa, a0);
        a0 = rk_smlad(rk_sxtb16_r8(v), xb, a0);
        v = rk_load4(w2 + stride);
        a3 = rk_smlad(rk_sxtb16(v), xa, a3);
        a3 = rk_smlad(rk_sxtb16_r8(v), xb, a3);
        v = rk_load4(w2);
        a2 = rk_smlad(rk_sxtb16(v), xa, a2);
        a2 = rk_smlad(rk_sxtb16_r8(v), xb, a2);
    }
#endif
    for (int32_t i = 0; i < (n & 3); i++) {
        const int32_t xi = (int32_t)x[i] + offset;
        a0 += (uint32_t)(xi * w0[i]);
        a1 += (uint32_t)(xi * w0[stride + i]);
        a2 += (uint32_t)(xi * w2[i]);
        a3 += (uint32_t)(xi * w2[stride + i]);
    }
    acc[0] = a0;
    acc[1] = a1;
    acc[2] = a2;
    acc[3] = a3;
}

/*
** Two pixels x two channels: acc = {p0 c0, p0 c1, p1 c0, p1 c1}, pixel j's
** field at x + j s, channel k's filter row at w + k s (s = n: the fields
** lie back to back, as the rows do), each from bias[k] (0 without bias)
** plus sum (x[i] + offset) w[i], wrapped.  Per step one word of each
** pixel widened with the offset into four halves and one word of each row
** widened into two, which serve both pixels: 16 products in 22
** instructions (rk_dsp_dot4: 26), and half the requantization constants
** per output.  One asm block on the core (fourteen registers, the offset
** pair read from the stack each step, two steps per branch: 44
** instructions per 32 products), the same step in C below it.
*/
typedef struct acc4 {
    uint32_t a00, a01, a10, a11;
} acc4;

#if !defined(RK_DSP_ASM)
/* The C of the asm steps of dot2x2 and dot2x2_dx (the emulation and any
** core without them): steps of 4 bytes, pixel 1's field at *x + dx, filter
** row 1 at *w + s; *x and *w advanced past them. */
static inline void dot2x2_steps(const int8_t **xp, ptrdiff_t dx, const int8_t **wp, ptrdiff_t s, int32_t steps,
                                uint32_t off2, uint32_t *a00, uint32_t *a01, uint32_t *a10, uint32_t *a11)
{
    const int8_t *x = *xp, *w = *wp;
    for (; steps > 0; steps--, x += 4, w += 4) {
        uint32_t v = rk_load4(x + dx);
        const uint32_t xb1 = rk_sxtab16_r8(off2, v), xa1 = rk_sxtab16(off2, v);
        v = rk_load4(x);
        const uint32_t xb0 = rk_sxtab16_r8(off2, v), xa0 = rk_sxtab16(off2, v);
        v = rk_load4(w + s);
        *a01 = rk_smlad(rk_sxtb16(v), xa0, *a01);
        *a11 = rk_smlad(rk_sxtb16(v), xa1, *a11);
        *a01 = rk_smlad(rk_sxtb16_r8(v), xb0, *a01);
        *a11 = rk_smlad(rk_sxtb16_r8(v), xb1, *a11);
        v = rk_load4(w);
        *a00 = rk_smlad(rk_sxtb16(v), xa0, *a00);
        *a10 = rk_smlad(rk_sxtb16(v), xa1, *a10);
        *a00 = rk_smlad(rk_sxtb16_r8(v), xb0, *a00);
        *a10 = rk_smlad(rk_sxtb16_r8(v), xb1, *a10);
    }
    *xp = x;
    *wp = w;
}
#endif

static inline acc4 dot2x2(const int8_t *x, const int8_t *w, ptrdiff_t s, int32_t n, uint32_t off2, int32_t offset,
                          const int32_t *bias)
{
    uint32_t a00 = 0, a01 = 0;
    if (bias != NULL) {
        a00 = (uint32_t)bias[0];
        a01 = (uint32_t)bias[1];
    }
    uint32_t a10 = a00, a11 = a01;
    int32_t steps = n >> 2;
#if defined(RK_DSP_ASM)
    /* two steps per branch: an odd count enters at the second */
    int32_t pairs = (steps + 1) >> 1;
    uint32_t xa0, xb0, xa1, xb1, v, t = (uint32_t)steps & 1u;
    if (steps > 0)
        __asm__("cmp %[t], #0\n\t"
                "bne 2f\n\t"
                "1:\n\t"
                "ldr %[t], %[off]\n\t"
                "ldr %[v], [%[x], %[s]]\n\t"
                "sxtab16 %[xb1], %[t], %[v], ror #8\n\t"
                "sxtab16 %[xa1], %[t], %[v]\n\t"
                "ldr %[v], [%[x]], #4\n\t"
                "sxtab16 %[xb0], %[t], %[v], ror #8\n\t"
                "sxtab16 %[xa0], %[t], %[v]\n\t"
                "ldr %[v], [%[w], %[s]]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a01], %[t], %[xa0], %[a01]\n\t"
                "smlad %[a11], %[t], %[xa1], %[a11]\n\t"
                "smlad %[a01], %[v], %[xb0], %[a01]\n\t"
                "smlad %[a11], %[v], %[xb1], %[a11]\n\t"
                "ldr %[v], [%[w]], #4\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a00], %[t], %[xa0], %[a00]\n\t"
                "smlad %[a10], %[t], %[xa1], %[a10]\n\t"
                "smlad %[a00], %[v], %[xb0], %[a00]\n\t"
                "smlad %[a10], %[v], %[xb1], %[a10]\n\t"
                "2:\n\t"
                "ldr %[t], %[off]\n\t"
                "ldr %[v], [%[x], %[s]]\n\t"
                "sxtab16 %[xb1], %[t], %[v], ror #8\n\t"
                "sxtab16 %[xa1], %[t], %[v]\n\t"
                "ldr %[v], [%[x]], #4\n\t"
                "sxtab16 %[xb0], %[t], %[v], ror #8\n\t"
                "sxtab16 %[xa0], %[t], %[v]\n\t"
                "ldr %[v], [%[w], %[s]]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a01], %[t], %[xa0], %[a01]\n\t"
                "smlad %[a11], %[t], %[xa1], %[a11]\n\t"
                "smlad %[a01], %[v], %[xb0], %[a01]\n\t"
                "smlad %[a11], %[v], %[xb1], %[a11]\n\t"
                "ldr %[v], [%[w]], #4\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a00], %[t], %[xa0], %[a00]\n\t"
                "smlad %[a10], %[t], %[xa1], %[a10]\n\t"
                "smlad %[a00], %[v], %[xb0], %[a00]\n\t"
                "smlad %[a10], %[v], %[xb1], %[a10]\n\t"
                "subs %[n], %[n], #1\n\t"
                "bne 1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x), [w] "+r"(w),
                  [n] "+r"(pairs), [xa0] "=&r"(xa0), [xb0] "=&r"(xb0), [xa1] "=&r"(xa1), [xb1] "=&r"(xb1),
                  [v] "=&r"(v), [t] "+&r"(t)
                : [s] "r"(s), [off] "m"(off2)
                : "cc", "memory");
#else
    dot2x2_steps(&x, s, &w, s, steps, off2, &a00, &a01, &a10, &a11);
#endif
    for (int32_t i = 0; i < (n & 3); i++) {
        const int32_t x0 = (int32_t)x[i] + offset, x1 = (int32_t)x[s + i] + offset;
        a00 += (uint32_t)(x0 * w[i]);
        a01 += (uint32_t)(x0 * w[s + i]);
        a10 += (uint32_t)(x1 * w[i]);
        a11 += (uint32_t)(x1 * w[s + i]);
    }
    const acc4 r = {a00, a01, a10, a11};
    return r;
}

/*
** dot2x2 with pixel 1's field at x + dx for any dx (a strided 1x1 layer's
** pairs): the fifteenth register it needs is the step count's, replaced
** by a compare of w with its end, read from the stack each step (24
** instructions per 16 products).
*/
static inline acc4 dot2x2_dx(const int8_t *x, ptrdiff_t dx, const int8_t *w, ptrdiff_t s, int32_t n, uint32_t off2,
                             int32_t offset, const int32_t *bias)
{
    uint32_t a00 = 0, a01 = 0;
    if (bias != NULL) {
        a00 = (uint32_t)bias[0];
        a01 = (uint32_t)bias[1];
    }
    uint32_t a10 = a00, a11 = a01;
    const int32_t steps = n >> 2;
#if defined(RK_DSP_ASM)
    const int8_t *const w_end = w + 4 * (ptrdiff_t)steps;
    uint32_t xa0, xb0, xa1, xb1, v, t;
    if (steps > 0)
        __asm__("1:\n\t"
                "ldr %[t], %[off]\n\t"
                "ldr %[v], [%[x], %[dx]]\n\t"
                "sxtab16 %[xb1], %[t], %[v], ror #8\n\t"
                "sxtab16 %[xa1], %[t], %[v]\n\t"
                "ldr %[v], [%[x]], #4\n\t"
                "sxtab16 %[xb0], %[t], %[v], ror #8\n\t"
                "sxtab16 %[xa0], %[t], %[v]\n\t"
                "ldr %[v], [%[w], %[s]]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a01], %[t], %[xa0], %[a01]\n\t"
                "smlad %[a11], %[t], %[xa1], %[a11]\n\t"
                "smlad %[a01], %[v], %[xb0], %[a01]\n\t"
                "smlad %[a11], %[v], %[xb1], %[a11]\n\t"
                "ldr %[v], [%[w]], #4\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "sxtb16 %[v], %[v], ror #8\n\t"
                "smlad %[a00], %[t], %[xa0], %[a00]\n\t"
                "smlad %[a10], %[t], %[xa1], %[a10]\n\t"
                "smlad %[a00], %[v], %[xb0], %[a00]\n\t"
                "smlad %[a10], %[v], %[xb1], %[a10]\n\t"
                "ldr %[t], %[end]\n\t"
                "cmp %[w], %[t]\n\t"
                "bne 1b"
                : [a00] "+r"(a00), [a01] "+r"(a01), [a10] "+r"(a10), [a11] "+r"(a11), [x] "+r"(x), [w] "+r"(w),
                  [xa0] "=&r"(xa0), [xb0] "=&r"(xb0), [xa1] "=&r"(xa1), [xb1] "=&r"(xb1), [v] "=&r"(v),
                  [t] "=&r"(t)
                : [s] "r"(s), [dx] "r"(dx), [off] "m"(off2), [end] "m"(w_end)
                : "cc", "memory");
#else
    dot2x2_steps(&x, dx, &w, s, steps, off2, &a00, &a01, &a10, &a11);
#endif
    for (int32_t i = 0; i < (n & 3); i++) {
        const int32_t x0 = (int32_t)x[i] + offset, x1 = (int32_t)x[dx + i] + offset;
        a00 += (uint32_t)(x0 * w[i]);
        a01 += (uint32_t)(x0 * w[s + i]);
        a10 += (uint32_t)(x1 * w[i]);
        a11 += (uint32_t)(x1 * w[s + i]);
    }
    const acc4 r = {a00, a01, a10, a11};
    return r;
}

/*
** Channels 0..cout-1 of the pixels whose fields (depth bytes each) lie at
** x and x + dx (adjacent: dx = depth), into y0[0..cout) and y1[0..cout):
** two channels per inner loop (dot2x2, dot2x2_dx), each channel's requantization constants derived
** once for both pixels (rk_dsp_chan), the block's four outputs offset,
** saturated, packed, clamped and stored as two halfwords
** (rk_dsp_clamp4); an odd last channel alone, and a multiplier of
** INT32_MIN through rk_dsp_finish.  The outputs may not overlap the
** fields or filter.  Equal byte for byte to rk_one_channels on each
** pixel.
*/
static inline __attribute__((always_inline)) void pair_channels(const rk_conv_params *p, const rk_quant *q,
                                                                const int8_t *x, ptrdiff_t dx, bool adjacent,
                                                                const int8_t *filter, const int32_t *bias,
                                                                int32_t depth, int32_t cout, int8_t *y0, int8_t *y1)
{
    /* locals: the byte stores to y0 and y1 may alias anything */
    const int32_t off = p->input_offset, oo = p->output_offset;
    const uint32_t lo4 = rk_dsp_bytes4(p->act.min), hi4 = rk_dsp_bytes4(p->act.max);
    const int32_t *mul = q->multiplier, *sh = q->shift;
    const uint32_t off2 = rk_dsp_off2(off);
    int32_t oc = 0;
    for (; oc + 2 <= cout; oc += 2) {
        const int8_t *w = filter + (ptrdiff_t)oc * depth;
        const int32_t *b = bias != NULL ? bias + oc : NULL;
        const acc4 a = adjacent ? dot2x2(x, w, depth, depth, off2, off, b)
                                : dot2x2_dx(x, dx, w, depth, depth, off2, off, b);
        const int32_t m0 = mul[oc], m1 = mul[oc + 1];
        if (__builtin_expect(m0 == INT32_MIN || m1 == INT32_MIN, 0)) {
            const rk_dsp_rq r0 = rk_dsp_rq_make(m0, sh[oc], oo, p->act);
            const rk_dsp_rq r1 = rk_dsp_rq_make(m1, sh[oc + 1], oo, p->act);
            y0[oc] = rk_dsp_finish(a.a00, &r0);
            y0[oc + 1] = rk_dsp_finish(a.a01, &r1);
            y1[oc] = rk_dsp_finish(a.a10, &r0);
            y1[oc + 1] = rk_dsp_finish(a.a11, &r1);
            continue;
        }
        const rk_dsp_chan c0 = rk_dsp_chan_of(m0, sh[oc]);
        const int32_t v00 = rk_dsp_sat8(rk_dsp_scale(a.a00, &c0), oo);
        const int32_t v10 = rk_dsp_sat8(rk_dsp_scale(a.a10, &c0), oo);
        const rk_dsp_chan c1 = rk_dsp_chan_of(m1, sh[oc + 1]);
        const int32_t v01 = rk_dsp_sat8(rk_dsp_scale(a.a01, &c1), oo);
        const int32_t v11 = rk_dsp_sat8(rk_dsp_scale(a.a11, &c1), oo);
        const uint32_t v = rk_dsp_clamp4(rk_dsp_pack4(v00, v01, v10, v11), lo4, hi4);
        const uint16_t h0 = (uint16_t)v, h1 = (uint16_t)(v >> 16);
        memcpy(y0 + oc, &h0, sizeof h0);
        memcpy(y1 + oc, &h1, sizeof h1);
    }
    if (oc < cout) {
        const int8_t *w = filter + (ptrdiff_t)oc * depth;
        const rk_dsp_rq rq = rk_dsp_rq_make(mul[oc], sh[oc], oo, p->act);
        const uint32_t b = rk_bias0(bias, oc);
        y0[oc] = rk_dsp_finish(b + rk_dsp_dot1(x, w, depth, off2, off), &rq);
        y1[oc] = rk_dsp_finish(b + rk_dsp_dot1(x + dx, w, depth, off2, off), &rq);
    }
}

void rk_pair_channels_dsp(const rk_conv_params *p, const rk_quant *q, const int8_t *x0, const int8_t *x1,
                          const int8_t *filter, const int32_t *bias, int32_t depth, int32_t cout, int8_t *y0,
                          int8_t *y1)
{
    /* two copies of the loop: the back-to-back fields' block needs one
    ** register fewer (x1 = x0 + depth, the filter rows' own stride) */
    if (x1 == x0 + depth)
        pair_channels(p, q, x0, depth, true, filter, bias, depth, cout, y0, y1);
    else
        pair_channels(p, q, x0, x1 - x0, false, filter, bias, depth, cout, y0, y1);
}

/*
** Channels 0..cout-1 of one pixel whose field (depth bytes) is contiguous
** at x, into y[0..cout): four channels per inner loop (rk_dsp_dot4), then
** one at a time; y may not overlap x or filter.  Equal byte for byte to
** the plain rk_one_channels (the same products summed modulo 2^32, the
** same requantization).
*/
void rk_one_channels_dsp(const rk_conv_params *p, const rk_quant *q, const int8_t *x, const int8_t *filter,
                         const int32_t *bias, int32_t depth, int32_t cout, int8_t *y)
{
    /* locals: the byte stores to y may alias anything, so fields read
    ** through p and q would be read again after every store */
    const int32_t off = p->input_offset;
    const int32_t *mul = q->multiplier, *sh = q->shift;
    const uint32_t off2 = rk_dsp_off2(off);
    rk_dsp_rq rq = rk_dsp_rq_make(0, 0, p->output_offset, p->act); /* the clamp; mult and shifts per channel */
    const int32_t oo = p->output_offset;
    const uint32_t lo4 = rk_dsp_bytes4(p->act.min), hi4 = rk_dsp_bytes4(p->act.max);
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[4];
        rk_dsp_dot4(x, filter + (ptrdiff_t)oc * depth, depth, depth, off2, off, bias != NULL ? bias + oc : NULL, acc);
        if (__builtin_expect(mul[oc] == INT32_MIN || mul[oc + 1] == INT32_MIN || mul[oc + 2] == INT32_MIN ||
                                 mul[oc + 3] == INT32_MIN,
                             0)) {
            for (int32_t k = 0; k < 4; k++) {
                const int32_t shift = sh[oc + k];
                rq.mult = mul[oc + k];
                rq.left = rk_dsp_left(shift);
                rq.right = rq.left - shift;
                y[oc + k] = rk_dsp_finish(acc[k], &rq);
            }
            continue;
        }
        /* the four outputs offset, saturated, packed, clamped and stored
        ** as one word (rk_dsp_clamp4), as the pairs' blocks are */
        int32_t v[4];
        for (int32_t k = 0; k < 4; k++) {
            const rk_dsp_chan c = rk_dsp_chan_of(mul[oc + k], sh[oc + k]);
            v[k] = rk_dsp_sat8(rk_dsp_scale(acc[k], &c), oo);
        }
        const uint32_t w = rk_dsp_clamp4(rk_dsp_pack4(v[0], v[1], v[2], v[3]), lo4, hi4);
        memcpy(y + oc, &w, sizeof w);
    }
    for (; oc < cout; oc++) {
        const int32_t shift = sh[oc];
        rq.mult = mul[oc];
        rq.left = rk_dsp_left(shift);
        rq.right = rq.left - shift;
        y[oc] = rk_dsp_finish(rk_bias0(bias, oc) + rk_dsp_dot1(x, filter + (ptrdiff_t)oc * depth, depth, off2, off),
                              &rq);
    }
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int rk_pointwise_dsp_empty;
#endif
