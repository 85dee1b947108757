/*
** kernel_orders.c — generators of the kernels' read/write orders
** (kernel_orders.h), each read from the loops of the kernel it names.
**
** Only the input reads and output writes matter to the trace engine
** (filters, biases, scratch buffers are other memory).  A "field" is the
** input window of one output pixel restricted to real pixels: rows
** y = oy*s_h - pad_top + a*d_h and columns x = ox*s_w - pad_left + b*d_w
** inside the image; every kernel below skips the padding taps (reference:
** is_point_inside_image or clipped filter_x_start/end; CMSIS-NN: clipped
** ker_*_start/end, or im2col's memset for padding), so a field is emitted
** as one read block per real row, left to right.
**
** Re-reads (the default, compressed stream): where a kernel re-reads one
** field for several outputs, in order R(F) W(o1) R(F) W(o2) ... R(F) W(on),
** the stream W(o1) .. W(o_{n-1}) R(F) W(on) gives the same run at every d:
** every scalar of F is read again after each W(oi), i < n, in both, and no
** other scalar's last read moves relative to any write.  `full` emits the
** loops' every read instead; tests/test_tflm_orders.c runs both at every d.
*/
#include "kernel_orders.h"

#include <stddef.h>

static const char *const names[RIP_KO_COUNT] = {
    "ref_conv", "ref_depthwise", "ref_fully_connected", "ref_pool", "ref_add", "ref_pad", "ref_quantize",
    "cmsis_convolve", "cmsis_1x1_fast", "cmsis_1x1", "cmsis_depthwise_3x3", "cmsis_depthwise_generic",
    "cmsis_depthwise_mult_4", "cmsis_depthwise_opt_dsp", "cmsis_fully_connected", "cmsis_fully_connected_dsp",
    "cmsis_avgpool", "cmsis_avgpool_dsp", "cmsis_max_pool", "cmsis_add", "cmsis_add_dsp",
    "cmsis_pad",
};

const char *rip_korder_name(rip_korder k)
{
    return (unsigned)k < RIP_KO_COUNT ? names[k] : "unknown";
}

static int64_t in_at(const rip_kgeom *g, int64_t b, int64_t y, int64_t x, int64_t c)
{
    return ((b * g->h_in + y) * g->w_in + x) * g->c_in + c;
}

static int64_t out_at(const rip_kgeom *g, int64_t b, int64_t oy, int64_t ox, int64_t c)
{
    return ((b * g->h_out + oy) * g->w_out + ox) * g->c_out + c;
}

/* First tap index t >= 0 with origin + t*d >= 0, and one past the last with origin + t*d < size. */
static void real_taps(int64_t origin, int64_t d, int64_t k, int64_t size, int64_t *lo, int64_t *hi)
{
    int64_t t0 = 0;
    if (origin < 0)
        t0 = (-origin + d - 1) / d;
    int64_t t1 = origin >= size ? 0 : (size - origin + d - 1) / d;
    *lo = t0;
    *hi = t1 < k ? t1 : k;
}

/* The field of output (b, oy, ox): channels [c0, c0 + len) of every real tap, one block per row. */
static void read_field(rip_kt_sink *s, const rip_kgeom *g, int64_t b, int64_t oy, int64_t ox, int64_t c0,
                       int64_t len)
{
    const int64_t y0 = oy * g->s_h - g->pad_top, x0 = ox * g->s_w - g->pad_left;
    int64_t alo, ahi, blo, bhi;
    real_taps(y0, g->d_h, g->k_h, g->h_in, &alo, &ahi);
    real_taps(x0, g->d_w, g->k_w, g->w_in, &blo, &bhi);
    if (bhi <= blo)
        return;
    for (int64_t a = alo; a < ahi; a++)
        rip_kt_read(s, in_at(g, b, y0 + a * g->d_h, x0 + blo * g->d_w, c0), len, bhi - blo, g->d_w * g->c_in);
}

