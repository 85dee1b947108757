/*
** rk_depthwise_inplace.c — TinyEngine-style in-place depthwise convolution
** (rk_depthwise_inplace.h): per channel, the input plane to scratch, then
** the output plane over it; a layer none of whose input pixels is read
** after the output pixel over it is written (stride 2) by the dual kernel
** over the tensor itself; on the Cortex-M33 and M0, small layers four
** channels at a time (rk_depthwise_quad_dsp of rk_depthwise_dsp.c, and
** quad_thumb1 here); on the M0 and the host, stride-1 layers by the dual
** kernel a band of rows at a time, each row written once its last reader
** has run (rows_delayed).
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

/* The scratch of the four-channel path (rk_depthwise_inplace.h), four
** bytes an output pixel; 0 where it does not run. */
static size_t quad_bytes(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    const size_t pixels = (size_t)out.h * (size_t)out.w;
    if (in.c < 4 || p->k_h * p->k_w > RK_DW_QUAD_TAPS || pixels > RK_DW_QUAD_PIXELS)
        return 0;
    return 4 * pixels;
}

size_t rk_depthwise_inplace_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (check(p, NULL, in, out) != RK_OK)
        return 0;
    const size_t plane = plane_bytes(p, in), quad = quad_bytes(p, in, out);
    return quad > plane ? quad : plane;
}

/*
** Whether the layer may run straight over the tensor (rk_depthwise_run,
** input = output): at d = 1, output pixel i's bytes are input pixel i's
** (row-major, out.h out.w <= in.h in.w), and the output pixels reading an
** input pixel form a rectangle of rows and columns, so its last reader is
** the last row's last column; no input pixel may have a reader after the
** output pixel written over it.  True of stride-2 layers with pad 1 (each
** window reaches back), false of stride 1 with padding.
*/
static bool direct(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (p->d_h != 1 || p->d_w != 1)
        return false;
    const int32_t n = out.h * out.w;
    /* input pixel i = (ai, bi), stepped; r, c: the last output row and
    ** column whose windows start at or before ai, bi, c stepped with its
    ** remainder cr (no division per pixel: the M0 has no divide) */
    int32_t ai = 0, bi = 0, r = p->p_top / p->s_h, c = p->p_left / p->s_w, cr = p->p_left % p->s_w;
    for (int32_t i = 0; i < n; i++) {
        const int32_t rl = r < out.h - 1 ? r : out.h - 1, cl = c < out.w - 1 ? c : out.w - 1;
        const bool read = rl * p->s_h - p->p_top + p->k_h - 1 >= ai && cl * p->s_w - p->p_left + p->k_w - 1 >= bi;
        if (read && rl * out.w + cl > i) /* a reader after the pixel written over it */
            return false;
        if (++bi == in.w) {
            bi = 0;
            ai++;
            r = (ai + p->p_top) / p->s_h;
            c = p->p_left / p->s_w;
            cr = p->p_left % p->s_w;
        } else if (++cr == p->s_w) {
            cr = 0;
            c++;
        }
    }
    return true;
}

