/*
** test_kernels.c — Criterion suite for firmware/kernels/: the int8 kernels,
** dual buffer and in place.
**
** Expected values come from tests/ref_conv.h (a plain reference written
** from the definitions, a different code path from the kernels), from the
** dual-buffer kernels once those are checked against it, and from the
** simulator's truths (sim/), which never look at the kernels.  Layers are
** random (seeded splitmix64) or drawn by the sweep's generators
** (rip_sweep_draw, the same draw as `ripsim sweep`).
*/
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generator.h"
#include "layer.h"
#include "sim.h"

#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_pointwise.h"
#include "rk_add.h"
#include "rk_depthwise.h"
#include "rk_depthwise_inplace.h"
#include "rk_fully_connected.h"
#include "rk_pool.h"
#include "rk_shadow.h"
#include "rk_upsample.h"

#include "ref_conv.h"

/* ---------------------------------------------------------------- helpers */

typedef struct rng { uint64_t s; } rng;

static uint64_t rng_next(rng *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static int64_t rng_int(rng *g, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rng_next(g) % (uint64_t)(hi - lo + 1));
}

static void fill_s8(rng *g, int8_t *p, size_t n, int lo, int hi)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rng_int(g, lo, hi);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    cr_assert_not_null(p);
    return p;
}

/* Requantization parameters in TFLite's range: multiplier in [2^30, 2^31)
** (0 now and then), shift in [-31, 30], most of the time where real layers
** put it (-12..1) so the outputs are not all saturated. */
static void draw_quant(rng *g, int n, int32_t *mult, int32_t *shift)
{
    for (int i = 0; i < n; i++) {
        mult[i] = rng_int(g, 0, 19) == 0 ? 0 : (int32_t)rng_int(g, (int64_t)1 << 30, INT32_MAX);
        const int64_t k = rng_int(g, 0, 9);
        shift[i] = (int32_t)(k == 0 ? rng_int(g, -31, 30) : k == 1 ? rng_int(g, -31, -20) : rng_int(g, -12, 1));
    }
    if (n > 0 && rng_int(g, 0, 3) == 0) { /* the extremes */
        shift[0] = rng_int(g, 0, 1) ? -31 : 30;
        mult[0] = rng_int(g, 0, 1) ? INT32_MAX : (int32_t)1 << 30;
    }
}

