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
#include "evaluate.h"
#include "confidence.h"
#include "layer.h"
#include "nonfinite_words.h"

#define SWEEP_N 200
#define SWEEP_SEED "7"

/* ---- files and processes (no Criterion asserts: also used by the hooks) ---- */

static const char *testdir(void)
{
    return getenv("RIPSIM_REPORT_TESTDIR");
}

/* dir/name in one of 8 rotating buffers. */
static const char *in_dir(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", testdir() ? testdir() : "/nonexistent", name);
    return buf[k];
}

/* Whole file into a NUL-terminated malloc'ed string; NULL if unreadable. */
static char *slurp_file(const char *path)
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
static int spawn(const char *const *args, const char *out_path, const char *err_path)
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
static proc run_args(const char *const *args)
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

static void proc_free(proc *p)
{
    free(p->out);
    free(p->err);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int count_str(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---- fixtures ------------------------------------------------------------------ */

static int exec_sql(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* A new database at path with the schema of version 2 (filled by insert_layer,
** then converted by rip_db_migrate) or 4, the current one (its configs
** filled); NULL on failure. */
static sqlite3 *new_schema_db(const char *path, int version)
{
    sqlite3 *db = NULL;
    unlink(path);
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        exec_sql(db, version == 2 ? rip_db_schema_v2_sql : rip_db_schema_sql) != 0 ||
        exec_sql(db, version == 2 ? "PRAGMA user_version = 2" : "PRAGMA user_version = 4") != 0 ||
        (version == 4 && exec_sql(db, "INSERT INTO configs VALUES ('rip_padded_gather', 0, 0, 0), "
                                      "('rip_padded_taps', 1, 0, 0), ('rip_dense_gather', 2, 1, 0), "
                                      "('rip_dense_taps', 3, 1, 0), ('herringbone_taps', 4, 0, 0), "
                                      "('herringbone_taps_reader', 5, 0, 0), ('herringbone_pruned', 6, 0, 1)") != 0)) {
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
        bool dense = e == RIP_EXEC_DENSE_GATHER || e == RIP_EXEC_DENSE_TAPS;
        sqlite3_bind_int(st, 1, idx);
        sqlite3_bind_text(st, 2, rip_exec_name((rip_exec)e), -1, SQLITE_STATIC);
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
    /* written as schema version 2, the way the rows were written before; read as version 4 */
    char err[RIP_ERR_LEN];
    int64_t from = 0, layers = 0;
    if (rc == 0 && rip_db_migrate(path, &from, &layers, NULL, err) != RIP_OK) {
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

/* A copy of sweep.db named name with the SQL steps a and b run on it; 0 or -1. */
static int altered_copy(const char *name, const char *a, const char *b)
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
        db = new_schema_db(in_dir("norun.db"), 4);
        rc = db ? 0 : -1;
        sqlite3_close(db);
    }
    if (rc == 0) {
        db = new_schema_db(in_dir("nolayers.db"), 4);
        rc = db ? exec_sql(db, "INSERT INTO runs VALUES (1, 7, 200, 0, 1, 'x', 'fixture')") : -1;
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

/* ---- SQL helpers of the tests ------------------------------------------------- */

static sqlite3 *open_ro(const char *path)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "open %s", path);
    return db;
}

/* One integer from sql, formatted by sqlite3_vmprintf (%Q quotes a string). */
static int64_t q_int(sqlite3 *db, const char *fmt, ...)
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

/* ---- the csv rendering, parsed ----------------------------------------------- */

typedef struct {
    char *f[4];   /* section, row, column, value */
} csv_cell;

typedef struct {
    csv_cell *c;
    size_t n;
} csv_doc;

/* RFC 4180: quoted fields with "" escapes, commas and newlines inside quotes. */
static csv_doc parse_csv(const char *s)
{
    csv_doc d = {0};
    size_t cap = 0;
    bool header = true;
    while (*s) {
        csv_cell cell = {{0}};
        int k = 0;
        for (;;) {
            size_t cap2 = strlen(s) + 1, len = 0;
            char *field = malloc(cap2);
            cr_assert_not_null(field);
            if (*s == '"') {
                s++;
                for (;;) {
                    cr_assert(*s, "unterminated quoted csv field");
                    if (s[0] == '"' && s[1] == '"') {
                        field[len++] = '"';
                        s += 2;
                    } else if (s[0] == '"') {
                        s++;
                        break;
                    } else {
                        field[len++] = *s++;
                    }
                }
            } else {
                while (*s && *s != ',' && *s != '\n')
                    field[len++] = *s++;
            }
            field[len] = '\0';
            cr_assert_lt(k, 4, "csv line with more than 4 fields");
            cell.f[k++] = field;
            if (*s == ',') {
                s++;
                continue;
            }
            cr_assert(*s == '\n', "csv line must end with a newline");
            s++;
            break;
        }
        cr_assert_eq(k, 4, "csv line with %d fields", k);
        if (header) {
            cr_assert_str_eq(cell.f[0], "section");
            cr_assert_str_eq(cell.f[3], "value");
            header = false;
            for (int i = 0; i < 4; i++)
                free(cell.f[i]);
            continue;
        }
        if (d.n == cap) {
            cap = cap ? 2 * cap : 256;
            d.c = realloc(d.c, cap * sizeof *d.c);
            cr_assert_not_null(d.c);
        }
        d.c[d.n++] = cell;
    }
    return d;
}

static void csv_free(csv_doc *d)
{
    for (size_t i = 0; i < d->n; i++)
        for (int k = 0; k < 4; k++)
            free(d->c[i].f[k]);
    free(d->c);
}

/* The value of (section, row, column); fails the test when absent. */
static const char *cv(const csv_doc *d, const char *section, const char *row, const char *column)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->c[i].f[0], section) == 0 && strcmp(d->c[i].f[1], row) == 0 &&
            strcmp(d->c[i].f[2], column) == 0)
            return d->c[i].f[3];
    cr_assert_fail("csv has no cell %s/%s/%s", section, row, column);
    return NULL;
}

