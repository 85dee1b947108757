/*
** report_gather.c — what `ripsim report` reads from a sweep database: the
** small tables (run, formulas with their verdict counts, generators,
** executions, optima) by SQL, the one pass over layer_results
** (report_scan.c), and the intervals of the claims' shares (GSL, through
** confidence.h), all into a report_data inside one read transaction.
** Nothing here writes to the database.
*/
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "db.h"
#include "report_internal.h"

/* ---- the data ---------------------------------------------------------- */

/* Free what rpt_gather allocated in r and zero it. */
void rpt_data_free(report_data *r)
{
    free(r->f);
    free(r->g);
    free(r->claim);
    free(r->claim_res);
    memset(r, 0, sizeof *r);
}

/* The row of formula name in r, or NULL. */
const formula_row *rpt_find_formula(const report_data *r, const char *name)
{
    for (size_t i = 0; i < r->nf; i++)
        if (strcmp(r->f[i].name, name) == 0)
            return &r->f[i];
    return NULL;
}

/* unsafe + tight + loose of f; 0 for NULL. */
int64_t rpt_judged(const formula_row *f)
{
    return f ? f->unsafe + f->tight + f->loose : 0;
}

/* ---- queries ----------------------------------------------------------------- */

/*
** Prepare sql, bind the text parameters (NULL-terminated list, ?1, ?2, ...),
** step once and read up to n integer columns into out (NULL reads as 0).
** Returns 0 (also when the query gives no row: out is then all 0) or -1 with
** err.
*/
static int query_ints(sqlite3 *db, const char *sql, const char *const *params, int64_t *out, int n,
                      char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    for (int i = 0; rc == SQLITE_OK && params && params[i]; i++)
        rc = sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC);
    for (int i = 0; i < n; i++)
        out[i] = 0;
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            for (int i = 0; i < n && i < sqlite3_column_count(st); i++)
                out[i] = sqlite3_column_int64(st, i);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK)
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

static void copy_text(char *dst, size_t cap, const unsigned char *src)
{
    snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

/* Every table and view the report reads; 0 or -1 with err naming the first missing. */
static int check_tables(sqlite3 *db, char err[RIP_ERR_LEN])
{
    static const char *const names[] = {"runs", "layers", "truths", "verdicts",
                                        "formulas", "generators", "verdict_summary", "layer_results"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int64_t have = 0;
        const char *p[] = {names[i], NULL};
        if (query_ints(db, "SELECT count(*) FROM sqlite_master WHERE name = ?1 AND type IN ('table','view')",
                       p, &have, 1, err) != 0)
            return -1;
        if (!have) {
            snprintf(err, RIP_ERR_LEN, "not a ripsim database (no %s %s)",
                     strcmp(names[i], "verdict_summary") == 0 ? "view" : "table", names[i]);
            return -1;
        }
    }
    return 0;
}

/*
** Per formula (verdict_summary joined to formulas, paper order): the four
** verdict counts (from verdict_counts: no pass over the layers; the margins
** come from rpt_scan_layers).  Fills r->f and r->nf; returns 0, or -1 with err
** (*oom set when memory ran out).
*/
static int gather_formulas(sqlite3 *db, report_data *r, bool *oom, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int result = -1;
    int64_t count = 0;
    if (query_ints(db, "SELECT count(*) FROM verdict_summary WHERE run_id = " RUN_ID, NULL, &count, 1, err) != 0)
        return -1;
    r->f = calloc(count > 0 ? (size_t)count : 1, sizeof *r->f);
    if (!r->f) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return -1;
    }
    int rc = sqlite3_prepare_v2(db,
        "SELECT s.formula, s.exec_config, f.paper, f.is_workspace, s.unsafe, s.tight, s.loose, s.na "
        "FROM verdict_summary s JOIN formulas f USING (formula) WHERE s.run_id = " RUN_ID
        " ORDER BY f.ord, s.exec_config", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->nf == (size_t)count)
            break;   /* a row appeared between the two statements: cannot, inside one transaction */
        formula_row *f = &r->f[r->nf++];
        copy_text(f->name, sizeof f->name, sqlite3_column_text(st, 0));
        copy_text(f->exec_config, sizeof f->exec_config, sqlite3_column_text(st, 1));
        copy_text(f->paper, sizeof f->paper, sqlite3_column_text(st, 2));
        f->is_workspace = sqlite3_column_int(st, 3) != 0;
        f->unsafe = sqlite3_column_int64(st, 4);
        f->tight = sqlite3_column_int64(st, 5);
        f->loose = sqlite3_column_int64(st, 6);
        f->na = sqlite3_column_int64(st, 7);
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
        goto done;
    }
    result = 0;
