/*
** test_tflm_orders.c — Criterion suite for the kernel orders
** (src/tflm/kernel_orders.h) and the planner's gap (src/tflm/tflm_orders.h).
**
** Expected values: the compressed streams against the kernels' full loop
** streams at every d (kernel_orders.c says why they agree); person_detect's
** gaps against TFLM's own runs on overlapping plans (the probe in
** ../shared/notes/tflm-probe.md: which offsets gave identical and which
** corrupted outputs under the reference and the CMSIS-NN kernels); the
** planner API's refusals.  The orders themselves are verified against the
** vendored kernels by tests/test_cmsis_orders.c.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernel_orders.h"
#include "kgeom_draw.h"
#include "model_paths.h"
#include "pcg32.h"
#include "skip.h"
#include "tfl_check.h"
#include "tflm_orders.h"

/* The full and the compressed stream of ctx give the same run at every d and the same gap. */
static void same_runs(rip_kctx *ctx)
{
    rip_kt_kernel k;
    cr_assert(rip_korder_kernel(ctx, &k));
    rip_ktrace *a = NULL, *b = NULL;
    char err[RIP_ERR_LEN];
    ctx->full = false;
    cr_assert_eq(rip_ktrace_new(&k, &a, err), RIP_OK, "%s", err);
    rip_kctx full = *ctx;
    full.full = true;
    rip_kt_kernel kf;
    cr_assert(rip_korder_kernel(&full, &kf));
    cr_assert_eq(rip_ktrace_new(&kf, &b, err), RIP_OK, "%s", err);
    for (int64_t d = 0; d <= k.n_out; d++)
        cr_assert_eq(rip_ktrace_run(a, d, NULL), rip_ktrace_run(b, d, NULL), "%s d %lld",
                     rip_korder_name(ctx->order), (long long)d);
    int64_t ga, gb;
    cr_assert_eq(rip_ktrace_gap(a, &ga, err), RIP_OK, "%s", err);
    cr_assert_eq(rip_ktrace_gap(b, &gb, err), RIP_OK, "%s", err);
    cr_assert_eq(ga, gb);
    rip_ktrace_free(a);
    rip_ktrace_free(b);
}

Test(tflm_orders, compressed_streams_equal_the_full_loops)
{
    rip_pcg32 r;
    rip_pcg32_seed(&r, 20261202u, 1u);
    for (int i = 0; i < 300; i++) {
        const int64_t groups = kg_rnd(&r, 1, 2), kc = kg_rnd(&r, 1, 3), cpg = kg_rnd(&r, 1, 3);
        rip_kctx conv = { .order = RIP_KO_REF_CONV, .g = kg_window(&r, groups * kc, groups * cpg, 7, 3, true, 2) };
        conv.g.groups = groups;
        same_runs(&conv);
        const int64_t M = kg_rnd(&r, 1, 3), c = kg_rnd(&r, 1, 3);
        rip_kctx dw = { .order = RIP_KO_REF_DW, .g = kg_window(&r, c, c * M, 7, 3, true, 2) };
        dw.g.depth_mult = M;
        same_runs(&dw);
        rip_kctx fc = { .order = RIP_KO_REF_FC,
                        .g = { .batches = kg_rnd(&r, 1, 3), .h_in = 1, .w_in = 1, .c_in = kg_rnd(&r, 1, 6),
                               .h_out = 1, .w_out = 1, .c_out = kg_rnd(&r, 1, 6), .k_h = 1, .k_w = 1, .s_h = 1,
                               .s_w = 1, .d_h = 1, .d_w = 1, .groups = 1, .depth_mult = 1 } };
        same_runs(&fc);
    }
}

/* Hand-checked: a 1x1 stride-1 reference conv, P pixels, cin -> cout: pixel p writes channels
** 0..cout-2 while its own cin inputs are still to be read, the largest failing d being
** p*cout + cout-2 - p*cin; at the last pixel that is (P-1)(cout-cin) + cout - 2, so the gap is one
** more (cout > cin).  CMSIS-NN's 1x1 fast path re-reads every pixel for each channel pair, the odd
** channel 6 last: pair (4, 5) writes output 19*7 + 5 = 138 while input 0 is still to be read, so
** only the very last output scalar (139, written after every read) may overlap: gap N_out - 1. */
Test(tflm_orders, hand_1x1_conv)
{
    rip_kctx c = { .order = RIP_KO_REF_CONV,
                   .g = { .batches = 1, .h_in = 4, .w_in = 5, .c_in = 3, .h_out = 4, .w_out = 5, .c_out = 7, .k_h = 1,
                          .k_w = 1, .s_h = 1, .s_w = 1, .d_h = 1, .d_w = 1, .groups = 1, .depth_mult = 1 } };
    int64_t gap;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK);
    cr_assert_eq(gap, 19 * (7 - 3) + 7 - 2 + 1);
    c.order = rip_cmsis_conv_pick(&c.g);
    cr_assert_eq(c.order, RIP_KO_CMSIS_1X1_FAST);
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK);
    cr_assert_eq(gap, 139);
    c.order = RIP_KO_REF_ADD;
    c.g.n_elem = 9;
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK);
    cr_assert_eq(gap, 0);
}