/* Outputs o_first .. o_last (consecutive scalars), each after a read of one field read by all of
** them: the loops' stream when full, else the compressed one (file comment). */
static void field_outputs(rip_kt_sink *s, const rip_kgeom *g, bool full, int64_t b, int64_t oy, int64_t ox,
                          int64_t c0, int64_t len, int64_t o_first, int64_t n)
{
    if (full) {
        for (int64_t i = 0; i < n; i++) {
            read_field(s, g, b, oy, ox, c0, len);
            rip_kt_write(s, o_first + i, 1, 1, 1);
        }
        return;
    }
    rip_kt_write(s, o_first, n - 1, 1, 1);
    read_field(s, g, b, oy, ox, c0, len);
    rip_kt_write(s, o_first + n - 1, 1, 1, 1);
}

/* reference/integer_ops/conv.h ConvPerChannel: batch, out_y, out_x, out_channel outer; filter_y,
** filter_x, in_channel inner over the group's filter_input_depth channels, padding taps skipped;
** the output scalar written after its taps.  Consecutive output channels of one group read one field. */
static void gen_ref_conv(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    const int64_t cpg = g->c_out / g->groups, kc = g->c_in / g->groups;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t oy = 0; oy < g->h_out; oy++)
            for (int64_t ox = 0; ox < g->w_out; ox++)
                for (int64_t gr = 0; gr < g->groups; gr++)
                    field_outputs(s, g, c->full, b, oy, ox, gr * kc, kc, out_at(g, b, oy, ox, gr * cpg), cpg);
}

/* reference/integer_ops/fully_connected.h FullyConnected: b, out_c outer; d over accum_depth
** inner (input row b); output b*output_depth + out_c.  Fields are 1x1 pixels of c_in channels. */
static void gen_ref_fc(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    for (int64_t b = 0; b < g->batches; b++)
        field_outputs(s, g, c->full, b, 0, 0, 0, g->c_in, b * g->c_out, g->c_out);
}

/* reference/integer_ops/pooling.h AveragePool / MaxPool: batch, out_y, out_x, channel outer;
** filter_y, filter_x over the clipped window inner.  CMSIS-NN's pure-C arm_avgpool_s8 has the same
** nest (i_y, i_x, i_ch_in; k_y, k_x with the bounds checked). */
static void gen_pool(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t oy = 0; oy < g->h_out; oy++)
            for (int64_t ox = 0; ox < g->w_out; ox++)
                for (int64_t ch = 0; ch < g->c_in; ch++) {
                    read_field(s, g, b, oy, ox, ch, 1);
                    rip_kt_write(s, out_at(g, b, oy, ox, ch), 1, 1, 1);
                }
}

/* reference/integer_ops/add.h AddElementwise and CMSIS-NN's pure-C arm_elementwise_add_s8: for i,
** input i of both operands read, output i written.  DSP (block = 4): four of each read, four written,
** the tail one by one. */
static void gen_add(const rip_kctx *c, rip_kt_sink *s, int64_t block)
{
    const int64_t n = c->g.n_elem, full_blocks = n / block;
    for (int64_t i = 0; i < full_blocks; i++) {
        rip_kt_read(s, i * block, block, 1, 1);
        rip_kt_write(s, i * block, block, 1, 1);
    }
    for (int64_t i = full_blocks * block; i < n; i++) {
        rip_kt_read(s, i, 1, 1, 1);
        rip_kt_write(s, i, 1, 1, 1);
    }
}