static int64_t cv_int(const csv_doc *d, const char *section, const char *row, const char *column)
{
    const char *v = cv(d, section, row, column);
    char *end;
    long long x = strtoll(v, &end, 10);
    cr_assert(*v && *end == '\0', "%s/%s/%s = '%s' is not an integer", section, row, column, v);
    return x;
}

static const char *fmt2(double x)
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
    snprintf(want, sizeof want, "| %s%% (%lld of %lld layers; 95%% CI", fmt2(100.0 * (double)restricted / (double)n),
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

Test(report, csv_matches_the_database)
{
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    proc p = RUN("report", "--db", in_dir("sweep.db"), "--format", "csv");
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    csv_doc d = parse_csv(p.out);
    int64_t n = q_int(db, "SELECT count(*) FROM layers");
    int64_t restricted = q_int(db, "SELECT count(*) FROM layers WHERE restricted = 1");
    /* App. E.3 section: the counts again, through the truths view (workspace column) rather
    ** than layer_results; a layer has stale input when its pruned store is below the padded one */
    static const char *const prow[2] = {"all_input_read", "stale_input"};
    for (int st = 0; st < 2; st++) {
        static const char *const ops[3][2] = {{"lt", "<"}, {"eq", "="}, {"gt", ">"}};
        const char *join = "FROM truths p JOIN truths h USING (layer_idx) JOIN truths r USING (layer_idx)"
                           " JOIN layer_wide l USING (layer_idx) WHERE p.exec_config = 'herringbone_pruned'"
                           " AND h.exec_config = 'herringbone_taps' AND r.exec_config = 'herringbone_taps_reader'";
        cr_assert_eq(cv_int(&d, "pruned", prow[st], "n"),
                     q_int(db, "SELECT count(*) %s AND (l.n_in_read < l.n_in_padded) = %d", join, st));
        for (int o = 0; o < 3; o++) {
            char key[32];
            snprintf(key, sizeof key, "%s_hb", ops[o][0]);
            cr_assert_eq(cv_int(&d, "pruned", prow[st], key),
                         q_int(db, "SELECT count(*) %s AND (l.n_in_read < l.n_in_padded) = %d AND p.workspace %s "
                                   "h.workspace", join, st, ops[o][1]), "%s %s", prow[st], key);
            snprintf(key, sizeof key, "%s_reader", ops[o][0]);
            cr_assert_eq(cv_int(&d, "pruned", prow[st], key),
                         q_int(db, "SELECT count(*) %s AND (l.n_in_read < l.n_in_padded) = %d AND p.workspace %s "
                                   "r.workspace", join, st, ops[o][1]), "%s %s", prow[st], key);
        }
        cr_assert_eq(cv_int(&d, "pruned", prow[st], "max_saving"),
                     q_int(db, "SELECT coalesce(max(h.workspace - p.workspace), 0) %s AND (l.n_in_read < "
                               "l.n_in_padded) = %d", join, st));
    }
    /* without stale input pruning stores the same input: the same workspace, never a saving */
    cr_assert_eq(cv_int(&d, "pruned", "all_input_read", "eq_hb"), cv_int(&d, "pruned", "all_input_read", "n"));
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "gt_hb"), 0);

    cr_assert_eq(cv_int(&d, "run", "layers_present", "value"), n);
    cr_assert_eq(cv_int(&d, "run", "layers_expected", "value"), SWEEP_N);
    cr_assert_eq(cv_int(&d, "run", "seed", "value"), 7);
    cr_assert_eq(cv_int(&d, "claims", "restricted_share", "holds"), restricted);
    cr_assert_eq(cv_int(&d, "claims", "restricted_share", "of"), n);
    cr_assert_str_eq(cv(&d, "claims", "restricted_share", "value"), fmt2(100.0 * (double)restricted / (double)n));
    cr_assert_str_eq(cv(&d, "claims", "restricted_share", "paper_value"), "22.60");

    /* verdict counts, from the verdicts table directly (not the view) */
    for (size_t i = 0; i < sizeof judged_formulas / sizeof judged_formulas[0]; i++) {
        const char *f = judged_formulas[i];
        static const char *const v[] = {"unsafe", "tight", "loose", "n/a"};
        static const char *const key[] = {"unsafe", "tight", "loose", "na"};
        for (int k = 0; k < 4; k++)
            cr_assert_eq(cv_int(&d, "verdicts", f, key[k]),
                         q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = %Q", f, v[k]),
                         "%s %s", f, v[k]);
    }

    /* the claims' words follow the counts */
    int64_t own_unsafe = q_int(db, "SELECT count(*) FROM verdicts WHERE verdict = 'unsafe' AND formula IN "
                                   "('corollary1','thm11','thm4_gather','thm4_taps','thm13_gather','thm13_taps')");
    cr_assert_str_eq(cv(&d, "claims", "no_unsafe", "check"), own_unsafe == 0 ? "agrees" : "differs");
    static const char *const all_tight[][2] = {
        {"thm4_gather", "thm4_gather_tight"}, {"thm4_taps", "thm4_taps_tight"}, {"thm11", "thm11_tight"}};
    for (int i = 0; i < 3; i++) {
        int64_t t = q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'tight'", all_tight[i][0]);
        cr_assert_eq(cv_int(&d, "claims", all_tight[i][1], "holds"), t);
        cr_assert_str_eq(cv(&d, "claims", all_tight[i][1], "check"), t == n ? "agrees" : "differs");
    }

    /* Lemma 9, recomputed in C from the raw rows */
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
        "SELECT l.cin, l.cout, l.k_h, l.w_out, v.value, v.truth FROM verdicts v JOIN layers l USING (run_id, layer_idx) "
        "WHERE v.formula = 'gm2019_eq1' AND v.verdict != 'n/a' AND l.restricted = 1", -1, &st, NULL), SQLITE_OK);
    int64_t in_grid = 0, match = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t cin = sqlite3_column_int64(st, 0), cout = sqlite3_column_int64(st, 1);
        int64_t k = sqlite3_column_int64(st, 2), wout = sqlite3_column_int64(st, 3);
        int64_t value = sqlite3_column_int64(st, 4), truth = sqlite3_column_int64(st, 5);
        cr_assert_gt(cout, cin, "Eq. 1 judged with C_out <= C_in");
        int64_t rho = (k - 1) * cin, alpha = cout - cin;
        if (rho / alpha <= wout - 1) {
            in_grid++;
            match += truth - value == rho % alpha;
        }
    }
    sqlite3_finalize(st);
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall", "of"), in_grid);
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall", "holds"), match);
    cr_assert_eq(match, in_grid, "Lemma 9 must hold on every in-grid layer");

    /* thm13_taps loose margins: n, mean, median, max recomputed in C */
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT margin FROM verdicts WHERE formula = 'thm13_taps' AND verdict = 'loose' "
                                        "ORDER BY margin", -1, &st, NULL), SQLITE_OK);
    double m[SWEEP_N];
    int nm = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        m[nm++] = (double)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    cr_assert_eq(cv_int(&d, "loose_margins", "thm13_taps", "n"), nm);
    if (nm > 0) {
        double sum = 0;
        for (int i = 0; i < nm; i++)
            sum += m[i];
        double median = nm % 2 ? m[nm / 2] : (m[nm / 2 - 1] + m[nm / 2]) / 2;
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "mean"), fmt2(sum / nm));
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "median"), fmt2(median));
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "max"), fmt2(m[nm - 1]));
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "min"), fmt2(m[0]));
    }

    /* Tab. 5: per category and per tier, summing to n */
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT generator FROM generators", -1, &st, NULL), SQLITE_OK);
    int64_t drawn = 0;
    int ngen = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *g = (const char *)sqlite3_column_text(st, 0);
        int64_t c = cv_int(&d, "tab5", g, "drawn");
        cr_assert_eq(c, q_int(db, "SELECT count(*) FROM layers WHERE generator = %Q", g), "%s", g);
        drawn += c;
        ngen++;
    }
    sqlite3_finalize(st);
    cr_assert_eq(ngen, 20);
    cr_assert_eq(drawn, n, "Tab. 5 counts must sum to n");
    cr_assert_eq(cv_int(&d, "tab5_tiers", "1", "drawn") + cv_int(&d, "tab5_tiers", "2", "drawn") +
                     cv_int(&d, "tab5_tiers", "3", "drawn"), n);
    cr_assert_eq(cv_int(&d, "tab5_tiers", "total", "drawn"), n);
    for (int t = 1; t <= 3; t++) {
        char tier[4];
        snprintf(tier, sizeof tier, "%d", t);
        cr_assert_eq(cv_int(&d, "tab5_tiers", tier, "drawn"), q_int(db, "SELECT count(*) FROM layers WHERE tier = %d", t));
    }
    cr_assert_eq(cv_int(&d, "tab5_tiers", "1", "paper_pct"), 35);
    cr_assert_eq(cv_int(&d, "tab5_tiers", "2", "paper_pct"), 45);
    cr_assert_eq(cv_int(&d, "tab5_tiers", "3", "paper_pct"), 20);

    cr_assert(strstr(cv(&d, "findings", "1", "text"), "restricted setting"));
    csv_free(&d);
    proc_free(&p);
    sqlite3_close(db);
}

