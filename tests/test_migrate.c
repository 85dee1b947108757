/*
** test_migrate.c — schema version 3 and `ripsim migrate` (issue 11, item 4).
**
** The version 2 databases here are written by db_make_old (db_dump.h): the
** version 2 schema of an older ripsim, its tables filled with the rows a
** version 3 database gives through its views.  So a migration must give
** back exactly the rows the database started from; the saved queries of
** results/queries/ must answer the same over the version 2 tables and over
** the version 3 views; and a migration killed at any moment must leave
** either the untouched version 2 file or the whole version 3 one.
*/
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tmpdir.h"
#include "db.h"
#include "db_dump.h"
#include "run_cmd.h"

TEST_SUITE_WITH_TMPDIR(migrate, 300);

/* Every deterministic row, through the names of version 2 and the tables of version 3 (runs: in the
** columns of version 4; what migrate records for version 5's provenance is tested on its own). */
static char *dump(const char *path)
{
    static const char *const q[] = {
        "SELECT " DB_RUNS_V4_COLS " FROM runs",
        "SELECT * FROM layers ORDER BY run_id, layer_idx",
        "SELECT * FROM truths ORDER BY run_id, layer_idx, exec_config",
        "SELECT * FROM verdicts ORDER BY run_id, layer_idx, formula",
        "SELECT * FROM verdict_summary",
        "SELECT * FROM formulas ORDER BY formula",
        "SELECT * FROM generators ORDER BY generator",
        "SELECT * FROM executions ORDER BY run_id, layer_idx, exec_config",
        "PRAGMA user_version",
    };
    return db_dump(path, q, sizeof q / sizeof q[0]);
}

static void sweep(const char *db, const char *n, const char *seed, bool execute)
{
    run_result *r = execute ? RUN("sweep", "--execute", "--n", n, "--seed", seed, "--db", db, "--quiet")
                            : RUN("sweep", "--n", n, "--seed", seed, "--db", db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
}

/* The version 3 views give the rows of version 2 and the layer_wide columns line up. */
Test(migrate, version_2_converts_back_to_every_row)
{
    char v3[320], v2[320];
    snprintf(v3, sizeof v3, "%s", tmp("a3.db"));
    snprintf(v2, sizeof v2, "%s", tmp("a2.db"));
    sweep(v3, "40", "9", true);
    db_make_old(v3, v2, 2);
    char *want = dump(v3), first[256];
    int files = entries(tmpdir, first, sizeof first);
    run_result *r = RUN("migrate", "--db", v2);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "schema version 2 -> 5, 40 layers"), "%s", r->out);
    cr_expect_eq(entries(tmpdir, first, sizeof first), files, "a temporary file was left (%s)", first);
    char *got = dump(v2);
    cr_expect_str_eq(got, want);
    cr_expect_eq(db_scalar(v2, "SELECT count(*) FROM run_log WHERE event = 'migrate'"), 1);
    /* the run goes on: a rerun has nothing to do, and the summary is the same */
    r = RUN("sweep", "--execute", "--n", "40", "--seed", "9", "--db", v2);
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "this run: 0 layers in"), "%s", r->out);
    /* a second migrate leaves it byte for byte */
    size_t n0, n1;
    char *before = slurp_file(v2, &n0);
    r = RUN("migrate", "--db", v2);
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "nothing to do"), "%s", r->out);
    char *after = slurp_file(v2, &n1);
    cr_expect(n0 == n1 && memcmp(before, after, n0) == 0);
    free(want);
    free(got);
    free(before);
    free(after);
}

