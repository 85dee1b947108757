/*
** test_sweep.c — `ripsim sweep` and `ripsim merge` as a user runs them.
**
** The central property (DESIGN.md): the same seed and size give the same
** rows whatever --jobs is, however the sweep was interrupted (SIGINT or
** kill -9 mid-transaction) and resumed, and however it was sharded and
** merged.  Plus every bad-input case of issue 3, each leaving an existing
** database byte for byte untouched.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>

#include "run_cmd.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ripsim-sweep-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(sweep, .init = make_tmpdir, .fini = remove_tmpdir, .timeout = 600);

static const char *tmp(const char *name)
{
    static char buf[8][320];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

/* tmp() returns one of 8 rotating buffers: copy a path that must live longer. */

/* All rows of the deterministic tables, in key order, as one string. */
static char *dump(const char *path)
{
    static const char *const q[] = {
        "SELECT run_id, seed, n_layers, generator_set, ripsim_version FROM runs",
        "SELECT * FROM layers ORDER BY run_id, layer_idx",
        "SELECT * FROM truths ORDER BY run_id, layer_idx, exec_config",
        "SELECT * FROM verdicts ORDER BY run_id, layer_idx, formula",
        "SELECT * FROM formulas ORDER BY formula",
        "SELECT * FROM generators ORDER BY generator",
    };
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    size_t cap = 1 << 20, len = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
        sqlite3_stmt *st;
        cr_assert_eq(sqlite3_prepare_v2(db, q[i], -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *t = sqlite3_column_text(st, c);
                size_t n = t ? strlen((const char *)t) : 4;
                if (len + n + 2 >= cap) {
                    cap *= 2;
                    s = realloc(s, cap);
                    cr_assert_not_null(s);
                }
                memcpy(s + len, t ? (const char *)t : "NULL", n);
                len += n;
                s[len++] = c + 1 < sqlite3_column_count(st) ? '|' : '\n';
            }
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    s[len] = '\0';
    return s;
}

static int64_t scalar(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* The whole file's bytes, to prove a database was left untouched. */
static char *slurp_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    buf[size] = '\0';
    *n = (size_t)size;
    return buf;
}

static void expect_untouched(const char *path, const char *before, size_t n_before, const char *what)
{
    size_t n;
    char *after = slurp_file(path, &n);
    cr_expect(n == n_before && memcmp(before, after, n) == 0, "%s: database was modified", what);
    free(after);
}

#define N "600" /* more than two batches of 250, so interruptions leave partial runs */

Test(sweep, writes_every_layer_config_and_formula)
{
    const char *db = tmp("a.db");
    run_result *r = RUN("sweep", "--n", N, "--seed", "5", "--db", db, "--jobs", "1");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "verdict") != NULL || strstr(r->out, "tight") != NULL, "%s", r->out);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM layers"), 600);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM truths"), 600 * 6);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM verdicts"), 600 * 8);
    cr_expect_eq(scalar(db, "SELECT seed FROM runs"), 5);
    cr_expect_eq(scalar(db, "SELECT n_layers FROM runs"), 600);
    cr_expect_eq(scalar(db, "PRAGMA user_version"), 1);
    /* the view answers and accounts for every verdict row */
    cr_expect_eq(scalar(db, "SELECT sum(unsafe + tight + loose + na) FROM verdict_summary"), 600 * 8);
    cr_expect_eq(scalar(db, "SELECT count(*) FROM verdict_summary"), 8);
    /* verdicts agree with value and truth, recomputed here */
    cr_expect_eq(scalar(db, "SELECT count(*) FROM verdicts WHERE verdict <> CASE "
                            "WHEN value IS NULL OR truth IS NULL THEN 'n/a' WHEN value < truth THEN 'unsafe' "
                            "WHEN value = truth THEN 'tight' ELSE 'loose' END"), 0);
    /* truths agree with the workspace column */
    cr_expect_eq(scalar(db, "SELECT count(*) FROM truths t JOIN layers l USING (run_id, layer_idx) "
                            "WHERE t.workspace <> t.gap + CASE WHEN t.exec_config LIKE 'rip_dense%' "
                            "THEN l.n_in_dense ELSE l.n_in_padded END"), 0);
    /* every registered category is drawn, 6 per 100 layers for weight 6 */
    cr_expect_eq(scalar(db, "SELECT count(DISTINCT generator) FROM layers"),
                 scalar(db, "SELECT count(*) FROM generators"));
    cr_expect_eq(scalar(db, "SELECT count(*) FROM (SELECT generator, count(*) AS c FROM layers "
                            "GROUP BY generator) x JOIN generators g USING (generator) "
                            "WHERE x.c <> g.weight * 6"), 0);
}

