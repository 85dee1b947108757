/*
** rk_depthwise_window_dsp.c — the DSP path (rk_dsp.h) of the dual-buffer
** depthwise convolution at multiplier 1, stride 1 and a square 3 x 3 or
** 7 x 7 filter: the per-channel plane loop of rk_depthwise_inplace
** (rk_depthwise_plane_dsp, two output pixels per packed tap pair, the
** input offset folded into the sum's start) on a rolling window of padded
** rows on the stack, instead of a whole plane in scratch.  The dual kernel
** has no scratch (rk_depthwise_buffer_size is 0 on every target), and the
** window keeps it so.
**
** Why: channels innermost (rk_depthwise_dsp.c's groups of four) make a
** tap one product per channel; in a channel's own plane two neighbouring
** taps of two neighbouring pixels are one word, two SMLADs.  Measured in
** QEMU on every such layer of the models and Tab. 6 (results/kernels.md),
** the plane loop took 0.75-0.97 of the groups' instructions at 3 x 3 and
** 7 x 7 and 1.15-1.17 at 5 x 5, so 5 x 5 keeps the groups, and so do small
** planes (DW_WINDOW_PIXELS).
**
** Order: channel by channel; for each, the window holds padded rows
** [r0, r0 + nb + k - 1) of the channel (pads at the input zero point, the
** row stride rounded up to a word), the plane loop computes output rows
** [r0, r0 + nb), and the last k - 1 rows move to the window's top for the
** next band.  Every input byte is read once, before any output of its
** channel that covers it is written; only the channel's own output bytes
** are written.  So it is also safe run over its own input where
** rk_depthwise_inplace.h's direct rule holds (its readers are per pixel,
** and each channel's writes here are behind its reads in the same pixel
** order).  The same products summed modulo 2^32 and the same
** requantisation as the plain loop: byte for byte equal.
*/
#include "rk_dsp.h"

#if RK_DSP
#include "rk_internal.h"

/* Bytes of the window on the stack: below dw_3x3's frame (864 B), which
** sets the depthwise path's stack need; never live at the same time. */
#define DW_WINDOW 768

/* Output pixels from which the window runs: below, the per-channel set-up
** (the taps packed, the requantisation made, per band) outweighs what the
** pairs save (measured: 7 x 7 on 11 x 11 outputs 1.12 of the groups, on
** 18 x 18 0.85; 3 x 3 on 12 x 12 1.00, on 16 x 16 0.94). */
#define DW_WINDOW_PIXELS 256

/* The row stride of the window: the padded row rounded up to a word, so
** the rows moved between bands go by words. */
static int32_t window_stride(const rk_conv_params *p, rk_dims in)
{
    return (in.w + p->p_left + p->p_right + 3) & ~3;
}

bool rk_depthwise_window_dsp_fits(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (out.c != in.c || p->s_h != 1 || p->s_w != 1 || p->d_h != 1 || p->d_w != 1 || p->k_h != p->k_w ||
        (p->k_h != 3 && p->k_h != 7) || (int64_t)out.h * out.w < DW_WINDOW_PIXELS)
        return false;
    const int64_t stride = window_stride(p, in), k = p->k_h;
    /* at least two output rows a band, and a band no shorter than the k - 1
    ** rows it hands on (so the move does not overlap) */
    const int64_t rows = 2 * k - 2 > k + 1 ? 2 * k - 2 : k + 1;
    return rows * stride <= DW_WINDOW;
}

void rk_depthwise_window_dsp(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                             const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    _Alignas(4) int8_t win[DW_WINDOW];
    const int32_t ch_n = in.c, k = p->k_h, stride = window_stride(p, in);
    const int32_t rows = DW_WINDOW / stride, band = rows - k + 1, keep = k - 1;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    const ptrdiff_t in_row = (ptrdiff_t)in.w * ch_n, out_row = (ptrdiff_t)out.w * ch_n;
    /* the left and right pads of every row stay the zero point: only the
    ** [p_left, p_left + in.w) part of a row is ever rewritten */
    memset(win, zero_point, (size_t)rows * (size_t)stride);
    for (int32_t ch = 0; ch < ch_n; ch++) {
        int32_t have = 0; /* window rows already holding padded rows r0 .. */
        for (int32_t r0 = 0; r0 < out.h;) {
            const int32_t nb = out.h - r0 < band ? out.h - r0 : band, need = nb + k - 1;
            for (int32_t j = have; j < need; j++) {
                int8_t *row = win + (ptrdiff_t)j * stride + p->p_left;
                const int32_t i = r0 + j - p->p_top; /* input row of padded row r0 + j */
                if (i >= 0 && i < in.h)
                    rk_gather_plane_row(row, input + (ptrdiff_t)i * in_row + ch, in.w, ch_n);
                else
                    memset(row, zero_point, (size_t)in.w);
            }
            rk_dims ob = out;
            ob.h = nb;
            rk_depthwise_plane_dsp(p, q, ob, filter, bias, ch_n, ch, win, stride, output + (ptrdiff_t)r0 * out_row);
            r0 += nb;
            if (r0 < out.h) {
                rk_copy_bytes(win, win + (ptrdiff_t)nb * stride, (size_t)keep * (size_t)stride);
                have = keep;
            }
        }
    }
}
#endif
