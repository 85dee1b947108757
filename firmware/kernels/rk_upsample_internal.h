/*
** rk_upsample_internal.h — argument check of the upsampling kernels (internal).
*/
#ifndef RK_UPSAMPLE_INTERNAL_H
#define RK_UPSAMPLE_INTERNAL_H

#include "rk_internal.h"
#include "rk_upsample.h"

static inline rk_status rk_upsample_check(const rk_upsample_params *p, rk_dims in, rk_dims out)
{
    if (p == NULL || p->s_h < 1 || p->s_w < 1 || !rk_dims_ok(in) || !rk_dims_ok(out) || out.c != in.c ||
        (int64_t)in.h * p->s_h != out.h || (int64_t)in.w * p->s_w != out.w)
        return RK_ARG;
    return RK_OK;
}

#endif
