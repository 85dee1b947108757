/*
** tflite_kernels_softmax_mean.c — the tflite_kernels suite
** (tests/test_tflite_kernels.c) on softmax (hand values, refusals, random
** rows against the reference, every difference and shift) and mean (hand
** values, random tensors, the models' shapes and large counts).
*/
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_add.h"
#include "rk_concat.h"
#include "rk_depthwise.h"
#include "rk_mean.h"
#include "rk_pad.h"
#include "rk_prepare.h"
#include "rk_quantize.h"
#include "rk_resize_nearest.h"
#include "rk_softmax.h"
#include "rk_transpose.h"
#include "rk_upsample.h"
#include "ref_conv.h"
#include "ref_softmax.h"
#include "splitmix.h"
#include "tflite_kernels_util.h"

/* ------------------------------------------------------------- softmax */

static rk_status run_softmax(const rk_softmax_params *p, int rows, int depth, const int8_t *in, int8_t *out)
{
    cr_assert_eq(rk_softmax_buffer_size(p, rows, depth), 0);
    return rk_softmax(p, rows, depth, in, out);
}

Test(tflite_kernels, softmax_hand_values)
{
    rk_softmax_params p;
    cr_assert_eq(rk_prepare_softmax(1.0f, 0.0625f, 1.0f / 256, -128, &p), RK_OK);
    int8_t out[4];
    /* one entry: probability 1 = 256/256, clamped to 127 */
    const int8_t one[1] = {-7};
    cr_assert_eq(run_softmax(&p, 1, 1, one, out), RK_OK);
    cr_assert_eq(out[0], 127);
    /* two equal entries: 1/2 each = 128/256 -> 0 */
    const int8_t two[2] = {5, 5};
    cr_assert_eq(run_softmax(&p, 1, 2, two, out), RK_OK);
    cr_assert(out[0] == 0 && out[1] == 0);
    /* differences 0 and -16 at scale 1/16 (real 0 and -1): probabilities
    ** 1 / (1 + e^-1) = 0.7311 and 0.2689, 187.2 and 68.8 in 1/256:
    ** 187 - 128 = 59, 69 - 128 = -59 */
    const int8_t pair[2] = {20, 4};
    cr_assert_eq(run_softmax(&p, 1, 2, pair, out), RK_OK);
    cr_assert(out[0] == 59 && out[1] == -59, "%d %d", out[0], out[1]);
    /* an entry below diff_min (-248) is exactly -128, and does not count:
    ** {127, -128}: difference -255 */
    const int8_t far[2] = {127, -128};
    cr_assert_eq(run_softmax(&p, 1, 2, far, out), RK_OK);
    cr_assert(out[0] == 127 && out[1] == -128);
    /* four equal entries: 64/256 -> -64 */
    const int8_t four[4] = {-3, -3, -3, -3};
    cr_assert_eq(run_softmax(&p, 1, 4, four, out), RK_OK);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(out[i], -64);
}

/* 511 entries at the maximum sum to 511 * 2^19 < 2^28 and are computed;
** 512 reach 2^28, where TFLM's TFLITE_CHECK(exponent <= 31) aborts: refused. */
Test(tflite_kernels, softmax_refuses_where_tflm_aborts)
{
    rk_softmax_params p;
    cr_assert_eq(rk_prepare_softmax(1.0f, 0.0625f, 1.0f / 256, -128, &p), RK_OK);
    int8_t in[2 * 512], out[2 * 512], ref[512];
    memset(in, 9, sizeof in);
    cr_assert_eq(run_softmax(&p, 1, 511, in, out), RK_OK);
    cr_assert(ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, 511, in, ref));
    cr_assert_eq(memcmp(out, ref, 511), 0);
    cr_assert(!ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, 512, in, ref));
    cr_assert_eq(run_softmax(&p, 2, 512, in, out), RK_ARG);
    /* the same depth with one clear maximum is fine */
    in[0] = 100;
    memset(in + 1, 0, 511);
    cr_assert_eq(run_softmax(&p, 1, 512, in, out), RK_OK);
    cr_assert(ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, 512, in, ref));
    cr_assert_eq(memcmp(out, ref, 512), 0);
}

