/*
** report_sections.c — the sections of `ripsim report` every report has,
** besides the claims (report_claims.c): the run and its completeness, the
** verdicts per closed form, the margins, Tab. 5 as drawn and the findings
** paragraph, each from a report_data into the document model.
*/
#include <stdlib.h>
#include <string.h>

#include "finite_fmt.h"
#include "report_internal.h"

/* The commands that regenerate the run's database and report, with or without --execute. */
void rpt_regen_command(const report_data *r, bool execute, char *buf, size_t n)
{
    const char *exec = execute ? " --execute" : "";
    if (r->run.shard_count == 1)
        snprintf(buf, n, "ripsim sweep --n %lld --seed %lld%s --db DB; ripsim report --db DB",
                 (long long)r->run.n_layers, (long long)r->run.seed, exec);
    else
        snprintf(buf, n, "ripsim sweep --n %lld --seed %lld --shard %lld/%lld%s --db DB; ripsim report --db DB",
                 (long long)r->run.n_layers, (long long)r->run.seed, (long long)r->run.shard_index,
                 (long long)r->run.shard_count, exec);
}

/* The run: its parameters, completeness and how to regenerate it, with a
** warning paragraph per incompleteness (missing, partial, foreign layers,
** one shard). */
void rpt_section_run(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"key", "key", 'l', SHOW_MACHINE},
        {"label", "quantity", 'l', SHOW_HUMAN},
        {"value", "value", 'r', SHOW_ALL},
    };
    table t = {.id = "run", .title = "The run", .cols = cols, .ncols = 3};
    rpt_cellf(&t, "seed"); rpt_cellf(&t, "seed"); rpt_cellf(&t, "%lld", (long long)r->run.seed);
    rpt_cellf(&t, "n_layers"); rpt_cellf(&t, "sweep size (layers)"); rpt_cellf(&t, "%lld", (long long)r->run.n_layers);
    rpt_cellf(&t, "shard_index"); rpt_cellf(&t, "shard index"); rpt_cellf(&t, "%lld", (long long)r->run.shard_index);
    rpt_cellf(&t, "shard_count"); rpt_cellf(&t, "shards"); rpt_cellf(&t, "%lld", (long long)r->run.shard_count);
    rpt_cellf(&t, "layers_expected"); rpt_cellf(&t, "layers expected in this database");
    rpt_cellf(&t, "%lld", (long long)r->expected);
    rpt_cellf(&t, "layers_present"); rpt_cellf(&t, "layers present"); rpt_cellf(&t, "%lld", (long long)r->present);
    rpt_cellf(&t, "pct_present"); rpt_cellf(&t, "%s", "% present"); rpt_cellf(&t, "%.2f", rpt_tidy(rpt_pct(r->present, r->expected)));
    rpt_cellf(&t, "layers_partial"); rpt_cellf(&t, "layers lacking a verdict"); rpt_cellf(&t, "%lld", (long long)r->partial);
    rpt_cellf(&t, "layers_foreign"); rpt_cellf(&t, "layers outside the run's index set");
    rpt_cellf(&t, "%lld", (long long)r->foreign);
    rpt_cellf(&t, "formulas"); rpt_cellf(&t, "closed forms"); rpt_cellf(&t, "%lld", (long long)r->n_formulas);
    rpt_cellf(&t, "generators"); rpt_cellf(&t, "generator categories"); rpt_cellf(&t, "%zu", r->ng);
    rpt_cellf(&t, "ripsim_version"); rpt_cellf(&t, "written by ripsim"); rpt_cellf(&t, "%s", r->run.version);
    rpt_cellf(&t, "schema_version"); rpt_cellf(&t, "schema version"); rpt_cellf(&t, "%lld", (long long)r->schema_version);
    /* how to regenerate this database and report (the path is the user's);
    ** the executions say their own command (rpt_section_executions), so this
    ** section reads the same whether or not the sweep was executed */
    char cmd[256];
    rpt_regen_command(r, false, cmd, sizeof cmd);
    rpt_cellf(&t, "regenerate"); rpt_cellf(&t, "regenerate with"); rpt_cellf(&t, "%s", cmd);

    char line[512];
    if (r->present < r->expected) {
        if (rip_fmt_snprintf(line, sizeof line,
                             "INCOMPLETE RUN: only %lld of the %lld expected layers are present (%.2f%%). Every "
                             "figure below covers only the layers present; rerun the same `ripsim sweep` command to "
                             "finish it.",
                             (long long)r->present, (long long)r->expected,
                             rpt_tidy(rpt_pct(r->present, r->expected))) == RIP_FMT_NONFINITE)
            d->nonfinite = true;
        else
            rpt_doc_para(d, "warning", "incomplete", line, true);
    }
    if (r->partial > 0) {
        snprintf(line, sizeof line,
                 "INCOMPLETE ROWS: %lld layer(s) lack the verdict of some closed form; their formulas count fewer verdicts.", (long long)r->partial);
        rpt_doc_para(d, "warning", "partial", line, true);
    }
    if (r->foreign > 0) {
        snprintf(line, sizeof line,
                 "INCONSISTENT: %lld layers have an index outside this run's index set.", (long long)r->foreign);
        rpt_doc_para(d, "warning", "foreign", line, true);
    }
    if (r->run.shard_count > 1) {
        snprintf(line, sizeof line,
                 "This database is one shard of the sweep (layers with index %% %lld == %lld): combine the "
                 "shards with `ripsim merge` for the figures of the whole sweep.", (long long)r->run.shard_count,
                 (long long)r->run.shard_index);
        rpt_doc_para(d, "warning", "shard", line, true);
    }
    rpt_doc_heading(d, "Run");
    rpt_doc_table(d, &t);
    rpt_table_free(&t);
}

