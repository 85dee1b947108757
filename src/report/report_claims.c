/*
** report_claims.c — the claims section of `ripsim report`: each claim of
** the paper (Sec. 5.2, Lemma 9, Eq. 42, App. F.4, App. G.2) judged on the
** run's figures against the paper's (report_internal.h).  A claim "agrees"
** when:
**   - "on all" claims: every judged verdict is tight (and, for the always
**     defined forms, every layer present was judged);
**   - share and mean claims: the paper's value (widened by half its last
**     printed digit) lies inside the 95% interval of this run's figure —
**     Clopper-Pearson for a share, Student t for a mean — since a run of
**     another seed or size is a different sample of the same generators;
**   - "never"/identity claims: no counterexample in the run.
** Otherwise it "differs"; with nothing to judge it is "not checked".
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "finite_fmt.h"
#include "report_internal.h"

/* Does the paper's value (+- half its last printed digit) meet [lo, hi]? */
static bool within(double paper, double half, double lo, double hi)
{
    return paper + half >= lo && paper - half <= hi;
}

static const col claim_cols[] = {
    {"id", "id", 'l', SHOW_MACHINE},
    {"claim", "claim (paper)", 'p', SHOW_ALL},
    {"paper", "paper", 'l', SHOW_ALL},
    {"this_run", "this run", 'p', SHOW_ALL},
    {"check", "check", 'l', SHOW_ALL},
    {"holds", "holds", 'r', SHOW_MACHINE},
    {"of", "of", 'r', SHOW_MACHINE},
    {"value", "value", 'r', SHOW_MACHINE},
    {"ci_lo", "ci_lo", 'r', SHOW_MACHINE},
    {"ci_hi", "ci_hi", 'r', SHOW_MACHINE},
    {"paper_value", "paper_value", 'r', SHOW_MACHINE},
};

/*
** The machine-readable figures of a claim (csv only): holds of `of` cases
** satisfy it (layers, verdicts); value is the run's share (percent) or mean
** with its 95% interval, when the claim is about one; paper_value the
** paper's number, when it gives one.
*/
typedef struct fig {
    bool counted;
    int64_t holds, of;
    bool has_value, has_ci, has_paper;
    double value, lo, hi, paper;
} fig;

