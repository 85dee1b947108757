/*
** rk_depthwise_dsp.c — the DSP path (rk_dsp.h) of the depthwise
** convolutions.  rk_depthwise: at multiplier 1 (and at multipliers that
** are multiples of 4, one input byte for four outputs) the output channels
** in groups of four, each group over every output pixel with its filter
** halves extended once onto the stack and its requantization constants
** made once, the 3 x 3 and 5 x 5 taps unrolled, the four outputs clamped
** and stored two channels a word; the other channels one by one.  A 3 x 3
** filter at multiplier 1 on enough channels takes dw_3x3 instead: each
** output pixel's taps found once (a descriptor), then every group over
** the pixels by their descriptors, border pixels as cheap as interior
** ones (the models' last blocks have 3 x 3 inputs).  The per-channel
** plane loop of rk_depthwise_inplace (two output pixels at a
** time, the input offset folded into the accumulator's start).  Compiled
** to nothing where RK_DSP is 0.  Both are equal byte for byte to the plain
** loops: the same products, summed modulo 2^32, the same requantization.
*/
#include "rk_dsp.h"

#if RK_DSP
#include "rk_depthwise_inplace.h"
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

/* Four channels' sums of one output pixel. */
typedef struct dw_acc4 {
    uint32_t s0, s1, s2, s3;
} dw_acc4;

/*
** One tap of four neighbouring channels at multiplier 1: xw holds the four
** input bytes, fa/fb the filter's (w0, w2) and (w1, w3) halves.  The input
** offset enters through SXTAB16 (x + offset fits a 16-bit half).
*/
static inline void dw_tap_word(uint32_t xw, uint32_t fa, uint32_t fb, uint32_t off2, dw_acc4 *s)
{
    const uint32_t xa = rk_sxtab16(off2, xw), xb = rk_sxtab16_r8(off2, xw);
    s->s0 = rk_smlabb(xa, fa, s->s0);
    s->s2 = rk_smlatt(xa, fa, s->s2);
    s->s1 = rk_smlabb(xb, fb, s->s1);
    s->s3 = rk_smlatt(xb, fb, s->s3);
}

/*
** One tap of four output channels of one input channel (multiplier a
** multiple of 4): xv = x + offset in the bottom half, times each filter
** half (SMLABB for w0, w1; SMLATB for w2, w3).
*/
static inline void dw_tap_byte(uint32_t xv, uint32_t fa, uint32_t fb, dw_acc4 *s)
{
    s->s0 = rk_smlabb(fa, xv, s->s0);
    s->s2 = rk_smlatb(fa, xv, s->s2);
    s->s1 = rk_smlabb(fb, xv, s->s1);
    s->s3 = rk_smlatb(fb, xv, s->s3);
}

/*
** n taps of one filter row for four channels, input at x (taps xs bytes
** apart): byte-broadcast (bcast, one input byte for the four channels) or
** one word of four channels.  Filter halves from fx (pre-extended, two
** words a tap) when fx is not NULL, else from the raw filter fr (taps fs
** bytes apart), extended here.  Inlined with constant n, bcast and pre,
** the loop unrolls and the tests fold.
*/
static inline __attribute__((always_inline)) void dw_row4(int32_t n, bool bcast, bool pre, const int8_t *x,
                                                          ptrdiff_t xs, const uint32_t *fx, const int8_t *fr,
                                                          ptrdiff_t fs, uint32_t off2, int32_t off, dw_acc4 *s)
{
#pragma GCC unroll 7
    for (int32_t b = 0; b < n; b++) {
        uint32_t fa, fb;
        if (pre) {
            fa = fx[2 * b];
            fb = fx[2 * b + 1];
        } else {
            const uint32_t fw = rk_load4(fr + (ptrdiff_t)b * fs);
            fa = rk_sxtb16(fw);
            fb = rk_sxtb16_r8(fw);
        }
        if (bcast)
            dw_tap_byte((uint32_t)((int32_t)x[(ptrdiff_t)b * xs] + off), fa, fb, s);
        else
            dw_tap_word(rk_load4(x + (ptrdiff_t)b * xs), fa, fb, off2, s);
    }
}

/* Nothing, on the core: hides *x's value from GCC, which would otherwise
** keep every tap's offset from the pixel (a row step times a plus a column
** step times b) as a loop invariant, more than there are registers: the
** unrolled rows step one pointer instead. */
static inline void dw_opaque(const int8_t **x)
{
#if RK_DSP_ASM
    __asm__("" : "+r"(*x));
#else
    (void)x;
#endif
}

/* The taps of pixel rows [a0, a1) and columns [b0, b0 + n): dw_row4 per
** row; nr > 0 (a constant): a1 - a0 = nr, the rows unrolled. */
static inline __attribute__((always_inline)) void dw_pixel4(int32_t n, int32_t nr, bool bcast, bool pre, int32_t a0,
                                                            int32_t a1, const int8_t *x, ptrdiff_t xs,
                                                            ptrdiff_t xrow, const uint32_t *fx, const int8_t *fr,
                                                            ptrdiff_t fs, ptrdiff_t frow, uint32_t off2, int32_t off,
                                                            dw_acc4 *s)
{
    if (nr > 0) {
#pragma GCC unroll 7
        for (int32_t a = 0; a < nr; a++, x += xrow) {
            dw_row4(n, bcast, pre, x, xs, fx + (pre ? a * frow : 0), fr + (pre ? 0 : a * frow), fs, off2, off, s);
            dw_opaque(&x);
        }
        return;
    }
    for (int32_t a = a0; a < a1; a++, x += xrow) {
        dw_row4(n, bcast, pre, x, xs, fx, fr, fs, off2, off, s);
        if (pre)
            fx += frow;
        else
            fr += frow;
    }
}

