/*
** test_crosscheck.c — every closed form against the simulator on seeded
** random general layers: rectangular kernels, stride, dilation, asymmetric
** padding, thin and single-row/column outputs, C_out < C_in.
**
** It prints the verdict counts per formula and the first layers of every
** unsafe or loose verdict, and fails on any unsafe verdict of corollary1,
** thm11, thm4 or thm13.  Nothing is special-cased: a disagreement is a
** finding to report, not a layer to skip.
*/
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "evaluate.h"
#include "spec.h"

/* splitmix64: a self-contained stream for this test (the sweep uses PCG32). */
static uint64_t sm_state;
static uint64_t sm_next(void)
{
    uint64_t z = (sm_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int64_t draw(int64_t lo, int64_t hi) { return lo + (int64_t)(sm_next() % (uint64_t)(hi - lo + 1)); }

/* One random layer; shape picks the regime so thin outputs are common. */
static bool random_layer(rip_layer *L)
{
    int shape = (int)draw(0, 5);
    rip_layer l = {0};
    l.cin = draw(1, 12);
    l.cout = draw(1, 12);
    l.k_h = draw(1, 5);
    l.k_w = draw(1, 5);
    l.s_h = draw(1, 3);
    l.s_w = draw(1, 3);
    l.d_h = draw(1, 3);
    l.d_w = draw(1, 3);
    int64_t keh = l.d_h * (l.k_h - 1) + 1, kew = l.d_w * (l.k_w - 1) + 1;
    /* mostly inside Theorem 13's precondition p < k_eff, sometimes at it */
    int64_t ph = draw(0, 5) == 0 ? keh : keh - 1, pw = draw(0, 5) == 0 ? kew : kew - 1;
    l.p_top = draw(0, ph);
    l.p_bottom = draw(0, ph);
    l.p_left = draw(0, pw);
    l.p_right = draw(0, pw);
    l.h_in = draw(1, 16);
    l.w_in = draw(1, 16);
    if (shape == 1 || shape == 2) { /* one output row (1) or column (2) */
        int64_t *in = shape == 1 ? &l.h_in : &l.w_in;
        int64_t ke = shape == 1 ? keh : kew, s = shape == 1 ? l.s_h : l.s_w;
        int64_t pad = shape == 1 ? l.p_top + l.p_bottom : l.p_left + l.p_right;
        *in = ke + draw(0, s - 1) - pad;
    } else if (shape == 3) { /* small herringbone grids */
        l.h_in = keh + draw(0, 3) * l.s_h - l.p_top - l.p_bottom;
        l.w_in = kew + draw(0, 3) * l.s_w - l.p_left - l.p_right;
    } else if (shape == 5) { /* Gural & Murmann's restricted setting */
        l.k_h = l.k_w = 2 * draw(0, 3) + 1;
        l.s_h = l.s_w = l.d_h = l.d_w = 1;
        l.p_top = l.p_bottom = l.p_left = l.p_right = 0;
        l.h_in = l.w_in = l.k_h + draw(0, 12);
    }
    char err[RIP_ERR_LEN];
    if (rip_layer_derive(&l, err) != 0)
        return false;
    *L = l;
    return true;
}

Test(crosscheck, random_general_layers_against_simulator, .timeout = 900)
{
    enum { N = 4000 };
    long counts[RIP_MAX_FORMULAS][4] = {{0}};
    long logged[RIP_MAX_FORMULAS] = {0};
    const rip_formula_info *info = NULL;
    size_t nf = 0;
    sm_state = 20261129;
    long made = 0, tries = 0;
    while (made < N) {
        rip_layer L;
        tries++;
        if (!random_layer(&L))
            continue;
        made++;
        rip_eval ev;
        char err[RIP_ERR_LEN];
        cr_assert_eq(rip_evaluate(&L, RIP_ENGINE_FAST, true, &ev, err), 0, "%s", err);
        info = ev.info;
        nf = ev.n_formulas;
        for (size_t i = 0; i < nf; i++) {
            counts[i][ev.verdict[i]]++;
            if ((ev.verdict[i] == RIP_UNSAFE || ev.verdict[i] == RIP_LOOSE) && logged[i] < 3) {
                logged[i]++;
                char spec[256];
                rip_spec_format(&L, spec, sizeof spec);
                fprintf(stderr, "  %-12s %-6s value %lld truth %lld  %s\n", info[i].name,
                        rip_verdict_name(ev.verdict[i]), (long long)ev.value[i],
                        (long long)ev.truth[ev.judged_by[i]], spec);
            }
        }
    }
    fprintf(stderr, "cross-check: %ld random layers (%ld draws)\n", made, tries);
    fprintf(stderr, "  %-16s %8s %8s %8s %8s\n", "formula", "unsafe", "tight", "loose", "n/a");
    for (size_t i = 0; i < nf; i++)
        fprintf(stderr, "  %-16s %8ld %8ld %8ld %8ld\n", info[i].name, counts[i][RIP_UNSAFE],
                counts[i][RIP_TIGHT], counts[i][RIP_LOOSE], counts[i][RIP_NA]);
    for (size_t i = 0; i < nf; i++) {
        const char *n = info[i].name;
        if (strcmp(n, "corollary1") == 0 || strcmp(n, "thm11") == 0 ||
            strncmp(n, "thm4_", 5) == 0 || strncmp(n, "thm13_", 6) == 0)
            cr_expect_eq(counts[i][RIP_UNSAFE], 0, "%s: %ld unsafe verdicts", n, counts[i][RIP_UNSAFE]);
    }
    /* the draw must actually exercise every judged formula (restricted
    ** layers are one shape in six, those with C_out > C_in about half) */
    for (size_t i = 0; i < nf; i++)
        if (info[i].judged_by)
            cr_expect_gt(counts[i][RIP_TIGHT] + counts[i][RIP_LOOSE] + counts[i][RIP_UNSAFE], N / 20,
                         "%s judged on too few layers", info[i].name);
}
