/*
** tflite_kernels_data.c — the tflite_kernels suite
** (tests/test_tflite_kernels.c) on the kernels that move or convert data:
** quantize, dequantize, requantize, pad, transpose, concatenation, nearest
** resize (and upsample as TFLM's resize), depthwise with a depth
** multiplier and broadcast ADD, by hand and against references.
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

/* ------------------------------------------- quantize / dequantize / requantize */

/* TFLM's AffineQuantize expression with libm's roundf, for |x / scale| < 2^31. */
static int8_t ref_quantize(float x, float scale, int32_t zp)
{
    const float q = roundf(x / scale);
    return ref_clamp8((int64_t)(int32_t)q + zp, -128, 127);
}

Test(tflite_kernels, quantize_hand_values)
{
    const rk_affine q = {0.5f, 0};
    const float x[9] = {1.25f, -1.25f, 0.74f, 0.25f, -0.25f, 100.0f, -100.0f, 0.0f, -0.0f};
    /* 2.5 -> 3, -2.5 -> -3 (ties away from zero), 1.48 -> 1, 0.5 -> 1,
    ** -0.5 -> -1, 200 -> 127, -200 -> -128, 0, 0 */
    const int8_t want[9] = {3, -3, 1, 1, -1, 127, -128, 0, 0};
    int8_t y[9];
    cr_assert_eq(rk_quantize_f32_buffer_size(&q, 9), 0);
    cr_assert_eq(rk_quantize_f32(&q, 9, x, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 9), 0);
    /* zero point 100: 1.25 -> 103; 20 -> 140 -> 127 */
    const rk_affine z = {0.5f, 100};
    const float x2[2] = {1.25f, 20.0f};
    cr_assert_eq(rk_quantize_f32(&z, 2, x2, y), RK_OK);
    cr_assert(y[0] == 103 && y[1] == 127);
    /* outside TFLM's defined domain: +-inf saturate, NaN counts as 0 */
    const float odd[3] = {INFINITY, -INFINITY, NAN};
    const rk_affine w = {0.1f, -20};
    cr_assert_eq(rk_quantize_f32(&w, 3, odd, y), RK_OK);
    cr_assert(y[0] == 127 && y[1] == -128 && y[2] == -20);
    const rk_affine bad = {0.0f, 0}, badzp = {1.0f, 128};
    cr_assert_eq(rk_quantize_f32(&bad, 1, x, y), RK_ARG);
    cr_assert_eq(rk_quantize_f32(&badzp, 1, x, y), RK_ARG);
}

Test(tflite_kernels, quantize_equals_reference_on_random_floats)
{
    rng_state = 2007;
    float x[512];
    int8_t y[512];
    for (int t = 0; t < 400; t++) {
        const rk_affine q = {fabsf(random_float(-12, 4)), (int32_t)rng_int(-128, 127)};
        for (int i = 0; i < 512; i++) {
            const int64_t k = rng_int(0, 3);
            if (k == 0)   /* exact ties: (n + 1/2) * scale with a power-of-two scale is exact */
                x[i] = (float)((double)rng_int(-300, 300) + 0.5) * (float)ldexp(1.0, (int)rng_int(-10, 3));
            else if (k == 1)
                x[i] = ((float)rng_int(-40000, 40000) / 100.0f) * q.scale;
            else
                x[i] = random_float(-30, 20);
        }
        cr_assert_eq(rk_quantize_f32(&q, 512, x, y), RK_OK);
        for (int i = 0; i < 512; i++) {
            const float v = x[i] / q.scale;
            if (!(fabsf(v) < 2147483648.0f))
                continue;   /* outside TFLM's defined domain: the hand-value test covers it */
            cr_assert_eq(y[i], ref_quantize(x[i], q.scale, q.zero_point), "case %d x %a scale %a zp %d", t,
                         (double)x[i], (double)q.scale, q.zero_point);
        }
        /* in place: int8 outputs over the float input, from the same address */
        float *buf = xmalloc(sizeof x);
        memcpy(buf, x, sizeof x);
        cr_assert_eq(rk_quantize_f32(&q, 512, buf, (int8_t *)buf), RK_OK);
        cr_assert_eq(memcmp(buf, y, 512), 0);
        free(buf);
    }
}

