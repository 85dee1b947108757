/*
** claims.c — runs the claims registry (claims_registry.c) and writes
** results/claims.md (claims.h).  Share and mean claims get their 95%
** intervals here (confidence.h, as `ripsim report`'s); every other
** verdict comes out of the claim's SQL unchanged.
*/
#include "claims.h"

#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "db.h"
#include "finite_fmt.h"

/* Views of the aux tables with the witness text the ALL rule prints. */
static const char aux_views_sql[] =
    "CREATE TEMP VIEW ra AS SELECT *, network || ' ' || name || ' (N_in+N_out = ' || size ||\n"
    "  '): `ripsim layer ' || spec || '`' AS witness FROM real_all;\n"
    "CREATE TEMP VIEW t6 AS SELECT *, 'Tab. 6 ' || name || ' (N_in+N_out = ' || size ||\n"
    "  '): `ripsim layer ' || spec || '`' AS witness FROM tab6;\n"
    "CREATE TEMP VIEW pl AS SELECT *, network || ' (N_in+N_out = ' || size ||\n"
    "  '): `ripsim layer ' || spec || '`' AS witness FROM paper;\n";

static void copy_col(sqlite3_stmt *st, int col, char *dst, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

#define CONFIDENCE 0.95

/* The status of a claim query that failed with SQLite code rc: what the
** database says (busy 75, out of memory 71, I/O 74, ...), and bad data
** (65) for a query SQLite itself refuses (SQLITE_ERROR: the registry's SQL
** does not fit this database). */
static rip_status claim_sql_status(int rc)
{
    rip_status s = rip_db_status(rc);
    return s == RIP_OK || s == RIP_S_INTERNAL ? RIP_S_DATA : s;
}

/* A SQL claim's one row: verdict, evidence, witness, and for an ALL(...)
** claim how many members hold of the domain (columns 4 and 5). */
static void read_sql_row(sqlite3_stmt *st, rip_claim_result *r)
{
    copy_col(st, 0, r->verdict, sizeof r->verdict);
    copy_col(st, 1, r->evidence, sizeof r->evidence);
    copy_col(st, 2, r->witness, sizeof r->witness);
    if (sqlite3_column_count(st) >= 5 && sqlite3_column_type(st, 3) == SQLITE_INTEGER &&
        sqlite3_column_type(st, 4) == SQLITE_INTEGER) {
        r->counted = true;
        r->k = sqlite3_column_int64(st, 3);
        r->n = sqlite3_column_int64(st, 4);
    }
}

/* A share claim's row (k, n): agrees iff the paper's percentage lies in
** the Clopper-Pearson interval of k / n.  RIP_OK, or the interval's status
** with err; *written is RIP_FMT_NONFINITE when a figure is not finite. */
static rip_status judge_share(const rip_claim *c, sqlite3_stmt *st, rip_claim_result *r, int *written,
                              char err[RIP_ERR_LEN])
{
    int64_t k = sqlite3_column_int64(st, 0), n = sqlite3_column_int64(st, 1);
    char why[RIP_ERR_LEN];
    rip_ci ci;
    r->counted = true;
    r->k = k;
    r->n = n;
    if (n <= 0) {
        snprintf(r->verdict, sizeof r->verdict, "not checked");
        snprintf(r->evidence, sizeof r->evidence, "no %s to count", c->unit);
        return RIP_OK;
    }
    rip_status s = rip_ci_share(k, n, CONFIDENCE, &ci, why);
    if (s != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "claim %s (%s): %.400s", c->id, c->query, why);
        return s;
    }
    double lo = 100.0 * ci.lo, hi = 100.0 * ci.hi;
    bool in = c->paper >= lo && c->paper <= hi;
    r->has_value = r->has_ci = true;
    r->value = 100.0 * (double)k / (double)n;
    r->lo = lo;
    r->hi = hi;
    snprintf(r->verdict, sizeof r->verdict, "%s", in ? "agrees" : "differs");
    *written = rip_fmt_snprintf(r->evidence, sizeof r->evidence,
                                "%.2f%% (%lld of %lld %s; 95%% CI %.2f-%.2f%%), paper %.1f%%", r->value,
                                (long long)k, (long long)n, c->unit, lo, hi, c->paper);
    return RIP_OK;
}