/* One channel's requantization constants (rk_dsp_rq without the clamp and
** output offset, which the four channels share). */
typedef struct dw_rq {
    int32_t mult, left, right, mask, half;
} dw_rq;

static inline dw_rq dw_rq_make(int32_t multiplier, int32_t shift)
{
    const rk_dsp_rq r = rk_dsp_rq_make(multiplier, shift, 0, (rk_act){0, 0});
    dw_rq d;
    d.mult = r.mult;
    d.left = r.left;
    d.right = r.right;
    d.mask = (int32_t)((1u << r.right) - 1u);
    d.half = d.mask >> 1;
    return d;
}

/*
** rk_dsp_finish up to its clamp, for a multiplier other than INT32_MIN
** (the caller tests it once per group): the same floor((a m + 2^30) /
** 2^31) and gemmlowp's rounding division, with the mask and its half made
** once per channel.
*/
static inline int32_t dw_round(uint32_t acc, const dw_rq *r)
{
    const int32_t shifted = (int32_t)(acc << r->left);
    const int32_t h = (int32_t)(((int64_t)shifted * r->mult + ((int64_t)1 << 30)) >> 31);
    const int32_t threshold = r->half + (int32_t)((uint32_t)h >> 31);
    return (h >> r->right) + ((h & r->mask) > threshold ? 1 : 0);
}

/* The four sums requantized into y[0 .. 3]: dw_round, or rk_dsp_finish
** where a multiplier of the group (channels k .. k + 3) is INT32_MIN. */
static inline __attribute__((always_inline)) void dw_store4(int8_t *y, const dw_acc4 *s, bool min_mult,
                                                            const dw_rq *r0, const dw_rq *r1, const dw_rq *r2,
                                                            const dw_rq *r3, const rk_quant *q, int32_t k,
                                                            const rk_conv_params *p)
{
    if (__builtin_expect(min_mult, 0)) {
        const uint32_t v[4] = {s->s0, s->s1, s->s2, s->s3};
        for (int32_t t = 0; t < 4; t++) {
            const rk_dsp_rq rq = rk_dsp_rq_make(q->multiplier[k + t], q->shift[k + t], p->output_offset, p->act);
            y[t] = rk_dsp_finish(v[t], &rq);
        }
        return;
    }
    /* clamp(v, act.min - zo, act.max - zo) + zo = clamp(v + zo, act.min,
    ** act.max), and saturating v and v + zo to 16 bits first changes
    ** nothing (the bounds lie in [-128, 127]): two channels a word. */
    uint32_t e = rk_dsp_sat16x2(dw_round(s->s0, r0), dw_round(s->s2, r2));
    uint32_t o = rk_dsp_sat16x2(dw_round(s->s1, r1), dw_round(s->s3, r3));
    const uint32_t zo2 = rk_dsp_off2(p->output_offset), lo2 = rk_dsp_off2(p->act.min),
                   hi2 = rk_dsp_off2(p->act.max);
    e = rk_min16(rk_max16(rk_qadd16(e, zo2), lo2), hi2);
    o = rk_min16(rk_max16(rk_qadd16(o, zo2), lo2), hi2);
    const uint32_t w = (e & 0x00ff00ffu) | ((o & 0x00ff00ffu) << 8); /* bytes y0, y1, y2, y3 */
    memcpy(y, &w, sizeof w);
}

/* Filter taps at most this many are pre-extended on the stack (two words
** a tap: 200 bytes at 5 x 5, the firmware's stack is 2 KiB). */
#define DW_FX_TAPS 25

