/*
** sweep_db.c — the sweep's SQL (sweep_internal.h): what a span of the
** shard's layers has stored, the batch writes (one transaction a batch:
** layer rows, verdict counts, executions), and the unsafe counts a resumed
** run starts from.  A layer is one row of layer_results (schema version 4,
** db_schema.c); the batch's verdicts are added to verdict_counts in the
** same transaction, so a summary never reads the layers.
*/
#include <stdio.h>
#include <string.h>

#include "sweep_internal.h"

static const char *const insert_sql[SWEEP_ST_COUNT] = {
    /* layer_results: index, generator id, 20 geometry columns, n_in_read, the 7 truths, the 8 values */
    "INSERT INTO layer_results VALUES (?,?, ?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?, ?, ?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?)",
    "INSERT INTO verdict_counts VALUES (?1, ?2, ?3) ON CONFLICT (ord, verdict) DO UPDATE SET n = n + excluded.n",
    "INSERT INTO executions VALUES (?,?,?,?,?,?,?,?,?)", /* prepared only with --execute */
};

rip_status sweep_prepare(sweep_run *r, char err[RIP_ERR_LEN])
{
    for (int i = 0; i < (r->o->execute ? SWEEP_ST_COUNT : SWEEP_ST_EXEC); i++)
        if (sqlite3_prepare_v2(r->db, insert_sql[i], -1, &r->st[i], NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "database: %s", sqlite3_errmsg(r->db));
            return RIP_S_INTERNAL;
        }
    if (sqlite3_prepare_v2(r->db, "SELECT layer_idx FROM layer_results WHERE layer_idx BETWEEN ?1 AND ?2",
                           -1, &r->q, NULL) != SQLITE_OK ||
        (r->o->execute && sqlite3_prepare_v2(r->db, "SELECT DISTINCT layer_idx FROM executions WHERE run_id = 1 AND "
                                                    "layer_idx BETWEEN ?1 AND ?2", -1, &r->qx, NULL) != SQLITE_OK)) {
        snprintf(err, RIP_ERR_LEN, "database: %s", sqlite3_errmsg(r->db));
        return RIP_S_INTERNAL;
    }
    return RIP_OK;
}

void sweep_finalize(sweep_run *r)
{
    for (int i = 0; i < SWEEP_ST_COUNT; i++)
        sqlite3_finalize(r->st[i]);
    sqlite3_finalize(r->q);
    sqlite3_finalize(r->qx);
}

/* Step one bound insert and clear it for the next row; 0 or an SQLite code. */
static int step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

