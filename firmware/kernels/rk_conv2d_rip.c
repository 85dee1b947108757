/*
** rk_conv2d_rip.c — the in-place convolution (rk_conv2d_rip.h).  Compiled
** twice: as is (rk_conv2d_rip) and with -DRK_INSTRUMENT
** (rk_conv2d_rip_checked, rk_conv2d_rip_checked_preset); rk_instrument.h
** says what changes.
**
** The order of reads and writes is the simulator's, because that order is
** what its truth certifies (sim/README.md): pixels row-major, channels in
** order, each channel written at (r*w_out + c)*c_out + oc;
**   gather: all reads of a pixel (its receptive field, into scratch)
**           before its first write;
**   taps:   channel oc's reads (every tap, every input channel, from the
**           workspace) before channel oc's write.
** Padded layout: pad cells are read like any other stored input (they are
** live to the simulator too); dense layout: pad taps are skipped (taps) or
** filled with the zero point in scratch (gather), touching no address.
*/
#include "rk_conv2d_rip.h"
#include "rk_instrument.h"
#include "rk_internal.h"

/* The arguments every pixel needs, gathered once. */
typedef struct rip_geom {
    int32_t cin, cout, depth;
    int32_t h_s, w_s;          /* stored extents: padded or real */
    int32_t off_h, off_w;      /* subtracted from a padded position to index the store */
    int64_t gap;
} rip_geom;

static rk_status check_args(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                            const int8_t *filter, const rk_inplace *ip, const int8_t *workspace,
                            int64_t ws_size, const int8_t *scratch, bool need_output_room, rip_geom *g)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || filter == NULL || workspace == NULL || ip == NULL ||
        (ip->layout != RK_PADDED && ip->layout != RK_DENSE) || (ip->order != RK_GATHER && ip->order != RK_TAPS) ||
        ip->gap < 0 || ws_size < 0 || ws_size > RK_MAX_SCALARS || (ip->order == RK_GATHER && scratch == NULL))
        return RK_ARG;
    const int64_t stored = rk_rip_stored_input(p, in, ip);
    if (stored < 0)
        return RK_ARG;
    if (ip->gap > ws_size - stored)
        return RK_SPACE;
    if (need_output_room && (int64_t)out.h * out.w * out.c > ws_size)
        return RK_SPACE;
    g->cin = in.c;
    g->cout = out.c;
    g->depth = p->k_h * p->k_w * in.c;
    g->gap = ip->gap;
    if (ip->layout == RK_PADDED) {
        g->h_s = in.h + p->p_top + p->p_bottom;
        g->w_s = in.w + p->p_left + p->p_right;
        g->off_h = g->off_w = 0;
    } else {
        g->h_s = in.h;
        g->w_s = in.w;
        g->off_h = p->p_top;
        g->off_w = p->p_left;
    }
    return RK_OK;
}

/* Gather first (sigma = 0). */
static rk_status run_gather(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                            const int32_t *bias, const rip_geom *g, int8_t *ws, int8_t *scratch RK_TRK_PARAM)
{
    const int32_t cin = g->cin, cout = g->cout, depth = g->depth;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    uint32_t *pre = rk_gather_pre(scratch);
    int8_t *col = (int8_t *)(pre + cout);
    rk_fold_offset(filter, bias, cout, depth, p->input_offset, pre);

    int64_t y = 0; /* address of the next output scalar */
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++) {
            RK_AT_PIXEL(r, c);
            int8_t *dst = col;
            for (int32_t a = 0; a < p->k_h; a++) {
                const int32_t i = r * p->s_h + a * p->d_h - g->off_h;
                for (int32_t b = 0; b < p->k_w; b++, dst += cin) {
                    const int32_t j = c * p->s_w + b * p->d_w - g->off_w;
                    if (i >= 0 && i < g->h_s && j >= 0 && j < g->w_s) {
                        const int64_t addr = g->gap + ((int64_t)i * g->w_s + j) * cin;
                        RK_READ_CHECK(addr, cin);
                        memcpy(dst, ws + addr, (size_t)cin);
                    } else {
                        memset(dst, zero_point, (size_t)cin);
                    }
                }
            }
            int32_t oc = 0;
            for (; oc + 4 <= cout; oc += 4) {
                uint32_t acc[4];
                rk_dot4(col, filter + (ptrdiff_t)oc * depth, depth, acc);
                for (int32_t k = 0; k < 4; k++) {
                    const int8_t v = rk_finish(acc[k] + pre[oc + k], q->multiplier[oc + k], q->shift[oc + k],
                                               p->output_offset, p->act);
                    RK_WRITE(ws, y + oc + k, v);
                }
            }
            for (; oc < cout; oc++) {
                const int8_t v = rk_finish(rk_dot(col, filter + (ptrdiff_t)oc * depth, depth) + pre[oc],
                                           q->multiplier[oc], q->shift[oc], p->output_offset, p->act);
                RK_WRITE(ws, y + oc, v);
            }
            y += cout;
        }
    return RK_OK;
}