/*
** Channels [0, n4) of rk_depthwise, n4 a multiple of 4, in groups of four
** channels, the group outermost: its filter halves extended once (into fx
** when k_h k_w <= DW_FX_TAPS), its requantization constants made once;
** then every output pixel, with the taps on the input found per row and,
** outside the columns every tap covers, per pixel.  bcast: multiplier m a
** multiple of 4, the group's four outputs read the one input channel k / m
** (a byte per tap); else m = 1, a word of four input channels per tap.
** kw_c: k_w when it is 3 or 5 (rows unrolled where every column tap is
** on the input), else 0.  pre: k_h k_w <= DW_FX_TAPS, fx room for
** 2 DW_FX_TAPS words.  Inlined into dw_groups_run with every flag
** constant.
*/
static inline __attribute__((always_inline)) void dw_groups(const rk_conv_params *p, const rk_quant *q, rk_dims in,
                                                            const int8_t *input, const int8_t *filter,
                                                            const int32_t *bias, rk_dims out, int8_t *output,
                                                            int32_t n4, bool bcast, int32_t kw_c, bool pre,
                                                            uint32_t *fx)
{
    const int32_t ch = out.c, cin = in.c, m = ch / cin, off = p->input_offset, kw = p->k_w;
    const int32_t taps = p->k_h * kw;
    const uint32_t off2 = rk_dsp_off2(off);
    const ptrdiff_t xs = (ptrdiff_t)p->d_w * cin, xrow = (ptrdiff_t)p->d_h * in.w * cin;
    /* The output columns whose every column tap lies on the input. */
    int32_t c_lo = 0, c_hi = out.w;
    while (c_lo < out.w && c_lo * p->s_w - p->p_left < 0)
        c_lo++;
    while (c_hi > c_lo && (c_hi - 1) * p->s_w - p->p_left + (kw - 1) * p->d_w >= in.w)
        c_hi--;
    for (int32_t k = 0; k < n4; k += 4) {
        if (pre && kw_c == 3 && p->k_h == 3) { /* unrolled: once per group, a real share on small layers */
            const int8_t *fw = filter + k;
#pragma GCC unroll 9
            for (int32_t t = 0; t < 9; t++, fw += ch) {
                const uint32_t v = rk_load4(fw);
                fx[2 * t] = rk_sxtb16(v);
                fx[2 * t + 1] = rk_sxtb16_r8(v);
            }
        } else if (pre)
            for (int32_t t = 0; t < taps; t++) {
                const uint32_t fw = rk_load4(filter + (ptrdiff_t)t * ch + k);
                fx[2 * t] = rk_sxtb16(fw);
                fx[2 * t + 1] = rk_sxtb16_r8(fw);
            }
        const dw_rq rq0 = dw_rq_make(q->multiplier[k], q->shift[k]), rq1 = dw_rq_make(q->multiplier[k + 1], q->shift[k + 1]),
                    rq2 = dw_rq_make(q->multiplier[k + 2], q->shift[k + 2]),
                    rq3 = dw_rq_make(q->multiplier[k + 3], q->shift[k + 3]);
        const bool min_mult = q->multiplier[k] == INT32_MIN || q->multiplier[k + 1] == INT32_MIN ||
                              q->multiplier[k + 2] == INT32_MIN || q->multiplier[k + 3] == INT32_MIN;
        const uint32_t b0v = rk_bias0(bias, k), b1v = rk_bias0(bias, k + 1), b2v = rk_bias0(bias, k + 2),
                       b3v = rk_bias0(bias, k + 3);
        const int8_t *xk = input + (bcast ? k / m : k);
        const int8_t *fk = filter + k;
        int8_t *y = output + k;
        for (int32_t r = 0; r < out.h; r++) {
            int32_t a0, a1;
            const int32_t ib = r * p->s_h - p->p_top;
            if (p->d_h == 1) { /* the span in closed form */
                a0 = ib < 0 ? -ib : 0;
                a1 = in.h - ib < p->k_h ? in.h - ib : p->k_h;
                if (a1 < a0)
                    a1 = a0;
            } else
                tap_span(ib, p->d_h, p->k_h, in.h, &a0, &a1);
            const int32_t i0 = ib + a0 * p->d_h;
            const int8_t *xr = xk + (ptrdiff_t)i0 * in.w * cin;
            const uint32_t *fxr = fx + 2 * a0 * kw;
            const int8_t *fr = fk + (ptrdiff_t)a0 * kw * ch;
            const ptrdiff_t frow = pre ? 2 * kw : (ptrdiff_t)kw * ch;
            /* Columns [0, c_lo) and [c_hi, out.w): some taps off the input,
            ** found per pixel; [c_lo, c_hi): every column tap on it. */
            for (int32_t c = 0; c < out.w; c++, y += ch) {
                dw_acc4 s = {b0v, b1v, b2v, b3v};
                if (c == c_lo && c < c_hi) {
                    /* the interior run, then back to the loop at c_hi */
                    const int8_t *x = xr + (ptrdiff_t)(c * p->s_w - p->p_left) * cin;
                    const ptrdiff_t xc = (ptrdiff_t)p->s_w * cin;
                    const int32_t nr3 = kw_c == 3 && (a1 - a0 == 3 || a1 - a0 == 2) ? a1 - a0 : 0;
                    for (; c < c_hi; c++, y += ch, x += xc) {
                        s = (dw_acc4){b0v, b1v, b2v, b3v};
                        if (nr3 == 3 && a0 == 0) /* the filter at fixed offsets from the stack */
                            dw_pixel4(3, 3, bcast, pre, 0, 3, x, xs, xrow, fx, fk, ch, frow, off2, off, &s);
                        else if (nr3 == 3)
                            dw_pixel4(3, 3, bcast, pre, a0, a1, x, xs, xrow, fxr, fr, ch, frow, off2, off, &s);
                        else if (nr3 == 2)
                            dw_pixel4(3, 2, bcast, pre, a0, a1, x, xs, xrow, fxr, fr, ch, frow, off2, off, &s);
                        else if (kw_c == 3)
                            dw_pixel4(3, 0, bcast, pre, a0, a1, x, xs, xrow, fxr, fr, ch, frow, off2, off, &s);
                        else if (kw_c == 5)
                            dw_pixel4(5, 0, bcast, pre, a0, a1, x, xs, xrow, fxr, fr, ch, frow, off2, off, &s);
                        else
                            dw_pixel4(kw, 0, bcast, pre, a0, a1, x, xs, xrow, fxr, fr, ch, frow, off2, off, &s);
                        dw_store4(y, &s, min_mult, &rq0, &rq1, &rq2, &rq3, q, k, p);
                    }
                    if (c == out.w)
                        break;
                    s = (dw_acc4){b0v, b1v, b2v, b3v};
                }
                const int32_t jb = c * p->s_w - p->p_left;
                int32_t b0, b1;
                if (kw_c == 3 && p->d_w == 1) { /* the span in closed form */
                    b0 = jb < 0 ? -jb : 0;
                    b1 = in.w - jb < 3 ? in.w - jb : 3;
                } else
                    tap_span(jb, p->d_w, kw, in.w, &b0, &b1);
                const int8_t *x = xr + (ptrdiff_t)(jb + b0 * p->d_w) * cin;
                const uint32_t *fxb = fxr + 2 * b0;
                const int8_t *frb = fr + (ptrdiff_t)b0 * ch;
                if (kw_c == 3 && b1 - b0 == 2 && a1 - a0 == 2)
                    dw_pixel4(2, 2, bcast, pre, a0, a1, x, xs, xrow, fxb, frb, ch, frow, off2, off, &s);
                else if (kw_c == 3 && b1 - b0 == 2 && a1 - a0 == 3)
                    dw_pixel4(2, 3, bcast, pre, a0, a1, x, xs, xrow, fxb, frb, ch, frow, off2, off, &s);
                else if (kw_c == 3 && b1 - b0 == 2)
                    dw_pixel4(2, 0, bcast, pre, a0, a1, x, xs, xrow, fxb, frb, ch, frow, off2, off, &s);
                else if (b1 > b0)
                    dw_pixel4(b1 - b0, 0, bcast, pre, a0, a1, x, xs, xrow, fxr + 2 * b0, fr + (ptrdiff_t)b0 * ch, ch,
                              frow, off2, off, &s);
                dw_store4(y, &s, min_mult, &rq0, &rq1, &rq2, &rq3, q, k, p);
            }
        }
    }
}