/* The verdict counts of every closed form (view verdict_summary). */
void rpt_section_verdicts(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"formula", "formula", 'l', SHOW_ALL},
        {"exec_config", "judged against", 'l', SHOW_ALL},
        {"paper_ref", "paper", 'l', SHOW_ALL},
        {"unsafe", "unsafe", 'r', SHOW_ALL},
        {"tight", "tight", 'r', SHOW_ALL},
        {"loose", "loose", 'r', SHOW_ALL},
        {"na", "n/a", 'r', SHOW_ALL},
        {"judged", "judged", 'r', SHOW_ALL},
        {"pct_tight", "% tight of judged", 'r', SHOW_ALL},
    };
    table t = {.id = "verdicts", .title = "Verdicts per closed form (from view verdict_summary)",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (size_t i = 0; i < r->nf; i++) {
        const formula_row *f = &r->f[i];
        int64_t j = rpt_judged(f);
        rpt_cellf(&t, "%s", f->name);
        rpt_cellf(&t, "%s", f->exec_config);
        rpt_cellf(&t, "%s", f->paper);
        rpt_cellf(&t, "%lld", (long long)f->unsafe);
        rpt_cellf(&t, "%lld", (long long)f->tight);
        rpt_cellf(&t, "%lld", (long long)f->loose);
        rpt_cellf(&t, "%lld", (long long)f->na);
        rpt_cellf(&t, "%lld", (long long)j);
        rpt_cell_num(&t, j > 0, rpt_pct(f->tight, j));
    }
    rpt_doc_heading(d, "Verdicts");
    rpt_doc_para(d, NULL, NULL,
             "unsafe: value < truth (a corruption), tight: value = truth, loose: value > truth, n/a: not "
             "defined on the layer. `naive_workspace` is a workspace size, not a gap, and is never judged.",
             false);
    rpt_doc_table(d, &t);
    rpt_table_free(&t);
}

/* One row of a margins table: f's statistics m. */
static void stats_row(table *t, const formula_row *f, const margin_stats *m)
{
    rpt_cellf(t, "%s", f->name);
    rpt_cellf(t, "%s", f->exec_config);
    rpt_cellf(t, "%zu", m->n);
    rpt_cell_num(t, m->n > 0, m->mean);
    rpt_cell_num(t, m->n > 0, m->median);
    rpt_cell_num(t, m->n >= 2, m->sd);
    rpt_cell_num(t, m->n > 0, m->min);
    rpt_cell_num(t, m->n > 0, m->p90);
    rpt_cell_num(t, m->n > 0, m->max);
}

