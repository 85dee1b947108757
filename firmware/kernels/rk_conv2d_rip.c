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

/* The taps of one output pixel that land on stored input: rows a in
** [a_lo, a_hi) and columns b in [b_lo, b_hi) (all of them in the padded
** layout; the dense layout drops the pad taps, which sit at the ends of each
** axis).  Tap (a, b) reads stored pixel (i_base + a d_h, j_base + b d_w). */
typedef struct tap_span {
    int32_t a_lo, a_hi, b_lo, b_hi;
    int64_t i_base, j_base;
} tap_span;

/* [*lo, *hi): the t in [0, k) with 0 <= base + t d < n (d >= 1). */
static void axis_span(int64_t base, int32_t k, int32_t d, int32_t n, int32_t *lo, int32_t *hi)
{
    /* d = 1 without a division: Cortex-M0 has no divide instruction, and a
    ** 64-bit division per pixel and axis is a library call there */
    int64_t l = base >= 0 ? 0 : d == 1 ? -base : (-base + d - 1) / d;
    int64_t h = base > (int64_t)n - 1 ? 0 : d == 1 ? (int64_t)n - base : ((int64_t)n - 1 - base) / d + 1;
    if (h > k)
        h = k;
    if (l > h)
        l = h;
    *lo = (int32_t)l;
    *hi = (int32_t)h;
}

static tap_span span_of(const rk_conv_params *p, const rip_geom *g, int32_t r, int32_t c)
{
    tap_span t;
    t.i_base = (int64_t)r * p->s_h - g->off_h;
    t.j_base = (int64_t)c * p->s_w - g->off_w;
    axis_span(t.i_base, p->k_h, p->d_h, g->h_s, &t.a_lo, &t.a_hi);
    axis_span(t.j_base, p->k_w, p->d_w, g->w_s, &t.b_lo, &t.b_hi);
    if (t.b_lo == t.b_hi)
        t.a_hi = t.a_lo; /* no column on the input: no tap at all */
    return t;
}

/* Workspace address of the first stored tap of row a (a_lo <= a < a_hi). */
static int64_t row_address(const rk_conv_params *p, const rip_geom *g, const tap_span *t, int32_t a)
{
    const int64_t i = t->i_base + (int64_t)a * p->d_h, j = t->j_base + (int64_t)t->b_lo * p->d_w;
    return g->gap + (i * g->w_s + j) * g->cin;
}

/* The receptive field of pixel (r, c) into col (pad taps and taps off the
** store at the zero point): per tap row, the stored taps are one
** contiguous run of the workspace when d_w = 1 (read and checked as one).
** Instrumented: false when a check says stop (RK_READ_CHECK returns
** RK_OK, which is 0, i.e. false, here). */
static bool gather_pixel(const rk_conv_params *p, const rip_geom *g, int32_t r, int32_t c, const int8_t *ws,
                         int8_t *col RK_TRK_PARAM)
{
    const int32_t cin = g->cin;
    const size_t row_bytes = (size_t)p->k_w * (size_t)cin;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    const tap_span t = span_of(p, g, r, c);
    const size_t before = (size_t)t.b_lo * (size_t)cin, valid = (size_t)(t.b_hi - t.b_lo) * (size_t)cin;
    int8_t *dst = col;
    for (int32_t a = 0; a < p->k_h; a++, dst += row_bytes) {
        if (a < t.a_lo || a >= t.a_hi) {
            memset(dst, zero_point, row_bytes);
            continue;
        }
        const int64_t addr = row_address(p, g, &t, a);
        memset(dst, zero_point, before);
        if (p->d_w == 1) {
            RK_READ_CHECK(addr, (int64_t)valid);
            memcpy(dst + before, ws + addr, valid);
        } else {
            for (int32_t b = t.b_lo; b < t.b_hi; b++) {
                const int64_t at = addr + (int64_t)(b - t.b_lo) * p->d_w * cin;
                RK_READ_CHECK(at, cin);
                memcpy(dst + (size_t)b * (size_t)cin, ws + at, (size_t)cin);
            }
        }
        memset(dst + before + valid, zero_point, row_bytes - before - valid);
    }
    return true;
}

