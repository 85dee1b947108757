/*
** report_claims.c — the claims section of `ripsim report`: a view of the
** claims registry (claims.h), not a second engine.  Every claim of the
** registry that the sweep database can check is run by rip_claim_run, with
** the registry's SQL and its one verdict rule (a share or mean agrees when
** the paper's value lies inside this run's 95% interval, Clopper-Pearson
** for a share and Student t for a mean; a statement about every member of
** a set agrees when no member contradicts it), exactly as `ripsim claims`
** writes it into results/claims.md.  The claims that need the real layer
** tables or the planner (the registry's aux database) are left to
** `ripsim claims`; the section says so.
*/
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "report_internal.h"

rip_status rpt_gather_claims(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN])
{
    size_t n = 0, k = 0;
    const rip_claim *all = rip_claims(&n);
    for (size_t i = 0; i < n; i++)
        k += all[i].db == RIP_CLAIM_SWEEP;
    r->claim = calloc(k ? k : 1, sizeof *r->claim);
    r->claim_res = calloc(k ? k : 1, sizeof *r->claim_res);
    if (!r->claim || !r->claim_res) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    rip_status s = rip_claims_sweep_views(db, err);
    for (size_t i = 0; s == RIP_OK && i < n; i++) {
        if (all[i].db != RIP_CLAIM_SWEEP)
            continue;
        rip_claim_result *res = &r->claim_res[r->n_claims];
        char why[RIP_ERR_LEN];
        r->claim[r->n_claims++] = &all[i];
        /* a query the database cannot answer (damaged rows: a share above its
        ** whole, say) fails the report as it fails `ripsim claims` */
        if ((s = rip_claim_run(&all[i], db, NULL, res, why)) != RIP_OK)
            snprintf(err, RIP_ERR_LEN, "%.500s", why);
    }
    return s;
}

static const col claim_cols[] = {
    {"id", "id", 'l', SHOW_MACHINE},
    {"claim", "claim (paper)", 'p', SHOW_ALL},
    {"paper", "paper", 'l', SHOW_ALL},
    {"this_run", "this run", 'p', SHOW_ALL},
    {"check", "check", 'l', SHOW_ALL},
    {"claim_id", "claim_id", 'l', SHOW_MACHINE},
    {"holds", "holds", 'r', SHOW_MACHINE},
    {"of", "of", 'r', SHOW_MACHINE},
    {"value", "value", 'r', SHOW_MACHINE},
    {"ci_lo", "ci_lo", 'r', SHOW_MACHINE},
    {"ci_hi", "ci_hi", 'r', SHOW_MACHINE},
    {"paper_value", "paper_value", 'r', SHOW_MACHINE},
};

/* One claim's row: its query name as the row key, the paper's words and
** section, the paper's figure (share and mean claims), the evidence, the
** verdict, then the figures behind it (csv only). */
static void claim_row(table *t, const rip_claim *c, const rip_claim_result *res)
{
    bool figure = c->kind == RIP_CLAIM_SHARE || c->kind == RIP_CLAIM_MEAN;
    rpt_cellf(t, "%s", c->query);
    rpt_cellf(t, "%s (%s)", c->quote, c->section);
    if (c->kind == RIP_CLAIM_SHARE)
        rpt_cellf(t, "%g%%", c->paper);
    else if (c->kind == RIP_CLAIM_MEAN)
        rpt_cellf(t, "%g", c->paper);
    else
        rpt_cellf(t, "%s", "as quoted");
    rpt_cellf(t, "%s%s%s", res->evidence, res->witness[0] ? "; smallest counterexample " : "", res->witness);
    rpt_cellf(t, "%s", res->verdict);
    rpt_cellf(t, "%s", c->id);
    if (res->counted) {
        rpt_cellf(t, "%lld", (long long)res->k);
        rpt_cellf(t, "%lld", (long long)res->n);
    } else if (c->kind == RIP_CLAIM_MEAN) {
        rpt_cellf(t, "%s", "");
        rpt_cellf(t, "%lld", (long long)res->n);
    } else {
        rpt_cellf(t, "%s", "");
        rpt_cellf(t, "%s", "");
    }
    rpt_cell_num(t, res->has_value, res->value);
    rpt_cell_num(t, res->has_ci, res->lo);
    rpt_cell_num(t, res->has_ci, res->hi);
    rpt_cell_num(t, figure, c->paper);
}

/* The claims section: the registry's claims on this sweep database. */
void rpt_section_claims(doc *d, const report_data *r)
{
    table claims = {.id = "claims", .title = "The paper's claims, checked on this run", .cols = claim_cols,
                    .ncols = sizeof claim_cols / sizeof claim_cols[0]};
    for (size_t i = 0; i < r->n_claims; i++)
        claim_row(&claims, r->claim[i], &r->claim_res[i]);
    rpt_doc_heading(d, "Claims");
    rpt_doc_para(d, NULL, NULL,
                 "The claims registry's statements that the sweep database can check (`ripsim claims` writes all "
                 "of them, the real layer tables and the planner's included, into results/claims.md, each with "
                 "its SQL). A share or mean agrees when the paper's value lies inside this run's 95% interval "
                 "(Clopper-Pearson for a share, Student t for a mean); a statement about every member of a set "
                 "agrees when no member contradicts it.", false);
    rpt_doc_table(d, &claims);
    rpt_table_free(&claims);
}
