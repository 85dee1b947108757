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
** rk_depthwise on checked arguments, any multiplier m = out.c / in.c: per
** output pixel the in-range taps once (no test per tap), then at m = 1
** four channels at a time, one input and one filter word per tap; the
** other channels (the last ch % 4, or all at m > 1: output channel k reads
** input channel k / m) one by one.
*/
void rk_depthwise_dsp_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    const int32_t ch = out.c, cin = in.c, m = ch / cin, off = p->input_offset;
    const uint32_t off2 = rk_dsp_off2(off);
    const ptrdiff_t xstep = (ptrdiff_t)p->d_w * cin, xrow = (ptrdiff_t)p->d_h * in.w * cin;
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
            const int8_t *x0 = input + ((ptrdiff_t)i0 * in.w + j0) * cin;
            const int8_t *f0 = filter + (ptrdiff_t)(a0 * p->k_w + b0) * ch;
            const ptrdiff_t frow = (ptrdiff_t)p->k_w * ch;
            int32_t k = 0;
            for (; m == 1 && k + 4 <= ch; k += 4) {
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
                const int8_t *xr = x0 + (m == 1 ? k : k / m), *fr = f0 + k;
                for (int32_t a = a0; a < a1; a++, xr += xrow, fr += frow)
                    for (int32_t b = 0; b < b1 - b0; b++)
                        s += (uint32_t)(((int32_t)xr[b * xstep] + off) * fr[(ptrdiff_t)b * ch]);
                const rk_dsp_rq rq = rk_dsp_rq_make(q->multiplier[k], q->shift[k], p->output_offset, p->act);
                y[k] = rk_dsp_finish(s, &rq);
            }
        }
    }
}

/* One output pixel of a plane (sum x w over the taps, from start). */
static uint32_t plane_pixel(const rk_conv_params *p, const int32_t *wt, uint32_t start, const int8_t *x,
                            int32_t w_p)
{
    uint32_t s = start;
    for (int32_t a = 0; a < p->k_h; a++, wt += p->k_w) {
        const int8_t *xr = x + (ptrdiff_t)a * p->d_h * w_p;
        for (int32_t b = 0; b < p->k_w; b++)
            s += (uint32_t)((int32_t)xr[(ptrdiff_t)b * p->d_w] * wt[b]);
    }
    return s;
}

/*
** Two neighbouring output pixels (c, c + 1) of a plane at stride sw (1 or
** 2) and column dilation 1, k_w = kw odd (3, 5, 7; constants where
** inlined): per tap row one word x[2j .. 2j + 3] per pair of taps (2j,
** 2j + 1) serves both pixels.  With A = (x0, x2), B = (x1, x3) the first
** pixel's pair is (x0, x1) = (A.lo, B.lo); the second's is (x1, x2) =
** (B.lo, A.hi) at stride 1, (x2, x3) = (A.hi, B.hi) at stride 2; both
** against the packed weight pair, one SMLAD each.  The last tap (kw - 1)
** is A.hi of the row's last word for the first pixel, and B.hi (stride 1)
** or one more byte x[kw + 1] (stride 2) for the second.  The highest byte
** read is the second pixel's last tap.  wp: the taps' pairs (kw / 2 per
** row), wl: each row's last tap.
*/
static inline void plane_pair_odd(int32_t kw, int32_t sw, int32_t k_h, ptrdiff_t row_step, const uint32_t *wp,
                                  const uint32_t *wl, const int8_t *x, uint32_t *s0, uint32_t *s1)
{
    const int32_t np = kw / 2;
    uint32_t a0 = *s0, a1 = *s1;
#pragma GCC unroll 7
    for (int32_t a = 0; a < k_h; a++, x += row_step, wp += np) {
        uint32_t A = 0, B = 0;
#pragma GCC unroll 3
        for (int32_t j = 0; j < np; j++) {
            const uint32_t v = rk_load4(x + 2 * j);
            A = rk_sxtb16(v);
            B = rk_sxtb16_r8(v);
            const uint32_t first = (A & 0xffffu) | (B << 16);
            const uint32_t second = sw == 1 ? (B & 0xffffu) | (A & 0xffff0000u) : (A >> 16) | (B & 0xffff0000u);
            a0 = rk_smlad(first, wp[j], a0);
            a1 = rk_smlad(second, wp[j], a1);
        }
        a0 = rk_smlatb(A, wl[a], a0);
        if (sw == 1)
            a1 = rk_smlatb(B, wl[a], a1);
        else
            a1 += (uint32_t)((int32_t)x[kw + 1] * (int32_t)(int16_t)wl[a]);
    }
    *s0 = a0;
    *s1 = a1;
}