static void draw_act(rng *g, int32_t *lo, int32_t *hi)
{
    if (rng_int(g, 0, 2) != 0) {
        *lo = -128;
        *hi = 127;
        return;
    }
    int32_t a = (int32_t)rng_int(g, -128, 127), b = (int32_t)rng_int(g, -128, 127);
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* One random convolution and its data. */
typedef struct conv_case {
    ref_conv g;
    rk_conv_params p;
    rk_dims in, out;
    int8_t *input, *filter;
    int32_t *bias, *mult, *shift;
    rk_quant q;
} conv_case;

static void case_params(conv_case *k)
{
    const ref_conv *g = &k->g;
    memset(&k->p, 0, sizeof k->p);
    k->p.k_h = g->k_h;
    k->p.k_w = g->k_w;
    k->p.s_h = g->s_h;
    k->p.s_w = g->s_w;
    k->p.d_h = g->d_h;
    k->p.d_w = g->d_w;
    k->p.p_top = g->p_top;
    k->p.p_left = g->p_left;
    k->p.input_offset = -g->in_zp;
    k->p.output_offset = g->out_zp;
    k->p.act.min = g->act_min;
    k->p.act.max = g->act_max;
    k->in = (rk_dims){g->h_in, g->w_in, g->cin};
    k->out = (rk_dims){g->h_out, g->w_out, g->cout};
}

/* Data of a case whose geometry is set (g, p incl. p_bottom/p_right, in, out). */
static void case_data(rng *r, conv_case *k, bool dw)
{
    const ref_conv *g = &k->g;
    const size_t n_in = (size_t)g->h_in * g->w_in * g->cin;
    const size_t n_f = dw ? (size_t)g->k_h * g->k_w * g->cout : (size_t)g->cout * g->k_h * g->k_w * g->cin;
    k->input = xmalloc(n_in);
    k->filter = xmalloc(n_f);
    k->bias = xmalloc((size_t)g->cout * sizeof(int32_t));
    k->mult = xmalloc((size_t)g->cout * sizeof(int32_t));
    k->shift = xmalloc((size_t)g->cout * sizeof(int32_t));
    fill_s8(r, k->input, n_in, -128, 127);
    fill_s8(r, k->filter, n_f, -127, 127);
    for (int i = 0; i < g->cout; i++)
        k->bias[i] = (int32_t)rng_int(r, -(1 << 16), 1 << 16);
    draw_quant(r, g->cout, k->mult, k->shift);
    k->q.multiplier = k->mult;
    k->q.shift = k->shift;
}

static void case_free(conv_case *k)
{
    free(k->input);
    free(k->filter);
    free(k->bias);
    free(k->mult);
    free(k->shift);
}

/* A random small convolution: per-side padding below the dilated kernel
** most of the time, any up to 2 more now and then. */
static void draw_conv(rng *r, conv_case *k, bool dw)
{
    ref_conv *g = &k->g;
    for (;;) {
        memset(g, 0, sizeof *g);
        g->cin = (int)rng_int(r, 1, 9);
        g->cout = dw ? g->cin : (int)rng_int(r, 1, 11);
        g->h_in = (int)rng_int(r, 1, 10);
        g->w_in = (int)rng_int(r, 1, 10);
        g->k_h = (int)rng_int(r, 1, 4);
        g->k_w = (int)rng_int(r, 1, 4);
        g->s_h = (int)rng_int(r, 1, 3);
        g->s_w = (int)rng_int(r, 1, 3);
        g->d_h = (int)(rng_int(r, 0, 2) ? 1 : rng_int(r, 2, 3));
        g->d_w = (int)(rng_int(r, 0, 2) ? 1 : rng_int(r, 2, 3));
        const int keh = g->d_h * (g->k_h - 1) + 1, kew = g->d_w * (g->k_w - 1) + 1;
        const int extra = rng_int(r, 0, 9) == 0 ? 2 : 0;
        g->p_top = (int)rng_int(r, 0, keh - 1 + extra);
        g->p_left = (int)rng_int(r, 0, kew - 1 + extra);
        const int pb = (int)rng_int(r, 0, keh - 1 + extra), pr = (int)rng_int(r, 0, kew - 1 + extra);
        const int hp = g->h_in + g->p_top + pb, wp = g->w_in + g->p_left + pr;
        if (hp < keh || wp < kew)
            continue;
        g->h_out = (hp - keh) / g->s_h + 1;
        g->w_out = (wp - kew) / g->s_w + 1;
        g->in_zp = (int)rng_int(r, -128, 127);
        g->out_zp = (int)rng_int(r, -128, 127);
        draw_act(r, &g->act_min, &g->act_max);
        case_params(k);
        k->p.p_bottom = pb;
        k->p.p_right = pr;
        break;
    }
    case_data(r, k, dw);
}

/* ------------------------------------------------------- requantization */

Test(kernels, requantize_matches_reference_rounding)
{
    rng r = {11};
    /* hand values: 0.5 * 3 = 1.5 rounds to 2, -1.5 to -2 (away from zero) */
    cr_assert_eq(rk_requantize(3, 1 << 30, 0), 2);
    cr_assert_eq(rk_requantize(-3, 1 << 30, 0), -1); /* doubling high mul rounds -1.5 up */
    cr_assert_eq(rk_requantize(3, INT32_MAX, -1), 2);  /* 3 * ~1 / 2 = 1.5 -> 2 */
    cr_assert_eq(rk_requantize(-3, INT32_MAX, -1), -2);
    cr_assert_eq(rk_requantize(INT32_MIN, INT32_MIN, 0), INT32_MAX);
    for (int i = 0; i < 2000000; i++) {
        const int32_t acc = (int32_t)(rng_int(&r, 0, 3) == 0 ? rng_int(&r, INT32_MIN, INT32_MAX)
                                                               : rng_int(&r, -100000, 100000));
        const int32_t m = (int32_t)(rng_int(&r, 0, 7) == 0 ? rng_int(&r, INT32_MIN, INT32_MAX)
                                                           : rng_int(&r, (int64_t)1 << 30, INT32_MAX));
        const int32_t s = (int32_t)rng_int(&r, -31, 30);
        const int32_t a = rk_requantize(acc, m, s), b = ref_requantize(acc, m, s);
        if (a != b)
            cr_assert_fail("requantize(%d, %d, %d): kernel %d, reference %d", acc, m, s, a, b);
    }
}

/* ------------------------------------------------------ conv2d, dual buffer */

static int8_t *run_ref(const conv_case *k, bool dw)
{
    int8_t *want = xmalloc((size_t)k->g.h_out * k->g.w_out * k->g.cout);
    cr_assert(ref_conv2d(&k->g, dw, k->input, k->filter, k->bias, k->mult, k->shift, want),
              "reference accumulator left int32");
    return want;
}

static void expect_conv_equal(const conv_case *k, int which)
{
    const size_t n_out = (size_t)k->g.h_out * k->g.w_out * k->g.cout;
    int8_t *want = run_ref(k, false);
    int8_t *got = xmalloc(n_out);
    const size_t sz = which == 0 ? rk_conv2d_buffer_size(&k->p, k->in, k->out)
                                 : rk_pointwise_buffer_size(&k->p, k->in, k->out);
    cr_assert_gt(sz, 0);
    int8_t *scratch = xmalloc(sz); /* exactly the size the twin names */
    const rk_status st = which == 0
        ? rk_conv2d(&k->p, &k->q, k->in, k->input, k->filter, k->bias, k->out, got, scratch)
        : rk_pointwise(&k->p, &k->q, k->in, k->input, k->filter, k->bias, k->out, got, scratch);
    cr_assert_eq(st, RK_OK);
    for (size_t i = 0; i < n_out; i++)
        if (got[i] != want[i])
            cr_assert_fail("cin=%d cout=%d h=%dx%d k=%dx%d s=%dx%d d=%dx%d pt=%d pl=%d pb=%d pr=%d: "
                           "output %zu is %d, reference %d",
                           k->g.cin, k->g.cout, k->g.h_in, k->g.w_in, k->g.k_h, k->g.k_w, k->g.s_h, k->g.s_w,
                           k->g.d_h, k->g.d_w, k->g.p_top, k->g.p_left, k->p.p_bottom, k->p.p_right, i, got[i],
                           want[i]);
    free(scratch);
    free(got);
    free(want);
}

Test(kernels, conv2d_equals_reference_on_random_layers)
{
    rng r = {2026};
    for (int n = 0; n < 4000; n++) {
        conv_case k;
        draw_conv(&r, &k, false);
        expect_conv_equal(&k, 0);
        case_free(&k);
    }
}

/*
** The register-blocked paths (two pixels x four channels) need wider
** channels than draw_conv's: a second pixel read from the input (tap rows
** of >= 48 bytes, depth > 4 c_out), two gathered fields (depth <= 4 c_out),
** 1x1 at any stride with an odd pixel count, and depthwise channel blocks
** of 32 with a tail.  Every output against the reference convolution.
*/
Test(kernels, blocked_paths_equal_reference_on_wide_layers)
{
    rng r = {909};
    for (int n = 0; n < 600; n++) {
        conv_case k;
        const bool dw = n % 4 == 3, one = n % 8 == 1; /* one: 1x1 without padding, any stride */
        ref_conv *g = &k.g;
        memset(g, 0, sizeof *g);
        g->cin = (int)(n % 2 == 0 ? rng_int(&r, 16, 70) : rng_int(&r, 1, 12));
        g->cout = dw ? g->cin : (int)rng_int(&r, 1, 40);
        g->k_h = one ? 1 : (int)rng_int(&r, 1, 4);
        g->k_w = one ? 1 : (int)rng_int(&r, 1, 4);
        g->s_h = (int)rng_int(&r, 1, 2);
        g->s_w = (int)rng_int(&r, 1, 2);
        g->d_h = one || rng_int(&r, 0, 3) ? 1 : 2;
        g->d_w = one || rng_int(&r, 0, 3) ? 1 : 2;
        const int keh = g->d_h * (g->k_h - 1) + 1, kew = g->d_w * (g->k_w - 1) + 1;
        g->h_in = (int)rng_int(&r, keh, keh + 7);
        g->w_in = (int)rng_int(&r, kew, kew + 9);
        g->p_top = one ? 0 : (int)rng_int(&r, 0, keh - 1);
        g->p_left = one ? 0 : (int)rng_int(&r, 0, kew - 1);
        const int pb = one ? 0 : (int)rng_int(&r, 0, keh - 1), pr = one ? 0 : (int)rng_int(&r, 0, kew - 1);
        g->h_out = (g->h_in + g->p_top + pb - keh) / g->s_h + 1;
        g->w_out = (g->w_in + g->p_left + pr - kew) / g->s_w + 1;
        g->in_zp = (int)rng_int(&r, -128, 127);
        g->out_zp = (int)rng_int(&r, -128, 127);
        draw_act(&r, &g->act_min, &g->act_max);
        case_params(&k);
        k.p.p_bottom = pb;
        k.p.p_right = pr;
        case_data(&r, &k, dw);
        if (dw) {
            const size_t n_out = (size_t)g->h_out * g->w_out * g->cout;
            int8_t *want = run_ref(&k, true), *got = xmalloc(n_out);
            cr_assert_eq(rk_depthwise(&k.p, &k.q, k.in, k.input, k.filter, k.bias, k.out, got), RK_OK);
            cr_assert(memcmp(got, want, n_out) == 0, "wide depthwise layer %d differs from the reference", n);
            free(got);
            free(want);
        } else {
            expect_conv_equal(&k, 0);
        }
        case_free(&k);
    }
}

Test(kernels, pointwise_equals_reference_on_random_layers)
{
    rng r = {77};
    for (int n = 0; n < 2000; n++) {
        conv_case k;
        memset(&k, 0, sizeof k);
        ref_conv *g = &k.g;
        g->cin = (int)rng_int(&r, 1, 40);
        g->cout = (int)rng_int(&r, 1, 40);
        g->h_in = g->h_out = (int)rng_int(&r, 1, 6);
        g->w_in = g->w_out = (int)rng_int(&r, 1, 6);
        g->k_h = g->k_w = g->s_h = g->s_w = g->d_h = g->d_w = 1;
        g->in_zp = (int)rng_int(&r, -128, 127);
        g->out_zp = (int)rng_int(&r, -128, 127);
        draw_act(&r, &g->act_min, &g->act_max);
        case_params(&k);
        case_data(&r, &k, false);
        expect_conv_equal(&k, 1);
        expect_conv_equal(&k, 0); /* rk_conv2d's dispatch to the fast path */
        case_free(&k);
    }
}

Test(kernels, conv2d_refuses_bad_parameters)
{
    rng r = {5};
    conv_case k;
    draw_conv(&r, &k, false);
    int8_t out[4096], scratch[4096];
    rk_conv_params p = k.p;
    rk_dims o = k.out;
    o.h++;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, o, out, scratch), RK_ARG);
    p.s_h = 0;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    cr_assert_eq(rk_conv2d_buffer_size(&p, k.in, k.out), 0);
    p = k.p;
    p.act.min = 5;
    p.act.max = 4;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    p = k.p;
    k.shift[0] = 31;
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, k.input, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    cr_assert_eq(rk_conv2d(&p, &k.q, k.in, NULL, k.filter, k.bias, k.out, out, scratch), RK_ARG);
    case_free(&k);
}

/* ------------------------------------------------------------ in place */