/* Every int8 value at every zero point against TFLM's double product
** (float)((double)scale * (q - zp)), on random scales over the whole float
** range, tiny (subnormal products) and huge ones included. */
Test(tflite_kernels, dequantize_equals_the_double_product)
{
    rng_state = 2008;
    int8_t in[256];
    float out[256];
    for (int i = 0; i < 256; i++)
        in[i] = (int8_t)(i - 128);
    for (int t = 0; t < 3000; t++) {
        const rk_affine q = {fabsf(random_float(-149, 120)), (int32_t)rng_int(-128, 127)};
        if (!(q.scale > 0.0f))
            continue;
        cr_assert_eq(rk_dequantize_f32_buffer_size(&q, 256), 0);
        cr_assert_eq(rk_dequantize_f32(&q, 256, in, out), RK_OK);
        for (int i = 0; i < 256; i++) {
            const float want = (float)((double)q.scale * (double)(in[i] - q.zero_point));
            cr_assert(memcmp(&out[i], &want, sizeof want) == 0, "scale %a zp %d q %d: %a vs %a", (double)q.scale,
                      q.zero_point, in[i], (double)out[i], (double)want);
        }
    }
    /* hand: scale 0.5, zp 3: q = 10 -> 3.5 */
    const rk_affine h = {0.5f, 3};
    cr_assert_eq(rk_dequantize_f32(&h, 1, (const int8_t[1]){10}, out), RK_OK);
    cr_assert(out[0] == 3.5f);
}

Test(tflite_kernels, requantize_hand_and_random)
{
    rk_requant_params p;
    int8_t y[4];
    /* scale 1 -> 0.5: QuantizeMultiplier(2) = (2^30, 2); zps 1 -> -2:
    ** x = 4: (3 * 4 * 2^30) / 2^31 = 6, -2 -> 4; x = 100: 198 -> 127 */
    cr_assert_eq(rk_prepare_requantize(1.0f, 1, 0.5f, -2, &p), RK_OK);
    cr_assert(p.multiplier == 1 << 30 && p.shift == 2);
    cr_assert_eq(rk_requantize_s8_buffer_size(&p, 2), 0);
    cr_assert_eq(rk_requantize_s8(&p, 2, (const int8_t[2]){4, 100}, y), RK_OK);
    cr_assert(y[0] == 4 && y[1] == 127);
    rng_state = 2009;
    int8_t x[300], r[300];
    for (int t = 0; t < 500; t++) {
        const float si = fabsf(random_float(-10, 0)), so = fabsf(random_float(-10, 0));
        if (rk_prepare_requantize(si, (int32_t)rng_int(-128, 127), so, (int32_t)rng_int(-128, 127), &p) != RK_OK)
            continue;
        fill_s8(x, sizeof x, -128, 127);
        for (int i = 0; i < 300; i++)
            r[i] = ref_clamp8((int64_t)ref_requantize(x[i] - p.input_zero_point, p.multiplier, p.shift) +
                                  p.output_zero_point,
                              -128, 127);
        int8_t got[300];
        cr_assert_eq(rk_requantize_s8(&p, 300, x, got), RK_OK);
        cr_assert_eq(memcmp(got, r, 300), 0, "case %d", t);
        cr_assert_eq(rk_requantize_s8(&p, 300, x, x), RK_OK);
        cr_assert_eq(memcmp(x, r, 300), 0, "case %d in place", t);
    }
}

/* ------------------------------------------------ pad, transpose, concat */

