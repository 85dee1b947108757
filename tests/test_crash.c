/*
** test_crash.c — the sweep database under kill -9, damage and locks.
**
** The long loops of issue 8 live here, in their own suite, so that they
** can run beside the other suites:
**   - 200 kill -9 at random moments in the first 2 s of sweeps (new ones
**     and resumed ones), in 4 chains that run at once; every chain must
**     resume to exactly the tables of an uninterrupted run;
**   - kill -9 in the first 30 ms after a new sweep's file appears (the creation);
**   - 100 random 4 KiB overwrites of a finished database: sweep, report
**     and merge all refuse it (exit 65, one line), the file stays
**     byte-identical and no file appears beside it;
**   - a database locked by another process: wait, then exit 75.
** The random moments and offsets come from a seeded generator; the seed is
** printed and RIPSIM_CRASH_SEED=S repeats a run.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

#include "db_dump.h"
#include "run_cmd.h"
#include "splitmix.h"
#include "tmpdir.h"

#define N_LAYERS "1250"   /* five batches; about 1-2 s on one thread */
#define SEED "77"

TEST_SUITE_WITH_TMPDIR(crash, 900);

static double rng_unit(void)
{
    return (double)(rng_next() >> 11) * 0x1.0p-53;
}

static void rng_seed(const char *what)
{
    const char *s = getenv("RIPSIM_CRASH_SEED");
    rng_state = s ? strtoull(s, NULL, 10) : 20261130ull;
    fprintf(stderr, "%s: RIPSIM_CRASH_SEED=%llu\n", what, (unsigned long long)rng_state);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* All rows of the deterministic tables (run_log is wall-clock), in key order. */
static char *dump(const char *path)
{
    static const char *const q[] = {
        "SELECT * FROM runs",
        "SELECT * FROM layers ORDER BY run_id, layer_idx",
        "SELECT * FROM truths ORDER BY run_id, layer_idx, exec_config",
        "SELECT * FROM verdicts ORDER BY run_id, layer_idx, formula",
        "SELECT * FROM formulas ORDER BY formula",
        "SELECT * FROM generators ORDER BY generator",
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name",
        "PRAGMA user_version",
    };
    return db_dump(path, q, sizeof q / sizeof q[0]);
}

/* Start the released ripsim in the background: stdout to /dev/null, stderr to errfile. */
static pid_t spawn(const char *errfile, const char *const *args)
{
    const char *bin = getenv("RIPSIM_BIN");
    cr_assert_not_null(bin);
    char *argv[24];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args[n - 1] && n < 23; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int out = open("/dev/null", O_WRONLY), err = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0)
            _exit(126);
        dup2(out, 1);
        dup2(err, 2);
        execv(bin, argv);
        _exit(127);
    }
    return pid;
}

static void show_file(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f) {
        size_t k = fread(buf, 1, len - 1, f);
        buf[k] = '\0';
        fclose(f);
    }
}