Test(tflite_kernels, softmax_refuses_bad_parameters)
{
    rk_softmax_params p = {1 << 30, 23, -248};
    int8_t x[4] = {0}, y[4];
    cr_assert_eq(rk_softmax(&p, 1, 4, x, y), RK_OK);
    cr_assert_eq(rk_softmax(NULL, 1, 4, x, y), RK_ARG);
    cr_assert_eq(rk_softmax(&p, 0, 4, x, y), RK_ARG);
    cr_assert_eq(rk_softmax(&p, 1, 0, x, y), RK_ARG);
    cr_assert_eq(rk_softmax(&p, 1, 4, NULL, y), RK_ARG);
    rk_softmax_params q = p;
    q.input_left_shift = 32;
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
    q = p;
    q.diff_min = 1;
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
    q = p;
    q.input_left_shift = 24;   /* 248 * 2^24 > 2^31: the scaled difference would overflow */
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
    q = p;
    q.input_multiplier = -1;
    cr_assert_eq(rk_softmax(&q, 1, 4, x, y), RK_ARG);
}

/* Softmax parameters: mostly from a random beta and input scale through
** TFLM's Prepare (rk_prepare_softmax), else raw in the kernel's range with
** diff_min between TFLM's radius and 0. */
static void draw_softmax_params(rk_softmax_params *p)
{
    for (;;) {
        if (rng_int(0, 3) != 0) {
            const float beta = rng_int(0, 2) ? 1.0f : (float)ldexp(1.0 + (double)rng_int(0, 999) / 1000.0, (int)rng_int(-3, 3));
            const float scale = (float)ldexp(1.0 + (double)rng_int(0, 9999) / 10000.0, (int)rng_int(-12, 2));
            if (rk_prepare_softmax(beta, scale, 1.0f / 256, -128, p) == RK_OK)
                return;
            continue;
        }
        p->input_multiplier = (int32_t)rng_int((int64_t)1 << 30, INT32_MAX);
        p->input_left_shift = (int32_t)rng_int(0, 31);
        const int64_t radius = ((int64_t)31 << 26) >> p->input_left_shift;   /* floor(31 * 2^26 / 2^ls) */
        p->diff_min = -(int32_t)rng_int(0, radius);
        return;
    }
}

/* A row: uniform, clustered near one value, or a few high entries over a low floor. */
static void draw_softmax_row(int8_t *x, int depth)
{
    const int64_t kind = rng_int(0, 2);
    if (kind == 0) {
        fill_s8(x, (size_t)depth, -128, 127);
    } else if (kind == 1) {
        const int c = (int)rng_int(-100, 100), w = (int)rng_int(0, 27);
        fill_s8(x, (size_t)depth, c - w, c + w);
    } else {
        fill_s8(x, (size_t)depth, -128, -60);
        for (int k = 0; k < 3; k++)
            x[rng_int(0, depth - 1)] = (int8_t)rng_int(40, 127);
    }
}

Test(tflite_kernels, softmax_equals_reference_on_random_rows)
{
    rng_state = 2003;
    long rows_done = 0;
    for (int t = 0; t < 600; t++) {
        rk_softmax_params p;
        draw_softmax_params(&p);
        const int rows = (int)rng_int(1, 4), depth = rng_int(0, 4) ? (int)rng_int(1, 40) : (int)rng_int(41, 1200);
        int8_t *in = xmalloc((size_t)rows * (size_t)depth), *out = xmalloc((size_t)rows * (size_t)depth);
        int8_t *ref = xmalloc((size_t)rows * (size_t)depth);
        for (int r = 0; r < rows; r++)
            draw_softmax_row(in + (size_t)r * (size_t)depth, depth);
        bool ok = true;
        for (int r = 0; r < rows && ok; r++)
            ok = ref_softmax_row(p.input_multiplier, p.input_left_shift, p.diff_min, depth,
                                 in + (size_t)r * (size_t)depth, ref + (size_t)r * (size_t)depth);
        const rk_status st = run_softmax(&p, rows, depth, in, out);
        cr_assert_eq(st, ok ? RK_OK : RK_ARG, "case %d: status %d, reference %s", t, st, ok ? "computes" : "aborts");
        if (ok) {
            for (int i = 0; i < rows * depth; i++)
                cr_assert_eq(out[i], ref[i], "case %d (mult %d shift %d diff_min %d depth %d) entry %d: %d, reference %d",
                             t, p.input_multiplier, p.input_left_shift, p.diff_min, depth, i, out[i], ref[i]);
            /* in place: the same bytes */
            cr_assert_eq(run_softmax(&p, rows, depth, in, in), RK_OK);
            cr_assert_eq(memcmp(in, ref, (size_t)rows * (size_t)depth), 0, "case %d in place", t);
            rows_done += rows;
        }
        free(in);
        free(out);
        free(ref);
    }
    cr_assert_gt(rows_done, 1000);
}

