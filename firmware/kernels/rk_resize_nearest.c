/*
** rk_resize_nearest.c — int8 nearest-neighbour resize (rk_resize_nearest.h).
** Floor and round are taken on non-negative floats below 2^31 without
** libm: the truncating conversion is floor there, and v - trunc(v) is
** exact, so rounding half away from zero compares it with 0.5.
*/
#include "rk_resize_nearest.h"
#include "rk_internal.h"

size_t rk_resize_nearest_buffer_size(const rk_resize_params *p, rk_dims in, rk_dims out)
{
    (void)p;
    (void)in;
    (void)out;
    return 0;
}

int32_t rk_resize_nearest_index(const rk_resize_params *p, int32_t o, int32_t in_size, int32_t out_size)
{
    const float scale = (p->align_corners && out_size > 1) ? (float)(in_size - 1) / (float)(out_size - 1)
                                                           : (float)in_size / (float)out_size;
    const float offset = p->half_pixel_centers ? 0.5f : 0.0f;
    const float v = ((float)o + offset) * scale;   /* >= 0 */
    int32_t i = (int32_t)v;                        /* floor */
    if (p->align_corners && v - (float)i >= 0.5f)
        i++;                                       /* round half away from zero */
    if (i > in_size - 1)
        i = in_size - 1;
    return i;   /* >= 0 always, so TFLM's max(0, .) for half_pixel_centers changes nothing */
}

rk_status rk_resize_nearest(const rk_resize_params *p, rk_dims in, const int8_t *input, rk_dims out,
                            int8_t *output)
{
    if (p == NULL || !rk_dims_ok(in) || !rk_dims_ok(out) || out.c != in.c || input == NULL || output == NULL)
        return RK_ARG;
    const size_t ch = (size_t)in.c;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++) {
        const int8_t *row = input + (size_t)rk_resize_nearest_index(p, r, in.h, out.h) * (size_t)in.w * ch;
        for (int32_t c = 0; c < out.w; c++, y += ch)
            memcpy(y, row + (size_t)rk_resize_nearest_index(p, c, in.w, out.w) * ch, ch);
    }
    return RK_OK;
}
