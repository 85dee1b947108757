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

#if RK_WIDE_MAX > 0 && !RK_DSP /* the DSP path (and its host emulation) has its own loop */
/* Host: each batch's input widened once (rk_internal.h), then four outputs
** per pass over it (the input read once for four weight rows, as the
** convolutions' one-pixel loop), requantized with prepared constants. */
static void fc_wide(const rk_fc_params *p, const rk_quant *q, const int8_t *input, const int8_t *weights,
                    const int32_t *bias, int8_t *output)
{
    const int32_t nin = p->in_features, nout = p->out_features, oo = p->output_offset;
    const rk_act act = p->act;
    const int32_t wide = rk_wide_run(nin);
    const int64_t end = (int64_t)nout * nin;
    const rk_rq r0 = rk_rq_of(q->multiplier[0], q->shift[0]);
    int16_t x[RK_WIDE_MAX];
    rk_wide_pad(x, nin);
    for (int32_t b = 0; b < p->batches; b++) {
        rk_widen(input + (ptrdiff_t)b * nin, nin, p->input_offset, x);
        int8_t *y = output + (ptrdiff_t)b * nout;
        int32_t o = 0;
        for (; o + 4 <= nout; o += 4) {
            uint32_t acc[4];
            for (int32_t k = 0; k < 4; k++)
                acc[k] = rk_bias0(bias, o + k);
            const int32_t n = (int64_t)(o + 3) * nin + wide <= end ? wide : nin;
            rk_dot4_w16_acc(x, weights + (ptrdiff_t)o * nin, nin, n, acc);
            for (int32_t k = 0; k < 4; k++)
                y[o + k] = rk_finish_rq(acc[k], p->per_channel ? rk_rq_of(q->multiplier[o + k], q->shift[o + k]) : r0,
                                        oo, act);
        }
        for (; o < nout; o++)
            y[o] = rk_finish_rq(rk_bias0(bias, o) + rk_dot_w16(x, weights + (ptrdiff_t)o * nin, nin),
                                p->per_channel ? rk_rq_of(q->multiplier[o], q->shift[o]) : r0, oo, act);
    }
}
#endif

#if !RK_DSP
/* The plain loop of a checked layer, every batch row into output.  Out of
** line: with the argument checks in the same function GCC 12 allocates the
** M0 loop's registers worse (a load more per output). */
__attribute__((noinline)) static void fc_plain(const rk_fc_params *p, const rk_quant *q, const int8_t *input,
                                               const int8_t *weights, const int32_t *bias, int8_t *output)
{
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = input + (ptrdiff_t)b * p->in_features;
        int8_t *y = output + (ptrdiff_t)b * p->out_features;
        int32_t o = 0;
#if RK_THUMB1
        /* Four outputs per pass (rk_dot4_off_acc), each input byte loaded
        ** once for four weight rows: on ARMv6-M the one-row loop costs a
        ** load and an offset add per product more.  The same sums. */
        const int32_t *mult = q->multiplier, *sh = q->shift, zo = p->output_offset;
        const int32_t nin = p->in_features, nout = p->out_features, off = p->input_offset;
        const bool pc = p->per_channel;
        const rk_act act = p->act;
        for (; o + 4 <= nout; o += 4) {
            uint32_t acc[4];
            for (int32_t k = 0; k < 4; k++)
                acc[k] = bias != NULL ? (uint32_t)bias[o + k] : 0u;
            rk_dot4_off_acc(x, weights + (ptrdiff_t)o * nin, nin, nin, off, acc);
            for (int32_t k = 0; k < 4; k++) {
                const int32_t j = pc ? o + k : 0;
                y[o + k] = rk_finish(acc[k], mult[j], sh[j], zo, act);
            }
        }
#endif
        for (; o < p->out_features; o++) {
            const uint32_t acc = rk_dot_off(x, weights + (ptrdiff_t)o * p->in_features, p->in_features,
                                            p->input_offset) +
                                 (bias != NULL ? (uint32_t)bias[o] : 0u);
            const int32_t k = p->per_channel ? o : 0;
            y[o] = rk_finish(acc, q->multiplier[k], q->shift[k], p->output_offset, p->act);
        }
    }
}
#endif

rk_status rk_fully_connected(const rk_fc_params *p, const rk_quant *q, const int8_t *input, const int8_t *weights,
                             const int32_t *bias, int8_t *output)
{
    if (p == NULL || q == NULL || q->multiplier == NULL || q->shift == NULL || input == NULL || weights == NULL ||
        output == NULL || !rk_act_ok(p->act) || (uint32_t)p->input_offset + 127u > 255u ||
        (uint32_t)p->output_offset + 128u > 255u)
        return RK_ARG;
    /* Extents in [1, 2^15] (every layer seen) make every product below
    ** 2^30: one test for the six; only larger ones take the 64-bit checks.
    ** A tiny layer's whole run is a few hundred instructions (hello_world's
    ** 16 -> 1), so the checks' own cost shows. */
    if ((((uint32_t)p->batches - 1u) | ((uint32_t)p->in_features - 1u) | ((uint32_t)p->out_features - 1u)) >=
            32768u &&
        (p->batches < 1 || p->in_features < 1 || p->out_features < 1 ||
         !rk_product_ok(p->batches, p->in_features) || !rk_product_ok(p->batches, p->out_features) ||
         !rk_product_ok(p->in_features, p->out_features)))
        return RK_ARG;
    /* every shift in [-31, 30]: the first (the only one per tensor) outside
    ** the loop, which then costs a per-tensor layer one test */
    if ((uint32_t)q->shift[0] + 31u > 61u)
        return RK_ARG;
    if (p->per_channel)
        for (int32_t o = 1; o < p->out_features; o++)
            if ((uint32_t)q->shift[o] + 31u > 61u)
                return RK_ARG;
#if RK_DSP /* rk_fully_connected_dsp.c; a head's path tested here, on values already loaded */
    if (!p->per_channel && p->out_features < 4 && q->shift[0] < 0 && q->multiplier[0] >= 0) {
        if (p->out_features == 1 && p->batches == 1) /* one output (a regression head): the call is the layer */
            output[0] = rk_fully_connected_dsp_one(p, q, input, weights, rk_bias0(bias, 0));
        else
            rk_fully_connected_dsp_head(p, q, input, weights, bias, output);
    } else
        rk_fully_connected_dsp(p, q, input, weights, bias, output);
    return RK_OK;
#elif RK_WIDE_MAX > 0
    /* below four outputs each input is read once or twice anyway: the
    ** copy would cost more than it saves (hello_world's 16 -> 1) */
    if (p->in_features <= RK_WIDE_MAX && p->out_features >= 4) {
        fc_wide(p, q, input, weights, bias, output);
        return RK_OK;
    }
#endif
#if !RK_DSP
    fc_plain(p, q, input, weights, bias, output);
    return RK_OK;
#endif
}