done:
    sqlite3_finalize(st);
    return result;
}

/*
** Tab. 5's categories: every row of the generators table with its tier and
** weight, in generator order (ord), and the tier weights.  The layers drawn
** per category are counted by rpt_scan_layers.  Fills r->g, r->ng,
** r->tier_weight, r->tier_gens; returns 0, or -1 with err (*oom set when
** memory ran out).
*/
static int gather_generators(sqlite3 *db, report_data *r, bool *oom, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int result = -1;
    int64_t count = 0;
    if (query_ints(db, "SELECT count(*) FROM generators", NULL, &count, 1, err) != 0)
        return -1;
    r->g = calloc(count > 0 ? (size_t)count : 1, sizeof *r->g);
    if (!r->g) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return -1;
    }
    int rc = sqlite3_prepare_v2(db, "SELECT generator, tier, weight, title, ord FROM generators ORDER BY ord, generator",
                                -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW && r->ng < (size_t)count) {
        gen_row *g = &r->g[r->ng++];
        copy_text(g->name, sizeof g->name, sqlite3_column_text(st, 0));
        g->tier = sqlite3_column_int64(st, 1);
        g->weight = sqlite3_column_int64(st, 2);
        copy_text(g->title, sizeof g->title, sqlite3_column_text(st, 3));
        g->ord = sqlite3_column_int64(st, 4);
        int t = g->tier >= 1 && g->tier <= 3 ? (int)g->tier : 0;
        r->tier_weight[t] += g->weight;
        r->tier_gens[t]++;
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
        goto done;
    }
    result = 0;
done:
    sqlite3_finalize(st);
    return result;
}

/*
** The schema version and, when the database has table executions (version
** 2), the execution counts per rip_* configuration.  0 or -1 with err.
*/
static int gather_executions(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN])
{
    int64_t have = 0;
    sqlite3_stmt *st = NULL;
    if (query_ints(db, "PRAGMA user_version", NULL, &r->schema_version, 1, err) != 0 ||
        query_ints(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'execution_summary'",
                   NULL, &have, 1, err) != 0)
        return -1;
    if (!have)
        return 0;
    if (query_ints(db, "SELECT count(DISTINCT layer_idx) FROM executions WHERE run_id = " RUN_ID, NULL,
                   &r->executed_layers, 1, err) != 0)
        return -1;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT exec_config, executed, bit_exact, early_overwrite_at_truth, truth_zero,"
                                " truth_positive, caught_at_truth_minus_1 FROM execution_summary"
                                " WHERE run_id = " RUN_ID, -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->n_exec >= sizeof r->x / sizeof r->x[0])
            continue; /* the CHECK constraint allows only the four */
        exec_row *x = &r->x[r->n_exec++];
        copy_text(x->config, sizeof x->config, sqlite3_column_text(st, 0));
        x->executed = sqlite3_column_int64(st, 1);
        x->bit_exact = sqlite3_column_int64(st, 2);
        x->early = sqlite3_column_int64(st, 3);
        x->truth_zero = sqlite3_column_int64(st, 4);
        x->truth_positive = sqlite3_column_int64(st, 5);
        x->caught = sqlite3_column_int64(st, 6);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "cannot read execution_summary: %s", sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

