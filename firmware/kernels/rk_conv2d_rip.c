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
** The release build's gather runs the dual kernel's loops instead, whose
** reordering the truth makes safe (run_gather below); the instrumented
** build keeps the plain order, so its records are that order's.
*/
#include "rk_conv2d_rip.h"
#include "rk_dsp.h"
#include "rk_instrument.h"
#include "rk_internal.h"

/* The arguments every pixel needs, gathered once. */
typedef struct rip_geom {
    int32_t cin, cout, depth;
    int32_t h_s, w_s;          /* stored extents: padded or real */
    int32_t off_h, off_w;      /* subtracted from a padded position to index the store */
    bool padded;               /* RK_PADDED: the pad cells are stored (a dense layer padded only at its
                                  bottom or right has offsets 0 too) */
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
        g->padded = true;
    } else {
        g->h_s = in.h;
        g->w_s = in.w;
        g->off_h = p->p_top;
        g->padded = false;
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

#ifdef RK_INSTRUMENT
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
** false when the write check says stop (as gather_pixel). */
static bool gather_channels(const rk_conv_params *p, const rk_quant *q, const int32_t *bias, const int8_t *filter,
                            const rip_geom *g, const int8_t *col, int32_t oc, int64_t y, int8_t *ws RK_TRK_PARAM)
{
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
}

/* Gather first (sigma = 0), the plain order: all reads of a pixel (into
** scratch) before its first write, pixel by pixel, so the records are
** those of that order. */
static rk_status run_gather(const rk_conv_params *p, const rk_quant *q, rk_dims out, const int8_t *filter,
                            const int32_t *bias, const rip_geom *g, int8_t *ws, int8_t *scratch RK_TRK_PARAM)
{
    const int32_t cout = g->cout;
    int8_t *col = (int8_t *)(rk_gather_pre(scratch) + cout);
    int64_t y = 0; /* address of the next output scalar */
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++) {
            RK_AT_PIXEL(r, c);
            if (!gather_pixel(p, g, r, c, ws, col RK_TRK_ARG))
                return RK_OK;
            if (!gather_channels(p, q, bias, filter, g, col, 0, y, ws RK_TRK_ARG))
                return RK_OK;
            y += cout;
        }
    return RK_OK;
}
#else
/* [*lo, *hi) within [0, n): the c with c d <= e, one interval since the
** condition is linear in c.  Used for the pixels of a 1x1 layer whose own
** writes lie below their reads (run_gather), where the workspace below
** 2^31 bytes bounds the operands: -2^32 < e < 2^31, and for n > 1 (then
** s_w (n - 1) < w_s) |d| < 2^31, so one 32-bit unsigned division (a
** 64-bit one is a library call on the Cortex-M0); n = 1 needs none. */
static void linear_span(int64_t e, int64_t d, int32_t n, int32_t *lo, int32_t *hi)
{
    int64_t l = 0, h = n;
    if (n == 1)
        h = e >= 0 ? 1 : 0; /* column 0: 0 d <= e */
    else if (d > 0)
        h = e < 0 ? 0 : (int64_t)((uint32_t)e / (uint32_t)d) + 1;
    else if (d == 0)
        h = e < 0 ? 0 : n;
    else if (e < 0)
        l = (int64_t)(((uint32_t)-e - 1u) / (uint32_t)-d) + 1;
    *lo = (int32_t)(l < n ? l : n);
    *hi = (int32_t)(h < n ? h : n);
    if (*hi < *lo)
        *hi = *lo;
}