Test(report, tex_is_escaped_and_balanced)
{
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    int64_t restricted = q_int(db, "SELECT count(*) FROM layers WHERE restricted = 1");
    proc p = RUN("report", "--db", in_dir("sweep.db"), "--format", "tex");
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    int tabs = count_str(p.out, "\\begin{tabular}");
    cr_assert_geq(tabs, 6);
    cr_assert_eq(tabs, count_str(p.out, "\\end{tabular}"));
    cr_assert_eq(count_str(p.out, "\\begin{table}"), count_str(p.out, "\\end{table}"));
    cr_assert_eq(count_str(p.out, "{"), count_str(p.out, "}") + count_str(p.out, "\\{") - count_str(p.out, "\\}"));
    char want[64];
    snprintf(want, sizeof want, "(%lld of 200 layers; 95\\%% CI", (long long)restricted);
    cr_assert(strstr(p.out, want), "missing '%s'", want);
    /* outside comments and \label, every _ % # is escaped */
    for (const char *line = p.out; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (line[0] != '%' && strncmp(line, "\\label{", 7) != 0)
            for (size_t i = 0; i < len; i++)
                if (strchr("_%#", line[i]))
                    cr_assert(i > 0 && line[i - 1] == '\\', "unescaped '%c' in: %.*s", line[i], (int)len, line);
        line += len + (eol ? 1 : 0);
    }
    proc_free(&p);
    sqlite3_close(db);
}