/* The uninterrupted run every chain is compared with. */
static char *reference(void)
{
    run_result *r = RUN("sweep", "--n", N_LAYERS, "--seed", SEED, "--db", tmp("ref.db"), "--jobs", "1", "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    return dump(tmp("ref.db"));
}

/* A chain: one database, swept and killed until a run completes. */
typedef struct chain {
    char db[320], err[320];
    pid_t pid;
    double kill_at;
    int kills, runs;
} chain;

static void chain_start(chain *c, double window)
{
    const char *args[] = {"sweep", "--n", N_LAYERS, "--seed", SEED, "--db", c->db, "--jobs",
                          c->runs % 2 ? "2" : "1", "--quiet", NULL};
    c->pid = spawn(c->err, args);
    c->kill_at = window > 0 ? now() + window * rng_unit() : 1e300;
    c->runs++;
}

/* The database of a completed chain equals the reference and has no side file. */
static void chain_verify(const chain *c, const char *want)
{
    char *got = dump(c->db), side[340];
    cr_assert_str_eq(got, want, "%s: after %d kills, the resumed tables differ from an uninterrupted run",
                     c->db, c->kills);
    free(got);
    static const char *const sfx[] = {"-journal", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(side, sizeof side, "%.300s%s", c->db, sfx[i]);
        cr_expect(!exists(side), "%s remains after a clean finish", side);
    }
}

/*
** Run `kills` kill -9 at moments uniform in [0, window) s after each start,
** over n_chains chains at once; a chain whose run completes is verified and
** starts again on a fresh database.  Returns the number of chains verified.
*/
static int kill_loop(int kills_wanted, double window, int n_chains, const char *want, int *left_journal)
{
    chain c[8];
    int kills = 0, verified = 0;
    memset(c, 0, sizeof c);
    for (int i = 0; i < n_chains; i++) {
        snprintf(c[i].db, sizeof c[i].db, "%s/chain%d.db", tmpdir, i);
        snprintf(c[i].err, sizeof c[i].err, "%s/chain%d.err", tmpdir, i);
        chain_start(&c[i], window);
    }
    int running = n_chains;
    while (running > 0) {
        for (int i = 0; i < n_chains; i++) {
            if (c[i].pid == 0)
                continue;
            int st;
            pid_t w = waitpid(c[i].pid, &st, WNOHANG);
            if (w == 0 && now() >= c[i].kill_at) {
                kill(c[i].pid, SIGKILL); /* our unreaped child: the pid cannot be reused */
                w = waitpid(c[i].pid, &st, 0);
            }
            if (w == 0)
                continue;
            cr_assert_eq(w, c[i].pid);
            c[i].pid = 0;
            if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) {
                kills++;
                c[i].kills++;
                char j[340];
                snprintf(j, sizeof j, "%.300s-journal", c[i].db);
                *left_journal += exists(j);
            } else {
                char msg[2048];
                show_file(c[i].err, msg, sizeof msg);
                cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s run %d: status %d: %s", c[i].db, c[i].runs,
                          st, msg);
                chain_verify(&c[i], want);
                verified++;
                unlink(c[i].db);
                c[i].runs = c[i].kills = 0;
            }
            if (kills < kills_wanted || c[i].runs > 0)
                chain_start(&c[i], kills < kills_wanted ? window : 0);
            else
                running--;
        }
        sleep_s(0.001);
    }
    cr_assert_geq(kills, kills_wanted);
    return verified;
}

Test(crash, kill9_200_times_in_the_first_2s_resumes_to_identical_tables)
{
    rng_seed("kill -9 x 200");
    char *want = reference();
    int journals = 0;
    double t0 = now();
    int chains = kill_loop(200, 2.0, 4, want, &journals);
    fprintf(stderr, "kill -9 x 200 in [0, 2 s): %d completed chains identical to the uninterrupted run, "
            "%d kills left a -journal, %.0f s\n", chains, journals, now() - t0);
    cr_expect_geq(chains, 4);
    free(want);
}

/* Item 2: kill -9 in the first milliseconds of a new sweep, while it creates the database. */
Test(crash, kill9_while_creating_leaves_nothing_or_a_resumable_database)
{
    rng_seed("kill -9 at creation");
    /* one batch, so that each rerun is short */
    run_result *r = RUN("sweep", "--n", "250", "--seed", SEED, "--db", tmp("ref250.db"), "--jobs", "1", "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *want = dump(tmp("ref250.db"));
    int journals = 0, nothing = 0, created = 0;
    for (int i = 0; i < 40; i++) {
        const char *db = tmp("new.db");
        unlink(db);
        const char *args[] = {"sweep", "--n", "250", "--seed", SEED, "--db", db, "--jobs", "1", "--quiet", NULL};
        pid_t pid = spawn(tmp("new.err"), args);
        /* from the moment the file appears (process start-up varies, with
        ** sanitizers most of all), a random moment in the next 30 ms */
        int st;
        double give_up = now() + 10;
        while (!exists(db) && waitpid(pid, &st, WNOHANG) == 0 && now() < give_up)
            sleep_s(0.0002);
        sleep_s(0.030 * rng_unit());
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        char j[340];
        snprintf(j, sizeof j, "%.300s-journal", db);
        journals += exists(j);
        nothing += !exists(db);
        r = RUN("sweep", "--n", "250", "--seed", SEED, "--db", db, "--jobs", "2", "--quiet");
        cr_assert_eq(r->status, 0, "kill %d: the rerun failed: %s", i, r->err);
        char *got = dump(db);
        cr_assert_str_eq(got, want, "kill %d: resumed tables differ", i);
        free(got);
        created++;
    }
    fprintf(stderr, "kill -9 in the first 30 ms after the file appears x %d: %d left no file, %d left a -journal; "
            "all reruns identical\n",
            created, nothing, journals);
    free(want);
}

/* Overwrite 4 KiB at off with random bytes. */
static void overwrite(const char *path, long off)
{
    unsigned char junk[4096];
    for (size_t i = 0; i < sizeof junk; i += 8) {
        uint64_t v = rng_next();
        memcpy(junk + i, &v, 8);
    }
    FILE *f = fopen(path, "r+b");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, off, SEEK_SET), 0);
    cr_assert_eq(fwrite(junk, 1, sizeof junk, f), sizeof junk);
    cr_assert_eq(fclose(f), 0);
}

