/*
** rk_conv2d.c — int8 2D convolution, dual buffer (rk_conv2d.h).
**
** Per output pixel the receptive field is gathered into scratch (pad taps
** as the input zero point, so that (x + input_offset) is 0 there), then
** every output channel is a dot product with its OHWI filter row.  Register
** blocking: where the next pixel of the row has all its columns on the
** input (and d_w = 1), the two pixels are computed together, two pixels x
** four channels per inner loop: the first from scratch, the second read
** where it lies (its tap rows are contiguous runs of the input; a tap row
** off the input is the first pixel's zero-point row in scratch, the two
** share their rows).  Where the scratch holds two fields (depth <= 4 c_out)
** both pixels are gathered instead and run as one contiguous product.  1x1
** layers without padding need no gather at all (rk_pointwise_run, any
** stride).
*/
#include "rk_conv2d.h"
#include "rk_dsp.h"
#include "rk_internal.h"
#include "rk_pointwise.h"

/* Below this many bytes per tap row the per-row loops of a pixel pair cost
** more than the second pixel saves: such layers run one pixel at a time. */
#define RK_PAIR_MIN_ROW 48

size_t rk_conv2d_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (rk_conv_check(p, NULL, in, out) != RK_OK)
        return 0;
    return rk_gather_scratch_size(out.c, (int64_t)p->k_h * p->k_w * in.c);
}

static int8_t finish_at(const rk_conv_params *p, const rk_quant *q, uint32_t acc, int32_t oc)
{
    return rk_finish(acc, q->multiplier[oc], q->shift[oc], p->output_offset, p->act);
}

/* The receptive field of pixel (r, c) into col, pad taps at the zero point. */
static void gather(const rk_conv_params *p, rk_dims in, const int8_t *input, int32_t r, int32_t c, int8_t *col)
{
    const int32_t cin = in.c;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    int8_t *dst = col;
#if RK_DSP
    /* a tap row whose k_w columns all lie on the input is one contiguous
    ** run when d_w = 1: one copy (a few words) instead of k_w (a 3 x 3 x 3
    ** stem copies 9 bytes a row, not three times 3) */
    const int32_t j0 = c * p->s_w - p->p_left, run = p->k_w * cin;
    const bool whole = p->d_w == 1 && j0 >= 0 && j0 + p->k_w <= in.w;
#endif
    for (int32_t a = 0; a < p->k_h; a++) {
        const int32_t i = r * p->s_h + a * p->d_h - p->p_top;
#if RK_DSP
        if (whole && i >= 0 && i < in.h) {
            rk_dsp_copy(dst, input + ((ptrdiff_t)i * in.w + j0) * cin, run);
            dst += run;
            continue;
        }
#endif
        for (int32_t b = 0; b < p->k_w; b++, dst += cin) {
            const int32_t j = c * p->s_w + b * p->d_w - p->p_left;
            if (i >= 0 && i < in.h && j >= 0 && j < in.w)
#if RK_DSP
                rk_dsp_copy(dst, input + ((ptrdiff_t)i * in.w + j) * cin, cin); /* rk_dsp.h */
#else
                memcpy(dst, input + ((ptrdiff_t)i * in.w + j) * cin, (size_t)cin);
#endif
            else
                memset(dst, zero_point, (size_t)cin);
        }
    }
}

/* Pixel (r, c), gathered in col, and pixel (r, c + 1), read from the
** input (all its columns on the input, d_w = 1), into y and y1. */
static void pixel_pair(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *col, const int8_t *filter, const int32_t *bias, int32_t cout, int32_t r,
                       int32_t c, int8_t *y, int8_t *y1)
{
    const int32_t cin = in.c, run = p->k_w * cin, depth = p->k_h * run, off = p->input_offset;
    const int8_t *x1 = input + ((ptrdiff_t)((c + 1) * p->s_w - p->p_left)) * cin;
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[8];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = acc[4 + k] = rk_bias0(bias, oc + k);
        const int8_t *w = filter + (ptrdiff_t)oc * depth;
        for (int32_t a = 0; a < p->k_h; a++) {
            const int32_t i = r * p->s_h + a * p->d_h - p->p_top;
            const int8_t *x0r = col + (ptrdiff_t)a * run;
            const int8_t *x1r = i >= 0 && i < in.h ? x1 + (ptrdiff_t)i * in.w * cin : x0r;
            rk_dot2x4_off_acc(x0r, x1r, w + (ptrdiff_t)a * run, depth, run, off, acc);
        }
        for (int32_t k = 0; k < 4; k++) {
            y[oc + k] = finish_at(p, q, acc[k], oc + k);
            y1[oc + k] = finish_at(p, q, acc[4 + k], oc + k);
        }
    }
    for (; oc < cout; oc++) {
        const int8_t *w = filter + (ptrdiff_t)oc * depth;
        uint32_t a1 = rk_bias0(bias, oc);
        for (int32_t a = 0; a < p->k_h; a++) {
            const int32_t i = r * p->s_h + a * p->d_h - p->p_top;
            const int8_t *x1r = i >= 0 && i < in.h ? x1 + (ptrdiff_t)i * in.w * cin : col + (ptrdiff_t)a * run;
            a1 += rk_dot_off(x1r, w + (ptrdiff_t)a * run, run, off);
        }
        y[oc] = finish_at(p, q, rk_bias0(bias, oc) + rk_dot_off(col, w, depth, off), oc);
        y1[oc] = finish_at(p, q, a1, oc);
    }
}