Test(tflite_kernels, pad_hand_values)
{
    /* [1, 2, 2, 1] = 1 2 / 3 4, one row above and one column on the right,
    ** value 9:  9 9 9 / 1 2 9 / 3 4 9 */
    const int32_t d[4] = {1, 2, 2, 1};
    rk_pad_params p = {.before = {0, 1, 0, 0}, .after = {0, 0, 1, 0}, .value = 9};
    const int8_t x[4] = {1, 2, 3, 4}, want[9] = {9, 9, 9, 1, 2, 9, 3, 4, 9};
    int8_t y[9];
    rk_shape out;
    cr_assert(rk_pad_output_shape(&p, shape_of(4, d), &out));
    cr_assert(out.rank == 4 && out.d[0] == 1 && out.d[1] == 3 && out.d[2] == 3 && out.d[3] == 1);
    cr_assert_eq(rk_pad_buffer_size(&p, shape_of(4, d)), 0);
    cr_assert_eq(rk_pad(&p, shape_of(4, d), x, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 9), 0);
    p.before[1] = -1;
    cr_assert_eq(rk_pad(&p, shape_of(4, d), x, y), RK_ARG);
}

/* Reference: every output multi-index, inside the box or not. */
static void ref_pad(const rk_pad_params *p, rk_shape in, const int8_t *x, int8_t *y)
{
    rk_shape out = in;
    for (int i = 0; i < in.rank; i++)
        out.d[i] = in.d[i] + p->before[i] + p->after[i];
    const int64_t n = count_of(out);
    for (int64_t f = 0; f < n; f++) {
        int32_t idx[RK_MAX_RANK];
        multi_index(out, f, idx);
        bool inside = true;
        for (int i = 0; i < in.rank; i++) {
            idx[i] -= p->before[i];
            inside = inside && idx[i] >= 0 && idx[i] < in.d[i];
        }
        y[f] = inside ? x[flat_index(in, idx)] : p->value;
    }
}

Test(tflite_kernels, pad_equals_reference_on_random_tensors)
{
    rng_state = 2010;
    for (int t = 0; t < 600; t++) {
        const rk_shape in = random_shape((int)rng_int(1, RK_MAX_RANK), 6, 2000);
        rk_pad_params p = {.value = (int8_t)rng_int(-128, 127)};
        for (int i = 0; i < in.rank; i++) {
            p.before[i] = rng_int(0, 2) ? 0 : (int32_t)rng_int(0, 3);
            p.after[i] = rng_int(0, 2) ? 0 : (int32_t)rng_int(0, 3);
        }
        rk_shape out;
        cr_assert(rk_pad_output_shape(&p, in, &out));
        const size_t n_in = (size_t)count_of(in), n_out = (size_t)count_of(out);
        int8_t *x = xmalloc(n_in), *y = xmalloc(n_out), *r = xmalloc(n_out);
        fill_s8(x, n_in, -128, 127);
        memset(y, 0x5a, n_out);
        ref_pad(&p, in, x, r);
        cr_assert_eq(rk_pad(&p, in, x, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n_out), 0, "case %d", t);
        free(x);
        free(y);
        free(r);
    }
}

Test(tflite_kernels, transpose_hand_values)
{
    /* [2, 3] = 1 2 3 / 4 5 6, perm (1, 0): [3, 2] = 1 4 / 2 5 / 3 6 */
    const int32_t d[2] = {2, 3};
    const rk_transpose_params p = {.perm = {1, 0}};
    const int8_t x[6] = {1, 2, 3, 4, 5, 6}, want[6] = {1, 4, 2, 5, 3, 6};
    int8_t y[6];
    cr_assert_eq(rk_transpose_buffer_size(&p, shape_of(2, d)), 0);
    cr_assert_eq(rk_transpose(&p, shape_of(2, d), x, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 6), 0);
    const rk_transpose_params rep = {.perm = {0, 0}}, range = {.perm = {0, 2}};
    cr_assert_eq(rk_transpose(&rep, shape_of(2, d), x, y), RK_ARG);
    cr_assert_eq(rk_transpose(&range, shape_of(2, d), x, y), RK_ARG);
}

