/*
** rk_maxpool.c — int8 maximum pooling, dual buffer (rk_pool.h).
*/
#include "rk_pool_internal.h"

size_t rk_maxpool_buffer_size(const rk_pool_params *p, rk_dims in, rk_dims out)
{
    (void)p;
    (void)in;
    (void)out;
    return 0;
}

rk_status rk_maxpool(const rk_pool_params *p, rk_dims in, const int8_t *input, rk_dims out, int8_t *output)
{
    if (rk_pool_check(p, in, out) != RK_OK || input == NULL || output == NULL)
        return RK_ARG;
    const int32_t ch = in.c;
    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++, y += ch) {
            int32_t i0, i1, j0, j1;
            rk_pool_window(p, in, r, c, &i0, &i1, &j0, &j1);
            for (int32_t k = 0; k < ch; k++) {
                int32_t m = -128;
                for (int32_t i = i0; i < i1; i++)
                    for (int32_t j = j0; j < j1; j++) {
                        const int32_t x = input[((ptrdiff_t)i * in.w + j) * ch + k];
                        m = x > m ? x : m;
                    }
                y[k] = rk_pool_max_finish(m, p->act);
            }
        }
    return RK_OK;
}
