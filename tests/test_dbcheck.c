/*
** test_dbcheck.c — the one database check that every command runs before it
** reads or writes a sweep database (issue 19, items 5, 6, 7, 10 and the
** database parts of 15).
**
**   - Tampered databases: copies of one small sweep, each altered in one
**     way with the SQLite C API (a truth + 1, a verdict count moved, a text,
**     real or out-of-range value, a NULL, a layer deleted or moved outside
**     the run, an unknown generator, a foreign trigger, view, index or
**     table, a view rewritten or dropped, an overwritten page, a wrong
**     user_version, ...), and two of a version 3 database.  `sweep`
**     (resuming the run), `report`, `claims`, `merge` (the file as an input
**     and as an existing OUT) and `migrate` must each refuse every one with
**     exit 65 and the same one-line reason, leaving it byte-identical.
**   - A sweep writing while report, claims and a second sweep read the same
**     file over and over: none of them may call it damaged.
**   - migrate through a symbolic link converts the target, keeps the link,
**     the owner and the mode; merge blames the right file for rows that
**     differ and for a write error on OUT; migrate exits 65 (not 74) for
**     rows it cannot convert; the loser of a creation race with another
**     seed is refused as another run, not told to rerun.
*/
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tmpdir.h"
#include "db.h"
#include "db_dump.h"
#include "run_cmd.h"
#include "sweep.h"

TEST_SUITE_WITH_TMPDIR(dbcheck, 900);

#define BASE_N "300"
#define BASE_SEED "11"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void sweep_into(const char *db)
{
    run_result *r = RUN("sweep", "--n", BASE_N, "--seed", BASE_SEED, "--db", db, "--quiet", "--jobs", "1");
    cr_assert_eq(r->status, 0, "%s", r->err);
}

/* Run sql on path (read-write), asserting it succeeds. */
static void alter(const char *path, const char *sql)
{
    sqlite3 *db;
    char *msg = NULL;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK, "%s", path);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg ? msg : "");
    sqlite3_close(db);
}

