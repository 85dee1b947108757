/*
** korder_verify.h — the verification of kernel orders against real kernels
** (issue 21, item 2), shared by the cmsis_orders suite (CMSIS-NN, run in
** process), the tflm_ref_orders suite (TFLM's reference kernels, run by a
** g++ harness) and the cmsis_orders_m33 suite (CMSIS-NN built for a
** Cortex-M33 with ARM_MATH_DSP, run in QEMU): the suite sets kv_suite,
** kv_lib, kv_dsp and kv_run.
**
** For every layer: the kernel is run on two buffers (the reference output),
** then on one buffer with its input copied to X + d and its output at X, for
** d = the trace engine's gap (N_out when the engine says no overlap is
** safe): the output must be bit-identical.  At d - 1 the output must
** differ; where it does not (the corrupting write stored the value it
** overwrote, or the later reader's result does not change: a zero weight, a
** saturated output, a max the corrupt value does not win), the input and
** the weights are re-drawn (up to RETRIES times) until the corruption shows;
** a layer that never shows it is printed with the engine's first corrupting
** write and counted.  Random layers (seeded PCG32) per kernel, and every
** modelled operator of the real models (their geometry; weights and inputs
** drawn at random: the order does not depend on values).  Counts per
** kernel go to the test log.
*/
#ifndef RIPSIM_KORDER_VERIFY_H
#define RIPSIM_KORDER_VERIFY_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kgeom_draw.h"
#include "korder_job.h"
#include "model_paths.h"
#include "tfl_check.h"
#include "tflm_orders.h"

#define SEED 20261202u
#define N_RANDOM 300
#define RETRIES 16

typedef struct counts {
    long layers, safe, corrupted, redrawn, same_value, no_overlap_below, undefined_below;
    long host_gap_differs;       /* kv_dsp: layers whose host (pure C) build's order has another gap */
} counts;
/* One tally per order, and one more for the reference max pool (ref_pool covers both pools). */
#define KV_MAX_POOL_SLOT RIP_KO_COUNT
static counts tally[RIP_KO_COUNT + 1];

/* One layer (its kind: korder_job.h): its order and geometry, values for the kernel. */
typedef struct layer {
    kv_kind kind;                /* the operator */
    rip_kctx ctx;
    int k;                       /* ADD: which operand overlaps the output */
    bool per_channel;            /* FULLY_CONNECTED */
    int8_t *filter, *other;      /* other: ADD's second operand */
    int32_t *bias, *mult, *shift;
    int32_t in_off, out_off;
    int64_t n_filter, n_ch, taps; /* sizes of the values, for redraw() */
} layer;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    cr_assert_not_null(p);
    return p;
}

static void fill(rip_pcg32 *r, int8_t *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        p[i] = (int8_t)(rip_pcg32_next(r) & 0xff);
}

/* QUANTIZE's float32 input: values in [-4, 4) in steps of 2^-10 (never a NaN or an infinity, whose
** conversion to int is undefined), little-endian bytes as the host stores them. */
static void fill_floats(rip_pcg32 *r, int8_t *p, int64_t n_bytes)
{
    for (int64_t i = 0; i + 4 <= n_bytes; i += 4) {
        const float v = (float)((int32_t)rip_pcg32_below(r, 8192) - 4096) / 1024.0f;
        memcpy(p + i, &v, 4);
    }
}

static int ilog2(int64_t v)
{
    int b = 0;
    while (v > 1) {
        v >>= 1;
        b++;
    }
    return b;
}

/* Draw l's values in place: filters and biases small, multipliers and shifts that spread outputs
** over the int8 range for an accumulation of l->taps products. */
static void redraw(rip_pcg32 *r, layer *l)
{
    fill(r, l->filter, l->n_filter);
    if (l->other)
        fill(r, l->other, l->ctx.g.n_elem);
    for (int64_t c = 0; c < l->n_ch; c++) {
        l->bias[c] = (int32_t)kg_rnd(r, -2000, 2000);
        l->mult[c] = (int32_t)kg_rnd(r, 1 << 30, INT32_MAX);
        l->shift[c] = -(int32_t)kg_rnd(r, 6, 8) - ilog2(l->taps) / 2;
    }
    l->in_off = (int32_t)kg_rnd(r, -127, 128);
    l->out_off = (int32_t)kg_rnd(r, -128, 127);
}