Test(sweep, same_rows_whatever_jobs_interruptions_and_shards)
{
    char a[320], b[320], c[320], m[320];
    snprintf(a, sizeof a, "%s", tmp("a.db"));
    snprintf(b, sizeof b, "%s", tmp("b.db"));
    snprintf(c, sizeof c, "%s", tmp("c.db"));
    snprintf(m, sizeof m, "%s", tmp("m.db"));
    run_result *r = RUN("sweep", "--n", N, "--seed", "9", "--db", a, "--jobs", "1");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *want = dump(a);

    /* --jobs 2, SIGINT after the first batch: status 130, work saved, resumable */
    r = RUN_ENV("RIPSIM_TEST_SIGINT_AFTER_BATCHES=1", "sweep", "--n", N, "--seed", "9", "--db", b,
                "--jobs", "2");
    cr_expect_eq(r->status, 130, "status %d: %s", r->status, r->err);
    cr_expect(strstr(r->err, "resume") != NULL, "%s", r->err);
    int64_t partial = scalar(b, "SELECT count(*) FROM layers");
    cr_expect(partial > 0 && partial < 600, "partial run holds %lld layers", (long long)partial);
    r = RUN("sweep", "--n", N, "--seed", "9", "--db", b, "--jobs", "2");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *got = dump(b);
    cr_expect_str_eq(got, want, "jobs 2 + SIGINT + resume differs from jobs 1");
    free(got);

    /* kill -9 in the middle of a transaction, twice, then resume */
    r = RUN_ENV("RIPSIM_TEST_KILL_AFTER_ROWS=100", "sweep", "--n", N, "--seed", "9", "--db", c, "--jobs", "2");
    cr_expect_eq(r->status, 128 + 9, "status %d", r->status);
    r = RUN_ENV("RIPSIM_TEST_KILL_AFTER_ROWS=300", "sweep", "--n", N, "--seed", "9", "--db", c, "--jobs", "2");
    cr_expect_eq(r->status, 128 + 9, "status %d", r->status);
    cr_expect_eq(scalar(c, "SELECT count(*) FROM layers") % 250, 0, "only whole batches survive");
    r = RUN("sweep", "--n", N, "--seed", "9", "--db", c);
    cr_assert_eq(r->status, 0, "%s", r->err);
    got = dump(c);
    cr_expect_str_eq(got, want, "kill -9 + resume differs");
    free(got);

    /* three shards merged */
    for (int i = 0; i < 3; i++) {
        char shard[8];
        snprintf(shard, sizeof shard, "%d/3", i);
        char name[16];
        snprintf(name, sizeof name, "s%d.db", i);
        r = RUN("sweep", "--n", N, "--seed", "9", "--db", tmp(name), "--shard", shard);
        cr_assert_eq(r->status, 0, "%s", r->err);
        cr_expect_eq(scalar(tmp(name), "SELECT count(*) FROM layers"), 200);
    }
    r = RUN("merge", m, tmp("s0.db"), tmp("s1.db"));
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "missing") != NULL, "two of three shards: %s", r->out);
    r = RUN("merge", m, tmp("s2.db"));
    cr_assert_eq(r->status, 0, "%s", r->err);
    got = dump(m);
    cr_expect_str_eq(got, want, "merged shards differ from a single run");
    free(got);
    free(want);
}

