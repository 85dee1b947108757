/*
** test_paper.c — the paper's own numbers, closed form AND simulator.
**
** Tab. 2 (all seven rows), the Appendix I worked workspaces at full size,
** the F.4 loose example, and Lemma 9 / Corollary 1 / Theorem 11 over every
** small restricted layer.  Expected values are the paper's printed numbers or
** identities the paper proves, never output of the code under test.
*/
#include <criterion/criterion.h>
#include <stdio.h>

#include "evaluate.h"
#include "formulas.h"
#include "sim.h"
#include "spec.h"

static rip_layer parse(const char *spec)
{
    rip_layer L;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_spec_parse(spec, &L, err), 0, "%s: %s", spec, err);
    return L;
}

static int64_t truth(const rip_layer *L, rip_config e, rip_engine engine)
{
    int64_t g = -1;
    cr_assert_eq(rip_sim_truth(L, e, engine, &g), 0, "simulator out of memory");
    return g;
}

/* Tab. 2: C_in, C_out, k, H=W, G&M, Truth; Corollary 1 reproduces Truth. */
static const struct { int cin, cout, k, h; int64_t gm, truth; } tab2[] = {
    {1, 5, 3, 14, 531, 533},   {5, 8, 3, 12, 148, 149},      {8, 11, 3, 10, 45, 46},
    {3, 4, 5, 8, 79, 7},       {8, 9, 7, 9, 2081, 11},       {16, 17, 9, 12, 15520, 20},
    {16, 17, 15, 18, 48640, 20},
};

Test(paper, table2_every_row_formula_and_simulator)
{
    for (size_t i = 0; i < sizeof tab2 / sizeof tab2[0]; i++) {
        char spec[96];
        snprintf(spec, sizeof spec, "cin=%d,cout=%d,h=%d,k=%d", tab2[i].cin, tab2[i].cout,
                 tab2[i].h, tab2[i].k);
        rip_layer L = parse(spec);
        int64_t gm = -1, c1 = -1;
        cr_expect(rip_gm2019_eq1(&L, &gm), "%s: Eq. 1 defined", spec);
        cr_expect_eq(gm, tab2[i].gm, "%s: G&M %lld, paper %lld", spec, (long long)gm, (long long)tab2[i].gm);
        cr_expect(rip_corollary1(&L, &c1));
        cr_expect_eq(c1, tab2[i].truth, "%s: Corollary 1 %lld, paper truth %lld", spec,
                     (long long)c1, (long long)tab2[i].truth);
        cr_expect_eq(rip_thm11(&L), tab2[i].truth, "%s: Theorem 11", spec);
        for (int engine = 0; engine < 2; engine++)
            cr_expect_eq(truth(&L, RIP_CONFIG_HB_TAPS, (rip_engine)engine), tab2[i].truth,
                         "%s: simulated herringbone truth (engine %d)", spec, engine);
    }
}

/* Appendix I: dense layout, sigma = 0, workspace = gap + H_in W_in C_in. */
Test(paper, appendix_i_worked_workspaces_full_size, .timeout = 600)
{
    static const struct { const char *spec; int64_t workspace; } rows[] = {
        {"cin=64,cout=64,h=224,k=3,p=1", 3225664}, /* VGG-16 conv1_2 */
        {"cin=32,cout=64,h=147,k=3,p=1", 1387680}, /* Inception-v3 stem */
    };
    for (size_t i = 0; i < 2; i++) {
        rip_layer L = parse(rows[i].spec);
        int64_t gap = -1;
        cr_assert(rip_thm13(&L, RIP_SIGMA_GATHER, &gap));
        cr_expect_eq(gap + L.n_in_dense, rows[i].workspace, "%s: Theorem 13 workspace %lld",
                     rows[i].spec, (long long)(gap + L.n_in_dense));
        int64_t t = truth(&L, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST);
        cr_expect_eq(t + L.n_in_dense, rows[i].workspace, "%s: simulated workspace %lld",
                     rows[i].spec, (long long)(t + L.n_in_dense));
    }
}

/* F.4: the simplest loose configuration. */
Test(paper, f4_example_theorem13_is_safe_but_loose)
{
    rip_layer L = parse("cin=2,cout=2,h=1,w=1,k=1x2,d=1x2,p=0x1");
    int64_t gap = -1;
    cr_assert(rip_thm13(&L, RIP_SIGMA_TAPS, &gap));
    cr_expect_eq(gap, 2);
    for (int engine = 0; engine < 2; engine++)
        cr_expect_eq(truth(&L, RIP_CONFIG_DENSE_TAPS, (rip_engine)engine), 0);
}

/*
** Lemma 9 over every restricted layer with C_in, C_out <= 12, k in
** {1,3,5,7}, H <= 12: the G&M shortfall equals (k-1)C_in mod (C_out-C_in)
** whenever floor(x*) <= W_out - 1; Corollary 1 and Theorem 11 equal the
** simulated herringbone truth everywhere.
*/
Test(paper, lemma9_and_corollary1_exhaustive_small, .timeout = 600)
{
    static const int ks[] = {1, 3, 5, 7};
    long layers = 0, lemma9_cases = 0, bad_lemma9 = 0, bad_c1 = 0, bad_t11 = 0;
    for (int cin = 1; cin <= 12; cin++)
        for (int cout = 1; cout <= 12; cout++)
            for (int ki = 0; ki < 4; ki++)
                for (int h = ks[ki]; h <= 12; h++) {
                    int k = ks[ki];
                    rip_layer L = rip_layer_make(cin, cout, h, h, k, k, 1, 1, 1, 1, 0, 0);
                    char err[RIP_ERR_LEN];
                    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
                    cr_assert(rip_layer_is_restricted(&L));
                    int64_t t = truth(&L, RIP_CONFIG_HB_TAPS, RIP_ENGINE_FAST);
                    int64_t c1 = -1, gm = -1;
                    cr_assert(rip_corollary1(&L, &c1));
                    layers++;
                    if (c1 != t && bad_c1++ < 5)
                        cr_log_error("corollary1 %lld != truth %lld at cin=%d,cout=%d,h=%d,k=%d",
                                     (long long)c1, (long long)t, cin, cout, h, k);
                    int64_t t11 = rip_thm11(&L);
                    if (t11 != t && bad_t11++ < 5)
                        cr_log_error("thm11 %lld != truth %lld at cin=%d,cout=%d,h=%d,k=%d",
                                     (long long)t11, (long long)t, cin, cout, h, k);
                    if (cout > cin) {
                        cr_assert(rip_gm2019_eq1(&L, &gm));
                        int64_t rho = (int64_t)(k - 1) * cin, a = cout - cin;
                        if (rho / a <= L.w_out - 1) {
                            lemma9_cases++;
                            if (t - gm != rho % a && bad_lemma9++ < 5)
                                cr_log_error("Lemma 9: shortfall %lld != %lld at cin=%d,cout=%d,h=%d,k=%d",
                                             (long long)(t - gm), (long long)(rho % a), cin, cout, h, k);
                        }
                    }
                }
    cr_log_info("Lemma 9 sweep: %ld restricted layers, %ld in Lemma 9's range", layers, lemma9_cases);
    cr_expect_gt(lemma9_cases, 1000);
    cr_expect_eq(bad_lemma9, 0, "%ld Lemma 9 mismatches", bad_lemma9);
    cr_expect_eq(bad_c1, 0, "%ld Corollary 1 mismatches", bad_c1);
    cr_expect_eq(bad_t11, 0, "%ld Theorem 11 mismatches", bad_t11);
}
