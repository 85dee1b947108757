/*
** test_kernels_fc.c — rk_fully_connected's DSP path (built on the host
** through RK_DSP_EMULATE, rk_dsp.h) against the independent 64-bit
** reference ref_fc (tests/ref_conv.h), where test_kernels_dsp.c's random
** layers seldom go: the per-tensor fast requantization (one 64-bit sum,
** rk_fully_connected_dsp.c) at every right shift with extreme multipliers
** and accumulators, the full-range clamp (SSAT) and narrow ones, the
** 4 / 2 / 1 row blocking and the heads of one to three outputs, inputs
** shorter than a word; the general path (left shifts, negative and
** INT32_MIN multipliers, per channel); and the argument checks, whose
** one-test fast form for small extents must reject exactly what the full
** checks reject.
*/
#define RK_DSP_EMULATE 1

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rk_dsp.h"
#include "rk_fully_connected.h"
#include "ref_conv.h"
#include "splitmix.h"

static void *fc_alloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    cr_assert_not_null(p);
    return p;
}

/* Multipliers the fast path must get right (and the ones it must hand to
** the general path: negative, INT32_MIN). */
static const int32_t special_mult[] = { 0, 1, 2, 0x40000000, 0x40000001, 0x7ffffffe, INT32_MAX, 0x5a5a5a5a, -1,
                                        -0x40000000, INT32_MIN };
/* Accumulators at the edges of the sign choice and of int32. */
static const int32_t special_acc[] = { INT32_MIN, INT32_MIN + 1, -0x40000001, -0x40000000, -0x3fffffff, -65536, -2,
                                       -1, 0, 1, 2, 65535, 0x3fffffff, 0x40000000, INT32_MAX - 1, INT32_MAX };

/* Runs p (weights w, bias, quantization mult/shift) and compares every
** output with ref_fc; false when the reference's accumulator would leave
** int32 (the kernel wraps, the reference does not define that). */
static bool run_one(const rk_fc_params *p, const int8_t *x, const int8_t *w, const int32_t *bias,
                    const int32_t *mult, const int32_t *shift, const char *what, int k)
{
    const size_t ny = (size_t)p->batches * p->out_features;
    int8_t *y = fc_alloc(ny), *want = fc_alloc(ny);
    const bool ok = ref_fc(p->batches, p->in_features, p->out_features, x, w, bias, -p->input_offset,
                           p->output_offset, p->per_channel, mult, shift, p->act.min, p->act.max, want);
    if (ok) {
        const rk_quant q = { (int32_t *)mult, (int32_t *)shift };
        memset(y, 0x55, ny);
        cr_assert_eq(rk_fully_connected(p, &q, x, w, bias, y), RK_OK, "%s %d: status", what, k);
        for (size_t i = 0; i < ny; i++)
            cr_assert_eq(y[i], want[i],
                         "%s %d: output %zu is %d, the reference %d (b %d, n %d, m %d, mult %d, shift %d, act "
                         "[%d, %d], off %d/%d)",
                         what, k, i, y[i], want[i], p->batches, p->in_features, p->out_features, mult[0], shift[0],
                         p->act.min, p->act.max, p->input_offset, p->output_offset);
    }
    free(y);
    free(want);
    return ok;
}

/* Every accumulator of special_acc (set through the bias: one input of 0
** with offset 0, so acc = bias) at every shift and special multiplier,
** for the three fast paths (one output, a head of 2-3, the row blocks of
** 4 and more) and the two clamps. */
Test(kernels_fc, fast_requantization_at_the_edges)
{
    const int nacc = (int)(sizeof special_acc / sizeof special_acc[0]);
    const int32_t outs[] = { 1, 2, 3, 5, 8 };
    int k = 0;
    for (size_t mo = 0; mo < sizeof outs / sizeof outs[0]; mo++) {
        const int32_t m = outs[mo];
        int32_t *bias = fc_alloc(sizeof(int32_t) * (size_t)m), *mult = fc_alloc(sizeof(int32_t) * (size_t)m);
        int32_t *shift = fc_alloc(sizeof(int32_t) * (size_t)m);
        int8_t x[1] = { 0 }, *w = fc_alloc((size_t)m);
        for (int32_t o = 0; o < m; o++)
            w[o] = (int8_t)(o % 2 ? -7 : 3); /* x + offset = 0: the weights do not matter, but are read */
        for (int32_t s = -31; s <= 30; s++)
            for (size_t mi = 0; mi < sizeof special_mult / sizeof special_mult[0]; mi++)
                for (int a0 = 0; a0 < nacc; a0 += m) {
                    for (int32_t o = 0; o < m; o++) {
                        bias[o] = special_acc[(a0 + o) % nacc];
                        mult[o] = special_mult[mi];
                        shift[o] = s;
                    }
                    for (int full = 0; full < 2; full++) {
                        rk_fc_params p = { .batches = 1, .in_features = 1, .out_features = m, .input_offset = 0,
                                           .output_offset = full ? 0 : (int32_t)(k % 255) - 127,
                                           .act = { full ? -128 : -100 + k % 90, full ? 127 : 110 - k % 70 },
                                           .per_channel = false };
                        cr_assert(run_one(&p, x, w, bias, mult, shift, "edges", k));
                        k++;
                    }
                }
        free(bias);
        free(mult);
        free(shift);
        free(w);
    }
    cr_log_info("fast requantization: %d layers", k);
}

