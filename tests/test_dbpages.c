/*
** test_dbpages.c — the rows of layer_results read straight from the pages
** of the file (src/db/db_pages.c), which the database check uses instead
** of stepping every row through SQLite, against SQLite's own reading.
**
**   - On sweep databases laid out every way SQLite may lay them out (4 KiB,
**     512 B and 64 KiB pages, a b-tree three levels deep, bytes reserved at
**     the end of each page, free pages, rows moved by updates, version 3's
**     columns) and holding every serial type (NULL, integers of 0 to 8
**     bytes and the constants 0 and 1, real, text, blob), the reader gives
**     every row, with the same rowid, the same types and the same integers
**     as `SELECT rowid, * FROM layer_results`.
**   - It leaves to SQLite (RIP_PAGES_UNSURE) what it cannot read exactly: a
**     record on overflow pages, a WAL database, a write transaction, a
**     database in memory; and the check then still refuses, with SQLite's
**     reading, what is wrong.  A callback that says stop stops it.
*/
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmpdir.h"
#include "db.h"
#include "db_dump.h"
#include "db_pages.h"
#include "run_cmd.h"

TEST_SUITE_WITH_TMPDIR(dbpages, 900);

typedef struct row {
    int64_t rowid;
    int64_t value[RIP_PAGES_MAX_COLS];
    unsigned char type[RIP_PAGES_MAX_COLS];
} row;

typedef struct rows {
    row *r;
    size_t n, cap;
    int n_cols;
    size_t stop_after;   /* > 0: return false at that row */
} rows;

static bool collect(void *ctx, int64_t rowid, const int64_t *value, const unsigned char *type, int n_cols)
{
    rows *rs = ctx;
    cr_assert_eq(n_cols, rs->n_cols);
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 256;
        rs->r = realloc(rs->r, rs->cap * sizeof *rs->r);
        cr_assert_not_null(rs->r);
    }
    row *w = &rs->r[rs->n++];
    w->rowid = rowid;
    memcpy(w->value, value, (size_t)n_cols * sizeof *value);
    memcpy(w->type, type, (size_t)n_cols);
    return rs->stop_after == 0 || rs->n < rs->stop_after;
}

static int by_rowid(const void *a, const void *b)
{
    int64_t x = ((const row *)a)->rowid, y = ((const row *)b)->rowid;
    return (x > y) - (x < y);
}

static void exec_ok(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg ? msg : "");
}

static int column_count(sqlite3 *db)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM pragma_table_info('layer_results')", -1, &st, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Open path read-only in a read transaction that has run quick_check, as the check does. */
static sqlite3 *open_checked_read(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    exec_ok(db, "BEGIN");
    cr_assert_eq(sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
    cr_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok", "%s", path);
    sqlite3_finalize(st);
    return db;
}

/*
** Read path's layer_results from the pages, assert that the reader gave
** every row, and compare each with SQLite's: the same rowids, the same
** type of every column (layer_idx, the rowid, stored as NULL) and the same
** integers.  Returns the number of rows.
*/
static size_t same_rows_as_sqlite(const char *path)
{
    sqlite3 *db = open_checked_read(path);
    rows rs = {.n_cols = column_count(db)};
    cr_assert_eq(rip_db_pages_rows(db, "layer_results", rs.n_cols, collect, &rs), RIP_PAGES_DONE, "%s", path);
    qsort(rs.r, rs.n, sizeof *rs.r, by_rowid);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT rowid, * FROM layer_results ORDER BY rowid", -1, &st, NULL),
                 SQLITE_OK);
    size_t i = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; i++) {
        cr_assert_lt(i, rs.n, "%s: SQLite has more rows than the pages gave (%zu)", path, rs.n);
        const row *w = &rs.r[i];
        cr_assert_eq(w->rowid, sqlite3_column_int64(st, 0), "%s: row %zu", path, i);
        cr_assert_eq(w->type[0], SQLITE_NULL, "%s: layer %lld: layer_idx stored", path, (long long)w->rowid);
        cr_assert_eq(sqlite3_column_int64(st, 1), w->rowid);
        for (int c = 1; c < rs.n_cols; c++) {
            int type = sqlite3_column_type(st, c + 1);
            cr_assert_eq(w->type[c], type, "%s: layer %lld, column %d: type %d, SQLite's %d", path,
                         (long long)w->rowid, c, w->type[c], type);
            if (type == SQLITE_INTEGER)
                cr_assert_eq(w->value[c], sqlite3_column_int64(st, c + 1), "%s: layer %lld, column %d", path,
                             (long long)w->rowid, c);
        }
    }
    sqlite3_finalize(st);
    cr_assert_eq(i, rs.n, "%s: the pages gave %zu rows, SQLite %zu", path, rs.n, i);
    sqlite3_close(db);
    free(rs.r);
    return i;
}

