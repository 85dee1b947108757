/*
** cmsis_copies.h — where CMSIS-NN's own memcpy would run between overlapping
** ranges (undefined in C: such a run proves nothing), for korder_verify.h's
** kv_undefined_at in the suites that run CMSIS-NN kernels (cmsis_orders,
** host; cmsis_orders_m33, Cortex-M33 with ARM_MATH_DSP, whose max pool and
** pad copy alike).  Include after korder_verify.h.
*/
#ifndef RIPSIM_CMSIS_COPIES_H
#define RIPSIM_CMSIS_COPIES_H

/* arm_max_pool_s8 copies each pixel's first real tap with memcpy: at gap d, does a copy's destination
** (the output pixel) meet its source (the tap, d bytes up)?  Then the run is undefined. */
static bool maxpool_copy_overlaps(const struct layer *l, int64_t d)
{
    const rip_kgeom *g = &l->ctx.g;
    if (l->ctx.order != RIP_KO_CMSIS_MAXPOOL)
        return false;
    const int64_t C = g->c_in;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t oy = 0; oy < g->h_out; oy++)
            for (int64_t ox = 0; ox < g->w_out; ox++) {
                const int64_t y = oy * g->s_h - g->pad_top, x = ox * g->s_w - g->pad_left;
                const int64_t ty = y < 0 ? 0 : y, tx = x < 0 ? 0 : x;
                if (ty >= g->h_in || tx >= g->w_in || ty >= y + g->k_h || tx >= x + g->k_w)
                    continue;            /* no real tap: no copy */
                const int64_t src = d + ((b * g->h_in + ty) * g->w_in + tx) * C;
                const int64_t dst = ((b * g->h_out + oy) * g->w_out + ox) * C;
                if (src < dst + C && dst < src + C)
                    return true;
            }
    return false;
}

/* arm_pad_s8 copies each input row (or, with channel padding, each pixel's channels) with memcpy:
** at gap d, does one copy's destination meet its source?  Input row (b, y) goes to output row
** (b + pad_batch, y + pad_top) from column pad_left (and channel pad_depth): positions computed
** here from the shapes, not from the order's generator. */
static bool pad_copy_overlaps(const struct layer *l, int64_t d)
{
    const rip_kgeom *g = &l->ctx.g;
    const bool per_pixel = g->c_in != g->c_out;
    const int64_t len = per_pixel ? g->c_in : g->w_in * g->c_in;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t y = 0; y < g->h_in; y++)
            for (int64_t x = 0; x < (per_pixel ? g->w_in : 1); x++) {
                const int64_t src = d + ((b * g->h_in + y) * g->w_in + x) * g->c_in;
                const int64_t dst = (((b + g->pad_batch) * g->h_out + y + g->pad_top) * g->w_out + x + g->pad_left) *
                                        g->c_out + g->pad_depth;
                if (src < dst + len && dst < src + len)
                    return true;
            }
    return false;
}

/* Undefined runs of the suite's kernels: the max pool's and the pad's memcpy between overlapping ranges. */
static bool copy_overlaps(const struct layer *l, int64_t d)
{
    return maxpool_copy_overlaps(l, d) || (l->ctx.order == RIP_KO_CMSIS_PAD && pad_copy_overlaps(l, d));
}

#endif
