/*
** test_report.c — `ripsim report` and the results/queries files on real databases.
**
** Before any test runs, the PRE_ALL hook (in the runner process, whose
** environment every test inherits) makes a temporary directory with:
**   sweep.db    a real sweep: `ripsim sweep --n 200 --seed 7`;
**   tab2.db     a hand-made database of the seven layers of paper Tab. 2,
**               the loose example of App. F.4 and one padded layer, each
**               evaluated in-process by rip_evaluate(), so the report can
**               be held to the paper's own numbers (3 unsafe, Lemma 9 on
**               3 of 3, Eq. 1 over by up to 48,620 scalars);
**   and the broken databases of the error cases.
** POST_ALL removes it (set RIPSIM_REPORT_KEEP=1 to keep it for debugging).
**
** Every figure the tests check in a report is recomputed here with the
** test's own SQL (or C over the raw rows), never read back from the view
** the report uses.  Environment: RIPSIM_BIN (the binary) and
** RIPSIM_QUERIES_DIR (results/queries), both set by tests/meson.build.
** The suite's tests are in this file (the setup hooks, the Markdown report)
** and in report_checks.c and report_queries.c; their shared helpers in
** report_util.h.
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
#include "stored_rows.h"
#include "evaluate.h"
#include "confidence.h"
#include "layer.h"
#include "report_util.h"

#define SWEEP_SEED "7"

/* The column dictionary, as the creation of a database writes it; 0 or -1. */
static int fill_columns(sqlite3 *db)
{
    char err[RIP_ERR_LEN];
    return rip_db_fill_columns(db, err) == RIP_OK ? 0 : -1;
}

/* A new database at path with the schema of version 2 (filled by insert_layer,
** then converted by rip_db_migrate) or RIP_DB_SCHEMA_VERSION, the current one
** (its configs and column dictionary filled); NULL on failure. */
static sqlite3 *new_schema_db(const char *path, int version)
{
    sqlite3 *db = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        exec_sql(db, version == 2 ? rip_db_schema_v2_sql : rip_db_schema_sql) != 0 ||
        exec_sql(db, version == 2 ? "PRAGMA user_version = 2" : "PRAGMA user_version = 5") != 0 ||
        (version == RIP_DB_SCHEMA_VERSION && exec_sql(db, "INSERT INTO configs VALUES ('rip_padded_gather', 0, 0, 0), "
                                      "('rip_padded_taps', 1, 0, 0), ('rip_dense_gather', 2, 1, 0), "
                                      "('rip_dense_taps', 3, 1, 0), ('herringbone_taps', 4, 0, 0), "
                                      "('herringbone_taps_reader', 5, 0, 0), ('herringbone_pruned', 6, 0, 1)") != 0) ||
        (version == RIP_DB_SCHEMA_VERSION && fill_columns(db) != 0)) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

