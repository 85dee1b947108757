/*
** cmsis_peer_util.h — helpers shared by the files of the cmsis_peer suite
** (tests/test_cmsis_peer.c, cmsis_peer_others.c): the seeded draws (axes,
** activations, quantization), TFLite's fixed-point arithmetic and the
** three-way comparison with its tally.
*/
#ifndef RIPSIM_TEST_CMSIS_PEER_UTIL_H
#define RIPSIM_TEST_CMSIS_PEER_UTIL_H

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm_nnfunctions.h"
#include "pcg32.h"
#include "rk_prepare.h"
#include "rk_add.h"
#include "rk_conv2d.h"
#include "rk_depthwise.h"
#include "rk_fully_connected.h"
#include "rk_pool.h"
#include "rk_softmax.h"
#include "rk_types.h"

#define SEED 20261130u

#define N_LAYERS 1000    /* per kernel type: the issue asks for at least 1,000 */

#define MAX_PRINTED 10   /* differing layers printed per kernel type (all are counted) */

/* ---------------------------------------------------------------- draws */

static inline int32_t rnd(rip_pcg32 *g, int32_t lo, int32_t hi)
{
    return (int32_t)rip_pcg32_range(g, lo, hi);
}

/* True with probability percent/100 (one draw of g). */
static inline bool chance(rip_pcg32 *g, uint32_t percent)
{
    return rip_pcg32_below(g, 100) < percent;
}

/* n uniform int8 values from g into p. */
static inline void fill_i8(rip_pcg32 *g, int8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rnd(g, -128, 127);
}

/* calloc of n items of size (at least one byte); fails the test when out of memory. */
static inline void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    cr_assert_not_null(p, "out of memory");
    return p;
}

/* One spatial axis of a layer, as CMSIS-NN and ours see it. */
typedef struct axis {
    int32_t in, k, s, d, keff;
    int32_t p_lo, p_hi;   /* ours: both sides; CMSIS-NN gets p_lo only */
    int32_t out;
    int mode;             /* 0 VALID, 1 SAME, 2 explicit symmetric */
} axis;

/*
** Draw the padding of one axis whose in, k, s, d are set.  Returns false
** when the axis has no output (the caller draws again).
*/
static inline bool draw_axis(rip_pcg32 *g, axis *a, int mode)
{
    a->keff = a->d * (a->k - 1) + 1;
    a->mode = mode;
    if (mode == 0) {                       /* VALID */
        if (a->in < a->keff)
            return false;
        a->p_lo = 0;
        a->out = (a->in - a->keff) / a->s + 1;
    } else if (mode == 1) {                /* SAME: out = ceil(in / s), TFLite's split */
        a->out = (a->in + a->s - 1) / a->s;
        int32_t total = (a->out - 1) * a->s + a->keff - a->in;
        if (total < 0)
            total = 0;
        a->p_lo = total / 2;
    } else {                               /* explicit symmetric p < k_eff */
        a->p_lo = rnd(g, 0, a->keff - 1);
        if (a->in + 2 * a->p_lo < a->keff)
            return false;
        a->out = (a->in + 2 * a->p_lo - a->keff) / a->s + 1;
    }
    /* The bottom/right padding the output size implies. */
    a->p_hi = (a->out - 1) * a->s + a->keff - a->in - a->p_lo;
    if (a->p_hi < 0)
        a->p_hi = 0;
    /* Self-check: our output-size formula on the implied padding gives the
    ** same size CMSIS-NN is told. */
    cr_assert_eq((a->in + a->p_lo + a->p_hi - a->keff) / a->s + 1, a->out, "axis geometry");
    return true;
}

/* Activation clamp around the output zero point zp: mostly the full range
** or ReLU, sometimes a narrower window (ReLU6-like, random), so that the
** clamp is exercised without saturating most outputs. */
static inline void draw_act(rip_pcg32 *g, int32_t zp, int32_t *lo, int32_t *hi)
{
    uint32_t r = rip_pcg32_below(g, 100);
    if (r < 40) {
        *lo = -128;
        *hi = 127;
    } else if (r < 70) {                                              /* ReLU */
        *lo = zp;
        *hi = 127;
    } else if (r < 85) {                                              /* ReLU6-like */
        *lo = zp;
        *hi = zp + rnd(g, 0, 127 - zp);
        if (*hi - *lo < 32)
            *hi = *lo + 32 > 127 ? 127 : *lo + 32;
    } else {
        *lo = rnd(g, -128, 111);
        *hi = rnd(g, *lo + 16, 127);
    }
}

/* Typical magnitude of an accumulator of `taps` products of an offset int8
** input and an int8 weight (for the shift that maps it into int8). */
static inline double typical_acc(int64_t taps)
{
    return sqrt((double)(taps > 0 ? taps : 1)) * 74.0 * 120.0;
}