/* A mean claim: every row of st (stepped once, rc its first step) is a
** value; agrees iff the paper's value lies in the Student t interval of
** their mean, not checked with fewer than two.  RIP_OK, or a status with
** err; *written as judge_share's. */
static rip_status judge_mean(const rip_claim *c, sqlite3 *db, sqlite3_stmt *st, int rc, rip_claim_result *r,
                             int *written, char err[RIP_ERR_LEN])
{
    double sum = 0, sum2 = 0;
    int64_t n = 0;
    char why[RIP_ERR_LEN];
    rip_ci ci;
    for (; rc == SQLITE_ROW; rc = sqlite3_step(st), n++) {
        double v = sqlite3_column_double(st, 0);
        sum += v;
        sum2 += v * v;
    }
    if (rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "claim %s (%s): %.300s", c->id, c->query, sqlite3_errmsg(db));
        return claim_sql_status(rc);
    }
    r->n = n;
    if (n < 2) {
        r->has_value = n == 1;
        r->value = sum;
        snprintf(r->verdict, sizeof r->verdict, "not checked");
        *written = rip_fmt_snprintf(r->evidence, sizeof r->evidence, "%lld value(s): no interval (paper %.2f)",
                                    (long long)n, c->paper);
        return RIP_OK;
    }
    double mean = sum / (double)n;
    double var = (sum2 - (double)n * mean * mean) / (double)(n - 1);
    rip_status s = rip_ci_mean(mean, sqrt(var > 0 ? var : 0), n, CONFIDENCE, &ci, why);
    if (s != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "claim %s (%s): %.400s", c->id, c->query, why);
        return s;
    }
    bool in = c->paper >= ci.lo && c->paper <= ci.hi;
    r->has_value = r->has_ci = true;
    r->value = mean;
    r->lo = ci.lo;
    r->hi = ci.hi;
    snprintf(r->verdict, sizeof r->verdict, "%s", in ? "agrees" : "differs");
    *written = rip_fmt_snprintf(r->evidence, sizeof r->evidence, "mean %.2f %s (n = %lld; 95%% CI %.2f-%.2f), paper %.2f",
                                mean, c->unit, (long long)n, ci.lo, ci.hi, c->paper);
    return RIP_OK;
}

rip_status rip_claim_run(const rip_claim *c, sqlite3 *sweep, sqlite3 *aux, rip_claim_result *r,
                         char err[RIP_ERR_LEN])
{
    memset(r, 0, sizeof *r);
    if (c->kind == RIP_CLAIM_NONE) {
        snprintf(r->verdict, sizeof r->verdict, "not checked");
        snprintf(r->evidence, sizeof r->evidence, "%s", c->reason);
        return RIP_OK;
    }
    sqlite3 *db = c->db == RIP_CLAIM_SWEEP ? sweep : aux;
    sqlite3_stmt *st = NULL;
    rip_status s = RIP_OK;
    int written = 0;   /* RIP_FMT_NONFINITE when a figure of the evidence is not finite */
    if (sqlite3_prepare_v2(db, c->sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "claim %s (%s): %.300s", c->id, c->query, sqlite3_errmsg(db));
        return claim_sql_status(sqlite3_errcode(db));
    }
    int rc = sqlite3_step(st);
    if (c->kind == RIP_CLAIM_MEAN) {
        s = judge_mean(c, db, st, rc, r, &written, err);
    } else if (rc != SQLITE_ROW) {
        snprintf(err, RIP_ERR_LEN, "claim %s (%s): %.300s", c->id, c->query,
                 rc == SQLITE_DONE ? "no row" : sqlite3_errmsg(db));
        s = rc == SQLITE_DONE ? RIP_S_DATA : claim_sql_status(rc);
    } else if (c->kind == RIP_CLAIM_SQL) {
        read_sql_row(st, r);
    } else {
        s = judge_share(c, st, r, &written, err);
    }
    sqlite3_finalize(st);
    /* a figure that is not finite is never printed: ours (the registry's
    ** paper figure) is a bug, one the query's SQL printed ("Inf") is its data */
    bool sql_text = rip_fmt_text_nonfinite(r->verdict) || rip_fmt_text_nonfinite(r->evidence) ||
                    rip_fmt_text_nonfinite(r->witness);
    if (s == RIP_OK && (written == RIP_FMT_NONFINITE || sql_text)) {
        snprintf(err, RIP_ERR_LEN, "claim %s (%s): a figure of its evidence is not finite (NaN or infinite)%s", c->id,
                 c->query, sql_text ? ": its query printed it" : "");
        s = sql_text ? RIP_S_DATA : RIP_S_INTERNAL;
    }
    if (s != RIP_OK)
        memset(r, 0, sizeof *r);
    return s;
}