/* dw_groups with its flags constant, one function a variant (each with
** its own frame, the pre-extended filter in it: the firmware's stack is
** 2 KiB): the kernels every model uses (3 x 3 and 5 x 5 at multiplier 1,
** 3 x 3 broadcast) unrolled, any other size by the loop. */
#define DW_VARIANT(name, bcast, kw_c, pre)                                                                          \
    __attribute__((noinline)) static void name(const rk_conv_params *p, const rk_quant *q, rk_dims in,             \
                                               const int8_t *input, const int8_t *filter, const int32_t *bias,     \
                                               rk_dims out, int8_t *output, int32_t n4)                            \
    {                                                                                                               \
        uint32_t fx[pre ? 2 * DW_FX_TAPS : 1];                                                                      \
        dw_groups(p, q, in, input, filter, bias, out, output, n4, bcast, kw_c, pre, fx);                           \
    }
DW_VARIANT(dw_word3, false, 3, true)
DW_VARIANT(dw_word5, false, 5, true)
DW_VARIANT(dw_word_pre, false, 0, true)
DW_VARIANT(dw_word, false, 0, false)
DW_VARIANT(dw_byte3, true, 3, true)
DW_VARIANT(dw_byte_pre, true, 0, true)
DW_VARIANT(dw_byte, true, 0, false)

/* dw_3x3 describes this many output pixels at a time: 4 bytes a pixel on
** the stack.  dw_3x3's frame is then 864 B (GCC 12, -O2), 232 B below it
** on rk_depthwise's path, of the firmware's 2 KiB stack; 64 would save
** 256 B and cost up to 1.1% on the 8 x 10 planes (per-chunk setup). */
#define DW_CHUNK 128

/* A pixel's descriptor packs its first on-input tap's byte offset in the
** input (channel 0) above bit 8, that tap's index a * 3 + b in bits 4-7
** and its rows on the input times 4 plus its columns in bits 0-3; the
** offset must stay below 2^24 (dw_groups_run checks the input's size). */
#define DW_X_MAX ((int64_t)1 << 24)

/*
** The descriptors of m output pixels from (*r, *c) on (row-major; *r, *c
** advanced past them) for a 3 x 3 filter at d = 1 over an input of
** in.h x in.w pixels, xc bytes apart (the tensor's c, or 4 in
** rk_depthwise_quad_dsp's plane).
*/
static void dw_desc3(const rk_conv_params *p, rk_dims in, int32_t xc, int32_t out_w, int32_t m, int32_t *r,
                     int32_t *c, uint32_t *px)
{
    for (int32_t i = 0; i < m; i++) {
        const int32_t ib = *r * p->s_h - p->p_top, jb = *c * p->s_w - p->p_left;
        int32_t a0, a1, b0, b1;
        tap_span(ib, 1, 3, in.h, &a0, &a1);
        tap_span(jb, 1, 3, in.w, &b0, &b1);
        const int32_t x = a1 > a0 && b1 > b0 ? ((ib + a0) * in.w + jb + b0) * xc : 0;
        px[i] = (uint32_t)x << 8 | (uint32_t)(a0 * 3 + b0) << 4 | (uint32_t)((a1 - a0) * 4 + (b1 - b0));
        if (++*c == out_w) {
            *c = 0;
            ++*r;
        }
    }
}

