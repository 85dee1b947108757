/*
** test_tflm_thm4.c — the paper's closed forms for "taps read from memory"
** against the truth of TFLM's reference CONV_2D order (issue 21, item 1):
** the trace engine on RIP_KO_REF_CONV, which the tflm_ref_orders suite
** verifies against TFLM's kernel.  A finding, reported layer by layer, not a
** value bent to agree.
**
** The layouts coincide: TFLM's output at X, its dense input at X + d, is the
** simulator's dense layout with gap d (sim/README.md).  The orders differ in
** one place: TFLM writes a pixel's last output channel after its last read
** of the pixel's field, so an input scalar whose last reader is that pixel
** is dead at that one write (the simulator's taps rule keeps it live for
** every channel), and TFLM has no workspace end (the simulator's overflow
** bound Delta >= N_out - N_in).  Hence, asserted on every layer:
**   sim gather truth <= max(TFLM gap, N_out - N_in)   and   TFLM gap <= sim taps truth.
** Compared and reported: Theorem 13 with sigma = C_out (the dense layout's
** closed form, where defined) and Theorem 4 with sigma = C_out (the padded
** layout's; the same layout as TFLM's only without padding), each against
** the TFLM gap and against max(TFLM gap, N_out - N_in) (the gap with the
** simulator's workspace end).  Measured: on every conv layer of the real
** models the TFLM gap is the taps closed form minus one (the last channel's
** write, after the field's last read, is the one the closed form's sigma =
** C_out charges); random layers add those where the workspace end or the
** gather-like last write decides.
*/
#include <criterion/criterion.h>
#include <stdio.h>

#include "formulas.h"
#include "kgeom_draw.h"
#include "model_paths.h"
#include "sim.h"
#include "skip.h"
#include "tfl_check.h"
#include "tflm_orders.h"

typedef struct finding {
    long layers, thm13_defined, thm13_equal, thm13_equal_ws, thm13_minus_one, thm4_nopad, thm4_equal, thm4_equal_ws,
        thm4_minus_one;
    int printed;
} finding;

/* The rip_layer of a one-batch, one-group geometry (padding after = what TFLite's total leaves). */
static rip_layer layer_of(const rip_kgeom *g)
{
    rip_layer L = rip_layer_make(g->c_in, g->c_out, g->h_in, g->w_in, g->k_h, g->k_w, g->s_h, g->s_w, g->d_h,
                                 g->d_w, 0, 0);
    const int64_t th = (g->h_out - 1) * g->s_h + (g->k_h - 1) * g->d_h + 1 - g->h_in;
    const int64_t tw = (g->w_out - 1) * g->s_w + (g->k_w - 1) * g->d_w + 1 - g->w_in;
    L.p_top = g->pad_top;
    L.p_left = g->pad_left;
    L.p_bottom = th - g->pad_top > 0 ? th - g->pad_top : 0;
    L.p_right = tw - g->pad_left > 0 ? tw - g->pad_left : 0;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    cr_assert_eq(L.h_out, g->h_out);
    cr_assert_eq(L.w_out, g->w_out);
    return L;
}