/* Allocate and draw l's values: n_filter filter bytes, n_ch channels of quantization. */
static void values(rip_pcg32 *r, layer *l, int64_t n_filter, int64_t n_ch, int64_t taps)
{
    l->n_filter = n_filter;
    l->n_ch = n_ch;
    l->taps = taps;
    l->filter = xcalloc((size_t)n_filter, 1);
    l->bias = xcalloc((size_t)n_ch, sizeof *l->bias);
    l->mult = xcalloc((size_t)n_ch, sizeof *l->mult);
    l->shift = xcalloc((size_t)n_ch, sizeof *l->shift);
    redraw(r, l);
}

struct layer;
/* The suite's kernel runner: l's kernel on input in (n_in scalars), its n_out output scalars into
** out; d < 0: on two buffers; d >= 0: on one buffer holding the input from byte d and the output
** from byte 0 (the overlapped run; out receives that buffer's first n_out bytes). */
typedef void kv_runner(const struct layer *l, const int8_t *in, int64_t n_in, int64_t d, int8_t *out,
                       int64_t n_out);
static const char *kv_suite;
static rip_tflm_lib kv_lib;
/* CMSIS-NN only: the kernels are the Cortex-M33 build's (ARM_MATH_DSP), so are the orders drawn. */
static bool kv_dsp;
static kv_runner *kv_run;
/* Optional: true when running l at gap d is undefined behaviour in C (a memcpy between overlapping
** ranges), so the run would prove nothing: never at a gap, and below it the run is skipped. */
static bool (*kv_undefined_at)(const struct layer *l, int64_t d);

/* The job header (korder_job.h) of l at gap d. */
static void kv_job_header(const layer *l, int64_t d, int64_t h[KJ_FIELDS])
{
    const rip_kgeom *g = &l->ctx.g;
    const int64_t v[KJ_FIELDS] = {
        [F_KIND] = l->kind, [F_BATCHES] = g->batches, [F_H_IN] = g->h_in, [F_W_IN] = g->w_in, [F_C_IN] = g->c_in,
        [F_H_OUT] = g->h_out, [F_W_OUT] = g->w_out, [F_C_OUT] = g->c_out, [F_K_H] = g->k_h, [F_K_W] = g->k_w,
        [F_S_H] = g->s_h, [F_S_W] = g->s_w, [F_D_H] = g->d_h, [F_D_W] = g->d_w, [F_PAD_TOP] = g->pad_top,
        [F_PAD_LEFT] = g->pad_left, [F_DEPTH_MULT] = g->depth_mult, [F_N_ELEM] = g->n_elem,
        [F_IN_OFF] = l->in_off, [F_OUT_OFF] = l->out_off, [F_OPERAND] = l->k, [F_GAP] = d,
        [F_N_FILTER] = l->n_filter, [F_N_CH] = l->n_ch, [F_PER_CHANNEL] = l->per_channel,
        [F_GROUPS] = g->groups < 1 ? 1 : g->groups, [F_B_OUT] = g->batches_out, [F_PAD_N] = g->pad_batch,
        [F_PAD_C] = g->pad_depth,
    };
    memcpy(h, v, sizeof v);
}

static void layer_free(layer *l)
{
    free(l->filter);
    free(l->other);
    free(l->bias);
    free(l->mult);
    free(l->shift);
}

/* A layer's input: random bytes, QUANTIZE's floats. */
static void fill_input(rip_pcg32 *r, const layer *l, int8_t *in, int64_t n)
{
    if (l->kind == KV_QUANT)
        fill_floats(r, in, n);
    else
        fill(r, in, n);
}

/* The tally slot of l: its order, the reference max pool apart. */
static int kv_slot(const layer *l)
{
    return l->ctx.order == RIP_KO_REF_POOL && l->kind == KV_MAX ? KV_MAX_POOL_SLOT : (int)l->ctx.order;
}

static const char *slot_name(int o)
{
    if (o == KV_MAX_POOL_SLOT)
        return "ref_pool (max)";
    if (o == RIP_KO_REF_POOL)
        return "ref_pool (average)";
    return rip_korder_name((rip_korder)o);
}

/* The kernel on one buffer: input at buf + d, output at buf; true iff the output equals ref. */
static bool overlapped_equals(const layer *l, const int8_t *in, int64_t n_in, int64_t n_out, int64_t d,
                              const int8_t *ref)
{
    int8_t *got = xcalloc((size_t)n_out, 1);
    kv_run(l, in, n_in, d, got, n_out);
    const bool same = memcmp(got, ref, (size_t)n_out) == 0;
    free(got);
    return same;
}