Test(sweep, bad_arguments_are_usage_errors)
{
    const char *db = tmp("x.db");
    static const char *const bad[][2] = {
        {"--bogus", NULL}, {"--n", "0"}, {"--n", "-5"}, {"--n", "ten"}, {"--n", NULL},
        {"--seed", "-1"}, {"--jobs", "0"}, {"--shard", "3/3"}, {"--shard", "1/0"},
        {"--shard", "x"}, {"--shard", "1/"}, {"--shard", "-1/2"}, {"--shard", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_result *r = bad[i][1] ? RUN("sweep", "--db", db, bad[i][0], bad[i][1])
                                  : RUN("sweep", "--db", db, bad[i][0]);
        cr_expect_eq(r->status, 64, "%s %s: status %d", bad[i][0], bad[i][1] ? bad[i][1] : "", r->status);
        cr_expect_eq(count_lines(r->err), 1, "%s: one line, got %s", bad[i][0], r->err);
        cr_expect(strstr(r->err, bad[i][0]) != NULL, "message names %s: %s", bad[i][0], r->err);
        struct stat sb;
        cr_expect_neq(stat(db, &sb), 0, "%s: no database created", bad[i][0]);
    }
}

Test(sweep, refuses_foreign_databases_untouched)
{
    size_t n;
    char *before;
    run_result *r;

    /* unwritable path: a directory that does not exist */
    r = RUN("sweep", "--n", "10", "--db", "/nonexistent-ripsim-dir/x.db");
    cr_expect_eq(r->status, 73, "status %d: %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);

    /* another schema version */
    const char *v99 = tmp("v99.db");
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(v99, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE runs(x); PRAGMA user_version=99;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    before = slurp_file(v99, &n);
    r = RUN("sweep", "--n", "10", "--db", v99);
    cr_expect_eq(r->status, 65, "status %d", r->status);
    cr_expect(strstr(r->err, "schema version 99") != NULL, "%s", r->err);
    expect_untouched(v99, before, n, "schema 99");
    free(before);

    /* not a database at all */
    const char *txt = tmp("notes.txt");
    FILE *f = fopen(txt, "w");
    cr_assert_not_null(f);
    for (int i = 0; i < 200; i++)
        fputs("these are my notes, not a database\n", f);
    fclose(f);
    before = slurp_file(txt, &n);
    r = RUN("sweep", "--n", "10", "--db", txt);
    cr_expect_eq(r->status, 65, "status %d: %s", r->status, r->err);
    expect_untouched(txt, before, n, "text file");
    free(before);

    /* resume with another --seed or --n */
    const char *run = tmp("run.db");
    r = RUN("sweep", "--n", "20", "--seed", "3", "--db", run);
    cr_assert_eq(r->status, 0, "%s", r->err);
    before = slurp_file(run, &n);
    r = RUN("sweep", "--n", "20", "--seed", "4", "--db", run);
    cr_expect_eq(r->status, 65, "other seed: status %d", r->status);
    cr_expect(strstr(r->err, "--seed 3") != NULL, "names the stored seed: %s", r->err);
    expect_untouched(run, before, n, "other seed");
    r = RUN("sweep", "--n", "21", "--seed", "3", "--db", run);
    cr_expect_eq(r->status, 65, "other n: status %d", r->status);
    expect_untouched(run, before, n, "other n");
    r = RUN("sweep", "--n", "20", "--seed", "3", "--db", run, "--shard", "0/2");
    cr_expect_eq(r->status, 65, "other shard: status %d", r->status);
    expect_untouched(run, before, n, "other shard");
    free(before);
}

Test(sweep, merge_checks_its_inputs)
{
    run_result *r = RUN("sweep", "--n", "20", "--seed", "1", "--db", tmp("p.db"));
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("sweep", "--n", "20", "--seed", "2", "--db", tmp("q.db"));
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("merge", tmp("out.db"), tmp("p.db"), tmp("q.db"));
    cr_expect_eq(r->status, 65, "different seeds: %d %s", r->status, r->err);
    struct stat sb;
    cr_expect_neq(stat(tmp("out.db"), &sb), 0, "no output written");
    r = RUN("merge", tmp("out.db"), tmp("missing.db"));
    cr_expect_eq(r->status, 66, "missing input: %d", r->status);
    r = RUN("merge", tmp("out.db"));
    cr_expect_eq(r->status, 64);
    r = RUN("merge", "--help");
    cr_expect_eq(r->status, 0);
}

/*
** results/sweep-report.md is committed; it must be exactly what the default
** sweep and `ripsim report` produce today (regenerate it with the command in
** its "regenerate with" row when a change moves a number).
*/
Test(sweep, default_sweep_regenerates_the_committed_report, .timeout = 900)
{
    const char *dir = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(dir, "RIPSIM_RESULTS_DIR must name results/");
    char committed[512];
    snprintf(committed, sizeof committed, "%s/sweep-report.md", dir);
    size_t n;
    char *want = slurp_file(committed, &n);
    char db[320];
    snprintf(db, sizeof db, "%s", tmp("default.db"));
    run_result *r = RUN("sweep", "--db", db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("report", "--db", db, "--format", "md");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_eq(strlen(r->out), n, "report length %zu, committed %zu", strlen(r->out), n);
    if (strcmp(r->out, want) != 0) {
        FILE *f = fopen(tmp("regenerated.md"), "w");
        if (f) {
            fputs(r->out, f);
            fclose(f);
        }
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "diff '%s' '%s' | head -20 >&2", committed, tmp("regenerated.md"));
        cr_expect_eq(system(cmd), 0);
        cr_expect(false, "results/sweep-report.md is stale: regenerate it (diff above)");
    }
    free(want);
}

/* Found by tests/fuzz (fuzz_db_report, fuzz_db_resume): SQLite quotes a
** damaged schema entry in its message, newlines and all, and that text went
** to stderr as a multi-line message.  Refused with one line, untouched. */
Test(sweep, damaged_schema_text_is_refused_in_one_line)
{
    const char *db_path = tmp("schema-nl.db");
    run_result *r = RUN("sweep", "--n", "4", "--seed", "1", "--db", db_path, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(db_path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA writable_schema=ON;"
                                  "UPDATE sqlite_master SET sql = 'CREATE TABLE generators (a '' \n"
                                  "  INTEGER NOT NULL,\n b)' WHERE name = 'generators';",
                              NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    size_t n;
    char *before = slurp_file(db_path, &n);
    r = RUN("sweep", "--n", "4", "--seed", "1", "--db", db_path);
    cr_expect_eq(r->status, 65, "status %d: %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect(strstr(r->err, "malformed database schema") != NULL, "%s", r->err);
    expect_untouched(db_path, before, n, "damaged schema");
    r = RUN("report", "--db", db_path);
    cr_expect_eq(r->status, 65, "report: status %d: %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    expect_untouched(db_path, before, n, "damaged schema, report");
    free(before);
}