/* Insert one evaluated layer (rows of layers, truths, verdicts); 0 or -1. */
static int insert_layer(sqlite3 *db, int idx, const char *gen, int tier, rip_layer L)
{
    char err[RIP_ERR_LEN];
    rip_eval ev;
    if (rip_layer_derive(&L, err) != 0 || rip_evaluate(&L, RIP_ENGINE_FAST, true, &ev, err) != 0)
        return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db,
        "INSERT INTO layers VALUES (1,?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,"
        "?20,?21,?22,?23,?24,?25)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        int64_t v[] = {L.cin, L.cout, L.h_in, L.w_in, L.k_h, L.k_w, L.s_h, L.s_w, L.d_h, L.d_w,
                       L.p_top, L.p_left, L.p_top, L.p_bottom, L.p_left, L.p_right, L.h_out, L.w_out,
                       rip_layer_is_restricted(&L), L.n_in_padded, L.n_in_dense, L.n_out};
        sqlite3_bind_int(st, 1, idx);
        sqlite3_bind_text(st, 2, gen, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, tier);
        for (int i = 0; i < 22; i++)
            sqlite3_bind_int64(st, 4 + i, v[i]);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO truths VALUES (1,?1,?2,?3,?4)", -1, &st, NULL);
    for (int e = 0; rc == SQLITE_OK && e < RIP_DB_V3_CONFIGS; e++) { /* version 2: no herringbone_pruned */
        bool dense = e == RIP_CONFIG_DENSE_GATHER || e == RIP_CONFIG_DENSE_TAPS;
        sqlite3_bind_int(st, 1, idx);
        sqlite3_bind_text(st, 2, rip_config_name((rip_config)e), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, ev.truth[e]);
        sqlite3_bind_int64(st, 4, ev.truth[e] + (dense ? L.n_in_dense : L.n_in_padded));
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO verdicts VALUES (1,?1,?2,?3,?4,?5,?6,?7)", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < ev.n_formulas; i++) {
        int j = ev.judged_by[i];
        sqlite3_bind_int(st, 1, idx);
        sqlite3_bind_text(st, 2, ev.info[i].name, -1, SQLITE_STATIC);
        if (ev.info[i].judged_by)
            sqlite3_bind_text(st, 3, ev.info[i].judged_by, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 3);
        if (ev.defined[i])
            sqlite3_bind_int64(st, 4, ev.value[i]);
        else
            sqlite3_bind_null(st, 4);
        if (j >= 0 && ev.verdict[i] != RIP_NA)
            sqlite3_bind_int64(st, 5, ev.truth[j]);
        else
            sqlite3_bind_null(st, 5);
        sqlite3_bind_text(st, 6, rip_verdict_name(ev.verdict[i]), -1, SQLITE_STATIC);
        if (ev.verdict[i] != RIP_NA)
            sqlite3_bind_int64(st, 7, ev.value[i] - ev.truth[j]);
        else
            sqlite3_bind_null(st, 7);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

/*
** tab2.db: paper Tab. 2 (seven restricted layers: three of Limitation 1,
** four of Limitation 2), the loose dense example of App. F.4, and one
** same-padded layer.  9 layers, run complete.
*/
static int make_tab2_db(const char *path)
{
    sqlite3 *db = new_schema_db(path, 2);
    if (!db)
        return -1;
    static const int tab2[7][4] = {{1, 5, 3, 14}, {5, 8, 3, 12}, {8, 11, 3, 10}, {3, 4, 5, 8},
                                   {8, 9, 7, 9}, {16, 17, 9, 12}, {16, 17, 15, 18}};
    int rc = exec_sql(db, "BEGIN");
    if (rc == 0)
        rc = exec_sql(db,
            "INSERT INTO runs VALUES (1, 0, 9, 0, 1, 'tab2:60,f4:20,padded:20', 'fixture');"
            "INSERT INTO generators VALUES ('tab2', 0, 2, 60, 'paper Tab. 2 rows', 'Tab. 2'),"
            " ('f4', 1, 3, 20, 'App. F.4 loose example', 'one layer'),"
            " ('padded', 2, 1, 20, 'same padding', 'one layer');");
    size_t nf;
    const rip_formula_info *f = rip_formulas(&nf);
    for (size_t i = 0; rc == 0 && i < nf; i++) {
        char *q = sqlite3_mprintf("INSERT INTO formulas VALUES (%Q, %d, %Q, %Q, %d)", f[i].name, (int)i,
                                  f[i].paper, f[i].judged_by, f[i].is_workspace);
        rc = q ? exec_sql(db, q) : -1;
        sqlite3_free(q);
    }
    for (int i = 0; rc == 0 && i < 7; i++)
        rc = insert_layer(db, i, "tab2", 2,
                          rip_layer_make(tab2[i][0], tab2[i][1], tab2[i][3], tab2[i][3], tab2[i][2], tab2[i][2],
                                         1, 1, 1, 1, 0, 0));
    if (rc == 0)
        rc = insert_layer(db, 7, "f4", 3, rip_layer_make(2, 2, 1, 1, 1, 2, 1, 1, 1, 2, 0, 1));
    if (rc == 0)
        rc = insert_layer(db, 8, "padded", 1, rip_layer_make(4, 8, 10, 10, 3, 3, 1, 1, 1, 1, 1, 1));
    if (rc == 0)
        rc = exec_sql(db, "COMMIT");
    sqlite3_close(db);
    /* written as schema version 2, the way the rows were written before; read as the current version */
    char err[RIP_ERR_LEN];
    int64_t from = 0, layers = 0;
    if (rc == 0 && rip_db_migrate(path, &from, &layers, rip_eval_pruned_row, NULL, err) != RIP_OK) {
        fprintf(stderr, "%s\n", err);
        rc = -1;
    }
    return rc;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    int rc = fputs(text, f) >= 0 ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

/* The broken and partial databases of the error cases. */
static int make_error_dbs(void)
{
    sqlite3 *db = NULL;
    int rc = write_text(in_dir("notdb.db"), "This is a text file, not an SQLite database; it is long enough "
                                            "that SQLite reads a header from it and rejects it.\n");
    unlink(in_dir("v99.db"));
    if (rc == 0 && (sqlite3_open(in_dir("v99.db"), &db) != SQLITE_OK ||
                    exec_sql(db, rip_db_schema_sql) != 0 || exec_sql(db, "PRAGMA user_version = 99") != 0))
        rc = -1;
    sqlite3_close(db);
    db = NULL;
    unlink(in_dir("foreign.db"));
    if (rc == 0 && (sqlite3_open(in_dir("foreign.db"), &db) != SQLITE_OK ||
                    exec_sql(db, "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)") != 0))
        rc = -1;
    sqlite3_close(db);
    if (rc == 0) {
        db = new_schema_db(in_dir("norun.db"), RIP_DB_SCHEMA_VERSION);
        rc = db ? 0 : -1;
        sqlite3_close(db);
    }
    if (rc == 0) {
        db = new_schema_db(in_dir("nolayers.db"), RIP_DB_SCHEMA_VERSION);
        rc = db ? exec_sql(db, "INSERT INTO runs VALUES (1, 7, 200, 0, 1, 'x', 'fixture', 'unknown', 'unrecorded')")
                : -1;
        sqlite3_close(db);
    }
    /* incomplete.db: the sweep with layers 150.. removed, as if interrupted */
    if (rc == 0)
        rc = altered_copy("incomplete.db", "DELETE FROM layer_results WHERE layer_idx >= 150;", rip_db_recount_sql);
    /* shifted.db: one thm11 verdict moved from tight to loose in verdict_counts; the
    ** per-formula sums still match the layers, so only the report's pass sees it */
    if (rc == 0)
        rc = altered_copy("shifted.db",
                          "UPDATE verdict_counts SET n = n - 1 WHERE verdict = 2 AND ord ="
                          " (SELECT ord FROM formulas WHERE formula = 'thm11');",
                          "INSERT INTO verdict_counts SELECT ord, 3, 1 FROM formulas WHERE formula = 'thm11'"
                          " ON CONFLICT DO UPDATE SET n = n + 1;");
    /* texty.db: a geometry value turned into text by hand; layer_results
    ** declares no column types, so SQLite keeps the text as it is */
    if (rc == 0)
        rc = altered_copy("texty.db", "UPDATE layer_results SET cin = 'three' WHERE layer_idx = 42;", "SELECT 1;");
    return rc;
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    const char *base = getenv("TMPDIR");
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/ripsim-report-XXXXXX", base && *base ? base : "/tmp");
    const char *why = NULL;
    if (!mkdtemp(dir)) {
        setenv("RIPSIM_REPORT_SETUP_ERR", "cannot create a temporary directory", 1);
        return;
    }
    setenv("RIPSIM_REPORT_TESTDIR", dir, 1);
    char out[600], err[600];
    snprintf(out, sizeof out, "%s/sweep.out", dir);
    snprintf(err, sizeof err, "%s/sweep.err", dir);
    const char *const args[] = {"sweep", "--n", "200", "--seed", SWEEP_SEED, "--db", in_dir("sweep.db"),
                                "--jobs", "2", "--quiet", NULL};
    int st = spawn(args, out, err);
    if (st != 0)
        why = "`ripsim sweep --n 200 --seed 7` failed (see sweep.err in RIPSIM_REPORT_TESTDIR)";
    else if (make_tab2_db(in_dir("tab2.db")) != 0)
        why = "cannot build tab2.db";
    else if (make_error_dbs() != 0)
        why = "cannot build the error-case databases";
    if (why)
        setenv("RIPSIM_REPORT_SETUP_ERR", why, 1);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    const char *dir = testdir();
    if (!dir || getenv("RIPSIM_REPORT_KEEP"))
        return;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static void need_setup(void)
{
    const char *err = getenv("RIPSIM_REPORT_SETUP_ERR");
    cr_assert_null(err, "setup: %s", err ? err : "");
    cr_assert_not_null(testdir(), "setup did not run");
}

TestSuite(report, .init = need_setup, .timeout = 300);

Test(report, md_matches_the_database)
{
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    int64_t n = q_int(db, "SELECT count(*) FROM layers");
    int64_t restricted = q_int(db, "SELECT count(*) FROM layers WHERE restricted = 1");
    cr_assert_eq(n, SWEEP_N);
    /* the stored flag is the README's definition */
    cr_assert_eq(restricted, q_int(db, "SELECT count(*) FROM layers WHERE p_top = 0 AND p_bottom = 0 AND "
                                       "p_left = 0 AND p_right = 0 AND s_h = 1 AND s_w = 1 AND d_h = 1 AND "
                                       "d_w = 1 AND k_h = k_w AND k_h %% 2 = 1 AND h_in = w_in"));
    proc p = RUN("report", "--db", in_dir("sweep.db"));
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    cr_assert_str_empty(p.err);
    cr_assert_null(strstr(p.out, "INCOMPLETE"));
    cr_assert(strstr(p.out, "| seed | 7 |"));
    cr_assert(strstr(p.out, "| layers present | 200 |"));
    char want[256];
    snprintf(want, sizeof want, "| %s%% (%lld of %lld layers restricted; 95%% CI", fmt2(100.0 * (double)restricted / (double)n),
             (long long)restricted, (long long)n);
    cr_assert(strstr(p.out, want), "missing '%s'", want);
    for (size_t i = 0; i < sizeof judged_formulas / sizeof judged_formulas[0]; i++) {
        const char *f = judged_formulas[i];
        int64_t u = q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'unsafe'", f);
        int64_t t = q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'tight'", f);
        int64_t l = q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'loose'", f);
        int64_t na = q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'n/a'", f);
        char *ex = sqlite3_mprintf("| %lld | %lld | %lld | %lld | %lld |", (long long)u, (long long)t,
                                   (long long)l, (long long)na, (long long)(u + t + l));
        char *row = sqlite3_mprintf("| %s | ", f);
        const char *at = strstr(p.out, row);
        cr_assert(at, "no verdict row for %s", f);
        const char *eol = strchr(at, '\n');
        const char *hit = strstr(at, ex);
        cr_assert(hit && hit < eol, "verdict row of %s lacks '%s'", f, ex);
        sqlite3_free(ex);
        sqlite3_free(row);
    }
    for (const char *h = "## Run\0## Claims\0## Verdicts\0## Margins\0## Sweep composition (Tab. 5)\0## Findings\0";
         *h; h += strlen(h) + 1)
        cr_assert(strstr(p.out, h), "missing heading %s", h);
    proc_free(&p);
    sqlite3_close(db);
}
