/*
** rk_pool_inplace.c — pooling in place, forward, gather first
** (rk_pool.h).  Compiled twice like rk_conv2d_rip.c: as is and with
** RK_INSTRUMENT (rk_pool_inplace_checked, rk_instrument.h).
*/
#include "rk_instrument.h"
#include "rk_pool_internal.h"

#ifndef RK_INSTRUMENT
size_t rk_pool_inplace_buffer_size(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out)
{
    if (rk_pool_check(p, in, out) != RK_OK || (kind != RK_POOL_AVG && kind != RK_POOL_MAX))
        return 0;
    return (size_t)in.c;
}
#endif

static rk_status check_args(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out, int64_t gap,
                            const int8_t *workspace, int64_t ws_size, const int8_t *scratch, bool need_output_room)
{
    if (rk_pool_check(p, in, out) != RK_OK || (kind != RK_POOL_AVG && kind != RK_POOL_MAX) || gap < 0 ||
        workspace == NULL || scratch == NULL || ws_size < 0 || ws_size > RK_MAX_SCALARS)
        return RK_ARG;
    if (gap > ws_size - (int64_t)in.h * in.w * in.c)
        return RK_SPACE;
    if (need_output_room && (int64_t)out.h * out.w * out.c > ws_size)
        return RK_SPACE;
    return RK_OK;
}

static rk_status run(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out, int64_t gap, int8_t *ws,
                     int8_t *scratch RK_TRK_PARAM)
{
    const int32_t ch = in.c;
    int64_t y = 0;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++) {
            RK_AT_PIXEL(r, c);
            int32_t i0, i1, j0, j1;
            rk_pool_window(p, in, r, c, &i0, &i1, &j0, &j1);
            for (int32_t i = i0; i < i1; i++)
                RK_READ_CHECK(gap + ((int64_t)i * in.w + j0) * ch, (int64_t)(j1 - j0) * ch);
            for (int32_t k = 0; k < ch; k++) {
                int32_t acc = kind == RK_POOL_AVG ? 0 : -128;
                for (int32_t i = i0; i < i1; i++)
                    for (int32_t j = j0; j < j1; j++) {
                        const int32_t x = ws[gap + ((int64_t)i * in.w + j) * ch + k];
                        if (kind == RK_POOL_AVG)
                            acc += x;
                        else
                            acc = x > acc ? x : acc;
                    }
                scratch[k] = kind == RK_POOL_AVG ? rk_pool_avg_finish(acc, (i1 - i0) * (j1 - j0), p->act)
                                                 : rk_pool_max_finish(acc, p->act);
            }
            for (int32_t k = 0; k < ch; k++)
                RK_WRITE(ws, y + k, scratch[k]);
            y += ch;
        }
    return RK_OK;
}

#ifndef RK_INSTRUMENT

rk_status rk_pool_inplace(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out, int64_t gap,
                          int8_t *workspace, int64_t ws_size, int8_t *scratch)
{
    const rk_status st = check_args(p, kind, in, out, gap, workspace, ws_size, scratch, true);
    if (st != RK_OK)
        return st;
    return run(p, kind, in, out, gap, workspace, scratch);
}

#else

rk_status rk_pool_inplace_checked(const rk_pool_params *p, rk_pool_kind kind, rk_dims in, rk_dims out,
                                  int64_t gap, int8_t *workspace, int64_t ws_size, int8_t *scratch,
                                  uint8_t *shadow, bool stop_at_first, rk_violation *v)
{
    rk_status st = check_args(p, kind, in, out, gap, workspace, ws_size, scratch, false);
    if (st == RK_OK && (shadow == NULL || v == NULL))
        st = RK_ARG;
    if (st != RK_OK)
        return st;
    rk_shadow_init(shadow, ws_size, gap, (int64_t)in.h * in.w * in.c);
    rk_tracker t;
    rk_tracker *trk = &t;
    rk_trk_start(trk, shadow, ws_size, stop_at_first, v);
    return run(p, kind, in, out, gap, workspace, scratch RK_TRK_ARG);
}

#endif
