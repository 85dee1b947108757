/*
** ref_conv.h — plain reference int8 kernels for the tests of
** firmware/kernels/, straight from the definitions and on purpose a
** different code path from the kernels: loops over outputs, then taps,
** then channels, int64 accumulation, pad taps skipped (never materialized),
** and TFLite's rounding written again from its arithmetic meaning rather
** than from gemmlowp's code:
**   doubling high multiply = floor((a*b + 2^30) / 2^31), i.e. a*b/2^31
**     rounded half toward +infinity, saturated for INT32_MIN * INT32_MIN;
**   rounding divide by 2^e = round half away from zero;
**   the left shift wraps to 32 bits as compiled TFLite does.
** Every function returns false when an accumulator leaves int32, where
** TFLite itself is undefined (tests draw values that never do).
** Header-only: each suite that includes it gets its own copy.
*/
#ifndef RIPSIM_REF_CONV_H
#define RIPSIM_REF_CONV_H

#include <stdbool.h>
#include <stdint.h>

/* x reduced to a signed 32-bit value, two's complement. */
static inline int64_t ref_wrap32(int64_t x)
{
    const int64_t m = (int64_t)1 << 32;
    int64_t v = ((x % m) + m) % m;
    return v >= ((int64_t)1 << 31) ? v - m : v;
}

static inline int64_t ref_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static inline int32_t ref_requantize(int32_t acc, int32_t multiplier, int32_t shift)
{
    int64_t x = acc;
    if (shift > 0)
        x = ref_wrap32(x * ((int64_t)1 << shift));
    int64_t hi;
    if (x == INT32_MIN && multiplier == INT32_MIN)
        hi = INT32_MAX;
    else
        hi = ref_floor_div(x * multiplier + ((int64_t)1 << 30), (int64_t)1 << 31);
    if (shift >= 0)
        return (int32_t)hi;
    const int64_t e = -shift;
    const int64_t half = (int64_t)1 << (e - 1);
    const int64_t mag = hi < 0 ? -hi : hi;
    const int64_t r = (mag + half) >> e;
    return (int32_t)(hi < 0 ? -r : r);
}