Test(report, deterministic_and_out_file)
{
    proc a = RUN("report", "--db", in_dir("sweep.db"));
    proc b = RUN("report", "--db", in_dir("sweep.db"));
    cr_assert_eq(a.status, 0);
    cr_assert_str_eq(a.out, b.out, "two runs of the same report differ");
    char out[512];
    snprintf(out, sizeof out, "%s", in_dir("report.md"));
    proc c = RUN("report", "--db", in_dir("sweep.db"), "--out", out);
    cr_assert_eq(c.status, 0, "stderr: %s", c.err);
    cr_assert_str_empty(c.out);
    char *file = slurp_file(out);
    cr_assert_not_null(file);
    cr_assert_str_eq(file, a.out, "--out differs from stdout");
    free(file);
    unlink(out);
    for (const char *f = "csv\0tex\0"; *f; f += strlen(f) + 1) {
        proc x = RUN("report", "--db", in_dir("sweep.db"), "--format", f);
        proc y = RUN("report", "--db", in_dir("sweep.db"), "--format", f);
        cr_assert_eq(x.status, 0);
        cr_assert_str_eq(x.out, y.out, "%s not deterministic", f);
        proc_free(&x);
        proc_free(&y);
    }
    proc_free(&a);
    proc_free(&b);
    proc_free(&c);
}

/* ---- report on paper Tab. 2 ---------------------------------------------------------- */

Test(report, tab2_fixture_gives_the_paper_numbers)
{
    proc p = RUN("report", "--db", in_dir("tab2.db"), "--format", "csv");
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    csv_doc d = parse_csv(p.out);
    /* Tab. 2: Limitation 1 rows are unsafe by 2, 1, 1; Limitation 2 rows loose */
    cr_assert_eq(cv_int(&d, "verdicts", "gm2019_eq1", "unsafe"), 3);
    cr_assert_eq(cv_int(&d, "verdicts", "gm2019_eq1", "loose"), 4);
    cr_assert_eq(cv_int(&d, "verdicts", "gm2019_eq1", "tight"), 0);
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "n"), "3");
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "mean"), "1.33");
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "max"), "2.00");
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "min"), "1.00");
    /* Tab. 2 Err. column +72, +2,070, +15,500, +48,620 */
    cr_assert_str_eq(cv(&d, "loose_margins", "gm2019_eq1", "max"), "48620.00");
    cr_assert_str_eq(cv(&d, "loose_margins", "gm2019_eq1", "min"), "72.00");
    cr_assert_str_eq(cv(&d, "loose_margins", "gm2019_eq1", "mean"), fmt2((72 + 2070 + 15500 + 48620) / 4.0));
    cr_assert(strstr(cv(&d, "findings", "1", "text"), "loose on 4 of 4 layers, by up to 48620 scalars"));
    /* Lemma 9 on the three in-grid rows; Corollary 1 tight on all seven */
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall", "holds"), 3);
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall", "of"), 3);
    cr_assert_str_eq(cv(&d, "claims", "lemma9_shortfall", "check"), "agrees");
    cr_assert_eq(cv_int(&d, "claims", "corollary1_tight", "holds"), 7);
    cr_assert_str_eq(cv(&d, "claims", "corollary1_tight", "check"), "agrees");
    /* App. E.3: only the F.4 layer (7) has stale input, its real column (2 scalars; test_sim's
    ** f4_stale_from_the_outset): pruned 4 stored + gap 2 = 6 against herringbone_taps 6 + 2 = 8
    ** and herringbone_taps_reader 6 + 0 = 6.  The other eight read all their input. */
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "n"), 1);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "lt_hb"), 1);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "eq_reader"), 1);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "max_saving"), 2);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "max_saving_layer"), 7);
    cr_assert_str_eq(cv(&d, "pruned", "stale_input", "mean_saving_pct"), "25.00");
    cr_assert_eq(cv_int(&d, "pruned", "all_input_read", "n"), 8);
    cr_assert_eq(cv_int(&d, "pruned", "all_input_read", "eq_hb"), 8);
    cr_assert_eq(cv_int(&d, "claims", "restricted_share", "holds"), 7);
    /* App. F.4: the single loose dense layer overshoots by sigma = C_out = 2 */
    cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "n"), "1");
    cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "mean"), "2.00");
    cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "sd"), "");
    cr_assert_str_eq(cv(&d, "claims", "thm13_taps_overshoot", "check"), "not checked");
    cr_assert_eq(cv_int(&d, "claims", "thm13_taps_overshoot_le_sigma", "holds"), 1);
    cr_assert_str_eq(cv(&d, "claims", "no_unsafe", "check"), "agrees");
    /* three made-up categories: the composition claim must say so */
    cr_assert_str_eq(cv(&d, "claims", "composition", "check"), "differs");
    csv_free(&d);
    proc_free(&p);
}

/* ---- errors -------------------------------------------------------------------------------- */