/* Channels [oc, cout) of the pixel gathered in col, written from y.
** false when the instrumented write check says stop (as gather_pixel). */
static bool gather_channels(const rk_conv_params *p, const rk_quant *q, const int32_t *bias, const int8_t *filter,
                            const rip_geom *g, const int8_t *col, int32_t oc, int64_t y, int8_t *ws RK_TRK_PARAM)
{
#ifndef RK_INSTRUMENT
    /* the release build runs the dual buffer's own channel loop */
    const rk_quant qo = {q->multiplier + oc, q->shift + oc};
    rk_one_channels(p, &qo, col, filter + (ptrdiff_t)oc * g->depth, bias != NULL ? bias + oc : NULL, g->depth,
                    g->cout - oc, ws + y + oc);
    return true;
#else
    const int32_t cout = g->cout, depth = g->depth, off = p->input_offset;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[4];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = rk_bias0(bias, oc + k);
        rk_dot4_off_acc(col, filter + (ptrdiff_t)oc * depth, depth, depth, off, acc);
        for (int32_t k = 0; k < 4; k++) {
            const int8_t v = rk_finish(acc[k], q->multiplier[oc + k], q->shift[oc + k], p->output_offset, p->act);
            RK_WRITE(ws, y + oc + k, v);
        }
    }
    for (; oc < cout; oc++) {
        const int8_t v = rk_finish(rk_bias0(bias, oc) + rk_dot_off(col, filter + (ptrdiff_t)oc * depth, depth, off),
                                   q->multiplier[oc], q->shift[oc], p->output_offset, p->act);
        RK_WRITE(ws, y + oc, v);
    }
    return true;
#endif
}

#ifndef RK_INSTRUMENT
/* Below this many bytes per tap row a pixel pair costs more than it saves. */
#define RK_PAIR_MIN_ROW 48

/* Whether [lo, hi) meets one of the k_h tap rows (run bytes each) of a
** pixel whose taps are all stored, tap row a at t->(row a). */
static bool meets_rows(const rk_conv_params *p, const rip_geom *g, const tap_span *t, int32_t run, int64_t lo,
                       int64_t hi)
{
    for (int32_t a = 0; a < p->k_h; a++) {
        const int64_t at = row_address(p, g, t, a);
        if (at < hi && lo < at + run)
            return true;
    }
    return false;
}

/* Whether [lo, hi) meets the hull of a stored tap row of the pixel of span
** t (conservative when d_w > 1: then it may only make a pair fall back). */
static bool meets_span(const rk_conv_params *p, const rip_geom *g, const tap_span *t, int64_t lo, int64_t hi)
{
    if (t->b_lo == t->b_hi)
        return false;
    const int64_t len = ((int64_t)(t->b_hi - t->b_lo - 1) * p->d_w + 1) * g->cin;
    for (int32_t a = t->a_lo; a < t->a_hi; a++) {
        const int64_t at = row_address(p, g, t, a);
        if (at < hi && lo < at + len)
            return true;
    }
    return false;
}

/*
** Pixel q (r, c), gathered in col, and pixel q + 1 (r, c + 1), all of
** whose taps are stored (d_w = 1), read where they lie, two pixels x four
** channels per inner loop.  The caller has checked that q's writes
** [y, y + cout) meet no tap of q + 1.  q + 1's four channels of a block are
** written at once when they meet none of its taps; the first block that
** would is held back: q finishes alone, q + 1 is gathered (all its reads,
** still untouched), the held block written, and q + 1 finishes alone.  Every
** byte q + 1 reads therefore holds what it holds in the plain order (after
** q's writes, before q + 1's), so the output is that order's at any gap.
*/
static void gather_pair(const rk_conv_params *p, const rk_quant *q, const int32_t *bias, const int8_t *filter,
                        const rip_geom *g, const tap_span *t1, int8_t *col, int32_t r, int32_t c, int64_t y,
                        int8_t *ws)
{
    const int32_t cout = g->cout, depth = g->depth, run = p->k_w * g->cin, off = p->input_offset;
    const int64_t y1 = y + cout;
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[8];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = acc[4 + k] = rk_bias0(bias, oc + k);
        const int8_t *w = filter + (ptrdiff_t)oc * depth;
        for (int32_t a = 0; a < p->k_h; a++)
            rk_dot2x4_off_acc(col + (ptrdiff_t)a * run, ws + row_address(p, g, t1, a), w + (ptrdiff_t)a * run,
                              depth, run, off, acc);
        int8_t v1[4];
        for (int32_t k = 0; k < 4; k++) {
            ws[y + oc + k] = rk_finish(acc[k], q->multiplier[oc + k], q->shift[oc + k], p->output_offset, p->act);
            v1[k] = rk_finish(acc[4 + k], q->multiplier[oc + k], q->shift[oc + k], p->output_offset, p->act);
        }
        if (meets_rows(p, g, t1, run, y1 + oc, y1 + oc + 4)) {
            (void)gather_channels(p, q, bias, filter, g, col, oc + 4, y, ws);
            (void)gather_pixel(p, g, r, c + 1, ws, col);
            memcpy(ws + y1 + oc, v1, 4);
            (void)gather_channels(p, q, bias, filter, g, col, oc + 4, y1, ws);
            return;
        }
        memcpy(ws + y1 + oc, v1, 4);
    }
    /* the last channels: q's, then q + 1's, all read before any is written */
    int8_t v1[4];
    const int32_t rest = cout - oc;
    for (int32_t k = 0; k < rest; k++) {
        const int32_t o = oc + k;
        const int8_t *w = filter + (ptrdiff_t)o * depth;
        uint32_t a1 = rk_bias0(bias, o);
        for (int32_t a = 0; a < p->k_h; a++)
            a1 += rk_dot_off(ws + row_address(p, g, t1, a), w + (ptrdiff_t)a * run, run, off);
        v1[k] = rk_finish(a1, q->multiplier[o], q->shift[o], p->output_offset, p->act);
    }
    (void)gather_channels(p, q, bias, filter, g, col, oc, y, ws);
    if (rest > 0)
        memcpy(ws + y1 + oc, v1, (size_t)rest);
}
#endif

