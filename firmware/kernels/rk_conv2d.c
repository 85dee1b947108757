/*
** rk_conv2d.c — int8 2D convolution, dual buffer (rk_conv2d.h).
**
** Per output pixel the receptive field is gathered into scratch (pad taps
** as the input zero point, so they add nothing), then every output channel
** is one contiguous dot product with its OHWI filter row, the input offset
** folded into a per-channel constant computed once.  1x1 layers go to
** rk_pointwise, which needs no gather.
*/
#include "rk_conv2d.h"
#include "rk_internal.h"
#include "rk_pointwise.h"

size_t rk_conv2d_buffer_size(const rk_conv_params *p, rk_dims in, rk_dims out)
{
    if (rk_conv_check(p, NULL, in, out) != RK_OK)
        return 0;
    return rk_gather_scratch_size(out.c, (int64_t)p->k_h * p->k_w * in.c);
}

rk_status rk_conv2d(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                    const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || input == NULL || filter == NULL || output == NULL ||
        scratch == NULL)
        return RK_ARG;
    if (p->k_h == 1 && p->k_w == 1 && p->s_h == 1 && p->s_w == 1 && p->p_top == 0 && p->p_bottom == 0 &&
        p->p_left == 0 && p->p_right == 0)
        return rk_pointwise(p, q, in, input, filter, bias, out, output, scratch);

    const int32_t cin = in.c, cout = out.c, depth = p->k_h * p->k_w * cin;
    const int8_t zero_point = (int8_t)(-p->input_offset);
    uint32_t *pre = rk_gather_pre(scratch);
    int8_t *col = (int8_t *)(pre + cout);
    rk_fold_offset(filter, bias, cout, depth, p->input_offset, pre);

    int8_t *y = output;
    for (int32_t r = 0; r < out.h; r++)
        for (int32_t c = 0; c < out.w; c++) {
            int8_t *dst = col;
            for (int32_t a = 0; a < p->k_h; a++) {
                const int32_t i = r * p->s_h + a * p->d_h - p->p_top;
                for (int32_t b = 0; b < p->k_w; b++, dst += cin) {
                    const int32_t j = c * p->s_w + b * p->d_w - p->p_left;
                    if (i >= 0 && i < in.h && j >= 0 && j < in.w)
                        memcpy(dst, input + ((ptrdiff_t)i * in.w + j) * cin, (size_t)cin);
                    else
                        memset(dst, zero_point, (size_t)cin);
                }
            }
            int32_t oc = 0;
            for (; oc + 4 <= cout; oc += 4) {
                uint32_t acc[4];
                rk_dot4(col, filter + (ptrdiff_t)oc * depth, depth, acc);
                for (int32_t k = 0; k < 4; k++)
                    y[oc + k] = rk_finish(acc[k] + pre[oc + k], q->multiplier[oc + k], q->shift[oc + k],
                                          p->output_offset, p->act);
            }
            for (; oc < cout; oc++)
                y[oc] = rk_finish(rk_dot(col, filter + (ptrdiff_t)oc * depth, depth) + pre[oc],
                                  q->multiplier[oc], q->shift[oc], p->output_offset, p->act);
            y += cout;
        }
    return RK_OK;
}