/*
** Channels k .. k + 3 of m output pixels by their descriptors px: the
** group's filter halves extended (filter: 9 taps, ch bytes apart), its
** requantization constants and biases made, then per pixel the taps from
** x0 + its offset (taps xc bytes apart in a row, rows xrow apart), the
** four 2- and 3-tap shapes unrolled, stored at y (pixels ystep bytes
** apart).  The group set-up is written out as in dw_groups and
** rk_depthwise_quad_dsp: one always-inline maker for the three changed
** GCC 12's register choices (in place up to 0.6% more instructions,
** mcunet-in0 op51 above CMSIS-NN), so the copies stay.
*/
__attribute__((noinline)) static void dw_group3(const rk_conv_params *p, const rk_quant *q,
                                                            const uint32_t *px, int32_t m, const int8_t *x0,
                                                            ptrdiff_t xc, ptrdiff_t xrow, const int8_t *filter,
                                                            const int32_t *bias, int32_t ch, int32_t k, int8_t *y,
                                                            ptrdiff_t ystep)
{
    const int32_t off = p->input_offset;
    const uint32_t off2 = rk_dsp_off2(off);
    uint32_t fx[18];
    const int8_t *fw = filter + k;
#pragma GCC unroll 9
    for (int32_t t = 0; t < 9; t++, fw += ch) {
        const uint32_t v = rk_load4(fw);
        fx[2 * t] = rk_sxtb16(v);
        fx[2 * t + 1] = rk_sxtb16_r8(v);
    }
    const dw_rq rq0 = dw_rq_make(q->multiplier[k], q->shift[k]), rq1 = dw_rq_make(q->multiplier[k + 1], q->shift[k + 1]),
                rq2 = dw_rq_make(q->multiplier[k + 2], q->shift[k + 2]),
                rq3 = dw_rq_make(q->multiplier[k + 3], q->shift[k + 3]);
    const bool min_mult = q->multiplier[k] == INT32_MIN || q->multiplier[k + 1] == INT32_MIN ||
                          q->multiplier[k + 2] == INT32_MIN || q->multiplier[k + 3] == INT32_MIN;
    const uint32_t b0v = rk_bias0(bias, k), b1v = rk_bias0(bias, k + 1), b2v = rk_bias0(bias, k + 2),
                   b3v = rk_bias0(bias, k + 3);
    for (int32_t i = 0; i < m; i++, y += ystep) {
        dw_acc4 s = {b0v, b1v, b2v, b3v};
        const uint32_t d = px[i], shape = d & 15u;
        const int8_t *x = x0 + (d >> 8);
        const uint32_t *f = fx + 2 * ((d >> 4) & 15u);
        if (shape == 3 * 4 + 3)
            dw_pixel4(3, 3, false, true, 0, 3, x, xc, xrow, f, filter, ch, 6, off2, off, &s);
        else if (shape == 2 * 4 + 2)
            dw_pixel4(2, 2, false, true, 0, 2, x, xc, xrow, f, filter, ch, 6, off2, off, &s);
        else if (shape == 2 * 4 + 3)
            dw_pixel4(3, 2, false, true, 0, 2, x, xc, xrow, f, filter, ch, 6, off2, off, &s);
        else if (shape == 3 * 4 + 2)
            dw_pixel4(2, 3, false, true, 0, 3, x, xc, xrow, f, filter, ch, 6, off2, off, &s);
        else /* one row or one column on the input, or none */
            dw_pixel4((int32_t)(shape & 3u), 0, false, true, 0, (int32_t)(shape >> 2), x, xc, xrow, f, filter, ch,
                      6, off2, off, &s);
        dw_store4(y, &s, min_mult, &rq0, &rq1, &rq2, &rq3, q, k, p);
    }
}

/*
** Channels [0, n4) of rk_depthwise for a 3 x 3 filter at multiplier 1 and
** d = 1, by pixel descriptors: the output pixels in chunks of DW_CHUNK,
** each pixel's taps on the input found once per chunk (dw_desc3; not once
** per group of four channels and row, as dw_groups does), then every group
** over the chunk's pixels (dw_group3).  Border and interior pixels run the
** same loop: on the last blocks of the MCUNet and VWW models (a 3 x 3
** input with pad 1, every pixel a border pixel) dw_groups spent more on
** spans than on taps.  The same products and requantization as
** dw_groups.
*/
__attribute__((noinline)) static void dw_3x3(const rk_conv_params *p, const rk_quant *q, rk_dims in,
                                             const int8_t *input, const int8_t *filter, const int32_t *bias,
                                             rk_dims out, int8_t *output, int32_t n4)
{
    uint32_t px[DW_CHUNK];
    const int32_t ch = out.c, n = out.h * out.w;
    int32_t r = 0, c = 0; /* the chunk's first pixel */
    for (int32_t from = 0; from < n; from += DW_CHUNK) {
        const int32_t m = n - from < DW_CHUNK ? n - from : DW_CHUNK;
        dw_desc3(p, in, ch, out.w, m, &r, &c, px);
        for (int32_t k = 0; k < n4; k += 4)
            dw_group3(p, q, px, m, input + k, ch, (ptrdiff_t)in.w * ch, filter, bias, ch, k,
                      output + (ptrdiff_t)from * ch + k, ch);
    }
}

/*
** rk_depthwise_inplace's channels [0, n4), n4 = c - c % 4, four at a time
** (rk_depthwise_inplace.c calls it where rk_depthwise_inplace.h says, with
** the scratch that says): per group of four channels, the group's outputs
** computed from the tensor itself into scratch, one word an output pixel,
** then copied over the group's bytes once the group is done (those bytes
** held only the group's input, all read by then): the dual kernel's work
** plus one word copy a pixel and group.  A 3 x 3 filter at d = 1 runs
** dw_3x3's descriptor loop (the descriptors made once for the layer: at
** most RK_DW_QUAD_PIXELS = DW_CHUNK output pixels), any other filter the taps on the input found per pixel and group (such
** layers are few and small).  The same products and requantization as the
** plane loop.
*/
/* The group's n output words in scratch w over its bytes of the tensor's
** pixels (c bytes apart, from y). */
static inline __attribute__((always_inline)) void dw_copy_words(int8_t *y, const int8_t *w, int32_t n, int32_t c)
{
    int32_t i = 0;
    for (; i + 2 <= n; i += 2, w += 8, y += 2 * (ptrdiff_t)c) {
        const uint32_t v0 = rk_load4(w), v1 = rk_load4(w + 4);
        memcpy(y, &v0, sizeof v0);
        memcpy(y + c, &v1, sizeof v1);
    }
    if (i < n)
        memcpy(y, w, 4);
}