/*
** Per-channel multipliers and shifts in TFLite's range (multiplier in
** [2^30, 2^31 - 1] as QuantizeMultiplier makes them, rarely 0; shift <= 0
** mostly, positive only where acc_bound << shift cannot overflow int32),
** centred on the shift that maps a typical accumulator (taps terms) into
** int8, so that outputs are neither all clamped nor all zero.
*/
static inline void draw_quant(rip_pcg32 *g, int32_t n, int64_t taps, int64_t acc_bound, int32_t *mult, int32_t *shift)
{
    int32_t max_left = 0;
    while (max_left < 30 && (acc_bound << (max_left + 1)) < ((int64_t)1 << 31))
        max_left++;
    int32_t mid = 6 - (int32_t)floor(log2(typical_acc(taps)));
    for (int32_t i = 0; i < n; i++) {
        uint32_t r = rip_pcg32_below(g, 100);
        mult[i] = r < 1 ? 0 : r < 5 ? (1 << 30) : r < 9 ? INT32_MAX : rnd(g, 1 << 30, INT32_MAX);
        int32_t s = mid + rnd(g, -2, 1);
        uint32_t e = rip_pcg32_below(g, 100);
        if (e < 2)
            s = -31;
        else if (e < 4)
            s = max_left;
        else if (e < 6)
            s = 0;
        if (s < -31)
            s = -31;
        if (s > max_left)
            s = max_left;
        shift[i] = s;
    }
}

/* ------------------------------------------- TFLite reference semantics */

/*
** Written from TFLite's reference int8 kernels (gemmlowp fixed point):
** SaturatingRoundingDoublingHighMul, RoundingDivideByPOT,
** MultiplyByQuantizedMultiplier.  Independent of both kernels under test.
*/
static inline int32_t tfl_srdhm(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN)
        return INT32_MAX;
    int64_t ab = (int64_t)a * b;
    int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));
}

static inline int32_t tfl_rdbpot(int32_t x, int32_t e)
{
    int32_t mask = (int32_t)(((int64_t)1 << e) - 1);
    int32_t rem = x & mask;
    int32_t thr = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (rem > thr ? 1 : 0);
}

static inline int32_t tfl_mbqm(int32_t x, int32_t m, int32_t shift)
{
    int32_t left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return tfl_rdbpot(tfl_srdhm((int32_t)((int64_t)x * ((int64_t)1 << left)), m), right);
}

static inline int8_t tfl_clamp(int32_t v, int32_t lo, int32_t hi)
{
    return (int8_t)(v < lo ? lo : v > hi ? hi : v);
}

/* ------------------------------------------------------------ reporting */

typedef struct tally {
    const char *kind;
    long layers, bytes, clamped, mismatched_layers, ref_disagree, cmsis_refused;
    long path[5];
} tally;

/*
** Compare ours, CMSIS-NN's and the reference output of one layer.  On a
** difference print the layer (desc) and the first differing byte with its
** (row, column, channel) for a h x w x c output, and count it (the first
** MAX_PRINTED per kernel type are printed).
*/
static inline void compare3(tally *t, long idx, const char *desc, const int8_t *ours, const int8_t *cmsis,
                     const int8_t *ref, int32_t h, int32_t w, int32_t c, int32_t act_lo, int32_t act_hi)
{
    size_t n = (size_t)h * (size_t)w * (size_t)c;
    t->bytes += (long)n;
    for (size_t i = 0; i < n; i++)
        t->clamped += ref[i] == act_lo || ref[i] == act_hi;
    for (size_t i = 0; i < n; i++) {
        if (ours[i] != cmsis[i]) {
            long px = (long)(i / (size_t)c);
            if (t->mismatched_layers++ >= MAX_PRINTED)
                return;
            printf("cmsis_peer: %s layer %ld MISMATCH %s: first differing byte %zu (row %ld, col %ld, ch %ld): "
                   "ours %d, CMSIS-NN %d, TFLite reference %d\n",
                   t->kind, idx, desc, i, px / w, px % w, (long)(i % (size_t)c), ours[i], cmsis[i], ref[i]);
            return;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (ref[i] != ours[i]) {
            long px = (long)(i / (size_t)c);
            if (t->ref_disagree++ >= MAX_PRINTED)
                return;
            printf("cmsis_peer: %s layer %ld: ours = CMSIS-NN but the TFLite reference differs %s: byte %zu "
                   "(row %ld, col %ld, ch %ld): ours/CMSIS-NN %d, reference %d\n",
                   t->kind, idx, desc, i, px / w, px % w, (long)(i % (size_t)c), ours[i], ref[i]);
            return;
        }
    }
}

/* Prints the kind's one-line summary (notes appended when not NULL) and fails the
** test unless N_LAYERS layers ran and none differed or was refused. */
static inline void finish(const tally *t, const char *notes)
{
    printf("cmsis_peer: %s: %ld layers, %ld output bytes compared (%.1f%% at a clamp bound), "
           "%ld layers differ from CMSIS-NN, %ld from the TFLite reference, %ld refused by CMSIS-NN%s%s\n",
           t->kind, t->layers, t->bytes, t->bytes ? 100.0 * (double)t->clamped / (double)t->bytes : 0.0,
           t->mismatched_layers, t->ref_disagree, t->cmsis_refused, notes ? "; " : "", notes ? notes : "");
    fflush(stdout);
    cr_expect_geq(t->layers, N_LAYERS, "%s: only %ld layers", t->kind, t->layers);
    cr_expect_eq(t->cmsis_refused, 0, "%s: CMSIS-NN refused %ld layers it should take", t->kind, t->cmsis_refused);
    cr_expect_eq(t->ref_disagree, 0, "%s: %ld layers differ from the TFLite reference", t->kind, t->ref_disagree);
    cr_assert_eq(t->mismatched_layers, 0, "%s: %ld layers differ from CMSIS-NN", t->kind, t->mismatched_layers);
}

#endif