/* Pixels [from, to) of a 1x1 layer, consecutive in one output row (or,
** at stride 1, in the layer), the first one's input at x, each next one's
** step bytes further; each with all its reads before its writes: through
** scratch (the 4 c_out bytes at pre, then the c_in at col), whichever of
** its c_out outputs (held, then copied) and its c_in inputs (gathered) is
** the smaller copy.  Held, four pixels fit pre: where pixels go in pairs
** both are read, then both written, and on the DSP path two pairs (on
** the M0 four single pixels) are read before any is written, so that one
** copy serves four pixels
** (reading q + 1 .. q + 3 before q's writes changes nothing at the truth:
** no write of the four meets another's reads, and the writes of the
** last meet the next pixel's reads no earlier than in the plain order). */
static void pointwise_buffered(const rk_conv_params *p, const rk_quant *q, const int8_t *filter,
                               const int32_t *bias, const rip_geom *g, int8_t *ws, int8_t *scratch, int32_t from,
                               int32_t to, const int8_t *x, ptrdiff_t step)
{
    const int32_t cin = g->cin, cout = g->cout;
    int8_t *pre = (int8_t *)rk_gather_pre(scratch), *col = pre + 4 * (ptrdiff_t)cout;
    int32_t pix = from;
#if RK_DSP
    /* the DSP path's pairs (rk_pointwise_dsp.c), as rk_pointwise_range
    ** runs them: both pixels read, then both written (their two inputs
    ** fit pre back to back when c_in < c_out) */
    if (cout <= cin) /* two pairs held (pre's 4 c_out bytes), then one copy */
        for (; pix + 4 <= to; pix += 4, x += 4 * step) {
            rk_pair_channels_dsp(p, q, x, x + step, filter, bias, cin, cout, pre, pre + cout);
            rk_pair_channels_dsp(p, q, x + 2 * step, x + 3 * step, filter, bias, cin, cout, pre + 2 * cout,
                                 pre + 3 * cout);
            rk_copy_bytes(ws + (int64_t)pix * cout, pre, 4 * (size_t)cout);
        }
    for (; pix + 2 <= to; pix += 2, x += 2 * step) {
        int8_t *y = ws + (int64_t)pix * cout;
        if (cout <= cin) {
            rk_pair_channels_dsp(p, q, x, x + step, filter, bias, cin, cout, pre, pre + cout);
            rk_copy_bytes(y, pre, 2 * (size_t)cout);
        } else {
            rk_copy_bytes(pre, x, (size_t)cin);
            rk_copy_bytes(pre + cin, x + step, (size_t)cin);
            rk_pair_channels_dsp(p, q, pre, pre + cin, filter, bias, cin, cout, y, y + cout);
        }
    }
#endif
    if (RK_PIXEL_PAIRS && cout <= cin)
        for (; pix + 2 <= to; pix += 2, x += 2 * step) {
            rk_pair_channels(p, q, x, x + step, filter, bias, cin, cout, pre, pre + cout);
            rk_copy_bytes(ws + (int64_t)pix * cout, pre, 2 * (size_t)cout);
        }
    if (!RK_PIXEL_PAIRS && cout <= cin) /* four pixels held, then one copy (as the DSP path's two pairs) */
        for (; pix + 4 <= to; pix += 4, x += 4 * step) {
            rk_one_channels(p, q, x, filter, bias, cin, cout, pre);
            rk_one_channels(p, q, x + step, filter, bias, cin, cout, pre + cout);
            rk_one_channels(p, q, x + 2 * step, filter, bias, cin, cout, pre + 2 * cout);
            rk_one_channels(p, q, x + 3 * step, filter, bias, cin, cout, pre + 3 * cout);
            rk_copy_bytes(ws + (int64_t)pix * cout, pre, 4 * (size_t)cout);
        }
    for (; pix < to; pix++, x += step) {
        int8_t *y = ws + (int64_t)pix * cout;
        if (cout <= cin) {
            rk_one_channels(p, q, x, filter, bias, cin, cout, pre);
            rk_copy_bytes(y, pre, (size_t)cout);
        } else {
            rk_copy_bytes(col, x, (size_t)cin);
            rk_one_channels(p, q, col, filter, bias, cin, cout, y);
        }
    }
}

