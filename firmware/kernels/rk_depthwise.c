/*
** rk_depthwise.c — int8 depthwise convolution, dual buffer (rk_depthwise.h).
** Channels innermost, so input pixels and filter taps are read
** contiguously; RK_DW_BLOCK channels accumulate together (at multiplier 1 a
** loop a compiler vectorizes).
*/
#include "rk_depthwise.h"
#include "rk_dsp.h"
#include "rk_internal.h"

/* Channels per accumulator block: 32 int32 (128 bytes) on the stack. */
#define RK_DW_BLOCK 32

size_t rk_depthwise_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    (void)p;
    (void)in;
    (void)out;
    return 0;
}

/*
** Output channels in blocks of RK_DW_BLOCK, taps outside, channels
** innermost: per tap one contiguous run of filter (and of input at m = 1),
** the output channel oc reading input channel oc / m (TFLite's order:
** input channel, then multiplier).
*/
#if RK_THUMB1
__attribute__((noinline))
#endif
static void depthwise_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                                 const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int32_t m)
{
    const int32_t ch = out.c, off = p->input_offset;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++, y += ch)
            for (int32_t k0 = 0; k0 < ch; k0 += RK_DW_BLOCK) {
                const int32_t n = ch - k0 < RK_DW_BLOCK ? ch - k0 : RK_DW_BLOCK;
                uint32_t acc[RK_DW_BLOCK];
                for (int32_t k = 0; k < n; k++)
                    acc[k] = rk_bias0(bias, k0 + k);
                for (int32_t a = 0; a < p->k_h; a++) {
                    const int32_t i = r * p->s_h + a * p->d_h - p->p_top;
                    if (i < 0 || i >= in.h)
                        continue;
                    for (int32_t b = 0; b < p->k_w; b++) {
                        const int32_t j = c * p->s_w + b * p->d_w - p->p_left;
                        if (j < 0 || j >= in.w)
                            continue;
                        const int8_t *x = input + ((ptrdiff_t)i * in.w + j) * in.c;
                        const int8_t *w = filter + (ptrdiff_t)(a * p->k_w + b) * ch + k0;
                        if (m == 1)   /* contiguous: the loop a compiler vectorizes, no division */
                            for (int32_t k = 0; k < n; k++)
                                acc[k] += (uint32_t)((int32_t)(int16_t)((int32_t)x[k0 + k] + off) * w[k]);
                        else {
#if RK_THUMB1
                            /* ARMv6-M has no divide instruction: (k0 + k) / m
                            ** would be a call to __aeabi_idiv per product.
                            ** The input channel steps once every m outputs. */
                            int32_t ic = k0 / m, j = k0 % m;
                            for (int32_t k = 0; k < n; k++) {
                                acc[k] += (uint32_t)(((int32_t)x[ic] + off) * w[k]);
                                if (++j == m) {
                                    j = 0;
                                    ic++;
                                }
                            }
#else
                            for (int32_t k = 0; k < n; k++)
                                acc[k] += (uint32_t)((int32_t)(int16_t)((int32_t)x[(k0 + k) / m] + off) * w[k]);
#endif
                        }
                    }
                }
                for (int32_t k = 0; k < n; k++)
                    y[k0 + k] = rk_finish(acc[k], q->multiplier[k0 + k], q->shift[k0 + k], p->output_offset, p->act);
            }
}

#if RK_THUMB1
/* The first tap index k in [0, n) whose position base + k d lies at or
** above 0, and one past the last below limit: the taps of a pixel on the
** input. */
static void tap_range(int32_t base, int32_t d, int32_t n, int32_t limit, int32_t *k0, int32_t *k1)
{
    int32_t a = 0, b = n;
    while (a < n && base + a * d < 0)
        a++;
    while (b > a && base + (b - 1) * d >= limit)
        b--;
    *k0 = a;
    *k1 = b;
}

/*
** ARMv6-M, channel multiplier a multiple of 4: four output channels of one
** input channel accumulate together in registers, taps inside, so each
** input byte is loaded once for four filter bytes and no accumulator goes
** through memory (depthwise_run keeps 32 of them on the stack, which at
** multipliers above 1 costs a load and a store per product).  The same
** int32 sums (wrapped sums in any order are the same), the same finish.
** Out of line: inlined, it changes how GCC compiles depthwise_run (7%
** more instructions at multiplier 1).
*/
__attribute__((noinline)) static void depthwise_mult4(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                            const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int32_t m)
{
    const int32_t ch = out.c, off = p->input_offset, zo = p->output_offset;
    const int32_t *mult = q->multiplier, *sh = q->shift;
    const rk_act act = p->act;
    const ptrdiff_t xs = (ptrdiff_t)p->d_w * in.c;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++) {
        int32_t a0, a1;
        tap_range(r * p->s_h - p->p_top, p->d_h, p->k_h, in.h, &a0, &a1);
        for (int32_t c = 0; c < out.w; c++, y += ch) {
            int32_t b0, b1;
            tap_range(c * p->s_w - p->p_left, p->d_w, p->k_w, in.w, &b0, &b1);
            for (int32_t oc = 0; oc < ch; oc += 4) {
                const int32_t ic = oc / m; /* once per four channels */
                uint32_t s0 = rk_bias0(bias, oc), s1 = rk_bias0(bias, oc + 1), s2 = rk_bias0(bias, oc + 2),
                         s3 = rk_bias0(bias, oc + 3);
                for (int32_t a = a0; a < a1; a++) {
                    const int32_t i = r * p->s_h + a * p->d_h - p->p_top, j = c * p->s_w + b0 * p->d_w - p->p_left;
                    const int8_t *x = input + ((ptrdiff_t)i * in.w + j) * in.c + ic;
                    const int8_t *w = filter + (ptrdiff_t)(a * p->k_w + b0) * ch + oc;
                    for (int32_t b = b0; b < b1; b++, x += xs, w += ch) {
                        const int32_t xv = (int32_t)*x + off;
                        s0 += (uint32_t)(xv * w[0]);
                        s1 += (uint32_t)(xv * w[1]);
                        s2 += (uint32_t)(xv * w[2]);
                        s3 += (uint32_t)(xv * w[3]);
                    }
                }
                y[oc] = rk_finish(s0, mult[oc], sh[oc], zo, act);
                y[oc + 1] = rk_finish(s1, mult[oc + 1], sh[oc + 1], zo, act);
                y[oc + 2] = rk_finish(s2, mult[oc + 2], sh[oc + 2], zo, act);
                y[oc + 3] = rk_finish(s3, mult[oc + 3], sh[oc + 3], zo, act);
            }
        }
    }
}
#endif

void rk_depthwise_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                      const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
#if RK_DSP
    if (rk_depthwise_window_dsp_fits(p, in, out)) /* rk_depthwise_window_dsp.c says why */
        rk_depthwise_window_dsp(p, q, in, input, filter, bias, out, output);
    else
        rk_depthwise_dsp_run(p, q, in, input, filter, bias, out, output); /* rk_depthwise_dsp.c */
    return;
#elif RK_THUMB1
    if ((out.c / in.c) % 4 == 0) {
        depthwise_mult4(p, q, in, input, filter, bias, out, output, out.c / in.c);
        return;
    }
#endif
    depthwise_run(p, q, in, input, filter, bias, out, output, out.c / in.c);
}

rk_status rk_depthwise(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || out.c % in.c != 0 || input == NULL || filter == NULL ||
        output == NULL)
        return RK_ARG;
    rk_depthwise_run(p, q, in, input, filter, bias, out, output);
    return RK_OK;
}
