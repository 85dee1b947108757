/*
** sweep_files.c — the sweep suite (tests/test_sweep.c) on what a run leaves
** behind: no test hooks in the release binary, every exit status in the
** help, inconsistent rows and other generator sets refused untouched,
** readers creating no files, hot journals, merges never leaving a partial
** output, memory flat in n, and damaged schema text refused in one line.
*/
#define TMPDIR_EXTERN
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

/* ---- issue 8: data safety ---------------------------------------------- */

static void exec_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg ? msg : "");
    sqlite3_close(db);
}

static void expect_no_side_files(const char *db, const char *when)
{
    static const char *const sfx[] = {"-journal", "-wal", "-shm"};
    char p[400];
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", db, sfx[i]);
        cr_expect(!exists(p), "%s: %s remains", when, p);
    }
}

/* Item 22: the released binary carries no test hook. */
Test(sweep, release_binary_has_no_test_hooks)
{
    size_t n, m;
    char *rel = slurp_file(getenv("RIPSIM_BIN"), &n);
    char *hk = slurp_file(getenv("RIPSIM_TESTHOOKS_BIN"), &m);
    static const char *const names[] = {"RIPSIM_TEST_KILL_AFTER_ROWS", "RIPSIM_TEST_SIGINT_AFTER_BATCHES"};
    for (int i = 0; i < 2; i++) {
        cr_expect_null(memmem(rel, n, names[i], strlen(names[i])), "ripsim contains %s", names[i]);
        cr_expect_not_null(memmem(hk, m, names[i], strlen(names[i])), "ripsim-testhooks lacks %s", names[i]);
    }
    free(rel);
    free(hk);
    /* and the variable does nothing to the released binary */
    const char *db = tmp("nohook.db");
    run_result *r = RUN_ENV("RIPSIM_TEST_KILL_AFTER_ROWS=1", "sweep", "--n", "20", "--db", db, "--quiet");
    cr_expect_eq(r->status, 0, "status %d: %s", r->status, r->err);
}

/* Item 12: every exit status each command can return is in its --help. */
Test(sweep, help_lists_every_exit_status)
{
    static const struct {
        const char *cmd, *codes[10];
    } c[] = {
        {"sweep", {"0 ", "64", "65", "66", "70", "71", "73", "74", "75", "130"}},
        {"merge", {"0 ", "64", "65", "66", "70", "71", "73", "74", "75", NULL}},
        {"report", {"0 ", "64", "65", "66", "70", "71", "73", "74", "75", NULL}},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        run_result *r = RUN(c[i].cmd, "--help");
        cr_assert_eq(r->status, 0);
        const char *ex = strstr(r->out, "exit status:");
        cr_assert_not_null(ex, "%s --help has no exit statuses", c[i].cmd);
        for (int k = 0; k < 10 && c[i].codes[k]; k++) {
            char line[16];
            snprintf(line, sizeof line, "\n  %s", c[i].codes[k]);
            cr_expect_not_null(strstr(ex, line), "%s --help lacks exit %s", c[i].cmd, c[i].codes[k]);
        }
        cr_expect_null(strstr(r->out, "%%"), "%s --help prints %%%%", c[i].cmd);
    }
    run_result *r = RUN("sweep", "--help");
    cr_expect_not_null(strstr(r->out, "index % K == I"), "%s", r->out);
}

