/*
** rk_pointwise.c — 1x1 int8 convolution (rk_pointwise.h), and the 1x1
** path of rk_conv2d for any stride (rk_pointwise_run).
**
** Register blocking: two output pixels x four output channels per inner
** loop (rk_dot2x4_off_acc), so each filter byte loaded serves two pixels
** and each input byte four channels; the pixels are read where they lie
** (a stride only changes their addresses, nothing is copied).  The
** channel loops of one pixel pair and of one pixel (rk_pair_channels,
** rk_one_channels) are out of line and shared with rk_conv2d and
** rk_conv2d_rip, so dual buffer and in place run the same machine code.
*/
#include "rk_pointwise.h"
#include "rk_dsp.h"
#include "rk_internal.h"

static bool is_pointwise(const rk_conv_params *p)
{
    return p->k_h == 1 && p->k_w == 1 && p->s_h == 1 && p->s_w == 1 && p->p_top == 0 && p->p_bottom == 0 &&
           p->p_left == 0 && p->p_right == 0;
}

size_t rk_pointwise_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (rk_conv_check(p, NULL, in, out) != RK_OK || !is_pointwise(p))
        return 0;
    return rk_gather_scratch_size(out.c, 0);
}

/* The input pixel under output pixel pix (1x1, no padding). */
static const int8_t *pixel_at(const rk_conv_params *p, rk_dims in, rk_dims out, const int8_t *input, int32_t pix)
{
    const int32_t r = pix / out.w, c = pix % out.w;
    return input + ((ptrdiff_t)r * p->s_h * in.w + (ptrdiff_t)c * p->s_w) * in.c;
}

static RK_FINISH_INLINE int8_t finish_at(const rk_conv_params *p, const rk_quant *q, uint32_t acc, int32_t oc)
{
    return rk_finish(acc, q->multiplier[oc], q->shift[oc], p->output_offset, p->act);
}

#if RK_WIDE_MAX > 0
/* The widened loops (host): the quantization arrays, the output offset
** and the clamp are read into locals first, since every int8 output store
** may alias them for the compiler, which would reload them per output. */
void rk_pair16_channels(const rk_conv_params *p, const rk_quant *q, const int16_t *x0, const int16_t *x1,
                        const int8_t *filter, const int32_t *bias, int32_t depth, int32_t cout, int8_t *y0,
                        int8_t *y1)
{
    const int32_t *mult = q->multiplier, *shift = q->shift, oo = p->output_offset;
    const rk_act act = p->act;
    const int32_t wide = rk_wide_run(depth);
    const int64_t end = (int64_t)cout * depth;
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[8];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = acc[4 + k] = rk_bias0(bias, oc + k);
        const int32_t n = (int64_t)(oc + 3) * depth + wide <= end ? wide : depth;
        rk_dot2x4_w16_acc(x0, x1, filter + (ptrdiff_t)oc * depth, depth, n, acc);
        for (int32_t k = 0; k < 4; k++) {
            const rk_rq r = rk_rq_of(mult[oc + k], shift[oc + k]);
            y0[oc + k] = rk_finish_rq(acc[k], r, oo, act);
            y1[oc + k] = rk_finish_rq(acc[4 + k], r, oo, act);
        }
    }
    for (; oc < cout; oc++) {
        const int8_t *w = filter + (ptrdiff_t)oc * depth;
        const rk_rq r = rk_rq_of(mult[oc], shift[oc]);
        y0[oc] = rk_finish_rq(rk_bias0(bias, oc) + rk_dot_w16(x0, w, depth), r, oo, act);
        y1[oc] = rk_finish_rq(rk_bias0(bias, oc) + rk_dot_w16(x1, w, depth), r, oo, act);
    }
}

