/*
** test_cmsis_orders.c — the CMSIS-NN kernel orders (src/tflm/kernel_orders.c)
** verified against the vendored CMSIS-NN kernels themselves (issue 21,
** item 2), host build (pure C, the path this suite compiles).
**
** For every layer: the kernel TFLM's cmsis_nn wrapper reaches is run on two
** buffers (the reference output), then on one buffer with its input copied
** to X + d and its output at X, for d = the trace engine's gap (N_out when
** the engine says no overlap is safe): the output must be bit-identical.
** At d - 1 the output must differ; where it does not (the corrupting write
** stored the value it overwrote, or the later reader's result does not
** change: a zero weight, a saturated output, a max the corrupt value does
** not win), the input and the weights are re-drawn (up to RETRIES times)
** until the corruption shows; a layer that never shows it is printed with
** the engine's first corrupting write and counted.  Random layers
** (seeded PCG32) per kernel, and every modelled operator of the real
** models (their geometry; weights and inputs drawn at random: the order
** does not depend on values).  Counts per kernel go to the test log.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arm_nnfunctions.h"

#include "kgeom_draw.h"
#include "tfl_check.h"
#include "tflm_orders.h"

#define SEED 20261202u
#define N_RANDOM 300
#define RETRIES 16

typedef struct counts {
    long layers, safe, corrupted, redrawn, same_value, no_overlap_below;
} counts;
static counts tally[RIP_KO_COUNT];

/* One layer: its order and geometry, values for the kernel. */
typedef struct layer {
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

static void layer_free(layer *l)
{
    free(l->filter);
    free(l->other);
    free(l->bias);
    free(l->mult);
    free(l->shift);
}

/* Run l's CMSIS-NN kernel (the one TFLM's wrapper calls) on in, writing out. */
static void run_kernel(const layer *l, const int8_t *in, int8_t *out)
{
    const rip_kgeom *g = &l->ctx.g;
    const rip_korder o = l->ctx.order;
    cmsis_nn_dims id = { .n = (int32_t)g->batches, .h = (int32_t)g->h_in, .w = (int32_t)g->w_in, .c = (int32_t)g->c_in };
    cmsis_nn_dims od = { .n = (int32_t)g->batches, .h = (int32_t)g->h_out, .w = (int32_t)g->w_out,
                         .c = (int32_t)g->c_out };
    cmsis_nn_dims bd = { .n = 1, .h = 1, .w = 1, .c = (int32_t)g->c_out };
    cmsis_nn_per_channel_quant_params qp = { .multiplier = l->mult, .shift = l->shift };
    cmsis_nn_activation act = { .min = -128, .max = 127 };
    cmsis_nn_tile stride = { .w = (int32_t)g->s_w, .h = (int32_t)g->s_h };
    cmsis_nn_tile pad = { .w = (int32_t)g->pad_left, .h = (int32_t)g->pad_top };
    cmsis_nn_tile dil = { .w = (int32_t)g->d_w, .h = (int32_t)g->d_h };
    cmsis_nn_context ctx = { .buf = NULL, .size = 0 };
    arm_cmsis_nn_status st = ARM_CMSIS_NN_ARG_ERROR;
    if (o == RIP_KO_CMSIS_CONV || o == RIP_KO_CMSIS_1X1 || o == RIP_KO_CMSIS_1X1_FAST) {
        cmsis_nn_conv_params cp = { .input_offset = l->in_off, .output_offset = l->out_off, .stride = stride,
                                    .padding = pad, .dilation = dil, .activation = act };
        cmsis_nn_dims fd = { .n = (int32_t)g->c_out, .h = (int32_t)g->k_h, .w = (int32_t)g->k_w,
                             .c = (int32_t)(g->c_in / g->groups) };
        ctx.size = arm_convolve_wrapper_s8_get_buffer_size(&cp, &id, &fd, &od);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        st = arm_convolve_wrapper_s8(&ctx, &cp, &qp, &id, in, &fd, l->filter, &bd, l->bias, &od, out);
    } else if (o == RIP_KO_CMSIS_DW_3X3 || o == RIP_KO_CMSIS_DW_GENERIC || o == RIP_KO_CMSIS_DW_MULT4) {
        cmsis_nn_dw_conv_params dp = { .input_offset = l->in_off, .output_offset = l->out_off,
                                       .ch_mult = (int32_t)g->depth_mult, .stride = stride, .padding = pad,
                                       .dilation = dil, .activation = act };
        cmsis_nn_dims fd = { .n = 1, .h = (int32_t)g->k_h, .w = (int32_t)g->k_w, .c = (int32_t)g->c_out };
        ctx.size = arm_depthwise_conv_wrapper_s8_get_buffer_size(&dp, &id, &fd, &od);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        st = arm_depthwise_conv_wrapper_s8(&ctx, &dp, &qp, &id, in, &fd, l->filter, &bd, l->bias, &od, out);
    } else if (o == RIP_KO_CMSIS_FC) {
        cmsis_nn_fc_params fp = { .input_offset = l->in_off, .filter_offset = 0, .output_offset = l->out_off,
                                  .activation = act };
        cmsis_nn_dims fid = { .n = (int32_t)g->batches, .h = 1, .w = 1, .c = (int32_t)g->c_in };
        cmsis_nn_dims fd = { .n = (int32_t)g->c_in, .h = 1, .w = 1, .c = (int32_t)g->c_out };
        cmsis_nn_dims fod = { .n = (int32_t)g->batches, .h = 1, .w = 1, .c = (int32_t)g->c_out };
        ctx.size = arm_fully_connected_s8_get_buffer_size(&fd);
        ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
        if (l->per_channel) {
            st = arm_fully_connected_per_channel_s8(&ctx, &fp, &qp, &fid, in, &fd, l->filter, &bd, l->bias, &fod, out);
        } else {
            cmsis_nn_per_tensor_quant_params tq = { .multiplier = l->mult[0], .shift = l->shift[0] };
            st = arm_fully_connected_s8(&ctx, &fp, &tq, &fid, in, &fd, l->filter, &bd, l->bias, &fod, out);
        }
    } else if (o == RIP_KO_CMSIS_AVGPOOL || o == RIP_KO_CMSIS_MAXPOOL) {
        cmsis_nn_pool_params pp = { .stride = stride, .padding = pad, .activation = act };
        cmsis_nn_dims fd = { .n = 1, .h = (int32_t)g->k_h, .w = (int32_t)g->k_w, .c = 1 };
        if (o == RIP_KO_CMSIS_AVGPOOL) {
            ctx.size = arm_avgpool_s8_get_buffer_size((int)g->w_out, (int)g->c_in);
            ctx.buf = ctx.size > 0 ? xcalloc((size_t)ctx.size, 1) : NULL;
            st = arm_avgpool_s8(&ctx, &pp, &id, in, &fd, &od, out);
        } else {
            st = arm_max_pool_s8(&ctx, &pp, &id, in, &fd, &od, out);
        }
    } else if (o == RIP_KO_CMSIS_ADD) {
        const int8_t *a = l->k == 0 ? in : l->other, *b = l->k == 0 ? l->other : in;
        st = arm_elementwise_add_s8(a, b, l->in_off, 1 << 30, -1, -l->out_off / 2, 1 << 30, -1, 20, out, l->out_off,
                                    1 << 30, -19, -128, 127, (int32_t)g->n_elem);
    }
    free(ctx.buf);
    cr_assert_eq(st, ARM_CMSIS_NN_SUCCESS, "%s refused the layer (status %d, %lldx%lldx%lld -> %lldx%lldx%lld, k %lldx%lld, groups %lld, M %lld, buffer %d)",
                 rip_korder_name(o), (int)st, (long long)g->h_in, (long long)g->w_in, (long long)g->c_in,
                 (long long)g->h_out, (long long)g->w_out, (long long)g->c_out, (long long)g->k_h, (long long)g->k_w,
                 (long long)g->groups, (long long)g->depth_mult, (int)ctx.size);
}

/* The kernel on one buffer: input at buf + d, output at buf; true iff the output equals ref. */
static bool overlapped_equals(const layer *l, const int8_t *in, int64_t n_in, int64_t n_out, int64_t d,
                              const int8_t *ref)
{
    const int64_t size = (d + n_in > n_out ? d + n_in : n_out) + 16;
    int8_t *buf = xcalloc((size_t)size, 1);
    memset(buf, 0x55, (size_t)size);
    memcpy(buf + d, in, (size_t)n_in);
    run_kernel(l, buf + d, buf);
    const bool same = memcmp(buf, ref, (size_t)n_out) == 0;
    free(buf);
    return same;
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
    counts *c = &tally[l->ctx.order];
    c->layers++;
    int8_t *in = xcalloc((size_t)k.n_in, 1), *ref = xcalloc((size_t)k.n_out, 1);
    fill(r, in, k.n_in);
    run_kernel(l, in, ref);
    cr_assert(overlapped_equals(l, in, k.n_in, k.n_out, d, ref), "%s: %s: output differs at the gap %lld",
              what, rip_korder_name(l->ctx.order), (long long)d);
    c->safe++;
    if (d == 0) {
        c->no_overlap_below++;          /* fully in place: nothing below to try */
    } else if (!overlapped_equals(l, in, k.n_in, k.n_out, d - 1, ref)) {
        c->corrupted++;
    } else {
        rip_kt_report rep;
        cr_assert_not(rip_ktrace_run(t, d - 1, &rep));
        bool shown = false;
        for (int i = 0; i < RETRIES && !shown; i++) {
            redraw(r, l);
            fill(r, in, k.n_in);
            run_kernel(l, in, ref);
            shown = !overlapped_equals(l, in, k.n_in, k.n_out, d - 1, ref);
        }
        if (shown) {
            c->redrawn++;
        } else {
            c->same_value++;
            const rip_kgeom *g = &l->ctx.g;
            printf("cmsis_orders: %s: %s: gap %lld: never corrupted at %lld in %d draws (first corrupting "
                   "write: output %lld onto input %lld; %lldx%lldx%lldx%lld -> %lldx%lldx%lld, k %lldx%lld s %lldx%lld "
                   "d %lldx%lld pad %lld,%lld groups %lld M %lld)\n", what, rip_korder_name(l->ctx.order),
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
    switch (l->ctx.order) {
    case RIP_KO_CMSIS_CONV: case RIP_KO_CMSIS_1X1: case RIP_KO_CMSIS_1X1_FAST:
        values(r, l, g->c_out * g->k_h * g->k_w * (g->c_in / g->groups), g->c_out,
               g->k_h * g->k_w * g->c_in / g->groups);
        break;
    case RIP_KO_CMSIS_DW_3X3: case RIP_KO_CMSIS_DW_GENERIC: case RIP_KO_CMSIS_DW_MULT4:
        values(r, l, g->k_h * g->k_w * g->c_out, g->c_out, g->k_h * g->k_w);
        break;
    case RIP_KO_CMSIS_FC:
        values(r, l, g->c_in * g->c_out, g->c_out, g->c_in);
        l->per_channel = rip_pcg32_below(r, 2);
        break;
    case RIP_KO_CMSIS_ADD:
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

/* A random layer of operator kind `kind` (0 conv, 1 depthwise, 2 fc, 3 avg, 4 max, 5 add). */
static layer random_layer(rip_pcg32 *r, int kind)
{
    layer l = { 0 };
    const int64_t c = kg_rnd(r, 1, 9);
    switch (kind) {
    case 0: {
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
        l.ctx.order = rip_cmsis_conv_pick(&l.ctx.g);
        break;
    }
    case 1: {
        const int64_t M = rip_pcg32_below(r, 2) ? 1 : kg_rnd(r, 2, 8);
        const bool three = rip_pcg32_below(r, 2);     /* the 3x3 path (when M = 1) half the time */
        do
            l.ctx.g = kg_window(r, c, c * M, 9, three ? 3 : 4, !three, three ? 1 : 2);
        while (three && (l.ctx.g.k_h != 3 || l.ctx.g.k_w != 3));
        l.ctx.g.depth_mult = M;
        l.ctx.order = rip_cmsis_dw_pick(&l.ctx.g, false);
        break;
    }
    case 2:
        l.ctx.g = (rip_kgeom){ .batches = kg_rnd(r, 1, 3), .h_in = 1, .w_in = 1, .c_in = kg_rnd(r, 1, 40), .h_out = 1,
                               .w_out = 1, .c_out = kg_rnd(r, 1, 12), .k_h = 1, .k_w = 1, .s_h = 1, .s_w = 1,
                               .d_h = 1, .d_w = 1, .groups = 1, .depth_mult = 1 };
        l.ctx.order = RIP_KO_CMSIS_FC;
        break;
    case 3: case 4:
        l.ctx.g = kg_window(r, c, c, 9, 3, false, 2);
        l.ctx.order = kind == 3 ? RIP_KO_CMSIS_AVGPOOL : RIP_KO_CMSIS_MAXPOOL;
        break;
    default:
        l.ctx.g.n_elem = kg_rnd(r, 1, 200);
        l.k = (int)rip_pcg32_below(r, 2);
        l.ctx.order = RIP_KO_CMSIS_ADD;
        break;
    }
    return l;
}

static void print_tally(const char *title)
{
    for (int o = 0; o < RIP_KO_COUNT; o++) {
        const counts *c = &tally[o];
        if (c->layers == 0)
            continue;
        printf("cmsis_orders: %s: %s: %ld layers, %ld safe at the gap, %ld corrupted at gap-1, %ld corrupted "
               "at gap-1 after re-drawing the input, %ld never corrupted at gap-1, %ld at gap 0\n",
               title, rip_korder_name((rip_korder)o), c->layers, c->safe, c->corrupted, c->redrawn, c->same_value,
               c->no_overlap_below);
    }
    fflush(stdout);
}

/* The orders a random layer of each kind reaches (random_layer). */
static const rip_korder kind_orders[6][3] = {
    { RIP_KO_CMSIS_CONV, RIP_KO_CMSIS_1X1, RIP_KO_CMSIS_1X1_FAST },
    { RIP_KO_CMSIS_DW_3X3, RIP_KO_CMSIS_DW_GENERIC, RIP_KO_CMSIS_DW_MULT4 },
    { RIP_KO_CMSIS_FC, RIP_KO_CMSIS_FC, RIP_KO_CMSIS_FC },
    { RIP_KO_CMSIS_AVGPOOL, RIP_KO_CMSIS_AVGPOOL, RIP_KO_CMSIS_AVGPOOL },
    { RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL, RIP_KO_CMSIS_MAXPOOL },
    { RIP_KO_CMSIS_ADD, RIP_KO_CMSIS_ADD, RIP_KO_CMSIS_ADD },
};

static long fewest(int kind)
{
    long n = tally[kind_orders[kind][0]].layers;
    for (int i = 1; i < 3; i++)
        if (tally[kind_orders[kind][i]].layers < n)
            n = tally[kind_orders[kind][i]].layers;
    return n;
}

/* At least N_RANDOM layers of every order (draws of each kind until its rarest order has them).
** Every layer is safe at its gap and corrupted below it, or corrupted after re-draws; the one
** exception allowed is the max pool, whose writes store a max: where every later reader of the
** overwritten input also reads the taps that max came from, the value it reads is absorbed by its own
** max and no output changes (the cases are printed). */
Test(cmsis_orders, random_layers_per_kernel, .timeout = 900)
{
    rip_pcg32 r;
    rip_pcg32_seed(&r, SEED, 7u);
    memset(tally, 0, sizeof tally);
    for (int kind = 0; kind < 6; kind++)
        for (int i = 0; fewest(kind) < N_RANDOM && i < 40000; i++) {
            layer l = random_layer(&r, kind);
            char what[64];
            snprintf(what, sizeof what, "random layer %d of kind %d", i, kind);
            verify_with_values(&r, &l, what);
        }
    print_tally("random");
    for (int o = 0; o < RIP_KO_COUNT; o++) {
        if (tally[o].layers == 0)
            continue;
        cr_expect_geq(tally[o].layers, N_RANDOM, "%s: only %ld layers", rip_korder_name((rip_korder)o),
                      tally[o].layers);
        if (o != RIP_KO_CMSIS_MAXPOOL)
            cr_assert_eq(tally[o].same_value, 0, "%s: a layer never corrupted below its gap",
                         rip_korder_name((rip_korder)o));
    }
}

/* Every modelled operator input of the model at path (CMSIS-NN, host build). */
static long verify_model(rip_pcg32 *r, const char *path)
{
    rip_tfl_model m = { 0 };
    char err[RIP_ERR_LEN];
    long n = 0;
    if (rip_tfl_model_load(path, &m, err) != RIP_OK || rip_tfl_check(&m, err) != RIP_OK) {
        printf("cmsis_orders: %s: not checked (%s): its layers are not verified\n", path, err);
        rip_tfl_model_free(&m);
        return 0;
    }
    const rip_tfl_subgraph *sg = &m.subgraphs[0];
    for (size_t op = 0; op < sg->n_operators; op++)
        for (size_t k = 0; k < sg->operators[op].n_inputs; k++) {
            layer l = { .k = (int)k };
            if (sg->operators[op].inputs[k] < 0 || !rip_tflm_order(&m, op, (int)k, RIP_TFLM_CMSIS_NN, false, &l.ctx))
                continue;
            char what[8600];
            snprintf(what, sizeof what, "%s: operator %zu input %zu", path, op, k);
            verify_with_values(r, &l, what);
            n++;
        }
    printf("cmsis_orders: %s: %ld operator inputs verified\n", path, n);
    rip_tfl_model_free(&m);
    return n;
}

/* The real models: person_detect in the TFLM tree and every .tflite one level under the models
** folder (their geometry; values drawn). */
Test(cmsis_orders, real_model_layers, .timeout = 1800)
{
    rip_pcg32 r;
    rip_pcg32_seed(&r, SEED, 8u);
    memset(tally, 0, sizeof tally);
    long layers = 0, models = 0;
    char path[8400];
    const char *tflm = getenv("RIPSIM_TFLM_PATH"), *root = getenv("RIPSIM_MODELS_PATH");
    if (tflm) {
        snprintf(path, sizeof path, "%s/tflite-micro/tensorflow/lite/micro/models/person_detect.tflite", tflm);
        layers += verify_model(&r, path);
        models++;
    }
    DIR *top = root ? opendir(root) : NULL;
    struct dirent *a;
    while (top && (a = readdir(top)) != NULL) {
        if (a->d_name[0] == '.')
            continue;
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%s", root, a->d_name);
        DIR *sub = opendir(dir);
        struct dirent *b;
        while (sub && (b = readdir(sub)) != NULL) {
            const size_t len = strlen(b->d_name);
            if (len < 8 || strcmp(b->d_name + len - 7, ".tflite") != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, b->d_name);
            layers += verify_model(&r, path);
            models++;
        }
        if (sub)
            closedir(sub);
    }
    if (top)
        closedir(top);
    if (models == 0) {
        printf("cmsis_orders: real_model_layers: skipped: no models (RIPSIM_MODELS_PATH, RIPSIM_TFLM_PATH)\n");
        return;
    }
    print_tally("real models");
    printf("cmsis_orders: real models: %ld operator inputs of %ld models verified\n", layers, models);
    for (int o = 0; o < RIP_KO_COUNT; o++)
        if (o != RIP_KO_CMSIS_MAXPOOL)
            cr_assert_eq(tally[o].same_value, 0, "%s: a layer never corrupted below its gap",
                         rip_korder_name((rip_korder)o));
}
