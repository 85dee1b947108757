/*
** edge.c — a self-test "model" that is nothing but an arena of
** EDGE_ARENA bytes (set by firmware/meson.build from the target's model
** budget), to show where the RAM budget of a QEMU image ends: built once
** 64 bytes below the board's budget for a model (it must link and run)
** and once 1 byte above it (the link must fail: region `ram' overflowed).
** Its "inference" writes a ramp into the arena; the output is the last 16
** bytes.
*/
#include "rk_markers.h"
#include "rk_model.h"

#ifndef EDGE_ARENA
#error "compile with -DEDGE_ARENA=bytes"
#endif
#define N_OUT 16

static int8_t arena[EDGE_ARENA] __attribute__((aligned(16)));

const rk_model_info rk_model = {
    .name = "selftest-edge",
    .plan = EDGE_PLAN,
    .arena_bytes = EDGE_ARENA,
    .scratch_bytes = 0,
    .n_ops = 1,
    .n_logits = N_OUT,
};

int rk_model_run(void)
{
    rk_mark_begin();
    rk_mark_op(0);
    for (uint32_t i = 0; i < EDGE_ARENA; i++)
        arena[i] = (int8_t)(i * 7u);
    rk_mark_end();
    return 0;
}

const int8_t *rk_model_output(void)
{
    return arena + EDGE_ARENA - N_OUT;
}

/* CRC-32 (IEEE 802.3, as zlib's crc32), bitwise. */
uint32_t rk_model_checksum(void)
{
    const uint8_t *p = (const uint8_t *)rk_model_output();
    uint32_t crc = 0xffffffffu;
    for (uint32_t i = 0; i < N_OUT; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