void rk_one16_channels(const rk_conv_params *p, const rk_quant *q, const int16_t *x, const int8_t *filter,
                       const int32_t *bias, int32_t depth, int32_t cout, int8_t *y)
{
    const int32_t *mult = q->multiplier, *shift = q->shift, oo = p->output_offset;
    const rk_act act = p->act;
    const int32_t wide = rk_wide_run(depth);
    const int64_t end = (int64_t)cout * depth;
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[4];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = rk_bias0(bias, oc + k);
        const int32_t n = (int64_t)(oc + 3) * depth + wide <= end ? wide : depth;
        rk_dot4_w16_acc(x, filter + (ptrdiff_t)oc * depth, depth, n, acc);
        for (int32_t k = 0; k < 4; k++)
            y[oc + k] = rk_finish_rq(acc[k], rk_rq_of(mult[oc + k], shift[oc + k]), oo, act);
    }
    for (; oc < cout; oc++)
        y[oc] = rk_finish_rq(rk_bias0(bias, oc) + rk_dot_w16(x, filter + (ptrdiff_t)oc * depth, depth),
                             rk_rq_of(mult[oc], shift[oc]), oo, act);
}

#endif

void rk_pair_channels(const rk_conv_params *p, const rk_quant *q, const int8_t *x0, const int8_t *x1,
                      const int8_t *filter, const int32_t *bias, int32_t depth, int32_t cout, int8_t *y0, int8_t *y1)
{
#if RK_WIDE_MAX > 0
    if (depth <= RK_WIDE_MAX) {
        int16_t a[RK_WIDE_MAX], b[RK_WIDE_MAX];
        rk_widen(x0, depth, p->input_offset, a);
        rk_widen(x1, depth, p->input_offset, b);
        rk_wide_pad(a, depth);
        rk_wide_pad(b, depth);
        rk_pair16_channels(p, q, a, b, filter, bias, depth, cout, y0, y1);
        return;
    }
#endif
    const int32_t off = p->input_offset;
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[8];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = acc[4 + k] = rk_bias0(bias, oc + k);
        rk_dot2x4_off_acc(x0, x1, filter + (ptrdiff_t)oc * depth, depth, depth, off, acc);
        for (int32_t k = 0; k < 4; k++) {
            y0[oc + k] = finish_at(p, q, acc[k], oc + k);
            y1[oc + k] = finish_at(p, q, acc[4 + k], oc + k);
        }
    }
    for (; oc < cout; oc++) {
        const int8_t *w = filter + (ptrdiff_t)oc * depth;
        y0[oc] = finish_at(p, q, rk_bias0(bias, oc) + rk_dot_off(x0, w, depth, off), oc);
        y1[oc] = finish_at(p, q, rk_bias0(bias, oc) + rk_dot_off(x1, w, depth, off), oc);
    }
}

void rk_one_channels(const rk_conv_params *p, const rk_quant *q, const int8_t *x, const int8_t *filter,
                     const int32_t *bias, int32_t depth, int32_t cout, int8_t *y)
{
#if RK_DSP
    rk_one_channels_dsp(p, q, x, filter, bias, depth, cout, y); /* rk_pointwise_dsp.c */
    return;
#elif RK_WIDE_MAX > 0
    /* one pixel and fewer than four channels read the field at most three
    ** times: there the copy costs more than it saves (a 1x1 head of 2) */
    if (depth <= RK_WIDE_MAX && cout >= 4) {
        int16_t a[RK_WIDE_MAX];
        rk_widen(x, depth, p->input_offset, a);
        rk_wide_pad(a, depth);
        rk_one16_channels(p, q, a, filter, bias, depth, cout, y);
        return;
    }
#endif
    const int32_t off = p->input_offset;
#if RK_THUMB1
    /* ARMv6-M: the same loops with the parameters in locals.  Through p and
    ** q a compiler reloads them after every int8_t store (which may alias
    ** them); on a core with eight low registers that is most of the
    ** finishing step's work at small depths. */
    const int32_t *mult = q->multiplier, *sh = q->shift, zo = p->output_offset;
    const rk_act act = p->act;
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[4];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = rk_bias0(bias, oc + k);
        rk_dot4_off_acc(x, filter + (ptrdiff_t)oc * depth, depth, depth, off, acc);
        for (int32_t k = 0; k < 4; k++)
            y[oc + k] = rk_finish(acc[k], mult[oc + k], sh[oc + k], zo, act);
    }
    for (; oc < cout; oc++)
        y[oc] = rk_finish(rk_bias0(bias, oc) + rk_dot_off(x, filter + (ptrdiff_t)oc * depth, depth, off), mult[oc],
                          sh[oc], zo, act);