static void expect_error(const char *db, int status, const char *needle)
{
    proc p = RUN("report", "--db", db);
    cr_assert_eq(p.status, status, "%s: status %d, stderr: %s", db, p.status, p.err);
    cr_assert_eq(count_lines(p.err), 1, "%s: want one line on stderr, got: %s", db, p.err);
    cr_assert(strncmp(p.err, "ripsim report: ", 15) == 0, "%s", p.err);
    cr_assert(strstr(p.err, needle), "%s: stderr lacks '%s': %s", db, needle, p.err);
    cr_assert_str_empty(p.out);
    proc_free(&p);
}

Test(report, missing_database)
{
    expect_error(in_dir("no-such-dir/missing.db"), 66, "missing.db");
}

Test(report, not_sqlite)
{
    expect_error(in_dir("notdb.db"), 65, "not an SQLite database");
}

Test(report, wrong_schema_version)
{
    expect_error(in_dir("v99.db"), 65, "99");
}

Test(report, foreign_database)
{
    expect_error(in_dir("foreign.db"), 65, "not a ripsim database");
}

Test(report, empty_runs)
{
    expect_error(in_dir("norun.db"), 65, "no run");
    expect_error(in_dir("nolayers.db"), 65, "no layers");
}

/* The check of every open (db.h) counts every verdict again from the layers and refuses counts that disagree. */
Test(report, verdict_counts_that_disagree_with_the_layers_are_refused)
{
    expect_error(in_dir("shifted.db"), 65, "verdict counts of thm11");
}

/* A value that is not an integer is refused, never read as 0. */
Test(report, a_value_that_is_not_an_integer_is_refused)
{
    expect_error(in_dir("texty.db"), 65, "layer 42: cin holds a text value, not an integer");
}

Test(report, incomplete_run_is_loud)
{
    proc p = RUN("report", "--db", in_dir("incomplete.db"));
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    cr_assert(strstr(p.out, "**INCOMPLETE RUN: only 150 of the 200 expected layers are present (75.00%)"), "%s", p.out);
    cr_assert_eq(count_lines(p.err), 1);
    cr_assert(strstr(p.err, "incomplete: 150 of 200"), "%s", p.err);
    proc_free(&p);
    proc c = RUN("report", "--db", in_dir("incomplete.db"), "--format", "csv");
    csv_doc d = parse_csv(c.out);
    cr_assert(strstr(cv(&d, "warning", "incomplete", "text"), "150 of the 200"));
    cr_assert_eq(cv_int(&d, "run", "layers_present", "value"), 150);
    csv_free(&d);
    proc_free(&c);
}

Test(report, usage_and_output_errors)
{
    proc h = RUN("report", "--help");
    cr_assert_eq(h.status, 0);
    cr_assert(strstr(h.out, "usage: ripsim report"));
    proc_free(&h);
    proc f = RUN("report", "--db", in_dir("sweep.db"), "--format", "pdf");
    cr_assert_eq(f.status, 64);
    cr_assert_str_empty(f.out);
    proc_free(&f);
    proc u = RUN("report", "--db", in_dir("sweep.db"), "--frobnicate");
    cr_assert_eq(u.status, 64);
    proc_free(&u);
    proc o = RUN("report", "--db", in_dir("sweep.db"), "--out", in_dir("no-such-dir/r.md"));
    cr_assert_eq(o.status, 73, "stderr: %s", o.err);
    cr_assert_eq(count_lines(o.err), 1, "%s", o.err);
    cr_assert_neq(access(in_dir("no-such-dir/r.md"), F_OK), 0);
    proc_free(&o);
}

/* ---- shares whose Clopper-Pearson bound GSL's inverse could not find ---------------------- */

/*
** Issue 19: on these sweeps gsl_cdf_beta_Pinv fails to converge for a share
** of the claims table; the report printed "nan" as its bound and judged the
** claim on it.  Every bound below is pinned to mpmath 1.3 (40 digits: the
** regularized incomplete beta mpmath.betainc solved by bisection); e.g.
** 391 of 1583 gives 22.5923703549707-26.9017432041007%, 284 of 291
** 95.1067753837231-99.0275182383408%.  The counts are the databases' own,
** counted here with the test's SQL.
*/
typedef struct {
    const char *n, *seed;       /* the sweep (seed NULL: the default seed) */
    int64_t restricted, dense_tight, dense_judged;
    const char *restricted_row, *dense_row;   /* this run | check, as the md table prints them */
} share_case;

