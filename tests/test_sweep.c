/*
** test_sweep.c — `ripsim sweep` and `ripsim merge` as a user runs them.
**
** The central property: the same seed and size give the same rows whatever
** --jobs is, however the sweep was interrupted (SIGINT or kill -9
** mid-transaction) and resumed, and however it was sharded and merged.
** Plus every bad-input case of issues 3 and 8, each leaving an existing
** database byte for byte untouched.  Interruptions at exact points use
** ripsim-testhooks ($RIPSIM_TESTHOOKS_BIN), the test-only build with the
** sweep's hooks; the released ripsim has none.  The long kill -9 and
** corruption loops are in test_crash.c.
** The suite's tests are in this file (rows, interruptions, shards, refused
** arguments and databases, the committed report) and in sweep_files.c (the
** files readers and writers leave, journals, memory, damaged schemas);
** their shared helpers in sweep_util.h.
*/
#define TMPDIR_SHARED
#define _GNU_SOURCE /* memmem, wait4 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "tmpdir.h"
#include "db.h"
#include "db_dump.h"
#include "run_cmd.h"
#include "sweep_util.h"

TEST_SUITE_WITH_TMPDIR(sweep, 600);

#define N "600" /* more than two batches of 250, so interruptions leave partial runs */

Test(sweep, writes_every_layer_config_and_formula)
{
    const char *db = tmp("a.db");
    run_result *r = RUN("sweep", "--n", N, "--seed", "5", "--db", db, "--jobs", "1");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "verdict") != NULL || strstr(r->out, "tight") != NULL, "%s", r->out);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layers"), 600);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM truths"), 600 * 7);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM verdicts"), 600 * 8);
    cr_expect_eq(db_scalar(db, "SELECT seed FROM runs"), 5);
    cr_expect_eq(db_scalar(db, "SELECT n_layers FROM runs"), 600);
    cr_expect_eq(db_scalar(db, "PRAGMA user_version"), RIP_DB_SCHEMA_VERSION);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM executions"), 0, "no executions without --execute");
    /* the view answers and accounts for every verdict row */
    cr_expect_eq(db_scalar(db, "SELECT sum(unsafe + tight + loose + na) FROM verdict_summary"), 600 * 8);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM verdict_summary"), 8);
    /* the stored counts behind it equal the verdicts counted from the rows */
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM verdict_summary s JOIN (SELECT formula, sum(verdict = 'unsafe') AS u,"
                            " sum(verdict = 'tight') AS t, sum(verdict = 'loose') AS l, sum(verdict = 'n/a') AS n"
                            " FROM verdicts GROUP BY formula) c USING (formula)"
                            " WHERE s.unsafe = c.u AND s.tight = c.t AND s.loose = c.l AND s.na = c.n"), 8);
    /* verdicts agree with value and truth, recomputed here */
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM verdicts WHERE verdict <> CASE "
                            "WHEN value IS NULL OR truth IS NULL THEN 'n/a' WHEN value < truth THEN 'unsafe' "
                            "WHEN value = truth THEN 'tight' ELSE 'loose' END"), 0);
    /* truths agree with the workspace column */
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM truths t JOIN layer_wide l USING (run_id, layer_idx) "
                            "WHERE t.workspace <> t.gap + CASE WHEN t.exec_config LIKE 'rip_dense%' "
                            "THEN l.n_in_dense WHEN t.exec_config = 'herringbone_pruned' THEN l.n_in_read "
                            "ELSE l.n_in_padded END"), 0);
    /* pruning never needs more workspace than the window-release herringbone it prunes
    ** (sim/README.md): checked here on every stored layer */
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM truths p JOIN truths h USING (run_id, layer_idx) "
                            "WHERE p.exec_config = 'herringbone_pruned' AND h.exec_config = 'herringbone_taps' "
                            "AND (p.workspace > h.workspace OR p.gap < h.gap)"), 0);
    /* every registered category is drawn, 6 per 100 layers for weight 6 */
    cr_expect_eq(db_scalar(db, "SELECT count(DISTINCT generator) FROM layers"),
                 db_scalar(db, "SELECT count(*) FROM generators"));
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM (SELECT generator, count(*) AS c FROM layers "
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
    r = RUN_HOOK("RIPSIM_TEST_SIGINT_AFTER_BATCHES=1", "sweep", "--n", N, "--seed", "9", "--db", b,
                "--jobs", "2");
    cr_expect_eq(r->status, 130, "status %d: %s", r->status, r->err);
    cr_expect(strstr(r->err, "resume") != NULL, "%s", r->err);
    int64_t partial = db_scalar(b, "SELECT count(*) FROM layers");
    cr_expect(partial > 0 && partial < 600, "partial run holds %lld layers", (long long)partial);
    r = RUN("sweep", "--n", N, "--seed", "9", "--db", b, "--jobs", "2");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *got = dump(b);
    cr_expect_str_eq(got, want, "jobs 2 + SIGINT + resume differs from jobs 1");
    free(got);

    /* kill -9 in the middle of a transaction, twice, then resume */
    r = RUN_HOOK("RIPSIM_TEST_KILL_AFTER_ROWS=100", "sweep", "--n", N, "--seed", "9", "--db", c, "--jobs", "2");
    cr_expect_eq(r->status, 128 + 9, "status %d", r->status);
    r = RUN_HOOK("RIPSIM_TEST_KILL_AFTER_ROWS=300", "sweep", "--n", N, "--seed", "9", "--db", c, "--jobs", "2");
    cr_expect_eq(r->status, 128 + 9, "status %d", r->status);
    cr_expect_eq(db_scalar(c, "SELECT count(*) FROM layers") % 250, 0, "only whole batches survive");
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
        cr_expect_eq(db_scalar(tmp(name), "SELECT count(*) FROM layers"), 200);
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

/*
** sweep --execute: the executions table is the same whatever --jobs, an
** interruption (SIGINT, kill -9) and resume, or shards merged.  A small
** sweep (executing is ~1000x slower than simulating) in batches of 10
** (RIPSIM_TEST_BATCH, test hooks only) so that interruptions leave
** partial runs.
*/
#define XN "40"

#define XSEED "17"

Test(sweep, execute_same_rows_whatever_jobs_interruptions_and_shards)
{
    char a[320], b[320], c[320], m[320];
    snprintf(a, sizeof a, "%s", tmp("xa.db"));
    snprintf(b, sizeof b, "%s", tmp("xb.db"));
    snprintf(c, sizeof c, "%s", tmp("xc.db"));
    snprintf(m, sizeof m, "%s", tmp("xm.db"));
    run_result *r = RUN("sweep", "--execute", "--n", XN, "--seed", XSEED, "--db", a, "--jobs", "1");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "caught at truth-1") != NULL, "the summary shows the executions: %s", r->out);
    cr_expect_eq(db_scalar(a, "SELECT count(*) FROM executions"), 40 * 4);
    cr_expect_eq(db_scalar(a, "SELECT count(DISTINCT layer_idx) FROM executions"), 40);
    /* rows agree with the truths they were run at */
    cr_expect_eq(db_scalar(a, "SELECT count(*) FROM executions x JOIN truths t USING (run_id, layer_idx, exec_config) "
                           "WHERE x.gap = t.gap"), 40 * 4);
    cr_expect_eq(db_scalar(a, "SELECT count(*) FROM executions WHERE (gap = 0) <> (caught_at_truth_minus_1 IS NULL)"), 0);
    cr_expect_eq(db_scalar(a, "SELECT count(DISTINCT checksum) FROM executions GROUP BY layer_idx "
                           "ORDER BY 1 DESC LIMIT 1"), 1, "one dual-buffer output per layer");
    char *want = dump(a);

    const char *batch = "RIPSIM_TEST_BATCH=10";
    /* --jobs 2, SIGINT after the first batch: status 130, work saved, resumable */
    const char *sig[] = {batch, "RIPSIM_TEST_SIGINT_AFTER_BATCHES=1", NULL};
    r = run_env_hooks(sig, (const char *const[]){"sweep", "--execute", "--n", XN, "--seed", XSEED, "--db", b,
                                                 "--jobs", "2", NULL});
    cr_expect_eq(r->status, 130, "status %d: %s", r->status, r->err);
    int64_t partial = db_scalar(b, "SELECT count(DISTINCT layer_idx) FROM executions");
    cr_expect(partial > 0 && partial < 40, "partial run holds %lld executed layers", (long long)partial);
    r = RUN("sweep", "--execute", "--n", XN, "--seed", XSEED, "--db", b, "--jobs", "2");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *got = dump(b);
    cr_expect_str_eq(got, want, "--execute: jobs 2 + SIGINT + resume differs from jobs 1");
    free(got);

    /* kill -9 in the middle of the second batch's transaction, then resume */
    const char *kill9[] = {batch, "RIPSIM_TEST_KILL_AFTER_ROWS=15", NULL};
    r = run_env_hooks(kill9, (const char *const[]){"sweep", "--execute", "--n", XN, "--seed", XSEED, "--db", c,
                                                   "--jobs", "2", NULL});
    cr_expect_eq(r->status, 128 + 9, "status %d", r->status);
    cr_expect_eq(db_scalar(c, "SELECT count(*) FROM executions"), 10 * 4, "only the whole first batch survives");
    r = RUN("sweep", "--execute", "--n", XN, "--seed", XSEED, "--db", c);
    cr_assert_eq(r->status, 0, "%s", r->err);
    got = dump(c);
    cr_expect_str_eq(got, want, "--execute: kill -9 + resume differs");
    free(got);

    /* two shards, one swept without --execute and executed on resume, merged */
    r = RUN("sweep", "--n", XN, "--seed", XSEED, "--db", tmp("xs0.db"), "--shard", "0/2");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_eq(db_scalar(tmp("xs0.db"), "SELECT count(*) FROM executions"), 0);
    r = RUN("sweep", "--execute", "--n", XN, "--seed", XSEED, "--db", tmp("xs0.db"), "--shard", "0/2");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect(strstr(r->out, "executed: 20 layers by this run") != NULL, "%s", r->out);
    r = RUN("sweep", "--execute", "--n", XN, "--seed", XSEED, "--db", tmp("xs1.db"), "--shard", "1/2");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("merge", m, tmp("xs0.db"), tmp("xs1.db"));
    cr_assert_eq(r->status, 0, "%s", r->err);
    got = dump(m);
    cr_expect_str_eq(got, want, "--execute: merged shards differ from a single run");
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
    cr_expect(strstr(r->err, "--seed: 3 in the database, 4 in this command") != NULL, "names the field: %s", r->err);
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
    cr_expect(strstr(r->err, "--seed: 1 in") && strstr(r->err, "2 in"), "names the field: %s", r->err);
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
** The report without its "## Executions" section (that heading up to the
** next "## "), as a new string; *had says whether it had one.
*/
static char *without_executions(const char *text, bool *had)
{
    const char *at = strstr(text, "## Executions\n");
    *had = at != NULL;
    if (!at)
        return strdup(text);
    const char *next = strstr(at + 3, "\n## ");
    const char *rest = next ? next + 1 : text + strlen(text);
    const size_t head = (size_t)(at - text);
    char *out = malloc(head + strlen(rest) + 1);
    cr_assert_not_null(out);
    memcpy(out, text, head);
    strcpy(out + head, rest);
    return out;
}