static bool load_person_detect(rip_tfl_model *m)
{
    const char *root = getenv("RIPSIM_TFLM_PATH");
    char path[4096], err[RIP_ERR_LEN];
    if (root == NULL)
        return false;
    snprintf(path, sizeof path, "%s/tflite-micro/tensorflow/lite/micro/models/person_detect.tflite", root);
    if (rip_tfl_model_load(path, m, err) != RIP_OK)
        return false;
    cr_assert_eq(rip_tfl_check(m, err), RIP_OK, "%s", err);
    return true;
}

static int64_t gap_of(const rip_tfl_model *m, size_t op, rip_tflm_lib lib)
{
    int64_t gap = -7;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tflm_overlap_gap(m, op, 0, lib, &gap, err), RIP_OK, "%s", err);
    return gap;
}

/* TFLM's runs (tflm-probe.md): op 2 (1x1 conv 8->16) identical at 18,448, corrupted at 18,432 with
** the reference kernels, corrupted at 18,448 with CMSIS-NN; op 5 (3x3 depthwise 24x24x32) identical
** at 800, corrupted at 784 with both; op 6 (1x1 conv 32->32) identical at 32 with the reference
** kernels, corrupted with CMSIS-NN. */
Test(tflm_orders, person_detect_agrees_with_tflm_runs)
{
    rip_tfl_model m = { 0 };
    if (!load_person_detect(&m)) {
        rip_tfl_model_free(&m);
        rip_skip("no person_detect.tflite in a TFLite Micro tree (RIPSIM_TFLM_PATH)");
    }
    const int64_t r2 = gap_of(&m, 2, RIP_TFLM_REFERENCE), c2 = gap_of(&m, 2, RIP_TFLM_CMSIS_NN);
    cr_assert(r2 > 18432 && r2 <= 18448, "op 2 reference gap %lld", (long long)r2);
    cr_assert(c2 == -1 || c2 > 18448, "op 2 CMSIS-NN gap %lld", (long long)c2);
    for (int lib = 0; lib < 2; lib++) {
        const int64_t g5 = gap_of(&m, 5, (rip_tflm_lib)lib);
        cr_assert(g5 > 784 && g5 <= 800, "op 5 gap %lld (lib %d)", (long long)g5, lib);
    }
    const int64_t r6 = gap_of(&m, 6, RIP_TFLM_REFERENCE), c6 = gap_of(&m, 6, RIP_TFLM_CMSIS_NN);
    cr_assert(r6 >= 0 && r6 <= 32, "op 6 reference gap %lld", (long long)r6);
    cr_assert(c6 == -1 || c6 > 32, "op 6 CMSIS-NN gap %lld", (long long)c6);
    cr_log_info("person_detect: op 2 %lld / %lld, op 6 %lld / %lld (reference / CMSIS-NN)", (long long)r2,
                (long long)c2, (long long)r6, (long long)c6);
    rip_tfl_model_free(&m);
}

Test(tflm_orders, out_of_range_is_bad_data)
{
    rip_tfl_model m = { 0 };
    if (!load_person_detect(&m)) {
        rip_tfl_model_free(&m);
        rip_skip("no person_detect.tflite in a TFLite Micro tree (RIPSIM_TFLM_PATH)");
    }
    int64_t gap = 5;
    char err[RIP_ERR_LEN] = "";
    cr_assert_eq(rip_tflm_overlap_gap(&m, m.subgraphs[0].n_operators, 0, RIP_TFLM_REFERENCE, &gap, err),
                 RIP_S_DATA);
    cr_assert(err[0] != '\0');
    cr_assert_eq(rip_tflm_overlap_gap(&m, 0, 7, RIP_TFLM_REFERENCE, &gap, err), RIP_S_DATA);
    cr_assert_eq(rip_tflm_overlap_gap(&m, 0, -1, RIP_TFLM_CMSIS_NN, &gap, err), RIP_S_DATA);
    cr_assert_eq(gap, 5);
    /* A constant input (the filter) is never overlapped. */
    cr_assert_eq(rip_tflm_overlap_gap(&m, 0, 1, RIP_TFLM_REFERENCE, &gap, err), RIP_OK);
    cr_assert_eq(gap, -1);
    rip_tfl_model_free(&m);
}