/* Gather first (sigma = 0): all reads of a pixel (into scratch) before
** its first write.  The release build computes two neighbouring pixels
** together where that changes no byte read (gather_pair); the instrumented
** build keeps the plain order, so its records are those of that order. */
static rk_status run_gather(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                            const int32_t *bias, const rip_geom *g, int8_t *ws, int8_t *scratch RK_TRK_PARAM)
{
    const int32_t cout = g->cout;
    int8_t *col = (int8_t *)(rk_gather_pre(scratch) + cout);
#ifndef RK_INSTRUMENT
    const int32_t run = p->k_w * g->cin;
    const bool pairs = RK_PIXEL_PAIRS && p->d_w == 1 && run >= RK_PAIR_MIN_ROW;
    /* the cout int32 of the scratch are free (the 16-bit offset form needs
    ** no folded constants): a second field fits there when depth <= 4 cout */
    int8_t *col1 = RK_PIXEL_PAIRS && g->depth <= 4 * (int64_t)cout ? (int8_t *)rk_gather_pre(scratch) : NULL;
#endif
    int64_t y = 0; /* address of the next output scalar */
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w;) {
            RK_AT_PIXEL(r, c);
            if (!gather_pixel(p, g, r, c, ws, col RK_TRK_ARG))
                return RK_OK;
#ifndef RK_INSTRUMENT
            if (col1 != NULL && c + 1 < out.w) {
                /* q + 1 gathered before q's writes: the same bytes as in
                ** the plain order when q's writes meet none of them */
                const tap_span t1 = span_of(p, g, r, c + 1);
                if (!meets_span(p, g, &t1, y, y + cout)) {
                    (void)gather_pixel(p, g, r, c + 1, ws, col1);
                    /* q + 1's reads are all done: any write order gives its output */
                    rk_pair_channels(p, q, col, col1, filter, bias, g->depth, cout, ws + y, ws + y + cout);
                    y += 2 * (int64_t)cout;
                    c += 2;
                    continue;
                }
            } else if (pairs && c + 1 < out.w) {
                const tap_span t1 = span_of(p, g, r, c + 1);
                if (t1.a_lo == 0 && t1.a_hi == p->k_h && t1.b_lo == 0 && t1.b_hi == p->k_w &&
                    !meets_rows(p, g, &t1, run, y, y + cout)) {
                    gather_pair(p, q, bias, filter, g, &t1, col, r, c, y, ws);
                    y += 2 * (int64_t)cout;
                    c += 2;
                    continue;
                }
            }
#endif
            if (!gather_channels(p, q, bias, filter, g, col, 0, y, ws RK_TRK_ARG))
                return RK_OK;
            y += cout;
            c += 1;
        }
    return RK_OK;
}

