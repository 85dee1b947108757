/*
** rk_mean.c — int8 MEAN over any axes (rk_mean.h).  The kept axes are
** walked outside, the reduced ones inside, both with input strides, so
** every output is one sum and no accumulator array is needed (the int32
** sum wraps, so its order does not matter).
*/
#include "rk_mean.h"
#include "rk_internal.h"

size_t rk_mean_buffer_size(const rk_mean_params *p, rk_shape in, const int32_t *axis, int32_t n_axis)
{
    (void)p;
    (void)in;
    (void)axis;
    (void)n_axis;
    return 0;
}

/* A list of axes walked as one odometer: extents and input strides. */
typedef struct walk { int32_t n, ext[RK_MAX_RANK]; ptrdiff_t stride[RK_MAX_RANK]; } walk;

/* Advance the odometer idx over w; returns the change of the input offset
** and sets *done when it wrapped past the last index. */
static ptrdiff_t walk_next(const walk *w, int32_t *idx, bool *done)
{
    ptrdiff_t delta = 0;
    for (int32_t k = w->n - 1; k >= 0; k--) {
        if (++idx[k] < w->ext[k])
            return delta + w->stride[k];
        idx[k] = 0;
        delta -= (ptrdiff_t)(w->ext[k] - 1) * w->stride[k];
    }
    *done = true;
    return delta;
}

/* TFLM's eval-time scaling of the multiplier by 1 / count. */
static void mean_scaling(const rk_mean_params *p, int64_t count, int32_t *mult, int32_t *shift)
{
    int32_t s = 0;
    while (s < 62 && ((int64_t)1 << (s + 1)) <= count)
        s++;                                  /* floor(log2(count)) */
    s = s < 32 ? s : 32;
    s = s < 31 + p->shift ? s : 31 + p->shift;
    *mult = (int32_t)(((int64_t)p->multiplier << s) / count);
    *shift = p->shift - s;
}

rk_status rk_mean(const rk_mean_params *p, rk_shape in, const int32_t *axis, int32_t n_axis, const int8_t *input,
                  int8_t *output)
{
    if (p == NULL || input == NULL || output == NULL || rk_shape_count(in) < 0 || n_axis < 0 ||
        (n_axis > 0 && axis == NULL) || p->input_zero_point < -128 || p->input_zero_point > 127 ||
        p->output_zero_point < -128 || p->output_zero_point > 127 || p->multiplier < 0 || p->shift < -31 ||
        p->shift > 30)
        return RK_ARG;
    bool reduced[RK_MAX_RANK] = {false};
    for (int32_t i = 0; i < n_axis; i++) {
        if (axis[i] < -in.rank || axis[i] >= in.rank)
            return RK_ARG;
        reduced[axis[i] < 0 ? axis[i] + in.rank : axis[i]] = true;
    }
    ptrdiff_t stride[RK_MAX_RANK];
    stride[in.rank - 1] = 1;
    for (int32_t d = in.rank - 2; d >= 0; d--)
        stride[d] = stride[d + 1] * in.d[d + 1];
    walk kept = {0}, red = {0};
    int64_t count = 1;
    for (int32_t d = 0; d < in.rank; d++) {   /* outer axes first in both walks */
        walk *w = reduced[d] ? &red : &kept;
        w->ext[w->n] = in.d[d];
        w->stride[w->n] = stride[d];
        w->n++;
        if (reduced[d])
            count *= in.d[d];
    }
    int32_t mult, shift;
    mean_scaling(p, count, &mult, &shift);
    const uint32_t zp_total = (uint32_t)((int64_t)p->input_zero_point * count);
    int32_t ki[RK_MAX_RANK] = {0};
    const int8_t *base = input;
    int8_t *y = output;
    for (bool kept_done = false; !kept_done; base += walk_next(&kept, ki, &kept_done)) {
        int32_t ri[RK_MAX_RANK] = {0};
        const int8_t *x = base;
        uint32_t sum = 0;
        for (bool red_done = false; !red_done; x += walk_next(&red, ri, &red_done))
            sum += (uint32_t)(int32_t)*x;
        const int64_t v = (int64_t)rk_requantize_inline((int32_t)(sum - zp_total), mult, shift) + p->output_zero_point;
        *y++ = (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
    }
    return RK_OK;
}
