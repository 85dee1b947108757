/*
** rk_fully_connected_dsp.c — the DSP path (rk_dsp.h) of
** rk_fully_connected's output loop: four outputs at a time against one
** input row (rk_dsp_dot4), then one by one.  Compiled to nothing where
** RK_DSP is 0; equal byte for byte to the plain loop.
*/
#include "rk_dsp.h"

#if RK_DSP
#include "rk_internal.h"

/* Every batch row of a checked fully connected layer into output. */
void rk_fully_connected_dsp(const rk_fc_params *p, const rk_quant *q, const int8_t *input, const int8_t *weights,
                            const int32_t *bias, int8_t *output)
{
    const int32_t n = p->in_features, m = p->out_features, off = p->input_offset;
    const uint32_t off2 = rk_dsp_off2(off);
    rk_dsp_rq rq = rk_dsp_rq_make(q->multiplier[0], q->shift[0], p->output_offset, p->act);
    for (int32_t b = 0; b < p->batches; b++) {
        const int8_t *x = input + (ptrdiff_t)b * n;
        int8_t *y = output + (ptrdiff_t)b * m;
        int32_t o = 0;
        for (; o + 4 <= m; o += 4) {
            uint32_t acc[4];
            rk_dsp_dot4(x, weights + (ptrdiff_t)o * n, n, n, off2, off, bias != NULL ? bias + o : NULL, acc);
            for (int32_t k = 0; k < 4; k++) {
                if (p->per_channel)
                    rq = rk_dsp_rq_make(q->multiplier[o + k], q->shift[o + k], p->output_offset, p->act);
                y[o + k] = rk_dsp_finish(acc[k], &rq);
            }
        }
        for (; o < m; o++) {
            if (p->per_channel)
                rq = rk_dsp_rq_make(q->multiplier[o], q->shift[o], p->output_offset, p->act);
            y[o] = rk_dsp_finish(rk_bias0(bias, o) + rk_dsp_dot1(x, weights + (ptrdiff_t)o * n, n, off2, off), &rq);
        }
    }
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int rk_fully_connected_dsp_empty;
#endif