/* Every input difference 0..-255 at every left shift, one row per (diff,
** shift) pair against a row maximum: exercises the whole exp range. */
Test(tflite_kernels, softmax_every_difference_and_shift)
{
    rng_state = 2004;
    for (int32_t ls = 0; ls <= 31; ls++)
        for (int rep = 0; rep < 3; rep++) {
            rk_softmax_params p = {(int32_t)rng_int((int64_t)1 << 30, INT32_MAX), ls, 0};
            p.diff_min = -(int32_t)(((int64_t)31 << 26) >> ls);
            for (int d = 0; d <= 255; d++) {
                const int8_t in[3] = {127, (int8_t)(127 - d), (int8_t)(127 - d / 2)};
                int8_t out[3], ref[3];
                cr_assert(ref_softmax_row(p.input_multiplier, ls, p.diff_min, 3, in, ref));
                cr_assert_eq(run_softmax(&p, 1, 3, in, out), RK_OK);
                cr_assert(memcmp(out, ref, 3) == 0, "shift %d diff %d: %d %d %d vs %d %d %d", ls, d, out[0], out[1],
                          out[2], ref[0], ref[1], ref[2]);
            }
        }
}

/* ---------------------------------------------------------------- mean */

/* TFLM's mean, written from reduce.h: reduced axes resolved, every input
** added into its output (output index = the kept coordinates, row-major),
** then the eval-time multiplier scaling and MultiplyByQuantizedMultiplier. */
static void ref_mean(const rk_mean_params *p, rk_shape in, const int32_t *axis, int n_axis, const int8_t *x,
                     int8_t *y)
{
    bool red[RK_MAX_RANK] = {false};
    for (int i = 0; i < n_axis; i++)
        red[axis[i] < 0 ? axis[i] + in.rank : axis[i]] = true;
    rk_shape kept = {.rank = 0};
    int64_t count = 1;
    for (int d = 0; d < in.rank; d++) {
        if (red[d])
            count *= in.d[d];
        else
            kept.d[kept.rank++] = in.d[d];
    }
    const int64_t n_out = kept.rank ? count_of(kept) : 1;
    int64_t *sum = calloc((size_t)n_out, sizeof *sum);
    cr_assert_not_null(sum);
    const int64_t n = count_of(in);
    for (int64_t f = 0; f < n; f++) {
        int32_t idx[RK_MAX_RANK], kidx[RK_MAX_RANK];
        multi_index(in, f, idx);
        int k = 0;
        for (int d = 0; d < in.rank; d++)
            if (!red[d])
                kidx[k++] = idx[d];
        sum[kept.rank ? flat_index(kept, kidx) : 0] += x[f];
    }
    int shift = 0;
    while (((int64_t)1 << (shift + 1)) <= count)
        shift++;
    if (shift > 32)
        shift = 32;
    if (shift > 31 + p->shift)
        shift = 31 + p->shift;
    const int32_t m = (int32_t)(((int64_t)p->multiplier << shift) / count);
    for (int64_t o = 0; o < n_out; o++) {
        const int32_t diff = (int32_t)ref_wrap32(sum[o] - (int64_t)p->input_zero_point * count);
        y[o] = ref_clamp8((int64_t)ref_requantize(diff, m, p->shift - shift) + p->output_zero_point, -128, 127);
    }
    free(sum);
}

static rk_status run_mean(const rk_mean_params *p, rk_shape in, const int32_t *axis, int n_axis, const int8_t *x,
                          int8_t *y)
{
    cr_assert_eq(rk_mean_buffer_size(p, in, axis, n_axis), 0);
    return rk_mean(p, in, axis, n_axis, x, y);
}

