/*
** rk_fully_connected.c — int8 fully connected layer (rk_fully_connected.h).
*/
#include "rk_fully_connected.h"
#include "rk_dsp.h"
#include "rk_internal.h"

size_t rk_fully_connected_buffer_size(const rk_fc_params *p)
{
    (void)p;
    return 0;
}

rk_status rk_fully_connected(const rk_fc_params *p, const rk_quant *q, const int8_t *input, const int8_t *weights,
                             const int32_t *bias, int8_t *output)
{
    if (p == NULL || q == NULL || q->multiplier == NULL || q->shift == NULL || input == NULL || weights == NULL ||
        output == NULL || p->batches < 1 || p->in_features < 1 || p->out_features < 1 || !rk_act_ok(p->act) ||
        p->input_offset < -127 || p->input_offset > 128 || p->output_offset < -128 || p->output_offset > 127 ||
        (int64_t)p->batches * p->in_features > RK_MAX_SCALARS ||
        (int64_t)p->batches * p->out_features > RK_MAX_SCALARS ||
        (int64_t)p->in_features * p->out_features > RK_MAX_SCALARS)
        return RK_ARG;
    const int32_t nq = p->per_channel ? p->out_features : 1;
    for (int32_t o = 0; o < nq; o++)
        if (q->shift[o] < -31 || q->shift[o] > 30)
            return RK_ARG;
#if RK_DSP
    rk_fully_connected_dsp(p, q, input, weights, bias, output); /* rk_fully_connected_dsp.c */
    return RK_OK;
#endif
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = input + (ptrdiff_t)b * p->in_features;
        int8_t *y = output + (ptrdiff_t)b * p->out_features;
        for (int32_t o = 0; o < p->out_features; o++) {
            const uint32_t acc = rk_dot_off(x, weights + (ptrdiff_t)o * p->in_features, p->in_features,
                                            p->input_offset) +
                                 (bias != NULL ? (uint32_t)bias[o] : 0u);
            const int32_t k = p->per_channel ? o : 0;
            y[o] = rk_finish(acc, q->multiplier[k], q->shift[k], p->output_offset, p->act);
        }
    }
    return RK_OK;
}