/* arm_convolve_s8 (not MVE; the DSP path differs only in how im2col is widened): i_batch, i_group,
** out_y, out_x: the field (the group's kernel_ch channels at every real tap; memset for padding)
** copied into im2col; every second pixel, arm_nn_mat_mult_kernel_s8_s16 (or its row-offset twin for
** groups) writes both pixels' output_ch_per_group channels; a pixel left over at the end of a group
** is written alone.  The pair counter runs across rows and is reset per group. */
static void gen_cmsis_conv(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    const int64_t cpg = g->c_out / g->groups, kc = g->c_in / g->groups;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t gr = 0; gr < g->groups; gr++) {
            int64_t pending = -1;        /* the first pixel of an unfinished pair */
            for (int64_t oy = 0; oy < g->h_out; oy++)
                for (int64_t ox = 0; ox < g->w_out; ox++) {
                    read_field(s, g, b, oy, ox, gr * kc, kc);
                    const int64_t here = out_at(g, b, oy, ox, gr * cpg);
                    if (pending < 0) {
                        pending = here;
                        continue;
                    }
                    rip_kt_write(s, pending, cpg, 1, 1);
                    rip_kt_write(s, here, cpg, 1, 1);
                    pending = -1;
                }
            if (pending >= 0)
                rip_kt_write(s, pending, cpg, 1, 1);
        }
}

/* arm_nn_mat_mult_nt_t_s8, pure C and DSP alike (not MVE): rhs_rows_idx (output channel pairs)
** outer, lhs row pairs inner: both rows of cin scalars read, then out[r][ch], out[r][ch+1],
** out[r+1][ch], out[r+1][ch+1]; an odd last row alone; an odd last channel for every row after all
** the pairs.  lhs row r at in_base + r*lhs_stride, output row r at out_base + r*c_out. */
static void mat_mult_nt_t(rip_kt_sink *s, int64_t in_base, int64_t lhs_stride, int64_t rows, int64_t cin,
                          int64_t out_base, int64_t c_out)
{
    for (int64_t ch = 0; ch + 1 < c_out; ch += 2) {
        int64_t r = 0;
        for (; r + 1 < rows; r += 2) {
            rip_kt_read(s, in_base + r * lhs_stride, cin, 2, lhs_stride);
            rip_kt_write(s, out_base + r * c_out + ch, 2, 2, c_out);
        }
        if (r < rows) {
            rip_kt_read(s, in_base + r * lhs_stride, cin, 1, 1);
            rip_kt_write(s, out_base + r * c_out + ch, 2, 1, 1);
        }
    }
    if (c_out % 2)
        for (int64_t r = 0; r < rows; r++) {
            rip_kt_read(s, in_base + r * lhs_stride, cin, 1, 1);
            rip_kt_write(s, out_base + r * c_out + c_out - 1, 1, 1, 1);
        }
}

/* arm_convolve_1x1_s8_fast: one arm_nn_mat_mult_nt_t_s8 over all n*h*w pixels (its buffered DSP
** variant is compiled only by Arm Compiler 6). */
static void gen_cmsis_1x1_fast(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    mat_mult_nt_t(s, 0, g->c_in, g->batches * g->h_in * g->w_in, g->c_in, 0, g->c_out);
}

/* arm_convolve_1x1_s8 (stride > 1): i_batch, i_output_h: one mat_mult over the output row, lhs
** row r at input pixel (i_output_h*stride_h, r*stride_w), lhs_cols_offset = c_in*stride_w. */
static void gen_cmsis_1x1(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t oy = 0; oy < g->h_out; oy++)
            mat_mult_nt_t(s, in_at(g, b, oy * g->s_h, 0, 0), g->c_in * g->s_w, g->w_out, g->c_in,
                          out_at(g, b, oy, 0, 0), g->c_out);
}