/* The loose margins of every judged closed form, and the unsafe
** shortfalls of those ever unsafe (a sentence when none is). */
void rpt_section_margins(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"formula", "formula", 'l', SHOW_ALL},
        {"exec_config", "judged against", 'l', SHOW_ALL},
        {"n", "n", 'r', SHOW_ALL},
        {"mean", "mean", 'r', SHOW_ALL},
        {"median", "median", 'r', SHOW_ALL},
        {"sd", "sd", 'r', SHOW_ALL},
        {"min", "min", 'r', SHOW_ALL},
        {"p90", "p90", 'r', SHOW_ALL},
        {"max", "max", 'r', SHOW_ALL},
    };
    table lt = {.id = "loose_margins", .title = "Loose margins, value - truth in scalars, where loose",
                .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    table ut = {.id = "unsafe_shortfalls", .title = "Unsafe shortfalls, truth - value in scalars, where unsafe",
                .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (size_t i = 0; i < r->nf; i++) {
        const formula_row *f = &r->f[i];
        if (f->is_workspace)
            continue;
        stats_row(&lt, f, &f->loose_st);
        if (f->unsafe_st.n > 0)
            stats_row(&ut, f, &f->unsafe_st);
    }
    rpt_doc_heading(d, "Margins");
    rpt_doc_para(d, NULL, NULL,
             "Statistics with GSL: sd is the sample standard deviation (n >= 2), median and p90 are "
             "quantiles of the sorted margins (linear interpolation).", false);
    rpt_doc_table(d, &lt);
    if (ut.n > 0)
        rpt_doc_table(d, &ut);
    else
        rpt_doc_para(d, "unsafe_shortfalls", "none", "No closed form was unsafe on any layer.", false);
    rpt_table_free(&lt);
    rpt_table_free(&ut);
}

/* Tab. 5 as drawn: per generator category and per tier, beside the
** paper's tier weights. */
void rpt_section_tab5(doc *d, const report_data *r)
{
    static const col gcols[] = {
        {"generator", "generator", 'l', SHOW_ALL},
        {"tier", "tier", 'r', SHOW_ALL},
        {"title", "Tab. 5 title", 'l', SHOW_ALL},
        {"weight_pct", "weight %", 'r', SHOW_ALL},
        {"drawn", "drawn", 'r', SHOW_ALL},
        {"share_pct", "share %", 'r', SHOW_ALL},
    };
    static const col tcols[] = {
        {"tier", "tier", 'l', SHOW_ALL},
        {"title", "", 'l', SHOW_ALL},
        {"generators", "generators", 'r', SHOW_ALL},
        {"weight_pct", "weight %", 'r', SHOW_ALL},
        {"paper_pct", "paper %", 'r', SHOW_ALL},
        {"drawn", "drawn", 'r', SHOW_ALL},
        {"share_pct", "share %", 'r', SHOW_ALL},
    };
    table g = {.id = "tab5", .title = "Tab. 5 as drawn: generator categories", .cols = gcols,
               .ncols = sizeof gcols / sizeof gcols[0]};
    table t = {.id = "tab5_tiers", .title = "Tab. 5 as drawn: tiers (paper App. G.2: " RIP_PAPER_STR(RIP_PAPER_TIER1_PCT) "/" RIP_PAPER_STR(RIP_PAPER_TIER2_PCT) "/" RIP_PAPER_STR(RIP_PAPER_TIER3_PCT) "%)", .cols = tcols,
               .ncols = sizeof tcols / sizeof tcols[0]};
    for (size_t i = 0; i < r->ng; i++) {
        const gen_row *x = &r->g[i];
        rpt_cellf(&g, "%s", x->name);
        rpt_cellf(&g, "%lld", (long long)x->tier);
        rpt_cellf(&g, "%s", x->title);
        rpt_cellf(&g, "%lld", (long long)x->weight);
        rpt_cellf(&g, "%lld", (long long)x->drawn);
        rpt_cellf(&g, "%.2f", rpt_tidy(rpt_pct(x->drawn, r->present)));
    }
    if (r->unknown_gen_drawn > 0) {
        rpt_cellf(&g, "(unknown)");
        rpt_cellf(&g, "%s", "");
        rpt_cellf(&g, "categories not in the generators table");
        rpt_cellf(&g, "%s", "");
        rpt_cellf(&g, "%lld", (long long)r->unknown_gen_drawn);
        rpt_cellf(&g, "%.2f", rpt_tidy(rpt_pct(r->unknown_gen_drawn, r->present)));
    }
    int64_t wsum = 0;
    for (int k = 1; k <= 3; k++) {
        rpt_cellf(&t, "%d", k);
        rpt_cellf(&t, "%s", tier_title[k]);
        rpt_cellf(&t, "%lld", (long long)r->tier_gens[k]);
        rpt_cellf(&t, "%lld", (long long)r->tier_weight[k]);
        rpt_cellf(&t, "%d", paper_tier_pct[k]);
        rpt_cellf(&t, "%lld", (long long)r->tier_drawn[k]);
        rpt_cellf(&t, "%.2f", rpt_tidy(rpt_pct(r->tier_drawn[k], r->present)));
        wsum += r->tier_weight[k];
    }
    if (r->tier_gens[0] > 0 || r->tier_drawn[0] > 0) {
        rpt_cellf(&t, "other");
        rpt_cellf(&t, "%s", tier_title[0]);
        rpt_cellf(&t, "%lld", (long long)r->tier_gens[0]);
        rpt_cellf(&t, "%lld", (long long)r->tier_weight[0]);
        rpt_cellf(&t, "%s", "");
        rpt_cellf(&t, "%lld", (long long)r->tier_drawn[0]);
        rpt_cellf(&t, "%.2f", rpt_tidy(rpt_pct(r->tier_drawn[0], r->present)));
        wsum += r->tier_weight[0];
    }
    rpt_cellf(&t, "total");
    rpt_cellf(&t, "%s", "");
    rpt_cellf(&t, "%zu", r->ng);
    rpt_cellf(&t, "%lld", (long long)wsum);
    rpt_cellf(&t, "100");
    rpt_cellf(&t, "%lld", (long long)r->present);
    rpt_cellf(&t, "%.2f", rpt_tidy(rpt_pct(r->present, r->present)));
    rpt_doc_heading(d, "Sweep composition (Tab. 5)");
    rpt_doc_table(d, &g);
    rpt_doc_table(d, &t);
    rpt_table_free(&g);
    rpt_table_free(&t);
}

/* The findings paragraph: every sentence is computed from the numbers. */
void rpt_section_findings(doc *d, const report_data *r)
{
    sbuf b = {0};
    const formula_row *gm = rpt_find_formula(r, "gm2019_eq1");
    const formula_row *t4g = rpt_find_formula(r, "thm4_gather"), *t4t = rpt_find_formula(r, "thm4_taps");
    const formula_row *t11 = rpt_find_formula(r, "thm11");
    const formula_row *dg = rpt_find_formula(r, "thm13_gather"), *dt = rpt_find_formula(r, "thm13_taps");

    rpt_sb_printf(&b, "The database holds %lld of the %lld layers expected%s. ", (long long)r->present,
              (long long)r->expected, r->present < r->expected ? " (INCOMPLETE)" : "");
    rpt_sb_printf(&b, "%lld of them (%.2f%%) lie in the restricted setting of Gural & Murmann, against " RIP_PAPER_STR(RIP_PAPER_RESTRICTED_PCT) "%% in "
                  "the paper. ", (long long)r->restricted, rpt_tidy(rpt_pct(r->restricted, r->present)));

    int64_t unsafe = 0, verdicts = 0;
    for (size_t i = 0; i < r->nf; i++)
        if (!r->f[i].is_workspace && strcmp(r->f[i].name, "gm2019_eq1") != 0) {
            unsafe += r->f[i].unsafe;
            verdicts += rpt_judged(&r->f[i]);
        }
    if (unsafe == 0)
        rpt_sb_printf(&b, "No bound of the paper was unsafe: all %lld judged verdicts of Corollary 1 and Theorems "
                      "4, 11 and 13 are tight or loose, as Sec. 5.2 reports. ", (long long)verdicts);
    else
        rpt_sb_printf(&b, "%lld of %lld judged verdicts of the paper's own bounds are UNSAFE, contrary to Sec. 5.2; "
                      "results/queries/unsafe_verdicts.sql lists them. ", (long long)unsafe, (long long)verdicts);

    rpt_sb_printf(&b, "Theorem 4 is tight on %lld (gather first) and %lld (taps from the workspace) and Theorem 11 "
                  "on %lld of %lld layers. ", (long long)(t4g ? t4g->tight : 0), (long long)(t4t ? t4t->tight : 0),
              (long long)(t11 ? t11->tight : 0), (long long)r->present);
    if (dt && rpt_judged(dt) > 0) {
        rpt_sb_printf(&b, "The dense bound (Theorem 13) with taps read from the workspace is tight on %lld of %lld "
                      "judged layers (%.2f%%, paper " RIP_PAPER_STR(RIP_PAPER_DENSE_TIGHT_PCT) "%%)", (long long)dt->tight, (long long)rpt_judged(dt),
                  rpt_tidy(rpt_pct(dt->tight, rpt_judged(dt))));
        if (dt->loose_st.n > 0)
            rpt_sb_printf(&b, "; where loose it overshoots by %.2f scalars on average (paper " RIP_PAPER_STR(RIP_PAPER_DENSE_OVERSHOOT) "; median %.2f, "
                          "max %.2f), and by at most sigma = C_out on %lld of %lld loose layers",
                      rpt_tidy(dt->loose_st.mean), rpt_tidy(dt->loose_st.median), rpt_tidy(dt->loose_st.max),
                      (long long)r->f4_within, (long long)r->f4_loose);
        rpt_sb_printf(&b, ". ");
    }
    if (dg && rpt_judged(dg) > 0)
        rpt_sb_printf(&b, "With the receptive field gathered first it is tight on %lld of %lld judged layers%s. ",
                  (long long)dg->tight, (long long)rpt_judged(dg),
                  dg->tight == rpt_judged(dg) ? ", as the paper reports" : ", where the paper reports all");

    if (gm && rpt_judged(gm) > 0) {
        int64_t gj = rpt_judged(gm);
        rpt_sb_printf(&b, "G&M Eq. 1 as published, judged on the %lld restricted layers with C_out > C_in, is unsafe "
                      "on %lld (%.2f%%), tight on %lld and loose on %lld. ", (long long)gj, (long long)gm->unsafe,
                  rpt_tidy(rpt_pct(gm->unsafe, gj)), (long long)gm->tight, (long long)gm->loose);
        if (gm->unsafe_st.n > 0)
            rpt_sb_printf(&b, "Its shortfall truth - value averages %.2f scalars (median %.2f, max %.2f). ",
                      rpt_tidy(gm->unsafe_st.mean), rpt_tidy(gm->unsafe_st.median), rpt_tidy(gm->unsafe_st.max));
        if (r->l9_in > 0)
            rpt_sb_printf(&b, "The shortfall identity of Lemma 9, truth - Eq. 1 = (k-1)C_in mod (C_out-C_in), holds on "
                          "%lld of the %lld layers with `floor(x*) <= W_out-1`; of these, %lld have a non-integer "
                          "`x*` and %lld of them are unsafe, while %lld have an integer `x*` and %lld of them are "
                          "tight. ", (long long)r->l9_match, (long long)r->l9_in, (long long)r->l9_nonint,
                      (long long)r->l9_nonint_unsafe, (long long)r->l9_int, (long long)r->l9_int_tight);
        if (r->l9_out > 0)
            rpt_sb_printf(&b, "Outside the grid (`floor(x*) >= W_out`, Limitation 2) Eq. 1 is loose on %lld of %lld "
                          "layers, by up to %lld scalars. ", (long long)r->l9_out_loose, (long long)r->l9_out,
                      (long long)r->l9_out_max_over);
    } else {
        rpt_sb_printf(&b, "G&M Eq. 1 was not judged on any layer (no restricted layer with C_out > C_in). ");
    }
    if (r->eq42_n[0] > 0)
        rpt_sb_printf(&b, "In workspace (Eq. 42) the dense layout needs no more than the padded one on %lld of %lld "
                      "layers and strictly less on %lld of the %lld padded ones, while its gap is at least the "
                      "padded gap on %lld of %lld (taps from the workspace).", (long long)r->eq42_ws_ok[0],
                  (long long)r->eq42_n[0], (long long)r->eq42_pad_strict[0], (long long)r->eq42_pad[0],
                  (long long)r->eq42_gap_ge[0], (long long)r->eq42_n[0]);
    if (b.oom)
        d->oom = true;
    if (b.nonfinite)
        d->nonfinite = true;
    rpt_doc_heading(d, "Findings");
    rpt_doc_para(d, "findings", "1", rpt_sb_str(&b), false);
    free(b.s);
}