static const rip_exec rip_configs[4] = {RIP_EXEC_PADDED_GATHER, RIP_EXEC_PADDED_TAPS, RIP_EXEC_DENSE_GATHER,
                                        RIP_EXEC_DENSE_TAPS};

static rk_inplace inplace_of(rip_exec e, int64_t gap)
{
    rk_inplace ip;
    ip.layout = (e == RIP_EXEC_PADDED_GATHER || e == RIP_EXEC_PADDED_TAPS) ? RK_PADDED : RK_DENSE;
    ip.order = (e == RIP_EXEC_PADDED_GATHER || e == RIP_EXEC_DENSE_GATHER) ? RK_GATHER : RK_TAPS;
    ip.gap = gap;
    return ip;
}

/* The convolution of a sweep layer (sim geometry) with random data. */
static void case_from_layer(rng *r, const rip_layer *L, conv_case *k)
{
    memset(k, 0, sizeof *k);
    ref_conv *g = &k->g;
    g->cin = (int)L->cin;
    g->cout = (int)L->cout;
    g->h_in = (int)L->h_in;
    g->w_in = (int)L->w_in;
    g->h_out = (int)L->h_out;
    g->w_out = (int)L->w_out;
    g->k_h = (int)L->k_h;
    g->k_w = (int)L->k_w;
    g->s_h = (int)L->s_h;
    g->s_w = (int)L->s_w;
    g->d_h = (int)L->d_h;
    g->d_w = (int)L->d_w;
    g->p_top = (int)L->p_top;
    g->p_left = (int)L->p_left;
    g->in_zp = (int)rng_int(r, -128, 127);
    g->out_zp = (int)rng_int(r, -128, 127);
    draw_act(r, &g->act_min, &g->act_max);
    case_params(k);
    k->p.p_bottom = (int32_t)L->p_bottom;
    k->p.p_right = (int32_t)L->p_right;
    case_data(r, k, false);
}

typedef enum { RUN_RELEASE, RUN_CHECKED } run_kind;

/* Lay the input out for gap, run, return the status; *v for checked runs. */
static rk_status run_inplace(const conv_case *k, const rk_inplace *ip, run_kind kind, bool stop, int8_t **ws_out,
                             rk_violation *v)
{
    const int64_t ws_size = rk_conv2d_rip_workspace_size(&k->p, k->in, ip);
    cr_assert_geq(ws_size, 0);
    int8_t *ws = xmalloc((size_t)ws_size);
    memset(ws, 0x5a, (size_t)ws_size);
    rk_rip_store_input(&k->p, k->in, k->input, ip, ws);
    const size_t ssz = rk_conv2d_rip_buffer_size(&k->p, k->in, k->out, ip);
    int8_t *scratch = ssz ? xmalloc(ssz) : NULL;
    rk_status st;
    if (kind == RUN_RELEASE) {
        st = rk_conv2d_rip(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, ws_size, scratch);
    } else {
        uint8_t *shadow = xmalloc((size_t)ws_size);
        st = rk_conv2d_rip_checked(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, ws_size, scratch,
                                   shadow, stop, v);
        free(shadow);
    }
    free(scratch);
    *ws_out = ws;
    return st;
}

#define SWEEP_SEED 20261129u   /* the default sweep's seed (ripsim sweep) */
#define SWEEP_LAYERS 2000
/* Layers above this many multiply-accumulates are skipped (fewer under
** AddressSanitizer, which slows the checked runs down about tenfold). */
#if defined(__SANITIZE_ADDRESS__)
#define SWEEP_MAC_CAP 300000
#else
#define SWEEP_MAC_CAP 1500000
#endif

typedef struct cfg_count {
    int tested, truth_pos, caught_stale, caught_overflow, uncaught;
    int caught_at_minus_2, uncaught_truth_1;
} cfg_count;

Test(kernels, rip_sweep_subset_bit_exact_at_truth_caught_below, .timeout = 900)
{
    rng r = {SWEEP_SEED};
    cfg_count cnt[4];
    memset(cnt, 0, sizeof cnt);
    int skipped = 0, used = 0;
    int cat_used[64] = {0};
    size_t n_gen = 0;
    const rip_generator *const *gens = rip_generators(&n_gen);
    cr_assert_leq(n_gen, 64);
    for (int64_t idx = 0; idx < SWEEP_LAYERS; idx++) {
        rip_layer L;
        const rip_generator *gen = rip_sweep_draw(SWEEP_SEED, idx, &L);
        const int64_t macs = L.n_out * L.k_h * L.k_w * L.cin;
        if (macs > SWEEP_MAC_CAP) {
            skipped++;
            continue;
        }
        used++;
        for (size_t i = 0; i < n_gen; i++)
            if (gens[i] == gen)
                cat_used[i]++;
        conv_case k;
        case_from_layer(&r, &L, &k);
        const size_t n_out = (size_t)L.n_out;
        int8_t *want = xmalloc(n_out);
        int8_t *scratch = xmalloc(rk_conv2d_buffer_size(&k.p, k.in, k.out));
        cr_assert_eq(rk_conv2d(&k.p, &k.q, k.in, k.input, k.filter, k.bias, k.out, want, scratch), RK_OK);
        free(scratch);
        if (idx % 10 == 0) { /* the dual kernel against the reference, on a tenth of them */
            int8_t *ref = run_ref(&k, false);
            cr_assert(memcmp(ref, want, n_out) == 0, "layer %ld: dual differs from the reference", (long)idx);
            free(ref);
        }
        for (int e = 0; e < 4; e++) {
            int64_t truth = -1;
            cr_assert_eq(rip_sim_truth(&L, rip_configs[e], RIP_ENGINE_FAST, &truth), 0);
            rk_inplace ip = inplace_of(rip_configs[e], truth);
            int8_t *ws;
            rk_violation v;
            cnt[e].tested++;
            cr_assert_eq(run_inplace(&k, &ip, RUN_RELEASE, false, &ws, NULL), RK_OK, "layer %ld", (long)idx);
            cr_assert(memcmp(ws, want, n_out) == 0, "layer %ld %s gap %ld: in place differs from dual", (long)idx,
                      rip_exec_name(rip_configs[e]), (long)truth);
            free(ws);
            cr_assert_eq(run_inplace(&k, &ip, RUN_CHECKED, false, &ws, &v), RK_OK);
            cr_assert(!v.found, "layer %ld %s at truth %ld: violation at step %ld pixel (%d,%d) address %ld",
                      (long)idx, rip_exec_name(rip_configs[e]), (long)truth, (long)v.step, v.pixel_r, v.pixel_c,
                      (long)v.address);
            cr_assert(memcmp(ws, want, n_out) == 0);
            free(ws);
            if (truth == 0)
                continue;
            cnt[e].truth_pos++;
            ip.gap = truth - 1;
            cr_assert_eq(run_inplace(&k, &ip, RUN_CHECKED, true, &ws, &v), RK_OK);
            if (v.found) {
                if (v.overflow)
                    cnt[e].caught_overflow++;
                else
                    cnt[e].caught_stale++;
                free(ws);
                continue;
            }
            /* Not caught: no read found a stale byte, so the output must be
            ** right, and the only way (sim/README.md) is the one explained in
            ** the report: the simulator's first failing write at truth - 1
            ** is a pixel's last channel landing on an input that only this
            ** pixel still reads (taps order), which no read follows. */
            cnt[e].uncaught++;
            cr_assert(memcmp(ws, want, n_out) == 0, "layer %ld: uncaught yet wrong output", (long)idx);
            free(ws);
            rip_sim *s = rip_sim_new(&L, rip_configs[e], RIP_ENGINE_PLAIN);
            cr_assert_not_null(s);
            rip_run_report rep;
            cr_assert(!rip_sim_run(s, truth - 1, &rep));
            rip_sim_free(s);
            cr_assert_eq(ip.order, RK_TAPS, "layer %ld %s: a gather run at truth - 1 went uncaught", (long)idx,
                         rip_exec_name(rip_configs[e]));
            cr_assert_eq(rep.outcome, RIP_RUN_CORRUPTION);
            cr_assert_eq(rep.address, (rep.step + 1) * L.cout - 1, "layer %ld: not the last channel", (long)idx);
            /* The finding is exactly one scalar: one more below, the taps
            ** kernel reads stale input (channel cout-2 lands there and the
            ** last channel reads it). */
            if (truth >= 2) {
                ip.gap = truth - 2;
                cr_assert_eq(run_inplace(&k, &ip, RUN_CHECKED, true, &ws, &v), RK_OK);
                free(ws);
                cr_assert(v.found, "layer %ld %s: not caught at truth - 2 either", (long)idx,
                          rip_exec_name(rip_configs[e]));
                cnt[e].caught_at_minus_2++;
            } else {
                cnt[e].uncaught_truth_1++;
            }
            if (cnt[e].uncaught <= 3)
                fprintf(stderr,
                        "uncaught at truth-1: layer %ld (%s) %s cin=%ld cout=%ld h=%ldx%ld k=%ldx%ld s=%ldx%ld "
                        "d=%ldx%ld p=%ld,%ld,%ld,%ld truth %ld: sim's first failure pixel %ld address %ld\n",
                        (long)idx, gen->name, rip_exec_name(rip_configs[e]), (long)L.cin, (long)L.cout,
                        (long)L.h_in, (long)L.w_in, (long)L.k_h, (long)L.k_w, (long)L.s_h, (long)L.s_w,
                        (long)L.d_h, (long)L.d_w, (long)L.p_top, (long)L.p_bottom, (long)L.p_left,
                        (long)L.p_right, (long)truth, (long)rep.step, (long)rep.address);
        }
        free(want);
        case_free(&k);
    }
    fprintf(stderr, "rip sweep subset: %d of %d layers run, %d skipped (MACs > %d)\n", used, SWEEP_LAYERS, skipped,
            SWEEP_MAC_CAP);
    for (size_t i = 0; i < n_gen; i++) {
        fprintf(stderr, "  %s: %d\n", gens[i]->name, cat_used[i]);
        cr_assert_gt(cat_used[i], 0, "category %s not exercised", gens[i]->name);
    }
    for (int e = 0; e < 4; e++) {
        fprintf(stderr, "  %s: %d bit-exact at truth, %d with truth > 0: caught %d stale read + %d overflow, "
                "uncaught %d\n", rip_exec_name(rip_configs[e]), cnt[e].tested, cnt[e].truth_pos,
                cnt[e].caught_stale, cnt[e].caught_overflow, cnt[e].uncaught);
        if (cnt[e].uncaught)
            fprintf(stderr, "    of the uncaught, %d caught at truth - 2, %d have truth 1\n",
                    cnt[e].caught_at_minus_2, cnt[e].uncaught_truth_1);
        cr_assert_eq(cnt[e].tested, used);
        if (rip_configs[e] == RIP_EXEC_PADDED_GATHER || rip_configs[e] == RIP_EXEC_DENSE_GATHER)
            cr_assert_eq(cnt[e].uncaught, 0);
    }
}