/* Item 1: a database whose rows are inconsistent is refused by all three commands, untouched. */
Test(sweep, inconsistent_rows_are_refused_untouched)
{
    run_result *r = RUN("sweep", "--n", "300", "--seed", "4", "--db", tmp("whole.db"), "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    /* schema version 3 (and 4) keeps a layer's truths and values in one row: the
    ** damage of version 2 (a layer lacking some truth or verdict rows) is a
    ** NULL truth or a layer row gone or added without its verdict counts */
    static const char *const damage[] = {
        "DELETE FROM verdict_counts",                                /* the empty verdict table */
        /* one layer lacks a truth: NOT NULL forbids it to SQL, so the schema text is
        ** edited around the write, as damage to the file could leave it (quick_check finds it) */
        "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'rip_dense_taps NOT NULL',"
        " 'rip_dense_taps') WHERE name = 'layer_results'"
        "\n--\nUPDATE layer_results SET rip_dense_taps = NULL WHERE layer_idx = 17"
        "\n--\nPRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'rip_dense_taps,',"
        " 'rip_dense_taps NOT NULL,') WHERE name = 'layer_results'",
        "DELETE FROM layer_results WHERE layer_idx = 250",           /* a layer gone, its counts kept */
        "UPDATE verdict_counts SET n = n - 1 WHERE ord = 3 AND verdict = 2",     /* a verdict gone */
        "INSERT INTO layer_results SELECT 777, gen, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top, "
        "p_bottom, p_left, p_right, h_out, w_out, restricted, n_in_padded, n_in_dense, n_out, n_in_read, "
        "rip_padded_gather, rip_padded_taps, rip_dense_gather, rip_dense_taps, herringbone_taps, "
        "herringbone_taps_reader, herringbone_pruned, gm2019_eq1, "
        "corollary1, thm11, thm4_gather, thm4_taps, thm13_gather, thm13_taps, naive_workspace "
        "FROM layer_results WHERE layer_idx = 3",                  /* a layer outside --n */
        "UPDATE layer_results SET gen = 99 WHERE layer_idx = 5",     /* a generator id nobody knows */
        "UPDATE generators SET ord = ord + 100",                     /* ids no longer 0..n-1: the lookup check */
        "UPDATE configs SET config_id = config_id + 10; UPDATE configs SET config_id = 15 - config_id",
        /* the lookup table no longer names the columns it indexes */
        "DELETE FROM runs",
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        const char *db = tmp("bad.db");
        copy_file(tmp("whole.db"), db);
        /* steps separated by "\n--\n" run on connections of their own (a schema edit is seen by the next) */
        char steps[1024];
        snprintf(steps, sizeof steps, "%s", damage[i]);
        for (char *p = steps, *e; p; p = e ? e + 4 : NULL) {
            if ((e = strstr(p, "\n--\n")) != NULL)
                *e = '\0';
            exec_sql(db, p);
        }
        size_t n;
        char *before = slurp_file(db, &n);
        r = RUN("sweep", "--n", "300", "--seed", "4", "--db", db, "--quiet");
        cr_expect_eq(r->status, 65, "%s: sweep status %d: %s", damage[i], r->status, r->err);
        cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
        cr_expect(strstr(r->err, "damaged") != NULL, "%s: %s", damage[i], r->err);
        expect_untouched(db, before, n, damage[i]);
        r = RUN("report", "--db", db);
        cr_expect_eq(r->status, 65, "%s: report status %d: %s", damage[i], r->status, r->err);
        r = RUN("merge", tmp("never.db"), db);
        cr_expect_eq(r->status, 65, "%s: merge status %d: %s", damage[i], r->status, r->err);
        cr_expect(!exists(tmp("never.db")), "merge wrote an output");
        expect_untouched(db, before, n, damage[i]);
        expect_no_side_files(db, damage[i]);
        free(before);
    }
}

/*
** Item 12: when the generator set differs, the message names that field.
** Issue 23 item 7: so does a generator fingerprint that differs (a
** category's draw() changed: the layers would not be the run's), with both
** builds' version and commit; another ripsim version or source commit with
** the same fingerprint is the same run, resumed and merged (run_log says
** which build computed what).
*/
Test(sweep, other_generator_set_or_fingerprint_is_named)
{
    run_result *r = RUN("sweep", "--n", "20", "--seed", "7", "--db", tmp("g.db"), "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    copy_file(tmp("g.db"), tmp("g2.db"));
    copy_file(tmp("g.db"), tmp("v2.db"));
    copy_file(tmp("g.db"), tmp("f2.db"));
    exec_sql(tmp("g2.db"), "UPDATE runs SET generator_set = replace(generator_set, 'plain:', 'plainer:')");
    exec_sql(tmp("v2.db"), "UPDATE runs SET ripsim_version = '0.0.9', source_commit = 'v0.0.9-3-gabc'");
    exec_sql(tmp("f2.db"), "UPDATE runs SET generator_fingerprint = '0123456789abcdef'");
    size_t n;
    char *before = slurp_file(tmp("g2.db"), &n);
    r = RUN("sweep", "--n", "20", "--seed", "7", "--db", tmp("g2.db"), "--quiet");
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect(strstr(r->err, "generator categories") && strstr(r->err, "plainer:"), "%s", r->err);
    expect_untouched(tmp("g2.db"), before, n, "other generator set");
    free(before);
    before = slurp_file(tmp("f2.db"), &n);
    r = RUN("sweep", "--n", "20", "--seed", "7", "--db", tmp("f2.db"), "--quiet");
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect(strstr(r->err, "generator fingerprint: 0123456789abcdef in the database (ripsim ") &&
              strstr(r->err, "the categories draw other layers"), "%s", r->err);
    expect_untouched(tmp("f2.db"), before, n, "other generator fingerprint");
    free(before);
    r = RUN("sweep", "--n", "20", "--seed", "7", "--db", tmp("v2.db"), "--quiet");
    cr_expect_eq(r->status, 0, "another version with the same fingerprint resumes: %s", r->err);
    cr_expect_eq(db_scalar(tmp("v2.db"), "SELECT count(*) FROM runs WHERE ripsim_version = '0.0.9'"), 1);
    cr_expect_eq(db_scalar(tmp("v2.db"), "SELECT count(*) FROM run_log WHERE event = 'resume' AND detail LIKE "
                                         "'%ripsim " RIPSIM_VERSION ", commit %'"), 1);
    r = RUN("merge", tmp("gm.db"), tmp("g.db"), tmp("f2.db"));
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect(strstr(r->err, "generator fingerprint"), "%s", r->err);
    r = RUN("merge", tmp("gm.db"), tmp("g.db"), tmp("g2.db"));
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect(strstr(r->err, "generator categories"), "%s", r->err);
    cr_expect(!exists(tmp("gm.db")));
    r = RUN("merge", tmp("gm.db"), tmp("g.db"), tmp("v2.db"));
    cr_expect_eq(r->status, 0, "%s", r->err);
}

/*
** Issue 23 item 7: merge keeps every shard's run_log (when and by which
** build each part was computed), an event OUT already holds once, and the
** runs row's provenance: the commit this ripsim was built from and the
** fingerprint of its generators.
*/
Test(sweep, merge_keeps_every_shards_run_log)
{
    run_result *r = RUN("sweep", "--n", "30", "--seed", "5", "--shard", "0/2", "--db", tmp("s0.db"), "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("sweep", "--n", "30", "--seed", "5", "--shard", "1/2", "--db", tmp("s1.db"), "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    exec_sql(tmp("s1.db"), "INSERT INTO run_log VALUES (1, '2000-01-01T00:00:00Z', 'note', 'only in shard 1')");
    r = RUN("merge", tmp("m.db"), tmp("s0.db"), tmp("s1.db"));
    cr_assert_eq(r->status, 0, "%s", r->err);
    const char *m = tmp("m.db");
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM run_log WHERE event = 'start' AND detail LIKE '%shard 0/2%'"), 1);
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM run_log WHERE event = 'start' AND detail LIKE '%shard 1/2%'"), 1);
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM run_log WHERE event = 'finish'"), 2);
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM run_log WHERE detail = 'only in shard 1'"), 1);
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM run_log WHERE event = 'merge'"), 1);
    /* merged again into the same OUT: the shards' events are not doubled */
    r = RUN("merge", tmp("m.db"), tmp("s0.db"), tmp("s1.db"));
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM run_log WHERE event = 'start'"), 2);
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM run_log WHERE event = 'merge'"), 2);
    /* provenance: the fingerprint is 16 hex digits and the shards' own */
    cr_expect_eq(db_scalar(m, "SELECT count(*) FROM runs WHERE length(generator_fingerprint) = 16 AND "
                              "generator_fingerprint NOT GLOB '*[^0-9a-f]*' AND source_commit <> ''"), 1);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(m, &h), SQLITE_OK);
    char *sql = sqlite3_mprintf("ATTACH %Q AS s; SELECT 1", tmp("s0.db"));
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_free(sql);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM main.runs a JOIN s.runs b USING (generator_fingerprint, "
                                       "source_commit, ripsim_version)", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_expect_eq(sqlite3_column_int(st, 0), 1);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* Run $RIPSIM_BIN args as user nobody (when we are root); its exit status. */
static int run_as_nobody(const char *const *args)
{
    const char *bin = getenv("RIPSIM_BIN");
    char *argv[12];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args[n - 1] && n < 11; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(125);
        execv(bin, argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
** Item 5: a clean exit leaves no side file; report reads a read-only copy
** in a read-only folder, and a reader of another user creates nothing the
** owner could then not write.
*/
Test(sweep, readers_create_no_files_and_clean_exits_leave_none)
{
    char dir[320], ro[400], first[256];
    const char *db = tmp("own.db");
    run_result *r = RUN_HOOK("RIPSIM_TEST_SIGINT_AFTER_BATCHES=1", "sweep", "--n", "600", "--seed", "6", "--db", db,
                             "--quiet");
    cr_assert_eq(r->status, 130, "%s", r->err);
    expect_no_side_files(db, "after SIGINT");
    bool root = geteuid() == 0;
    if (root) {
        /* another user reads the partial run in a folder everyone may write */
        snprintf(dir, sizeof dir, "%s", tmpdir);
        cr_assert_eq(chmod(dir, 01777), 0);
        cr_assert_eq(chmod(db, 0644), 0);
        int before = entries(dir, first, sizeof first);
        int st = run_as_nobody((const char *const[]){"report", "--db", db, NULL});
        cr_expect_eq(st, 0, "report as nobody: status %d", st);
        cr_expect_eq(entries(dir, first, sizeof first), before, "report as nobody created a file");
        expect_no_side_files(db, "report by another user");
    }
    r = RUN("sweep", "--n", "600", "--seed", "6", "--db", db, "--quiet");
    cr_expect_eq(r->status, 0, "the owner resumes after another user's report: %s", r->err);
    expect_no_side_files(db, "after a finished sweep");

    /* a read-only copy in a read-only folder; and the same database in WAL mode */
    snprintf(ro, sizeof ro, "%s/ro", tmpdir);
    cr_assert_eq(mkdir(ro, 0755), 0);
    char copy[420], wal[420];
    snprintf(copy, sizeof copy, "%s/copy.db", ro);
    snprintf(wal, sizeof wal, "%s/wal.db", ro);
    copy_file(db, copy);
    copy_file(db, wal);
    exec_sql(wal, "PRAGMA journal_mode=WAL");
    cr_assert(!exists(tmp("ro/wal.db-wal")), "a clean close folds the -wal in");
    cr_assert_eq(chmod(copy, 0444), 0);
    cr_assert_eq(chmod(wal, 0444), 0);
    cr_assert_eq(chmod(ro, 0555), 0);
    const char *paths[] = {copy, wal};
    for (int i = 0; i < 2; i++) {
        r = RUN("report", "--db", paths[i]);
        cr_expect_eq(r->status, 0, "%s: %s", paths[i], r->err);
        cr_expect(strstr(r->out, "# ripsim sweep report") != NULL, "%s", r->out);
        r = RUN("merge", tmp("from-ro.db"), paths[i]);
        cr_expect_eq(r->status, 0, "merge from %s: %s", paths[i], r->err);
        if (root) {
            int st = run_as_nobody((const char *const[]){"report", "--db", paths[i], NULL});
            cr_expect_eq(st, 0, "report of %s as nobody: status %d", paths[i], st);
        }
        int k = entries(ro, first, sizeof first);
        cr_expect_eq(k, 2, "the read-only folder holds %d files", k);
    }
    cr_expect_str_eq(dump(tmp("from-ro.db")), dump(db), "merged from the read-only copies");
    expect_no_side_files(tmp("from-ro.db"), "after merge");
    chmod(ro, 0755);
}

/* Fork a child that starts an SQLite write on path, spills it to the file, and dies by SIGKILL. */
static void die_mid_write(const char *path, const char *sql)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        sqlite3 *db;
        if (sqlite3_open(path, &db) != SQLITE_OK ||
            sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA cache_size=2; BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
            _exit(3);
        raise(SIGKILL);
    }
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the writer did not die as planned (%d)", st);
    char j[400];
    snprintf(j, sizeof j, "%s-journal", path);
    cr_assert(exists(j), "the killed write left no journal");
}

/* Items 1, 2: a write killed mid-way leaves db + hot -journal; readers refuse (75), sweep recovers. */
Test(sweep, hot_journal_readers_refuse_and_sweep_recovers)
{
    const char *ref = tmp("hj-ref.db");
    run_result *r = RUN("sweep", "--n", "300", "--seed", "8", "--db", ref, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *want = dump(ref);

    /* a killed write into a finished database */
    const char *db = tmp("hj.db");
    copy_file(ref, db);
    die_mid_write(db, "UPDATE layer_results SET thm11 = thm11 + 1");
    size_t n, nj;
    char *before = slurp_file(db, &n), *jbefore = slurp_file(tmp("hj.db-journal"), &nj);
    r = RUN("report", "--db", db);
    cr_expect_eq(r->status, 75, "report: %d %s", r->status, r->err);
    cr_expect(strstr(r->err, "interrupted") && count_lines(r->err) == 1, "%s", r->err);
    r = RUN("merge", tmp("hj-out.db"), db);
    cr_expect_eq(r->status, 75, "merge: %d %s", r->status, r->err);
    cr_expect(!exists(tmp("hj-out.db")));
    expect_untouched(db, before, n, "hot journal, read");
    expect_untouched(tmp("hj.db-journal"), jbefore, nj, "the journal itself");
    r = RUN("sweep", "--n", "300", "--seed", "8", "--db", db, "--quiet");
    cr_expect_eq(r->status, 0, "%s", r->err);
    char *got = dump(db);
    cr_expect_str_eq(got, want, "recovered database differs");
    expect_no_side_files(db, "after recovery");
    free(got);
    free(before);
    free(jbefore);

    /* issue 8 item 2: a creation killed after pages reached the file ("not a ripsim database" before) */
    const char *fresh = tmp("created.db");
    char sql[2048];
    snprintf(sql, sizeof sql, "%s; PRAGMA user_version = 1; "
             "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000) "
             "INSERT INTO run_log SELECT 1, 'at', 'filler', printf('%%0200d', i) FROM k",
             "CREATE TABLE runs(x); CREATE TABLE run_log (run_id, at, event, detail)");
    die_mid_write(fresh, sql);
    struct stat sb;
    cr_assert_eq(stat(fresh, &sb), 0);
    cr_expect_gt(sb.st_size, 0, "the killed creation wrote pages");
    r = RUN("sweep", "--n", "300", "--seed", "8", "--db", fresh, "--quiet");
    cr_expect_eq(r->status, 0, "rerun after a killed creation: %s", r->err);
    got = dump(fresh);
    cr_expect_str_eq(got, want, "database created after a killed creation differs");
    free(got);
    expect_no_side_files(fresh, "after the rerun");
    free(want);
}

/* Item 4: merge never leaves a partial OUT (nor a temporary file); an existing OUT stays as it was. */
Test(sweep, merge_never_leaves_a_partial_output)
{
    char first[256];
    const char *s0 = tmp("m0.db"), *s1 = tmp("m1.db"), *bad = tmp("m1x.db"), *out = tmp("mout.db");
    char a[320], b[320], c[320], o[320];
    snprintf(a, sizeof a, "%s", s0);
    snprintf(b, sizeof b, "%s", s1);
    snprintf(c, sizeof c, "%s", bad);
    snprintf(o, sizeof o, "%s", out);
    run_result *r = RUN("sweep", "--n", "600", "--seed", "5", "--db", a, "--shard", "0/2", "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("sweep", "--n", "600", "--seed", "5", "--db", b, "--shard", "1/2", "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    /* the same shard with one value altered: consistent, passes every check, differs in one row */
    copy_file(b, c);
    exec_sql(c, "UPDATE layer_results SET naive_workspace = naive_workspace + 1 WHERE layer_idx = 301");
    int files = entries(tmpdir, first, sizeof first);
    r = RUN("merge", o, a, b, c);
    cr_expect_eq(r->status, 65, "%d %s", r->status, r->err);
    cr_expect(strstr(r->err, "differ") != NULL, "%s", r->err);
    cr_expect(!exists(o), "a partial output was left");
    cr_expect_eq(entries(tmpdir, first, sizeof first), files, "a temporary file was left (%s)", first);

    /* an existing OUT stays byte-identical when a later merge fails */
    r = RUN("merge", o, a);
    cr_assert_eq(r->status, 0, "%s", r->err);
    size_t n;
    char *before = slurp_file(o, &n);
    files = entries(tmpdir, first, sizeof first);
    r = RUN("merge", o, b, c);
    cr_expect_eq(r->status, 65, "%d %s", r->status, r->err);
    expect_untouched(o, before, n, "existing output after a failed merge");
    cr_expect_eq(entries(tmpdir, first, sizeof first), files, "a temporary file was left");
    free(before);
    /* and the good merge completes it, keeping the first merge's run_log */
    r = RUN("merge", o, b);
    cr_expect_eq(r->status, 0, "%s", r->err);
    cr_expect_eq(db_scalar(o, "SELECT count(*) FROM layers"), 600);
    cr_expect_eq(db_scalar(o, "SELECT count(*) FROM run_log WHERE event = 'merge'"), 2);
    expect_no_side_files(o, "after merge");
}

/* Peak resident KiB of the test-hooks binary stopped by SIGINT after its first commit. */
static long peak_rss_kib(const char *n, const char *db, int *status)
{
    const char *bin = getenv("RIPSIM_TESTHOOKS_BIN");
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        setenv("RIPSIM_TEST_SIGINT_AFTER_BATCHES", "1", 1);
        execl(bin, bin, "sweep", "--n", n, "--db", db, "--jobs", "1", "--quiet", (char *)NULL);
        _exit(127);
    }
    int st;
    struct rusage ru;
    cr_assert_eq(wait4(pid, &st, 0, &ru), pid);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return ru.ru_maxrss;
}

/* Item 13: memory does not grow with --n (10^9 used to allocate 7.8 GB before its first commit). */
Test(sweep, memory_is_flat_in_n)
{
    int s_small, s_huge;
    long small = peak_rss_kib("1000", tmp("rss-small.db"), &s_small);
    long huge = peak_rss_kib("1000000000", tmp("rss-huge.db"), &s_huge);
    cr_expect_eq(s_small, 130);
    cr_expect_eq(s_huge, 130, "--n 10^9: status %d", s_huge);
    cr_expect_eq(db_scalar(tmp("rss-huge.db"), "SELECT count(*) FROM layers"), 250, "the first batch is committed");
    fprintf(stderr, "peak RSS after the first commit: --n 1000 %ld KiB, --n 1000000000 %ld KiB\n", small, huge);
    cr_expect_lt(huge, small + 16 * 1024, "--n 10^9 peaks at %ld KiB, --n 1000 at %ld KiB", huge, small);
#if !defined(__SANITIZE_ADDRESS__)
    cr_expect_lt(huge, 64 * 1024, "--n 10^9 peaks at %ld KiB", huge);
#endif
    /* the stopped 10^9 run resumes from what it stored, without a per-layer list either */
    run_result *r = RUN_HOOK("RIPSIM_TEST_SIGINT_AFTER_BATCHES=1", "sweep", "--n", "1000000000", "--db",
                             tmp("rss-huge.db"), "--jobs", "1", "--quiet");
    cr_expect_eq(r->status, 130, "%s", r->err);
    cr_expect(strstr(r->err, "500 of 1000000000 layers are saved") != NULL, "%s", r->err);
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