static void check_share_case(const share_case *c)
{
    char db[64], path[512];
    snprintf(db, sizeof db, "i19-%s.db", c->n);
    snprintf(path, sizeof path, "%s", in_dir(db));
    unlink(path);
    proc s = c->seed ? RUN("sweep", "--n", c->n, "--seed", c->seed, "--db", path, "--jobs", "2", "--quiet")
                     : RUN("sweep", "--n", c->n, "--db", path, "--jobs", "2", "--quiet");
    cr_assert_eq(s.status, 0, "sweep --n %s: %s", c->n, s.err);
    proc_free(&s);
    sqlite3 *sq = open_ro(path);
    cr_assert_eq(q_int(sq, "SELECT count(*) FROM layers WHERE restricted = 1"), c->restricted);
    cr_assert_eq(q_int(sq, "SELECT count(*) FROM verdicts WHERE formula = 'thm13_taps' AND verdict = 'tight'"),
                 c->dense_tight);
    cr_assert_eq(q_int(sq, "SELECT count(*) FROM verdicts WHERE formula = 'thm13_taps' AND verdict IN "
                           "('unsafe', 'tight', 'loose')"),
                 c->dense_judged);
    sqlite3_close(sq);
    static const char *const formats[] = {"md", "csv", "tex"};
    for (int f = 0; f < 3; f++) {
        proc p = RUN("report", "--db", path, "--format", formats[f]);
        cr_assert_eq(p.status, 0, "report --format %s: %s", formats[f], p.err);
        const char *bad = first_nonfinite_word(p.out);
        cr_expect_null(bad, "report --format %s prints a non-finite number: ...%.40s", formats[f], bad);
        if (f == 0) {
            cr_expect(strstr(p.out, c->restricted_row), "md lacks '%s'", c->restricted_row);
            cr_expect(strstr(p.out, c->dense_row), "md lacks '%s'", c->dense_row);
        }
        proc_free(&p);
    }
    unlink(path);
}

Test(report, share_bounds_of_1583_layers_seed_2)
{
    /* the paper's 22.6% lies in 22.59-26.90: agrees */
    share_case c = {"1583", "2", 391, 1536, 1583,
                    "| 24.70% (391 of 1583 layers; 95% CI 22.59-26.90%) | agrees |",
                    "| 97.03% (1536 of 1583 judged; 95% CI 96.07-97.81%) | differs |"};
    check_share_case(&c);
}

Test(report, share_bounds_of_291_layers)
{
    share_case c = {"291", NULL, 73, 284, 291,
                    "| 25.09% (73 of 291 layers; 95% CI 20.21-30.48%) | agrees |",
                    "| 97.59% (284 of 291 judged; 95% CI 95.11-99.03%) | differs |"};
    check_share_case(&c);
}

Test(report, share_bounds_of_1100_layers)
{
    share_case c = {"1100", NULL, 297, 1075, 1100,
                    "| 27.00% (297 of 1100 layers; 95% CI 24.40-29.73%) | differs |",
                    "| 97.73% (1075 of 1100 judged; 95% CI 96.66-98.52%) | differs |"};
    check_share_case(&c);
}

/* A share above its whole (a restricted flag of 400 written by hand) is
** refused with one line, never printed with an interval made up for it. */
Test(report, a_share_above_its_whole_is_refused)
{
    cr_assert_eq(altered_copy("overfull.db", "UPDATE layer_results SET restricted = 400 WHERE layer_idx = 0;",
                              "SELECT 1;"),
                 0);
    expect_error(in_dir("overfull.db"), 65, "of 200 is not a share");
}

/* ---- results/queries, every .sql file ----------------------------------------------------------- */

#define MAX_COLS 40

typedef struct {
    int ncol;
    char *name[MAX_COLS];
    size_t nrows;
    char **cells;   /* nrows * ncol; NULL for SQL NULL */
} result_set;

typedef struct {
    result_set *rs;
    size_t n;
} query_out;

static const char *queries_dir(void)
{
    const char *d = getenv("RIPSIM_QUERIES_DIR");
    cr_assert_not_null(d, "RIPSIM_QUERIES_DIR must name results/queries");
    return d;
}

/* Run every statement of results/queries/NAME on the sweep; one result set each. */
static query_out run_query_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", queries_dir(), name);
    char *sql = slurp_file(path);
    cr_assert_not_null(sql, "cannot read %s", path);
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    query_out q = {0};
    const char *tail = sql;
    while (*tail) {
        sqlite3_stmt *st = NULL;
        const char *next;
        cr_assert_eq(sqlite3_prepare_v2(db, tail, -1, &st, &next), SQLITE_OK, "%s: %s", name, sqlite3_errmsg(db));
        tail = next;
        if (!st)
            continue;   /* comments and whitespace */
        q.rs = realloc(q.rs, (q.n + 1) * sizeof *q.rs);
        cr_assert_not_null(q.rs);
        result_set *r = &q.rs[q.n++];
        memset(r, 0, sizeof *r);
        r->ncol = sqlite3_column_count(st);
        cr_assert_leq(r->ncol, MAX_COLS);
        for (int c = 0; c < r->ncol; c++)
            r->name[c] = strdup(sqlite3_column_name(st, c));
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            r->cells = realloc(r->cells, (r->nrows + 1) * (size_t)r->ncol * sizeof *r->cells);
            cr_assert_not_null(r->cells);
            for (int c = 0; c < r->ncol; c++) {
                const unsigned char *t = sqlite3_column_text(st, c);
                r->cells[r->nrows * (size_t)r->ncol + (size_t)c] = t ? strdup((const char *)t) : NULL;
            }
            r->nrows++;
        }
        cr_assert_eq(rc, SQLITE_DONE, "%s: %s", name, sqlite3_errmsg(db));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    free(sql);
    return q;
}

static void query_free(query_out *q)
{
    for (size_t i = 0; i < q->n; i++) {
        result_set *r = &q->rs[i];
        for (int c = 0; c < r->ncol; c++)
            free(r->name[c]);
        for (size_t k = 0; k < r->nrows * (size_t)r->ncol; k++)
            free(r->cells[k]);
        free(r->cells);
    }
    free(q->rs);
}

static int col_of(const result_set *r, const char *name)
{
    for (int c = 0; c < r->ncol; c++)
        if (strcmp(r->name[c], name) == 0)
            return c;
    return -1;
}