static void claim(table *t, const char *id, const char *text, const char *paper, const char *check,
                  const fig *f, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* One row of the claims table; this_run is printf-formatted. */
static void claim(table *t, const char *id, const char *text, const char *paper, const char *check,
                  const fig *f, const char *fmt, ...)
{
    char run[512];
    va_list ap;
    va_start(ap, fmt);
    if (rip_fmt_vsnprintf(run, sizeof run, fmt, ap) == RIP_FMT_NONFINITE)
        t->nonfinite = true;
    va_end(ap);
    rpt_cellf(t, "%s", id);
    rpt_cellf(t, "%s", text);
    rpt_cellf(t, "%s", paper);
    rpt_cellf(t, "%s", run);
    rpt_cellf(t, "%s", check);
    if (f->counted) {
        rpt_cellf(t, "%lld", (long long)f->holds);
        rpt_cellf(t, "%lld", (long long)f->of);
    } else {
        rpt_cellf(t, "%s", "");
        rpt_cellf(t, "%s", "");
    }
    rpt_cell_num(t, f->has_value, f->value);
    rpt_cell_num(t, f->has_ci, f->lo);
    rpt_cell_num(t, f->has_ci, f->hi);
    rpt_cell_num(t, f->has_paper, f->paper);
}

static const char *check_word(int64_t of, bool ok)
{
    return of == 0 ? "not checked" : ok ? "agrees" : "differs";
}

/* "tight on every layer" for an always-defined formula. */
static void claim_tight_all(table *t, const report_data *r, const char *id, const char *name,
                            const char *text)
{
    const formula_row *f = rpt_find_formula(r, name);
    if (!f) {
        fig none = {0};
        claim(t, id, text, "all " PAPER_N_LAYERS " tight", "not checked", &none, "no verdicts of %s", name);
        return;
    }
    fig g = {.counted = true, .holds = f->tight, .of = r->present};
    bool ok = f->tight == r->present && f->unsafe == 0 && f->loose == 0;
    claim(t, id, text, "all " PAPER_N_LAYERS " tight", check_word(r->present, ok), &g,
          "%lld of %lld layers tight (%lld unsafe, %lld loose, %lld n/a)", (long long)f->tight,
          (long long)r->present, (long long)f->unsafe, (long long)f->loose, (long long)f->na);
}

/* A share claim: x of n against the paper's percentage; ci its interval
** (share_cis) when n > 0. */
static void claim_share(table *t, const char *id, const char *text, const char *paper_text, double paper,
                        double half, int64_t x, int64_t n, const rip_ci *ci, const char *unit)
{
    fig g = {.counted = true, .holds = x, .of = n, .has_paper = true, .paper = paper};
    if (n == 0) {
        claim(t, id, text, paper_text, "not checked", &g, "no %s", unit);
        return;
    }
    g.lo = 100.0 * ci->lo;
    g.hi = 100.0 * ci->hi;
    g.has_value = g.has_ci = true;
    g.value = rpt_pct(x, n);
    claim(t, id, text, paper_text, within(paper, half, g.lo, g.hi) ? "agrees" : "differs", &g,
          "%.2f%% (%lld of %lld %s; 95%% CI %.2f-%.2f%%)", rpt_tidy(g.value), (long long)x, (long long)n, unit,
          rpt_tidy(g.lo), rpt_tidy(g.hi));
}

/* Sec. 5.2's bounds: the restricted share, no unsafe bound, the bounds
** tight on every layer. */
static void claims_bounds(table *t, const report_data *r)
{
    claim_share(t, "restricted_share", "Layers inside the restricted setting of Gural & Murmann (Sec. 5.2)",
                RIP_PAPER_STR(RIP_PAPER_RESTRICTED_PCT) "%", PAPER_RESTRICTED_PCT, PAPER_RESTRICTED_HALF, r->restricted, r->present, &r->restricted_ci,
                "layers");

    int64_t unsafe = 0, verdicts = 0;
    sbuf who = {0};
    for (size_t i = 0; i < r->nf; i++) {
        const formula_row *f = &r->f[i];
        if (f->is_workspace || strcmp(f->name, "gm2019_eq1") == 0)
            continue;
        unsafe += f->unsafe;
        verdicts += rpt_judged(f);
        if (f->unsafe)
            rpt_sb_printf(&who, "%s%s %lld", who.len ? ", " : "; ", f->name, (long long)f->unsafe);
    }
    fig nu = {.counted = true, .holds = verdicts - unsafe, .of = verdicts, .has_paper = true, .paper = 0};
    claim(t, "no_unsafe", "No bound of the paper (Cor. 1, Thm. 4, 11, 13) is unsafe on any layer (Sec. 5.2, G.1)",
          "0 unsafe", check_word(verdicts, unsafe == 0), &nu, "%lld unsafe of %lld judged verdicts%s",
          (long long)unsafe, (long long)verdicts, rpt_sb_str(&who));
    if (who.oom)
        t->oom = true;
    if (who.nonfinite)
        t->nonfinite = true;
    free(who.s);

    claim_tight_all(t, r, "thm4_gather_tight", "thm4_gather",
                    "RiP padded bound, gather first, tight on every layer (Sec. 5.2)");
    claim_tight_all(t, r, "thm4_taps_tight", "thm4_taps",
                    "RiP padded bound, taps from the workspace, tight on every layer (Sec. 5.2)");
    claim_tight_all(t, r, "thm11_tight", "thm11",
                    "Generalized herringbone bound tight on every layer (Sec. 3.3, 5.2)");

}

/* Sec. 5.2 and App. F.4's dense bound (Theorem 13): tight share, mean
** overshoot, overshoot within sigma, gather first tight. */
static void claims_dense(table *t, const report_data *r)
{
    const formula_row *dt = rpt_find_formula(r, "thm13_taps");
    claim_share(t, "thm13_taps_tight_share", "Dense bound, taps from the workspace: share tight (Sec. 5.2)",
                RIP_PAPER_STR(RIP_PAPER_DENSE_TIGHT_PCT) "%", PAPER_DENSE_TIGHT_PCT, PAPER_DENSE_TIGHT_HALF, dt ? dt->tight : 0, rpt_judged(dt),
                &r->dense_tight_ci, "judged");

    const margin_stats *ov = dt ? &dt->loose_st : NULL;
    const char *ov_text = "Dense bound, taps from the workspace: mean overshoot where loose (Sec. 5.2)";
    fig og = {.counted = false, .has_paper = true, .paper = PAPER_DENSE_OVERSHOOT};
    if (ov && ov->n >= 1) {
        og.has_value = true;
        og.value = ov->mean;
    }
    if (ov && ov->n >= 2) {
        og.has_ci = true;
        og.lo = ov->ci_lo;
        og.hi = ov->ci_hi;
        claim(t, "thm13_taps_overshoot", ov_text, RIP_PAPER_STR(RIP_PAPER_DENSE_OVERSHOOT),
              within(PAPER_DENSE_OVERSHOOT, PAPER_DENSE_OVERSHOOT_HALF, ov->ci_lo, ov->ci_hi) ? "agrees" : "differs",
              &og, "%.2f over %zu loose layers (95%% CI %.2f-%.2f)", rpt_tidy(ov->mean), ov->n, rpt_tidy(ov->ci_lo),
              rpt_tidy(ov->ci_hi));
    } else if (ov && ov->n == 1) {
        claim(t, "thm13_taps_overshoot", ov_text, RIP_PAPER_STR(RIP_PAPER_DENSE_OVERSHOOT), "not checked", &og,
              "one loose layer (%.2f): no interval", rpt_tidy(ov->mean));
    } else {
        claim(t, "thm13_taps_overshoot", ov_text, RIP_PAPER_STR(RIP_PAPER_DENSE_OVERSHOOT), "not checked", &og, "no loose layer");
    }

    fig f4 = {.counted = true, .holds = r->f4_within, .of = r->f4_loose};
    if (r->f4_loose > 0)
        claim(t, "thm13_taps_overshoot_le_sigma", "Dense overshoot never exceeds sigma = C_out (App. F.4)", "never",
              r->f4_within == r->f4_loose ? "agrees" : "differs", &f4,
              "%lld of %lld loose layers within sigma (largest excess over sigma %lld)", (long long)r->f4_within,
              (long long)r->f4_loose, (long long)(r->f4_max_excess > 0 ? r->f4_max_excess : 0));
    else
        claim(t, "thm13_taps_overshoot_le_sigma", "Dense overshoot never exceeds sigma = C_out (App. F.4)", "never",
              "agrees", &f4, "no loose layer");

    const formula_row *dg = rpt_find_formula(r, "thm13_gather");
    int64_t gj = rpt_judged(dg);
    fig gg = {.counted = true, .holds = dg ? dg->tight : 0, .of = gj};
    claim(t, "thm13_gather_tight", "Dense bound, gather first, tight on every layer it is defined on (Sec. 5.2)",
          "all " PAPER_N_LAYERS " tight", check_word(gj, dg && dg->tight == gj), &gg,
          "%lld of %lld judged tight (%lld unsafe, %lld loose; %lld n/a: p >= k_eff)",
          (long long)(dg ? dg->tight : 0), (long long)gj, (long long)(dg ? dg->unsafe : 0),
          (long long)(dg ? dg->loose : 0), (long long)(dg ? dg->na : 0));

}

/* The identities and the sweep's composition: Corollary 1, Lemma 9, Eq. 42,
** App. G.2's generators. */
static void claims_identities(table *t, const report_data *r)
{
    const formula_row *c1 = rpt_find_formula(r, "corollary1");
    int64_t cj = rpt_judged(c1);
    fig cg = {.counted = true, .holds = c1 ? c1->tight : 0, .of = r->restricted};
    claim(t, "corollary1_tight", "Corollary 1 tight on every restricted layer (Tab. 2; the paper checks its rows)",
          "tight on Tab. 2", check_word(cj, c1 && c1->tight == cj && cj == r->restricted), &cg,
          "%lld of %lld restricted layers tight (%lld judged)", (long long)(c1 ? c1->tight : 0),
          (long long)r->restricted, (long long)cj);

    fig lg = {.counted = true, .holds = r->l9_match, .of = r->l9_in};
    claim(t, "lemma9_shortfall",
          "G&M Eq. 1 falls short by exactly (k-1)C_in mod (C_out-C_in) where floor(x*) <= W_out-1 (Lemma 9)",
          "exact", check_word(r->l9_in, r->l9_match == r->l9_in), &lg,
          "%lld of %lld layers match (%lld with non-integer x*)", (long long)r->l9_match, (long long)r->l9_in,
          (long long)r->l9_nonint);

    static const char *const eq42_id[2] = {"eq42_taps", "eq42_gather"};
    static const char *const eq42_text[2] = {
        "Dense workspace never above padded, below it on padded layers (Eq. 42, App. F.3), sigma = C_out",
        "Dense workspace never above padded, below it on padded layers (Eq. 42, App. F.3), sigma = 0"};
    for (int i = 0; i < 2; i++) {
        bool ok = r->eq42_ws_ok[i] == r->eq42_n[i] && r->eq42_pad_strict[i] == r->eq42_pad[i];
        /* holds: layers satisfying both halves (>= everywhere, > where padded) */
        int64_t bad = (r->eq42_n[i] - r->eq42_ws_ok[i]) + (r->eq42_pad[i] - r->eq42_pad_strict[i]);
        fig eg = {.counted = true, .holds = r->eq42_n[i] - bad, .of = r->eq42_n[i]};
        claim(t, eq42_id[i], eq42_text[i], "every layer", check_word(r->eq42_n[i], ok), &eg,
              "W* >= W_d* on %lld of %lld; W* > W_d* on %lld of %lld padded", (long long)r->eq42_ws_ok[i],
              (long long)r->eq42_n[i], (long long)r->eq42_pad_strict[i], (long long)r->eq42_pad[i]);
    }

    bool comp_ok = r->ng == PAPER_N_GENERATORS && r->tier_gens[0] == 0;
    for (int k = 1; k <= 3; k++)
        comp_ok = comp_ok && r->tier_weight[k] == paper_tier_pct[k];
    fig cp = {.counted = false, .has_value = true, .value = (double)r->ng, .has_paper = true,
              .paper = PAPER_N_GENERATORS};
    claim(t, "composition", "Twenty generators in three tiers weighted " RIP_PAPER_STR(RIP_PAPER_TIER1_PCT) "/" RIP_PAPER_STR(RIP_PAPER_TIER2_PCT) "/" RIP_PAPER_STR(RIP_PAPER_TIER3_PCT) "% (App. G.2, Tab. 5)",
          RIP_PAPER_STR(RIP_PAPER_GENERATORS) "; " RIP_PAPER_STR(RIP_PAPER_TIER1_PCT) "/" RIP_PAPER_STR(RIP_PAPER_TIER2_PCT) "/" RIP_PAPER_STR(RIP_PAPER_TIER3_PCT) "%", comp_ok ? "agrees" : "differs", &cp,
          "%zu generators; weights %lld/%lld/%lld%%; drawn %.2f/%.2f/%.2f%%", r->ng,
          (long long)r->tier_weight[1], (long long)r->tier_weight[2], (long long)r->tier_weight[3],
          rpt_tidy(rpt_pct(r->tier_drawn[1], r->present)), rpt_tidy(rpt_pct(r->tier_drawn[2], r->present)),
          rpt_tidy(rpt_pct(r->tier_drawn[3], r->present)));
}

/* The claims section: every claim of the paper, judged on this run. */
void rpt_section_claims(doc *d, const report_data *r)
{
    table claims = {.id = "claims", .title = "The paper's claims, checked on this run", .cols = claim_cols,
                    .ncols = sizeof claim_cols / sizeof claim_cols[0]};
    claims_bounds(&claims, r);
    claims_dense(&claims, r);
    claims_identities(&claims, r);
    rpt_doc_heading(d, "Claims");
    rpt_doc_para(d, NULL, NULL,
             "A share or mean agrees when the paper's value lies inside this run's 95% interval (Clopper-Pearson "
             "for a share, Student t for a mean); an \"on every layer\" claim agrees when no judged verdict is "
             "unsafe or loose.", false);
    rpt_doc_table(d, &claims);
    rpt_table_free(&claims);
}