/* ------------------------------- fast paths against the plain order */

/*
** The in-place convolution in its documented order, one scalar at a time
** (rk_conv2d_rip.h): pixels row-major; gather reads every stored tap of
** the pixel, then writes channel by channel; taps reads channel oc's taps
** from the workspace, then writes it.  shadow NULL: the release kernel;
** else the checked kernel's tags, records and stop rule (rk_instrument.h).
** The model the kernels' blocked, vectorized and run-checked paths must
** equal byte for byte and record for record, at any gap.
*/
static void plain_rip(const conv_case *k, const rk_inplace *ip, int8_t *ws, int64_t ws_size, uint8_t *shadow,
                      bool stop, rk_violation *v)
{
    const ref_conv *g = &k->g;
    const bool padded = ip->layout == RK_PADDED, gather = ip->order == RK_GATHER;
    const int64_t h_s = padded ? g->h_in + g->p_top + k->p.p_bottom : g->h_in;
    const int64_t w_s = padded ? g->w_in + g->p_left + k->p.p_right : g->w_in;
    const int64_t off_h = padded ? 0 : g->p_top, off_w = padded ? 0 : g->p_left;
    const int64_t taps = (int64_t)g->k_h * g->k_w, depth = taps * g->cin;
    int64_t *addr = xmalloc((size_t)depth * sizeof *addr); /* -1: a dense pad tap */
    int8_t *val = xmalloc((size_t)depth);
    int64_t writes = 0, y = 0;
    memset(v, 0, sizeof *v);
    v->step = v->address = -1;
    v->pixel_r = v->pixel_c = -1;
#define PLAIN_RECORD(a, ovf)                                                                            \
    do {                                                                                                \
        if (!v->found) {                                                                                \
            v->found = true;                                                                            \
            v->step = writes;                                                                           \
            v->pixel_r = r;                                                                             \
            v->pixel_c = c;                                                                             \
            v->address = (a);                                                                           \
            v->overflow = (ovf);                                                                        \
        }                                                                                               \
        v->count++;                                                                                     \
        if (stop)                                                                                       \
            goto done;                                                                                  \
    } while (0)
    for (int r = 0; r < g->h_out; r++)
        for (int c = 0; c < g->w_out; c++) {
            for (int64_t t = 0; t < taps; t++) {
                const int64_t i = (int64_t)r * g->s_h + (t / g->k_w) * g->d_h - off_h;
                const int64_t j = (int64_t)c * g->s_w + (t % g->k_w) * g->d_w - off_w;
                for (int64_t ci = 0; ci < g->cin; ci++)
                    addr[t * g->cin + ci] =
                        (i < 0 || i >= h_s || j < 0 || j >= w_s) ? -1 : ip->gap + (i * w_s + j) * g->cin + ci;
            }
            for (int oc = 0; oc < g->cout; oc++) {
                if (gather ? oc == 0 : true)
                    for (int64_t x = 0; x < depth; x++) {
                        if (addr[x] < 0)
                            continue;
                        if (shadow != NULL && shadow[addr[x]] != RK_TAG_INPUT)
                            PLAIN_RECORD(addr[x], false);
                        val[x] = ws[addr[x]];
                    }
                int64_t acc = k->bias[oc];
                for (int64_t x = 0; x < depth; x++)
                    if (addr[x] >= 0)
                        acc += ((int64_t)val[x] - g->in_zp) * k->filter[(int64_t)oc * depth + x];
                const int32_t q = ref_requantize((int32_t)ref_wrap32(acc), k->mult[oc], k->shift[oc]);
                const int8_t out = ref_clamp8((int64_t)q + g->out_zp, g->act_min, g->act_max);
                const int64_t at = y + oc;
                if (at >= ws_size) {
                    PLAIN_RECORD(at, true);
                    writes++;
                    continue;
                }
                if (shadow != NULL)
                    shadow[at] = RK_TAG_WRITTEN;
                ws[at] = out;
                writes++;
            }
            y += g->cout;
        }
#undef PLAIN_RECORD
done:
    free(addr);
    free(val);
}

/* The rip_layer of a case, derived (asymmetric padding kept). */
static rip_layer layer_of(const conv_case *k)
{
    const ref_conv *g = &k->g;
    rip_layer L = rip_layer_make(g->cin, g->cout, g->h_in, g->w_in, g->k_h, g->k_w, g->s_h, g->s_w, g->d_h, g->d_w,
                                 0, 0);
    L.p_top = g->p_top;
    L.p_bottom = k->p.p_bottom;
    L.p_left = g->p_left;
    L.p_right = k->p.p_right;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    return L;
}

