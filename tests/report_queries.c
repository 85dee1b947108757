/*
** report_queries.c — the report suite (tests/test_report.c) on the
** results/queries files: every query is documented and runs, and each
** one's figures (GM shortfall, unsafe verdicts, RiP vs herringbone,
** shares by tier, loose margins, dense vs padded, Clopper-Pearson) are
** recomputed with the test's own SQL.
*/
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db.h"
#include "evaluate.h"
#include "confidence.h"
#include "layer.h"
#include "report_util.h"

typedef struct {
    result_set *rs;
    size_t n;
} query_out;

static const char *queries_dir(void)
{
    const char *d = getenv("RIPSIM_QUERIES_DIR");
    cr_assert_not_null(d, "RIPSIM_QUERIES_DIR must name results/queries");
    return d;
}

/* Run every statement of results/queries/NAME on the sweep; one result set each. */
static query_out run_query_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", queries_dir(), name);
    char *sql = slurp_file(path);
    cr_assert_not_null(sql, "cannot read %s", path);
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    query_out q = {0};
    const char *tail = sql;
    while (*tail) {
        sqlite3_stmt *st = NULL;
        const char *next;
        cr_assert_eq(sqlite3_prepare_v2(db, tail, -1, &st, &next), SQLITE_OK, "%s: %s", name, sqlite3_errmsg(db));
        tail = next;
        if (!st)
            continue;   /* comments and whitespace */
        q.rs = realloc(q.rs, (q.n + 1) * sizeof *q.rs);
        cr_assert_not_null(q.rs);
        result_set *r = &q.rs[q.n++];
        memset(r, 0, sizeof *r);
        r->ncol = sqlite3_column_count(st);
        cr_assert_leq(r->ncol, MAX_COLS);
        for (int c = 0; c < r->ncol; c++)
            r->name[c] = strdup(sqlite3_column_name(st, c));
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            r->cells = realloc(r->cells, (r->nrows + 1) * (size_t)r->ncol * sizeof *r->cells);
            cr_assert_not_null(r->cells);
            for (int c = 0; c < r->ncol; c++) {
                const unsigned char *t = sqlite3_column_text(st, c);
                r->cells[r->nrows * (size_t)r->ncol + (size_t)c] = t ? strdup((const char *)t) : NULL;
            }
            r->nrows++;
        }
        cr_assert_eq(rc, SQLITE_DONE, "%s: %s", name, sqlite3_errmsg(db));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    free(sql);
    return q;
}

static void query_free(query_out *q)
{
    for (size_t i = 0; i < q->n; i++) {
        result_set *r = &q->rs[i];
        for (int c = 0; c < r->ncol; c++)
            free(r->name[c]);
        for (size_t k = 0; k < r->nrows * (size_t)r->ncol; k++)
            free(r->cells[k]);
        free(r->cells);
    }
    free(q->rs);
}

static int64_t cell_int(const result_set *r, size_t row, const char *name)
{
    const char *v = cell(r, row, name);
    cr_assert_not_null(v, "column %s is NULL", name);
    return strtoll(v, NULL, 10);
}

Test(report, every_query_is_documented_and_runs)
{
    static const char *const required[] = {"unsafe_verdicts.sql", "loose_margin_by_generator.sql", "gm_shortfall.sql",
                                           "rip_vs_herringbone.sql", "verdict_share_by_tier.sql"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", queries_dir(), required[i]);
        cr_assert_eq(access(path, R_OK), 0, "missing %s", path);
    }
    DIR *d = opendir(queries_dir());
    cr_assert_not_null(d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".sql") != 0)
            continue;
        files++;
        char path[1024], how[600];
        snprintf(path, sizeof path, "%s/%s", queries_dir(), e->d_name);
        char *text = slurp_file(path);
        cr_assert_not_null(text);
        cr_assert(strncmp(text, "-- ", 3) == 0, "%s must open with a comment", e->d_name);
        snprintf(how, sizeof how, "sqlite3 -header -column results/sweep.db < results/queries/%s", e->d_name);
        cr_assert(strstr(text, how), "%s must say how to run it: %s", e->d_name, how);
        free(text);
        query_out q = run_query_file(e->d_name);
        cr_assert_geq(q.n, 1, "%s has no statement", e->d_name);
        size_t rows = 0;
        for (size_t i = 0; i < q.n; i++)
            rows += q.rs[i].nrows;
        cr_assert_gt(rows, 0, "%s returns no rows at all", e->d_name);
        query_free(&q);
    }
    closedir(d);
    cr_assert_geq(files, 5);
}