/* Reference: output multi-index o reads input i with i[perm[k]] = o[k]. */
static void ref_transpose(const int32_t *perm, rk_shape in, const int8_t *x, int8_t *y)
{
    rk_shape out = in;
    for (int k = 0; k < in.rank; k++)
        out.d[k] = in.d[perm[k]];
    const int64_t n = count_of(out);
    for (int64_t f = 0; f < n; f++) {
        int32_t o[RK_MAX_RANK], i[RK_MAX_RANK];
        multi_index(out, f, o);
        for (int k = 0; k < in.rank; k++)
            i[perm[k]] = o[k];
        y[f] = x[flat_index(in, i)];
    }
}

Test(tflite_kernels, transpose_equals_reference_on_random_tensors)
{
    rng_state = 2011;
    for (int t = 0; t < 600; t++) {
        const int rank = t == 0 ? 4 : (int)rng_int(1, RK_MAX_RANK);
        /* case 0: MCUNet-VWW's [1, 3, 3, 160] -> perm (0, 3, 1, 2) */
        const rk_shape in = t == 0 ? shape_of(4, (const int32_t[4]){1, 3, 3, 160}) : random_shape(rank, 7, 3000);
        rk_transpose_params p;
        for (int k = 0; k < rank; k++)
            p.perm[k] = k;
        if (t == 0) {
            const int32_t vww[4] = {0, 3, 1, 2};
            memcpy(p.perm, vww, sizeof vww);
        } else {
            for (int k = rank - 1; k > 0; k--) {   /* Fisher-Yates */
                const int j = (int)rng_int(0, k);
                const int32_t tmp = p.perm[k];
                p.perm[k] = p.perm[j];
                p.perm[j] = tmp;
            }
        }
        const size_t n = (size_t)count_of(in);
        int8_t *x = xmalloc(n), *y = xmalloc(n), *r = xmalloc(n);
        fill_s8(x, n, -128, 127);
        ref_transpose(p.perm, in, x, r);
        cr_assert_eq(rk_transpose(&p, in, x, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n), 0, "case %d", t);
        rk_shape out;
        cr_assert(rk_transpose_output_shape(&p, in, &out));
        for (int k = 0; k < rank; k++)
            cr_assert_eq(out.d[k], in.d[p.perm[k]]);
        free(x);
        free(y);
        free(r);
    }
}

Test(tflite_kernels, concat_hand_values)
{
    /* [2, 1] (1 2) and [2, 2] (3 4 / 5 6) along axis 1 (also given as -1):
    ** 1 3 4 / 2 5 6 */
    const rk_shape s[2] = {shape_of(2, (const int32_t[2]){2, 1}), shape_of(2, (const int32_t[2]){2, 2})};
    const int8_t a[2] = {1, 2}, b[4] = {3, 4, 5, 6}, want[6] = {1, 3, 4, 2, 5, 6};
    const int8_t *in[2] = {a, b};
    int8_t y[6];
    for (int32_t axis = -1; axis <= 1; axis += 2) {
        const rk_concat_params p = {axis, 2};
        cr_assert_eq(rk_concat_buffer_size(&p, s), 0);
        cr_assert_eq(rk_concat(&p, s, in, y), RK_OK);
        cr_assert_eq(memcmp(y, want, 6), 0);
    }
    const rk_concat_params p0 = {0, 2};   /* axis 0: the other extents differ */
    cr_assert_eq(rk_concat(&p0, s, in, y), RK_ARG);
}