/*
** Version 3 (one row per layer, six configurations) converts to version 5:
** every row of the original comes back, and the truths migrate adds for
** herringbone_pruned are the ones a version 5 sweep of the same run wrote
** (the original, before db_make_old dropped them).
*/
Test(migrate, version_3_converts_back_to_every_row)
{
    char v4[320], v3[320], first[256];
    snprintf(v4, sizeof v4, "%s", tmp("b4.db"));
    snprintf(v3, sizeof v3, "%s", tmp("b3.db"));
    sweep(v4, "60", "11", true);
    db_make_old(v4, v3, 3);
    cr_assert_eq(db_scalar(v3, "SELECT count(*) FROM truths WHERE exec_config = 'herringbone_pruned'"), 0);
    /* a version 3 database is refused by the commands that read, with the hint */
    run_result *r = RUN("report", "--db", v3);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "ripsim migrate --db"), "%s", r->err);
    char *want = dump(v4);
    int files = entries(tmpdir, first, sizeof first);
    r = RUN("migrate", "--db", v3);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "schema version 3 -> 5, 60 layers"), "%s", r->out);
    cr_expect_eq(entries(tmpdir, first, sizeof first), files, "a temporary file was left (%s)", first);
    char *got = dump(v3);
    cr_expect_str_eq(got, want);
    cr_expect_eq(db_scalar(v3, "SELECT count(*) FROM truths WHERE exec_config = 'herringbone_pruned'"), 60);
    r = RUN("report", "--db", v3);
    cr_expect_eq(r->status, 0, "%s", r->err);
    free(want);
    free(got);
}

/*
** Version 4 (no provenance in runs, no SPEC, no column dictionary)
** converts to version 5: every row comes back, the optima of sweep
** --optimum too; the provenance it never recorded says 'unrecorded' (not
** this binary's commit), and the run resumes (an unrecorded fingerprint
** matches any).  The SPEC and the dictionary are the version 5 sweep's.
*/
Test(migrate, version_4_converts_back_to_every_row)
{
    char v5[320], v4[320], first[256];
    snprintf(v5, sizeof v5, "%s", tmp("c5.db"));
    snprintf(v4, sizeof v4, "%s", tmp("c4.db"));
    sweep(v5, "50", "13", true);
    run_result *r = RUN("sweep", "--n", "50", "--seed", "13", "--db", v5, "--optimum", "6", "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_assert_gt(db_scalar(v5, "SELECT count(*) FROM optima"), 0);
    db_make_old(v5, v4, 4);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(v4, &h), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(h, rip_db_optima_sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    sqlite3_close(h);
    char *sql = sqlite3_mprintf("ATTACH %Q AS s; INSERT INTO optima SELECT * FROM s.optima;", v5);
    cr_assert_eq(sqlite3_open(v4, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    sqlite3_close(h);
    sqlite3_free(sql);
    cr_assert_eq(db_scalar(v4, "PRAGMA user_version"), 4);
    r = RUN("report", "--db", v4);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "ripsim migrate --db"), "%s", r->err);
    char *want = dump(v5);
    int files = entries(tmpdir, first, sizeof first);
    r = RUN("migrate", "--db", v4);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "schema version 4 -> 5, 50 layers"), "%s", r->out);
    cr_expect_eq(entries(tmpdir, first, sizeof first), files, "a temporary file was left (%s)", first);
    char *got = dump(v4);
    cr_expect_str_eq(got, want);
    static const char *const same[] = {
        "SELECT * FROM optima ORDER BY layer_idx", "SELECT * FROM optimum_gaps ORDER BY layer_idx",
        "SELECT spec FROM layer_wide ORDER BY layer_idx", "SELECT * FROM columns ORDER BY table_name, column_name",
        "SELECT * FROM layer_results ORDER BY layer_idx"};
    char *a = db_dump(v5, same, 5), *b = db_dump(v4, same, 5);
    cr_expect_str_eq(b, a);
    cr_expect_eq(db_scalar(v4, "SELECT count(*) FROM runs WHERE source_commit = 'unrecorded' AND "
                               "generator_fingerprint = 'unrecorded'"), 1);
    r = RUN("sweep", "--execute", "--n", "50", "--seed", "13", "--db", v4);
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect_not_null(strstr(r->out, "this run: 0 layers in"), "%s", r->out);
    free(want);
    free(got);
    free(a);
    free(b);
}