/* One gap of one case: the release kernel, and the checked kernel stopping
** and not stopping, each with clean and with poisoned tags, against
** plain_rip: every workspace byte, every tag, every field of the record. */
static void compare_with_plain(rng *r, const conv_case *k, const rk_inplace *ip, int *caught)
{
    const int64_t stored = rk_rip_stored_input(&k->p, k->in, ip);
    const int64_t n_out = (int64_t)k->g.h_out * k->g.w_out * k->g.cout;
    const int64_t ws_size = ip->gap + stored, rel_size = ws_size > n_out ? ws_size : n_out;
    int8_t *ws = xmalloc((size_t)rel_size), *want = xmalloc((size_t)rel_size);
    uint8_t *shadow = xmalloc((size_t)ws_size), *want_shadow = xmalloc((size_t)ws_size);
    const size_t ssz = rk_conv2d_rip_buffer_size(&k->p, k->in, k->out, ip);
    int8_t *scratch = ssz ? xmalloc(ssz) : NULL;
    const char *name = ip->layout == RK_PADDED ? (ip->order == RK_GATHER ? "padded_gather" : "padded_taps")
                                               : (ip->order == RK_GATHER ? "dense_gather" : "dense_taps");
    rk_violation v, w;

    memset(ws, 0x5a, (size_t)rel_size);
    rk_rip_store_input(&k->p, k->in, k->input, ip, ws);
    memcpy(want, ws, (size_t)rel_size);
    cr_assert_eq(rk_conv2d_rip(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, rel_size, scratch), RK_OK);
    plain_rip(k, ip, want, rel_size, NULL, false, &w);
    cr_assert(memcmp(ws, want, (size_t)rel_size) == 0, "%s gap %ld: release workspace differs from the plain order",
              name, (long)ip->gap);

    for (int variant = 0; variant < 4; variant++) {
        const bool stop = variant & 1, poison = variant & 2;
        memset(ws, 0x5a, (size_t)ws_size);
        rk_rip_store_input(&k->p, k->in, k->input, ip, ws);
        memcpy(want, ws, (size_t)ws_size);
        rk_shadow_init(shadow, ws_size, ip->gap, stored);
        if (poison) /* a few stale bytes anywhere in the stored input */
            for (int n = (int)rng_int(r, 1, 3); n > 0; n--)
                shadow[ip->gap + rng_int(r, 0, stored - 1)] = RK_TAG_WRITTEN;
        memcpy(want_shadow, shadow, (size_t)ws_size);
        cr_assert_eq(rk_conv2d_rip_checked_preset(&k->p, &k->q, k->in, k->out, k->filter, k->bias, ip, ws, ws_size,
                                                  scratch, shadow, stop, &v),
                     RK_OK);
        plain_rip(k, ip, want, ws_size, want_shadow, stop, &w);
        cr_assert(v.found == w.found && v.overflow == w.overflow && v.step == w.step && v.pixel_r == w.pixel_r &&
                      v.pixel_c == w.pixel_c && v.address == w.address && v.count == w.count,
                  "%s gap %ld stop %d poison %d: record (found %d ovf %d step %ld pixel %d,%d addr %ld count %ld), "
                  "plain order (found %d ovf %d step %ld pixel %d,%d addr %ld count %ld)",
                  name, (long)ip->gap, stop, poison, v.found, v.overflow, (long)v.step, v.pixel_r, v.pixel_c,
                  (long)v.address, (long)v.count, w.found, w.overflow, (long)w.step, w.pixel_r, w.pixel_c,
                  (long)w.address, (long)w.count);
        *caught += v.found;
        if (!stop || !v.found) { /* a run stopped early leaves a partial workspace */
            cr_assert(memcmp(ws, want, (size_t)ws_size) == 0, "%s gap %ld: checked workspace differs", name,
                      (long)ip->gap);
            cr_assert(memcmp(shadow, want_shadow, (size_t)ws_size) == 0, "%s gap %ld: tags differ", name,
                      (long)ip->gap);
        }
    }
    free(scratch);
    free(ws);
    free(want);
    free(shadow);
    free(want_shadow);
}

/* The kernels compute four taps channels at once and check reads by runs
** only where that cannot change a byte or a record; this pins it, at the
** truth, just below it and at arbitrary gaps (where inputs are overwritten
** and the release kernel computes from them), on random layers with wide
** channels (runs of 4 and tails) and on sweep layers. */
Test(kernels, rip_fast_paths_equal_the_plain_order, .timeout = 600)
{
    rng r = {20261130};
    int runs = 0, caught = 0;
    for (int n = 0; n < 260; n++) {
        conv_case k;
        if (n < 200) {
            draw_conv(&r, &k, false);
            if (n % 2 == 0) { /* wider channels: four-channel blocks and their tails */
                case_free(&k);
                k.g.cin = (int)rng_int(&r, 1, 40);
                k.g.cout = (int)rng_int(&r, 1, 23);
                k.in.c = k.g.cin;
                k.out.c = k.g.cout;
                case_data(&r, &k, false);
            }
        } else {
            rip_layer S;
            rip_sweep_draw(SWEEP_SEED, (int64_t)rng_int(&r, 0, 9999), &S);
            if (S.n_out * S.k_h * S.k_w * S.cin > 400000) {
                n--;
                continue;
            }
            case_from_layer(&r, &S, &k);
        }
        const rip_layer L = layer_of(&k);
        for (int e = 0; e < 4; e++) {
            int64_t truth = 0;
            cr_assert_eq(rip_sim_truth(&L, rip_configs[e], RIP_ENGINE_FAST, &truth), 0);
            const int64_t gaps[5] = {truth, truth - 1, truth - 2, rng_int(&r, 0, L.n_out), 0};
            for (int i = 0; i < 5; i++) {
                if (gaps[i] < 0)
                    continue;
                const rk_inplace ip = inplace_of(rip_configs[e], gaps[i]);
                compare_with_plain(&r, &k, &ip, &caught);
                runs++;
            }
        }
        case_free(&k);
    }
    cr_log_info("fast paths against the plain order: %d gaps, %d checked runs with a violation", runs, caught);
    cr_assert_gt(caught, 1000);
}

/* ------------------------------------------- checked kernel: every read */

/* The first output pixel (row-major) with a tap on stored input scalar x,
** by brute force over the geometry; -1 if none. */
static int64_t first_reader(const conv_case *k, const rk_inplace *ip, int64_t x)
{
    const int64_t cin = k->g.cin, pix = x / cin;
    const int64_t w_s = ip->layout == RK_PADDED ? k->g.w_in + k->g.p_left + k->p.p_right : k->g.w_in;
    const int64_t i = pix / w_s, j = pix % w_s;
    for (int64_t r = 0; r < k->g.h_out; r++)
        for (int64_t c = 0; c < k->g.w_out; c++)
            for (int64_t a = 0; a < k->g.k_h; a++)
                for (int64_t b = 0; b < k->g.k_w; b++) {
                    int64_t y = r * k->g.s_h + a * k->g.d_h, z = c * k->g.s_w + b * k->g.d_w;
                    if (ip->layout == RK_DENSE) {
                        y -= k->g.p_top;
                        z -= k->g.p_left;
                    }
                    if (y == i && z == j)
                        return r * k->g.w_out + c;
                }
    return -1;
}

