/*
** tiny.c — a hand-written self-test model against rk_model.h, so the QEMU
** images, the instruction counter and their tests work without the code
** generator.  Compiled twice: with TINY_PLAN_RIP=0 as plan "base"
** (TinyEngine style: dual-buffer convolutions, depthwise in place) and with
** TINY_PLAN_RIP=1 as plan "rip" (the first convolution in place at the
** simulator's rip_dense_gather truth).  Both must give the same logits.
**
** Graph (int8, NHWC):
**   0 conv 3x3 p1   12x12x3 -> 12x12x8      X  -> T0
**   1 depthwise 3x3 p1 in place on T0       T0 -> T1 (same bytes)
**   2 conv 1x1      12x12x8 -> 12x12x8      T1 -> T2
**   3 add           T2 += T1 (in place)     T2
**   4 avgpool 3x3 s3 12x12x8 -> 4x4x8       T2 -> P
**   5 fully connected 128 -> 10             P  -> logits
** Arena offsets (bytes):
**   base: X 0, T0/T1 432, T2 1584, P 0, logits 128; arena 2736
**   rip:  T0/T1 0, X at the gap 754 (ripsim layer cin=3,cout=8,h=12,k=3,p=1:
**         rip_dense_gather truth 754), T2 1152, P 0, logits 128; arena 2304
** Weights come from a fixed xorshift seed, filled in before rk_mark_begin
** (so they are not counted); the input image is tiny_input.bin
** (tiny_blob.S).
*/
#include <string.h>

#include "rk_add.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_depthwise_inplace.h"
#include "rk_fully_connected.h"
#include "rk_markers.h"
#include "rk_model.h"
#include "rk_pool.h"

#ifndef TINY_PLAN_RIP
#error "compile with -DTINY_PLAN_RIP=0 (base) or 1 (rip)"
#endif

#define H 12
#define C_IN 3
#define C 8
#define N_X (H * H * C_IN)
#define N_T (H * H * C)
#define N_P (4 * 4 * C)
#define N_LOGITS 10
#define GAP0 754

#if TINY_PLAN_RIP
#define ARENA_BYTES 2304
#define OFF_X GAP0
#define OFF_T0 0
#define OFF_T2 N_T
#else
#define ARENA_BYTES 2736
#define OFF_X 0
#define OFF_T0 N_X
#define OFF_T2 (N_X + N_T)
#endif
#define OFF_P 0
#define OFF_LOGITS 128
#define SCRATCH_BYTES 256

extern const int8_t tiny_input[N_X];

static int8_t arena[ARENA_BYTES] __attribute__((aligned(16)));
static int8_t scratch[SCRATCH_BYTES] __attribute__((aligned(4)));

static int8_t w0[C * 3 * 3 * C_IN], w1[3 * 3 * C], w2[C * C], w5[N_LOGITS * N_P];
static int32_t b0[C], b1[C], b2[C], b5[N_LOGITS];
static int32_t m0[C], s0[C], m1[C], s1[C], m2[C], s2[C], m5[1], s5[1];

const rk_model_info rk_model = {
    .name = "selftest-tiny",
    .plan = TINY_PLAN_RIP ? "rip" : "base",
    .arena_bytes = ARENA_BYTES,
    .scratch_bytes = SCRATCH_BYTES,
    .n_ops = 6,
    .n_logits = N_LOGITS,
};

/* xorshift32: the weights' fixed seed, identical on every target. */
static uint32_t rng_state;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void fill_i8(int8_t *w, int n)
{
    for (int i = 0; i < n; i++)
        w[i] = (int8_t)((int32_t)(rng() % 255u) - 127);
}

/* Biases in [-range, range]; multipliers in [2^30, 2^31) with shift s: a
** scale of about 2^(s-1)..2^s, chosen per layer so outputs spread. */
static void fill_layer(int32_t *b, int32_t range, int32_t *m, int32_t *s, int n, int32_t shift)
{
    for (int i = 0; i < n; i++) {
        if (b != NULL)
            b[i] = (int32_t)(rng() % (uint32_t)(2 * range + 1)) - range;
        m[i] = (int32_t)(0x40000000u + (rng() & 0x3fffffffu));
        s[i] = shift;
    }
}