/* arm_depthwise_conv_3x3_s8 (pure C and DSP read the same words): out_h, out_w; channel blocks of 4
** then single channels; rows ker_h from max(0, -in_h) below min(3, input_y - in_h); columns in_w + 0
** (only when in_w >= 0), in_w + 1, in_w + 2 (only when input_x - in_w >= 3); the block's outputs
** written after its taps.  The addresses are the kernel's own, even where they leave the row. */
static void gen_cmsis_dw3x3(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    const int64_t C = g->c_in, W = g->w_in;
    for (int64_t oy = 0; oy < g->h_out; oy++)
        for (int64_t ox = 0; ox < g->w_out; ox++) {
            const int64_t in_h = oy * g->s_h - g->pad_top, in_w = ox * g->s_w - g->pad_left;
            const int64_t kh0 = in_h < 0 ? -in_h : 0, kh1 = g->h_in - in_h < 3 ? g->h_in - in_h : 3;
            const int64_t col0 = in_w < 0 ? 1 : 0, col1 = W - in_w >= 3 ? 2 : 1;
            for (int64_t ch = 0; ch < C;) {
                const int64_t len = ch + 4 <= C ? 4 : 1;
                for (int64_t kh = kh0; kh < kh1; kh++)
                    rip_kt_read(s, (in_h + kh) * C * W + (in_w + col0) * C + ch, len, col1 - col0 + 1, C);
                rip_kt_write(s, out_at(g, 0, oy, ox, ch), len, 1, 1);
                ch += len;
            }
        }
}

/* Depthwise, pixel and input channel outer, the multipliers of the channel inner:
**   reference/integer_ops/depthwise_conv.h DepthwiseConvPerChannel: batch, out_y, out_x, in_channel,
**     m outer; filter_y, filter_x inner (is_point_inside_image); output in_channel*M + m written after
**     its taps (tile 1; the M outputs of one channel re-read one field: field_outputs);
**   arm_depthwise_conv_s8 -> depthwise_conv_s8_generic: i_batch, out_y, out_x, i_input_ch,
**     i_ch_mult outer; the clipped (dilated) window inner; the same loops (tile 1, every re-read);
**   depthwise_conv_s8_mult_4 (ch_mult % 4 == 0, one batch, no dilation): out_h, out_w, in_ch, tiles
**     of 4 multipliers: the taps of in_ch read once per tile, its 4 outputs written after them. */
static void gen_dw(const rip_kctx *c, rip_kt_sink *s, int64_t tile, bool reference)
{
    const rip_kgeom *g = &c->g;
    const int64_t M = g->depth_mult;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t oy = 0; oy < g->h_out; oy++)
            for (int64_t ox = 0; ox < g->w_out; ox++)
                for (int64_t ic = 0; ic < g->c_in; ic++) {
                    const int64_t o = out_at(g, b, oy, ox, ic * M);
                    if (reference) {
                        field_outputs(s, g, c->full, b, oy, ox, ic, 1, o, M);
                        continue;
                    }
                    for (int64_t m = 0; m < M; m += tile) {
                        read_field(s, g, b, oy, ox, ic, 1);
                        rip_kt_write(s, o + m, tile, 1, 1);
                    }
                }
}

/* arm_depthwise_conv_s8_opt, ARM_MATH_DSP (not MVE): out_y, out_x: im2col of every real tap's
** input_ch channels (arm_q7_to_q15_with_offset; memset for padding), then all output channels of the
** pixel written.  The pure-C build calls arm_depthwise_conv_s8 instead. */
static void gen_cmsis_dw_opt_dsp(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    for (int64_t oy = 0; oy < g->h_out; oy++)
        for (int64_t ox = 0; ox < g->w_out; ox++) {
            read_field(s, g, 0, oy, ox, 0, g->c_in);
            rip_kt_write(s, out_at(g, 0, oy, ox, 0), g->c_out, 1, 1);
        }
}