/* kv_dsp: the order the host (pure C) build runs for l's layer where the DSP build's differs, else
** l's own. */
static rip_korder host_order(const layer *l)
{
    switch (l->ctx.order) {
    case RIP_KO_CMSIS_DW_OPT_DSP: return rip_cmsis_dw_pick(&l->ctx.g, false);
    case RIP_KO_CMSIS_FC_DSP: return RIP_KO_CMSIS_FC;
    case RIP_KO_CMSIS_AVGPOOL_DSP: return RIP_KO_CMSIS_AVGPOOL;
    case RIP_KO_CMSIS_ADD_DSP: return RIP_KO_CMSIS_ADD;
    default: return l->ctx.order;
    }
}

/* Does the host build's order of l's layer have another gap than gap (the DSP order's)? */
static bool host_gap_differs(const layer *l, int64_t gap)
{
    rip_kctx host = l->ctx;
    host.order = host_order(l);
    if (host.order == l->ctx.order)
        return false;
    int64_t host_gap;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_kctx_gap(&host, &host_gap, err), RIP_OK, "%s", err);
    return host_gap != gap;
}

/* Verify one layer (l->ctx.order set, values drawn); counts into tally. */
static void verify(rip_pcg32 *r, layer *l, const char *what)
{
    rip_kt_kernel k;
    cr_assert(rip_korder_kernel(&l->ctx, &k), "%s: %s: not a geometry of its order", what,
              rip_korder_name(l->ctx.order));
    rip_ktrace *t = NULL;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_ktrace_new(&k, &t, err), RIP_OK, "%s", err);
    int64_t gap;
    cr_assert_eq(rip_ktrace_gap(t, &gap, err), RIP_OK, "%s", err);
    const int64_t d = gap < 0 ? k.n_out : gap;
    counts *c = &tally[kv_slot(l)];
    c->layers++;
    if (kv_dsp && host_gap_differs(l, gap))
        c->host_gap_differs++;
    int8_t *in = xcalloc((size_t)k.n_in, 1), *ref = xcalloc((size_t)k.n_out, 1);
    fill_input(r, l, in, k.n_in);
    kv_run(l, in, k.n_in, -1, ref, k.n_out);
    cr_assert(overlapped_equals(l, in, k.n_in, k.n_out, d, ref), "%s: %s: output differs at the gap %lld",
              what, rip_korder_name(l->ctx.order), (long long)d);
    c->safe++;
    cr_assert(kv_undefined_at == NULL || !kv_undefined_at(l, d), "%s: %s: the gap %lld runs a memcpy between "
              "overlapping ranges", what, rip_korder_name(l->ctx.order), (long long)d);
    if (d == 0) {
        c->no_overlap_below++;          /* fully in place: nothing below to try */
    } else if (kv_undefined_at != NULL && kv_undefined_at(l, d - 1)) {
        c->undefined_below++;           /* the kernel's own memcpy would overlap: not run */
    } else if (!overlapped_equals(l, in, k.n_in, k.n_out, d - 1, ref)) {
        c->corrupted++;
    } else {
        rip_kt_report rep;
        cr_assert_not(rip_ktrace_run(t, d - 1, &rep));
        bool shown = false;
        for (int i = 0; i < RETRIES && !shown; i++) {
            redraw(r, l);
            fill_input(r, l, in, k.n_in);
            kv_run(l, in, k.n_in, -1, ref, k.n_out);
            shown = !overlapped_equals(l, in, k.n_in, k.n_out, d - 1, ref);
        }
        if (shown) {
            c->redrawn++;
        } else {
            c->same_value++;
            const rip_kgeom *g = &l->ctx.g;
            printf("%s: %s: %s: gap %lld: never corrupted at %lld in %d draws (first corrupting "
                   "write: output %lld onto input %lld; %lldx%lldx%lldx%lld -> %lldx%lldx%lld, k %lldx%lld s %lldx%lld "
                   "d %lldx%lld pad %lld,%lld groups %lld M %lld)\n", kv_suite, what, rip_korder_name(l->ctx.order),
                   (long long)d, (long long)(d - 1), RETRIES + 1, (long long)rep.out, (long long)rep.in,
                   (long long)g->batches, (long long)g->h_in, (long long)g->w_in, (long long)g->c_in,
                   (long long)g->h_out, (long long)g->w_out, (long long)g->c_out, (long long)g->k_h,
                   (long long)g->k_w, (long long)g->s_h, (long long)g->s_w, (long long)g->d_h, (long long)g->d_w,
                   (long long)g->pad_top, (long long)g->pad_left, (long long)g->groups, (long long)g->depth_mult);
        }
    }
    free(in);
    free(ref);
    rip_ktrace_free(t);
}

