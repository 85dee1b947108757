/*
** db_dump.h — test helpers shared by the sweep database suites: a whole
** file as bytes (and a copy of it), and the rows of a list of queries as one string (columns
** joined by '|', rows by '\n', NULL as "NULL"), so that two databases can be
** compared table for table with one string compare.
*/
#ifndef RIPSIM_TEST_DB_DUMP_H
#define RIPSIM_TEST_DB_DUMP_H

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db.h"

/* The bytes of path, NUL-terminated; *n receives the size. */
static inline char *slurp_file(const char *path, size_t *n)
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

/* A byte-for-byte copy of the file from at to. */
static inline void copy_file(const char *from, const char *to)
{
    size_t n;
    char *b = slurp_file(from, &n);
    FILE *f = fopen(to, "wb");
    cr_assert_not_null(f, "%s", to);
    cr_assert_eq(fwrite(b, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    free(b);
}

/* The first column of the first row of sql on the database at path (read-only). */
static inline int64_t db_scalar(const char *path, const char *sql)
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

/* Every row of the nq queries q on path (opened read-only), as one string. */
static inline char *db_dump(const char *path, const char *const *q, size_t nq)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    size_t cap = 1 << 20, len = 0;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    for (size_t i = 0; i < nq; i++) {
        sqlite3_stmt *st;
        cr_assert_eq(sqlite3_prepare_v2(db, q[i], -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const unsigned char *t = sqlite3_column_text(st, c);
                size_t n = t ? strlen((const char *)t) : 4;
                while (len + n + 2 >= cap) {
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

/* The columns of table runs in schema versions 1 to 4 (version 5 adds its provenance). */
#define DB_RUNS_V4_COLS "run_id, seed, n_layers, shard_index, shard_count, generator_set, ripsim_version"

/*
** Write to `to` the database of schema version 1, 2, 3 or 4 that an older
** ripsim would have written for the run in the current (version 5)
** database `from`: the version 2 schema (rip_db_schema_v2_sql, db.h) filled
** from the views of the same names (version 1: without table executions),
** the version 3 schema (rip_db_schema_v3_sql) filled from the tables
** without herringbone_pruned, which no older version has, or the version 4
** schema (rip_db_schema_v4_sql) filled from the tables (its optima too);
** each without version 5's provenance, SPEC and column dictionary.  The
** inverse of `ripsim migrate`, so a migration can be compared with the
** original.
*/
static inline void db_make_old(const char *from, const char *to, int version)
{
    sqlite3 *db;
    char *msg = NULL;
    unlink(to);
    cr_assert_eq(sqlite3_open(to, &db), SQLITE_OK, "%s", to);
    char *sql = version == 4 ? sqlite3_mprintf(
        "%s; ATTACH %Q AS s; BEGIN;"
        "INSERT INTO runs SELECT " DB_RUNS_V4_COLS " FROM s.runs;"
        "INSERT INTO configs SELECT * FROM s.configs;"
        "INSERT INTO formulas SELECT * FROM s.formulas; INSERT INTO generators SELECT * FROM s.generators;"
        "INSERT INTO layer_results SELECT * FROM s.layer_results;"
        "INSERT INTO verdict_counts SELECT * FROM s.verdict_counts;"
        "INSERT INTO executions SELECT * FROM s.executions; INSERT INTO run_log SELECT * FROM s.run_log;"
        "COMMIT; DETACH s; PRAGMA user_version = 4;",
        rip_db_schema_v4_sql, from) : version == 3 ? sqlite3_mprintf(
        "%s; ATTACH %Q AS s; BEGIN;"
        "INSERT INTO runs SELECT " DB_RUNS_V4_COLS " FROM s.runs;"
        "INSERT INTO configs SELECT exec_config, config_id, dense FROM s.configs WHERE pruned = 0;"
        "INSERT INTO formulas SELECT * FROM s.formulas; INSERT INTO generators SELECT * FROM s.generators;"
        "INSERT INTO layer_results SELECT layer_idx, gen, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w,"
        " p_top, p_bottom, p_left, p_right, h_out, w_out, restricted, n_in_padded, n_in_dense, n_out,"
        " rip_padded_gather, rip_padded_taps, rip_dense_gather, rip_dense_taps, herringbone_taps,"
        " herringbone_taps_reader, gm2019_eq1, corollary1, thm11, thm4_gather, thm4_taps, thm13_gather,"
        " thm13_taps, naive_workspace FROM s.layer_results;"
        "INSERT INTO verdict_counts SELECT * FROM s.verdict_counts;"
        "INSERT INTO executions SELECT * FROM s.executions; INSERT INTO run_log SELECT * FROM s.run_log;"
        "COMMIT; DETACH s; PRAGMA user_version = 3;",
        rip_db_schema_v3_sql, from) : sqlite3_mprintf(
        "%s; ATTACH %Q AS s; BEGIN;"
        "INSERT INTO runs SELECT " DB_RUNS_V4_COLS " FROM s.runs;"
        "INSERT INTO layers SELECT run_id, layer_idx, generator, tier, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w,"
        " d_h, d_w, p_h, p_w, p_top, p_bottom, p_left, p_right, h_out, w_out, restricted, n_in_padded, n_in_dense,"
        " n_out FROM s.layers;"
        "INSERT INTO truths SELECT * FROM s.truths WHERE exec_config <> 'herringbone_pruned';"
        "INSERT INTO verdicts SELECT * FROM s.verdicts;"
        "INSERT INTO formulas SELECT * FROM s.formulas; INSERT INTO generators SELECT * FROM s.generators;"
        "INSERT INTO executions SELECT * FROM s.executions; INSERT INTO run_log SELECT * FROM s.run_log;"
        "%s COMMIT; DETACH s; PRAGMA user_version = %d;",
        rip_db_schema_v2_sql, from, version == 1 ? "DROP VIEW execution_summary; DROP TABLE executions;" : "",
        version);
    cr_assert_not_null(sql);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    sqlite3_free(sql);
    sqlite3_close(db);
}

#endif