#if RK_WIDE_MAX > 0 && !RK_DSP
/* The receptive field of pixel (r, c) widened (rk_widen) into col: pad taps
** are 0 there (the zero point plus the offset).  A tap row whose k_w
** columns all lie on the input is one contiguous run when d_w = 1. */
static void gather16(const rk_conv_params *p, rk_dims in, const int8_t *input, int32_t r, int32_t c, int16_t *col)
{
    const int32_t cin = in.c, run = p->k_w * cin, off = p->input_offset;
    const int32_t j0 = c * p->s_w - p->p_left;
    const bool whole = p->d_w == 1 && j0 >= 0 && j0 + p->k_w <= in.w;
    int16_t *dst = col;
    for (int32_t a = 0; a < p->k_h; a++) {
        const int32_t i = r * p->s_h + a * p->d_h - p->p_top;
        if (i < 0 || i >= in.h) {
            memset(dst, 0, (size_t)run * sizeof *dst);
            dst += run;
        } else if (whole) {
            rk_widen(input + ((ptrdiff_t)i * in.w + j0) * cin, run, off, dst);
            dst += run;
        } else {
            for (int32_t b = 0; b < p->k_w; b++, dst += cin) {
                const int32_t j = j0 + b * p->d_w;
                if (j >= 0 && j < in.w)
                    rk_widen(input + ((ptrdiff_t)i * in.w + j) * cin, cin, off, dst);
                else
                    memset(dst, 0, (size_t)cin * sizeof *dst);
            }
        }
    }
}

/* rk_conv2d_run for a field of at most RK_WIDE_MAX scalars (host): two
** pixels of a row gathered widened, both before either is written (so
** the in-place caller's hold is not needed: no write precedes a read of
** the pair), then two pixels x four channels; a row's odd last pixel
** alone.  Needs no scratch. */
static void conv2d_wide(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    const int32_t cout = out.c, depth = p->k_h * p->k_w * in.c;
    int16_t a[RK_WIDE_MAX], b[RK_WIDE_MAX];
    rk_wide_pad(a, depth);   /* the gathers write [0, depth) only */
    rk_wide_pad(b, depth);
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++) {
        int32_t c = 0;
        for (; c + 2 <= out.w; c += 2, y += 2 * (ptrdiff_t)cout) {
            gather16(p, in, input, r, c, a);
            gather16(p, in, input, r, c + 1, b);
            rk_pair16_channels(p, q, a, b, filter, bias, depth, cout, y, y + cout);
        }
        if (c < out.w) {
            gather16(p, in, input, r, c, a);
            rk_one16_channels(p, q, a, filter, bias, depth, cout, y);
            y += cout;
        }
    }
}
#endif

void rk_conv2d_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                   const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch,
                   bool hold)
{
    const int32_t cin = in.c, cout = out.c, depth = p->k_h * p->k_w * cin;
#if RK_WIDE_MAX > 0 && !RK_DSP /* the DSP path (and its host emulation) has its own pairs */
    if (depth <= RK_WIDE_MAX) {
        conv2d_wide(p, q, in, input, filter, bias, out, output);
        return;
    }
#endif
    uint32_t *pre = rk_gather_pre(scratch);
    int8_t *col = (int8_t *)(pre + cout);
    /* the scratch keeps its size of one field + cout int32 (which the
    ** 16-bit offset form no longer needs): a second field fits in front
    ** when depth <= 4 cout; else those 4 cout bytes hold a pair's second
    ** pixel when hold asks for it */
    int8_t *col1 = RK_PIXEL_PAIRS && depth <= 4 * (int64_t)cout ? (int8_t *)pre : NULL;
    const bool pairs = RK_PIXEL_PAIRS && p->d_w == 1 && p->k_w * cin >= RK_PAIR_MIN_ROW;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w;) {
            gather(p, in, input, r, c, col);
            const int32_t j1 = (c + 1) * p->s_w - p->p_left;
#if RK_DSP
            /* the DSP path's pairs need the two fields back to back: the
            ** second pixel gathered just below col (inside the 4 c_out
            ** bytes of pre when depth <= 4 c_out), both before either is
            ** written; so the pair's first field is pixel c + 1's */
            if (depth <= 4 * (int64_t)cout && c + 1 < out.w) {
                gather(p, in, input, r, c + 1, col - depth);
                rk_pair_channels_dsp(p, q, col - depth, col, filter, bias, depth, cout, y + cout, y);
                y += 2 * (ptrdiff_t)cout;
                c += 2;
                continue;
            }
#endif
            if (col1 != NULL && c + 1 < out.w) {
                gather(p, in, input, r, c + 1, col1);
                rk_pair_channels(p, q, col, col1, filter, bias, depth, cout, y, y + cout);
                y += 2 * (ptrdiff_t)cout;
                c += 2;
            } else if (pairs && c + 1 < out.w && j1 >= 0 && j1 + p->k_w <= in.w) {
                pixel_pair(p, q, in, input, col, filter, bias, cout, r, c, y, hold ? (int8_t *)pre : y + cout);
                if (hold)
                    memcpy(y + cout, pre, (size_t)cout);
                y += 2 * (ptrdiff_t)cout;
                c += 2;
            } else {
                rk_one_channels(p, q, col, filter, bias, depth, cout, y);
                y += cout;
                c += 1;
            }
        }
}

rk_status rk_conv2d(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                    const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || input == NULL || filter == NULL || output == NULL ||
        scratch == NULL)
        return RK_ARG;
    if (p->k_h == 1 && p->k_w == 1 && p->p_top == 0 && p->p_bottom == 0 && p->p_left == 0 && p->p_right == 0) {
        rk_pointwise_run(p, q, in, input, filter, bias, out, output);
        return RK_OK;
    }
    rk_conv2d_run(p, q, in, input, filter, bias, out, output, scratch, false);
    return RK_OK;
}
