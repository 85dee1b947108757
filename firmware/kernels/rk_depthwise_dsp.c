/*
** rk_depthwise_dsp.c — the DSP path (rk_dsp.h) of the depthwise
** convolutions: rk_depthwise's loop at depth multiplier 1 (four channels
** a word, SMLABB/SMLATT per channel), and the per-channel plane loop of
** rk_depthwise_inplace (two output pixels at a time, the input offset
** folded into the accumulator's start).  Compiled to nothing where RK_DSP
** is 0.  Both are equal byte for byte to the plain loops: the same
** products, summed modulo 2^32, the same requantization.
*/
#include "rk_dsp.h"

#if RK_DSP
#include "rk_internal.h"

/* [*lo, *hi): the taps t of an axis whose input index o + t d lies in
** [0, n), o = the output's first tap index (may be negative). */
static void tap_span(int32_t o, int32_t d, int32_t k, int32_t n, int32_t *lo, int32_t *hi)
{
    int32_t l = 0, h = k;
    while (l < k && o + l * d < 0)
        l++;
    while (h > l && o + (h - 1) * d >= n)
        h--;
    *lo = l;
    *hi = h;
}

/*
** rk_depthwise at multiplier 1 (out.c = in.c) on checked arguments: per
** output pixel the in-range taps once, then four channels at a time, one
** input and one filter word per tap; the last ch % 4 channels one by one.
*/
void rk_depthwise_dsp_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    const int32_t ch = out.c, off = p->input_offset;
    const uint32_t off2 = rk_dsp_off2(off);
    const ptrdiff_t xstep = (ptrdiff_t)p->d_w * ch, xrow = (ptrdiff_t)p->d_h * in.w * ch;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++) {
        int32_t a0, a1;
        tap_span(r * p->s_h - p->p_top, p->d_h, p->k_h, in.h, &a0, &a1);
        for (int32_t c = 0; c < out.w; c++, y += ch) {
            int32_t b0, b1;
            tap_span(c * p->s_w - p->p_left, p->d_w, p->k_w, in.w, &b0, &b1);
            if (a0 >= a1 || b0 >= b1) { /* no tap on the input: the bias alone */
                for (int32_t k = 0; k < ch; k++) {
                    const rk_dsp_rq rq = rk_dsp_rq_make(q->multiplier[k], q->shift[k], p->output_offset, p->act);
                    y[k] = rk_dsp_finish(rk_bias0(bias, k), &rq);
                }
                continue;
            }
            const int32_t i0 = r * p->s_h + a0 * p->d_h - p->p_top, j0 = c * p->s_w + b0 * p->d_w - p->p_left;
            const int8_t *x0 = input + ((ptrdiff_t)i0 * in.w + j0) * ch;
            const int8_t *f0 = filter + (ptrdiff_t)(a0 * p->k_w + b0) * ch;
            const ptrdiff_t frow = (ptrdiff_t)p->k_w * ch;
            int32_t k = 0;
            for (; k + 4 <= ch; k += 4) {
                uint32_t s0 = rk_bias0(bias, k), s1 = rk_bias0(bias, k + 1), s2 = rk_bias0(bias, k + 2),
                         s3 = rk_bias0(bias, k + 3);
                const int8_t *xr = x0 + k, *fr = f0 + k;
                for (int32_t a = a0; a < a1; a++, xr += xrow, fr += frow) {
                    const int8_t *xp = xr, *fp = fr;
                    for (int32_t b = b0; b < b1; b++, xp += xstep, fp += ch) {
                        const uint32_t xw = rk_load4(xp), fw = rk_load4(fp);
                        const uint32_t xa = rk_sxtab16(off2, xw), xb = rk_sxtab16_r8(off2, xw);
                        const uint32_t fa = rk_sxtb16(fw), fb = rk_sxtb16_r8(fw);
                        s0 = rk_smlabb(xa, fa, s0);
                        s2 = rk_smlatt(xa, fa, s2);
                        s1 = rk_smlabb(xb, fb, s1);
                        s3 = rk_smlatt(xb, fb, s3);
                    }
                }
                const uint32_t s[4] = {s0, s1, s2, s3};
                for (int32_t t = 0; t < 4; t++) {
                    const rk_dsp_rq rq =
                        rk_dsp_rq_make(q->multiplier[k + t], q->shift[k + t], p->output_offset, p->act);
                    y[k + t] = rk_dsp_finish(s[t], &rq);
                }
            }
            for (; k < ch; k++) {
                uint32_t s = rk_bias0(bias, k);
                const int8_t *xr = x0 + k, *fr = f0 + k;
                for (int32_t a = a0; a < a1; a++, xr += xrow, fr += frow)
                    for (int32_t b = 0; b < b1 - b0; b++)
                        s += (uint32_t)(((int32_t)xr[b * xstep] + off) * fr[(ptrdiff_t)b * ch]);
                const rk_dsp_rq rq = rk_dsp_rq_make(q->multiplier[k], q->shift[k], p->output_offset, p->act);
                y[k] = rk_dsp_finish(s, &rq);
            }
        }
    }
}

