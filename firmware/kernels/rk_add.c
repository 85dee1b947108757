/*
** rk_add.c — int8 elementwise add (rk_add.h).
*/
#include "rk_add.h"
#include "rk_requantize_inline.h"
#include "rk_internal.h"
#include "rk_dsp.h"

size_t rk_add_buffer_size(const rk_add_params *p, int32_t n)
{
    (void)p;
    (void)n;
    return 0;
}

static bool shift_ok(int32_t s)
{
    return s >= -31 && s <= 30;
}

rk_status rk_add(const rk_add_params *p, int32_t n, const int8_t *input1, const int8_t *input2, int8_t *output)
{
    if (p == NULL || n < 0 || input1 == NULL || input2 == NULL || output == NULL || !rk_act_ok(p->act) ||
        p->input1_offset < -127 || p->input1_offset > 128 || p->input2_offset < -127 || p->input2_offset > 128 ||
        p->output_offset < -128 || p->output_offset > 127 || p->left_shift < 0 || p->left_shift > 22 ||
        !shift_ok(p->input1_shift) || !shift_ok(p->input2_shift) || !shift_ok(p->output_shift))
        return RK_ARG;
#if RK_DSP
    if (rk_add_dsp(p, n, input1, input2, output)) /* TFLite's usual parameters: rk_add_dsp.c */
        return RK_OK;
#endif
    for (int32_t i = 0; i < n; i++) {
        /* |x| <= 255 * 2^22 < 2^31: no overflow before requantization */
        const int32_t x1 = ((int32_t)input1[i] + p->input1_offset) * ((int32_t)1 << p->left_shift);
        const int32_t x2 = ((int32_t)input2[i] + p->input2_offset) * ((int32_t)1 << p->left_shift);
        const int32_t s1 = rk_requantize_inline(x1, p->input1_multiplier, p->input1_shift);
        const int32_t s2 = rk_requantize_inline(x2, p->input2_multiplier, p->input2_shift);
        /* TFLite adds in int32; wrap rather than overflow */
        const uint32_t sum = (uint32_t)s1 + (uint32_t)s2;
        output[i] = rk_finish(sum, p->output_multiplier, p->output_shift, p->output_offset, p->act);
    }
    return RK_OK;
}

size_t rk_add_broadcast_buffer_size(const rk_add_params *p, const rk_shape *out)
{
    (void)p;
    (void)out;
    return 0;
}

/* Do in1 and in2 broadcast to out (same rank, each extent 1 or the output's)? */
static bool broadcasts(const rk_shape *out, const rk_shape *in1, const rk_shape *in2)
{
    if (rk_shape_count(*out) < 0 || in1->rank != out->rank || in2->rank != out->rank)
        return false;
    for (int32_t i = 0; i < out->rank; i++)
        if ((in1->d[i] != 1 && in1->d[i] != out->d[i]) || (in2->d[i] != 1 && in2->d[i] != out->d[i]))
            return false;
    return true;
}

rk_status rk_add_broadcast(const rk_add_params *p, const rk_shape *out, const rk_shape *in1, const rk_shape *in2,
                           const int8_t *input1, const int8_t *input2, int8_t *output)
{
    if (out == NULL || in1 == NULL || in2 == NULL || !broadcasts(out, in1, in2))
        return RK_ARG;
    const int32_t r = out->rank;
    int32_t idx[RK_MAX_RANK] = {0}, st1[RK_MAX_RANK], st2[RK_MAX_RANK], s1 = 1, s2 = 1;
    for (int32_t i = r - 1; i >= 0; i--) { /* an input's stride, 0 along its unit axes */
        st1[i] = in1->d[i] == 1 ? 0 : s1;
        st2[i] = in2->d[i] == 1 ? 0 : s2;
        s1 *= in1->d[i];
        s2 *= in2->d[i];
    }
    const int32_t last = out->d[r - 1], n = (int32_t)rk_shape_count(*out);
    const int32_t run = in1->d[r - 1] == last && in2->d[r - 1] == last ? last : 1;
    for (int32_t o = 0; o < n; o += run) {
        int32_t o1 = 0, o2 = 0;
        for (int32_t i = 0; i < r; i++) {
            o1 += idx[i] * st1[i];
            o2 += idx[i] * st2[i];
        }
        const rk_status rc = rk_add(p, run, input1 + o1, input2 + o2, output + o);
        if (rc != RK_OK)
            return rc;
        idx[r - 1] += run;
        for (int32_t i = r - 1; i > 0 && idx[i] >= out->d[i]; i--) {
            idx[i] = 0;
            idx[i - 1]++;
        }
    }
    return RK_OK;
}