/* Overwrite the middle page of path (4 KiB pages) with a byte pattern. */
static void overwrite_middle_page(const char *path)
{
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    off_t pages = sb.st_size / 4096;
    cr_assert_gt(pages, 8, "%s: too small to damage a middle page", path);
    unsigned char junk[4096];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(0x5a ^ (i * 37));
    int fd = open(path, O_WRONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(pwrite(fd, junk, sizeof junk, (pages / 2) * 4096), (ssize_t)sizeof junk);
    close(fd);
}

typedef struct tamper {
    const char *name;
    int version;        /* 4, or 3: applied to a version 3 copy */
    const char *sql;    /* NULL: overwrite a page */
    const char *want;   /* in the reason every command gives */
} tamper;

/* thm13_taps is judged by rip_dense_taps (paper Theorem 13, dense taps): a + 1
** on that truth of a layer where it is tight makes it unsafe. */
#define TRUTH_PLUS_ONE                                                                                  \
    "UPDATE layer_results SET rip_dense_taps = rip_dense_taps + 1 WHERE layer_idx ="                  \
    " (SELECT min(layer_idx) FROM layer_results WHERE thm13_taps = rip_dense_taps)"

static const tamper tampers[] = {
    {"truth_plus_one", 4, TRUTH_PLUS_ONE, "verdict counts of thm13_taps"},
    {"count_moved", 4,
     "UPDATE verdict_counts SET n = n - 1 WHERE ord = 2 AND verdict = 2;"
     "INSERT INTO verdict_counts VALUES (2, 3, 1) ON CONFLICT (ord, verdict) DO UPDATE SET n = n + 1",
     "verdict counts of thm11"},
    {"layer_deleted", 4, "DELETE FROM layer_results WHERE layer_idx = 17", "verdict counts of gm2019_eq1"},
    {"value_null", 4, "UPDATE layer_results SET thm11 = NULL WHERE layer_idx = 3", "verdict counts of thm11"},
    {"value_text", 4, "UPDATE layer_results SET thm4_taps = 'x' || thm4_taps WHERE layer_idx = 42",
     "layer 42: thm4_taps holds a text value"},
    {"value_numeric_text", 4, "UPDATE layer_results SET cin = CAST(cin AS TEXT) WHERE layer_idx = 43",
     "layer 43: cin holds a text value"},
    {"value_real", 4, "UPDATE layer_results SET thm11 = thm11 + 0.5 WHERE layer_idx = 44",
     "layer 44: thm11 holds a real value"},
    {"value_whole_real", 4,
     "UPDATE layer_results SET rip_padded_taps = CAST(rip_padded_taps AS REAL) WHERE layer_idx = 45",
     "layer 45: rip_padded_taps holds a real value"},
    {"value_out_of_range", 4, "UPDATE layer_results SET thm11 = 4611686018427387904 WHERE layer_idx = 46",
     "layer 46: thm11 holds 4611686018427387904"},
    {"unknown_generator", 4, "UPDATE layer_results SET gen = 99 WHERE layer_idx = 5",
     "layer 5: generator id 99"},
    {"outside_run", 5, "UPDATE layer_results SET layer_idx = 307 WHERE layer_idx = 3",
     "layer 307 lies outside the run"},
    {"trigger_on_run_log", 5,
     "CREATE TRIGGER drop_layers AFTER INSERT ON run_log BEGIN DELETE FROM layer_results; END",
     "trigger drop_layers"},
    {"extra_view", 5, "CREATE VIEW mine AS SELECT 1", "view mine"},
    {"extra_index", 5, "CREATE INDEX by_gen ON layer_results (gen)", "index by_gen"},
    {"extra_table", 5, "CREATE TABLE notes (x)", "table notes"},
    {"analyze_stats", 5, "ANALYZE", "table sqlite_stat1"},
    {"view_rewritten", 5,
     "DROP VIEW verdict_summary; CREATE VIEW verdict_summary AS SELECT 1 AS run_id, formula, exec_config,"
     " 0 AS unsafe, 0 AS tight, 0 AS loose, 0 AS na FROM formulas",
     "view verdict_summary"},
    {"view_dropped", 5, "DROP VIEW layer_wide", "view layer_wide"},
    {"page_overwritten", 5, NULL, "damaged"},
    {"user_version_6", 5, "PRAGMA user_version = 6", "schema version 6"},
    {"second_run_row", 5,
     "INSERT INTO runs SELECT 2, seed, n_layers, shard_index, shard_count, generator_set, ripsim_version, "
     "source_commit, generator_fingerprint FROM runs",
     "2 rows in runs"},
    {"configs_swapped", 5,
     "UPDATE configs SET config_id = -1 WHERE config_id = 0; UPDATE configs SET config_id = 0 WHERE config_id = 1;"
     "UPDATE configs SET config_id = 1 WHERE config_id = -1",
     "do not name the columns of layer_results"},
    {"counts_of_no_formula", 5, "INSERT INTO verdict_counts VALUES (99, 1, 1)", "verdict_counts"},
    {"judged_by_nothing", 5, "UPDATE formulas SET exec_config = 'nonexistent' WHERE formula = 'thm13_taps'",
     "thm13_taps is judged by nonexistent"},
    {"columns_row_deleted", 5, "DELETE FROM columns WHERE column_name = 'spec'", "column dictionary"},
    {"columns_row_invented", 5, "INSERT INTO columns VALUES ('layers', 'nonesuch', 'x', NULL, NULL)",
     "column dictionary"},
    {"v3_truth_plus_one", 3, TRUTH_PLUS_ONE, "verdict counts of thm13_taps"},
    {"v3_trigger", 3, "CREATE TRIGGER t AFTER INSERT ON run_log BEGIN DELETE FROM layer_results; END",
     "trigger t"},
};

enum { CMD_SWEEP, CMD_REPORT, CMD_CLAIMS, CMD_MERGE_IN, CMD_MERGE_OUT, CMD_LAYER, CMD_SCHEMA, CMD_MIGRATE, N_CMDS };
static const char *const cmd_names[N_CMDS] = {"sweep", "report", "claims", "merge", "merge", "layer", "schema",
                                              "migrate"};
static const char *const cmd_roles[N_CMDS] = {"sweep", "report", "claims", "merge (input)", "merge (OUT)",
                                              "layer --db", "schema --db", "migrate"};

/* Run command c on the tampered file db (good: an untouched database of the same run). */
static run_result *run_on(int c, const char *db, const char *good)
{
    switch (c) {
    case CMD_SWEEP:
        return RUN("sweep", "--n", BASE_N, "--seed", BASE_SEED, "--db", db, "--quiet", "--jobs", "1");
    case CMD_REPORT:
        return RUN("report", "--db", db, "--out", tmp("report.md"));
    case CMD_CLAIMS:
        return RUN("claims", "--db", db, "--out", tmp("claims.md"), "--no-figures");
    case CMD_MERGE_IN:
        return RUN("merge", tmp("merged-new.db"), db);
    case CMD_MERGE_OUT:
        return RUN("merge", db, good);
    case CMD_LAYER:
        return RUN("layer", "--no-sim", "--db", db, "1");
    case CMD_SCHEMA:
        return RUN("schema", "--db", db);
    default:
        return RUN("migrate", "--db", db);
    }
}

/*
** Every command refuses every tampered database with exit 65 and one line
** "ripsim CMD: REASON", the same REASON for all (it names the file and
** what is wrong), and leaves the file byte-identical.
*/
Test(dbcheck, every_command_refuses_every_tampered_database_alike)
{
    char base[320], good[320], base3[320];
    snprintf(base, sizeof base, "%s", tmp("base.db"));
    snprintf(good, sizeof good, "%s", tmp("good.db"));
    snprintf(base3, sizeof base3, "%s", tmp("base3.db"));
    sweep_into(base);
    copy_file(base, good);
    db_make_old(base, base3, 3);
    cr_assert_eq(db_scalar(base, "SELECT exec_config = 'rip_dense_taps' FROM formulas WHERE formula = 'thm13_taps'"),
                 1);
    cr_assert_gt(db_scalar(base, "SELECT count(*) FROM verdicts WHERE formula = 'thm13_taps' AND verdict = 'tight'"),
                 0, "no layer to make thm13_taps unsafe on");
    for (size_t t = 0; t < sizeof tampers / sizeof tampers[0]; t++) {
        const tamper *tp = &tampers[t];
        char path[320], first[1024] = "";
        snprintf(path, sizeof path, "%s", tmp(tp->name));
        copy_file(tp->version == 3 ? base3 : base, path);
        if (tp->sql)
            alter(path, tp->sql);
        else
            overwrite_middle_page(path);
        size_t n0;
        char *before = slurp_file(path, &n0);
        for (int c = 0; c < N_CMDS; c++) {
            unlink(tmp("merged-new.db"));
            run_result *r = run_on(c, path, good);
            char prefix[64];
            snprintf(prefix, sizeof prefix, "ripsim %s: ", cmd_names[c]);
            cr_expect_eq(r->status, 65, "%s, %s: exit %d: %s", tp->name, cmd_roles[c], r->status, r->err);
            cr_expect_eq(count_lines(r->err), 1, "%s, %s: %s", tp->name, cmd_roles[c], r->err);
            cr_expect(strncmp(r->err, prefix, strlen(prefix)) == 0, "%s, %s: %s", tp->name, cmd_roles[c], r->err);
            const char *reason = strncmp(r->err, prefix, strlen(prefix)) == 0 ? r->err + strlen(prefix) : r->err;
            cr_expect_not_null(strstr(reason, path), "%s, %s: the reason does not name the file: %s", tp->name,
                               cmd_roles[c], reason);
            cr_expect_not_null(strstr(reason, tp->want), "%s, %s: no '%s' in: %s", tp->name, cmd_roles[c],
                               tp->want, reason);
            if (c == 0)
                snprintf(first, sizeof first, "%.1000s", reason);
            else
                cr_expect_str_eq(reason, first, "%s: %s and sweep differ", tp->name, cmd_roles[c]);
            size_t n1;
            char *after = slurp_file(path, &n1);
            cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "%s: %s modified it", tp->name, cmd_roles[c]);
            free(after);
            cr_expect(!exists(tmp("merged-new.db")), "%s, %s: an output was written", tp->name, cmd_roles[c]);
        }
        free(before);
    }
    /* the untouched files pass the same check: the refusals are the tampering's */
    run_result *r = RUN("report", "--db", base, "--out", tmp("report.md"));
    cr_expect_eq(r->status, 0, "%s", r->err);
    r = RUN("merge", tmp("merged-ok.db"), base, good);
    cr_expect_eq(r->status, 0, "%s", r->err);
    r = RUN("migrate", "--db", base3);
    cr_expect_eq(r->status, 0, "%s", r->err);
}

