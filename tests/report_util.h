/*
** report_util.h — helpers shared by the files of the report suite
** (tests/test_report.c, report_checks.c, report_queries.c): the test
** directory the PRE_ALL hook made (test_report.c), running the binary,
** counting, reading the databases read-only and parsing CSV.
*/
#ifndef RIPSIM_TEST_REPORT_UTIL_H
#define RIPSIM_TEST_REPORT_UTIL_H

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
#include "evaluate.h"
#include "confidence.h"
#include "layer.h"

#define SWEEP_N 200

/* ---- files and processes (no Criterion asserts: also used by the hooks) ---- */

static inline const char *testdir(void)
{
    return getenv("RIPSIM_REPORT_TESTDIR");
}

/* dir/name in one of 8 rotating buffers. */
static inline const char *in_dir(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", testdir() ? testdir() : "/nonexistent", name);
    return buf[k];
}

/* Whole file into a NUL-terminated malloc'ed string; NULL if unreadable. */
static inline char *slurp_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0, k;
    char *s = malloc(cap);
    while (s && (k = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += k;
        if (cap - len - 1 == 0) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                s = NULL;
            }
            s = t;
        }
    }
    fclose(f);
    if (s)
        s[len] = '\0';
    return s;
}

/* Run $RIPSIM_BIN args... with stdout and stderr to files; exit status or -1. */
static inline int spawn(const char *const *args, const char *out_path, const char *err_path)
{
    const char *bin = getenv("RIPSIM_BIN");
    if (!bin)
        return -1;
    char *argv[40];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args[n - 1] && n < 39; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fo = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        close(fo);
        close(fe);
        execv(bin, argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

typedef struct {
    int status;
    char *out, *err;
} proc;

/* Run ripsim; outputs land in per-process files of the test directory. */
static inline proc run_args(const char *const *args)
{
    char o[64], e[64];
    snprintf(o, sizeof o, "stdout.%d", (int)getpid());
    snprintf(e, sizeof e, "stderr.%d", (int)getpid());
    char op[512], ep[512];
    snprintf(op, sizeof op, "%s", in_dir(o));
    snprintf(ep, sizeof ep, "%s", in_dir(e));
    proc p = {.status = spawn(args, op, ep)};
    p.out = slurp_file(op);
    p.err = slurp_file(ep);
    unlink(op);
    unlink(ep);
    cr_assert_geq(p.status, 0, "cannot run $RIPSIM_BIN");
    cr_assert(p.out && p.err);
    return p;
}

#define RUN(...) run_args((const char *const[]){__VA_ARGS__, NULL})

static inline void proc_free(proc *p)
{
    free(p->out);
    free(p->err);
}

/* ---- fixtures ------------------------------------------------------------------ */

static inline int exec_sql(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* A copy of sweep.db named name with the SQL steps a and b run on it; 0 or -1. */
static inline int altered_copy(const char *name, const char *a, const char *b)
{
    sqlite3 *db = NULL;
    int rc = -1;
    unlink(in_dir(name));
    if (sqlite3_open_v2(in_dir("sweep.db"), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        char *q = sqlite3_mprintf("VACUUM INTO %Q", in_dir(name));
        rc = q ? exec_sql(db, q) : -1;
        sqlite3_free(q);
    }
    sqlite3_close(db);
    db = NULL;
    if (rc == 0 && (sqlite3_open(in_dir(name), &db) != SQLITE_OK || exec_sql(db, a) != 0 || exec_sql(db, b) != 0))
        rc = -1;
    sqlite3_close(db);
    return rc;
}

/* ---- SQL helpers of the tests ------------------------------------------------- */

static inline sqlite3 *open_ro(const char *path)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "open %s", path);
    return db;
}

/* One integer from sql, formatted by sqlite3_vmprintf (%Q quotes a string). */
static inline int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *sql = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_free(sql);
    return v;
}

static inline const char *fmt2(double x)
{
    static char buf[4][64];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%.2f", x);
    return buf[k];
}

/* ---- report on the real sweep ---------------------------------------------------- */

static const char *const judged_formulas[] = {"gm2019_eq1", "corollary1", "thm11", "thm4_gather",
                                              "thm4_taps", "thm13_gather", "thm13_taps"};

/* ---- results/queries, every .sql file ----------------------------------------------------------- */

#define MAX_COLS 40

typedef struct {
    int ncol;
    char *name[MAX_COLS];
    size_t nrows;
    char **cells;   /* nrows * ncol; NULL for SQL NULL */
} result_set;

static inline int col_of(const result_set *r, const char *name)
{
    for (int c = 0; c < r->ncol; c++)
        if (strcmp(r->name[c], name) == 0)
            return c;
    return -1;
}

static inline const char *cell(const result_set *r, size_t row, const char *name)
{
    int c = col_of(r, name);
    cr_assert_geq(c, 0, "no column %s", name);
    return r->cells[row * (size_t)r->ncol + (size_t)c];
}

#endif