/* Values for the layer's operator and verification. */
static void verify_with_values(rip_pcg32 *r, layer *l, const char *what)
{
    const rip_kgeom *g = &l->ctx.g;
    switch (l->kind) {
    case KV_CONV:
        values(r, l, g->c_out * g->k_h * g->k_w * (g->c_in / g->groups), g->c_out,
               g->k_h * g->k_w * g->c_in / g->groups);
        break;
    case KV_DW:
        values(r, l, g->k_h * g->k_w * g->c_out, g->c_out, g->k_h * g->k_w);
        break;
    case KV_FC:
        values(r, l, g->c_in * g->c_out, g->c_out, g->c_in);
        l->per_channel = rip_pcg32_below(r, 2);
        break;
    case KV_ADD:
        l->other = xcalloc((size_t)g->n_elem, 1);
        values(r, l, 1, 1, 1);
        break;
    default:
        values(r, l, 1, 1, 1);
        break;
    }
    verify(r, l, what);
    layer_free(l);
}

/* A random layer of operator kind `kind`, its order the one kv_lib (kv_dsp: its DSP build) runs. */
static layer random_layer(rip_pcg32 *r, kv_kind kind)
{
    layer l = { .kind = kind };
    const bool ref = kv_lib == RIP_TFLM_REFERENCE;
    const int64_t c = kg_rnd(r, 1, 9);
    switch (kind) {
    case KV_CONV: {
        /* Grouped 1x1 layers are left out: arm_convolve_wrapper_s8_get_buffer_size asks no im2col
        ** buffer for them, so the arm_convolve_s8 the wrapper then calls refuses them under TFLM too. */
        const int64_t groups = rip_pcg32_below(r, 4) == 0 ? 2 : 1;
        do
            l.ctx.g = kg_window(r, groups * c, groups * kg_rnd(r, 1, 9), 9, 3, true, 2);
        while (groups > 1 && l.ctx.g.k_h == 1 && l.ctx.g.k_w == 1);
        l.ctx.g.groups = groups;
        if (rip_pcg32_below(r, 2)) {     /* a pointwise layer half the time: the 1x1 paths */
            l.ctx.g = kg_window(r, c, kg_rnd(r, 1, 9), 9, 1, false, 2);
            l.ctx.g.pad_top = l.ctx.g.pad_left = 0;
        }
        l.ctx.order = ref ? RIP_KO_REF_CONV : rip_cmsis_conv_pick(&l.ctx.g);
        break;
    }
    case KV_DW: {
        const int64_t M = rip_pcg32_below(r, 2) ? 1 : kg_rnd(r, 2, 8);
        const bool three = rip_pcg32_below(r, 2);     /* the 3x3 path (when M = 1) half the time */
        do
            l.ctx.g = kg_window(r, c, c * M, 9, three ? 3 : 4, !three, three ? 1 : 2);
        while (three && (l.ctx.g.k_h != 3 || l.ctx.g.k_w != 3));
        l.ctx.g.depth_mult = M;
        l.ctx.order = ref ? RIP_KO_REF_DW : rip_cmsis_dw_pick(&l.ctx.g, kv_dsp);
        break;
    }
    case KV_FC:
        l.ctx.g = (rip_kgeom){ .batches = kg_rnd(r, 1, 3), .h_in = 1, .w_in = 1, .c_in = kg_rnd(r, 1, 40), .h_out = 1,
                               .w_out = 1, .c_out = kg_rnd(r, 1, 12), .k_h = 1, .k_w = 1, .s_h = 1, .s_w = 1,
                               .d_h = 1, .d_w = 1, .groups = 1, .depth_mult = 1 };
        l.ctx.order = ref ? RIP_KO_REF_FC : kv_dsp ? RIP_KO_CMSIS_FC_DSP : RIP_KO_CMSIS_FC;
        break;
    case KV_AVG: case KV_MAX:
        l.ctx.g = kg_window(r, c, c, 9, 3, false, 2);
        l.ctx.order = ref ? RIP_KO_REF_POOL
                    : kind == KV_MAX ? RIP_KO_CMSIS_MAXPOOL
                    : kv_dsp ? RIP_KO_CMSIS_AVGPOOL_DSP : RIP_KO_CMSIS_AVGPOOL;
        break;
    case KV_PAD: {
        /* Padding before and after each axis 0..2, the batch and channel axes padded a quarter of
        ** the time each (TFLM pads any axis; images pad rows and columns). */
        rip_kgeom *g = &l.ctx.g;
        int64_t after[4];
        g->batches = kg_rnd(r, 1, 2);
        g->h_in = kg_rnd(r, 1, 9);
        g->w_in = kg_rnd(r, 1, 9);
        g->c_in = c;
        const bool pad_n = rip_pcg32_below(r, 4) == 0, pad_c = rip_pcg32_below(r, 4) == 0;
        g->pad_batch = pad_n ? kg_rnd(r, 0, 2) : 0;
        after[0] = pad_n ? kg_rnd(r, 0, 2) : 0;
        g->pad_top = kg_rnd(r, 0, 2);
        after[1] = kg_rnd(r, 0, 2);
        g->pad_left = kg_rnd(r, 0, 2);
        after[2] = kg_rnd(r, 0, 2);
        g->pad_depth = pad_c ? kg_rnd(r, 0, 2) : 0;
        after[3] = pad_c ? kg_rnd(r, 0, 2) : 0;
        g->batches_out = g->batches + g->pad_batch + after[0];
        g->h_out = g->h_in + g->pad_top + after[1];
        g->w_out = g->w_in + g->pad_left + after[2];
        g->c_out = g->c_in + g->pad_depth + after[3];
        l.ctx.order = ref ? RIP_KO_REF_PAD : RIP_KO_CMSIS_PAD;
        break;
    }
    case KV_QUANT:
        l.ctx.g.n_elem = kg_rnd(r, 1, 200);
        l.ctx.g.in_bytes = 4;
        l.ctx.order = RIP_KO_REF_QUANTIZE;
        break;
    default:
        l.ctx.g.n_elem = kg_rnd(r, 1, 200);
        l.k = (int)rip_pcg32_below(r, 2);
        l.ctx.order = ref ? RIP_KO_REF_ADD : kv_dsp ? RIP_KO_CMSIS_ADD_DSP : RIP_KO_CMSIS_ADD;
        break;
    }
    return l;
}