Test(kernels, rip_checked_catches_every_read_of_a_poisoned_byte)
{
    rng r = {404};
    int runs = 0, caught = 0;
    for (int n = 0; n < 60; n++) {
        conv_case k;
        draw_conv(&r, &k, false);
        const int64_t n_out = (int64_t)k.g.h_out * k.g.w_out * k.g.cout;
        for (int e = 0; e < 4; e++) {
            const rk_inplace ip = inplace_of(rip_configs[e], n_out); /* a gap at which nothing is overwritten */
            const int64_t ws_size = rk_conv2d_rip_workspace_size(&k.p, k.in, &ip);
            const int64_t stored = ws_size - ip.gap;
            int8_t *ws = xmalloc((size_t)ws_size);
            uint8_t *shadow = xmalloc((size_t)ws_size);
            const size_t ssz = rk_conv2d_rip_buffer_size(&k.p, k.in, k.out, &ip);
            int8_t *scratch = ssz ? xmalloc(ssz) : NULL;
            for (int64_t x = -1; x <= stored; x++) {
                /* x = -1 poisons the byte below the input, x = stored the one
                ** above it (when the workspace has one): nothing may read them. */
                rk_rip_store_input(&k.p, k.in, k.input, &ip, ws);
                rk_shadow_init(shadow, ws_size, ip.gap, stored);
                const int64_t addr = ip.gap + x;
                if (addr < ws_size)
                    shadow[addr] = RK_TAG_WRITTEN;
                rk_violation v;
                cr_assert_eq(rk_conv2d_rip_checked_preset(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &ip, ws,
                                                          ws_size, scratch, shadow, true, &v),
                             RK_OK);
                runs++;
                const int64_t q = (x < 0 || x >= stored) ? -1 : first_reader(&k, &ip, x);
                if (q < 0) {
                    cr_assert(!v.found, "byte %ld no output reads was reported", (long)x);
                    continue;
                }
                caught++;
                cr_assert(v.found && !v.overflow, "read of poisoned byte %ld (%s) missed", (long)x,
                          rip_exec_name(rip_configs[e]));
                cr_assert_eq(v.address, addr);
                cr_assert_eq((int64_t)v.pixel_r * k.g.w_out + v.pixel_c, q);
                cr_assert_eq(v.step, q * k.g.cout); /* before the pixel's first write, both orders */
            }
            free(scratch);
            free(shadow);
            free(ws);
        }
        case_free(&k);
    }
    cr_assert_gt(caught, 1000);
    cr_log_info("poisoned-byte runs: %d, reads caught: %d", runs, caught);
}

Test(kernels, rip_buffer_size_twins_are_exact)
{
    rng r = {99};
    for (int n = 0; n < 300; n++) {
        conv_case k;
        draw_conv(&r, &k, false);
        const int64_t n_out = (int64_t)k.g.h_out * k.g.w_out * k.g.cout;
        for (int e = 0; e < 4; e++) {
            const rk_inplace ip = inplace_of(rip_configs[e], n_out);
            const int64_t ws_size = rk_conv2d_rip_workspace_size(&k.p, k.in, &ip);
            cr_assert_eq(ws_size, n_out + rk_rip_stored_input(&k.p, k.in, &ip));
            int8_t *ws = xmalloc((size_t)ws_size);
            const size_t ssz = rk_conv2d_rip_buffer_size(&k.p, k.in, k.out, &ip);
            cr_assert_eq(ssz == 0, ip.order == RK_TAPS);
            int8_t *scratch = ssz ? xmalloc(ssz) : NULL; /* exact: ASan builds catch any overrun */
            rk_rip_store_input(&k.p, k.in, k.input, &ip, ws);
            cr_assert_eq(rk_conv2d_rip(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &ip, ws, ws_size, scratch), RK_OK);
            cr_assert_eq(rk_conv2d_rip(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &ip, ws, ws_size - 1, scratch),
                         RK_SPACE);
            rk_inplace bad = ip;
            bad.gap = -1;
            cr_assert_eq(rk_conv2d_rip(&k.p, &k.q, k.in, k.out, k.filter, k.bias, &bad, ws, ws_size, scratch),
                         RK_ARG);
            free(scratch);
            free(ws);
        }
        case_free(&k);
    }
}

/* ------------------------------------------------------------ depthwise */

Test(kernels, depthwise_equals_reference_and_inplace_equals_dual)
{
    rng r = {31337};
    int inplace_runs = 0;
    for (int n = 0; n < 3000; n++) {
        conv_case k;
        draw_conv(&r, &k, true);
        const size_t n_out = (size_t)k.g.h_out * k.g.w_out * k.g.cout;
        const size_t n_in = (size_t)k.g.h_in * k.g.w_in * k.g.cin;
        int8_t *want = run_ref(&k, true);
        int8_t *got = xmalloc(n_out);
        cr_assert_eq(rk_depthwise_buffer_size(&k.p, k.in, k.out), 0);
        cr_assert_eq(rk_depthwise(&k.p, &k.q, k.in, k.input, k.filter, k.bias, k.out, got), RK_OK);
        cr_assert(memcmp(got, want, n_out) == 0, "depthwise layer %d differs from the reference", n);
        const size_t ssz = rk_depthwise_inplace_buffer_size(&k.p, k.in, k.out);
        if (n_out <= n_in) {
            cr_assert_eq(ssz, (size_t)(k.g.h_in + k.g.p_top + k.p.p_bottom) * (k.g.w_in + k.g.p_left + k.p.p_right));
            int8_t *t = xmalloc(n_in), *scratch = xmalloc(ssz);
            memcpy(t, k.input, n_in);
            cr_assert_eq(rk_depthwise_inplace(&k.p, &k.q, k.in, k.out, k.filter, k.bias, t, scratch), RK_OK);
            cr_assert(memcmp(t, want, n_out) == 0, "in-place depthwise layer %d differs from dual", n);
            inplace_runs++;
            free(t);
            free(scratch);
        } else {
            int8_t scratch[1], t[1];
            cr_assert_eq(rk_depthwise_inplace(&k.p, &k.q, k.in, k.out, k.filter, k.bias, t, scratch), RK_ARG);
        }
        free(got);
        free(want);
        case_free(&k);
    }
    cr_assert_gt(inplace_runs, 1000);
}

/* -------------------------------------------------------------- pooling */

typedef struct pool_case {
    rk_pool_params p;
    rk_dims in, out;
    int8_t *input;
} pool_case;

static void draw_pool(rng *r, pool_case *c, bool global)
{
    memset(c, 0, sizeof *c);
    c->in = (rk_dims){(int32_t)rng_int(r, 1, 12), (int32_t)rng_int(r, 1, 12), (int32_t)rng_int(r, 1, 8)};
    for (;;) {
        if (global) {
            c->p.k_h = c->in.h;
            c->p.k_w = c->in.w;
            c->p.s_h = c->p.s_w = 1;
        } else {
            c->p.k_h = (int32_t)rng_int(r, 1, 4);
            c->p.k_w = (int32_t)rng_int(r, 1, 4);
            c->p.s_h = (int32_t)rng_int(r, 1, 3);
            c->p.s_w = (int32_t)rng_int(r, 1, 3);
            const bool pad = rng_int(r, 0, 1);
            c->p.p_top = pad ? (int32_t)rng_int(r, 0, c->p.k_h - 1) : 0;
            c->p.p_bottom = pad ? (int32_t)rng_int(r, 0, c->p.k_h - 1) : 0;
            c->p.p_left = pad ? (int32_t)rng_int(r, 0, c->p.k_w - 1) : 0;
            c->p.p_right = pad ? (int32_t)rng_int(r, 0, c->p.k_w - 1) : 0;
        }
        const int hp = c->in.h + c->p.p_top + c->p.p_bottom, wp = c->in.w + c->p.p_left + c->p.p_right;
        if (hp < c->p.k_h || wp < c->p.k_w)
            continue;
        c->out = (rk_dims){(hp - c->p.k_h) / c->p.s_h + 1, (wp - c->p.k_w) / c->p.s_w + 1, c->in.c};
        break;
    }
    draw_act(r, &c->p.act.min, &c->p.act.max);
    const size_t n = (size_t)c->in.h * c->in.w * c->in.c;
    c->input = xmalloc(n);
    fill_s8(r, c->input, n, -128, 127);
}

static int8_t *pool_ref(const pool_case *c, bool avg)
{
    int8_t *o = xmalloc((size_t)c->out.h * c->out.w * c->out.c);
    ref_pool(avg, c->in.c, c->in.h, c->in.w, c->out.h, c->out.w, c->p.k_h, c->p.k_w, c->p.s_h, c->p.s_w, c->p.p_top,
             c->p.p_left, c->p.act.min, c->p.act.max, c->input, o);
    return o;
}