/* layer_wide: one row per layer, a column per configuration and formula, equal to the long views. */
Test(migrate, wide_view_has_one_row_per_layer_and_a_column_each)
{
    const char *db = tmp("w.db");
    sweep(db, "300", "4", false);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layer_wide"), 300);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM pragma_table_info('layer_wide') p JOIN configs c"
                            " ON c.exec_config = p.name"), 7);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM pragma_table_info('layer_wide') p JOIN formulas f"
                            " ON f.formula = p.name"), 8);
    /* gap of rip_dense_taps and value of thm13_taps through both shapes */
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layer_wide w JOIN truths t ON t.layer_idx = w.layer_idx"
                            " AND t.exec_config = 'rip_dense_taps' WHERE t.gap = w.rip_dense_taps"), 300);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layer_wide w JOIN verdicts v ON v.layer_idx = w.layer_idx"
                            " AND v.formula = 'thm13_taps' WHERE v.value IS w.thm13_taps"), 300);
    /* herringbone_pruned's workspace is its gap plus the read input, never more than the padded input */
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layer_wide w JOIN truths t ON t.layer_idx = w.layer_idx"
                            " AND t.exec_config = 'herringbone_pruned' WHERE t.gap = w.herringbone_pruned"
                            " AND t.workspace = w.herringbone_pruned + w.n_in_read AND w.n_in_read > 0"
                            " AND w.n_in_read <= w.n_in_padded"), 300);
    /* the schema's own size goal: at most 400 bytes per layer, besides the column dictionary (a fixed 32 KiB) */
    cr_expect_leq(db_scalar(db, "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size") -
                      db_scalar(db, "SELECT sum(pgsize) FROM dbstat WHERE name IN ('columns', "
                                    "'sqlite_autoindex_columns_1')"), 300 * 400);
    cr_expect_leq(db_scalar(db, "SELECT sum(pgsize) FROM dbstat WHERE name IN ('columns', "
                                "'sqlite_autoindex_columns_1')"), 40 * 1024);
}