static const char *cell(const result_set *r, size_t row, const char *name)
{
    int c = col_of(r, name);
    cr_assert_geq(c, 0, "no column %s", name);
    return r->cells[row * (size_t)r->ncol + (size_t)c];
}

static int64_t cell_int(const result_set *r, size_t row, const char *name)
{
    const char *v = cell(r, row, name);
    cr_assert_not_null(v, "column %s is NULL", name);
    return strtoll(v, NULL, 10);
}

Test(report, every_query_is_documented_and_runs)
{
    static const char *const required[] = {"unsafe_verdicts.sql", "loose_margin_by_generator.sql", "gm_shortfall.sql",
                                           "rip_vs_herringbone.sql", "verdict_share_by_tier.sql"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", queries_dir(), required[i]);
        cr_assert_eq(access(path, R_OK), 0, "missing %s", path);
    }
    DIR *d = opendir(queries_dir());
    cr_assert_not_null(d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".sql") != 0)
            continue;
        files++;
        char path[1024], how[600];
        snprintf(path, sizeof path, "%s/%s", queries_dir(), e->d_name);
        char *text = slurp_file(path);
        cr_assert_not_null(text);
        cr_assert(strncmp(text, "-- ", 3) == 0, "%s must open with a comment", e->d_name);
        snprintf(how, sizeof how, "sqlite3 -header -column results/sweep.db < results/queries/%s", e->d_name);
        cr_assert(strstr(text, how), "%s must say how to run it: %s", e->d_name, how);
        free(text);
        query_out q = run_query_file(e->d_name);
        cr_assert_geq(q.n, 1, "%s has no statement", e->d_name);
        size_t rows = 0;
        for (size_t i = 0; i < q.n; i++)
            rows += q.rs[i].nrows;
        cr_assert_gt(rows, 0, "%s returns no rows at all", e->d_name);
        query_free(&q);
    }
    closedir(d);
    cr_assert_geq(files, 5);
}

Test(report, gm_shortfall_is_lemma9)
{
    query_out q = run_query_file("gm_shortfall.sql");
    cr_assert_geq(q.n, 2);
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    cr_assert_eq((int64_t)r->nrows, q_int(db, "SELECT count(*) FROM verdicts v JOIN layers l USING (run_id, layer_idx) "
                                              "WHERE v.formula = 'gm2019_eq1' AND v.value IS NOT NULL AND l.restricted = 1 "
                                              "AND l.cout > l.cin"));
    size_t in_grid = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        int64_t cin = cell_int(r, i, "cin"), cout = cell_int(r, i, "cout"), k = cell_int(r, i, "k");
        int64_t wout = cell_int(r, i, "w_out");
        /* the query's in_grid, predicted and shortfall, recomputed */
        bool grid = (k - 1) * cin / (cout - cin) <= wout - 1;
        cr_assert_eq(cell_int(r, i, "in_grid"), grid);
        cr_assert_eq(cell_int(r, i, "predicted"), (k - 1) * cin % (cout - cin));
        cr_assert_eq(cell_int(r, i, "shortfall"), cell_int(r, i, "truth") - cell_int(r, i, "eq1"));
        if (grid) {
            in_grid++;
            cr_assert_eq(cell_int(r, i, "match"), 1, "Lemma 9 fails on layer %s", cell(r, i, "layer_idx"));
        }
    }
    cr_assert_gt(in_grid, 0, "the sweep should hold in-grid Eq. 1 layers");
    query_free(&q);
    sqlite3_close(db);
}

Test(report, unsafe_verdicts_only_for_gm)
{
    query_out q = run_query_file("unsafe_verdicts.sql");
    cr_assert_geq(q.n, 2);
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    cr_assert_eq((int64_t)r->nrows, q_int(db, "SELECT count(*) FROM verdicts WHERE verdict = 'unsafe'"));
    for (size_t i = 0; i < r->nrows; i++) {
        const char *f = cell(r, i, "formula");
        cr_assert(strncmp(f, "thm4", 4) != 0 && strncmp(f, "thm11", 5) != 0 && strncmp(f, "thm13", 5) != 0 &&
                      strcmp(f, "corollary1") != 0,
                  "unsafe verdict of %s on layer %s", f, cell(r, i, "layer_idx"));
        cr_assert_eq(cell_int(r, i, "shortfall"), cell_int(r, i, "truth") - cell_int(r, i, "value"));
        cr_assert_gt(cell_int(r, i, "shortfall"), 0);
    }
    int64_t total = 0;
    for (size_t i = 0; i < q.rs[1].nrows; i++)
        total += cell_int(&q.rs[1], i, "unsafe");
    cr_assert_eq(total, (int64_t)r->nrows);
    query_free(&q);
    sqlite3_close(db);
}

