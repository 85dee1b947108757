/*
** db_batch.h — the typed batch API a sweep stores its rows through: one
** layer row of layer_results, one layer's executions, the verdict counts
** of a batch, and which layers of a span the database already holds.  The
** SQL (the positional inserts of schema version 4, db_schema.c) lives only
** here, behind rows whose fields say what each column is; the caller owns
** the transaction boundaries through rip_db_batch_begin / _commit /
** _rollback, one transaction a batch.
*/
#ifndef RIPSIM_DB_BATCH_H
#define RIPSIM_DB_BATCH_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "db.h"

typedef struct rip_db_writer rip_db_writer;

/* One layer as layer_results stores it. */
typedef struct rip_db_layer_row {
    int64_t idx;
    int gen_id;             /* generators.ord of its category */
    const rip_layer *L;     /* derived */
    const rip_eval *ev;     /* its truths, n_in_read and formula values (RIP_DB_N_FORMULAS of them) */
} rip_db_layer_row;

/* One rip_* configuration's execution of a layer, as table executions stores it. */
typedef struct rip_db_exec_row {
    int config;             /* its rip_config (a rip_* configuration) */
    int64_t truth;          /* the gap it was executed at */
    bool bit_exact, early_overwrite;
    int caught_minus_1;     /* executed at truth - 1 and caught (0/1); -1: not tried, stored NULL */
    int64_t catch_step;     /* the step that caught it; -1: none, stored NULL */
} rip_db_exec_row;

/*
** Prepare the writer of db: the inserts of layer rows and verdict counts,
** with executions also theirs, and the span queries.  RIP_OK with *w (free
** with rip_db_writer_close), or RIP_S_INTERNAL / RIP_S_NOMEM with err.
*/
rip_status rip_db_writer_open(sqlite3 *db, bool executions, rip_db_writer **w, char err[RIP_ERR_LEN]);

/* Free w and its statements; NULL is fine. */
void rip_db_writer_close(rip_db_writer *w);

/* A batch's write transaction: BEGIN IMMEDIATE, COMMIT, ROLLBACK (when one
** is open).  Begin and commit return 0 or an SQLite code. */
int rip_db_batch_begin(rip_db_writer *w);
int rip_db_batch_commit(rip_db_writer *w);
void rip_db_batch_rollback(rip_db_writer *w);

/* Insert one layer row; 0 or an SQLite code. */
int rip_db_write_layer(rip_db_writer *w, const rip_db_layer_row *row);

/* Insert the n execution rows of layer idx, each with the logits'
** checksum (stored as 8 hex digits); 0 or an SQLite code. */
int rip_db_write_executions(rip_db_writer *w, int64_t idx, const rip_db_exec_row *rows, int n, uint32_t checksum);

/* Add counts[formula][verdict] (RIP_DB_N_FORMULAS x 4, rip_verdict order)
** to verdict_counts; zero counts are skipped.  0 or an SQLite code. */
int rip_db_add_verdict_counts(rip_db_writer *w, const int64_t counts[][4]);

/*
** Call each(ctx, idx) for every layer idx in [lo, hi] that has its row
** (executions false) or its executions (true: the writer must have been
** opened with them).  0 or an SQLite code.
*/
int rip_db_stored_between(rip_db_writer *w, bool executions, int64_t lo, int64_t hi,
                          void (*each)(void *ctx, int64_t idx), void *ctx);

/* The unsafe verdicts stored so far, from verdict_counts: [0] of the
** paper's bounds, [1] of G&M's Eq. 1 (a resumed run starts from them).
** Best effort: left as they are when the query fails. */
void rip_db_stored_unsafe(sqlite3 *db, long unsafe[2]);

#endif