typedef struct walk {
    long inputs, modelled[2], none[2];
} walk;

/* Every operator input of a model under both libraries: RIP_OK, and a gap of -1 or in [0, N_out). */
static void every_input(const char *path, void *ctx)
{
    walk *w = ctx;
    rip_tfl_model m = { 0 };
    char err[RIP_ERR_LEN];
    if (rip_tfl_model_load(path, &m, err) != RIP_OK || rip_tfl_check(&m, err) != RIP_OK) {
        rip_tfl_model_free(&m);
        return;
    }
    const rip_tfl_subgraph *sg = &m.subgraphs[0];
    for (size_t op = 0; op < sg->n_operators; op++)
        for (size_t k = 0; k < sg->operators[op].n_inputs; k++) {
            if (sg->operators[op].inputs[k] < 0)
                continue;
            w->inputs++;
            for (int lib = 0; lib < 2; lib++) {
                int64_t gap = -7, n_out, bytes;
                cr_assert_eq(rip_tflm_overlap_gap(&m, op, (int)k, (rip_tflm_lib)lib, &gap, err), RIP_OK, "%s", err);
                cr_assert(rip_tfl_tensor_bytes(&sg->tensors[sg->operators[op].outputs[0]], &n_out, &bytes));
                cr_assert(gap == -1 || (gap >= 0 && gap < bytes), "%s op %zu: gap %lld", path, op, (long long)gap);
                rip_kctx c;
                if (rip_tflm_order(&m, op, (int)k, (rip_tflm_lib)lib, false, &c))
                    w->modelled[lib]++;
                if (gap < 0)
                    w->none[lib]++;
            }
        }
    rip_tfl_model_free(&m);
}

Test(tflm_orders, every_real_model_input_has_a_gap, .timeout = 600)
{
    walk w = { 0 };
    if (each_model(every_input, &w) == 0) {
        rip_skip("no real models (RIPSIM_MODELS_PATH, RIPSIM_TFLM_PATH)");
    }
    printf("tflm_orders: real models: %ld operator inputs; modelled: %ld reference, %ld CMSIS-NN; gap -1 (never "
           "overlapped): %ld reference, %ld CMSIS-NN\n", w.inputs, w.modelled[0], w.modelled[1], w.none[0], w.none[1]);
    fflush(stdout);
}

/* The CMSIS-NN function TFLM's wrappers reach, read from arm_convolve_wrapper_s8.c and
** arm_depthwise_conv_wrapper_s8.c (v7.0.0, not MVE) and arm_depthwise_conv_s8.c's own test. */
Test(tflm_orders, cmsis_wrapper_picks)
{
    rip_kgeom g = { .batches = 1, .h_in = 8, .w_in = 8, .c_in = 4, .h_out = 8, .w_out = 8, .c_out = 4, .k_h = 1,
                    .k_w = 1, .s_h = 1, .s_w = 1, .d_h = 1, .d_w = 1, .groups = 1, .depth_mult = 1 };
    cr_assert_eq(rip_cmsis_conv_pick(&g), RIP_KO_CMSIS_1X1_FAST);       /* 1x1, no padding, stride 1 */
    g.s_w = 2;
    cr_assert_eq(rip_cmsis_conv_pick(&g), RIP_KO_CMSIS_1X1);            /* 1x1, a stride above 1 */
    g.s_w = 1;
    g.groups = 2;
    cr_assert_eq(rip_cmsis_conv_pick(&g), RIP_KO_CMSIS_CONV);           /* input_dims->c != filter_dims->c */
    g.groups = 1;
    g.k_h = g.k_w = 3;
    g.pad_top = g.pad_left = 1;
    cr_assert_eq(rip_cmsis_conv_pick(&g), RIP_KO_CMSIS_CONV);
    g.h_in = g.h_out = 1;
    g.k_h = 1;
    g.pad_top = 0;
    cr_assert_eq(rip_cmsis_conv_pick(&g), RIP_KO_CMSIS_CONV);           /* 1 x N: arm_convolve_s8 inside */
    g = (rip_kgeom){ .batches = 1, .h_in = 8, .w_in = 8, .c_in = 4, .h_out = 8, .w_out = 8, .c_out = 4, .k_h = 3,
                     .k_w = 3, .s_h = 1, .s_w = 1, .d_h = 1, .d_w = 1, .pad_top = 1, .pad_left = 1, .groups = 1,
                     .depth_mult = 1 };
    cr_assert_eq(rip_cmsis_dw_pick(&g, false), RIP_KO_CMSIS_DW_3X3);
    cr_assert_eq(rip_cmsis_dw_pick(&g, true), RIP_KO_CMSIS_DW_3X3);
    g.k_h = g.k_w = 5;
    g.pad_top = g.pad_left = 2;
    cr_assert_eq(rip_cmsis_dw_pick(&g, false), RIP_KO_CMSIS_DW_GENERIC); /* _opt falls back without DSP */
    cr_assert_eq(rip_cmsis_dw_pick(&g, true), RIP_KO_CMSIS_DW_OPT_DSP);
    g.k_h = g.k_w = 3;
    g.pad_top = 2;                                                       /* padding above 1: not the 3x3 path */
    cr_assert_eq(rip_cmsis_dw_pick(&g, false), RIP_KO_CMSIS_DW_GENERIC);
    g.pad_top = 1;
    g.batches = 2;
    cr_assert_eq(rip_cmsis_dw_pick(&g, true), RIP_KO_CMSIS_DW_GENERIC);  /* the wrapper's n == 1 test */
    g.batches = 1;
    g.depth_mult = 4;
    g.c_out = 16;
    cr_assert_eq(rip_cmsis_dw_pick(&g, false), RIP_KO_CMSIS_DW_MULT4);
    g.d_w = 2;
    cr_assert_eq(rip_cmsis_dw_pick(&g, false), RIP_KO_CMSIS_DW_GENERIC); /* mult_4 wants no dilation */
    g.d_w = 1;
    g.depth_mult = 2;
    g.c_out = 8;
    cr_assert_eq(rip_cmsis_dw_pick(&g, true), RIP_KO_CMSIS_DW_GENERIC);
}

