/*
** rk_add.c — int8 elementwise add (rk_add.h).
*/
#include "rk_add.h"
#include "rk_internal.h"

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
    for (int32_t i = 0; i < n; i++) {
        /* |x| <= 255 * 2^22 < 2^31: no overflow before requantization */
        const int32_t x1 = ((int32_t)input1[i] + p->input1_offset) * ((int32_t)1 << p->left_shift);
        const int32_t x2 = ((int32_t)input2[i] + p->input2_offset) * ((int32_t)1 << p->left_shift);
        const int32_t s1 = rk_requantize(x1, p->input1_multiplier, p->input1_shift);
        const int32_t s2 = rk_requantize(x2, p->input2_multiplier, p->input2_shift);
        /* TFLite adds in int32; wrap rather than overflow */
        const uint32_t sum = (uint32_t)s1 + (uint32_t)s2;
        output[i] = rk_finish(sum, p->output_multiplier, p->output_shift, p->output_offset, p->act);
    }
    return RK_OK;
}
