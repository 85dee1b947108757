/*
** db_optima.c — the traversal-optimal gap as a truth of a sweep database
** (`ripsim sweep --optimum P`): table optima and view optimum_gaps, created
** only when asked for, with CREATE ... IF NOT EXISTS, beside the tables of
** schema version 4 (the schema version is unchanged: a database without
** them is exactly a plain sweep's, and the schema check of every open,
** db_check_schema.c, accepts these two objects there and nowhere else).
**
** Every stored layer whose output grid has at most P pixels gets one row:
** the optimum the caller's function computes (rip_eval_optimum_row: that of
** sim/optimum.h, confirmed there by the simulator); db/ only stores it.  Layers
** are taken in layer_idx order in batches, each committed in one
** transaction, and a rerun skips the rows present, so an interrupted fill
** resumes.  A row does not depend on P (only which layers get one does).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"

#define OPTIMA_BATCH 64

const char rip_db_optima_sql[] =
    "-- `ripsim sweep --optimum P`: the traversal-optimal gap of every stored layer\n"
    "-- with at most P output pixels: the smallest herringbone_taps_reader gap over\n"
    "-- every visiting order (exact search, confirmed by the simulator).\n"
    "CREATE TABLE IF NOT EXISTS optima (\n"
    "  layer_idx   INTEGER PRIMARY KEY,    -- layer_results.layer_idx\n"
    "  gap         INTEGER NOT NULL,       -- the optimum, in scalars\n"
    "  lower       INTEGER NOT NULL,       -- the search's live-bytes lower bound\n"
    "  row_major   INTEGER NOT NULL,       -- herringbone_taps_reader rule in row-major order\n"
    "  visit_order TEXT    NOT NULL        -- an optimal order: pixels r*w_out+c, comma-separated\n"
    ");\n"
    "CREATE VIEW IF NOT EXISTS optimum_gaps AS\n"
    "  SELECT r.layer_idx, r.h_out * r.w_out AS pixels, r.restricted, o.gap AS optimum,\n"
    "         r.rip_padded_gather - o.gap AS rip_padded_gather_over,\n"
    "         r.rip_padded_taps - o.gap AS rip_padded_taps_over,\n"
    "         r.rip_dense_gather - o.gap AS rip_dense_gather_over,\n"
    "         r.rip_dense_taps - o.gap AS rip_dense_taps_over,\n"
    "         r.herringbone_taps - o.gap AS herringbone_taps_over,\n"
    "         r.herringbone_taps_reader - o.gap AS herringbone_taps_reader_over,\n"
    "         o.row_major - o.gap AS row_major_over,\n"
    "         r.gm2019_eq1 - o.gap AS gm2019_eq1_over, r.corollary1 - o.gap AS corollary1_over,\n"
    "         r.thm11 - o.gap AS thm11_over, r.thm4_gather - o.gap AS thm4_gather_over,\n"
    "         r.thm4_taps - o.gap AS thm4_taps_over, r.thm13_gather - o.gap AS thm13_gather_over,\n"
    "         r.thm13_taps - o.gap AS thm13_taps_over\n"
    "  FROM layer_results r JOIN optima o ON o.layer_idx = r.layer_idx;\n";

/* Fail with SQLite's message; the status of its code. */
static rip_status sql_fail(sqlite3 *db, const char *path, const char *what, char err[RIP_ERR_LEN])
{
    snprintf(err, RIP_ERR_LEN, "%.200s: %s: %.200s", path, what, sqlite3_errmsg(db));
    rip_err_one_line(err);
    rip_status s = rip_db_status(sqlite3_errcode(db));
    return s == RIP_S_INTERNAL ? RIP_S_IO : s;
}