static void init_weights(void)
{
    rng_state = 0x5e1f7e57u;
    fill_i8(w0, (int)sizeof w0);
    fill_i8(w1, (int)sizeof w1);
    fill_i8(w2, (int)sizeof w2);
    fill_i8(w5, (int)sizeof w5);
    fill_layer(b0, 2000, m0, s0, C, -9);
    fill_layer(b1, 1000, m1, s1, C, -7);
    fill_layer(b2, 1000, m2, s2, C, -7);
    fill_layer(b5, 3000, m5, s5, 1, -9);
    for (int i = 0; i < N_LOGITS; i++)
        b5[i] = (int32_t)(rng() % 6001u) - 3000;
}

static const rk_act full = {-128, 127};

int rk_model_run(void)
{
    int st = 0;
    init_weights();
    memcpy(arena + OFF_X, tiny_input, N_X);
    const rk_dims dx = {H, H, C_IN}, dt = {H, H, C}, dp = {4, 4, C};
    const rk_conv_params p0 = {3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, -3, full};
    const rk_conv_params p1 = {3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, 2, full};
    const rk_conv_params p2 = {1, 1, 1, 1, 1, 1, 0, 0, 0, 0, -2, 1, full};
    const rk_quant q0 = {m0, s0}, q1 = {m1, s1}, q2 = {m2, s2}, q5 = {m5, s5};
    const rk_add_params pa = {-2, 1, 20, 1518500250, -1, 1518500250, -1, 1431655765, -19, 0, full};
    const rk_pool_params pp = {3, 3, 3, 3, 0, 0, 0, 0, full};
    const rk_fc_params pf = {1, N_P, N_LOGITS, 0, 4, full, false};

    rk_mark_begin();
    rk_mark_op(0);
#if TINY_PLAN_RIP
    const rk_inplace ip = {RK_DENSE, RK_GATHER, GAP0};
    if (rk_conv2d_rip(&p0, &q0, dx, dt, w0, b0, &ip, arena + OFF_T0, GAP0 + N_X, scratch) != RK_OK) {
#else
    if (rk_conv2d(&p0, &q0, dx, arena + OFF_X, w0, b0, dt, arena + OFF_T0, scratch) != RK_OK) {
#endif
        st = 1;
        goto done;
    }
    rk_mark_op(1);
    if (rk_depthwise_inplace(&p1, &q1, dt, dt, w1, b1, arena + OFF_T0, scratch) != RK_OK) {
        st = 2;
        goto done;
    }
    rk_mark_op(2);
    if (rk_conv2d(&p2, &q2, dt, arena + OFF_T0, w2, b2, dt, arena + OFF_T2, scratch) != RK_OK) {
        st = 3;
        goto done;
    }
    rk_mark_op(3);
    if (rk_add(&pa, N_T, arena + OFF_T2, arena + OFF_T0, arena + OFF_T2) != RK_OK) {
        st = 4;
        goto done;
    }
    rk_mark_op(4);
    if (rk_avgpool(&pp, dt, arena + OFF_T2, dp, arena + OFF_P) != RK_OK) {
        st = 5;
        goto done;
    }
    rk_mark_op(5);
    if (rk_fully_connected(&pf, &q5, arena + OFF_P, w5, b5, arena + OFF_LOGITS) != RK_OK)
        st = 6;
done:
    rk_mark_end();
    return st;
}

const int8_t *rk_model_output(void)
{
    return arena + OFF_LOGITS;
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32), bitwise: small and
** the same on every target. */
uint32_t rk_model_checksum(void)
{
    const uint8_t *p = (const uint8_t *)rk_model_output();
    uint32_t crc = 0xffffffffu;
    for (uint32_t i = 0; i < rk_model.n_logits; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}