/* The four execution rows of it; 0 or an SQLite code. */
static int write_executions(sqlite3_stmt *s, const sweep_item *it)
{
    char hex[16];
    snprintf(hex, sizeof hex, "%08x", (unsigned)it->checksum);
    for (int e = 0; e < RIP_EXEC_RIP_COUNT; e++) {
        const rip_xcheck *c = &it->xc[e];
        sqlite3_bind_int(s, 1, RIP_DB_RUN_ID);
        sqlite3_bind_int64(s, 2, it->idx);
        sqlite3_bind_text(s, 3, rip_exec_name((rip_exec)e), -1, SQLITE_STATIC);
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

static void row_written(const rip_sweep_opts *o)
{
    if (o->hooks.row_written)
        o->hooks.row_written(o->hooks.ctx);
}

/* Write what the database lacks of it: its layer row (with_layer), counted
** into counts[formula][verdict] and unsafe[] (as in sweep_run.unsafe); its
** executions (with_exec).  Returns 0 or an SQLite code. */
static int write_item(const sweep_run *r, const sweep_item *it, bool with_layer, bool with_exec, long unsafe[2],
                      int64_t counts[][4])
{
    const rip_layer *L = &it->L;
    const rip_eval *ev = &it->ev;
    sqlite3_stmt *s = r->st[SWEEP_ST_LAYER];
    int rc;
    if (!with_layer) {
        if ((rc = write_executions(r->st[SWEEP_ST_EXEC], it)) == 0)
            row_written(r->o);
        return rc;
    }
    const int64_t cols[] = {
        L->cin, L->cout, L->h_in, L->w_in, L->k_h, L->k_w, L->s_h, L->s_w, L->d_h, L->d_w,
        L->p_top, L->p_bottom, L->p_left, L->p_right, L->h_out, L->w_out,
        rip_layer_is_restricted(L), L->n_in_padded, L->n_in_dense, L->n_out, ev->n_in_read,
    };
    int col = 1;
    sqlite3_bind_int64(s, col++, it->idx);
    sqlite3_bind_int(s, col++, it->gen_id);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        sqlite3_bind_int64(s, col++, cols[c]);
    for (int e = 0; e < RIP_EXEC_COUNT; e++)
        sqlite3_bind_int64(s, col++, ev->truth[e]);
    for (size_t i = 0; i < ev->n_formulas && i < RIP_DB_N_FORMULAS; i++, col++) {
        if (ev->defined[i])
            sqlite3_bind_int64(s, col, ev->value[i]);
        counts[i][ev->verdict[i]]++;
        if (ev->verdict[i] == RIP_UNSAFE)
            unsafe[strcmp(ev->info[i].name, "gm2019_eq1") == 0]++;
    }
    if ((rc = step_reset(s)) != 0)
        return rc;
    row_written(r->o);
    return with_exec ? write_executions(r->st[SWEEP_ST_EXEC], it) : 0;
}

/* Add a batch's verdict counts to verdict_counts; 0 or an SQLite code. */
static int write_counts(sqlite3_stmt *s, int64_t counts[][4])
{
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

int64_t sweep_layer_of(const rip_sweep_opts *o, int64_t pos)
{
    return o->shard_index + pos * o->shard_count;
}

/* Set bit `flag` in have[] for every layer of the span that query q
** (layer_idx ... BETWEEN ?1 AND ?2) returns.  0 or an SQLite code. */
static int mark_span(sqlite3_stmt *q, const rip_sweep_opts *o, sweep_span sp, unsigned char *have,
                     unsigned char flag)
{
    int rc;
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, sweep_layer_of(o, sp.lo));
    sqlite3_bind_int64(q, 2, sweep_layer_of(o, sp.lo + sp.count - 1));
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t off = sqlite3_column_int64(q, 0) - o->shard_index;
        if (off % o->shard_count != 0)
            continue; /* not this shard's (the open checks refuse such rows) */
        int64_t k = off / o->shard_count - sp.lo;
        if (k >= 0 && k < sp.count)
            have[k] |= flag;
    }
    sqlite3_reset(q);
    return rc == SQLITE_DONE ? 0 : rc;
}

bool sweep_complete(const rip_sweep_opts *o, unsigned char have)
{
    return (have & SWEEP_HAVE_LAYER) && (!o->execute || (have & SWEEP_HAVE_EXEC));
}

int sweep_stored_in_span(const sweep_run *r, sweep_span sp, unsigned char *have, int64_t *n_have)
{
    memset(have, 0, (size_t)sp.count);
    *n_have = 0;
    int rc = mark_span(r->q, r->o, sp, have, SWEEP_HAVE_LAYER);
    if (rc == 0 && r->qx)
        rc = mark_span(r->qx, r->o, sp, have, SWEEP_HAVE_EXEC);
    for (int64_t k = 0; rc == 0 && k < sp.count; k++)
        *n_have += sweep_complete(r->o, have[k]);
    return rc;
}

rip_status sweep_write_batch(sweep_run *r, const sweep_batch *b, int64_t *written, int64_t *executed,
                             char err[RIP_ERR_LEN])
{
    const rip_sweep_opts *o = r->o;
    sqlite3 *db = r->db;
    const sweep_span sp = b->sp;
    unsigned char *have = b->have;
    long u[2] = {0, 0};
    int64_t n_have = 0, k = 0, w = 0, x = 0, counts[RIP_DB_N_FORMULAS][4] = {{0}};
    *written = *executed = 0;
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sweep_stored_in_span(r, sp, have, &n_have);
    for (k = 0; rc == SQLITE_OK && k < b->count; k++) {
        const sweep_item *it = &b->items[k];
        unsigned char h = have[(it->idx - o->shard_index) / o->shard_count - sp.lo];
        bool with_layer = it->need_layer && !(h & SWEEP_HAVE_LAYER);
        bool with_exec = it->need_exec && !(h & SWEEP_HAVE_EXEC);
        if (!with_layer && !with_exec)
            continue;
        rc = write_item(r, it, with_layer, with_exec, u, counts);
        w += rc == SQLITE_OK && with_layer;
        x += rc == SQLITE_OK && with_exec;
    }
    if (rc == SQLITE_OK)
        rc = write_counts(r->st[SWEEP_ST_COUNTS], counts);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
        r->unsafe[0] += u[0];
        r->unsafe[1] += u[1];
        *written = w;
        *executed = x;
        return RIP_OK;
    }
    rip_status s = rip_db_status(rc);
    if (s == RIP_S_BUSY)
        snprintf(err, RIP_ERR_LEN, "%.200s: locked by another process (waited %d s)", o->db_path,
                 RIP_DB_BUSY_MS / 1000);
    else
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot write layer %lld (%.200s)", o->db_path,
                 (long long)(k > 0 ? b->items[k - 1].idx : sweep_layer_of(o, sp.lo)), sqlite3_errmsg(db));
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    *written = 0;
    return s == RIP_S_BUSY || s == RIP_S_NOMEM ? s : RIP_S_IO;
}

void sweep_count_unsafe(sweep_run *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r->db, "SELECT f.formula = 'gm2019_eq1', sum(c.n) FROM verdict_counts c "
                                  "JOIN formulas f USING (ord) WHERE c.verdict = 1 GROUP BY 1", -1, &st, NULL) ==
        SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            r->unsafe[sqlite3_column_int(st, 0) ? 1 : 0] = (long)sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
}