/* Compare one layer; what names it in the report (NULL: report only the first few). */
static void compare(const rip_kgeom *g, const char *what, finding *f)
{
    rip_kctx ctx = { .order = RIP_KO_REF_CONV, .g = *g };
    int64_t tflm;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_kctx_gap(&ctx, &tflm, err), RIP_OK, "%s", err);
    const rip_layer L = layer_of(g);
    if (tflm < 0)
        tflm = L.n_out;
    int64_t taps, gather;
    cr_assert_eq(rip_sim_truth(&L, RIP_CONFIG_DENSE_TAPS, RIP_ENGINE_FAST, &taps), 0);
    cr_assert_eq(rip_sim_truth(&L, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST, &gather), 0);
    const int64_t ws = L.n_out - L.n_in_dense, with_end = tflm > ws ? tflm : ws;
    cr_assert_leq(tflm, taps, "%s: TFLM gap %lld above the simulator's taps truth %lld", what ? what : "random",
                  (long long)tflm, (long long)taps);
    cr_assert_geq(with_end, gather, "%s: TFLM gap %lld (with the end %lld) below the gather truth %lld",
                  what ? what : "random", (long long)tflm, (long long)with_end, (long long)gather);
    f->layers++;
    int64_t t13 = -1;
    const bool has13 = rip_thm13(&L, RIP_SIGMA_TAPS, &t13);
    const bool nopad = L.p_top == 0 && L.p_bottom == 0 && L.p_left == 0 && L.p_right == 0;
    const int64_t t4 = rip_thm4(&L, RIP_SIGMA_TAPS);
    f->thm13_defined += has13;
    f->thm13_equal += has13 && t13 == tflm;
    f->thm13_equal_ws += has13 && t13 == with_end;
    f->thm13_minus_one += has13 && t13 - 1 == with_end;
    f->thm4_nopad += nopad;
    f->thm4_equal += nopad && t4 == tflm;
    f->thm4_equal_ws += nopad && t4 == with_end;
    f->thm4_minus_one += nopad && t4 - 1 == with_end;
    /* Every differing model layer; of the random ones the first few that differ by more than one. */
    const bool differs = (has13 && t13 != with_end) || (nopad && t4 != with_end);
    const bool beyond_one = has13 && t13 != with_end && t13 - 1 != with_end;
    if ((what != NULL && differs) || (what == NULL && beyond_one && f->printed < 10)) {
        f->printed++;
        printf("tflm_thm4: %s: %lldx%lldx%lld -> %lldx%lldx%lld k %lldx%lld s %lldx%lld d %lldx%lld pad %lld,%lld,%lld,%lld: "
               "TFLM gap %lld (with the workspace end %lld), sim taps %lld, gather %lld, Thm 13 taps %s%lld, "
               "Thm 4 taps %lld%s\n",
               what ? what : "random", (long long)g->h_in, (long long)g->w_in, (long long)g->c_in,
               (long long)g->h_out, (long long)g->w_out, (long long)g->c_out, (long long)g->k_h, (long long)g->k_w,
               (long long)g->s_h, (long long)g->s_w, (long long)g->d_h, (long long)g->d_w, (long long)L.p_top,
               (long long)L.p_bottom, (long long)L.p_left, (long long)L.p_right, (long long)tflm,
               (long long)with_end, (long long)taps, (long long)gather, has13 ? "" : "undefined ",
               (long long)(has13 ? t13 : 0), (long long)t4, nopad ? "" : " (padded layout: not TFLM's)");
    }
}

static void report(const char *title, const finding *f)
{
    printf("tflm_thm4: %s: %ld layers; Thm 13 (taps) defined on %ld, equal to the TFLM gap on %ld, to it with "
           "the workspace end on %ld, one above that on %ld; no padding (Thm 4 = dense) on %ld, Thm 4 (taps) "
           "equal on %ld, with the end on %ld, one above that on %ld\n", title, f->layers, f->thm13_defined,
           f->thm13_equal, f->thm13_equal_ws, f->thm13_minus_one, f->thm4_nopad, f->thm4_equal, f->thm4_equal_ws,
           f->thm4_minus_one);
    fflush(stdout);
}

Test(tflm_thm4, random_layers)
{
    rip_pcg32 r;
    rip_pcg32_seed(&r, 20261202u, 9u);
    finding f = { 0 };
    for (int i = 0; i < 2000; i++) {
        rip_kgeom g = kg_window(&r, kg_rnd(&r, 1, 8), kg_rnd(&r, 1, 8), 12, 4, true, 1);
        compare(&g, NULL, &f);
    }
    report("random", &f);
}

static void model_convs(const char *path, void *ctx)
{
    finding *f = ctx;
    rip_tfl_model m = { 0 };
    char err[RIP_ERR_LEN];
    if (rip_tfl_model_load(path, &m, err) == RIP_OK && rip_tfl_check(&m, err) == RIP_OK) {
        for (size_t op = 0; op < m.subgraphs[0].n_operators; op++) {
            rip_kctx ctx2;
            if (!rip_tflm_order(&m, op, 0, RIP_TFLM_REFERENCE, false, &ctx2) || ctx2.order != RIP_KO_REF_CONV ||
                ctx2.g.batches != 1 || ctx2.g.groups != 1)
                continue;
            char what[8500];
            snprintf(what, sizeof what, "%s op %zu", path, op);
            compare(&ctx2.g, what, f);
        }
    }
    rip_tfl_model_free(&m);
}

Test(tflm_thm4, every_conv_of_the_real_models)
{
    finding f = { 0 };
    if (each_model(model_convs, &f) == 0) {
        rip_skip("no real models (RIPSIM_MODELS_PATH, RIPSIM_TFLM_PATH)");
    }
    report("real models", &f);
}