/* arm_fully_connected_s8 / _per_channel_s8: per batch one arm_nn_vec_mat_mult_t_s8 (or _per_ch):
** rows (output channels) `rows_at_once` at a time (3 pure C, 2 DSP), the whole input vector read
** for each group, the group's outputs written after it; the remaining rows one at a time. */
static void gen_cmsis_fc(const rip_kctx *c, rip_kt_sink *s, int64_t rows_at_once)
{
    const rip_kgeom *g = &c->g;
    for (int64_t b = 0; b < g->batches; b++) {
        int64_t r = 0;
        for (; r + rows_at_once <= g->c_out; r += rows_at_once) {
            rip_kt_read(s, b * g->c_in, g->c_in, 1, 1);
            rip_kt_write(s, b * g->c_out + r, rows_at_once, 1, 1);
        }
        for (; r < g->c_out; r++) {
            rip_kt_read(s, b * g->c_in, g->c_in, 1, 1);
            rip_kt_write(s, b * g->c_out + r, 1, 1, 1);
        }
    }
}

/* arm_avgpool_s8, ARM_MATH_DSP (not MVE): i_y, i_x: every real tap's ch_src channels accumulated
** into the scratch buffer, then the pixel's channels written (scale_q31_to_q7_and_clamp). */
static void gen_cmsis_avgpool_dsp(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    for (int64_t b = 0; b < g->batches; b++)
        for (int64_t oy = 0; oy < g->h_out; oy++)
            for (int64_t ox = 0; ox < g->w_out; ox++) {
                read_field(s, g, b, oy, ox, 0, g->c_in);
                rip_kt_write(s, out_at(g, b, oy, ox, 0), g->c_in, 1, 1);
            }
}

/* arm_max_pool_s8 (not MVE; its DSP compare reads four at a time, the same scalars): per batch,
** i_y, i_x: the clipped window tap by tap; the first tap's channel_in scalars copied to the output
** pixel (arm_memcpy_s8, i.e. memcpy), each later tap compared into it
** (compare_and_replace_if_larger_q7, a possible write of every channel after the tap's read); after
** the batch clamp_output rewrites the whole output (after every read: it cannot corrupt).  memcpy
** has no order: C leaves a copy between overlapping ranges undefined, and an implementation may
** write any destination byte before it reads any source byte.  So the copy is emitted as its write
** first, then its read: a gap at which the copy's destination meets its own source is never safe. */
static void gen_cmsis_maxpool(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    const int64_t C = g->c_in;
    for (int64_t b = 0; b < g->batches; b++) {
        for (int64_t oy = 0; oy < g->h_out; oy++)
            for (int64_t ox = 0; ox < g->w_out; ox++) {
                const int64_t y0 = oy * g->s_h - g->pad_top, x0 = ox * g->s_w - g->pad_left;
                int64_t alo, ahi, blo, bhi;
                real_taps(y0, 1, g->k_h, g->h_in, &alo, &ahi);
                real_taps(x0, 1, g->k_w, g->w_in, &blo, &bhi);
                for (int64_t a = alo; a < ahi; a++)
                    for (int64_t t = blo; t < bhi; t++) {
                        const bool copy = a == alo && t == blo;
                        if (copy)
                            rip_kt_write(s, out_at(g, b, oy, ox, 0), C, 1, 1);
                        rip_kt_read(s, in_at(g, b, y0 + a, x0 + t, 0), C, 1, 1);
                        if (!copy)
                            rip_kt_write(s, out_at(g, b, oy, ox, 0), C, 1, 1);
                    }
            }
        rip_kt_write(s, out_at(g, b, 0, 0, 0), g->h_out * g->w_out * C, 1, 1);
    }
}

/* PAD's post-padding along each axis: the output's extent minus the input's and the padding before. */
static void pad_after(const rip_kgeom *g, int64_t *n, int64_t *y, int64_t *x, int64_t *c)
{
    *n = g->batches_out - g->batches - g->pad_batch;
    *y = g->h_out - g->h_in - g->pad_top;
    *x = g->w_out - g->w_in - g->pad_left;
    *c = g->c_out - g->c_in - g->pad_depth;
}