/*
** Gather first in the release build: the dual buffer's own loops
** (rk_conv2d_run, rk_pointwise_range) over the stored input at
** workspace[gap], the padded layout as an unpadded layer on the padded
** extents.  What makes that safe is decided here, once, not per pixel: at
** a gap of at least the simulator's truth no pixel's writes meet a later
** pixel's reads in the plain order (the truth certifies it), so reading a
** pixel earlier, as a pair gathered before either is written, changes no
** byte it reads; a pixel's own writes may meet its own reads, which the
** gathered path reads first and a pair read in place holds back (hold).
** 1x1 layers read in place only the pixels whose writes stay below their
** reads (one interval per output row, of the whole layer at stride 1); the few others go through scratch.  Below the
** truth the output is unspecified (the instrumented build reports where).
*/
static rk_status run_gather(const rk_conv_params *p, const rk_quant *q, rk_dims in, rk_dims out, const int8_t *filter,
                            const int32_t *bias, const rip_geom *g, int8_t *ws, int8_t *scratch)
{
    rk_conv_params ps = *p;
    rk_dims si = in;
    si.h = g->h_s;
    si.w = g->w_s;
    if (g->padded) /* the pads are stored: an unpadded layer on the padded extents */
        ps.p_top = ps.p_bottom = ps.p_left = ps.p_right = 0;
    const bool one = ps.k_h == 1 && ps.k_w == 1 && ps.p_top == 0 && ps.p_bottom == 0 && ps.p_left == 0 &&
                     ps.p_right == 0;
    if (!one) {
        rk_conv2d_run(&ps, q, si, ws + g->gap, filter, bias, out, ws, scratch, true);
        return RK_OK;
    }
    /* 1x1: at stride 1 the layer is one row of n pixels; else row by row.
    ** Column c of row r (pixel q = r w_out + c) is read where it lies when
    ** its own writes [q c_out, (q + m) c_out) (m = 2 where pixels go in
    ** pairs) lie below its first read at gap + (r s_h w_s + c s_w) c_in:
    **   c (c_out - s_w c_in) <= e_r = gap - m c_out + r (s_h w_s c_in - w_out c_out),
    ** one interval of columns per row (linear_span), of the whole layer at
    ** stride 1.  The row terms are bytes of the stored input or the output
    ** (below 2^31: 32-bit products), e_r is kept in 64 bits. */
    const bool flat = ps.s_h == 1 && ps.s_w == 1;
    const int32_t rows = flat ? 1 : out.h, w_out = flat ? out.h * out.w : out.w;
    /* (a stride beyond the stored extent leaves one row or column: no step) */
    const int32_t step = w_out > 1 ? ps.s_w * g->cin : 0, row_in = rows > 1 ? ps.s_h * si.w * g->cin : 0;
    const int64_t d = (int64_t)g->cout - (flat ? g->cin : (int64_t)ps.s_w * g->cin);
    const int64_t de = (int64_t)row_in - (int64_t)(w_out * g->cout);
    /* pairs: the host's (RK_PIXEL_PAIRS) and the DSP path's (rk_dsp.h),
    ** whose rk_pointwise_range pairs the pixels of a stride-1 row */
    int64_t e = g->gap - (int64_t)(RK_PIXEL_PAIRS || RK_DSP ? 2 : 1) * g->cout;
    const int8_t *x = ws + g->gap;
    for (int32_t r = 0; r < rows; r++, x += row_in, e += de) {
        const int32_t base = r * w_out;
        int32_t lo, hi;
        linear_span(e, d, w_out, &lo, &hi);
#if RK_DSP
        /* an odd run pairs all but one pixel: where the run in place is odd
        ** and a run through scratch beside it is too, one pixel moves to
        ** scratch (always allowed: there it is read before it is written),
        ** so both runs go in pairs */
        if ((hi - lo) % 2 != 0) {
            if (lo % 2 != 0)
                lo++;
            else if ((w_out - hi) % 2 != 0)
                hi--;
        }
#endif
        pointwise_buffered(&ps, q, filter, bias, g, ws, scratch, base, base + lo, x, step);
        rk_pointwise_range(&ps, q, si, ws + g->gap, filter, bias, out, ws, base + lo, base + hi);
        pointwise_buffered(&ps, q, filter, bias, g, ws, scratch, base + hi, base + w_out, x + (ptrdiff_t)hi * step,
                           step);
    }
    return RK_OK;
}
#endif

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
        return run_gather(p, q, in, out, filter, bias, &g, workspace, scratch);
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
