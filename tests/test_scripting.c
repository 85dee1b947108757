/*
** test_scripting.c — the command line as scripts use it (issue 23 items 4
** and 5): JSON summaries of sweep, merge and report, checked against the
** database through SQLite's own JSON functions (an independent reader);
** --quiet that prints nothing; one database convention (--db FILE or the
** one positional word; merge --out); `help CMD`; "did you mean"; the short
** options; and --no-fsync, whose rows equal a durable sweep's.
**
** The binary under test is $RIPSIM_BIN (set by tests/meson.build).
*/
#include <sqlite3.h>

#include "db_dump.h"
#include "run_cmd.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(scripting, 300);

/*
** The integer that SQLite's json functions compute from json with sql (?1 is
** the JSON text, ?2 the argument); cr_assert that json is valid JSON and
** the result is not NULL.
*/
static int64_t json_query(const char *json, const char *sql, const char *arg)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, arg, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_neq(sqlite3_column_type(st, 0), SQLITE_NULL, "%s (%s) is NULL on\n%s", sql, arg, json);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* json_extract(json, path), json being valid JSON. */
static int64_t json_int(const char *json, const char *path)
{
    cr_assert_eq(json_query(json, "SELECT json_valid(?1) + 0 * length(?2)", path), 1, "not JSON:\n%s", json);
    return json_query(json, "SELECT json_extract(?1, ?2)", path);
}

Test(scripting, sweep_json_is_the_database)
{
    const char *db = tmp("s.db");
    run_result *r = RUN("sweep", "--n", "120", "--seed", "5", "--jobs", "1", "--json", db);
    cr_assert_eq(r->status, 0, "%s", r->err);
    static char json[1 << 16];
    snprintf(json, sizeof json, "%s", r->out);
    cr_expect_eq(json_int(json, "$.n_layers"), 120);
    cr_expect_eq(json_int(json, "$.seed"), 5);
    cr_expect_eq(json_int(json, "$.layers_stored"), db_scalar(db, "SELECT count(*) FROM layers"));
    cr_expect_eq(json_int(json, "$.this_run.evaluated"), 120);
    cr_expect_eq(json_int(json, "$.this_run.already_done"), 0);
    /* every verdict row of the JSON equals the database's count, formula by formula */
    sqlite3 *d;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT formula, sum(verdict = 'tight'), sum(verdict = 'unsafe') FROM verdicts "
                                       "GROUP BY formula ORDER BY formula", -1, &st, NULL), SQLITE_OK,
                 "%s", sqlite3_errmsg(d));
    int formulas = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *f = (const char *)sqlite3_column_text(st, 0);
        /* the formula's place in the JSON's verdicts array */
        int64_t k = json_query(json, "SELECT coalesce((SELECT key FROM json_each(?1, '$.verdicts') "
                                     "WHERE json_extract(value, '$.formula') = ?2), -1)", f);
        cr_assert_geq(k, 0, "formula %s is not in the JSON summary", f);
        char path[64];
        snprintf(path, sizeof path, "$.verdicts[%lld].tight", (long long)k);
        cr_expect_eq(json_int(json, path), sqlite3_column_int64(st, 1), "%s tight", f);
        snprintf(path, sizeof path, "$.verdicts[%lld].unsafe", (long long)k);
        cr_expect_eq(json_int(json, path), sqlite3_column_int64(st, 2), "%s unsafe", f);
        formulas++;
    }
    sqlite3_finalize(st);
    sqlite3_close(d);
    cr_expect_geq(formulas, 7);
    /* a rerun has nothing to do, and says so in the same form */
    r = RUN("sweep", "--n", "120", "--seed", "5", "--db", db, "-j", "1", "--json");
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(json, sizeof json, "%s", r->out);
    cr_expect_eq(json_int(json, "$.this_run.evaluated"), 0);
    cr_expect_eq(json_int(json, "$.this_run.already_done"), 120);
}