/* Markdown table cells: '|' and newlines would break the row. */
static void cell(FILE *o, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            fputs("\\|", o);
        else if (*s == '\n')
            fputc(' ', o);
        else
            fputc(*s, o);
}

rip_status rip_claims_sweep_views(sqlite3 *sweep, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    char *msg = NULL;
    int have = 0;
    if (sqlite3_prepare_v2(sweep, "SELECT count(*) FROM temp.sqlite_master WHERE name = 'cl'", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        have = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (have || sqlite3_exec(sweep, rip_claims_sweep_views_sql, NULL, NULL, &msg) == SQLITE_OK)
        return RIP_OK;
    snprintf(err, RIP_ERR_LEN, "claims: cannot create the views: %.300s", msg ? msg : "?");
    sqlite3_free(msg);
    return RIP_S_DATA;
}

static const char *const verdict_names[4] = {"agrees", "differs", "contradicted", "not checked"};

/* Create the views and run the n claims cs into res, counting each
** verdict of verdict_names in count.  RIP_OK or a status with err. */
static rip_status run_claims(sqlite3 *sweep, sqlite3 *aux, const rip_claim *cs, size_t n, rip_claim_result *res,
                             int count[4], char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    char *msg = NULL;
    if (rip_claims_sweep_views(sweep, err) != RIP_OK)
        s = RIP_S_DATA;
    else if (sqlite3_exec(aux, aux_views_sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "claims: cannot create the views: %.300s", msg ? msg : "?");
        sqlite3_free(msg);
        s = RIP_S_DATA;
    }
    for (size_t i = 0; i < n && s == RIP_OK; i++) {
        s = rip_claim_run(&cs[i], sweep, aux, &res[i], err);
        for (int k = 0; k < 4 && s == RIP_OK; k++)
            count[k] += strcmp(res[i].verdict, verdict_names[k]) == 0;
    }
    return s;
}

/* A claim's verdict over every domain (claims_domains.c): the overall
** verdict, the domain that decided it (-1: its own) and each other
** domain's judgement. */
typedef struct domain_view {
    const char *overall;
    int from;
    const rip_claim_domain_result *d; /* RIP_CLAIM_DOMAINS of them */
} domain_view;

/* How the other domains moved the verdicts: the claims judged on more
** than their own domain, and each whose verdict they changed. */
static void write_domains_summary(FILE *o, const rip_claim *cs, size_t n, const rip_claim_result *res,
                                  const domain_view *dv)
{
    int judged = 0, changed = 0;
    for (size_t i = 0; i < n; i++) {
        bool any = false;
        for (int k = 0; k < RIP_CLAIM_DOMAINS; k++)
            any |= dv[i].d[k].judged;
        judged += any;
        changed += strcmp(dv[i].overall, res[i].verdict) != 0;
    }
    fprintf(o, "Every domain: each of the %d statements about every member of a set (the ALL rule) is judged on "
               "the sweep, the public layer tables, the Tab. 6 selection and the conv and pointwise ops of the MCUNet "
               "graphs, not only on the domain it was written "
               "for; its verdict is the strictest (a counterexample on any domain contradicts it), and its evidence "
               "lists each other domain. %d change verdict when the other domains are added",
            judged, changed);
    for (size_t i = 0, w = 0; i < n; i++)
        if (strcmp(dv[i].overall, res[i].verdict) != 0)
            fprintf(o, "%s%s (%s on its own domain -> %s on %s)", w++ ? "; " : ": ", cs[i].id, res[i].verdict,
                    dv[i].overall, rip_claim_domain_names[dv[i].from]);
    fprintf(o, ". The real models' layers are not a domain yet.\n\n");
}

/* The other domains of claim i, appended to its evidence cell: each
** one's figures and verdict, with its own smallest counterexample. */
static void write_domains_cell(FILE *o, const domain_view *v)
{
    for (int k = 0; k < RIP_CLAIM_DOMAINS; k++) {
        const rip_claim_domain_result *d = &v->d[k];
        if (!d->judged)
            continue;
        fprintf(o, "; on %s: ", rip_claim_domain_names[k]);
        if (!d->applicable) {
            fprintf(o, "not judged (");
            cell(o, d->why);
            fprintf(o, ")");
        } else if (strcmp(d->verdict, "never") == 0)
            fprintf(o, "the premise holds on no layer");
        else {
            fprintf(o, "holds on %lld of %lld (%s", (long long)d->k, (long long)d->n, d->verdict);
            if (strcmp(d->verdict, "contradicted") == 0 && d->witness[0]) {
                fprintf(o, "; smallest counterexample there: ");
                cell(o, d->witness);
            }
            fprintf(o, ")");
        }
    }
}

/* The title, the verdicts explained, their counts and the figure links. */
static void write_head(FILE *o, size_t n, const int count[4], const char *const *figures, const char *fig_prefix,
                       const rip_claim *cs, const rip_claim_result *res, const domain_view *dv)
{
    fprintf(o, "# Claims of the paper, checked\n\n"
               "Generated by `ripsim claims` from the default sweep database (`ripsim sweep`: 10,000 layers, seed "
               "20261129), every channel-mixing layer of `sweeps/layers/` with the Tab. 6 selection, the layers "
               "the paper names in its text, and the eleven MCUNet models of Tab. 3 planned by `ripsim plan`'s "
               "strategies. Each claim is the paper's wording (quoted, `[...]` for cuts), its section, the named "
               "query that checks it (its SQL is listed at the end) and the verdict:\n\n"
               "- **agrees**: the statement holds on our data; a share or mean agrees when the paper's figure "
               "lies in our 95%% interval (Clopper-Pearson for a share, Student t for a mean);\n"
               "- **differs**: a figure the paper reports (count, share, mean, value) is not ours;\n"
               "- **contradicted**: a statement about every member of a set has a counterexample; the smallest "
               "(by N_in + N_out, real input plus output scalars) is given with its SPEC;\n"
               "- **not checked**: the reason is given.\n\n"
               "A statement about every layer agrees only if every layer of its domain satisfies it (a formula "
               "not defined on a layer counts as not satisfying it). Gaps and workspaces are in scalars.\n\n");
    fprintf(o, "%zu claims: %d agree, %d differ, %d contradicted, %d not checked.\n\n", n, count[0], count[1],
            count[2], count[3]);
    write_domains_summary(o, cs, n, res, dv);
    if (figures && figures[0]) {
        fprintf(o, "Figures (regenerated with this file):");
        for (size_t i = 0; figures[i]; i++)
            fprintf(o, "%s [%s](%s%s)", i ? "," : "", figures[i], fig_prefix ? fig_prefix : "", figures[i]);
        fprintf(o, ".\n\n");
    }
}

/* The table of every claim, then the list of those that differ or are contradicted. */
static void write_verdicts(FILE *o, const rip_claim *cs, size_t n, const rip_claim_result *res, const domain_view *dv)
{
    fprintf(o, "## Claims\n\n| id | section | claim (paper) | query | verdict | evidence |\n|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(o, "| %s | ", cs[i].id);
        cell(o, cs[i].section);
        fprintf(o, " | \"");
        cell(o, cs[i].quote);
        fprintf(o, "\" | `%s` | **%s** | ", cs[i].query, dv[i].overall);
        cell(o, res[i].evidence);
        if (cs[i].kind != RIP_CLAIM_NONE && cs[i].reason) {
            fprintf(o, " (reading: ");
            cell(o, cs[i].reason);
            fprintf(o, ")");
        }
        write_domains_cell(o, &dv[i]);
        if (res[i].witness[0]) {
            fprintf(o, "; %s: ", strcmp(res[i].verdict, "contradicted") == 0 ? "smallest counterexample" : "example");
            cell(o, res[i].witness);
        }
        fprintf(o, " |\n");
    }
    fprintf(o, "\n## Differs and contradicted\n\n");
    for (size_t i = 0; i < n; i++)
        if (strcmp(dv[i].overall, "differs") == 0 || strcmp(dv[i].overall, "contradicted") == 0) {
            fprintf(o, "- **%s** %s (%s, `%s`): %s", cs[i].id, dv[i].overall, cs[i].section, cs[i].query,
                    res[i].evidence);
            if (dv[i].from >= 0 && dv[i].d[dv[i].from].witness[0])
                fprintf(o, "; smallest counterexample on %s: %s", rip_claim_domain_names[dv[i].from],
                        dv[i].d[dv[i].from].witness);
            else if (res[i].witness[0])
                fprintf(o, "; smallest counterexample: %s", res[i].witness);
            fprintf(o, ".\n");
        }
}

/* The views and every checked claim's SQL with its rule.  RIP_OK, or
** RIP_S_INTERNAL (err) for a paper figure that is not finite. */
static rip_status write_queries(FILE *o, const rip_claim *cs, size_t n, char err[RIP_ERR_LEN])
{
    fprintf(o, "\n## Queries\n\nSweep queries run on the sweep database (`sqlite3 -readonly results/sweep.db`) after "
               "these temporary views:\n\n```sql\n%s```\n\n"
               "The other queries read a temporary database `ripsim claims` builds (tables `real_all`, `tab6`, "
               "`paper`, `plans`: `src/report/claims_data.c`) through these views:\n\n```sql\n%s```\n",
            rip_claims_sweep_views_sql, aux_views_sql);
    for (size_t i = 0; i < n; i++) {
        if (cs[i].kind == RIP_CLAIM_NONE)
            continue;
        fprintf(o, "\n### %s `%s` (%s)\n\n```sql\n%s\n```\n", cs[i].id, cs[i].query,
                cs[i].db == RIP_CLAIM_SWEEP ? "sweep" : "aux", cs[i].sql);
        int w = 0;   /* the paper figures were printed in the evidence: finite */
        if (cs[i].kind == RIP_CLAIM_SHARE)
            w = rip_fmt_fprintf(o, "\nReturns k, n; agrees when %.1f%% lies in the Clopper-Pearson 95%% interval of "
                                   "k / n.\n",
                                cs[i].paper);
        else if (cs[i].kind == RIP_CLAIM_MEAN)
            w = rip_fmt_fprintf(o, "\nReturns one value per row; agrees when %.2f lies in the Student t 95%% interval "
                                   "of their mean.\n",
                                cs[i].paper);
        if (w == RIP_FMT_NONFINITE) {
            snprintf(err, RIP_ERR_LEN, "claim %s: its paper figure is not finite", cs[i].id);
            return RIP_S_INTERNAL;
        }
    }
    return RIP_OK;
}

/* Contract (claims.h).  One cleanup path: the results. */
rip_status rip_claims_write(sqlite3 *sweep, sqlite3 *aux, const char *const *figures, const char *fig_prefix,
                            FILE *o, char err[RIP_ERR_LEN])
{
    size_t n;
    const rip_claim *cs = rip_claims(&n);
    rip_claim_result *res = calloc(n, sizeof *res);
    if (!res) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    int count[4] = {0};   /* agrees, differs, contradicted, not checked: the overall verdicts */
    domain_view *dv = calloc(n, sizeof *dv);
    rip_claim_domain_result(*dom)[RIP_CLAIM_DOMAINS] = calloc(n, sizeof *dom);
    rip_status s = !dv || !dom ? RIP_S_NOMEM : run_claims(sweep, aux, cs, n, res, count, err);
    if (s == RIP_S_NOMEM)
        snprintf(err, RIP_ERR_LEN, "out of memory");
    if (s == RIP_OK)
        s = rip_claims_on_domains(sweep, aux, aux_views_sql, cs, n, dom, err);
    if (s != RIP_OK)
        goto done;
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++) {
        dv[i].d = dom[i];
        dv[i].overall = rip_claim_overall(res[i].verdict, dv[i].d, &dv[i].from);
        for (int k = 0; k < 4; k++)
            count[k] += strcmp(dv[i].overall, verdict_names[k]) == 0;
    }
    write_head(o, n, count, figures, fig_prefix, cs, res, dv);
    write_verdicts(o, cs, n, res, dv);
    if ((s = write_queries(o, cs, n, err)) != RIP_OK)
        goto done;
    if (ferror(o)) {
        snprintf(err, RIP_ERR_LEN, "cannot write the claims");
        s = RIP_S_IO;
    }
done:
    free(res);
    free(dv);
    free(dom);
    return s;
}