/* Count the layers of at most max_pixels pixels into res->eligible, and
** those with an optimum already into res->before. */
static rip_status count_small(sqlite3 *db, const char *path, int64_t max_pixels, rip_optima_result *res,
                              char err[RIP_ERR_LEN])
{
    sqlite3_stmt *sel = NULL;
    rip_status s = RIP_OK;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT count(*), (SELECT count(*) FROM optima o JOIN layer_results q ON q.layer_idx = o.layer_idx "
             "WHERE q.h_out * q.w_out <= %lld) FROM layer_results WHERE h_out * w_out <= %lld",
             (long long)max_pixels, (long long)max_pixels);
    if (sqlite3_prepare_v2(db, sql, -1, &sel, NULL) != SQLITE_OK || sqlite3_step(sel) != SQLITE_ROW) {
        s = sql_fail(db, path, "cannot count the small layers", err);
    } else {
        res->eligible = sqlite3_column_int64(sel, 0);
        res->before = sqlite3_column_int64(sel, 1);
    }
    sqlite3_finalize(sel);
    return s;
}

/* Prepare *sel (the next batch of layers without an optimum, after ?1) and
** *ins (one optimum); the caller finalizes both, whatever the result. */
static rip_status prepare_fill(sqlite3 *db, const char *path, int64_t max_pixels, sqlite3_stmt **sel,
                               sqlite3_stmt **ins, char err[RIP_ERR_LEN])
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT layer_idx, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top, p_bottom, p_left, "
             "p_right FROM layer_results r WHERE h_out * w_out <= %lld AND layer_idx > ?1 AND NOT EXISTS "
             "(SELECT 1 FROM optima o WHERE o.layer_idx = r.layer_idx) ORDER BY layer_idx LIMIT %d",
             (long long)max_pixels, OPTIMA_BATCH);
    if (sqlite3_prepare_v2(db, sql, -1, sel, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO optima (layer_idx, gap, lower, row_major, visit_order) "
                               "VALUES (?1, ?2, ?3, ?4, ?5)", -1, ins, NULL) != SQLITE_OK)
        return sql_fail(db, path, "cannot prepare the optima statements", err);
    return RIP_OK;
}

/* The scratch of the fill: an optimum's visiting order (what optimum writes) and its text. */
typedef struct fill_scratch {
    int64_t *order;
    char *order_txt;
} fill_scratch;

/* Store the optimum of the layer at sel's current row with ins; its
** layer_idx into *after.  RIP_OK, or a status with err. */
static rip_status store_row(sqlite3 *db, const char *path, sqlite3_stmt *sel, sqlite3_stmt *ins,
                            int64_t max_pixels, rip_db_optimum_fn optimum, fill_scratch *sc, int64_t *after,
                            char err[RIP_ERR_LEN])
{
    int64_t v[15];
    for (int i = 0; i < 15; i++)
        v[i] = sqlite3_column_int64(sel, i);
    *after = v[0];
    rip_layer L = rip_layer_make(v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], 0, 0);
    L.p_top = v[11], L.p_bottom = v[12], L.p_left = v[13], L.p_right = v[14];
    char why[RIP_ERR_LEN];
    int64_t gap, lower, row_gap, n_pix = 0;
    rip_status s;
    if (rip_layer_derive(&L, why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: layer %lld does not derive: %.200s", path, (long long)v[0], why);
        return RIP_S_DATA;
    }
    if ((s = optimum(&L, max_pixels, &gap, &lower, &row_gap, sc->order, &n_pix, why)) != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "layer %lld: %.400s", (long long)v[0], why);
        return s;
    }
    if (n_pix < 0 || n_pix > max_pixels) {
        snprintf(err, RIP_ERR_LEN, "layer %lld: a visiting order of %lld pixels", (long long)v[0], (long long)n_pix);
        return RIP_S_INTERNAL;
    }
    size_t at = 0;
    for (int64_t t = 0; t < n_pix; t++)
        at += (size_t)sprintf(sc->order_txt + at, "%s%lld", t ? "," : "", (long long)sc->order[t]);
    sqlite3_bind_int64(ins, 1, v[0]);
    sqlite3_bind_int64(ins, 2, gap);
    sqlite3_bind_int64(ins, 3, lower);
    sqlite3_bind_int64(ins, 4, row_gap);
    sqlite3_bind_text(ins, 5, sc->order_txt, (int)at, SQLITE_TRANSIENT);
    if (sqlite3_step(ins) != SQLITE_DONE)
        return sql_fail(db, path, "cannot insert an optimum", err);
    sqlite3_reset(ins);
    return RIP_OK;
}

