/*
** test_schema.c — schema version 5's additions for the researcher (issue
** 23 items 2 and 3): a database row pastes back into the CLI, and every
** column is documented.
**
**   - The spec column of layer_wide, pasted into `ripsim layer --json`,
**     gives the row's numbers: for 20 rows drawn at random (a fixed
**     splitmix seed) from a small sweep, every truth, every closed form,
**     n_in_read and the sizes equal what the sweep stored, an independent
**     path (the sweep computed them in its own process from its own draw).
**     The view's SQL SPEC equals rip_spec_format of the row on every row,
**     and `ripsim layer --db DB IDX` prints what pasting the spec prints.
**   - Every column of every table and view of a fresh database (PRAGMA
**     table_info, optima and optimum_gaps of sweep --optimum included) has
**     a row in table columns with a meaning, and columns names no other;
**     the README's section "Column dictionary" is `ripsim schema
**     --markdown` byte for byte, and `ripsim schema --db` of a fresh
**     database prints what `ripsim schema` prints.
*/
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpdir.h"
#include "db.h"
#include "db_dump.h"
#include "json_mini.h"
#include "run_cmd.h"
#include "spec.h"
#include "splitmix.h"

TEST_SUITE_WITH_TMPDIR(schema, 300);

#define N_LAYERS 300

