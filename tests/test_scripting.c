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

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/ripsim-scripting-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(scripting, .init = make_dir, .fini = remove_dir);

static const char *in_dir(const char *name)
{
    static char paths[8][160];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

/*
** The integer json_extract(json, path) as SQLite reads it; cr_assert that
** json is valid JSON first.
*/
static int64_t json_int(const char *json, const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT json_valid(?1), json_extract(?1, ?2)", -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_eq(sqlite3_column_int(st, 0), 1, "not valid JSON:\n%s", json);
    cr_assert_neq(sqlite3_column_type(st, 1), SQLITE_NULL, "no %s in\n%s", path, json);
    int64_t v = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

Test(scripting, sweep_json_is_the_database)
{
    const char *db = in_dir("s.db");
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
        int64_t k = -1;
        for (int i = 0; i < 16 && k < 0; i++) {
            char path[64];
            snprintf(path, sizeof path, "$.verdicts[%d].formula", i);
            /* json_int asserts a value: look the formula up by its string instead */
            sqlite3 *m;
            sqlite3_stmt *q;
            cr_assert_eq(sqlite3_open(":memory:", &m), SQLITE_OK);
            cr_assert_eq(sqlite3_prepare_v2(m, "SELECT json_extract(?1, ?2) = ?3", -1, &q, NULL), SQLITE_OK);
            sqlite3_bind_text(q, 1, json, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 2, path, -1, SQLITE_STATIC);
            sqlite3_bind_text(q, 3, f, -1, SQLITE_STATIC);
            if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1)
                k = i;
            sqlite3_finalize(q);
            sqlite3_close(m);
        }
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
    const char *a = in_dir("a.db"), *b = in_dir("b.db");
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
    const char *s0 = in_dir("s0.db"), *s1 = in_dir("s1.db"), *m = in_dir("m.db"), *rep = in_dir("r.md");
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
    r = RUN("merge", in_dir("m2.db"), s0);
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