Test(scripting, quiet_prints_nothing_and_no_fsync_keeps_the_rows)
{
    const char *a = tmp("a.db"), *b = tmp("b.db");
    run_result *r = RUN("sweep", "-n", "80", "--seed", "3", "-q", "--db", a);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_empty(r->out, "--quiet printed: %s", r->out);
    cr_expect_str_empty(r->err, "--quiet printed: %s", r->err);
    r = RUN("sweep", "-n", "80", "--seed", "3", "-q", "--no-fsync", b);
    cr_assert_eq(r->status, 0, "%s", r->err);
    static const char *const q[] = {"SELECT * FROM layer_wide ORDER BY layer_idx"};
    char *da = db_dump(a, q, 1), *dbb = db_dump(b, q, 1);
    cr_expect_str_eq(da, dbb, "a sweep without fsync stores other rows");
    free(da);
    free(dbb);
    r = RUN("sweep", "--quiet", "--json", a);
    cr_expect_eq(r->status, 64, "--quiet --json: %d", r->status);
}

Test(scripting, one_database_convention)
{
    const char *s0 = tmp("s0.db"), *s1 = tmp("s1.db"), *m = tmp("m.db"), *rep = tmp("r.md");
    cr_assert_eq(RUN("sweep", "-q", "-n", "60", "--shard", "0/2", s0)->status, 0);
    cr_assert_eq(RUN("sweep", "-q", "-n", "60", "--shard", "1/2", "--db", s1)->status, 0);
    run_result *r = RUN("merge", "--json", "-o", m, s0, s1);
    cr_assert_eq(r->status, 0, "%s", r->err);
    static char json[1 << 16];
    snprintf(json, sizeof json, "%s", r->out);
    cr_expect_eq(json_int(json, "$.layers"), 60);
    cr_expect_eq(json_int(json, "$.missing"), 0);
    cr_expect_eq(json_int(json, "$.inputs"), 2);
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM layers"), 60);
    /* the positional OUT.db form stays */
    r = RUN("merge", tmp("m2.db"), s0);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "30 layers are missing"), "%s", r->out);
    /* report: the database positional or --db, the same report */
    r = RUN("report", m);
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *positional = strdup(r->out);
    r = RUN("report", "--db", m);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_eq(positional, r->out);
    free(positional);
    r = RUN("report", "--db", m, s0);
    cr_expect_eq(r->status, 64, "two databases: %d", r->status);
    cr_expect_not_null(strstr(r->err, "given twice"), "%s", r->err);
    r = RUN("report", m, "-o", rep, "--json");
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(json, sizeof json, "%s", r->out);
    size_t n;
    free(slurp_file(rep, &n));
    cr_expect_eq(json_int(json, "$.bytes"), (int64_t)n);
    cr_expect_eq(json_int(json, "$.layers_present"), 60);
    cr_expect_eq(RUN("report", m, "--json")->status, 64, "--json without --out");
}

Test(scripting, help_cmd_and_did_you_mean)
{
    run_result *r = RUN("sweep", "--help");
    cr_assert_eq(r->status, 0);
    char *want = strdup(r->out);
    r = RUN("help", "sweep");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_str_eq(r->out, want, "help sweep is sweep --help");
    free(want);
    cr_expect_not_null(strstr(r->out, "-j, --jobs J"), "%s", r->out);
    r = RUN("swep");
    cr_expect_eq(r->status, 64);
    cr_expect_not_null(strstr(r->err, "did you mean 'sweep'?"), "%s", r->err);
    r = RUN("help", "repot");
    cr_expect_eq(r->status, 64);
    cr_expect_not_null(strstr(r->err, "did you mean 'report'?"), "%s", r->err);
    r = RUN("sweep", "--seeed", "3");
    cr_expect_eq(r->status, 64);
    cr_expect_not_null(strstr(r->err, "did you mean '--seed'?"), "%s", r->err);
    r = RUN("frobnicate");
    cr_expect_eq(r->status, 64);
    cr_expect_null(strstr(r->err, "did you mean"), "%s", r->err);
}