/*
** Row delay (rk_depthwise_inplace.h): at stride 1 with out.w = in.w,
** output row y lies on input row y's bytes, and input row y is last read
** by output row y + p_top (the tap a = 0), so row y may be written once
** rows up to y + p_top are computed.  Bands of `band` rows are computed by
** the dual kernel (rk_depthwise_run, on the band's input rows with the
** band's own top and bottom padding) into a ring of m = 1 + ceil(p_top /
** band) band slots in scratch, and each row is copied over its input as
** soon as its last reader has run; band j reuses band j - m's slot, whose
** rows are written by then ((m - 1) band >= p_top).  The band is the
** largest whose ring fits the layer's scratch (its size is not raised
** for this path); false, having done nothing, where not even one row's
** ring fits or the layer is not of this shape.
*/
#if !RK_DSP
static bool rows_delayed(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out, const int8_t *filter,
                         const int32_t *bias, int8_t *tensor, int8_t *scratch)
{
    if (p->s_h != 1 || p->s_w != 1 || out.w != in.w || out.c != in.c)
        return false;
    const size_t row = (size_t)out.w * (size_t)out.c, plane = plane_bytes(p, in), quad = quad_bytes(p, in, out),
                 avail = quad > plane ? quad : plane;
    const int32_t lag = p->p_top, rows_avail = (int32_t)(avail / row < (size_t)INT32_MAX ? avail / row : 0);
    int32_t band = 0, m = 0;
    for (int32_t b = rows_avail < out.h ? rows_avail : out.h; b >= 1 && band == 0; b--) {
        const int32_t slots = 1 + (lag + b - 1) / b;
        if ((int64_t)slots * b <= rows_avail) {
            band = b;
            m = slots;
        }
    }
    if (band == 0)
        return false;
    const int32_t k_span = (p->k_h - 1) * p->d_h + 1;
    int32_t written = 0, slot = 0, w_slot = 0, w_row = 0; /* w_*: the next row to write, stepped (no divide) */
    for (int32_t r0 = 0; r0 < out.h; r0 += band) {
        const int32_t nb = out.h - r0 < band ? out.h - r0 : band, t = r0 - p->p_top;
        rk_conv_params pb = *p;
        rk_dims ib = in, ob = out;
        const int8_t *x = tensor;
        if (t >= 0) {
            x = tensor + (ptrdiff_t)t * (ptrdiff_t)row;
            pb.p_top = 0;
            ib.h = in.h - t;
        } else
            pb.p_top = -t;
        /* the band's input rows below its top pad; <= 0 when a top pad wider
        ** than the kernel leaves the band none: the dual kernel then skips
        ** every tap (each row index >= ib.h), the output the bias alone, as
        ** the reference (kernels_others draws such pads) */
        const int32_t need = nb - 1 + k_span - pb.p_top;
        pb.p_bottom = ib.h < need ? need - ib.h : 0;
        ib.h = ib.h < need ? ib.h : need;
        ob.h = nb;
        int8_t *ring = scratch + (size_t)slot * (size_t)band * row;
        rk_depthwise_run(&pb, q, ib, x, filter, bias, ob, ring);
        const int32_t done = r0 + nb, limit = done == out.h ? out.h : done - lag;
        for (; written < limit; written++) {
            rk_copy_bytes(tensor + (ptrdiff_t)written * (ptrdiff_t)row,
                          scratch + ((size_t)w_slot * (size_t)band + (size_t)w_row) * row, row);
            if (++w_row == band) {
                w_row = 0;
                if (++w_slot == m)
                    w_slot = 0;
            }
        }
        if (++slot == m)
            slot = 0;
    }
    return true;
}
#endif