/*
** The optima of `sweep --optimum` (view optimum_gaps), when the database
** has them; nothing otherwise, so a plain sweep's report is unchanged.
** Returns 0, or -1 with err.
*/
static int gather_optima(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN])
{
    static const char *const names[N_OPT_ROWS] = {
        "herringbone_taps_reader", "herringbone_taps", "row_major", "rip_padded_gather", "rip_padded_taps",
        "rip_dense_gather", "rip_dense_taps", "gm2019_eq1", "corollary1", "thm11", "thm4_gather", "thm4_taps",
        "thm13_gather", "thm13_taps"};
    int64_t have = 0, v[2];
    if (query_ints(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'optimum_gaps'", NULL,
                   &have, 1, err) != 0)
        return -1;
    if (!have)
        return 0;
    if (query_ints(db, "SELECT count(*), coalesce(max(pixels), 0) FROM optimum_gaps", NULL, v, 2, err) != 0)
        return -1;
    r->opt_layers = v[0];
    r->opt_max_pixels = v[1];
    for (int i = 0; i < N_OPT_ROWS && r->opt_layers > 0; i++) {
        char sql[512];
        sqlite3_stmt *st = NULL;
        snprintf(sql, sizeof sql,
                 "SELECT count(%1$s_over), coalesce(sum(%1$s_over > 0), 0), coalesce(sum(%1$s_over = 0), 0), "
                 "coalesce(sum(%1$s_over < 0), 0), coalesce(max(%1$s_over), 0), coalesce(avg(%1$s_over), 0) "
                 "FROM optimum_gaps", names[i]);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
            snprintf(err, RIP_ERR_LEN, "cannot read optimum_gaps: %s", sqlite3_errmsg(db));
            sqlite3_finalize(st);
            return -1;
        }
        opt_row *o = &r->opt[i];
        o->name = names[i];
        o->n = sqlite3_column_int64(st, 0);
        o->above = sqlite3_column_int64(st, 1);
        o->equal = sqlite3_column_int64(st, 2);
        o->below = sqlite3_column_int64(st, 3);
        o->max_over = sqlite3_column_int64(st, 4);
        o->mean_over = sqlite3_column_double(st, 5);
        sqlite3_finalize(st);
    }
    return 0;
}

/*
** Read everything the report shows.  Returns RIP_OK, or RIP_S_DATA /
** RIP_S_NOMEM / RIP_S_INTERNAL with err.
** Runs inside the caller's read transaction; r is freed by rpt_data_free.
*/
rip_status rpt_gather(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN])
{
    bool oom = false;
    if (check_tables(db, err) != 0)
        return RIP_S_DATA;
    int found = rip_db_read_run(db, &r->run, err);
    if (found < 0)
        return RIP_S_DATA;
    if (found > 0) {
        snprintf(err, RIP_ERR_LEN, "the database holds no run yet (empty sweep database)");
        return RIP_S_DATA;
    }
    if (r->run.shard_count < 1 || r->run.shard_index < 0 || r->run.shard_index >= r->run.shard_count ||
        r->run.n_layers < 0) {
        snprintf(err, RIP_ERR_LEN, "the run row is inconsistent (n_layers %lld, shard %lld of %lld)",
                 (long long)r->run.n_layers, (long long)r->run.shard_index, (long long)r->run.shard_count);
        return RIP_S_DATA;
    }
    int64_t n = r->run.n_layers, k = r->run.shard_count, i = r->run.shard_index;
    r->expected = n / k + (i < n % k ? 1 : 0);

    if (query_ints(db, "SELECT count(*) FROM formulas", NULL, &r->n_formulas, 1, err) != 0)
        return RIP_S_DATA;
    if (gather_formulas(db, r, &oom, err) != 0 || gather_generators(db, r, &oom, err) != 0 ||
        rpt_scan_layers(db, r, &oom, err) != 0)
        return oom ? RIP_S_NOMEM : RIP_S_DATA;
    if (r->present == 0) {
        snprintf(err, RIP_ERR_LEN, "the run holds no layers yet (seed %lld, %lld expected); run the sweep first",
                 (long long)r->run.seed, (long long)r->expected);
        return RIP_S_DATA;
    }
    if (gather_executions(db, r, err) != 0 || gather_optima(db, r, err) != 0)
        return RIP_S_DATA;
    return rpt_gather_claims(db, r, err);
}
