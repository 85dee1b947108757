/*
** rk_pad.c — int8 constant padding (rk_pad.h), one output row (the last
** axis) at a time: a row outside the box is all value, a row inside is
** value, the input row, value.
*/
#include "rk_pad.h"
#include "rk_internal.h"

size_t rk_pad_buffer_size(const rk_pad_params *p, rk_shape in)
{
    (void)p;
    (void)in;
    return 0;
}

bool rk_pad_output_shape(const rk_pad_params *p, rk_shape in, rk_shape *out)
{
    if (p == NULL || out == NULL || rk_shape_count(in) < 0)
        return false;
    rk_shape o = in;
    for (int32_t i = 0; i < in.rank; i++) {
        if (p->before[i] < 0 || p->after[i] < 0)
            return false;
        const int64_t e = (int64_t)in.d[i] + p->before[i] + p->after[i];
        if (e > RK_MAX_SCALARS)
            return false;
        o.d[i] = (int32_t)e;
    }
    if (rk_shape_count(o) < 0)
        return false;
    *out = o;
    return true;
}

rk_status rk_pad(const rk_pad_params *p, rk_shape in, const int8_t *input, int8_t *output)
{
    rk_shape out;
    if (!rk_pad_output_shape(p, in, &out) || input == NULL || output == NULL)
        return RK_ARG;
    const int32_t last = in.rank - 1;
    const size_t row = (size_t)out.d[last], lo = (size_t)p->before[last], mid = (size_t)in.d[last];
    int32_t idx[RK_MAX_RANK] = {0};   /* the output row's index over the outer axes */
    const int8_t *x = input;
    int8_t *y = output;
    for (;;) {
        bool inside = true;
        for (int32_t k = 0; k < last; k++)
            inside = inside && idx[k] >= p->before[k] && idx[k] < p->before[k] + in.d[k];
        if (inside) {
            memset(y, p->value, lo);
            memcpy(y + lo, x, mid);
            memset(y + lo + mid, p->value, row - lo - mid);
            x += mid;
        } else {
            memset(y, p->value, row);
        }
        y += row;
        int32_t k = last - 1;
        while (k >= 0 && ++idx[k] == out.d[k])
            idx[k--] = 0;
        if (k < 0)
            return RK_OK;
    }
}
