/*
** rk_depthwise.c — int8 depthwise convolution, dual buffer (rk_depthwise.h).
** Channels innermost, so input pixels and filter taps are read contiguously.
*/
#include "rk_depthwise.h"
#include "rk_internal.h"

size_t rk_depthwise_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    (void)p;
    (void)in;
    (void)out;
    return 0;
}

rk_status rk_depthwise(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || out.c != in.c || input == NULL || filter == NULL ||
        output == NULL)
        return RK_ARG;
    const int32_t ch = in.c;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++, y += ch)
            for (int32_t k = 0; k < ch; k++) {
                uint32_t acc = bias != NULL ? (uint32_t)bias[k] : 0u;
                for (int32_t a = 0; a < p->k_h; a++) {
                    const int32_t i = r * p->s_h + a * p->d_h - p->p_top;
                    if (i < 0 || i >= in.h)
                        continue;
                    for (int32_t b = 0; b < p->k_w; b++) {
                        const int32_t j = c * p->s_w + b * p->d_w - p->p_left;
                        if (j < 0 || j >= in.w)
                            continue;
                        const int32_t x = input[((ptrdiff_t)i * in.w + j) * ch + k] + p->input_offset;
                        acc += (uint32_t)(x * filter[(a * p->k_w + b) * ch + k]);
                    }
                }
                y[k] = rk_finish(acc, q->multiplier[k], q->shift[k], p->output_offset, p->act);
            }
    return RK_OK;
}
