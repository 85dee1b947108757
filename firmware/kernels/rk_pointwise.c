/*
** rk_pointwise.c — 1x1 int8 convolution (rk_pointwise.h).
*/
#include "rk_pointwise.h"
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

rk_status rk_pointwise(const rk_conv_params *p, const rk_quant *q, rk_dims in, const int8_t *input,
                       const int8_t *filter, const int32_t *bias, rk_dims out, int8_t *output, int8_t *scratch)
{
    if (rk_conv_check(p, q, in, out) != RK_OK || !is_pointwise(p) || input == NULL || filter == NULL ||
        output == NULL || scratch == NULL)
        return RK_ARG;
    const int32_t cin = in.c, cout = out.c, n_pix = out.h * out.w;
    uint32_t *pre = rk_gather_pre(scratch);
    rk_fold_offset(filter, bias, cout, cin, p->input_offset, pre);
    for (int32_t pix = 0; pix < n_pix; pix++) {
        const int8_t *x = input + (ptrdiff_t)pix * cin;
        int8_t *y = output + (ptrdiff_t)pix * cout;
        int32_t oc = 0;
        for (; oc + 4 <= cout; oc += 4) {
            uint32_t acc[4];
            rk_dot4(x, filter + (ptrdiff_t)oc * cin, cin, acc);
            for (int32_t j = 0; j < 4; j++)
                y[oc + j] = rk_finish(acc[j] + pre[oc + j], q->multiplier[oc + j], q->shift[oc + j],
                                      p->output_offset, p->act);
        }
        for (; oc < cout; oc++)
            y[oc] = rk_finish(rk_dot(x, filter + (ptrdiff_t)oc * cin, cin) + pre[oc], q->multiplier[oc],
                              q->shift[oc], p->output_offset, p->act);
    }
    return RK_OK;
}
