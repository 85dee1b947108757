/*
** rk_depthwise_inplace.c — TinyEngine-style in-place depthwise convolution
** (rk_depthwise_inplace.h): per channel, the input plane to scratch, then
** the output plane over it; on the Cortex-M33, small planes four channels
** at a time (rk_depthwise_quad_dsp, rk_depthwise_dsp.c).
*/
#include "rk_depthwise_inplace.h"
#include "rk_dsp.h"
#include "rk_internal.h"

static rk_status check(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || out.c != in.c || (int64_t)out.h * out.w > (int64_t)in.h * in.w)
        return RK_ARG;
    return RK_OK;
}

/* The padded plane's bytes, h_p * w_p (on checked parameters). */
static size_t plane_bytes(const rk_conv_params *p, rk_dims in)
{
    return ((size_t)in.h + (size_t)p->p_top + (size_t)p->p_bottom) *
           ((size_t)in.w + (size_t)p->p_left + (size_t)p->p_right);
}

/* The scratch of the four-channel path (rk_depthwise_inplace.h), 0 where
** it does not run: four bytes an output pixel for a 3 x 3 filter at d = 1,
** four padded planes for any other filter. */
static size_t quad_bytes(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (in.c < 4 || p->k_h * p->k_w > RK_DW_QUAD_TAPS)
        return 0;
    const size_t plane = plane_bytes(p, in), pixels = (size_t)out.h * (size_t)out.w;
    const bool descs = p->k_h == 3 && p->k_w == 3 && p->d_h == 1 && p->d_w == 1;
    const size_t need = 4 * (descs ? pixels : plane);
    if ((descs && pixels > RK_DW_QUAD_PIXELS) || need > (plane > RK_DW_QUAD_SMALL ? plane : RK_DW_QUAD_SMALL))
        return 0;
    return need;
}

size_t rk_depthwise_inplace_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (check(p, NULL, in, out) != RK_OK)
        return 0;
    const size_t plane = plane_bytes(p, in), quad = quad_bytes(p, in, out);
    return quad > plane ? quad : plane;
}

rk_status rk_depthwise_inplace(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                               const int8_t *filter, const int32_t *bias, int8_t *tensor, int8_t *scratch)
{
    if (check(p, q, in, out) != RK_OK || filter == NULL || tensor == NULL || scratch == NULL)
        return RK_ARG;
    const int32_t ch_n = in.c;
    const int32_t h_p = in.h + p->p_top + p->p_bottom, w_p = in.w + p->p_left + p->p_right;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    int32_t ch0 = 0; /* channels [0, ch0) done four at a time */
#if RK_DSP
    if (quad_bytes(p, in, out) > 0)
        ch0 = rk_depthwise_quad_dsp(p, q, in, out, filter, bias, tensor, scratch);
    if (ch0 == ch_n)
        return RK_OK;
#endif
    memset(scratch, zero_point, (size_t)h_p * (size_t)w_p); /* the border stays pad for every channel */
    for (int32_t ch = ch0; ch < ch_n; ch++) {
        for (int32_t i = 0; i < in.h; i++) {
            int8_t *row = scratch + ((ptrdiff_t)(i + p->p_top) * w_p + p->p_left);
            const int8_t *src = tensor + (ptrdiff_t)i * in.w * ch_n + ch;
#if RK_DSP
            int32_t j = 0;
            /* Four strided loads, then four stores at fixed offsets: one
            ** pointer step and one loop test per four bytes (the gather is
            ** about a tenth of the in-place 3x3 on the M33). */
            const ptrdiff_t n1 = ch_n, n2 = 2 * (ptrdiff_t)ch_n, n3 = 3 * (ptrdiff_t)ch_n, n4 = 4 * (ptrdiff_t)ch_n;
            for (; j + 4 <= in.w; j += 4, src += n4) {
                const int8_t b0 = src[0], b1 = src[n1], b2 = src[n2], b3 = src[n3];
                row[j] = b0;
                row[j + 1] = b1;
                row[j + 2] = b2;
                row[j + 3] = b3;
            }
            for (; j < in.w; j++, src += ch_n)
                row[j] = src[0];
#else
            for (int32_t j = 0; j < in.w; j++)
                row[j] = src[(ptrdiff_t)j * ch_n];
#endif
        }
#if RK_DSP
        if (p->k_h * p->k_w <= RK_DW_TAPS) { /* rk_depthwise_dsp.c */
            rk_depthwise_plane_dsp(p, q, out, filter, bias, ch_n, ch, scratch, w_p, tensor);
            continue;
        }
#endif
        const int32_t mult = q->multiplier[ch], shift = q->shift[ch];
        for (int32_t r = 0; r < out.h; r++)
            for (int32_t c = 0; c < out.w; c++) {
                uint32_t acc = bias != NULL ? (uint32_t)bias[ch] : 0u;
                for (int32_t a = 0; a < p->k_h; a++) {
                    const int8_t *row = scratch + (ptrdiff_t)(r * p->s_h + a * p->d_h) * w_p + c * p->s_w;
                    for (int32_t b = 0; b < p->k_w; b++)
                        acc += (uint32_t)(((int32_t)row[b * p->d_w] + p->input_offset) *
                                          filter[(a * p->k_w + b) * ch_n + ch]);
                }
                tensor[((ptrdiff_t)r * out.w + c) * ch_n + ch] =
                    rk_finish(acc, mult, shift, p->output_offset, p->act);
            }
    }
    return RK_OK;
}