Test(tflite_kernels, concat_equals_reference_on_random_tensors)
{
    rng_state = 2012;
    for (int t = 0; t < 500; t++) {
        const int rank = (int)rng_int(1, RK_MAX_RANK), n_in = (int)rng_int(1, 5);
        const rk_shape base = random_shape(rank, 5, 600);
        const int axis = (int)rng_int(0, rank - 1);
        rk_shape s[5];
        int8_t *in[5];
        for (int i = 0; i < n_in; i++) {
            s[i] = base;
            s[i].d[axis] = (int32_t)rng_int(1, 4);
            in[i] = xmalloc((size_t)count_of(s[i]));
            fill_s8(in[i], (size_t)count_of(s[i]), -128, 127);
        }
        const rk_concat_params p = {rng_int(0, 1) ? axis : axis - rank, n_in};
        rk_shape out;
        cr_assert(rk_concat_output_shape(&p, s, &out));
        const size_t n = (size_t)count_of(out);
        int8_t *y = xmalloc(n), *r = xmalloc(n);
        /* reference: output coordinate along axis -> (input, its coordinate) */
        for (size_t f = 0; f < n; f++) {
            int32_t idx[RK_MAX_RANK];
            multi_index(out, (int64_t)f, idx);
            int i = 0;
            while (idx[axis] >= s[i].d[axis])
                idx[axis] -= s[i++].d[axis];
            r[f] = in[i][flat_index(s[i], idx)];
        }
        cr_assert_eq(rk_concat(&p, s, (const int8_t *const *)in, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n), 0, "case %d", t);
        for (int i = 0; i < n_in; i++)
            free(in[i]);
        free(y);
        free(r);
    }
}

/* ------------------------------------------------------- nearest resize */

/* TFLM's GetNearestNeighbor with libm's floorf / roundf. */
static int32_t ref_nearest(int32_t o, int32_t in, int32_t out, bool align, bool half)
{
    const float scale = (align && out > 1) ? (float)(in - 1) / (float)(out - 1) : (float)in / (float)out;
    const float v = ((float)o + (half ? 0.5f : 0.0f)) * scale;
    int32_t i = align ? (int32_t)roundf(v) : (int32_t)floorf(v);
    i = i < in - 1 ? i : in - 1;
    return half && i < 0 ? 0 : i;
}

Test(tflite_kernels, resize_nearest_hand_values)
{
    /* 2 -> 3: no flags, scale 2/3: 0, 0.67, 1.33 -> 0 0 1; align_corners,
    ** scale 1/2: round(0, 0.5, 1) -> 0 1 1; half_pixel_centers: (0.5, 1.5,
    ** 2.5) * 2/3 = 0.33, 1.0, 1.67 -> 0 1 1; both: (0.5, 1.5, 2.5) / 2 =
    ** 0.25, 0.75, 1.25 -> 0 1 1 */
    const int32_t want[4][3] = {{0, 0, 1}, {0, 1, 1}, {0, 1, 1}, {0, 1, 1}};
    for (int f = 0; f < 4; f++) {
        const rk_resize_params p = {(f & 1) != 0, (f & 2) != 0};
        for (int32_t o = 0; o < 3; o++)
            cr_assert_eq(rk_resize_nearest_index(&p, o, 2, 3), want[f][o], "flags %d o %d", f, o);
    }
    /* 4 -> 2 with half_pixel_centers: (0.5, 1.5) * 2 = 1, 3 */
    const rk_resize_params hp = {false, true};
    cr_assert(rk_resize_nearest_index(&hp, 0, 4, 2) == 1 && rk_resize_nearest_index(&hp, 1, 4, 2) == 3);
}

