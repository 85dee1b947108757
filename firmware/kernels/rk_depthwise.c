/*
** rk_depthwise.c — int8 depthwise convolution, dual buffer (rk_depthwise.h).
** Channels innermost, so input pixels and filter taps are read
** contiguously; RK_DW_BLOCK channels accumulate together (at multiplier 1 a
** loop a compiler vectorizes).
*/
#include "rk_depthwise.h"
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

rk_status rk_depthwise(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || out.c % in.c != 0 || input == NULL || filter == NULL ||
        output == NULL)
        return RK_ARG;
    depthwise_run(p, q, in, input, filter, bias, out, output, out.c / in.c);
    return RK_OK;
}