Test(report, gm_shortfall_is_lemma9)
{
    query_out q = run_query_file("gm_shortfall.sql");
    cr_assert_geq(q.n, 2);
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    cr_assert_eq((int64_t)r->nrows, q_int(db, "SELECT count(*) FROM verdicts v JOIN layers l USING (run_id, layer_idx) "
                                              "WHERE v.formula = 'gm2019_eq1' AND v.value IS NOT NULL AND l.restricted = 1 "
                                              "AND l.cout > l.cin"));
    size_t in_grid = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        int64_t cin = cell_int(r, i, "cin"), cout = cell_int(r, i, "cout"), k = cell_int(r, i, "k");
        int64_t wout = cell_int(r, i, "w_out");
        /* the query's in_grid, predicted and shortfall, recomputed */
        bool grid = (k - 1) * cin / (cout - cin) <= wout - 1;
        cr_assert_eq(cell_int(r, i, "in_grid"), grid);
        cr_assert_eq(cell_int(r, i, "predicted"), (k - 1) * cin % (cout - cin));
        cr_assert_eq(cell_int(r, i, "shortfall"), cell_int(r, i, "truth") - cell_int(r, i, "eq1"));
        if (grid) {
            in_grid++;
            cr_assert_eq(cell_int(r, i, "match"), 1, "Lemma 9 fails on layer %s", cell(r, i, "layer_idx"));
        }
    }
    cr_assert_gt(in_grid, 0, "the sweep should hold in-grid Eq. 1 layers");
    query_free(&q);
    sqlite3_close(db);
}

Test(report, unsafe_verdicts_only_for_gm)
{
    query_out q = run_query_file("unsafe_verdicts.sql");
    cr_assert_geq(q.n, 2);
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    cr_assert_eq((int64_t)r->nrows, q_int(db, "SELECT count(*) FROM verdicts WHERE verdict = 'unsafe'"));
    for (size_t i = 0; i < r->nrows; i++) {
        const char *f = cell(r, i, "formula");
        cr_assert(strncmp(f, "thm4", 4) != 0 && strncmp(f, "thm11", 5) != 0 && strncmp(f, "thm13", 5) != 0 &&
                      strcmp(f, "corollary1") != 0,
                  "unsafe verdict of %s on layer %s", f, cell(r, i, "layer_idx"));
        cr_assert_eq(cell_int(r, i, "shortfall"), cell_int(r, i, "truth") - cell_int(r, i, "value"));
        cr_assert_gt(cell_int(r, i, "shortfall"), 0);
    }
    int64_t total = 0;
    for (size_t i = 0; i < q.rs[1].nrows; i++)
        total += cell_int(&q.rs[1], i, "unsafe");
    cr_assert_eq(total, (int64_t)r->nrows);
    query_free(&q);
    sqlite3_close(db);
}

Test(report, rip_vs_herringbone_counts)
{
    query_out q = run_query_file("rip_vs_herringbone.sql");
    cr_assert_eq(q.n, 4);
    const result_set *tot = &q.rs[3];
    cr_assert_eq(tot->nrows, 1);
    int64_t better = cell_int(tot, 0, "rip_better"), eq = cell_int(tot, 0, "equal"), worse = cell_int(tot, 0, "hb_better");
    cr_assert_eq(cell_int(tot, 0, "layers"), SWEEP_N);
    cr_assert_eq(better + eq + worse, SWEEP_N);
    cr_assert_eq((int64_t)q.rs[0].nrows, better);
    cr_assert_eq((int64_t)q.rs[1].nrows, worse);
    for (size_t i = 0; i < q.rs[0].nrows; i++)
        cr_assert_gt(cell_int(&q.rs[0], i, "hb_minus_rip"), 0);
    for (size_t i = 0; i < q.rs[1].nrows; i++)
        cr_assert_lt(cell_int(&q.rs[1], i, "hb_minus_rip"), 0);
    int64_t per_gen = 0;
    for (size_t i = 0; i < q.rs[2].nrows; i++)
        per_gen += cell_int(&q.rs[2], i, "rip_better") + cell_int(&q.rs[2], i, "equal") +
                   cell_int(&q.rs[2], i, "hb_better");
    cr_assert_eq(per_gen, SWEEP_N);
    query_free(&q);
}