Test(tflite_kernels, resize_nearest_equals_reference)
{
    rng_state = 2013;
    for (int f = 0; f < 4; f++) {
        const rk_resize_params p = {(f & 1) != 0, (f & 2) != 0};
        for (int32_t in = 1; in <= 70; in++)
            for (int32_t out = 1; out <= 150; out++)
                for (int32_t o = 0; o < out; o++)
                    cr_assert_eq(rk_resize_nearest_index(&p, o, in, out), ref_nearest(o, in, out, p.align_corners,
                                                                                     p.half_pixel_centers),
                                 "flags %d %d -> %d at %d", f, in, out, o);
    }
    for (int t = 0; t < 200; t++) {
        const rk_resize_params p = {rng_int(0, 1) != 0, rng_int(0, 1) != 0};
        const rk_dims in = {(int32_t)rng_int(1, 9), (int32_t)rng_int(1, 9), (int32_t)rng_int(1, 5)};
        const rk_dims out = {(int32_t)rng_int(1, 20), (int32_t)rng_int(1, 20), in.c};
        const size_t n_in = (size_t)(in.h * in.w * in.c), n_out = (size_t)(out.h * out.w * out.c);
        int8_t *x = xmalloc(n_in), *y = xmalloc(n_out), *r = xmalloc(n_out);
        fill_s8(x, n_in, -128, 127);
        for (int32_t a = 0; a < out.h; a++)
            for (int32_t b = 0; b < out.w; b++)
                for (int32_t c = 0; c < in.c; c++)
                    r[((size_t)a * (size_t)out.w + (size_t)b) * (size_t)in.c + (size_t)c] =
                        x[((size_t)ref_nearest(a, in.h, out.h, p.align_corners, p.half_pixel_centers) * (size_t)in.w +
                           (size_t)ref_nearest(b, in.w, out.w, p.align_corners, p.half_pixel_centers)) *
                              (size_t)in.c +
                          (size_t)c];
        cr_assert_eq(rk_resize_nearest_buffer_size(&p, in, out), 0);
        cr_assert_eq(rk_resize_nearest(&p, in, x, out, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n_out), 0, "case %d", t);
        free(x);
        free(y);
        free(r);
    }
}

/* rk_upsample_nearest (integer factors, floor(y / s)) is TFLM's resize
** without flags at out = s * in: every factor 1..16, every size 1..300. */
Test(tflite_kernels, upsample_nearest_is_tflm_resize_for_integer_factors)
{
    const rk_resize_params none = {false, false};
    for (int32_t s = 1; s <= 16; s++)
        for (int32_t in = 1; in <= 300; in++)
            for (int32_t o = 0; o < s * in; o++)
                cr_assert_eq(rk_resize_nearest_index(&none, o, in, s * in), o / s, "s %d in %d o %d", s, in, o);
    /* and the kernels agree byte for byte on a Person-Det-like 2x upsample */
    const rk_dims in = {4, 5, 32}, out = {8, 10, 32};
    int8_t x[4 * 5 * 32], a[8 * 10 * 32], b[8 * 10 * 32];
    rng_state = 2014;
    fill_s8(x, sizeof x, -128, 127);
    const rk_upsample_params up = {2, 2};
    cr_assert_eq(rk_upsample_nearest(&up, in, x, out, a), RK_OK);
    cr_assert_eq(rk_resize_nearest(&none, in, x, out, b), RK_OK);
    cr_assert_eq(memcmp(a, b, sizeof a), 0);
}

/* ------------------------------------------------- depthwise, multiplier */

Test(tflite_kernels, depthwise_multiplier_hand_values)
{
    /* 1x1 input, 2 channels (3, -2), multiplier 2, 1x1 filter (1, 2, 3, 4),
    ** zero points 0, requantize by 1 (2^30, shift 1): channel oc reads
    ** input oc / 2: 3*1, 3*2, -2*3, -2*4 = 3 6 -6 -8; bias (1, 0, 0, 1):
    ** 4 6 -6 -7 */
    const rk_conv_params p = {.k_h = 1, .k_w = 1, .s_h = 1, .s_w = 1, .d_h = 1, .d_w = 1,
                              .act = {-128, 127}};
    const int32_t mult[4] = {1 << 30, 1 << 30, 1 << 30, 1 << 30}, shift[4] = {1, 1, 1, 1}, bias[4] = {1, 0, 0, 1};
    const rk_quant q = {mult, shift};
    const int8_t x[2] = {3, -2}, w[4] = {1, 2, 3, 4}, want[4] = {4, 6, -6, -7};
    int8_t y[4];
    cr_assert_eq(rk_depthwise(&p, &q, (rk_dims){1, 1, 2}, x, w, bias, (rk_dims){1, 1, 4}, y), RK_OK);
    cr_assert_eq(memcmp(y, want, 4), 0);
    cr_assert_eq(rk_depthwise(&p, &q, (rk_dims){1, 1, 2}, x, w, bias, (rk_dims){1, 1, 3}, y), RK_ARG);
}