Test(kernels, pooling_equals_reference)
{
    rng r = {8};
    for (int n = 0; n < 4000; n++) {
        pool_case c;
        draw_pool(&r, &c, n % 5 == 0);
        const size_t n_out = (size_t)c.out.h * c.out.w * c.out.c;
        int8_t *got = xmalloc(n_out);
        for (int avg = 0; avg < 2; avg++) {
            int8_t *want = pool_ref(&c, avg);
            cr_assert_eq(avg ? rk_avgpool(&c.p, c.in, c.input, c.out, got) : rk_maxpool(&c.p, c.in, c.input, c.out, got),
                         RK_OK);
            cr_assert(memcmp(got, want, n_out) == 0, "%s pool %d differs from the reference", avg ? "avg" : "max", n);
            free(want);
        }
        free(got);
        free(c.input);
    }
    /* hand values: TFLite rounds the average half away from zero */
    const int8_t in2[2] = {1, 2}, neg2[2] = {-1, -2};
    int8_t out1[1];
    rk_pool_params gp = {1, 2, 1, 1, 0, 0, 0, 0, {-128, 127}};
    cr_assert_eq(rk_avgpool(&gp, (rk_dims){1, 2, 1}, in2, (rk_dims){1, 1, 1}, out1), RK_OK);
    cr_assert_eq(out1[0], 2);   /* 1.5 -> 2 */
    cr_assert_eq(rk_avgpool(&gp, (rk_dims){1, 2, 1}, neg2, (rk_dims){1, 1, 1}, out1), RK_OK);
    cr_assert_eq(out1[0], -2);  /* -1.5 -> -2 */
    gp.p_left = 2; /* padding as wide as the window: refused */
    cr_assert_eq(rk_avgpool(&gp, (rk_dims){1, 2, 1}, in2, (rk_dims){1, 2, 1}, out1), RK_ARG);
}

/* The pool's gap, simulated independently of the kernels and of sim/ as
** src/plan/check.c defines it: the largest (P - m(P) + 1) c over output
** pixels P, m(P) the first input pixel a later output still reads. */
static int64_t pool_gap_brute(const pool_case *c)
{
    const int64_t n_in = (int64_t)c->in.h * c->in.w, n_out = (int64_t)c->out.h * c->out.w;
    int64_t *last = xmalloc((size_t)n_in * sizeof *last);
    for (int64_t x = 0; x < n_in; x++)
        last[x] = -1;
    for (int64_t P = 0; P < n_out; P++)
        for (int a = 0; a < c->p.k_h; a++)
            for (int b = 0; b < c->p.k_w; b++) {
                const int64_t i = (P / c->out.w) * c->p.s_h - c->p.p_top + a;
                const int64_t j = (P % c->out.w) * c->p.s_w - c->p.p_left + b;
                if (i >= 0 && i < c->in.h && j >= 0 && j < c->in.w)
                    last[i * c->in.w + j] = P;
            }
    int64_t worst = 0;
    for (int64_t P = 0; P < n_out; P++) {
        int64_t m = 0;
        while (m < n_in && last[m] <= P)
            m++;
        if (m < n_in && P - m + 1 > worst)
            worst = P - m + 1;
    }
    free(last);
    return worst * c->in.c;
}

static rip_layer pool_layer(const pool_case *c)
{
    rip_layer L = rip_layer_make(c->in.c, c->in.c, c->in.h, c->in.w, c->p.k_h, c->p.k_w, c->p.s_h, c->p.s_w, 1, 1, 0,
                                 0);
    L.p_top = c->p.p_top;
    L.p_bottom = c->p.p_bottom;
    L.p_left = c->p.p_left;
    L.p_right = c->p.p_right;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    return L;
}

/* Run the pool in place at gap; checked run too; returns the violation of
** the checked run. */
static rk_violation pool_inplace_run(const pool_case *c, rk_pool_kind kind, int64_t gap, const int8_t *want,
                                     bool release)
{
    const int64_t n_in = (int64_t)c->in.h * c->in.w * c->in.c;
    const int64_t ws_size = gap + n_in;
    int8_t *ws = xmalloc((size_t)ws_size), *scratch = xmalloc(rk_pool_inplace_buffer_size(&c->p, kind, c->in, c->out));
    uint8_t *shadow = xmalloc((size_t)ws_size);
    const size_t n_out = (size_t)c->out.h * c->out.w * c->out.c;
    if (release) {
        memcpy(ws + gap, c->input, (size_t)n_in);
        cr_assert_eq(rk_pool_inplace(&c->p, kind, c->in, c->out, gap, ws, ws_size, scratch), RK_OK);
        cr_assert(memcmp(ws, want, n_out) == 0, "pool in place differs from dual");
    }
    memcpy(ws + gap, c->input, (size_t)n_in);
    rk_violation v;
    cr_assert_eq(rk_pool_inplace_checked(&c->p, kind, c->in, c->out, gap, ws, ws_size, scratch, shadow, true, &v),
                 RK_OK);
    if (!v.found)
        cr_assert(memcmp(ws, want, n_out) == 0);
    free(shadow);
    free(scratch);
    free(ws);
    return v;
}

Test(kernels, pool_inplace_forward_bit_exact_at_the_simulated_gap)
{
    rng r = {1414};
    int with_gap = 0;
    for (int n = 0; n < 1500; n++) {
        pool_case c;
        draw_pool(&r, &c, n % 7 == 0);
        const rip_layer L = pool_layer(&c);
        int64_t truth;
        cr_assert_eq(rip_sim_truth(&L, RIP_EXEC_DENSE_GATHER, RIP_ENGINE_FAST, &truth), 0);
        /* the planner's pool gap equals the simulator's dense-gather truth */
        cr_assert_eq(truth, pool_gap_brute(&c));
        if (c.p.p_top == 0 && c.p.p_left == 0 && c.p.p_bottom == 0 && c.p.p_right == 0)
            cr_assert_eq(truth, 0, "App. I.1: an unpadded pool needs no gap");
        for (int kind = 0; kind < 2; kind++) {
            int8_t *want = pool_ref(&c, kind == RK_POOL_AVG);
            rk_violation v = pool_inplace_run(&c, (rk_pool_kind)kind, truth, want, true);
            cr_assert(!v.found, "pool %d at its gap %ld: violation at address %ld", n, (long)truth, (long)v.address);
            if (truth > 0) {
                v = pool_inplace_run(&c, (rk_pool_kind)kind, truth - 1, want, false);
                cr_assert(v.found, "pool %d: not caught at gap %ld", n, (long)truth - 1);
                with_gap++;
            }
            free(want);
        }
        free(c.input);
    }
    cr_assert_gt(with_gap, 100);
}

Test(kernels, pool_inplace_appendix_i1_cases)
{
    /* k, s, h, w, c, p, expected gap.  Unpadded (2x2/2, 3x3/2, 3x3/1,
    ** global 7x7): gap 0 (App. I.1).  3x3/2 with p = 1: output (0,0) is the
    ** last reader of input (0,0) (the next window starts at column 1), so
    ** still 0.  3x3/1 with p = 1 on width 14: output (r,c), r >= 1, must
    ** spare input (r-1,c), which output (r,c+1) still reads, W + 1 = 15
    ** pixels below it: 15 * 5 = 75 (row 0 needs only up to W). */
    const int32_t cases[][7] = {{2, 2, 16, 16, 8, 0, 0}, {3, 2, 15, 15, 4, 0, 0}, {3, 1, 9, 7, 3, 0, 0},
                                {7, 1, 7, 7, 16, 0, 0},  {2, 2, 14, 14, 32, 0, 0}, {3, 2, 14, 14, 5, 1, 0},
                                {3, 1, 14, 14, 5, 1, 75}};
    rng r = {3};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pool_case c;
        memset(&c, 0, sizeof c);
        c.p.k_h = c.p.k_w = cases[i][0];
        c.p.s_h = c.p.s_w = cases[i][1];
        c.p.p_top = c.p.p_bottom = c.p.p_left = c.p.p_right = cases[i][5];
        c.p.act = (rk_act){-128, 127};
        c.in = (rk_dims){cases[i][2], cases[i][3], cases[i][4]};
        c.out = (rk_dims){(c.in.h + 2 * cases[i][5] - c.p.k_h) / c.p.s_h + 1,
                          (c.in.w + 2 * cases[i][5] - c.p.k_w) / c.p.s_w + 1, c.in.c};
        const size_t n = (size_t)c.in.h * c.in.w * c.in.c;
        c.input = xmalloc(n);
        fill_s8(&r, c.input, n, -128, 127);
        const int64_t gap = pool_gap_brute(&c);
        cr_assert_eq(gap, cases[i][6]);
        if (gap > 0)
            for (int kind = 0; kind < 2; kind++) {
                int8_t *want = pool_ref(&c, kind == RK_POOL_AVG);
                cr_assert(pool_inplace_run(&c, (rk_pool_kind)kind, gap - 1, want, false).found);
                free(want);
            }
        for (int kind = 0; kind < 2; kind++) {
            int8_t *want = pool_ref(&c, kind == RK_POOL_AVG);
            const rk_violation v = pool_inplace_run(&c, (rk_pool_kind)kind, gap, want, true);
            cr_assert(!v.found);
            free(want);
        }
        free(c.input);
    }
}