#if RK_THUMB1
/*
** ARMv6-M: the four-channel path (rk_depthwise_inplace.h) in plain C, for
** every filter: per group of four channels, each output pixel's four sums
** in registers over its taps on the input (read from the tensor), the
** four outputs into scratch (four bytes a pixel, the path's scratch),
** copied over
** the group's bytes once the group is done.  Returns the channels done,
** c - c % 4.  The same wrapped sums and the same rk_finish as the plane
** loop.
*/
__attribute__((noinline)) static int32_t quad_thumb1(const rk_conv_params *p, const rk_quant *q, rk_dims in,
                                                     rk_dims out, const int8_t *filter, const int32_t *bias,
                                                     int8_t *tensor, int8_t *scratch)
{
    const int32_t ch = in.c, n4 = ch - ch % 4, off = p->input_offset, zo = p->output_offset, kw = p->k_w;
    const int32_t n = out.h * out.w;
    const rk_act act = p->act;
    const ptrdiff_t xs = (ptrdiff_t)p->d_w * ch;
    for (int32_t k = 0; k < n4; k += 4) {
        int8_t *w8 = scratch;
        for (int32_t r = 0; r < out.h; r++) {
            const int32_t ib = r * p->s_h - p->p_top;
            int32_t a0 = 0, a1 = p->k_h;
            while (a0 < a1 && ib + a0 * p->d_h < 0)
                a0++;
            while (a1 > a0 && ib + (a1 - 1) * p->d_h >= in.h)
                a1--;
            for (int32_t c = 0; c < out.w; c++, w8 += 4) {
                const int32_t jb = c * p->s_w - p->p_left;
                int32_t b0 = 0, b1 = kw;
                while (b0 < b1 && jb + b0 * p->d_w < 0)
                    b0++;
                while (b1 > b0 && jb + (b1 - 1) * p->d_w >= in.w)
                    b1--;
                uint32_t s0 = rk_bias0(bias, k), s1 = rk_bias0(bias, k + 1), s2 = rk_bias0(bias, k + 2),
                         s3 = rk_bias0(bias, k + 3);
                for (int32_t a = a0; a < a1; a++) {
                    const int8_t *x = tensor + ((ptrdiff_t)(ib + a * p->d_h) * in.w + jb + b0 * p->d_w) * ch + k;
                    const int8_t *w = filter + (ptrdiff_t)(a * kw + b0) * ch + k;
                    for (int32_t b = b0; b < b1; b++, x += xs, w += ch) {
                        s0 += (uint32_t)(((int32_t)x[0] + off) * w[0]);
                        s1 += (uint32_t)(((int32_t)x[1] + off) * w[1]);
                        s2 += (uint32_t)(((int32_t)x[2] + off) * w[2]);
                        s3 += (uint32_t)(((int32_t)x[3] + off) * w[3]);
                    }
                }
                w8[0] = rk_finish(s0, q->multiplier[k], q->shift[k], zo, act);
                w8[1] = rk_finish(s1, q->multiplier[k + 1], q->shift[k + 1], zo, act);
                w8[2] = rk_finish(s2, q->multiplier[k + 2], q->shift[k + 2], zo, act);
                w8[3] = rk_finish(s3, q->multiplier[k + 3], q->shift[k + 3], zo, act);
            }
        }
        const int8_t *src = scratch;
        int8_t *y = tensor + k;
        for (int32_t i = 0; i < n; i++, src += 4, y += ch) {
            y[0] = src[0];
            y[1] = src[1];
            y[2] = src[2];
            y[3] = src[3];
        }
    }
    return n4;
}
#endif

rk_status rk_depthwise_inplace(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                               const int8_t *filter, const int32_t *bias, int8_t *tensor, int8_t *scratch)
{
    if (check(p, q, in, out) != RK_OK || filter == NULL || tensor == NULL || scratch == NULL)
        return RK_ARG;
    const int32_t ch_n = in.c;
    const int32_t h_p = in.h + p->p_top + p->p_bottom, w_p = in.w + p->p_left + p->p_right;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    if (direct(p, in, out)) {
        rk_depthwise_run(p, q, in, tensor, filter, bias, out, tensor);
        return RK_OK;
    }
    int32_t ch0 = 0; /* channels [0, ch0) done four at a time */
#if RK_DSP
    if (quad_bytes(p, in, out) > 0)
        ch0 = rk_depthwise_quad_dsp(p, q, in, out, filter, bias, tensor, scratch);
#elif RK_THUMB1
    if (quad_bytes(p, in, out) > 0)
        ch0 = quad_thumb1(p, q, in, out, filter, bias, tensor, scratch);
#endif
    if (ch0 == ch_n)
        return RK_OK;
#if !RK_DSP /* on the M33 the plane loop below is at least as fast as the dual kernel (rk_depthwise_window_dsp.c) */
    if (ch0 == 0 && rows_delayed(p, q, in, out, filter, bias, tensor, scratch))
        return RK_OK;
#endif
    memset(scratch, zero_point, (size_t)h_p * (size_t)w_p); /* the border stays pad for every channel */
    for (int32_t ch = ch0; ch < ch_n; ch++) {
        for (int32_t i = 0; i < in.h; i++) {
            int8_t *row = scratch + ((ptrdiff_t)(i + p->p_top) * w_p + p->p_left);
            rk_gather_plane_row(row, tensor + (ptrdiff_t)i * in.w * ch_n + ch, in.w, ch_n);
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
