/*
** rk_upsample_nearest_inplace.c — nearest-neighbour upsampling in place by
** reverse traversal (rk_upsample.h, Theorem 14).  Compiled twice like
** rk_conv2d_rip.c: as is and with RK_INSTRUMENT (_checked).
*/
#include "rk_instrument.h"
#include "rk_upsample_internal.h"

#ifndef RK_INSTRUMENT
size_t rk_upsample_nearest_inplace_buffer_size(const rk_upsample_params *p, rk_dims in, rk_dims out)
{
    (void)p;
    (void)in;
    (void)out;
    return 0;
}

int64_t rk_upsample_nearest_inplace_workspace_size(const rk_upsample_params *p, rk_dims in)
{
    if (p == NULL || p->s_h < 1 || p->s_w < 1 || !rk_dims_ok(in))
        return -1;
    return (int64_t)in.h * p->s_h * in.w * p->s_w * in.c;
}
#endif

static rk_status check_args(const rk_upsample_params *p, rk_dims in, rk_dims out, const int8_t *workspace,
                            int64_t ws_size)
{
    if (rk_upsample_check(p, in, out) != RK_OK || workspace == NULL || ws_size < 0 || ws_size > RK_MAX_SCALARS)
        return RK_ARG;
    if ((int64_t)out.h * out.w * out.c > ws_size)
        return RK_SPACE;
    return RK_OK;
}

#ifndef RK_INSTRUMENT
/* The dual kernel's loop (rk_upsample_nearest.c), from the last output
** pixel to the first: one source row per output row, one copy per pixel.
** A pixel's copy never overlaps its source unless it is the source
** itself, and reads only input pixels no later copy has written (Theorem
** 14).  The source is the pixel itself only at stride 1x1 (every pixel:
** nothing to do), in row 0 at s_w = 1 (the whole row) and otherwise at
** pixel (0, 0): the loop stops before those instead of comparing the two
** addresses per pixel, so it makes the dual kernel's copies, no more
** work (and memcpy never gets overlapping ranges). */
static rk_status run(const rk_upsample_params *p, rk_dims in, rk_dims out, int8_t *ws)
{
    if (p->s_h == 1 && p->s_w == 1) /* the output is the input */
        return RK_OK;
    const size_t ch = (size_t)in.c;
    int8_t *y = ws + (size_t)out.h * (size_t)out.w * ch;
    for (int32_t r = out.h - 1; r >= 0; r--) {
        const int8_t *row = ws + (size_t)(r / p->s_h) * (size_t)in.w * ch;
        const int32_t last = r > 0 ? 0 : p->s_w == 1 ? out.w : 1; /* row 0's own sources */
        for (int32_t c = out.w - 1; c >= last; c--) {
            y -= ch;
            memcpy(y, row + (size_t)(c / p->s_w) * ch, ch);
        }
    }
    return RK_OK;
}
#else
/* The same order, every read checked and every write recorded. */
static rk_status run(const rk_upsample_params *p, rk_dims in, rk_dims out, int8_t *ws RK_TRK_PARAM)
{
    const int32_t ch = in.c;
    trk->writes = 0;
    for (int32_t r = out.h - 1; r >= 0; r--)
        for (int32_t c = out.w - 1; c >= 0; c--) {
            RK_AT_PIXEL(r, c);
            const int64_t src = ((int64_t)(r / p->s_h) * in.w + c / p->s_w) * ch;
            const int64_t dst = ((int64_t)r * out.w + c) * ch;
            RK_READ_CHECK(src, ch);
            if (src == dst) {
                /* (0,0), or s = 1x1: the copy is the identity (Theorem 14) */
                for (int32_t k = 0; k < ch; k++)
                    RK_WRITE(ws, dst + k, ws[src + k]);
                continue;
            }
            /* dst >= src + ch: the ranges do not overlap */
            for (int32_t k = 0; k < ch; k++)
                RK_WRITE(ws, dst + k, ws[src + k]);
        }
    return RK_OK;
}
#endif

#ifndef RK_INSTRUMENT

rk_status rk_upsample_nearest_inplace(const rk_upsample_params *p, rk_dims in, rk_dims out, int8_t *workspace,
                                      int64_t ws_size)
{
    const rk_status st = check_args(p, in, out, workspace, ws_size);
    if (st != RK_OK)
        return st;
    return run(p, in, out, workspace);
}

#else

rk_status rk_upsample_nearest_inplace_checked(const rk_upsample_params *p, rk_dims in, rk_dims out,
                                              int8_t *workspace, int64_t ws_size, uint8_t *shadow,
                                              bool stop_at_first, rk_violation *v)
{
    rk_status st = check_args(p, in, out, workspace, ws_size);
    if (st == RK_OK && (shadow == NULL || v == NULL))
        st = RK_ARG;
    if (st != RK_OK)
        return st;
    rk_shadow_init(shadow, ws_size, 0, (int64_t)in.h * in.w * in.c);
    rk_tracker t;
    rk_tracker *trk = &t;
    rk_trk_start(trk, shadow, ws_size, stop_at_first, v);
    return run(p, in, out, workspace RK_TRK_ARG);
}

#endif