/* Every statement of results/queries/ gives the same rows over version 2 tables and version 3 views. */
Test(migrate, saved_queries_run_unchanged)
{
    char v3[320], v2[320];
    snprintf(v3, sizeof v3, "%s", tmp("q3.db"));
    snprintf(v2, sizeof v2, "%s", tmp("q2.db"));
    sweep(v3, "600", "20261129", false);
    db_make_old(v3, v2, 2);
    const char *dir = getenv("RIPSIM_QUERIES_DIR");
    cr_assert_not_null(dir);
    static const char *const files[] = {"dense_taps_loose.sql", "dense_vs_padded.sql", "gm_shortfall.sql",
                                        "loose_margin_by_generator.sql", "rip_vs_herringbone.sql",
                                        "unsafe_verdicts.sql", "verdict_share_by_tier.sql"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1024];
        size_t n;
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        char *sql = slurp_file(path, &n);
        /* db_dump runs one statement per query: split the file at its statements */
        const char *q[8];
        size_t nq = 0;
        sqlite3 *db;
        cr_assert_eq(sqlite3_open_v2(v3, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
        for (const char *tail = sql; *tail && nq < 8;) {
            sqlite3_stmt *st = NULL;
            const char *next;
            cr_assert_eq(sqlite3_prepare_v2(db, tail, -1, &st, &next), SQLITE_OK, "%s: %s", files[i],
                         sqlite3_errmsg(db));
            if (st)
                q[nq++] = strndup(tail, (size_t)(next - tail));
            sqlite3_finalize(st);
            tail = next;
        }
        sqlite3_close(db);
        cr_assert_gt(nq, 0);
        char *a = db_dump(v2, q, nq), *b = db_dump(v3, q, nq);
        cr_expect_str_eq(b, a, "%s differs over the views", files[i]);
        cr_expect_gt(strlen(a), 0, "%s returned nothing", files[i]);
        for (size_t k = 0; k < nq; k++)
            free((char *)q[k]);
        free(a);
        free(b);
        free(sql);
    }
}

/*
** A migration killed at any point loses nothing: ripsim-testhooks raises
** SIGKILL when the migration reports stage K (RIPSIM_TEST_MIGRATE_KILL_AT,
** src/cli/cmd_migrate.c): before the copy is created, while it is
** converted, checked, and put in place, the version 2 file is byte for
** byte as it was; once it is in place, it is the complete version 5 file.
** Either way a second migrate finishes the job.  Stopped at exact points,
** not after a time, so a loaded machine sees the same (issue 22 item 6).
*/
Test(migrate, killed_migration_loses_nothing)
{
    char v3[320], v2[320], db[320];
    snprintf(v3, sizeof v3, "%s", tmp("k3.db"));
    snprintf(v2, sizeof v2, "%s", tmp("k2.db"));
    snprintf(db, sizeof db, "%s", tmp("k.db"));
    sweep(v3, "1500", "3", false);
    db_make_old(v3, v2, 2);
    char *want = dump(v3);
    size_t n2;
    char *old = slurp_file(v2, &n2);
    for (int k = 0; k <= 4; k++) {
        copy_file(v2, db);
        char hook[64];
        snprintf(hook, sizeof hook, "RIPSIM_TEST_MIGRATE_KILL_AT=%d", k);
        run_result *killed = RUN_HOOK(hook, "migrate", "--db", db);
        cr_expect_eq(killed->status, 128 + SIGKILL, "stage %d: status %d (%s)", k, killed->status, killed->err);
        if (k < 4) {
            cr_expect_eq(db_scalar(db, "PRAGMA user_version"), 2, "stage %d: converted before it was put in place", k);
            size_t n;
            char *now = slurp_file(db, &n);
            cr_expect(n == n2 && memcmp(now, old, n) == 0, "killed at stage %d: the version 2 file changed", k);
            free(now);
        } else {
            char *got = dump(db);
            cr_expect_str_eq(got, want, "killed once in place: the version 5 file is incomplete");
            free(got);
        }
        /* whatever the kill left (a stale temporary beside it too), migrate then finishes the job */
        run_result *r = RUN("migrate", "--db", db);
        cr_expect_eq(r->status, 0, "stage %d: %s", k, r->err);
        char *got = dump(db);
        cr_expect_str_eq(got, want, "stage %d: the rerun's result", k);
        free(got);
    }
    free(want);
    free(old);
}

/* A damaged version 2 database, or a foreign file, is refused and left as it was, with no file beside it. */
Test(migrate, damaged_or_foreign_input_is_refused_untouched)
{
    char v3[320], v2[320];
    snprintf(v3, sizeof v3, "%s", tmp("d3.db"));
    snprintf(v2, sizeof v2, "%s", tmp("d2.db"));
    sweep(v3, "30", "2", false);
    db_make_old(v3, v2, 2);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(v2, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "DELETE FROM truths WHERE layer_idx = 7", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    const char *foreign = tmp("photos.db");
    cr_assert_eq(sqlite3_open(foreign, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "CREATE TABLE photos (id INTEGER PRIMARY KEY)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    const char *const bad[] = {v2, foreign};
    for (int i = 0; i < 2; i++) {
        size_t n0, n1;
        char *before = slurp_file(bad[i], &n0), first[256];
        int files = entries(tmpdir, first, sizeof first);
        run_result *r = RUN("migrate", "--db", bad[i]);
        cr_expect_eq(r->status, 65, "%s: %d %s", bad[i], r->status, r->err);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect_not_null(strstr(r->err, i == 0 ? "damaged" : "not a ripsim database"), "%s", r->err);
        char *after = slurp_file(bad[i], &n1);
        cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "%s was modified", bad[i]);
        cr_expect_eq(entries(tmpdir, first, sizeof first), files, "a file was left beside it (%s)", first);
        free(before);
        free(after);
    }
    run_result *r = RUN("migrate", "--db", tmp("missing.db"));
    cr_expect_eq(r->status, 66, "%s", r->err);
}