Test(report, rip_vs_herringbone_counts)
{
    query_out q = run_query_file("rip_vs_herringbone.sql");
    cr_assert_eq(q.n, 4);
    const result_set *tot = &q.rs[3];
    cr_assert_eq(tot->nrows, 1);
    int64_t better = cell_int(tot, 0, "rip_better"), eq = cell_int(tot, 0, "equal"), worse = cell_int(tot, 0, "hb_better");
    cr_assert_eq(cell_int(tot, 0, "layers"), SWEEP_N);
    cr_assert_eq(better + eq + worse, SWEEP_N);
    cr_assert_eq((int64_t)q.rs[0].nrows, better);
    cr_assert_eq((int64_t)q.rs[1].nrows, worse);
    for (size_t i = 0; i < q.rs[0].nrows; i++)
        cr_assert_gt(cell_int(&q.rs[0], i, "hb_minus_rip"), 0);
    for (size_t i = 0; i < q.rs[1].nrows; i++)
        cr_assert_lt(cell_int(&q.rs[1], i, "hb_minus_rip"), 0);
    int64_t per_gen = 0;
    for (size_t i = 0; i < q.rs[2].nrows; i++)
        per_gen += cell_int(&q.rs[2], i, "rip_better") + cell_int(&q.rs[2], i, "equal") +
                   cell_int(&q.rs[2], i, "hb_better");
    cr_assert_eq(per_gen, SWEEP_N);
    query_free(&q);
}

Test(report, verdict_share_by_tier_totals)
{
    query_out q = run_query_file("verdict_share_by_tier.sql");
    cr_assert_eq(q.n, 1);
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    int alls = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const char *f = cell(r, i, "formula");
        if (strcmp(cell(r, i, "tier"), "all") == 0) {
            alls++;
            cr_assert_eq(cell_int(r, i, "judged"),
                         q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict != 'n/a'", f));
            cr_assert_eq(cell_int(r, i, "layers"), SWEEP_N);
        } else {
            cr_assert_eq(cell_int(r, i, "tight"),
                         q_int(db, "SELECT count(*) FROM verdicts v JOIN layers l USING (run_id, layer_idx) "
                                   "WHERE v.formula = %Q AND v.verdict = 'tight' AND l.tier = %s", f, cell(r, i, "tier")));
        }
    }
    cr_assert_eq(alls, 7, "one total row per judged formula");
    query_free(&q);
    sqlite3_close(db);
}

Test(report, loose_margin_by_generator_sums)
{
    query_out q = run_query_file("loose_margin_by_generator.sql");
    const result_set *r = &q.rs[0];
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    for (size_t k = 0; k < sizeof judged_formulas / sizeof judged_formulas[0]; k++) {
        int64_t sum = 0;
        for (size_t i = 0; i < r->nrows; i++)
            if (strcmp(cell(r, i, "formula"), judged_formulas[k]) == 0)
                sum += cell_int(r, i, "loose");
        cr_assert_eq(sum, q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'loose'",
                                judged_formulas[k]), "%s", judged_formulas[k]);
    }
    query_free(&q);
    sqlite3_close(db);
}

Test(report, dense_vs_padded_summary)
{
    query_out q = run_query_file("dense_vs_padded.sql");
    cr_assert_eq(q.n, 2);
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    cr_assert_eq(q.rs[0].nrows, 2);
    cr_assert_str_eq(cell(&q.rs[0], 0, "tap_order"), "taps");
    cr_assert_eq(cell_int(&q.rs[0], 0, "layers"),
                 q_int(db, "SELECT count(*) FROM verdicts WHERE formula = 'thm13_taps' AND value IS NOT NULL"));
    /* the second result lists exactly the layers the first one counts as breaking */
    int64_t breaking = 0;
    for (size_t i = 0; i < q.rs[1].nrows; i++)
        breaking += strcmp(cell(&q.rs[1], i, "breaks"), "") != 0;
    int64_t counted = 0;
    for (size_t i = 0; i < 2; i++)
        counted += (cell_int(&q.rs[0], i, "layers") - cell_int(&q.rs[0], i, "dense_ws_le_padded")) +
                   (cell_int(&q.rs[0], i, "padded_layers") - cell_int(&q.rs[0], i, "padded_strictly_less"));
    cr_assert_leq(counted, breaking);
    query_free(&q);
    sqlite3_close(db);
}

/*
** Clopper-Pearson bounds where GSL's inverse beta does not converge (it
** fails for small shares of large runs, e.g. 5 of 15,000, and its default
** handler then aborted `ripsim claims`): pinned to an outside computation,
** mpmath's regularized incomplete beta at 40 digits, bisected (k = 0: the
** closed form 1 - 0.025^(1/n)).
*/
Test(report, clopper_pearson_holds_for_small_shares_of_large_runs)
{
    static const struct { int64_t k, n; double lo, hi; } pin[] = {
        {5, 15000, 0.0108241001054, 0.0777715910578},
        {52, 15000, 0.259012348226, 0.454361743016},
        {0, 15000, 0.0, 0.0245895059794},
    };
    char err[RIP_ERR_LEN];
    rip_ci ci;
    for (size_t i = 0; i < sizeof pin / sizeof pin[0]; i++) {
        cr_assert_eq(rip_ci_share(pin[i].k, pin[i].n, 0.95, &ci, err), RIP_OK, "%s", err);
        double lo = 100.0 * ci.lo, hi = 100.0 * ci.hi;
        cr_expect(fabs(lo - pin[i].lo) < 1e-9 && fabs(hi - pin[i].hi) < 1e-9, "%lld of %lld: %.12f-%.12f, want %.12f-%.12f",
                  (long long)pin[i].k, (long long)pin[i].n, lo, hi, pin[i].lo, pin[i].hi);
    }
    cr_assert_eq(rip_ci_share(15000, 15000, 0.95, &ci, err), RIP_OK, "%s", err);
    cr_expect(ci.hi == 1.0 && fabs(100.0 * ci.lo - (100.0 - 0.0245895059794)) < 1e-9, "%.12f-%.12f", ci.lo, ci.hi);
}