/* A sweep of N_LAYERS layers (seed 23) into db, made once per test that needs it. */
static void small_sweep(const char *db, bool optimum)
{
    run_result *r = RUN("sweep", "--n", "300", "--seed", "23", "--db", db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    if (optimum) {
        r = RUN("sweep", "--n", "300", "--seed", "23", "--db", db, "--optimum", "4", "--quiet");
        cr_assert_eq(r->status, 0, "%s", r->err);
    }
}

/* The integer member key of o, which must be there (null: *is_null). */
static long long member(const jm *o, const char *key, bool *is_null)
{
    const jm *v = jm_get(o, key);
    cr_assert_not_null(v, "JSON lacks %s", key);
    *is_null = v->kind == JM_NULL;
    if (v->kind == JM_BOOL)
        return v->b;
    cr_assert(v->kind == JM_NULL || (v->kind == JM_NUM && v->is_int), "%s is not an integer", key);
    return v->kind == JM_NUM ? v->i : 0;
}

/* Compare column c of row st (NULL allowed) with the JSON member key of o. */
static void expect_same(sqlite3_stmt *st, int c, const jm *o, const char *key, const char *spec)
{
    bool null = false;
    long long got = member(o, key, &null);
    bool stored_null = sqlite3_column_type(st, c) == SQLITE_NULL;
    cr_expect_eq(null, stored_null, "%s: %s null %d in the CLI, %d in the database", spec, key, null, stored_null);
    if (!null && !stored_null)
        cr_expect_eq(got, sqlite3_column_int64(st, c), "%s: %s is %lld in the CLI, %lld in the database", spec, key,
                     got, (long long)sqlite3_column_int64(st, c));
}

/*
** Item 2's must-show: 20 random rows of layer_wide, each spec pasted into
** `ripsim layer --json`, give the row's numbers back.
*/
Test(schema, a_row_of_layer_wide_pastes_back_into_ripsim_layer)
{
    char db[320];
    snprintf(db, sizeof db, "%s", tmp("paste.db"));
    small_sweep(db, false);
    static const char *const truths[] = {"rip_padded_gather", "rip_padded_taps", "rip_dense_gather",
                                         "rip_dense_taps", "herringbone_taps", "herringbone_taps_reader",
                                         "herringbone_pruned"};
    static const char *const forms[] = {"gm2019_eq1", "corollary1", "thm11", "thm4_gather", "thm4_taps",
                                        "thm13_gather", "thm13_taps", "naive_workspace"};
    static const char *const sizes[] = {"h_out", "w_out", "restricted", "n_in_padded", "n_in_dense", "n_out"};
    sqlite3 *h;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h,
        "SELECT spec, rip_padded_gather, rip_padded_taps, rip_dense_gather, rip_dense_taps, herringbone_taps,"
        " herringbone_taps_reader, herringbone_pruned, gm2019_eq1, corollary1, thm11, thm4_gather, thm4_taps,"
        " thm13_gather, thm13_taps, naive_workspace, h_out, w_out, restricted, n_in_padded, n_in_dense, n_out,"
        " n_in_read FROM layer_wide WHERE layer_idx = ?", -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    rng_state = 0x2302;
    for (int k = 0; k < 20; k++) {
        int64_t idx = rng_int(0, N_LAYERS - 1);
        sqlite3_bind_int64(st, 1, idx);
        cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "layer %lld", (long long)idx);
        char spec[256];
        snprintf(spec, sizeof spec, "%s", (const char *)sqlite3_column_text(st, 0));
        run_result *r = RUN("layer", "--json", spec);
        cr_assert_eq(r->status, 0, "%s: %s", spec, r->err);
        char *pasted = strdup(r->out);
        char err[160];
        jm *o = jm_parse(r->out, strlen(r->out), err, sizeof err);
        cr_assert_not_null(o, "%s: %s", spec, err);
        const jm *t = jm_get(o, "truth"), *f = jm_get(o, "formulas"), *L = jm_get(o, "layer");
        cr_assert(t && f && L);
        for (int i = 0; i < 7; i++)
            expect_same(st, 1 + i, t, truths[i], spec);
        for (int i = 0; i < 8; i++)
            expect_same(st, 8 + i, f, forms[i], spec);
        for (int i = 0; i < 6; i++)
            expect_same(st, 16 + i, L, sizes[i], spec);
        expect_same(st, 22, o, "n_in_read", spec);
        const jm *js = jm_get(L, "spec");
        cr_expect(js && js->kind == JM_STR && strcmp(js->str, spec) == 0, "%s: --json's spec differs", spec);
        /* and through --db: the same object, after its layer_idx */
        char ix[24];
        snprintf(ix, sizeof ix, "%lld", (long long)idx);
        run_result *d = RUN("layer", "--json", "--db", db, ix);
        cr_assert_eq(d->status, 0, "%s", d->err);
        char want[64];
        int n = snprintf(want, sizeof want, "{\"layer_idx\":%lld,", (long long)idx);
        cr_expect(strncmp(d->out, want, (size_t)n) == 0 && strcmp(d->out + n, pasted + 1) == 0,
                  "--db %lld: %s\nSPEC: %s", (long long)idx, d->out, pasted);
        free(pasted);
        jm_free(o);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* The view's SPEC (SQL) is rip_spec_format's (C) on every row, and parses to the row's geometry. */
Test(schema, the_spec_column_is_the_canonical_spec_of_every_row)
{
    char db[320];
    snprintf(db, sizeof db, "%s", tmp("every.db"));
    small_sweep(db, false);
    sqlite3 *h;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT spec, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top,"
                                       " p_bottom, p_left, p_right, h_out, w_out FROM layers ORDER BY layer_idx",
                                    -1, &st, NULL), SQLITE_OK);
    int rows = 0, asym = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *spec = (const char *)sqlite3_column_text(st, 0);
        char err[RIP_ERR_LEN], back[256];
        rip_layer L;
        cr_assert_eq(rip_spec_parse(spec, &L, err), 0, "%s: %s", spec, err);
        const int64_t v[] = {L.cin, L.cout, L.h_in, L.w_in, L.k_h, L.k_w, L.s_h, L.s_w, L.d_h, L.d_w,
                             L.p_top, L.p_bottom, L.p_left, L.p_right, L.h_out, L.w_out};
        for (int i = 0; i < 16; i++)
            cr_expect_eq(v[i], sqlite3_column_int64(st, 1 + i), "%s: column %d", spec, 1 + i);
        rip_spec_format(&L, back, sizeof back);
        cr_expect_str_eq(back, spec);
        asym += strstr(spec, "pt=") != NULL;
        rows++;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    cr_expect_eq(rows, N_LAYERS);
    cr_expect_gt(asym, 0, "no row with per-side padding: the SQL's other branch is untested");
}