/* Save the regenerated text beside the tmp dir and show its diff against path. */
static void show_diff(const char *path, const char *text)
{
    FILE *f = fopen(tmp("regenerated.md"), "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "diff '%s' '%s' | head -20 >&2", path, tmp("regenerated.md"));
    cr_expect_eq(system(cmd), 0);
}

/*
** results/sweep-report.md is committed: the report of the default sweep run
** with --execute (README, "Sweep database": the regeneration command; it
** takes minutes, so CI does not run it).  Every section but the executions
** must be exactly what the plain default sweep and `ripsim report` produce
** today, byte for byte; the executions section is checked for its shape and
** for counts consistent with that plain run: four rip_* rows of 10,000
** layers each, every layer bit-exact with no early overwrite at the truth,
** the truth-0 split equal to the plain run's simulated truths, the caught
** count within the truth > 0 layers and its percentage right, and the
** taps finding stated whenever a taps configuration went uncaught.
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

    bool had = false, plain_had = true;
    char *plain = without_executions(want, &had);
    char *got = without_executions(r->out, &plain_had);
    cr_expect(had, "results/sweep-report.md has no Executions section: regenerate it with --execute");
    cr_expect(!plain_had, "the plain sweep's report has an Executions section");
    if (strcmp(got, plain) != 0) {
        show_diff(committed, r->out);
        cr_expect(false, "results/sweep-report.md is stale outside its executions (diff above): regenerate it with "
                  "`ripsim reproduce --only sweep-report`");
    }

    /* the executions section */
    const char *ex = strstr(want, "## Executions\n");
    cr_assert_not_null(ex);
    const char *end = strstr(ex + 3, "\n## ");
    cr_assert_not_null(end, "the executions section is followed by the findings");
    cr_expect_not_null(strstr(ex, "10000 layers executed; regenerate with ripsim sweep --n 10000 --seed 20261129 "
                                  "--execute --db DB; ripsim report --db DB."));
    static const char *const cfg[4] = {"rip_padded_gather", "rip_padded_taps", "rip_dense_gather", "rip_dense_taps"};
    int rows = 0;
    bool taps_uncaught = false;
    for (const char *line = ex; line && line < end; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        char name[64];
        long long executed, exact, early, zero, pos, caught;
        double pct;
        if (sscanf(line, "| %63[a-z_] | %lld | %lld | %lld | %lld | %lld | %lld | %lf |", name, &executed, &exact,
                   &early, &zero, &pos, &caught, &pct) != 8)
            continue;
        cr_assert_lt(rows, 4, "more than four configuration rows");
        cr_expect_str_eq(name, cfg[rows]);
        cr_expect_eq(executed, 10000, "%s: %lld executed", name, executed);
        cr_expect_eq(exact, executed, "%s: %lld of %lld bit-exact at the truth", name, exact, executed);
        cr_expect_eq(early, 0, "%s: early overwrites at the truth", name);
        cr_expect_eq(zero + pos, executed, "%s: truth 0 + truth > 0 = %lld", name, zero + pos);
        char sql[256];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM truths WHERE exec_config = '%s' AND gap = 0", name);
        cr_expect_eq(zero, db_scalar(db, sql), "%s: truth-0 layers differ from the plain sweep's truths", name);
        cr_expect(caught >= 0 && caught <= pos, "%s: caught %lld of %lld", name, caught, pos);
        if (pos > 0) {
            char want_pct[32], got_pct[32];
            snprintf(want_pct, sizeof want_pct, "%.2f", 100.0 * (double)caught / (double)pos);
            snprintf(got_pct, sizeof got_pct, "%.2f", pct);
            cr_expect_str_eq(got_pct, want_pct, "%s", name);
        }
        if (strstr(name, "_gather"))
            cr_expect_eq(caught, pos, "%s: a gather layer of truth > 0 went uncaught at truth - 1", name);
        else if (caught < pos)
            taps_uncaught = true;
        rows++;
    }
    cr_expect_eq(rows, 4, "%d configuration rows", rows);
    if (taps_uncaught)
        cr_expect_not_null(strstr(ex, "one scalar more conservative"), "the taps finding is not stated");
    free(plain);
    free(got);
    free(want);
}

/* --execute adds the executions section and changes no other byte of the report. */
Test(sweep, execute_changes_only_the_executions_section, .timeout = 600)
{
    char plain_db[320], exec_db[320];
    snprintf(plain_db, sizeof plain_db, "%s", tmp("plain.db"));
    snprintf(exec_db, sizeof exec_db, "%s", tmp("exec.db"));
    run_result *r = RUN("sweep", "--n", "40", "--db", plain_db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("sweep", "--n", "40", "--execute", "--db", exec_db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("report", "--db", plain_db);
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *plain = strdup(r->out);
    r = RUN("report", "--db", exec_db);
    cr_assert_eq(r->status, 0, "%s", r->err);
    bool had = false;
    char *stripped = without_executions(r->out, &had);
    cr_expect(had);
    cr_expect_str_eq(stripped, plain);
    cr_expect_not_null(strstr(r->out, "40 layers executed; regenerate with ripsim sweep --n 40 --seed 20261129 "
                                      "--execute --db DB"));
    free(plain);
    free(stripped);
}
