/*
** rk_quantize.c — QUANTIZE / DEQUANTIZE for int8 (rk_quantize.h).
*/
#include "rk_quantize.h"
#include "rk_internal.h"

size_t rk_quantize_f32_buffer_size(const rk_affine *q, int32_t n)
{
    (void)q;
    (void)n;
    return 0;
}

size_t rk_dequantize_f32_buffer_size(const rk_affine *q, int32_t n)
{
    (void)q;
    (void)n;
    return 0;
}

size_t rk_requantize_s8_buffer_size(const rk_requant_params *p, int32_t n)
{
    (void)p;
    (void)n;
    return 0;
}

static bool affine_ok(const rk_affine *q)
{
    /* scale > 0 and finite (NaN fails both comparisons) */
    return q != NULL && q->scale > 0.0f && q->scale <= 3.40282347e38f && q->zero_point >= -128 &&
           q->zero_point <= 127;
}

static int8_t clamp8(int32_t v)
{
    return (int8_t)(v < -128 ? -128 : v > 127 ? 127 : v);
}

/* clamp(round_half_away(v) + zp) for a float v, without libm: |v| < 256 is
** rounded through its truncation (v - trunc(v) is exact in float); larger
** magnitudes clamp whatever the zero point; NaN counts as 0. */
static int8_t quantize_one(float v, int32_t zp)
{
    if (v != v)
        return clamp8(zp);
    if (v >= 256.0f)
        return 127;
    if (v <= -256.0f)
        return -128;
    int32_t t = (int32_t)v;
    const float frac = v - (float)t;
    if (frac >= 0.5f)
        t++;
    else if (frac <= -0.5f)
        t--;
    return clamp8(t + zp);
}

rk_status rk_quantize_f32(const rk_affine *q, int32_t n, const float *input, int8_t *output)
{
    if (!affine_ok(q) || n < 0 || input == NULL || output == NULL)
        return RK_ARG;
    for (int32_t i = 0; i < n; i++)
        output[i] = quantize_one(input[i] / q->scale, q->zero_point);
    return RK_OK;
}

rk_status rk_dequantize_f32(const rk_affine *q, int32_t n, const int8_t *input, float *output)
{
    if (!affine_ok(q) || n < 0 || input == NULL || output == NULL)
        return RK_ARG;
    for (int32_t i = 0; i < n; i++)
        output[i] = (float)((int32_t)input[i] - q->zero_point) * q->scale;
    return RK_OK;
}

rk_status rk_requantize_s8(const rk_requant_params *p, int32_t n, const int8_t *input, int8_t *output)
{
    if (p == NULL || n < 0 || input == NULL || output == NULL || p->input_zero_point < -128 ||
        p->input_zero_point > 127 || p->output_zero_point < -128 || p->output_zero_point > 127 ||
        p->multiplier < 0 || p->shift < -31 || p->shift > 30)
        return RK_ARG;
    const rk_act full = {-128, 127};
    for (int32_t i = 0; i < n; i++)
        output[i] = rk_finish((uint32_t)((int32_t)input[i] - p->input_zero_point), p->multiplier, p->shift,
                              p->output_zero_point, full);
    return RK_OK;
}