/* What the reader makes of path's layer_results (db opened by the caller, inside a transaction). */
static rip_pages_result read_rows(sqlite3 *db, size_t stop_after, size_t *n)
{
    rows rs = {.n_cols = column_count(db), .stop_after = stop_after};
    rip_pages_result res = rip_db_pages_rows(db, "layer_results", rs.n_cols, collect, &rs);
    *n = rs.n;
    free(rs.r);
    return res;
}

static void sweep_into(const char *db, const char *n)
{
    run_result *r = RUN("sweep", "--n", n, "--seed", "11", "--db", db, "--quiet", "--jobs", "1");
    cr_assert_eq(r->status, 0, "%s", r->err);
}

static void alter(const char *path, const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK, "%s", path);
    exec_ok(db, sql);
    sqlite3_close(db);
}

/* Levels of layer_results' b-tree (SQLite's dbstat: the root's path is '/', each level adds 4 characters). */
static int64_t tree_levels(const char *path)
{
    return db_scalar(path, "SELECT max(length(path) - 1) / 4 + 1 FROM dbstat WHERE name = 'layer_results'");
}

Test(dbpages, every_layout_gives_sqlites_rows)
{
    char base[320], path[320];
    snprintf(base, sizeof base, "%s", tmp("base.db"));
    sweep_into(base, "1200");
    cr_expect_eq(same_rows_as_sqlite(base), 1200);
    /* the same database with other page sizes, each accepted by the check */
    static const struct {
        const char *name, *sql;
    } layouts[] = {
        {"p512.db", "PRAGMA page_size = 512; VACUUM"},
        {"p65536.db", "PRAGMA page_size = 65536; VACUUM"},
        {"p1024.db", "PRAGMA page_size = 1024; VACUUM"},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        snprintf(path, sizeof path, "%s", tmp(layouts[i].name));
        copy_file(base, path);
        alter(path, layouts[i].sql);
        cr_expect_eq(same_rows_as_sqlite(path), 1200, "%s", path);
        run_result *r = RUN("report", "--db", path, "--out", tmp("r.md"));
        cr_expect_eq(r->status, 0, "%s: %s", path, r->err);
    }
    cr_expect_geq(tree_levels(tmp("p512.db")), 3, "no interior page below the root at 512 B a page");
    cr_expect_eq(db_scalar(tmp("p65536.db"), "PRAGMA page_size"), 65536);
    /* 32 bytes reserved at the end of every page (SQLite keeps them through VACUUM) */
    snprintf(path, sizeof path, "%s", tmp("reserved.db"));
    copy_file(base, path);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    int reserve = 32;
    cr_assert_eq(sqlite3_file_control(db, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve), SQLITE_OK);
    exec_ok(db, "VACUUM");
    sqlite3_close(db);
    size_t n;
    char *bytes = slurp_file(path, &n);
    cr_assert_eq((unsigned char)bytes[20], 32, "the reserve did not reach the file header");
    free(bytes);
    cr_expect_eq(same_rows_as_sqlite(path), 1200);
    /* version 3: six configurations, no n_in_read */
    snprintf(path, sizeof path, "%s", tmp("v3.db"));
    db_make_old(base, path, 3);
    cr_expect_eq(same_rows_as_sqlite(path), 1200);
}