/* acc[k] += sum over the stored taps of (x + input_offset) w, for the
** n = 1 or 4 filter rows starting at w (depth bytes apart): per tap row one
** contiguous run when d_w = 1, else one run of c_in per tap. */
static void taps_dot(const rk_conv_params *p, const rip_geom *g, const tap_span *t, const int8_t *ws,
                     const int8_t *w, int32_t n, uint32_t acc[4])
{
    const int32_t cin = g->cin;
    for (int32_t a = t->a_lo; a < t->a_hi; a++) {
        const int64_t addr = row_address(p, g, t, a);
        const int8_t *wr = w + ((ptrdiff_t)a * p->k_w + t->b_lo) * cin;
        const int32_t runs = p->d_w == 1 ? 1 : t->b_hi - t->b_lo;
        const int32_t len = p->d_w == 1 ? (t->b_hi - t->b_lo) * cin : cin;
        for (int32_t u = 0; u < runs; u++) {
            const int8_t *x = ws + addr + (int64_t)u * p->d_w * cin;
            if (n == 4)
                rk_dot4_off_acc(x, wr + (ptrdiff_t)u * cin, g->depth, len, p->input_offset, acc);
            else
                acc[0] += rk_dot_off(x, wr + (ptrdiff_t)u * cin, len, p->input_offset);
        }
    }
}

#ifdef RK_INSTRUMENT
/* Check every read of one channel of the pixel, in the kernel's order (tap
** rows, then taps, then input channels).  -1: stop now; 0: a stale byte was
** read (recorded); 1: every byte read still holds the input. */
static int check_taps(const rk_conv_params *p, const rip_geom *g, const tap_span *t, rk_tracker *trk)
{
    const int64_t count = trk->v->count;
    const int32_t cin = g->cin;
    for (int32_t a = t->a_lo; a < t->a_hi; a++) {
        const int64_t addr = row_address(p, g, t, a);
        if (p->d_w == 1) {
            if (!rk_trk_read(trk, addr, (int64_t)(t->b_hi - t->b_lo) * cin))
                return -1;
            continue;
        }
        for (int32_t b = t->b_lo; b < t->b_hi; b++)
            if (!rk_trk_read(trk, addr + (int64_t)(b - t->b_lo) * p->d_w * cin, cin))
                return -1;
    }
    return trk->v->count == count;
}
#endif

/*
** Taps read from the workspace, channel by channel (sigma = c_out):
** channel oc reads all its taps, then is written, then channel oc + 1
** reads.  Every stored tap of the pixel lies at or above lo, its first, so
** a write below lo changes nothing any channel of the pixel reads: while
** the writes of channels oc .. oc+2 land below lo, channels oc .. oc+3 are
** computed together (their taps read once for four filter rows) with the
** same result as one by one.  Otherwise one channel at a time.
**
** Instrumented: the first channel's reads are checked byte by byte (by
** runs); after that the pixel is "clean" (nothing it reads is stale) until
** a write lands at or above lo, so further channels need no check while it
** stays clean; after such a write, or after a stale read (when not stopping
** at the first), every channel is checked again.  The record of the first
** violation and the count are those of a check of every read.
*/
static rk_status run_taps(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                          const int32_t *bias, const rip_geom *g, int8_t *ws RK_TRK_PARAM)
{
    const int32_t cout = g->cout, depth = g->depth;
    int64_t y = 0;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++) {
            RK_AT_PIXEL(r, c);
            const tap_span t = span_of(p, g, r, c);
            const int64_t lo = t.a_lo < t.a_hi ? row_address(p, g, &t, t.a_lo) : INT64_MAX;
#ifdef RK_INSTRUMENT
            bool clean = false;
#endif
            int32_t oc = 0;
            while (oc < cout) {
#ifdef RK_INSTRUMENT
                if (!clean) {
                    const int k = check_taps(p, g, &t, trk);
                    if (k < 0)
                        return RK_OK;
                    clean = k > 0;
                }
                const bool block = clean && oc + 4 <= cout && y + oc + 2 < lo;
#else
                const bool block = oc + 4 <= cout && y + oc + 2 < lo;
#endif
                const int32_t n = block ? 4 : 1;
                uint32_t acc[4] = {0, 0, 0, 0};
                if (bias != NULL)
                    for (int32_t k = 0; k < n; k++)
                        acc[k] = (uint32_t)bias[oc + k];
                taps_dot(p, g, &t, ws, filter + (ptrdiff_t)oc * depth, n, acc);
                for (int32_t k = 0; k < n; k++) {
                    const int8_t v = rk_finish(acc[k], q->multiplier[oc + k], q->shift[oc + k], p->output_offset,
                                               p->act);
                    RK_WRITE(ws, y + oc + k, v);
                }
#ifdef RK_INSTRUMENT
                clean = clean && y + oc + n - 1 < lo;
#endif
                oc += n;
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