Test(tflite_kernels, mean_hand_values)
{
    rk_mean_params p;
    int8_t y[4];
    /* same scales: QuantizeMultiplier(1) = (2^30, 1).  Count 4: s = 2,
    ** m = 2^30 * 4 / 4 = 2^30, e = -1: (1+2+3+4) = 10 -> 10 * 2^30 / 2^31 = 5
    ** -> 5 / 2 rounded away from zero = 3 (the mean 2.5) */
    cr_assert_eq(rk_prepare_mean(0.5f, 0, 0.5f, 0, &p), RK_OK);
    cr_assert(p.multiplier == 1 << 30 && p.shift == 1);
    const int32_t d4[4] = {1, 2, 2, 1}, hw[2] = {1, 2};
    const int8_t x4[4] = {1, 2, 3, 4}, xn[4] = {-1, -2, -3, -4};
    cr_assert_eq(run_mean(&p, shape_of(4, d4), hw, 2, x4, y), RK_OK);
    cr_assert_eq(y[0], 3);
    cr_assert_eq(run_mean(&p, shape_of(4, d4), hw, 2, xn, y), RK_OK);
    cr_assert_eq(y[0], -3);
    /* count 3: s = 1, m = floor(2^31 / 3) = 715827882, e = 0: sum 4 ->
    ** round(4 * 715827882 / 2^31) = round(1.33) = 1 */
    const int32_t d3[2] = {1, 3}, last[1] = {-1};
    const int8_t x3[3] = {1, 1, 2};
    cr_assert_eq(run_mean(&p, shape_of(2, d3), last, 1, x3, y), RK_OK);
    cr_assert_eq(y[0], 1);
    /* zero points: input zp 10, output zp -5: {12, 14} -> 26 - 20 = 6,
    ** count 2 (s = 1, m = 2^30, e = 0): 3, then -5 -> -2 */
    cr_assert_eq(rk_prepare_mean(0.5f, 10, 0.5f, -5, &p), RK_OK);
    const int32_t d2[1] = {2}, a0[1] = {0};
    const int8_t x2[2] = {12, 14};
    cr_assert_eq(run_mean(&p, shape_of(1, d2), a0, 1, x2, y), RK_OK);
    cr_assert_eq(y[0], -2);
    /* scales 0.5 -> 0.25: QuantizeMultiplier(2) = (2^30, 2); count 2: m = 2^30,
    ** e = 1: {1, 2} -> 3 * 2 * 2^30 / 2^31 = 3 (mean 1.5 * 0.5 / 0.25 = 3) */
    cr_assert_eq(rk_prepare_mean(0.5f, 0, 0.25f, 0, &p), RK_OK);
    const int8_t x12[2] = {1, 2};
    cr_assert_eq(run_mean(&p, shape_of(1, d2), a0, 1, x12, y), RK_OK);
    cr_assert_eq(y[0], 3);
    /* keep_dims or not, axes {1, 2} of [1, 2, 2, 2]: per channel, and a
    ** duplicated / negative axis changes nothing */
    cr_assert_eq(rk_prepare_mean(0.5f, 0, 0.5f, 0, &p), RK_OK);
    const int32_t d222[4] = {1, 2, 2, 2}, dup[3] = {1, -2, 2};
    const int8_t x8[8] = {1, 10, 2, 20, 3, 30, 4, 40};
    cr_assert_eq(run_mean(&p, shape_of(4, d222), dup, 3, x8, y), RK_OK);
    cr_assert(y[0] == 3 && y[1] == 25);   /* 2.5 -> 3, 25 */
    const int32_t bad[1] = {4};
    cr_assert_eq(run_mean(&p, shape_of(4, d222), bad, 1, x8, y), RK_ARG);
}