Test(tflite_kernels, depthwise_multiplier_equals_reference)
{
    rng_state = 2015;
    for (int t = 0; t < 400; t++) {
        ref_conv g = {0};
        const int m = (int)rng_int(1, 8);
        g.cin = (int)rng_int(1, 6);
        g.cout = g.cin * m;
        g.k_h = (int)rng_int(1, 4);
        g.k_w = (int)rng_int(1, 4);
        g.s_h = (int)rng_int(1, 3);
        g.s_w = (int)rng_int(1, 3);
        g.d_h = (int)rng_int(1, 2);
        g.d_w = (int)rng_int(1, 2);
        g.h_in = (int)rng_int(1, 12);
        g.w_in = (int)rng_int(1, 12);
        const int kh = (g.k_h - 1) * g.d_h + 1, kw = (g.k_w - 1) * g.d_w + 1;
        g.p_top = (int)rng_int(0, kh - 1);
        g.p_left = (int)rng_int(0, kw - 1);
        const int pb = (int)rng_int(0, kh - 1), pr = (int)rng_int(0, kw - 1);
        if (g.h_in + g.p_top + pb < kh || g.w_in + g.p_left + pr < kw)
            continue;
        g.h_out = (g.h_in + g.p_top + pb - kh) / g.s_h + 1;
        g.w_out = (g.w_in + g.p_left + pr - kw) / g.s_w + 1;
        g.in_zp = (int)rng_int(-128, 127);
        g.out_zp = (int)rng_int(-128, 127);
        g.act_min = -128;
        g.act_max = 127;
        if (rng_int(0, 2) == 0) {
            g.act_min = g.out_zp;
            g.act_max = (int)rng_int(g.out_zp, 127);
        }
        const size_t n_in = (size_t)(g.h_in * g.w_in * g.cin), n_f = (size_t)(g.k_h * g.k_w * g.cout);
        const size_t n_out = (size_t)(g.h_out * g.w_out * g.cout);
        int8_t *x = xmalloc(n_in), *w = xmalloc(n_f), *y = xmalloc(n_out), *r = xmalloc(n_out);
        int32_t *bias = xmalloc((size_t)g.cout * sizeof *bias), *mult = xmalloc((size_t)g.cout * sizeof *mult);
        int32_t *shift = xmalloc((size_t)g.cout * sizeof *shift);
        fill_s8(x, n_in, -128, 127);
        fill_s8(w, n_f, -127, 127);
        for (int o = 0; o < g.cout; o++) {
            bias[o] = (int32_t)rng_int(-20000, 20000);
            mult[o] = (int32_t)rng_int((int64_t)1 << 30, INT32_MAX);
            shift[o] = (int32_t)rng_int(-12, -4);
        }
        const bool with_bias = rng_int(0, 4) != 0;
        cr_assert(ref_conv2d(&g, true, x, w, with_bias ? bias : NULL, mult, shift, r));
        const rk_conv_params p = {.k_h = g.k_h, .k_w = g.k_w, .s_h = g.s_h, .s_w = g.s_w, .d_h = g.d_h,
                                  .d_w = g.d_w, .p_top = g.p_top, .p_bottom = pb, .p_left = g.p_left,
                                  .p_right = pr, .input_offset = -g.in_zp, .output_offset = g.out_zp,
                                  .act = {g.act_min, g.act_max}};
        const rk_quant q = {mult, shift};
        const rk_dims din = {g.h_in, g.w_in, g.cin}, dout = {g.h_out, g.w_out, g.cout};
        cr_assert_eq(rk_depthwise_buffer_size(&p, din, dout), 0);
        cr_assert_eq(rk_depthwise(&p, &q, din, x, w, with_bias ? bias : NULL, dout, y), RK_OK);
        cr_assert_eq(memcmp(y, r, n_out), 0, "case %d (m %d)", t, m);
        free(x);
        free(w);
        free(y);
        free(r);
        free(bias);
        free(mult);
        free(shift);
    }
}