static inline int8_t ref_clamp8(int64_t v, int32_t lo, int32_t hi)
{
    return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* The geometry of the kernels' rk_conv_params, spelled out on its own. */
typedef struct ref_conv {
    int cin, cout, h_in, w_in, h_out, w_out;
    int k_h, k_w, s_h, s_w, d_h, d_w, p_top, p_left;
    int in_zp, out_zp, act_min, act_max;  /* zero points, not offsets */
} ref_conv;

/* Convolution; filter OHWI; depthwise when dw (then cout = m * cin, filter
** [k_h][k_w][cout], output channel o from input channel o / m). */
static inline bool ref_conv2d(const ref_conv *g, bool dw, const int8_t *in, const int8_t *f, const int32_t *bias,
                              const int32_t *mult, const int32_t *shift, int8_t *out)
{
    for (int r = 0; r < g->h_out; r++)
        for (int c = 0; c < g->w_out; c++)
            for (int o = 0; o < g->cout; o++) {
                int64_t acc = 0;
                for (int a = 0; a < g->k_h; a++)
                    for (int b = 0; b < g->k_w; b++) {
                        const int y = r * g->s_h - g->p_top + a * g->d_h;
                        const int x = c * g->s_w - g->p_left + b * g->d_w;
                        if (y < 0 || y >= g->h_in || x < 0 || x >= g->w_in)
                            continue;
                        for (int i = 0; i < g->cin; i++) {
                            if (dw && i != o / (g->cout / g->cin))   /* depthwise: channel o reads input o / m */
                                continue;
                            const int64_t v = (int64_t)in[(y * g->w_in + x) * g->cin + i] - g->in_zp;
                            const int64_t w = dw ? f[(a * g->k_w + b) * g->cout + o]
                                                 : f[((o * g->k_h + a) * g->k_w + b) * g->cin + i];
                            acc += v * w;
                        }
                    }
                if (bias != NULL)
                    acc += bias[o];
                if (acc < INT32_MIN || acc > INT32_MAX)
                    return false;
                const int64_t v = (int64_t)ref_requantize((int32_t)acc, mult[o], shift[o]) + g->out_zp;
                out[(r * g->w_out + c) * g->cout + o] = ref_clamp8(v, g->act_min, g->act_max);
            }
    return true;
}

/* Pooling; avg divides by the real taps, rounding half away from zero. */
static inline void ref_pool(bool avg, int c, int h_in, int w_in, int h_out, int w_out, int k_h, int k_w, int s_h,
                            int s_w, int p_top, int p_left, int act_min, int act_max, const int8_t *in, int8_t *out)
{
    for (int r = 0; r < h_out; r++)
        for (int x = 0; x < w_out; x++)
            for (int ch = 0; ch < c; ch++) {
                int64_t sum = 0, n = 0, m = -1000;
                for (int a = 0; a < k_h; a++)
                    for (int b = 0; b < k_w; b++) {
                        const int i = r * s_h - p_top + a, j = x * s_w - p_left + b;
                        if (i < 0 || i >= h_in || j < 0 || j >= w_in)
                            continue;
                        const int64_t v = in[(i * w_in + j) * c + ch];
                        sum += v;
                        n++;
                        if (v > m)
                            m = v;
                    }
                int64_t v;
                if (avg) {
                    const int64_t mag = sum < 0 ? -sum : sum;
                    const int64_t q = (2 * mag + n) / (2 * n); /* floor(mag/n + 1/2) */
                    v = sum < 0 ? -q : q;
                } else {
                    v = m;
                }
                out[(r * w_out + x) * c + ch] = ref_clamp8(v, act_min, act_max);
            }
}

/* TFLite int8 add, elementwise. */
static inline void ref_add(int n, const int8_t *a, const int8_t *b, int zp1, int zp2, int left_shift, int32_t m1,
                           int32_t s1, int32_t m2, int32_t s2, int32_t mo, int32_t so, int zpo, int act_min,
                           int act_max, int8_t *out)
{
    for (int i = 0; i < n; i++) {
        const int64_t x1 = ((int64_t)a[i] - zp1) * ((int64_t)1 << left_shift);
        const int64_t x2 = ((int64_t)b[i] - zp2) * ((int64_t)1 << left_shift);
        const int64_t sum = ref_wrap32((int64_t)ref_requantize((int32_t)x1, m1, s1) + ref_requantize((int32_t)x2, m2, s2));
        out[i] = ref_clamp8((int64_t)ref_requantize((int32_t)sum, mo, so) + zpo, act_min, act_max);
    }
}

/* Fully connected; per_channel picks mult[o] else mult[0]. */
static inline bool ref_fc(int batches, int n_in, int n_out, const int8_t *x, const int8_t *w, const int32_t *bias,
                          int in_zp, int out_zp, bool per_channel, const int32_t *mult, const int32_t *shift,
                          int act_min, int act_max, int8_t *y)
{
    for (int b = 0; b < batches; b++)
        for (int o = 0; o < n_out; o++) {
            int64_t acc = bias ? bias[o] : 0;
            for (int i = 0; i < n_in; i++)
                acc += ((int64_t)x[b * n_in + i] - in_zp) * w[o * n_in + i];
            if (acc < INT32_MIN || acc > INT32_MAX)
                return false;
            const int k = per_channel ? o : 0;
            y[b * n_out + o] = ref_clamp8((int64_t)ref_requantize((int32_t)acc, mult[k], shift[k]) + out_zp,
                                          act_min, act_max);
        }
    return true;
}

/* Nearest-neighbour upsampling by integer factors. */
static inline void ref_upsample(int c, int h_in, int w_in, int s_h, int s_w, const int8_t *in, int8_t *out)
{
    const int w_out = w_in * s_w;
    for (int r = 0; r < h_in * s_h; r++)
        for (int x = 0; x < w_out; x++)
            for (int ch = 0; ch < c; ch++)
                out[(r * w_out + x) * c + ch] = in[((r / s_h) * w_in + x / s_w) * c + ch];
}

#endif
