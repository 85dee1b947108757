/*
** rk_upsample_nearest.c — nearest-neighbour upsampling, dual buffer (rk_upsample.h).
*/
#include "rk_upsample_internal.h"

size_t rk_upsample_nearest_buffer_size(const rk_upsample_params *p, rk_dims in, rk_dims out)
{
    (void)p;
    (void)in;
    (void)out;
    return 0;
}

rk_status rk_upsample_nearest(const rk_upsample_params *p, rk_dims in, const int8_t *input, rk_dims out,
                              int8_t *output)
{
    if (rk_upsample_check(p, in, out) != RK_OK || input == NULL || output == NULL)
        return RK_ARG;
    const size_t ch = (size_t)in.c;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++) {
        const int8_t *row = input + (size_t)(r / p->s_h) * (size_t)in.w * ch;
        for (int32_t c = 0; c < out.w; c++, y += ch)
            memcpy(y, row + (size_t)(c / p->s_w) * ch, ch);
    }
    return RK_OK;
}