/* reference/pad.h PadImpl (TFLM's pad.cc for int8; PadImageStyle calls the same Pad): one loop over
** every output scalar in order (batch, plane, row, column, depth); a padding position is written
** with the pad value, any other copies the next input scalar (in_ptr++) into it, read then written.
** Runs of padding positions are emitted as one write block (writes with no read between give the
** same run at every d as one by one); a copied scalar is its read then its write, one by one (a
** block of reads before a block of writes would read scalars the loop has not read yet). */
static void gen_ref_pad(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    int64_t in = 0, out = 0, pend = 0;   /* pend: padding positions not yet emitted, ending at out */
    for (int64_t b = 0; b < g->batches_out; b++)
        for (int64_t y = 0; y < g->h_out; y++)
            for (int64_t x = 0; x < g->w_out; x++)
                for (int64_t ch = 0; ch < g->c_out; ch++, out++) {
                    const bool inside = b >= g->pad_batch && b < g->pad_batch + g->batches && y >= g->pad_top &&
                                        y < g->pad_top + g->h_in && x >= g->pad_left &&
                                        x < g->pad_left + g->w_in && ch >= g->pad_depth &&
                                        ch < g->pad_depth + g->c_in;
                    if (!inside) {
                        pend++;
                        continue;
                    }
                    if (pend) {
                        rip_kt_write(s, out - pend, pend, 1, 1);
                        pend = 0;
                    }
                    rip_kt_read(s, in++, 1, 1, 1);
                    rip_kt_write(s, out, 1, 1, 1);
                }
    if (pend)
        rip_kt_write(s, out - pend, pend, 1, 1);
}

/* One memcpy of len scalars from input `from` to output `to` (len 0: none): written first, then read
** (C leaves a copy between overlapping ranges undefined: gen_cmsis_maxpool's comment). */
static void copy_block(rip_kt_sink *s, int64_t to, int64_t from, int64_t len)
{
    rip_kt_write(s, to, len, 1, 1);
    rip_kt_read(s, from, len, 1, 1);
}

/* arm_pad_s8 (Source/PadFunctions/arm_pad_s8.c): arm_memset_s8 of the batches before; per batch the
** rows before; per row the columns before, then either one memcpy of the whole row (no channel
** padding) or per column memset before, memcpy of its channels, memset after; the columns after;
** per batch the rows after; the batches after.  arm_memset_s8 / arm_memcpy_s8 are memset / memcpy
** on every core without MVE. */
static void gen_cmsis_pad(const rip_kctx *c, rip_kt_sink *s)
{
    const rip_kgeom *g = &c->g;
    int64_t post_n, post_y, post_x, post_c;
    pad_after(g, &post_n, &post_y, &post_x, &post_c);
    const int64_t C = g->c_out, row = g->w_out * C, plane = g->h_out * row;
    int64_t out = 0, in = 0;
    rip_kt_write(s, out, plane * g->pad_batch, 1, 1);
    out += plane * g->pad_batch;
    for (int64_t b = 0; b < g->batches; b++) {
        rip_kt_write(s, out, row * g->pad_top, 1, 1);
        out += row * g->pad_top;
        for (int64_t y = 0; y < g->h_in; y++) {
            rip_kt_write(s, out, C * g->pad_left, 1, 1);
            out += C * g->pad_left;
            if (g->c_in == C) {
                copy_block(s, out, in, g->w_in * C);
                out += g->w_in * C;
                in += g->w_in * C;
            } else {
                for (int64_t x = 0; x < g->w_in; x++) {
                    rip_kt_write(s, out, g->pad_depth, 1, 1);
                    out += g->pad_depth;
                    copy_block(s, out, in, g->c_in);
                    out += g->c_in;
                    in += g->c_in;
                    rip_kt_write(s, out, post_c, 1, 1);
                    out += post_c;
                }
            }
            rip_kt_write(s, out, C * post_x, 1, 1);
            out += C * post_x;
        }
        rip_kt_write(s, out, row * post_y, 1, 1);
        out += row * post_y;
    }
    rip_kt_write(s, out, plane * post_n, 1, 1);
}