#else
    int32_t oc = 0;
    for (; oc + 4 <= cout; oc += 4) {
        uint32_t acc[4];
        for (int32_t k = 0; k < 4; k++)
            acc[k] = rk_bias0(bias, oc + k);
        rk_dot4_off_acc(x, filter + (ptrdiff_t)oc * depth, depth, depth, off, acc);
        for (int32_t k = 0; k < 4; k++)
            y[oc + k] = finish_at(p, q, acc[k], oc + k);
    }
    /* two channels left (person_detect's 1x1 head 256 -> 2): the field read
    ** once for both rows, as CMSIS-NN's widened field is (1.02 of its time
    ** with a row each) */
    if (oc + 2 <= cout) {
        const int8_t *w0 = filter + (ptrdiff_t)oc * depth, *w1 = w0 + depth;
        uint32_t a0 = rk_bias0(bias, oc), a1 = rk_bias0(bias, oc + 1);
        for (int32_t i = 0; i < depth; i++) {
            const int16_t xi = (int16_t)((int32_t)x[i] + off);
            a0 += (uint32_t)((int32_t)xi * w0[i]);
            a1 += (uint32_t)((int32_t)xi * w1[i]);
        }
        y[oc] = finish_at(p, q, a0, oc);
        y[oc + 1] = finish_at(p, q, a1, oc + 1);
        oc += 2;
    }
    for (; oc < cout; oc++)
        y[oc] = finish_at(p, q, rk_bias0(bias, oc) + rk_dot_off(x, filter + (ptrdiff_t)oc * depth, depth, off), oc);
#endif
}

void rk_pointwise_range(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                        const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int32_t from,
                        int32_t to)
{
    const int32_t cin = in.c, cout = out.c;
    int32_t pix = from;
#if RK_DSP
    /* the DSP path pairs pixels: two pixels x two channels per inner loop
    ** (rk_pointwise_dsp.c), fastest where the fields lie back to back.
    ** A pair's second pixel writes before the first's last reads, which the
    ** in-place caller's intervals allow for (run_gather of rk_conv2d_rip.c). */
    for (; pix + 2 <= to; pix += 2) {
        int8_t *y0 = output + (ptrdiff_t)pix * cout;
        rk_pair_channels_dsp(p, q, pixel_at(p, in, out, input, pix), pixel_at(p, in, out, input, pix + 1), filter,
                             bias, cin, cout, y0, y0 + cout);
    }
#endif
    if (RK_PIXEL_PAIRS)
        for (; pix + 2 <= to; pix += 2) {
            int8_t *y0 = output + (ptrdiff_t)pix * cout;
            rk_pair_channels(p, q, pixel_at(p, in, out, input, pix), pixel_at(p, in, out, input, pix + 1), filter,
                             bias, cin, cout, y0, y0 + cout);
        }
#if RK_THUMB1
    /* ARMv6-M has no divide instruction: pixel_at's / and % would be a
    ** call to __aeabi_idivmod per pixel; step the row and column instead. */
    if (pix < to) {
        int32_t r = pix / out.w, c = pix % out.w;
        for (; pix < to; pix++) {
            rk_one_channels(p, q, input + ((ptrdiff_t)r * p->s_h * in.w + (ptrdiff_t)c * p->s_w) * cin, filter,
                            bias, cin, cout, output + (ptrdiff_t)pix * cout);
            if (++c == out.w) {
                c = 0;
                r++;
            }
        }
    }
#endif
    for (; pix < to; pix++)
        rk_one_channels(p, q, pixel_at(p, in, out, input, pix), filter, bias, cin, cout,
                        output + (ptrdiff_t)pix * cout);
}

void rk_pointwise_run(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                      const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output)
{
    rk_pointwise_range(p, q, in, input, filter, bias, out, output, 0, out.h * out.w);
}

rk_status rk_pointwise(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || !is_pointwise(p) || input == NULL || filter == NULL ||
        output == NULL || scratch == NULL)
        return RK_ARG;
    rk_pointwise_run(p, q, in, input, filter, bias, out, output);
    return RK_OK;
}