/* ------------------------------------------------------- broadcast ADD */

/*
** rk_add_broadcast against the inputs expanded to the output's shape
** here, by every output coordinate (a multi-index, each input's index the
** coordinate or 0 on its unit axes), then one elementwise rk_add: random
** ranks 1-6, unit axes on either side, runs and single elements.
*/
Test(tflite_kernels, add_broadcast_equals_the_expanded_add)
{
    rng_state = 2016;
    const rk_add_params p = {.input1_offset = 5, .input2_offset = -3, .left_shift = 20,
                             .input1_multiplier = 1 << 30, .input1_shift = -1,
                             .input2_multiplier = 1518500250, .input2_shift = -2,
                             .output_multiplier = 1 << 30, .output_shift = -17, .output_offset = 7,
                             .act = {-128, 127}};
    for (int t = 0; t < 300; t++) {
        rk_shape out = {.rank = (int32_t)rng_int(1, RK_MAX_RANK)}, a = out, b = out;
        int64_t n = 1;
        for (int i = 0; i < out.rank; i++) {
            out.d[i] = (int32_t)rng_int(1, 4);
            a.d[i] = rng_int(0, 2) == 0 ? 1 : out.d[i];
            b.d[i] = rng_int(0, 2) == 0 ? 1 : out.d[i];
            n *= out.d[i];
        }
        int64_t na = 1, nb = 1;
        for (int i = 0; i < out.rank; i++)
            na *= a.d[i], nb *= b.d[i];
        int8_t *x1 = xmalloc((size_t)na), *x2 = xmalloc((size_t)nb), *e1 = xmalloc((size_t)n),
               *e2 = xmalloc((size_t)n), *y = xmalloc((size_t)n), *r = xmalloc((size_t)n);
        fill_s8(x1, (size_t)na, -128, 127);
        fill_s8(x2, (size_t)nb, -128, 127);
        for (int64_t o = 0; o < n; o++) {
            int64_t rest = o, ia = 0, ib = 0, sa = 1, sb = 1;
            for (int i = out.rank - 1; i >= 0; i--) {
                const int64_t c = rest % out.d[i];
                rest /= out.d[i];
                ia += (a.d[i] == 1 ? 0 : c) * sa;
                ib += (b.d[i] == 1 ? 0 : c) * sb;
                sa *= a.d[i];
                sb *= b.d[i];
            }
            e1[o] = x1[ia];
            e2[o] = x2[ib];
        }
        cr_assert_eq(rk_add(&p, (int32_t)n, e1, e2, r), RK_OK);
        cr_assert_eq(rk_add_broadcast(&p, &out, &a, &b, x1, x2, y), RK_OK);
        cr_assert_arr_eq(y, r, (size_t)n, "case %d", t);
        free(x1), free(x2), free(e1), free(e2), free(y), free(r);
    }
    /* shapes that do not broadcast, ranks that differ */
    const rk_shape o = {2, {2, 3}}, bad = {2, {2, 2}}, r1 = {1, {3}};
    int8_t buf[8] = {0};
    cr_expect_eq(rk_add_broadcast(&p, &o, &bad, &o, buf, buf, buf), RK_ARG);
    cr_expect_eq(rk_add_broadcast(&p, &o, &o, &r1, buf, buf, buf), RK_ARG);
    cr_expect_eq(rk_add_broadcast(&p, NULL, &o, &o, buf, buf, buf), RK_ARG);
}