/* reference/quantize.h AffineQuantize (TFLM's quantize.cc, float32 input, int8 output; the CMSIS-NN
** build runs it too): for i, element i read (in_bytes scalars), output i written. */
static void gen_quantize(const rip_kctx *c, rip_kt_sink *s)
{
    for (int64_t i = 0; i < c->g.n_elem; i++) {
        rip_kt_read(s, i * c->g.in_bytes, c->g.in_bytes, 1, 1);
        rip_kt_write(s, i, 1, 1, 1);
    }
}

static void generate(const void *ctx, rip_kt_sink *s)
{
    const rip_kctx *c = ctx;
    switch (c->order) {
    case RIP_KO_REF_CONV: gen_ref_conv(c, s); break;
    case RIP_KO_REF_DW: gen_dw(c, s, 1, true); break;
    case RIP_KO_REF_FC: gen_ref_fc(c, s); break;
    case RIP_KO_REF_POOL: case RIP_KO_CMSIS_AVGPOOL: gen_pool(c, s); break;
    case RIP_KO_REF_ADD: case RIP_KO_CMSIS_ADD: gen_add(c, s, 1); break;
    case RIP_KO_CMSIS_ADD_DSP: gen_add(c, s, 4); break;
    case RIP_KO_CMSIS_CONV: gen_cmsis_conv(c, s); break;
    case RIP_KO_CMSIS_1X1_FAST: gen_cmsis_1x1_fast(c, s); break;
    case RIP_KO_CMSIS_1X1: gen_cmsis_1x1(c, s); break;
    case RIP_KO_CMSIS_DW_3X3: gen_cmsis_dw3x3(c, s); break;
    case RIP_KO_CMSIS_DW_GENERIC: gen_dw(c, s, 1, false); break;
    case RIP_KO_CMSIS_DW_MULT4: gen_dw(c, s, 4, false); break;
    case RIP_KO_CMSIS_DW_OPT_DSP: gen_cmsis_dw_opt_dsp(c, s); break;
    case RIP_KO_CMSIS_FC: gen_cmsis_fc(c, s, 3); break;
    case RIP_KO_CMSIS_FC_DSP: gen_cmsis_fc(c, s, 2); break;
    case RIP_KO_CMSIS_AVGPOOL_DSP: gen_cmsis_avgpool_dsp(c, s); break;
    case RIP_KO_CMSIS_MAXPOOL: gen_cmsis_maxpool(c, s); break;
    case RIP_KO_REF_PAD: gen_ref_pad(c, s); break;
    case RIP_KO_CMSIS_PAD: gen_cmsis_pad(c, s); break;
    case RIP_KO_REF_QUANTIZE: gen_quantize(c, s); break;
    case RIP_KO_COUNT: break;
    }
}

