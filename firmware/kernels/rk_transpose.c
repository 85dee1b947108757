/*
** rk_transpose.c — int8 TRANSPOSE (rk_transpose.h): the output written in
** order, the input offset kept by an odometer over the output axes with
** each axis' input stride.
*/
#include "rk_transpose.h"
#include "rk_internal.h"

size_t rk_transpose_buffer_size(const rk_transpose_params *p, rk_shape in)
{
    (void)p;
    (void)in;
    return 0;
}

bool rk_transpose_output_shape(const rk_transpose_params *p, rk_shape in, rk_shape *out)
{
    if (p == NULL || out == NULL || rk_shape_count(in) < 0)
        return false;
    bool seen[RK_MAX_RANK] = {false};
    rk_shape o = in;
    for (int32_t i = 0; i < in.rank; i++) {
        const int32_t a = p->perm[i];
        if (a < 0 || a >= in.rank || seen[a])
            return false;
        seen[a] = true;
        o.d[i] = in.d[a];
    }
    *out = o;
    return true;
}

rk_status rk_transpose(const rk_transpose_params *p, rk_shape in, const int8_t *input, int8_t *output)
{
    rk_shape out;
    if (!rk_transpose_output_shape(p, in, &out) || input == NULL || output == NULL)
        return RK_ARG;
    ptrdiff_t in_stride[RK_MAX_RANK], step[RK_MAX_RANK];
    in_stride[in.rank - 1] = 1;
    for (int32_t i = in.rank - 2; i >= 0; i--)
        in_stride[i] = in_stride[i + 1] * in.d[i + 1];
    for (int32_t k = 0; k < in.rank; k++)
        step[k] = in_stride[p->perm[k]];   /* input stride of output axis k */
    const int32_t last = in.rank - 1;
    const int32_t inner = out.d[last];
    const ptrdiff_t inner_step = step[last];
    int32_t idx[RK_MAX_RANK] = {0};
    ptrdiff_t off = 0;   /* input offset of the output row's first scalar */
    int8_t *y = output;
    for (;;) {
        const int8_t *x = input + off;
        for (int32_t j = 0; j < inner; j++)
            y[j] = x[(ptrdiff_t)j * inner_step];
        y += inner;
        int32_t k = last - 1;
        for (; k >= 0; k--) {
            if (++idx[k] < out.d[k]) {
                off += step[k];
                break;
            }
            off -= (ptrdiff_t)(out.d[k] - 1) * step[k];
            idx[k] = 0;
        }
        if (k < 0)
            return RK_OK;
    }
}