/* Random layers, shaped to hit each block remainder (m mod 4, m < 4, n <
** 4, n mod 4) with random and special quantizations, per tensor mostly,
** per channel sometimes, with and without a bias. */
Test(kernels_fc, random_layers_equal_the_reference)
{
    splitmix r = {2024};
    int run = 0;
    for (int k = 0; k < 3000; k++) {
        rk_fc_params p;
        memset(&p, 0, sizeof p);
        p.batches = splitmix_int32(&r, 1, 3);
        p.in_features = k % 3 == 0 ? splitmix_int32(&r, 1, 9) : splitmix_int32(&r, 1, 300);
        p.out_features = k % 2 == 0 ? splitmix_int32(&r, 1, 3) : splitmix_int32(&r, 1, 21);
        p.input_offset = splitmix_int32(&r, -127, 128);
        p.output_offset = splitmix_int32(&r, -128, 127);
        if (k % 3 == 0) {
            p.act.min = -128;
            p.act.max = 127;
        } else {
            p.act.min = splitmix_int32(&r, -128, 127);
            p.act.max = splitmix_int32(&r, p.act.min, 127);
        }
        p.per_channel = k % 5 == 4;
        const int32_t n = p.in_features, m = p.out_features;
        const size_t nx = (size_t)p.batches * n, nw = (size_t)n * m;
        int8_t *x = fc_alloc(nx), *w = fc_alloc(nw);
        int32_t *bias = k % 7 == 3 ? NULL : fc_alloc(sizeof(int32_t) * (size_t)m);
        int32_t *mult = fc_alloc(sizeof(int32_t) * (size_t)m), *shift = fc_alloc(sizeof(int32_t) * (size_t)m);
        for (size_t i = 0; i < nx; i++)
            x[i] = (int8_t)splitmix_int32(&r, -128, 127);
        for (size_t i = 0; i < nw; i++)
            w[i] = (int8_t)splitmix_int32(&r, -127, 127);
        for (int32_t o = 0; o < m; o++) {
            if (bias != NULL)
                bias[o] = k % 4 == 0 ? splitmix_int32(&r, INT32_MIN / 2, INT32_MAX / 2) : splitmix_int32(&r, -100000, 100000);
            const int32_t c = p.per_channel ? o : 0;
            if (p.per_channel || o == 0) {
                mult[c] = k % 6 == 1 ? special_mult[splitmix_next(&r) % (sizeof special_mult / sizeof special_mult[0])]
                                     : splitmix_int32(&r, 1 << 30, INT32_MAX);
                shift[c] = k % 4 == 2 ? splitmix_int32(&r, -31, 30) : splitmix_int32(&r, -12, -1);
            }
        }
        if (run_one(&p, x, w, bias, mult, shift, "random", k))
            run++;
        free(x);
        free(w);
        free(bias);
        free(mult);
        free(shift);
    }
    cr_assert_gt(run, 2500, "only %d of 3000 layers inside the reference's int32 accumulator", run);
    cr_log_info("random: %d layers compared", run);
}

