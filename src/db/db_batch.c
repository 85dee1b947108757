/*
** db_batch.c — the typed batch writes of a sweep (db_batch.h).  A layer is
** one row of layer_results (schema versions 4 and 5, db_schema.c); a batch's
** verdicts go into verdict_counts in the same transaction, so a summary
** never reads the layers.
*/
#include "db_batch.h"

#include <stdio.h>
#include <stdlib.h>

#include "status.h"

enum { ST_LAYER, ST_COUNTS, ST_EXEC, ST_HAVE_LAYER, ST_HAVE_EXEC, ST_COUNT };

static const char *const sql[ST_COUNT] = {
    /* layer_results: index, generator id, 20 geometry columns, n_in_read, the 7 truths, the 8 values */
    "INSERT INTO layer_results VALUES (?,?, ?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?, ?, ?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?)",
    "INSERT INTO verdict_counts VALUES (?1, ?2, ?3) ON CONFLICT (ord, verdict) DO UPDATE SET n = n + excluded.n",
    "INSERT INTO executions VALUES (?,?,?,?,?,?,?,?,?)",
    "SELECT layer_idx FROM layer_results WHERE layer_idx BETWEEN ?1 AND ?2",
    "SELECT DISTINCT layer_idx FROM executions WHERE run_id = 1 AND layer_idx BETWEEN ?1 AND ?2",
};

struct rip_db_writer {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];   /* the executions' two NULL without them */
};

rip_status rip_db_writer_open(sqlite3 *db, bool executions, rip_db_writer **out, char err[RIP_ERR_LEN])
{
    rip_db_writer *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    w->db = db;
    for (int i = 0; i < ST_COUNT; i++) {
        if (!executions && (i == ST_EXEC || i == ST_HAVE_EXEC))
            continue;
        if (sqlite3_prepare_v2(db, sql[i], -1, &w->st[i], NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "database: %s", sqlite3_errmsg(db));
            rip_db_writer_close(w);
            return RIP_S_INTERNAL;
        }
    }
    *out = w;
    return RIP_OK;
}

void rip_db_writer_close(rip_db_writer *w)
{
    if (!w)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(w->st[i]);
    free(w);
}

int rip_db_batch_begin(rip_db_writer *w)
{
    return sqlite3_exec(w->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
}

int rip_db_batch_commit(rip_db_writer *w)
{
    return sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
}

void rip_db_batch_rollback(rip_db_writer *w)
{
    if (!sqlite3_get_autocommit(w->db))
        sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Step one bound insert and clear it for the next row; 0 or an SQLite code. */
static int step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

int rip_db_write_layer(rip_db_writer *w, const rip_db_layer_row *row)
{
    const rip_layer *L = row->L;
    const rip_eval *ev = row->ev;
    sqlite3_stmt *s = w->st[ST_LAYER];
    const int64_t cols[] = {
        L->cin, L->cout, L->h_in, L->w_in, L->k_h, L->k_w, L->s_h, L->s_w, L->d_h, L->d_w,
        L->p_top, L->p_bottom, L->p_left, L->p_right, L->h_out, L->w_out,
        rip_layer_is_restricted(L), L->n_in_padded, L->n_in_dense, L->n_out, ev->n_in_read,
    };
    int col = 1;
    sqlite3_bind_int64(s, col++, row->idx);
    sqlite3_bind_int(s, col++, row->gen_id);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        sqlite3_bind_int64(s, col++, cols[c]);
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        sqlite3_bind_int64(s, col++, ev->truth[e]);
    for (size_t i = 0; i < ev->n_formulas && i < RIP_DB_N_FORMULAS; i++, col++)
        if (ev->defined[i])
            sqlite3_bind_int64(s, col, ev->value[i]);
    return step_reset(s);
}

int rip_db_write_executions(rip_db_writer *w, int64_t idx, const rip_db_exec_row *rows, int n, uint32_t checksum)
{
    sqlite3_stmt *s = w->st[ST_EXEC];
    char hex[16];
    snprintf(hex, sizeof hex, "%08x", (unsigned)checksum);
    for (int e = 0; e < n; e++) {
        const rip_db_exec_row *c = &rows[e];
        sqlite3_bind_int(s, 1, RIP_DB_RUN_ID);
        sqlite3_bind_int64(s, 2, idx);
        sqlite3_bind_text(s, 3, rip_config_name((rip_config)c->config), -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 4, c->truth);
        sqlite3_bind_int(s, 5, c->bit_exact);
        sqlite3_bind_int(s, 6, c->early_overwrite);
        if (c->caught_minus_1 >= 0)
            sqlite3_bind_int(s, 7, c->caught_minus_1);
        if (c->catch_step >= 0)
            sqlite3_bind_int64(s, 8, c->catch_step);
        sqlite3_bind_text(s, 9, hex, -1, SQLITE_TRANSIENT);
        int rc = step_reset(s);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int rip_db_add_verdict_counts(rip_db_writer *w, const int64_t counts[][4])
{
    sqlite3_stmt *s = w->st[ST_COUNTS];
    for (int i = 0; i < RIP_DB_N_FORMULAS; i++)
        for (int v = 0; v < 4; v++) {
            if (counts[i][v] == 0)
                continue;
            sqlite3_bind_int(s, 1, i);
            sqlite3_bind_int(s, 2, v);
            sqlite3_bind_int64(s, 3, counts[i][v]);
            int rc = step_reset(s);
            if (rc != 0)
                return rc;
        }
    return 0;
}

int rip_db_stored_between(rip_db_writer *w, bool executions, int64_t lo, int64_t hi,
                          void (*each)(void *ctx, int64_t idx), void *ctx)
{
    sqlite3_stmt *q = w->st[executions ? ST_HAVE_EXEC : ST_HAVE_LAYER];
    int rc;
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, lo);
    sqlite3_bind_int64(q, 2, hi);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW)
        each(ctx, sqlite3_column_int64(q, 0));
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? 0 : rc;
}

void rip_db_stored_unsafe(sqlite3 *db, long unsafe[2])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT f.formula = 'gm2019_eq1', sum(c.n) FROM verdict_counts c "
                               "JOIN formulas f USING (ord) WHERE c.verdict = 1 GROUP BY 1", -1, &st, NULL) ==
        SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            unsafe[sqlite3_column_int(st, 0) ? 1 : 0] = (long)sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
}