int32_t rk_depthwise_quad_dsp(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                              const int8_t *filter, const int32_t *bias, int8_t *tensor, int8_t *scratch)
{
    const int32_t ch = in.c, n4 = ch - ch % 4, kh = p->k_h, kw = p->k_w, off = p->input_offset;
    const int32_t n = out.h * out.w;
    if (kh == 3 && kw == 3 && p->d_h == 1 && p->d_w == 1) {
        uint32_t px[DW_CHUNK];
        _Static_assert(RK_DW_QUAD_PIXELS <= DW_CHUNK, "the path's output pixels fit one chunk of descriptors");
        int32_t r = 0, c = 0;
        dw_desc3(p, in, ch, out.w, n, &r, &c, px);
        for (int32_t k = 0; k < n4; k += 4) {
            dw_group3(p, q, px, n, tensor + k, ch, (ptrdiff_t)in.w * ch, filter, bias, ch, k, scratch, 4);
            dw_copy_words(tensor + k, scratch, n, ch);
        }
        return n4;
    }
    const uint32_t off2 = rk_dsp_off2(off);
    const ptrdiff_t xs = (ptrdiff_t)p->d_w * ch, xrow = (ptrdiff_t)p->d_h * in.w * ch;
    uint32_t fx[2 * RK_DW_QUAD_TAPS];
    for (int32_t k = 0; k < n4; k += 4) {
        for (int32_t t = 0; t < kh * kw; t++) {
            const uint32_t fw = rk_load4(filter + (ptrdiff_t)t * ch + k);
            fx[2 * t] = rk_sxtb16(fw);
            fx[2 * t + 1] = rk_sxtb16_r8(fw);
        }
        const dw_rq rq0 = dw_rq_make(q->multiplier[k], q->shift[k]), rq1 = dw_rq_make(q->multiplier[k + 1], q->shift[k + 1]),
                    rq2 = dw_rq_make(q->multiplier[k + 2], q->shift[k + 2]),
                    rq3 = dw_rq_make(q->multiplier[k + 3], q->shift[k + 3]);
        const bool min_mult = q->multiplier[k] == INT32_MIN || q->multiplier[k + 1] == INT32_MIN ||
                              q->multiplier[k + 2] == INT32_MIN || q->multiplier[k + 3] == INT32_MIN;
        const uint32_t b0v = rk_bias0(bias, k), b1v = rk_bias0(bias, k + 1), b2v = rk_bias0(bias, k + 2),
                       b3v = rk_bias0(bias, k + 3);
        int8_t *w8 = scratch;
        for (int32_t r = 0; r < out.h; r++) {
            int32_t a0, a1;
            tap_span(r * p->s_h - p->p_top, p->d_h, kh, in.h, &a0, &a1);
            for (int32_t c = 0; c < out.w; c++, w8 += 4) {
                int32_t b0, b1;
                tap_span(c * p->s_w - p->p_left, p->d_w, kw, in.w, &b0, &b1);
                dw_acc4 s = {b0v, b1v, b2v, b3v};
                const int32_t i0 = r * p->s_h + a0 * p->d_h - p->p_top, j0 = c * p->s_w + b0 * p->d_w - p->p_left;
                if (b1 > b0)
                    dw_pixel4(b1 - b0, 0, false, true, a0, a1, tensor + ((ptrdiff_t)i0 * in.w + j0) * ch + k, xs,
                              xrow, fx + 2 * (a0 * kw + b0), filter, ch, 2 * kw, off2, off, &s);
                dw_store4(w8, &s, min_mult, &rq0, &rq1, &rq2, &rq3, q, k, p);
            }
        }
        dw_copy_words(tensor + k, scratch, n, ch);
    }
    return n4;
}

/* Channels [0, n4) of rk_depthwise (dw_groups) by the variant that fits. */
static void dw_groups_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int32_t n4,
                          bool bcast)
{
    const bool pre = p->k_h * p->k_w <= DW_FX_TAPS;
    if (!bcast && pre && p->k_w == 3) {
        /* dw_3x3's descriptors cost about one group's taps a pixel, paid
        ** once for all groups; dw_groups' row spans are paid per row and
        ** group.  Measured on the 3 x 3 layers of results/kernels.md,
        ** dw_3x3 wins from 48 channels on, and at 32 on rows of up to 24
        ** pixels; below, dw_groups does. */
        const bool descs = p->k_h == 3 && p->d_h == 1 && p->d_w == 1 && (int64_t)in.h * in.w * in.c < DW_X_MAX &&
                           (out.c >= 48 || (out.c >= 32 && out.w <= 24));
        if (descs)
            dw_3x3(p, q, in, input, filter, bias, out, output, n4);
        else
            dw_word3(p, q, in, input, filter, bias, out, output, n4);
    } else if (!bcast && pre && p->k_w == 5)
        dw_word5(p, q, in, input, filter, bias, out, output, n4);
    else if (!bcast && pre)
        dw_word_pre(p, q, in, input, filter, bias, out, output, n4);
    else if (!bcast)
        dw_word(p, q, in, input, filter, bias, out, output, n4);
    else if (pre && p->k_w == 3)
        dw_byte3(p, q, in, input, filter, bias, out, output, n4);
    else if (pre)
        dw_byte_pre(p, q, in, input, filter, bias, out, output, n4);
    else
        dw_byte(p, q, in, input, filter, bias, out, output, n4);
}