static void print_tally(const char *title)
{
    for (int o = 0; o <= KV_MAX_POOL_SLOT; o++) {
        const counts *c = &tally[o];
        if (c->layers == 0)
            continue;
        printf("%s: %s: %s: %ld layers, %ld safe at the gap, %ld corrupted at gap-1, %ld corrupted "
               "at gap-1 after re-drawing the input, %ld never corrupted at gap-1, %ld at gap 0, %ld not run at "
               "gap-1 (a memcpy between overlapping ranges there)\n",
               kv_suite, title, slot_name(o), c->layers, c->safe, c->corrupted, c->redrawn, c->same_value,
               c->no_overlap_below, c->undefined_below);
        if (kv_dsp && host_order(&(layer){ .ctx.order = (rip_korder)o }) != (rip_korder)o)
            printf("%s: %s: %s: %ld of the layers have another gap under the host build's order\n", kv_suite,
                   title, slot_name(o), c->host_gap_differs);
    }
    fflush(stdout);
}

/* The orders a random layer of each kind reaches (random_layer), per build: TFLM's reference
** kernels, CMSIS-NN pure C (the host), CMSIS-NN with ARM_MATH_DSP (the Cortex-M33). */
#define KV_BUILDS 3
#define KV_PATHS 4
static const rip_korder kind_orders[KV_BUILDS][KV_KINDS][KV_PATHS] = {
    { { RIP_KO_REF_CONV, RIP_KO_REF_CONV, RIP_KO_REF_CONV, RIP_KO_REF_CONV },
      { RIP_KO_REF_DW, RIP_KO_REF_DW, RIP_KO_REF_DW, RIP_KO_REF_DW },
      { RIP_KO_REF_FC, RIP_KO_REF_FC, RIP_KO_REF_FC, RIP_KO_REF_FC },
      { RIP_KO_REF_POOL, RIP_KO_REF_POOL, RIP_KO_REF_POOL, RIP_KO_REF_POOL },
      { KV_MAX_POOL_SLOT, KV_MAX_POOL_SLOT, KV_MAX_POOL_SLOT, KV_MAX_POOL_SLOT },
      { RIP_KO_REF_ADD, RIP_KO_REF_ADD, RIP_KO_REF_ADD, RIP_KO_REF_ADD },
      { RIP_KO_REF_PAD, RIP_KO_REF_PAD, RIP_KO_REF_PAD, RIP_KO_REF_PAD },
      { RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE } },
    { { RIP_KO_CMSIS_CONV, RIP_KO_CMSIS_1X1, RIP_KO_CMSIS_1X1_FAST, RIP_KO_CMSIS_CONV },
      { RIP_KO_CMSIS_DW_3X3, RIP_KO_CMSIS_DW_GENERIC, RIP_KO_CMSIS_DW_MULT4, RIP_KO_CMSIS_DW_3X3 },
      { RIP_KO_CMSIS_FC, RIP_KO_CMSIS_FC, RIP_KO_CMSIS_FC, RIP_KO_CMSIS_FC },
      { RIP_KO_CMSIS_AVGPOOL, RIP_KO_CMSIS_AVGPOOL, RIP_KO_CMSIS_AVGPOOL, RIP_KO_CMSIS_AVGPOOL },
      { RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL },
      { RIP_KO_CMSIS_ADD, RIP_KO_CMSIS_ADD, RIP_KO_CMSIS_ADD, RIP_KO_CMSIS_ADD },
      { RIP_KO_CMSIS_PAD, RIP_KO_CMSIS_PAD, RIP_KO_CMSIS_PAD, RIP_KO_CMSIS_PAD },
      { RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE } },  /* not drawn */
    { { RIP_KO_CMSIS_CONV, RIP_KO_CMSIS_1X1, RIP_KO_CMSIS_1X1_FAST, RIP_KO_CMSIS_CONV },
      { RIP_KO_CMSIS_DW_3X3, RIP_KO_CMSIS_DW_OPT_DSP, RIP_KO_CMSIS_DW_GENERIC, RIP_KO_CMSIS_DW_MULT4 },
      { RIP_KO_CMSIS_FC_DSP, RIP_KO_CMSIS_FC_DSP, RIP_KO_CMSIS_FC_DSP, RIP_KO_CMSIS_FC_DSP },
      { RIP_KO_CMSIS_AVGPOOL_DSP, RIP_KO_CMSIS_AVGPOOL_DSP, RIP_KO_CMSIS_AVGPOOL_DSP, RIP_KO_CMSIS_AVGPOOL_DSP },
      { RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL },
      { RIP_KO_CMSIS_ADD_DSP, RIP_KO_CMSIS_ADD_DSP, RIP_KO_CMSIS_ADD_DSP, RIP_KO_CMSIS_ADD_DSP },
      { RIP_KO_CMSIS_PAD, RIP_KO_CMSIS_PAD, RIP_KO_CMSIS_PAD, RIP_KO_CMSIS_PAD },
      { RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE, RIP_KO_REF_QUANTIZE } },  /* not drawn */
};