/* Store the optima of the next batch (layers after *after, which moves on),
** inside the caller's transaction; their count into *n. */
static rip_status fill_batch(sqlite3 *db, const char *path, sqlite3_stmt *sel, sqlite3_stmt *ins,
                             int64_t max_pixels, rip_db_optimum_fn optimum, fill_scratch *sc, int64_t *after,
                             int *n, char err[RIP_ERR_LEN])
{
    int rc;
    *n = 0;
    sqlite3_bind_int64(sel, 1, *after);
    while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
        rip_status s = store_row(db, path, sel, ins, max_pixels, optimum, sc, after, err);
        if (s != RIP_OK)
            return s;
        ++*n;
    }
    sqlite3_reset(sel);
    if (rc != SQLITE_DONE)
        return sql_fail(db, path, "cannot read the layers", err);
    return RIP_OK;
}

/*
** Contract (db.h).  One cleanup path: the open statements and the
** connection; a batch not committed is rolled back.
*/
rip_status rip_db_optima_fill(const char *path, int64_t max_pixels, rip_db_optimum_fn optimum,
                              const rip_progress_cb *progress,
                              rip_optima_result *res, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL;
    sqlite3_stmt *sel = NULL, *ins = NULL;
    bool in_txn = false;
    fill_scratch sc = {NULL, NULL};
    memset(res, 0, sizeof *res);
    rip_status s = rip_db_open_write(path, &db, err);
    if (s != RIP_OK)
        return s;
    /* the table, the view and their rows of the column dictionary in one transaction */
    if (rip_db_exec(db, "BEGIN IMMEDIATE", err) != 0 || rip_db_exec(db, rip_db_optima_sql, err) != 0) {
        s = sql_fail(db, path, "cannot create table optima", err);
        goto done;
    }
    in_txn = true;
    if ((s = rip_db_fill_columns(db, err)) != RIP_OK)
        goto done;
    if (rip_db_exec(db, "COMMIT", err) != 0) {
        s = sql_fail(db, path, "cannot create table optima", err);
        goto done;
    }
    in_txn = false;
    if ((s = count_small(db, path, max_pixels, res, err)) != RIP_OK ||
        (s = prepare_fill(db, path, max_pixels, &sel, &ins, err)) != RIP_OK)
        goto done;
    /* a pixel index has at most 20 digits, and a comma */
    if (max_pixels < 1 || (sc.order = malloc((size_t)max_pixels * sizeof *sc.order)) == NULL ||
        (sc.order_txt = malloc((size_t)max_pixels * 21 + 1)) == NULL) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        s = RIP_S_NOMEM;
        goto done;
    }
    int64_t after = -1;
    for (;;) {
        rip_progress_report(progress, res->before + res->added, res->eligible, "optimum");
        if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
            s = sql_fail(db, path, "cannot begin a transaction", err);
            goto done;
        }
        in_txn = true;
        int n;
        if ((s = fill_batch(db, path, sel, ins, max_pixels, optimum, &sc, &after, &n, err)) != RIP_OK)
            goto done;
        if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            s = sql_fail(db, path, "cannot commit the optima", err);
            goto done;
        }
        in_txn = false;
        res->added += n;
        if (n < OPTIMA_BATCH)
            break;
    }
    rip_progress_report(progress, res->before + res->added, res->eligible, "optimum");
    s = RIP_OK;
done:
    if (in_txn)
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    free(sc.order_txt);
    free(sc.order);
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    rip_db_close(db);
    return s;
}