/* Taps read from the workspace, channel by channel (sigma = c_out). */
static rk_status run_taps(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                          const int32_t *bias, const rip_geom *g, int8_t *ws RK_TRK_PARAM)
{
    const int32_t cin = g->cin, cout = g->cout, depth = g->depth;
    int64_t y = 0;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++) {
            RK_AT_PIXEL(r, c);
            for (int32_t oc = 0; oc < cout; oc++) {
                const int8_t *w = filter + (ptrdiff_t)oc * depth;
                uint32_t acc = bias != NULL ? (uint32_t)bias[oc] : 0u;
                for (int32_t a = 0; a < p->k_h; a++) {
                    const int32_t i = r * p->s_h + a * p->d_h - g->off_h;
                    for (int32_t b = 0; b < p->k_w; b++) {
                        const int32_t j = c * p->s_w + b * p->d_w - g->off_w;
                        if (i < 0 || i >= g->h_s || j < 0 || j >= g->w_s)
                            continue; /* dense pad tap: no address, adds nothing */
                        const int64_t addr = g->gap + ((int64_t)i * g->w_s + j) * cin;
                        RK_READ_CHECK(addr, cin);
                        acc += rk_dot_off(ws + addr, w + (a * p->k_w + b) * cin, cin, p->input_offset);
                    }
                }
                RK_WRITE(ws, y + oc, rk_finish(acc, q->multiplier[oc], q->shift[oc], p->output_offset, p->act));
            }
            y += cout;
        }
    return RK_OK;
}

#ifndef RK_INSTRUMENT

rk_status rk_conv2d_rip(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                        const int8_t *filter, const int32_t *bias, const rk_inplace *ip,
                        int8_t *workspace, int64_t ws_size, int8_t *scratch)
{
    rip_geom g;
    const rk_status st = check_args(p, q, in, out, filter, ip, workspace, ws_size, scratch, true, &g);
    if (st != RK_OK)
        return st;
    if (ip->order == RK_GATHER)
        return run_gather(p, q, out, filter, bias, &g, workspace, scratch);
    return run_taps(p, q, out, filter, bias, &g, workspace);
}

#else

rk_status rk_conv2d_rip_checked_preset(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                                       const int8_t *filter, const int32_t *bias, const rk_inplace *ip,
                                       int8_t *workspace, int64_t ws_size, int8_t *scratch,
                                       uint8_t *shadow, bool stop_at_first, rk_violation *v)
{
    rip_geom g;
    rk_status st = check_args(p, q, in, out, filter, ip, workspace, ws_size, scratch, false, &g);
    if (st == RK_OK && (shadow == NULL || v == NULL))
        st = RK_ARG;
    if (st != RK_OK)
        return st;
    rk_tracker t;
    rk_tracker *trk = &t;
    rk_trk_start(trk, shadow, ws_size, stop_at_first, v);
    if (ip->order == RK_GATHER)
        return run_gather(p, q, out, filter, bias, &g, workspace, scratch RK_TRK_ARG);
    return run_taps(p, q, out, filter, bias, &g, workspace RK_TRK_ARG);
}

rk_status rk_conv2d_rip_checked(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out,
                                const int8_t *filter, const int32_t *bias, const rk_inplace *ip,
                                int8_t *workspace, int64_t ws_size, int8_t *scratch,
                                uint8_t *shadow, bool stop_at_first, rk_violation *v)
{
    rip_geom g;
    rk_status st = check_args(p, q, in, out, filter, ip, workspace, ws_size, scratch, false, &g);
    if (st == RK_OK && (shadow == NULL || v == NULL))
        st = RK_ARG;
    if (st != RK_OK)
        return st;
    rk_shadow_init(shadow, ws_size, ip->gap, rk_rip_stored_input(p, in, ip));
    return rk_conv2d_rip_checked_preset(p, q, in, out, filter, bias, ip, workspace, ws_size, scratch, shadow,
                                        stop_at_first, v);
}

#endif
