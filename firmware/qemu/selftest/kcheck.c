/*
** kcheck.c — the kernel check image, written against rk_model.h like a
** model: on four small layers it runs rk_conv2d (dual buffer) and
** rk_conv2d_rip in each of its four configurations at the simulator's truth
** gap, and fails on the first in-place output that differs from the dual
** one.  It shows that the in-place kernels are bit-exact on the target's
** own compiler and core (ARMv6-M alignment rules on the M0), not only on
** the host.
**
** Operator i (rk_mark_op(i)) is layer i/5, run i%5: run 0 dual buffer,
** runs 1..4 in place (padded gather, padded taps, dense gather, dense taps).
** rk_model_run returns 0, or 1 + the first operator that failed or
** differed.  The checksum is the CRC-32 of the four dual outputs,
** concatenated (kept in logits[], the "output").
** The gaps are the truths printed by `ripsim layer --json SPEC` (the
** simulator, not the kernels), in the order rip_padded_gather,
** rip_padded_taps, rip_dense_gather, rip_dense_taps.
*/
#include <string.h>

#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_markers.h"
#include "rk_model.h"

typedef struct layer {
    rk_conv_params p;
    rk_dims in, out;
    int64_t gap[4];
} layer;

#define FULL {-128, 127}
static const layer layers[] = {
    /* cin=3,cout=8,h=10,k=3,p=1 */
    {{3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 7, -5, FULL}, {10, 10, 3}, {10, 10, 8}, {441, 449, 528, 536}},
    /* cin=8,cout=4,h=9,k=3,s=2,p=1 */
    {{3, 3, 2, 2, 1, 1, 1, 1, 1, 1, -3, 2, FULL}, {9, 9, 8}, {5, 5, 4}, {0, 4, 0, 4}},
    /* cin=4,cout=6,h=8,k=1 */
    {{1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, {-100, 100}}, {8, 8, 4}, {8, 8, 6}, {128, 132, 128, 132}},
    /* cin=5,cout=7,h=11,k=3,d=2,p=2 */
    {{3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 128, -128, FULL}, {11, 11, 5}, {11, 11, 7}, {40, 47, 360, 367}},
};
#define N_LAYERS ((int)(sizeof layers / sizeof layers[0]))
#define MAX_IN 648            /* 9*9*8 */
#define MAX_PADDED 1125       /* 15*15*5 */
#define MAX_OUT 847           /* 11*11*7 */
#define OUT_TOTAL (800 + 100 + 384 + 847)
#define WS_BYTES 1536         /* >= gap + stored input of every run */
#define SCRATCH_BYTES 128

static int8_t ws[WS_BYTES] __attribute__((aligned(16)));
static int8_t input[MAX_IN], dual[MAX_OUT], scratch[SCRATCH_BYTES];
static int8_t filter[8 * 3 * 3 * 8];
static int32_t bias[8], mult[8], shift[8];
static int8_t logits[OUT_TOTAL];

const rk_model_info rk_model = {
    .name = "selftest-kcheck",
    .plan = "rip",
    .arena_bytes = WS_BYTES,
    .scratch_bytes = SCRATCH_BYTES,
    .n_ops = 5 * N_LAYERS,
    .n_logits = OUT_TOTAL,
};

static uint32_t rng_state;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Seeded input, filter and quantization for layer L (shift -8: outputs
** spread over many codes for these receptive fields). */
static void fill(const layer *L)
{
    const int n_in = L->in.h * L->in.w * L->in.c;
    const int n_f = L->out.c * L->p.k_h * L->p.k_w * L->in.c;
    for (int i = 0; i < n_in; i++)
        input[i] = (int8_t)((int32_t)(rng() % 256u) - 128);
    for (int i = 0; i < n_f; i++)
        filter[i] = (int8_t)((int32_t)(rng() % 255u) - 127);
    for (int i = 0; i < L->out.c; i++) {
        bias[i] = (int32_t)(rng() % 4001u) - 2000;
        mult[i] = (int32_t)(0x40000000u + (rng() & 0x3fffffffu));
        shift[i] = -8;
    }
}

int rk_model_run(void)
{
    static const rk_layout lay[4] = {RK_PADDED, RK_PADDED, RK_DENSE, RK_DENSE};
    static const rk_order ord[4] = {RK_GATHER, RK_TAPS, RK_GATHER, RK_TAPS};
    const rk_quant q = {mult, shift};
    int st = 0, out_at = 0;
    rng_state = 0x6b636865u;
    rk_mark_begin();
    for (int l = 0; l < N_LAYERS && st == 0; l++) {
        const layer *L = &layers[l];
        const int n_out = L->out.h * L->out.w * L->out.c;
        if (L->in.h * L->in.w * L->in.c > MAX_IN || n_out > MAX_OUT ||
            L->out.c * L->p.k_h * L->p.k_w * L->in.c > (int)sizeof filter || L->out.c > 8) {
            st = 1 + 5 * l;   /* a table entry larger than the buffers */
            break;
        }
        fill(L);
        rk_mark_op((uint32_t)(5 * l));
        if (rk_conv2d(&L->p, &q, L->in, input, filter, bias, L->out, dual, scratch) != RK_OK) {
            st = 1 + 5 * l;
            break;
        }
        memcpy(logits + out_at, dual, (size_t)n_out);
        out_at += n_out;
        for (int k = 0; k < 4; k++) {
            const rk_inplace ip = {lay[k], ord[k], L->gap[k]};
            const int64_t need = rk_conv2d_rip_workspace_size(&L->p, L->in, &ip);
            const int64_t size = need > n_out ? need : n_out;
            rk_mark_op((uint32_t)(5 * l + 1 + k));
            memset(ws, 0x5a, sizeof ws);
            if (need < 0 || size > WS_BYTES) {
                st = 2 + 5 * l + k;
                break;
            }
            rk_rip_store_input(&L->p, L->in, input, &ip, ws);
            if (rk_conv2d_rip(&L->p, &q, L->in, L->out, filter, bias, &ip, ws, size, scratch) != RK_OK ||
                memcmp(ws, dual, (size_t)n_out) != 0) {
                st = 2 + 5 * l + k;
                break;
            }
        }
    }
    rk_mark_end();
    return st;
}

const int8_t *rk_model_output(void)
{
    return logits;
}

/* CRC-32 (IEEE 802.3, as zlib's crc32), bitwise. */
uint32_t rk_model_checksum(void)
{
    const uint8_t *p = (const uint8_t *)logits;
    uint32_t crc = 0xffffffffu;
    for (uint32_t i = 0; i < rk_model.n_logits; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