/* Channels [k4, ch) of rk_depthwise one by one (output channel k reads
** input channel k / m), per output pixel with the in-range taps found
** once (no test per tap).  Out of line: its frame is not on the stack
** while the group variants run. */
__attribute__((noinline)) static void dw_tail(const rk_conv_params *p, const rk_quant *q, rk_dims in,
                                              const int8_t *input, const int8_t *filter, const int32_t *bias,
                                              rk_dims out, int8_t *output, int32_t k4)
{
    const int32_t ch = out.c, cin = in.c, m = ch / cin, off = p->input_offset;
    const ptrdiff_t xstep = (ptrdiff_t)p->d_w * cin, xrow = (ptrdiff_t)p->d_h * in.w * cin;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++) {
        int32_t a0, a1;
        tap_span(r * p->s_h - p->p_top, p->d_h, p->k_h, in.h, &a0, &a1);
        for (int32_t c = 0; c < out.w; c++, y += ch) {
            int32_t b0, b1;
            tap_span(c * p->s_w - p->p_left, p->d_w, p->k_w, in.w, &b0, &b1);
            const int32_t i0 = r * p->s_h + a0 * p->d_h - p->p_top, j0 = c * p->s_w + b0 * p->d_w - p->p_left;
            const int8_t *x0 = input + ((ptrdiff_t)i0 * in.w + j0) * cin;
            const int8_t *f0 = filter + (ptrdiff_t)(a0 * p->k_w + b0) * ch;
            const ptrdiff_t frow = (ptrdiff_t)p->k_w * ch;
            for (int32_t k = k4; k < ch; k++) {
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

/*
** rk_depthwise on checked arguments, any multiplier m = out.c / in.c.  At
** m = 1 the channels in groups of four (dw_groups, a word of four input
** channels per tap), at m a multiple of 4 every channel in groups of four
** sharing one input channel (dw_groups, a byte per tap); the other
** channels (the last ch % 4 at m = 1, all at other m) by dw_tail.
*/
void rk_depthwise_dsp_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                          const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    const int32_t ch = out.c, m = ch / in.c;
    int32_t k4 = 0; /* channels [0, k4) done in groups */
    if (m == 1 || m % 4 == 0) {
        k4 = m != 1 ? ch : ch - ch % 4;
        if (k4 > 0)
            dw_groups_run(p, q, in, input, filter, bias, out, output, k4, m != 1);
    }
    if (k4 < ch)
        dw_tail(p, q, in, input, filter, bias, out, output, k4);
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
** Output pixel pairs (c, c + 1) of one output row of a 3x3 plane at column
** dilation 1 and stride sw (1 or 2, a constant where inlined), n pairs
** from x (the row's first tap of pixel c) to y (stride ch_n).  Per tap row
** one word v = x[0 .. 3]: A = (x0, x2), B = (x1, x3).  With w02 = (w0, w2)
** and w1 in the low half, pixel c is SMLAD(A, w02) + B.lo w1; at stride 1
** pixel c + 1 is SMLAD(B, w02) + A.hi w1, at stride 2 it is A.hi w0 + B.hi
** w1 + x4 w2 (SMLATB, SMLATB, SMLABT): seven or nine instructions per tap
** row for two pixels, where the generic pairs pack halves with shifts.
** The pair is requantized by dw_round with the clamp of dw_store4 (dr:
** the channel's constants, its multiplier not INT32_MIN; zlh: the output
** offset and the clamp bounds in both halves).  The highest byte read is
** pixel c + 1's last tap.  plane_3x3_row: one
** tap row's share of the pair (the three calls written out, so the six
** weight words stay in registers).
*/
static inline void plane_3x3_row(int32_t sw, const int8_t *xr, uint32_t pw, uint32_t mw, uint32_t *s0, uint32_t *s1)
{
    const uint32_t v = rk_load4(xr);
    const uint32_t A = rk_sxtb16(v), B = rk_sxtb16_r8(v);
    *s0 = rk_smlabb(B, mw, rk_smlad(A, pw, *s0));
    if (sw == 1)
        *s1 = rk_smlatb(A, mw, rk_smlad(B, pw, *s1));
    else
        *s1 = rk_smlabt((uint32_t)(int32_t)xr[4], pw, rk_smlatb(B, mw, rk_smlatb(A, pw, *s1)));
}

static inline void plane_3x3_pairs(int32_t sw, ptrdiff_t row_step, const uint32_t *w02, const uint32_t *w1,
                                   uint32_t start, const dw_rq *dr, const uint32_t *zlh, const int8_t *x,
                                   int32_t n, int8_t *y, int32_t ch_n)
{
    const uint32_t zo2 = zlh[0], lo2 = zlh[1], hi2 = zlh[2];
    const uint32_t p0 = w02[0], p1 = w02[1], p2 = w02[2], m0 = w1[0], m1 = w1[1], m2 = w1[2];
    for (int32_t k = 0; k < n; k++, x += 2 * sw, y += 2 * (ptrdiff_t)ch_n) {
        uint32_t s0 = start, s1 = start;
        plane_3x3_row(sw, x, p0, m0, &s0, &s1);
        plane_3x3_row(sw, x + row_step, p1, m1, &s0, &s1);
        plane_3x3_row(sw, x + 2 * row_step, p2, m2, &s0, &s1);
        /* dw_store4's clamp, the pair's two pixels a word */
        uint32_t e = rk_dsp_sat16x2(dw_round(s0, dr), dw_round(s1, dr));
        e = rk_min16(rk_max16(rk_qadd16(e, zo2), lo2), hi2);
        y[0] = (int8_t)e;
        y[ch_n] = (int8_t)(e >> 16);
    }
}

/* A pixel pair's sums to y[0] and y[ch_n]: as plane_3x3_pairs does when
** fast (the multiplier is not INT32_MIN; dr, zlh as there), else by
** rk_dsp_finish with rq. */
static inline void plane_store2(int8_t *y, int32_t ch_n, uint32_t s0, uint32_t s1, bool fast, const dw_rq *dr,
                                const uint32_t *zlh, const rk_dsp_rq *rq)
{
    if (fast) {
        uint32_t e = rk_dsp_sat16x2(dw_round(s0, dr), dw_round(s1, dr));
        e = rk_min16(rk_max16(rk_qadd16(e, zlh[0]), zlh[1]), zlh[2]);
        y[0] = (int8_t)e;
        y[ch_n] = (int8_t)(e >> 16);
    } else {
        y[0] = rk_dsp_finish(s0, rq);
        y[ch_n] = rk_dsp_finish(s1, rq);
    }
}

/* One output pixel of a 3x3 plane at d_w = 1 from x (its first tap), the
** taps as in plane_3x3_pairs: bytes, not words, since the pixel may end
** the plane. */
static inline uint32_t plane_3x3_one(ptrdiff_t row_step, const uint32_t *w02, const uint32_t *w1, uint32_t s,
                                     const int8_t *x)
{
#pragma GCC unroll 3
    for (int32_t a = 0; a < 3; a++, x += row_step) {
        s = rk_smlabb((uint32_t)(int32_t)x[0], w02[a], s);
        s = rk_smlabb((uint32_t)(int32_t)x[1], w1[a], s);
        s = rk_smlabt((uint32_t)(int32_t)x[2], w02[a], s);
    }
    return s;
}

/*
** Output plane of channel ch of rk_depthwise_inplace: plane (h_p x w_p,
** pads stored at the zero point) holds the channel's input; the output
** pixels go to tensor[(r out.w + c) ch_n + ch].  Every tap is in the
** plane, so sum (x + off) w = sum x w + off sum w (mod 2^32): the start of
** every sum is bias + off * (the sum of the channel's taps), and a tap is
** one product.  Pixels in pairs: 3x3 at d_w = 1 and stride 1 or 2 by
** plane_3x3_pairs, other shapes by packed tap pairs (plane_pair_odd) at
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
    const ptrdiff_t row_step = (ptrdiff_t)p->d_h * w_p;
    if (p->k_h == 3 && kw == 3 && p->d_w == 1 && (p->s_w == 1 || p->s_w == 2) &&
        q->multiplier[ch] != INT32_MIN) { /* every 3x3 of the models; dw_round wants the multiplier above INT32_MIN */
        const dw_rq dr = dw_rq_make(q->multiplier[ch], q->shift[ch]);
        const uint32_t zlh[3] = {rk_dsp_off2(p->output_offset), rk_dsp_off2(p->act.min), rk_dsp_off2(p->act.max)};
        uint32_t w02[3], w1[3];
        for (int32_t a = 0; a < 3; a++) {
            w02[a] = ((uint32_t)wt[3 * a] & 0xffffu) | ((uint32_t)wt[3 * a + 2] << 16);
            w1[a] = (uint32_t)wt[3 * a + 1] & 0xffffu;
        }
        const int32_t n = out.w / 2;
        for (int32_t r = 0; r < out.h; r++) {
            const int8_t *row0 = plane + (ptrdiff_t)r * p->s_h * w_p;
            int8_t *y = tensor + (ptrdiff_t)r * out.w * ch_n + ch;
            if (p->s_w == 1)
                plane_3x3_pairs(1, row_step, w02, w1, start, &dr, zlh, row0, n, y, ch_n);
            else
                plane_3x3_pairs(2, row_step, w02, w1, start, &dr, zlh, row0, n, y, ch_n);
            if (out.w % 2 != 0) {
                const int32_t c = out.w - 1;
                y[(ptrdiff_t)c * ch_n] = rk_dsp_finish(plane_3x3_one(row_step, w02, w1, start, row0 + (ptrdiff_t)c * p->s_w), &rq);
            }
        }
        return;
    }
    const bool fast = q->multiplier[ch] != INT32_MIN;
    const dw_rq dr = dw_rq_make(fast ? q->multiplier[ch] : 1 << 30, q->shift[ch]);
    const uint32_t zlh[3] = {rk_dsp_off2(p->output_offset), rk_dsp_off2(p->act.min), rk_dsp_off2(p->act.max)};
    const bool pairs = (p->s_w == 1 || p->s_w == 2) && p->d_w == 1 && (kw == 3 || kw == 5 || kw == 7) && p->k_h <= 7;
    uint32_t wp[21], wl[7];
    if (pairs)
        for (int32_t a = 0; a < p->k_h; a++) {
            for (int32_t j = 0; j < kw / 2; j++)
                wp[a * (kw / 2) + j] = ((uint32_t)wt[a * kw + 2 * j] & 0xffffu) | ((uint32_t)wt[a * kw + 2 * j + 1] << 16);
            wl[a] = (uint32_t)wt[a * kw + kw - 1] & 0xffffu;
        }
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
                plane_store2(y, ch_n, s0, s1, fast, &dr, zlh, &rq);
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
                plane_store2(y, ch_n, s0, s1, fast, &dr, zlh, &rq);
            }
        for (; c < out.w; c++, y += ch_n)
            y[0] = rk_dsp_finish(plane_pixel(p, wt, start, row0 + (ptrdiff_t)c * p->s_w, w_p), &rq);
    }
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int rk_depthwise_dsp_empty;
#endif