Test(crash, random_4k_corruptions_are_refused_untouched)
{
    rng_seed("4 KiB corruptions");
    run_result *r = RUN("sweep", "--n", N_LAYERS, "--seed", SEED, "--db", tmp("good.db"), "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char dir[320], db[340], out[340], first[256];
    snprintf(dir, sizeof dir, "%s/corrupt", tmpdir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(db, sizeof db, "%s/c.db", dir);
    snprintf(out, sizeof out, "%s/out.db", dir);
    size_t size;
    free(slurp_file(tmp("good.db"), &size));
    cr_assert_gt(size, 3 * 4096);
    double t0 = now();
    for (int t = 0; t < 100; t++) {
        copy_file(tmp("good.db"), db);
        /* below the last page: the 4 KiB end before the last page starts */
        long off = (long)(rng_next() % (uint64_t)(size - 2 * 4096 + 1));
        overwrite(db, off);
        size_t n;
        char *before = slurp_file(db, &n);
        const char *const cmds[3][12] = {
            {"sweep", "--n", N_LAYERS, "--seed", SEED, "--db", db, "--quiet", NULL},
            {"report", "--db", db, NULL},
            {"merge", out, db, NULL},
        };
        for (int c = 0; c < 3; c++) {
            r = run_env(NULL, cmds[c]);
            cr_expect_eq(r->status, 65, "trial %d, offset %ld, %s: status %d: %s", t, off, cmds[c][0], r->status,
                         r->err);
            cr_expect_eq(count_lines(r->err), 1, "trial %d, %s: one line: %s", t, cmds[c][0], r->err);
            size_t n2;
            char *after = slurp_file(db, &n2);
            cr_assert(n2 == n && memcmp(before, after, n) == 0, "trial %d, offset %ld, %s: the file changed", t, off,
                      cmds[c][0]);
            free(after);
            int k = entries(dir, first, sizeof first);
            cr_assert_eq(k, 1, "trial %d, %s: %d files beside the database (e.g. %s)", t, cmds[c][0], k, first);
        }
        free(before);
    }
    fprintf(stderr, "100 random 4 KiB corruptions x sweep, report, merge: all exit 65, file unchanged, %.0f s\n",
            now() - t0);
}

/* Item 6: another process holds the lock; sweep and report wait, then exit 75. */
Test(crash, locked_database_waits_then_exits_75_with_a_hint)
{
    const char *db = tmp("locked.db");
    run_result *r = RUN("sweep", "--n", "300", "--seed", "2", "--db", db, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "BEGIN EXCLUSIVE; INSERT INTO run_log VALUES (1, 'now', 'test', 'holds the lock')",
                              NULL, NULL, NULL), SQLITE_OK);
    const char *s_args[] = {"sweep", "--n", "300", "--seed", "2", "--db", db, "--quiet", NULL};
    const char *r_args[] = {"report", "--db", db, NULL};
    double t0 = now();
    pid_t ps = spawn(tmp("s.err"), s_args), pr = spawn(tmp("r.err"), r_args);
    int ss, rs;
    waitpid(ps, &ss, 0);
    waitpid(pr, &rs, 0);
    double waited = now() - t0;
    char se[1024], re[1024];
    show_file(tmp("s.err"), se, sizeof se);
    show_file(tmp("r.err"), re, sizeof re);
    cr_expect(WIFEXITED(ss) && WEXITSTATUS(ss) == 75, "sweep: status %d: %s", ss, se);
    cr_expect(WIFEXITED(rs) && WEXITSTATUS(rs) == 75, "report: status %d: %s", rs, re);
    cr_expect_eq(count_lines(se), 1, "%s", se);
    cr_expect_eq(count_lines(re), 1, "%s", re);
    cr_expect(strstr(se, "locked") && strstr(se, "rerun the same command to resume"), "%s", se);
    cr_expect(strstr(re, "locked"), "%s", re);
    cr_expect(waited >= 4.5, "waited %.1f s before giving up", waited);
    sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(h);
    /* released: the same command goes on */
    r = RUN("sweep", "--n", "300", "--seed", "2", "--db", db, "--quiet");
    cr_expect_eq(r->status, 0, "%s", r->err);
}