/* --db's errors: a word that is no index, an index not stored, a missing database. */
Test(schema, layer_db_errors)
{
    char db[320];
    snprintf(db, sizeof db, "%s", tmp("err.db"));
    run_result *r = RUN("sweep", "--n", "10", "--seed", "1", "--db", db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("layer", "--db", db, "x7");
    cr_expect_eq(r->status, 64, "%s", r->err);
    cr_expect_str_eq(r->err, "ripsim layer: --db: 'x7' is not a layer index (an integer >= 0)\n");
    r = RUN("layer", "--no-sim", "--db", db, "3", "10");
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "holds no layer 10"), "%s", r->err);
    cr_expect_not_null(strstr(r->out, "layer_idx  3 of "), "%s", r->out); /* the layers before it printed */
    r = RUN("layer", "--db", tmp("missing.db"), "1");
    cr_expect_eq(r->status, 66, "%s", r->err);
}

/* Every column of every table and view has its row in columns, and columns names no other. */
Test(schema, every_column_of_a_fresh_database_is_documented)
{
    char db[320];
    snprintf(db, sizeof db, "%s", tmp("fresh.db"));
    small_sweep(db, true);
    cr_assert_gt(db_scalar(db, "SELECT count(*) FROM optima"), 0);
    /* PRAGMA table_info over sqlite_master: independent of the doc table */
    int64_t cols = db_scalar(db, "SELECT count(*) FROM sqlite_master m JOIN pragma_table_info(m.name) p"
                                 " WHERE m.type IN ('table', 'view')");
    int64_t missing = db_scalar(db, "SELECT count(*) FROM sqlite_master m JOIN pragma_table_info(m.name) p"
                                    " WHERE m.type IN ('table', 'view') AND NOT EXISTS (SELECT 1 FROM columns c"
                                    " WHERE c.table_name = m.name AND c.column_name = p.name AND length(c.meaning) > 0)");
    int64_t extra = db_scalar(db, "SELECT count(*) FROM columns c WHERE NOT EXISTS (SELECT 1 FROM sqlite_master m"
                                  " JOIN pragma_table_info(m.name) p WHERE m.name = c.table_name AND p.name = c.column_name)");
    cr_expect_gt(cols, 200);
    cr_expect_eq(missing, 0, "%lld of %lld columns undocumented", (long long)missing, (long long)cols);
    cr_expect_eq(extra, 0);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM columns"), cols);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view')"), 17);
    /* a closed form is judged against its truth column */
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM columns c JOIN formulas f ON f.formula = c.column_name"
                               " WHERE c.table_name = 'layer_results' AND c.judged_against IS f.exec_config"), 8);
    /* ripsim schema --db of a database this ripsim made prints ripsim schema */
    run_result *a = RUN("schema");
    cr_assert_eq(a->status, 0, "%s", a->err);
    char *want = strdup(a->out);
    run_result *b = RUN("schema", "--db", db);
    cr_assert_eq(b->status, 0, "%s", b->err);
    cr_expect_str_eq(b->out, want);
    free(want);
}

/* The README's "Column dictionary" is `ripsim schema --markdown`, byte for byte. */
Test(schema, readme_section_is_ripsim_schema_markdown)
{
    const char *dir = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/../README.md", dir);
    size_t n;
    char *readme = slurp_file(path, &n);
    static const char begin[] = "<!-- BEGIN ripsim schema --markdown -->\n", end[] = "<!-- END ripsim schema --markdown -->";
    char *b = strstr(readme, begin), *e = b ? strstr(b, end) : NULL;
    cr_assert(b && e, "README.md lacks the markers of its column dictionary");
    b += strlen(begin);
    *e = '\0';
    run_result *r = RUN("schema", "--markdown");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_eq(b, r->out, "README.md's column dictionary is stale: paste `build/ripsim schema --markdown` "
                     "between its markers");
    free(readme);
}