/* Contract (kernel_orders.h). */
bool rip_korder_kernel(const rip_kctx *ctx, rip_kt_kernel *k)
{
    if (ctx == NULL || (unsigned)ctx->order >= RIP_KO_COUNT)
        return false;
    const rip_kgeom *g = &ctx->g;
    const rip_korder o = ctx->order;
    if (o == RIP_KO_REF_ADD || o == RIP_KO_CMSIS_ADD || o == RIP_KO_CMSIS_ADD_DSP) {
        if (g->n_elem < 1)
            return false;
        *k = (rip_kt_kernel){ g->n_elem, g->n_elem, generate, ctx };
        return true;
    }
    if (o == RIP_KO_REF_QUANTIZE) {
        if (g->n_elem < 1 || g->in_bytes < 1 || g->n_elem > INT64_MAX / g->in_bytes)
            return false;
        *k = (rip_kt_kernel){ g->n_elem * g->in_bytes, g->n_elem, generate, ctx };
        return true;
    }
    if (o == RIP_KO_REF_PAD || o == RIP_KO_CMSIS_PAD) {
        int64_t pn, py, px, pc;
        pad_after(g, &pn, &py, &px, &pc);
        if (g->batches < 1 || g->h_in < 1 || g->w_in < 1 || g->c_in < 1 || g->pad_batch < 0 || g->pad_top < 0 ||
            g->pad_left < 0 || g->pad_depth < 0 || pn < 0 || py < 0 || px < 0 || pc < 0)
            return false;
        *k = (rip_kt_kernel){ g->batches * g->h_in * g->w_in * g->c_in,
                              g->batches_out * g->h_out * g->w_out * g->c_out, generate, ctx };
        return true;
    }
    if (g->batches < 1 || g->h_in < 1 || g->w_in < 1 || g->c_in < 1 || g->h_out < 1 || g->w_out < 1 ||
        g->c_out < 1 || g->k_h < 1 || g->k_w < 1 || g->s_h < 1 || g->s_w < 1 || g->d_h < 1 || g->d_w < 1)
        return false;
    const int64_t groups = g->groups < 1 ? 1 : g->groups;
    if ((o == RIP_KO_REF_CONV || o == RIP_KO_CMSIS_CONV) &&
        (g->groups < 1 || g->c_in % groups || g->c_out % groups))
        return false;
    if ((o == RIP_KO_REF_DW || o == RIP_KO_CMSIS_DW_GENERIC || o == RIP_KO_CMSIS_DW_MULT4) &&
        (g->depth_mult < 1 || g->c_out != g->c_in * g->depth_mult))
        return false;
    if (o == RIP_KO_CMSIS_DW_MULT4 && g->depth_mult % 4)
        return false;
    if ((o == RIP_KO_REF_POOL || o == RIP_KO_CMSIS_AVGPOOL || o == RIP_KO_CMSIS_AVGPOOL_DSP ||
         o == RIP_KO_CMSIS_MAXPOOL || o == RIP_KO_CMSIS_DW_3X3 || o == RIP_KO_CMSIS_DW_OPT_DSP) &&
        g->c_out != g->c_in)
        return false;
    *k = (rip_kt_kernel){ g->batches * g->h_in * g->w_in * g->c_in, g->batches * g->h_out * g->w_out * g->c_out,
                          generate, ctx };
    return true;
}

/* Contract (kernel_orders.h): arm_convolve_wrapper_s8's tests, in its order. */
rip_korder rip_cmsis_conv_pick(const rip_kgeom *g)
{
    const bool pad0 = g->pad_top == 0 && g->pad_left == 0;
    if (pad0 && g->k_h == 1 && g->k_w == 1 && g->d_h == 1 && g->d_w == 1 && g->groups <= 1)
        return g->s_h == 1 && g->s_w == 1 ? RIP_KO_CMSIS_1X1_FAST : RIP_KO_CMSIS_1X1;
    return RIP_KO_CMSIS_CONV;    /* arm_convolve_1_x_n_s8 included: it calls arm_convolve_s8 */
}

/* Contract (kernel_orders.h): arm_depthwise_conv_wrapper_s8's tests (not MVE), then
** arm_depthwise_conv_s8's own choice. */
rip_korder rip_cmsis_dw_pick(const rip_kgeom *g, bool dsp)
{
    if (g->depth_mult == 1 && g->batches == 1 && g->d_h == 1 && g->d_w == 1) {
        if (g->k_h == 3 && g->k_w == 3 && g->pad_top <= 1 && g->pad_left <= 1)
            return RIP_KO_CMSIS_DW_3X3;
        if (dsp)
            return RIP_KO_CMSIS_DW_OPT_DSP;
    }
    if (g->depth_mult % 4 == 0 && g->batches == 1 && g->d_h == 1 && g->d_w == 1)
        return RIP_KO_CMSIS_DW_MULT4;
    return RIP_KO_CMSIS_DW_GENERIC;
}
