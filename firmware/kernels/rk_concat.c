/*
** rk_concat.c — int8 concatenation (rk_concat.h): for every index over
** the axes before axis, each input's block (its extent along axis times
** the extents after it) copied in turn.
*/
#include "rk_concat.h"
#include "rk_internal.h"

size_t rk_concat_buffer_size(const rk_concat_params *p, const rk_shape *shapes)
{
    (void)p;
    (void)shapes;
    return 0;
}

bool rk_concat_output_shape(const rk_concat_params *p, const rk_shape *shapes, rk_shape *out)
{
    if (p == NULL || shapes == NULL || out == NULL || p->n_inputs < 1 || rk_shape_count(shapes[0]) < 0)
        return false;
    const int32_t rank = shapes[0].rank;
    if (p->axis < -rank || p->axis >= rank)
        return false;
    const int32_t axis = p->axis < 0 ? p->axis + rank : p->axis;
    rk_shape o = shapes[0];
    int64_t along = 0;
    for (int32_t i = 0; i < p->n_inputs; i++) {
        if (rk_shape_count(shapes[i]) < 0 || shapes[i].rank != rank)
            return false;
        for (int32_t d = 0; d < rank; d++)
            if (d != axis && shapes[i].d[d] != o.d[d])
                return false;
        along += shapes[i].d[axis];
        if (along > RK_MAX_SCALARS)
            return false;
    }
    o.d[axis] = (int32_t)along;
    if (rk_shape_count(o) < 0)
        return false;
    *out = o;
    return true;
}

rk_status rk_concat(const rk_concat_params *p, const rk_shape *shapes, const int8_t *const *inputs,
                    int8_t *output)
{
    rk_shape out;
    if (!rk_concat_output_shape(p, shapes, &out) || inputs == NULL || output == NULL)
        return RK_ARG;
    for (int32_t i = 0; i < p->n_inputs; i++)
        if (inputs[i] == NULL)
            return RK_ARG;
    const int32_t axis = p->axis < 0 ? p->axis + out.rank : p->axis;
    size_t outer = 1, inner = 1;
    for (int32_t d = 0; d < axis; d++)
        outer *= (size_t)out.d[d];
    for (int32_t d = axis + 1; d < out.rank; d++)
        inner *= (size_t)out.d[d];
    int8_t *y = output;
    for (size_t o = 0; o < outer; o++)
        for (int32_t i = 0; i < p->n_inputs; i++) {
            const size_t block = (size_t)shapes[i].d[axis] * inner;
            memcpy(y, inputs[i] + o * block, block);
            y += block;
        }
    return RK_OK;
}