/*
** Output plane of channel ch of rk_depthwise_inplace: plane (h_p x w_p,
** pads stored at the zero point) holds the channel's input; the output
** pixels go to tensor[(r out.w + c) ch_n + ch].  Every tap is in the
** plane, so sum (x + off) w = sum x w + off sum w (mod 2^32): the start of
** every sum is bias + off * (the sum of the channel's taps), and a tap is
** one multiply-add.  Two pixels of a row at a time.  k_h k_w <= RK_DW_TAPS.
*/
void rk_depthwise_plane_dsp(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                            const int32_t *bias, int32_t ch_n, int32_t ch, const int8_t *plane, int32_t w_p,
                            int8_t *tensor)
{
    const int32_t taps = p->k_h * p->k_w;
    int32_t wt[RK_DW_TAPS];
    uint32_t wsum = 0;
    for (int32_t t = 0; t < taps; t++) {
        wt[t] = filter[(ptrdiff_t)t * ch_n + ch];
        wsum += (uint32_t)wt[t];
    }
    const uint32_t start = rk_bias0(bias, ch) + wsum * (uint32_t)p->input_offset;
    const rk_dsp_rq rq = rk_dsp_rq_make(q->multiplier[ch], q->shift[ch], p->output_offset, p->act);
    const int32_t dw = p->d_w, sw = p->s_w, kw = p->k_w;
    for (int32_t r = 0; r < out.h; r++) {
        const int8_t *row0 = plane + (ptrdiff_t)r * p->s_h * w_p;
        int8_t *y = tensor + (ptrdiff_t)r * out.w * ch_n + ch;
        int32_t c = 0;
        for (; c + 2 <= out.w; c += 2, y += 2 * (ptrdiff_t)ch_n) {
            uint32_t s0 = start, s1 = start;
            const int32_t *w = wt;
            for (int32_t a = 0; a < p->k_h; a++, w += kw) {
                const int8_t *x = row0 + (ptrdiff_t)a * p->d_h * w_p + (ptrdiff_t)c * sw;
                for (int32_t b = 0; b < kw; b++, x += dw) {
                    s0 += (uint32_t)((int32_t)x[0] * w[b]);
                    s1 += (uint32_t)((int32_t)x[sw] * w[b]);
                }
            }
            y[0] = rk_dsp_finish(s0, &rq);
            y[ch_n] = rk_dsp_finish(s1, &rq);
        }
        for (; c < out.w; c++, y += ch_n) {
            uint32_t s0 = start;
            const int32_t *w = wt;
            for (int32_t a = 0; a < p->k_h; a++, w += kw) {
                const int8_t *x = row0 + (ptrdiff_t)a * p->d_h * w_p + (ptrdiff_t)c * sw;
                for (int32_t b = 0; b < kw; b++, x += dw)
                    s0 += (uint32_t)((int32_t)x[0] * w[b]);
            }
            y[0] = rk_dsp_finish(s0, &rq);
        }
    }
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int rk_depthwise_dsp_empty;
#endif