/* Does the suite's library run an order of its own for this kind?  TFLM's CMSIS-NN build has no
** quantize kernel: it runs the reference one, verified by the tflm_ref_orders suite. */
static bool kind_has_kernel(kv_kind kind)
{
    return !(kv_lib == RIP_TFLM_CMSIS_NN && kind == KV_QUANT);
}

static long fewest(kv_kind kind)
{
    const rip_korder *o = kind_orders[kv_lib == RIP_TFLM_REFERENCE ? 0 : kv_dsp ? 2 : 1][kind];
    long n = tally[o[0]].layers;
    for (int i = 1; i < KV_PATHS; i++)
        if (tally[o[i]].layers < n)
            n = tally[o[i]].layers;
    return n;
}

/* The max pool may never show a corruption below its gap: its writes store a max, and where every
** later reader of the overwritten input also reads the taps that max came from, the value it reads
** is absorbed by its own max and no output changes (the cases are printed). */
static bool may_absorb(int slot)
{
    return slot == RIP_KO_CMSIS_MAXPOOL || slot == KV_MAX_POOL_SLOT;
}

static void assert_every_layer_corrupts(void)
{
    for (int o = 0; o <= KV_MAX_POOL_SLOT; o++)
        if (!may_absorb(o))
            cr_assert_eq(tally[o].same_value, 0, "%s: a layer never corrupted below its gap", slot_name(o));
}