Test(dbpages, every_serial_type_and_free_pages_give_sqlites_rows)
{
    char base[320], path[320];
    snprintf(base, sizeof base, "%s", tmp("base.db"));
    snprintf(path, sizeof path, "%s", tmp("types.db"));
    sweep_into(base, "1200");
    copy_file(base, path);
    /* serial types 0 (NULL), 8 and 9 (0, 1), 1 to 6 (1, 2, 3, 4, 6, 8 bytes), both signs; then
    ** a real (7), a text and a blob in other columns; rows deleted (free pages) and grown (moved) */
    alter(path,
          "UPDATE layer_results SET naive_workspace = CASE layer_idx % 16"
          " WHEN 0 THEN 0 WHEN 1 THEN 1 WHEN 2 THEN -1 WHEN 3 THEN 127 WHEN 4 THEN -32768 WHEN 5 THEN 8388607"
          " WHEN 6 THEN -8388609 WHEN 7 THEN 2147483647 WHEN 8 THEN -140737488355328 WHEN 9 THEN 140737488355328"
          " WHEN 10 THEN 9223372036854775807 WHEN 11 THEN -9223372036854775807 - 1 WHEN 12 THEN NULL"
          " WHEN 13 THEN 1.5 WHEN 14 THEN 'text ' || layer_idx ELSE x'00ff10' END;"
          "UPDATE layer_results SET thm11 = 'a longer text that makes the row move ' || hex(randomblob(40))"
          " WHERE layer_idx % 97 = 0;"
          "DELETE FROM layer_results WHERE layer_idx BETWEEN 300 AND 700;");
    cr_assert_gt(db_scalar(path, "PRAGMA freelist_count"), 0, "no free page to skip");
    cr_expect_eq(same_rows_as_sqlite(path), 1200 - 401);
}

/* On a copy of base at path, read-write: after begin the reader is unsure; then end. */
static void unsure_inside(const char *base, const char *path, const char *begin, const char *end)
{
    sqlite3 *db;
    size_t n;
    copy_file(base, path);
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    exec_ok(db, begin);
    cr_expect_eq(read_rows(db, 0, &n), RIP_PAGES_UNSURE, "%s: %s", path, begin);
    exec_ok(db, end);
    sqlite3_close(db);
}

Test(dbpages, what_it_cannot_read_exactly_is_left_to_sqlite)
{
    char base[320], path[320];
    size_t n;
    snprintf(base, sizeof base, "%s", tmp("base.db"));
    sweep_into(base, "300");
    /* the reader as the check uses it: every row */
    sqlite3 *db = open_checked_read(base);
    cr_expect_eq(read_rows(db, 0, &n), RIP_PAGES_DONE);
    cr_expect_eq(n, 300);
    /* a callback that says stop */
    cr_expect_eq(read_rows(db, 5, &n), RIP_PAGES_STOPPED);
    cr_expect_eq(n, 5);
    sqlite3_close(db);

    /* a record that spills onto overflow pages; the check (SQLite's pass) still names it */
    snprintf(path, sizeof path, "%s", tmp("overflow.db"));
    copy_file(base, path);
    alter(path, "UPDATE layer_results SET thm4_taps = hex(randomblob(3000)) WHERE layer_idx = 42");
    db = open_checked_read(path);
    cr_expect_eq(read_rows(db, 0, &n), RIP_PAGES_UNSURE);
    sqlite3_close(db);
    run_result *r = RUN("report", "--db", path, "--out", tmp("r.md"));
    cr_expect_eq(r->status, 65, "%s", r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect_not_null(strstr(r->err, "layer 42: thm4_taps holds a text value"), "%s", r->err);

    /* a write transaction: its pages may not be in the file yet */
    unsure_inside(base, tmp("write.db"), "BEGIN IMMEDIATE; DELETE FROM layer_results WHERE layer_idx < 10",
                  "ROLLBACK");
    /* WAL: pages may live in the -wal file */
    unsure_inside(base, tmp("wal.db"), "PRAGMA journal_mode = WAL; BEGIN; SELECT count(*) FROM layer_results",
                  "COMMIT");

    /* a database in memory has no file to read */
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    exec_ok(db, rip_db_schema_sql);
    exec_ok(db, "BEGIN; SELECT count(*) FROM layer_results");
    cr_expect_eq(read_rows(db, 0, &n), RIP_PAGES_UNSURE);
    exec_ok(db, "COMMIT");
    sqlite3_close(db);
}