Test(tflite_kernels, mean_equals_reference_on_random_tensors)
{
    rng_state = 2005;
    for (int t = 0; t < 800; t++) {
        const int rank = (int)rng_int(1, RK_MAX_RANK);
        const rk_shape in = random_shape(rank, 7, 4000);
        int32_t axis[8];
        const int n_axis = (int)rng_int(0, rank + 1);
        for (int i = 0; i < n_axis; i++)
            axis[i] = (int32_t)rng_int(-rank, rank - 1);
        rk_mean_params p;
        const float si = (float)ldexp(1.0 + (double)rng_int(0, 999) / 1000.0, (int)rng_int(-9, -1));
        const float so = rng_int(0, 2) ? si : (float)ldexp(1.0 + (double)rng_int(0, 999) / 1000.0, (int)rng_int(-9, -1));
        cr_assert_eq(rk_prepare_mean(si, (int32_t)rng_int(-128, 127), so, (int32_t)rng_int(-128, 127), &p), RK_OK);
        const int64_t n = count_of(in);
        int8_t *x = xmalloc((size_t)n), *y = xmalloc((size_t)n), *r = xmalloc((size_t)n);
        fill_s8(x, (size_t)n, -128, 127);
        memset(y, 0x5a, (size_t)n);
        ref_mean(&p, in, axis, n_axis, x, r);
        cr_assert_eq(run_mean(&p, in, axis, n_axis, x, y), RK_OK);
        bool red[RK_MAX_RANK] = {false};
        for (int i = 0; i < n_axis; i++)
            red[axis[i] < 0 ? axis[i] + rank : axis[i]] = true;
        int64_t n_out = 1;
        for (int d = 0; d < rank; d++)
            n_out *= red[d] ? 1 : in.d[d];
        cr_assert_eq(memcmp(y, r, (size_t)n_out), 0, "case %d", t);
        /* in place */
        cr_assert_eq(run_mean(&p, in, axis, n_axis, x, x), RK_OK);
        cr_assert_eq(memcmp(x, r, (size_t)n_out), 0, "case %d in place", t);
        free(x);
        free(y);
        free(r);
    }
}

/* MCUNet-VWW's tail (tinyengine vww.tflite): MEAN over axis 3 of
** [1, 160, 3, 3], then over axis 2 of [1, 160, 3], one quantization
** (scale 0.048543..., zero point 6), and the large counts a global mean
** of a big map has (count 2^k and not). */
Test(tflite_kernels, mean_model_shapes_and_large_counts)
{
    rng_state = 2006;
    rk_mean_params p;
    cr_assert_eq(rk_prepare_mean(0.048543f, 6, 0.048543f, 6, &p), RK_OK);
    const int32_t d1[4] = {1, 160, 3, 3}, d2[3] = {1, 160, 3}, a3[1] = {3}, a2[1] = {2};
    int8_t x[1440], y1[480], y2[160], r1[480], r2[160];
    fill_s8(x, sizeof x, -128, 127);
    cr_assert_eq(run_mean(&p, shape_of(4, d1), a3, 1, x, y1), RK_OK);
    ref_mean(&p, shape_of(4, d1), a3, 1, x, r1);
    cr_assert_eq(memcmp(y1, r1, sizeof y1), 0);
    cr_assert_eq(run_mean(&p, shape_of(3, d2), a2, 1, y1, y2), RK_OK);
    ref_mean(&p, shape_of(3, d2), a2, 1, r1, r2);
    cr_assert_eq(memcmp(y2, r2, sizeof y2), 0);
    const int32_t sizes[4][4] = {{1, 64, 64, 2}, {1, 63, 65, 2}, {1, 128, 160, 1}, {1, 7, 7, 3}};
    for (int k = 0; k < 4; k++) {
        const rk_shape s = shape_of(4, sizes[k]);
        const int64_t n = count_of(s);
        int8_t *big = xmalloc((size_t)n), got[3], want[3];
        fill_s8(big, (size_t)n, rng_int(0, 1) ? -128 : 100, 127);
        for (int q = 0; q < 3; q++) {
            const float so = q == 0 ? 0.048543f : q == 1 ? 0.01f : 0.5f;
            cr_assert_eq(rk_prepare_mean(0.048543f, 6, so, -3, &p), RK_OK);
            cr_assert_eq(run_mean(&p, s, (const int32_t[2]){1, 2}, 2, big, got), RK_OK);
            ref_mean(&p, s, (const int32_t[2]){1, 2}, 2, big, want);
            cr_assert_eq(memcmp(got, want, (size_t)s.d[3]), 0, "shape %d scale %d", k, q);
        }
        free(big);
    }
}