/*
** Output plane of channel ch of rk_depthwise_inplace: plane (h_p x w_p,
** pads stored at the zero point) holds the channel's input; the output
** pixels go to tensor[(r out.w + c) ch_n + ch].  Every tap is in the
** plane, so sum (x + off) w = sum x w + off sum w (mod 2^32): the start of
** every sum is bias + off * (the sum of the channel's taps), and a tap is
** one product.  Pixels in pairs: by packed tap pairs (plane_pair_odd) at
** stride 1 or 2, d_w = 1, k_w 3, 5 or 7 (k_h <= 7), else tap by tap.
** k_h k_w <= RK_DW_TAPS.
*/
void rk_depthwise_plane_dsp(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                            const int32_t *bias, int32_t ch_n, int32_t ch, const int8_t *plane, int32_t w_p,
                            int8_t *tensor)
{
    const int32_t taps = p->k_h * p->k_w, kw = p->k_w;
    int32_t wt[RK_DW_TAPS];
    uint32_t wsum = 0;
    for (int32_t t = 0; t < taps; t++) {
        wt[t] = filter[(ptrdiff_t)t * ch_n + ch];
        wsum += (uint32_t)wt[t];
    }
    const uint32_t start = rk_bias0(bias, ch) + wsum * (uint32_t)p->input_offset;
    const rk_dsp_rq rq = rk_dsp_rq_make(q->multiplier[ch], q->shift[ch], p->output_offset, p->act);
    const bool pairs = (p->s_w == 1 || p->s_w == 2) && p->d_w == 1 && (kw == 3 || kw == 5 || kw == 7) && p->k_h <= 7;
    uint32_t wp[21], wl[7];
    if (pairs)
        for (int32_t a = 0; a < p->k_h; a++) {
            for (int32_t j = 0; j < kw / 2; j++)
                wp[a * (kw / 2) + j] = ((uint32_t)wt[a * kw + 2 * j] & 0xffffu) | ((uint32_t)wt[a * kw + 2 * j + 1] << 16);
            wl[a] = (uint32_t)wt[a * kw + kw - 1] & 0xffffu;
        }
    const ptrdiff_t row_step = (ptrdiff_t)p->d_h * w_p;
    for (int32_t r = 0; r < out.h; r++) {
        const int8_t *row0 = plane + (ptrdiff_t)r * p->s_h * w_p;
        int8_t *y = tensor + (ptrdiff_t)r * out.w * ch_n + ch;
        int32_t c = 0;
        if (pairs)
            for (; c + 2 <= out.w; c += 2, y += 2 * (ptrdiff_t)ch_n) {
                uint32_t s0 = start, s1 = start;
                const int8_t *x = row0 + (ptrdiff_t)c * p->s_w;
                if (p->s_w == 1 && p->k_h == kw) { /* square kernels: every loop unrolled */
                    if (kw == 3)
                        plane_pair_odd(3, 1, 3, row_step, wp, wl, x, &s0, &s1);
                    else if (kw == 5)
                        plane_pair_odd(5, 1, 5, row_step, wp, wl, x, &s0, &s1);
                    else
                        plane_pair_odd(7, 1, 7, row_step, wp, wl, x, &s0, &s1);
                } else if (p->s_w == 2 && p->k_h == kw) {
                    if (kw == 3)
                        plane_pair_odd(3, 2, 3, row_step, wp, wl, x, &s0, &s1);
                    else if (kw == 5)
                        plane_pair_odd(5, 2, 5, row_step, wp, wl, x, &s0, &s1);
                    else
                        plane_pair_odd(7, 2, 7, row_step, wp, wl, x, &s0, &s1);
                } else if (p->s_w == 1) {
                    if (kw == 3)
                        plane_pair_odd(3, 1, p->k_h, row_step, wp, wl, x, &s0, &s1);
                    else if (kw == 5)
                        plane_pair_odd(5, 1, p->k_h, row_step, wp, wl, x, &s0, &s1);
                    else
                        plane_pair_odd(7, 1, p->k_h, row_step, wp, wl, x, &s0, &s1);
                } else {
                    if (kw == 3)
                        plane_pair_odd(3, 2, p->k_h, row_step, wp, wl, x, &s0, &s1);
                    else if (kw == 5)
                        plane_pair_odd(5, 2, p->k_h, row_step, wp, wl, x, &s0, &s1);
                    else
                        plane_pair_odd(7, 2, p->k_h, row_step, wp, wl, x, &s0, &s1);
                }
                y[0] = rk_dsp_finish(s0, &rq);
                y[ch_n] = rk_dsp_finish(s1, &rq);
            }
        else /* any other geometry: two pixels a step, one product per tap and pixel */
            for (; c + 2 <= out.w; c += 2, y += 2 * (ptrdiff_t)ch_n) {
                uint32_t s0 = start, s1 = start;
                const int32_t *w = wt;
                const int32_t dw = p->d_w, sw = p->s_w;
                for (int32_t a = 0; a < p->k_h; a++, w += kw) {
                    const int8_t *x = row0 + (ptrdiff_t)a * row_step + (ptrdiff_t)c * sw;
                    for (int32_t b = 0; b < kw; b++, x += dw) {
                        s0 += (uint32_t)((int32_t)x[0] * w[b]);
                        s1 += (uint32_t)((int32_t)x[sw] * w[b]);
                    }
                }
                y[0] = rk_dsp_finish(s0, &rq);
                y[ch_n] = rk_dsp_finish(s1, &rq);
            }
        for (; c < out.w; c++, y += ch_n)
            y[0] = rk_dsp_finish(plane_pixel(p, wt, start, row0 + (ptrdiff_t)c * p->s_w, w_p), &rq);
    }
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int rk_depthwise_dsp_empty;
#endif