Test(report, verdict_share_by_tier_totals)
{
    query_out q = run_query_file("verdict_share_by_tier.sql");
    cr_assert_eq(q.n, 1);
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    int alls = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const char *f = cell(r, i, "formula");
        if (strcmp(cell(r, i, "tier"), "all") == 0) {
            alls++;
            cr_assert_eq(cell_int(r, i, "judged"),
                         q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict != 'n/a'", f));
            cr_assert_eq(cell_int(r, i, "layers"), SWEEP_N);
        } else {
            cr_assert_eq(cell_int(r, i, "tight"),
                         q_int(db, "SELECT count(*) FROM verdicts v JOIN layers l USING (run_id, layer_idx) "
                                   "WHERE v.formula = %Q AND v.verdict = 'tight' AND l.tier = %s", f, cell(r, i, "tier")));
        }
    }
    cr_assert_eq(alls, 7, "one total row per judged formula");
    query_free(&q);
    sqlite3_close(db);
}

Test(report, loose_margin_by_generator_sums)
{
    query_out q = run_query_file("loose_margin_by_generator.sql");
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    for (size_t k = 0; k < sizeof judged_formulas / sizeof judged_formulas[0]; k++) {
        int64_t sum = 0;
        for (size_t i = 0; i < r->nrows; i++)
            if (strcmp(cell(r, i, "formula"), judged_formulas[k]) == 0)
                sum += cell_int(r, i, "loose");
        cr_assert_eq(sum, q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'loose'",
                                judged_formulas[k]), "%s", judged_formulas[k]);
    }
    query_free(&q);
    sqlite3_close(db);
}

Test(report, dense_vs_padded_summary)
{
    query_out q = run_query_file("dense_vs_padded.sql");
    cr_assert_eq(q.n, 2);
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    cr_assert_eq(q.rs[0].nrows, 2);
    cr_assert_str_eq(cell(&q.rs[0], 0, "tap_order"), "taps");
    cr_assert_eq(cell_int(&q.rs[0], 0, "layers"),
                 q_int(db, "SELECT count(*) FROM verdicts WHERE formula = 'thm13_taps' AND value IS NOT NULL"));
    /* the second result lists exactly the layers the first one counts as breaking */
    int64_t breaking = 0;
    for (size_t i = 0; i < q.rs[1].nrows; i++)
        breaking += strcmp(cell(&q.rs[1], i, "breaks"), "") != 0;
    int64_t counted = 0;
    for (size_t i = 0; i < 2; i++)
        counted += (cell_int(&q.rs[0], i, "layers") - cell_int(&q.rs[0], i, "dense_ws_le_padded")) +
                   (cell_int(&q.rs[0], i, "padded_layers") - cell_int(&q.rs[0], i, "padded_strictly_less"));
    cr_assert_leq(counted, breaking);
    query_free(&q);
    sqlite3_close(db);
}

/*
** Clopper-Pearson bounds where GSL's inverse beta does not converge (it
** fails for small shares of large runs, e.g. 5 of 15,000, and its default
** handler then aborted `ripsim claims`): pinned to an outside computation,
** mpmath's regularized incomplete beta at 40 digits, bisected (k = 0: the
** closed form 1 - 0.025^(1/n)).
*/
Test(report, clopper_pearson_holds_for_small_shares_of_large_runs)
{
    static const struct { int64_t k, n; double lo, hi; } pin[] = {
        {5, 15000, 0.0108241001054, 0.0777715910578},
        {52, 15000, 0.259012348226, 0.454361743016},
        {0, 15000, 0.0, 0.0245895059794},
    };
    char err[RIP_ERR_LEN];
    rip_ci ci;
    for (size_t i = 0; i < sizeof pin / sizeof pin[0]; i++) {
        cr_assert_eq(rip_ci_share(pin[i].k, pin[i].n, 0.95, &ci, err), RIP_OK, "%s", err);
        double lo = 100.0 * ci.lo, hi = 100.0 * ci.hi;
        cr_expect(fabs(lo - pin[i].lo) < 1e-9 && fabs(hi - pin[i].hi) < 1e-9, "%lld of %lld: %.12f-%.12f, want %.12f-%.12f",
                  (long long)pin[i].k, (long long)pin[i].n, lo, hi, pin[i].lo, pin[i].hi);
    }
    cr_assert_eq(rip_ci_share(15000, 15000, 0.95, &ci, err), RIP_OK, "%s", err);
    cr_expect(ci.hi == 1.0 && fabs(100.0 * ci.lo - (100.0 - 0.0245895059794)) < 1e-9, "%.12f-%.12f", ci.lo, ci.hi);
}