/* Hand-checked PAD of one row of 3 scalars, one before and one after (output 5).  Reference
** (PadImpl): W0, R0 W1, R1 W2, R2 W3, W4; output j lands on input j - d: at d = 0 the write of 0
** hits input 0 before its read; at d = 1 every write lands on a read scalar or outside: gap 1, the
** padding before.  arm_pad_s8: memset 0, memcpy(1..3 <- 0..2), memset 4; the copy is modelled as
** its writes before its reads, so its destination must clear its source and every later read:
** writes 1..3 must land below input 0, d >= 4 (= padding before + the row), the memset of 4 then
** lands on input 0, already read.  Channel padding (2 channels, 1 before) makes one memcpy per
** pixel: 1x2x1 -> 1x2x2, outputs [p, i0, p, i1]: reference W0, R0 W1, W2, R1 W3: at d = 1, W2 hits
** input 1 unread; d = 2: every write lands on a read scalar: gap 2.  CMSIS-NN: W0, W1 R0, W2,
** W3 R1: at d = 1, W1 lands on input 0 before its read; at d = 2, W3 on input 1 before its read;
** at d = 3 nothing does: gap 3.  QUANTIZE float32 -> int8: output i is written after element i's 4 bytes are
** read, and lands on byte i <= 4i: gap 0. */
Test(tflm_orders, hand_pad_and_quantize)
{
    int64_t gap;
    char err[RIP_ERR_LEN];
    rip_kctx c = { .order = RIP_KO_REF_PAD,
                   .g = { .batches = 1, .h_in = 1, .w_in = 3, .c_in = 1, .batches_out = 1, .h_out = 1, .w_out = 5,
                          .c_out = 1, .pad_left = 1 } };
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK, "%s", err);
    cr_assert_eq(gap, 1);
    c.order = RIP_KO_CMSIS_PAD;
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK, "%s", err);
    cr_assert_eq(gap, 4);
    c.g = (rip_kgeom){ .batches = 1, .h_in = 1, .w_in = 2, .c_in = 1, .batches_out = 1, .h_out = 1, .w_out = 2,
                       .c_out = 2, .pad_depth = 1 };
    c.order = RIP_KO_REF_PAD;
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK, "%s", err);
    cr_assert_eq(gap, 2);
    c.order = RIP_KO_CMSIS_PAD;
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK, "%s", err);
    cr_assert_eq(gap, 3);
    c.g.pad_depth = 2;                      /* padding wider than the output: not a geometry */
    rip_kt_kernel k;
    cr_assert_not(rip_korder_kernel(&c, &k));
    c = (rip_kctx){ .order = RIP_KO_REF_QUANTIZE, .g = { .n_elem = 5, .in_bytes = 4 } };
    cr_assert(rip_korder_kernel(&c, &k));
    cr_assert_eq(k.n_in, 20);
    cr_assert_eq(k.n_out, 5);
    cr_assert_eq(rip_kctx_gap(&c, &gap, err), RIP_OK, "%s", err);
    cr_assert_eq(gap, 0);
}