/* At least N_RANDOM layers of every order (draws of each kind until its rarest order has them). */
static void kv_random_layers(void)
{
    rip_pcg32 r;
    rip_pcg32_seed(&r, SEED, 7u);
    memset(tally, 0, sizeof tally);
    for (int kind = 0; kind < KV_KINDS; kind++)
        for (int i = 0; kind_has_kernel((kv_kind)kind) && fewest((kv_kind)kind) < N_RANDOM && i < 40000; i++) {
            layer l = random_layer(&r, (kv_kind)kind);
            char what[64];
            snprintf(what, sizeof what, "random layer %d of kind %d", i, kind);
            verify_with_values(&r, &l, what);
        }
    print_tally("random");
    for (int o = 0; o <= KV_MAX_POOL_SLOT; o++)
        if (tally[o].layers > 0)
            cr_expect_geq(tally[o].layers, N_RANDOM, "%s: only %ld layers", slot_name(o), tally[o].layers);
    assert_every_layer_corrupts();
}

/* The verification kind of operator op (the pools apart; what is not one of them is never modelled). */
static kv_kind kind_of(const rip_tfl_model *m, size_t op)
{
    switch (rip_tfl_op_code(m, &m->subgraphs[0].operators[op])->builtin) {
    case RIP_TFL_OP_CONV_2D: return KV_CONV;
    case RIP_TFL_OP_DEPTHWISE_CONV_2D: return KV_DW;
    case RIP_TFL_OP_FULLY_CONNECTED: return KV_FC;
    case RIP_TFL_OP_AVERAGE_POOL_2D: return KV_AVG;
    case RIP_TFL_OP_MAX_POOL_2D: return KV_MAX;
    case RIP_TFL_OP_PAD: return KV_PAD;
    case RIP_TFL_OP_QUANTIZE: return KV_QUANT;
    default: return KV_ADD;
    }
}

/* Every modelled operator input of the model at path under kv_lib (kv_dsp: its DSP build). */
static long verify_model(rip_pcg32 *r, const char *path)
{
    rip_tfl_model m = { 0 };
    char err[RIP_ERR_LEN];
    long n = 0;
    if (rip_tfl_model_load(path, &m, err) != RIP_OK || rip_tfl_check(&m, err) != RIP_OK) {
        printf("%s: %s: not checked (%s): its layers are not verified\n", kv_suite, path, err);
        rip_tfl_model_free(&m);
        return 0;
    }
    const rip_tfl_subgraph *sg = &m.subgraphs[0];
    for (size_t op = 0; op < sg->n_operators; op++)
        for (size_t k = 0; k < sg->operators[op].n_inputs; k++) {
            layer l = { .k = (int)k, .kind = kind_of(&m, op) };
            if (sg->operators[op].inputs[k] < 0 || !rip_tflm_order(&m, op, (int)k, kv_lib, kv_dsp, &l.ctx) ||
                !kind_has_kernel(l.kind))
                continue;
            char what[8600];
            snprintf(what, sizeof what, "%s: operator %zu input %zu", path, op, k);
            verify_with_values(r, &l, what);
            n++;
        }
    printf("%s: %s: %ld operator inputs verified\n", kv_suite, path, n);
    rip_tfl_model_free(&m);
    return n;
}

/* The real models: person_detect in the TFLM tree and every .tflite one level under the models
** folder (their geometry; values drawn). */
typedef struct kv_walk {
    rip_pcg32 r;
    long layers;
} kv_walk;

static void walk_model(const char *path, void *ctx)
{
    kv_walk *w = ctx;
    w->layers += verify_model(&w->r, path);
}

static void kv_real_models(void)
{
    kv_walk w = { .layers = 0 };
    rip_pcg32_seed(&w.r, SEED, 8u);
    memset(tally, 0, sizeof tally);
    const long models = each_model(walk_model, &w), layers = w.layers;
    if (models == 0) {
        printf("%s: real_model_layers: skipped: no models (RIPSIM_MODELS_PATH, RIPSIM_TFLM_PATH)\n", kv_suite);
        return;
    }
    print_tally("real models");
    printf("%s: real models: %ld operator inputs of %ld models verified\n", kv_suite, layers, models);
    assert_every_layer_corrupts();
}

#endif
