/*
** standin_body.h — a hand-written stand-in for a model that `ripsim codegen`
** generates (tests only): it follows the contract of firmware/runtime/rk_model.h
** and of the generated folder (model.c, model_blob.S, model.bin, model.json),
** so the Pico links and the deployment driver can be tested without the
** generator.  Two pointwise convolutions, 8x8x4 -> 8x8x8 -> 8x8x4, with the
** tensors at the offsets the including model.c defines (two "plans" that
** place them differently and must compute the same logits).
**
** The including model.c defines STANDIN_NAME, STANDIN_PLAN, STANDIN_ARENA
** (bytes), STANDIN_IN, STANDIN_MID, STANDIN_OUT (arena offsets).
*/
#include <string.h>

#include "rk_markers.h"
#include "rk_model.h"
#include "rk_pointwise.h"

extern const int8_t rk_standin_blob[]; /* model.bin: input 256 B, filter0 32 B, filter1 32 B */

static int8_t arena[STANDIN_ARENA] __attribute__((aligned(16)));
static int8_t scratch[64] __attribute__((aligned(16)));

const rk_model_info rk_model = {STANDIN_NAME, STANDIN_PLAN, STANDIN_ARENA, sizeof scratch, 2, 256};

static const int32_t mult[8] = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};
static const int32_t shift[8] = {-5, -5, -5, -5, -5, -5, -5, -5};
static const int32_t bias[8] = {100, -100, 50, -50, 0, 25, -25, 10};

int rk_model_run(void)
{
    const rk_conv_params p = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, -2, {-128, 127}};
    const rk_quant q = {mult, shift};
    const rk_dims d4 = {8, 8, 4}, d8 = {8, 8, 8};
    memcpy(arena + STANDIN_IN, rk_standin_blob, 256);
    rk_mark_begin();
    rk_mark_op(0);
    if (rk_pointwise_buffer_size(&p, d4, d8) > sizeof scratch ||
        rk_pointwise(&p, &q, d4, arena + STANDIN_IN, rk_standin_blob + 256, bias, d8, arena + STANDIN_MID,
                     scratch) != RK_OK)
        return 1;
    rk_mark_op(1);
    if (rk_pointwise_buffer_size(&p, d8, d4) > sizeof scratch ||
        rk_pointwise(&p, &q, d8, arena + STANDIN_MID, rk_standin_blob + 288, bias, d4, arena + STANDIN_OUT,
                     scratch) != RK_OK)
        return 2;
    rk_mark_end();
    return 0;
}

const int8_t *rk_model_output(void) { return arena + STANDIN_OUT; }

uint32_t rk_model_checksum(void)
{
    uint32_t c = 0xFFFFFFFFu;
    const uint8_t *o = (const uint8_t *)rk_model_output();
    for (uint32_t i = 0; i < rk_model.n_logits; i++) {
        c ^= o[i];
        for (int b = 0; b < 8; b++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}