/* A bad parameter is RK_ARG, before anything is written; extents past the
** fast check's 2^15 are still accepted when their products fit. */
Test(kernels_fc, bad_arguments_are_refused)
{
    enum { N = 70000 };
    int8_t *x = fc_alloc(N), *w = fc_alloc(N), y[4] = { 9, 9, 9, 9 };
    int32_t mult[4] = { 0x40000000, 0x40000000, 0x40000000, 0x40000000 }, shift[4] = { -3, -3, -3, -3 };
    const rk_quant q = { mult, shift };
    const rk_fc_params good = { .batches = 1, .in_features = 4, .out_features = 2, .input_offset = 0,
                                .output_offset = 0, .act = { -128, 127 }, .per_channel = false };
    cr_assert_eq(rk_fully_connected(&good, &q, x, w, NULL, y), RK_OK);
    cr_assert_eq(rk_fully_connected(NULL, &q, x, w, NULL, y), RK_ARG);
    cr_assert_eq(rk_fully_connected(&good, NULL, x, w, NULL, y), RK_ARG);
    cr_assert_eq(rk_fully_connected(&good, &q, NULL, w, NULL, y), RK_ARG);
    cr_assert_eq(rk_fully_connected(&good, &q, x, NULL, NULL, y), RK_ARG);
    cr_assert_eq(rk_fully_connected(&good, &q, x, w, NULL, NULL), RK_ARG);
    const rk_quant no_mult = { NULL, shift }, no_shift = { mult, NULL };
    cr_assert_eq(rk_fully_connected(&good, &no_mult, x, w, NULL, y), RK_ARG);
    cr_assert_eq(rk_fully_connected(&good, &no_shift, x, w, NULL, y), RK_ARG);
    struct { rk_fc_params p; const char *what; } bad[] = {
        { good, "batches 0" }, { good, "batches -1" }, { good, "batches INT32_MIN" }, { good, "in 0" },
        { good, "in -5" }, { good, "out 0" }, { good, "out INT32_MIN" }, { good, "input offset -128" },
        { good, "input offset 129" }, { good, "output offset -129" }, { good, "output offset 128" },
        { good, "act.min -129" }, { good, "act.max 128" }, { good, "act.min > act.max" },
        { good, "in x out past INT32_MAX" }, { good, "batches x in past INT32_MAX" },
        { good, "batches x out past INT32_MAX" }, { good, "input offset INT32_MIN" },
    };
    bad[0].p.batches = 0;
    bad[1].p.batches = -1;
    bad[2].p.batches = INT32_MIN;
    bad[3].p.in_features = 0;
    bad[4].p.in_features = -5;
    bad[5].p.out_features = 0;
    bad[6].p.out_features = INT32_MIN;
    bad[7].p.input_offset = -128;
    bad[8].p.input_offset = 129;
    bad[9].p.output_offset = -129;
    bad[10].p.output_offset = 128;
    bad[11].p.act.min = -129;
    bad[12].p.act.max = 128;
    bad[13].p.act = (rk_act){ 5, 4 };
    bad[14].p.in_features = 65536;
    bad[14].p.out_features = 32768;
    bad[15].p.batches = 65536;
    bad[15].p.in_features = 32768;
    bad[16].p.batches = 32768;
    bad[16].p.out_features = 65536;
    bad[17].p.input_offset = INT32_MIN;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(y, 9, sizeof y);
        cr_assert_eq(rk_fully_connected(&bad[i].p, &q, x, w, NULL, y), RK_ARG, "%s", bad[i].what);
        cr_assert(y[0] == 9 && y[1] == 9, "%s: output written", bad[i].what);
    }
    /* shifts: the first one per tensor, any one per channel */
    for (int32_t s = -40; s <= 40; s++) {
        const bool ok = s >= -31 && s <= 30;
        int32_t sh[4] = { s, -3, -3, -3 };
        const rk_quant qs = { mult, sh };
        cr_assert_eq(rk_fully_connected(&good, &qs, x, w, NULL, y), ok ? RK_OK : RK_ARG, "shift %d", s);
        rk_fc_params pc = good;
        pc.per_channel = true;
        int32_t sh2[4] = { -3, s, -3, -3 };
        const rk_quant qc = { mult, sh2 };
        cr_assert_eq(rk_fully_connected(&pc, &qc, x, w, NULL, y), ok ? RK_OK : RK_ARG, "channel 1 shift %d", s);
    }
    /* large but valid extents (past the one-test form): the full checks
    ** accept them, and the outputs are right */
    for (size_t i = 0; i < N; i++) {
        x[i] = (int8_t)(i % 251 - 125);
        w[i] = (int8_t)(i % 13 - 6);
    }
    const int32_t m1[1] = { 0x55555555 }, s1[1] = { -12 }, b1[1] = { 777 };
    rk_fc_params big = good;
    big.in_features = N;
    big.out_features = 1;
    big.input_offset = 3;
    cr_assert(run_one(&big, x, w, b1, m1, s1, "in 70000", 0));
    big.in_features = 1;
    big.out_features = 3;
    big.batches = 40000;
    int32_t mb[3] = { 0x55555555, 0, 0 }, sb[3] = { -12, 0, 0 };
    cr_assert(run_one(&big, x, w, NULL, mb, sb, "batches 40000", 0));
    free(x);
    free(w);
}