/* ---- a sweep writing while others read ------------------------------------------------- */

/*
** Start bin args... in the background, stdout and stderr to out and err;
** env: "K=V" entries, NULL-ended; fsize > 0: RLIMIT_FSIZE = fsize bytes
** (SIGXFSZ ignored, so a write past it fails as on a full disk).
*/
static pid_t start(const char *bin, const char *const *env, long fsize, const char *out, const char *err,
                   const char *const *args)
{
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args[n - 1] && n < 39; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        for (int i = 0; env[i]; i++) {
            char kv[256];
            snprintf(kv, sizeof kv, "%s", env[i]);
            char *eq = strchr(kv, '=');
            *eq = '\0';
            setenv(kv, eq + 1, 1);
        }
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644), fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            signal(SIGXFSZ, SIG_IGN);
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        execv(bin, argv);
        _exit(127);
    }
    return pid;
}

/* The exit status of pid (128 + signal), reaped now or already (st, from waitpid). */
static int wait_status_or(pid_t pid, int st)
{
    if (waitpid(pid, &st, 0) != pid && st == -1)
        cr_assert_fail("lost child %d", (int)pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int wait_status(pid_t pid)
{
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
** A sweep of 17,000 layers, 5,000 of them stored first, commits the rest
** in batches of 2 (the test hook RIPSIM_TEST_BATCH) while report, a second
** sweep (interrupted after its first batch) and, every fourth round,
** claims open the same file in turn, until the writer is done: every one must succeed (report
** and claims exit 0 on an incomplete run; the second sweep 0 or 130), none
** may find the healthy database damaged.  The checks of a database this
** size take milliseconds, several commits' time.
*/
Test(dbcheck, readers_during_a_sweep_never_see_damage, .timeout = 900)
{
    const char *hooks = getenv("RIPSIM_TESTHOOKS_BIN");
    cr_assert_not_null(hooks);
    char db[320], wout[320], werr[320];
    snprintf(db, sizeof db, "%s", tmp("busy.db"));
    snprintf(wout, sizeof wout, "%s", tmp("writer.out"));
    snprintf(werr, sizeof werr, "%s", tmp("writer.err"));
    const char *const run[] = {"sweep", "--n", "17000", "--seed", "4", "--db", db, "--quiet", "--jobs", "2", NULL};
    /* 12,000 layers left for the writer, two a commit: long enough for several
    ** reports (each runs the claims registry's queries, about a second) */
    pid_t w = start(hooks, (const char *const[]){"RIPSIM_TEST_SIGINT_AFTER_BATCHES=20", NULL}, 0, wout, werr, run);
    cr_assert_eq(wait_status(w), 130, "the first 5,000 layers");
    cr_assert_eq(db_scalar(db, "SELECT count(*) FROM layer_results"), 5000);
    w = start(hooks, (const char *const[]){"RIPSIM_TEST_BATCH=2", NULL}, 0, wout, werr, run);
    int rounds = 0, writer = -1, read_ok = 0;
    for (;;) {
        pid_t done = waitpid(w, &writer, WNOHANG);
        if (done == w) {
            writer = WIFEXITED(writer) ? WEXITSTATUS(writer) : 128 + WTERMSIG(writer);
            break;
        }
        /* report every round, the second sweep every fourth, claims (seconds on this size) once */
        run_result *r = RUN("report", "--db", db, "--out", tmp("r.md"));
        read_ok += r->status == 0;
        cr_expect(r->status == 0 || (r->status == 75 && strstr(r->err, "locked by another process")),
                  "round %d, report: exit %d: %s", rounds, r->status, r->err);
        cr_expect_null(strstr(r->err, "damaged"), "round %d, report: %s", rounds, r->err);
        if (rounds == 5) {
            r = RUN("claims", "--db", db, "--out", tmp("c.md"), "--no-figures");
            cr_expect(r->status == 0 || (r->status == 75 && strstr(r->err, "locked by another process")),
                      "round %d, claims: exit %d: %s", rounds, r->status, r->err);
            cr_expect_null(strstr(r->err, "damaged"), "round %d, claims: %s", rounds, r->err);
        }
        if (rounds % 4 == 3) {
            pid_t s = start(hooks, (const char *const[]){"RIPSIM_TEST_BATCH=2", "RIPSIM_TEST_SIGINT_AFTER_BATCHES=1",
                                                          NULL},
                            0, tmp("s2.out"), tmp("s2.err"), run);
            /* its first write waits for the writer, which commits back to back: stop it after 1 s */
            int st = -1;
            for (int i = 0; i < 100 && waitpid(s, &st, WNOHANG) == 0; i++)
                sleep_ms(10);
            if (kill(s, 0) == 0)
                kill(s, SIGINT);
            st = wait_status_or(s, st);
            size_t n;
            char *e = slurp_file(tmp("s2.err"), &n);
            cr_expect(st == 0 || st == 130 || (st == 75 && strstr(e, "locked")),
                      "round %d, second sweep: exit %d: %s", rounds, st, e);
            cr_expect_null(strstr(e, "damaged"), "round %d, second sweep: %s", rounds, e);
            free(e);
        }
        rounds++;
    }
    size_t n;
    char *e = slurp_file(werr, &n);
    cr_expect_eq(writer, 0, "the writing sweep: exit %d: %s", writer, e);
    free(e);
    cr_expect_geq(rounds, 4, "the writer finished before the readers overlapped it (%d rounds)", rounds);
    cr_expect_geq(read_ok, 3, "only %d of %d reports got a read lock beside the writer", read_ok, rounds);
    cr_expect_eq(db_scalar(db, "SELECT count(*) FROM layer_results"), 17000);
}

/* ---- migrate through a link; merge's blame; migrate's status; the creation race ------------ */

/*
** `migrate --db LINK` converts the file the link names, in place: the link
** stays a link to it, the file keeps its owner (as root: another user's)
** and its mode, and no temporary file is left in either folder.
*/
Test(dbcheck, migrate_through_a_link_converts_its_target_keeping_owner_and_mode)
{
    char base[320], real_dir[320], target[400], link_path[320], first[256];
    snprintf(base, sizeof base, "%s", tmp("base.db"));
    snprintf(real_dir, sizeof real_dir, "%s", tmp("real"));
    snprintf(target, sizeof target, "%s/old.db", real_dir);
    snprintf(link_path, sizeof link_path, "%s", tmp("link.db"));
    sweep_into(base);
    cr_assert_eq(mkdir(real_dir, 0755), 0);
    db_make_old(base, target, 3);
    cr_assert_eq(symlink(target, link_path), 0);
    const bool root = geteuid() == 0;
    if (root)
        cr_assert_eq(chown(target, 1234, 2345), 0);
    cr_assert_eq(chmod(target, 0640), 0);
    run_result *r = RUN("migrate", "--db", link_path);
    cr_assert_eq(r->status, 0, "%s", r->err);
    struct stat ls, ts;
    cr_assert_eq(lstat(link_path, &ls), 0);
    cr_expect(S_ISLNK(ls.st_mode), "the link was replaced by a file");
    char to[400] = "";
    cr_expect_gt(readlink(link_path, to, sizeof to - 1), 0);
    cr_expect_str_eq(to, target);
    cr_assert_eq(stat(target, &ts), 0);
    cr_expect_eq(db_scalar(target, "PRAGMA user_version"), RIP_DB_SCHEMA_VERSION, "the target was not converted");
    cr_expect_eq(ts.st_mode & 07777, 0640, "mode %o", (unsigned)(ts.st_mode & 07777));
    if (root) {
        cr_expect_eq(ts.st_uid, 1234, "owner %u", (unsigned)ts.st_uid);
        cr_expect_eq(ts.st_gid, 2345, "group %u", (unsigned)ts.st_gid);
    }
    cr_expect_eq(entries(real_dir, first, sizeof first), 1, "a file was left beside the target (%s)", first);
    cr_expect_eq(entries(tmpdir, first, sizeof first), 3, "a file was left beside the link");
}

/*
** Rows that differ between two databases of one run, where the check
** cannot tell which is wrong (n_in_read judges no formula): merge names
** both files and the layer, whether the other one is an existing OUT or
** another input.
*/
Test(dbcheck, merge_names_both_files_that_hold_different_rows)
{
    char a[320], b[320], out[320];
    snprintf(a, sizeof a, "%s", tmp("a.db"));
    snprintf(b, sizeof b, "%s", tmp("b.db"));
    snprintf(out, sizeof out, "%s", tmp("out.db"));
    sweep_into(a);
    copy_file(a, b);
    copy_file(a, out);
    alter(out, "UPDATE layer_results SET n_in_read = n_in_read + 1 WHERE layer_idx = 9");
    run_result *r = RUN("merge", out, b);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect(strstr(r->err, out) && strstr(r->err, b) && strstr(r->err, "layer 9"), "%s", r->err);
    unlink(out);
    alter(a, "UPDATE layer_results SET n_in_read = n_in_read + 1 WHERE layer_idx = 12");
    r = RUN("merge", out, b, a);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect(strstr(r->err, a) && strstr(r->err, b) && strstr(r->err, "layer 12"), "%s", r->err);
    cr_expect(!exists(out));
}

/* Run ripsim args... with RLIMIT_FSIZE = fsize; its status and stderr. */
static run_result *run_fsize(long fsize, const char *const *args)
{
    static run_result r;
    char errp[320];
    snprintf(errp, sizeof errp, "%s/../dbcheck-fsize-%d.err", tmpdir, (int)getpid());
    r.status = wait_status(start(getenv("RIPSIM_BIN"), (const char *const[]){NULL}, fsize, "/dev/null", errp, args));
    size_t len;
    char *e = slurp_file(errp, &len);
    snprintf(r.err, sizeof r.err, "%s", e);
    free(e);
    unlink(errp);
    return &r;
}

/* A merge whose OUT cannot be written (the file size limit, as a full disk) blames OUT, not an input. */
Test(dbcheck, merge_blames_out_for_a_write_error_on_out)
{
    char in[320], small[320], out[320], first[256];
    snprintf(in, sizeof in, "%s", tmp("in.db"));
    snprintf(small, sizeof small, "%s", tmp("small.db"));
    snprintf(out, sizeof out, "%s", tmp("out.db"));
    sweep_into(in);
    run_result *r = RUN("sweep", "--n", "1", "--db", small, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    struct stat sb;
    cr_assert_eq(stat(small, &sb), 0);
    unlink(small);
    int files = entries(tmpdir, first, sizeof first);
    /* room for the empty schema, not for the 300 layers */
    r = run_fsize((long)sb.st_size + 4096, (const char *const[]){"merge", out, in, NULL});
    cr_expect_eq(r->status, 74, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, out), "%s", r->err);
    cr_expect_null(strstr(r->err, in), "the input is blamed: %s", r->err);
    cr_expect(!exists(out));
    cr_expect_eq(entries(tmpdir, first, sizeof first), files, "a temporary file was left (%s)", first);
}

/* Rows migrate cannot convert (a layer whose geometry does not derive) are bad data: 65, as its help says. */
Test(dbcheck, migrate_refuses_rows_it_cannot_convert_with_65)
{
    char base[320], v3[320];
    snprintf(base, sizeof base, "%s", tmp("base.db"));
    snprintf(v3, sizeof v3, "%s", tmp("v3.db"));
    sweep_into(base);
    db_make_old(base, v3, 3);
    alter(v3, "UPDATE layer_results SET k_h = 0 WHERE layer_idx = 8");
    size_t n0, n1;
    char *before = slurp_file(v3, &n0);
    run_result *r = RUN("migrate", "--db", v3);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "layer 8"), "%s", r->err);
    char *after = slurp_file(v3, &n1);
    cr_expect(n0 == n1 && memcmp(before, after, n0) == 0, "migrate modified it");
    free(before);
    free(after);
    r = RUN("migrate", "--help");
    cr_expect_not_null(strstr(r->out, "65"), "%s", r->out);
    r = RUN("--help");
    cr_expect_not_null(strstr(r->out, "version 1 to 4"), "%s", r->out);
}

/*
** Two sweeps of different seeds create one file at once: the one that
** loses the race is refused as another run (65), not told that a rerun
** resumes.  The test holds the creating transaction of seed 99 open while
** the sweep of seed 11 starts, and commits it a moment later.
*/
Test(dbcheck, losing_a_creation_race_to_another_seed_is_another_run)
{
    char db[320];
    snprintf(db, sizeof db, "%s", tmp("race.db"));
    sqlite3 *h;
    char err[RIP_ERR_LEN], *msg = NULL;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    cr_assert_eq(sqlite3_exec(h, rip_db_schema_sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA user_version = %d", RIP_DB_SCHEMA_VERSION);
    cr_assert_eq(sqlite3_exec(h, pragma, NULL, NULL, &msg), SQLITE_OK);
    rip_run_info run = {.seed = 99, .n_layers = 300, .shard_index = 0, .shard_count = 1};
    rip_sweep_generator_set(NULL, run.generator_set, sizeof run.generator_set);
    rip_db_generator gen_rows[RIP_SWEEP_MAX_GENERATORS];
    run.generators = gen_rows;
    run.n_generators = rip_sweep_generator_rows(NULL, gen_rows, RIP_SWEEP_MAX_GENERATORS);
    snprintf(run.version, sizeof run.version, "%s", RIPSIM_VERSION);
    cr_assert_eq(rip_db_write_run(h, &run, err), 0, "%s", err);
    pid_t s = start(getenv("RIPSIM_BIN"), (const char *const[]){NULL}, 0, tmp("race.out"), tmp("race.err"),
                    (const char *const[]){"sweep", "--n", BASE_N, "--seed", BASE_SEED, "--db", db, "--quiet", NULL});
    sleep_ms(1500);
    cr_assert_eq(sqlite3_exec(h, "COMMIT", NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    sqlite3_close(h);
    int st = wait_status(s);
    size_t n;
    char *e = slurp_file(tmp("race.err"), &n);
    cr_expect_eq(st, 65, "%s", e);
    cr_expect_not_null(strstr(e, "holds another run"), "%s", e);
    cr_expect_not_null(strstr(e, "--seed"), "%s", e);
    cr_expect_null(strstr(e, "rerun"), "%s", e);
    free(e);
    cr_expect_eq(db_scalar(db, "SELECT seed FROM runs"), 99);
}

/*
** A version 4 database as ripsim wrote it before the columns of
** layer_results lost their INTEGER type (rip_db_layer_results_typed_sql,
** the text committed then) passes the schema check: migrate converts it,
** and the converted database is read and resumed.
*/
Test(dbcheck, version_4_with_typed_columns_is_ripsims)
{
    char base[320], old[320], again[320];
    snprintf(base, sizeof base, "%s", tmp("base.db"));
    snprintf(old, sizeof old, "%s", tmp("typed.db"));
    snprintf(again, sizeof again, "%s", tmp("typed2.db"));
    sweep_into(base);
    char *sql = sqlite3_mprintf("%s; DROP TABLE layer_results; %s; ATTACH %Q AS s; BEGIN;"
                                "INSERT INTO runs SELECT " DB_RUNS_V4_COLS " FROM s.runs;"
                                "INSERT INTO configs SELECT * FROM s.configs;"
                                "INSERT INTO formulas SELECT * FROM s.formulas;"
                                "INSERT INTO generators SELECT * FROM s.generators;"
                                "INSERT INTO layer_results SELECT * FROM s.layer_results;"
                                "INSERT INTO verdict_counts SELECT * FROM s.verdict_counts;"
                                "INSERT INTO run_log SELECT * FROM s.run_log; COMMIT; DETACH s;"
                                "PRAGMA user_version = 4;",
                                rip_db_schema_v4_sql, rip_db_layer_results_typed_sql, base);
    alter(old, sql);
    sqlite3_free(sql);
    copy_file(old, again);
    run_result *r = RUN("migrate", "--db", old);
    cr_expect_eq(r->status, 0, "%s", r->err);
    r = RUN("report", "--db", old, "--out", tmp("r.md"));
    cr_expect_eq(r->status, 0, "%s", r->err);
    r = RUN("sweep", "--n", BASE_N, "--seed", BASE_SEED, "--db", old, "--quiet", "--jobs", "1");
    cr_expect_eq(r->status, 0, "%s", r->err);
    /* one more column typed is not what ripsim wrote */
    alter(again, "ALTER TABLE layer_results ADD COLUMN extra INTEGER");
    r = RUN("migrate", "--db", again);
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "table layer_results differs"), "%s", r->err);
}