/* ------------------------------------------------------------------ add */

Test(kernels, add_equals_reference_and_works_in_place)
{
    rng r = {55};
    for (int n = 0; n < 3000; n++) {
        const int len = (int)rng_int(&r, 1, 64);
        int8_t *a = xmalloc((size_t)len), *b = xmalloc((size_t)len), *got = xmalloc((size_t)len),
               *want = xmalloc((size_t)len);
        fill_s8(&r, a, (size_t)len, -128, 127);
        fill_s8(&r, b, (size_t)len, -128, 127);
        rk_add_params p;
        memset(&p, 0, sizeof p);
        const int zp1 = (int)rng_int(&r, -128, 127), zp2 = (int)rng_int(&r, -128, 127);
        p.input1_offset = -zp1;
        p.input2_offset = -zp2;
        p.left_shift = n % 10 == 0 ? (int32_t)rng_int(&r, 0, 22) : 20;
        int32_t m[3], s[3];
        draw_quant(&r, 3, m, s);
        for (int i = 0; i < 3; i++)
            if (n % 4 != 0 && s[i] > 0)
                s[i] = -s[i]; /* TFLite's range most of the time, any shift now and then */
        p.input1_multiplier = m[0];
        p.input1_shift = s[0];
        p.input2_multiplier = m[1];
        p.input2_shift = s[1];
        p.output_multiplier = m[2];
        p.output_shift = s[2];
        p.output_offset = (int32_t)rng_int(&r, -128, 127);
        draw_act(&r, &p.act.min, &p.act.max);
        ref_add(len, a, b, zp1, zp2, p.left_shift, m[0], s[0], m[1], s[1], m[2], s[2], p.output_offset, p.act.min,
                p.act.max, want);
        cr_assert_eq(rk_add(&p, len, a, b, got), RK_OK);
        cr_assert(memcmp(got, want, (size_t)len) == 0, "add %d differs from the reference", n);
        cr_assert_eq(rk_add(&p, len, a, b, a), RK_OK); /* output over input1 */
        cr_assert(memcmp(a, want, (size_t)len) == 0, "in-place add %d differs", n);
        free(a);
        free(b);
        free(got);
        free(want);
    }
}

/* ----------------------------------------------------------- upsampling */

Test(kernels, upsample_dual_and_reverse_inplace_equal_reference)
{
    rng r = {14};
    for (int n = 0; n < 1500; n++) {
        const rk_upsample_params p = {(int32_t)rng_int(&r, 1, 4), (int32_t)rng_int(&r, 1, 4)};
        const rk_dims in = {(int32_t)rng_int(&r, 1, 9), (int32_t)rng_int(&r, 1, 9), (int32_t)rng_int(&r, 1, 6)};
        const rk_dims out = {in.h * p.s_h, in.w * p.s_w, in.c};
        const size_t n_in = (size_t)in.h * in.w * in.c, n_out = (size_t)out.h * out.w * out.c;
        int8_t *x = xmalloc(n_in), *want = xmalloc(n_out), *got = xmalloc(n_out);
        fill_s8(&r, x, n_in, -128, 127);
        ref_upsample(in.c, in.h, in.w, p.s_h, p.s_w, x, want);
        cr_assert_eq(rk_upsample_nearest(&p, in, x, out, got), RK_OK);
        cr_assert(memcmp(got, want, n_out) == 0);
        /* in place: workspace of exactly N_out (Theorem 14), input at 0 */
        const int64_t ws_size = rk_upsample_nearest_inplace_workspace_size(&p, in);
        cr_assert_eq(ws_size, (int64_t)n_out);
        int8_t *ws = xmalloc((size_t)ws_size);
        memcpy(ws, x, n_in);
        cr_assert_eq(rk_upsample_nearest_inplace(&p, in, out, ws, ws_size), RK_OK);
        cr_assert(memcmp(ws, want, n_out) == 0, "in-place upsampling differs, scale %dx%d", p.s_h, p.s_w);
        memcpy(ws, x, n_in);
        uint8_t *shadow = xmalloc((size_t)ws_size);
        rk_violation v;
        cr_assert_eq(rk_upsample_nearest_inplace_checked(&p, in, out, ws, ws_size, shadow, false, &v), RK_OK);
        cr_assert(!v.found, "reverse traversal read a stale byte at %ld", (long)v.address);
        cr_assert(memcmp(ws, want, n_out) == 0);
        cr_assert_eq(rk_upsample_nearest_inplace(&p, in, out, ws, ws_size - 1), RK_SPACE);
        free(shadow);
        free(ws);
        free(x);
        free(want);
        free(got);
    }
}

/* --------------------------------------------------------- fully connected */

Test(kernels, fully_connected_equals_reference)
{
    rng r = {6};
    for (int n = 0; n < 3000; n++) {
        rk_fc_params p;
        memset(&p, 0, sizeof p);
        p.batches = (int32_t)rng_int(&r, 1, 3);
        p.in_features = (int32_t)rng_int(&r, 1, 300);
        p.out_features = (int32_t)rng_int(&r, 1, 20);
        const int in_zp = (int)rng_int(&r, -128, 127);
        p.input_offset = -in_zp;
        p.output_offset = (int32_t)rng_int(&r, -128, 127);
        p.per_channel = rng_int(&r, 0, 1);
        draw_act(&r, &p.act.min, &p.act.max);
        const size_t nx = (size_t)p.batches * p.in_features, nw = (size_t)p.in_features * p.out_features,
                     ny = (size_t)p.batches * p.out_features;
        int8_t *x = xmalloc(nx), *w = xmalloc(nw), *got = xmalloc(ny), *want = xmalloc(ny);
        int32_t *bias = xmalloc((size_t)p.out_features * sizeof(int32_t)),
                *m = xmalloc((size_t)p.out_features * sizeof(int32_t)),
                *s = xmalloc((size_t)p.out_features * sizeof(int32_t));
        fill_s8(&r, x, nx, -128, 127);
        fill_s8(&r, w, nw, -127, 127);
        for (int i = 0; i < p.out_features; i++)
            bias[i] = (int32_t)rng_int(&r, -(1 << 16), 1 << 16);
        draw_quant(&r, p.out_features, m, s);
        const rk_quant q = {m, s};
        cr_assert(ref_fc(p.batches, p.in_features, p.out_features, x, w, n % 3 ? bias : NULL, in_zp, p.output_offset,
                         p.per_channel, m, s, p.act.min, p.act.max, want));
        cr_assert_eq(rk_fully_connected(&p, &q, x, w, n % 3 ? bias : NULL, got), RK_OK);
        cr_assert(memcmp(got, want, ny) == 0, "fc %d differs from the reference", n);
        free(x);
        free(w);
        free(got);
        free(want);
        free(bias);
        free(m);
        free(s);
    }
}
