/*
** rk_pointwise_dsp.c — the DSP path (rk_dsp.h) of the channel loop every
** convolution runs per output pixel: rk_one_channels of rk_pointwise.c,
** which the 1x1 path, the gathered path of rk_conv2d and both orders of
** rk_conv2d_rip call, so dual buffer and in place run this same code.
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
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[4];
        rk_dsp_dot4(x, filter + (ptrdiff_t)oc * depth, depth, depth, off2, off, bias != NULL ? bias + oc : NULL, acc);
        for (int32_t k = 0; k < 4; k++) {
            const int32_t shift = sh[oc + k];
            rq.mult = mul[oc + k];
            rq.left = rk_dsp_left(shift);
            rq.right = rq.left - shift;
            y[oc + k] = rk_dsp_finish(acc[k], &rq);
        }
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
