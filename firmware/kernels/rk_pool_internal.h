/*
** rk_pool_internal.h — argument check and the per-pixel window reduction
** shared by the pooling kernels (internal).
*/
#ifndef RK_POOL_INTERNAL_H
#define RK_POOL_INTERNAL_H

#include "rk_internal.h"
#include "rk_pool.h"

static inline rk_status rk_pool_check(const rk_pool_params *p, rk_dims in, rk_dims out)
{
    if (p == NULL || !rk_dims_ok(in) || !rk_dims_ok(out) || !rk_act_ok(p->act) || out.c != in.c)
        return RK_ARG;
    if (p->k_h < 1 || p->k_w < 1 || p->s_h < 1 || p->s_w < 1 || p->p_top < 0 || p->p_bottom < 0 ||
        p->p_left < 0 || p->p_right < 0 || p->p_top >= p->k_h || p->p_bottom >= p->k_h ||
        p->p_left >= p->k_w || p->p_right >= p->k_w)
        return RK_ARG;
    if (rk_out_extent(in.h, p->k_h, p->s_h, 1, p->p_top, p->p_bottom) != out.h ||
        rk_out_extent(in.w, p->k_w, p->s_w, 1, p->p_left, p->p_right) != out.w)
        return RK_ARG;
    return RK_OK;
}

/* The real rows [*i0, *i1) and columns [*j0, *j1) of output (r, c)'s window. */
static inline void rk_pool_window(const rk_pool_params *p, rk_dims in, int32_t r, int32_t c, int32_t *i0,
                                  int32_t *i1, int32_t *j0, int32_t *j1)
{
    const int32_t y = r * p->s_h - p->p_top, x = c * p->s_w - p->p_left;
    *i0 = y < 0 ? 0 : y;
    *i1 = y + p->k_h > in.h ? in.h : y + p->k_h;
    *j0 = x < 0 ? 0 : x;
    *j1 = x + p->k_w > in.w ? in.w : x + p->k_w;
}

/* TFLite's average: sum / count rounded half away from zero, clamped. */
static inline int8_t rk_pool_avg_finish(int32_t sum, int32_t count, rk_act act)
{
    int32_t v = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
    if (v < act.min)
        v = act.min;
    if (v > act.max)
        v = act.max;
    return (int8_t)v;
}

static inline int8_t rk_pool_max_finish(int32_t m, rk_act act)
{
    if (m < act.min)
        m = act.min;
    if (m > act.max)
        m = act.max;
    return (int8_t)m;
}

#endif
