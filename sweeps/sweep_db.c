/*
** sweep_db.c — what the sweep stores, through db/'s typed batch API
** (db_batch.h; the SQL is there): what a span of the shard's layers has
** stored, the batch writes (one transaction a batch: layer rows, verdict
** counts, executions), and the unsafe counts a resumed run starts from.
*/
#include <stdio.h>
#include <string.h>

#include "sweep_internal.h"

rip_status sweep_prepare(sweep_run *r, char err[RIP_ERR_LEN])
{
    return rip_db_writer_open(r->db, r->o->execute, &r->w, err);
}

void sweep_finalize(sweep_run *r)
{
    rip_db_writer_close(r->w);
    r->w = NULL;
}

/* The four execution rows of it; 0 or an SQLite code. */
static int write_executions(rip_db_writer *w, const sweep_item *it)
{
    rip_db_exec_row rows[RIP_KERNEL_CONFIG_COUNT];
    for (int e = 0; e < RIP_KERNEL_CONFIG_COUNT; e++) {
        const rip_xcheck *c = &it->xc[e];
        rows[e] = (rip_db_exec_row){.config = e, .truth = c->truth, .bit_exact = c->bit_exact,
                                    .early_overwrite = c->early_overwrite, .caught_minus_1 = c->caught_minus_1,
                                    .catch_step = c->catch_step};
    }
    return rip_db_write_executions(w, it->idx, rows, RIP_KERNEL_CONFIG_COUNT, it->checksum);
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
    const rip_eval *ev = &it->ev;
    int rc;
    if (!with_layer) {
        if ((rc = write_executions(r->w, it)) == 0)
            row_written(r->o);
        return rc;
    }
    for (size_t i = 0; i < ev->n_formulas && i < RIP_DB_N_FORMULAS; i++) {
        counts[i][ev->verdict[i]]++;
        if (ev->verdict[i] == RIP_UNSAFE)
            unsafe[strcmp(ev->info[i].name, "gm2019_eq1") == 0]++;
    }
    if ((rc = rip_db_write_layer(r->w, &(rip_db_layer_row){.idx = it->idx, .gen_id = it->gen_id, .L = &it->L,
                                                           .ev = ev})) != 0)
        return rc;
    row_written(r->o);
    return with_exec ? write_executions(r->w, it) : 0;
}

int64_t sweep_layer_of(const rip_sweep_opts *o, int64_t pos)
{
    return o->shard_index + pos * o->shard_count;
}

/* A span being marked: which bit, for which positions of the shard. */
typedef struct span_marks {
    const rip_sweep_opts *o;
    sweep_span sp;
    unsigned char *have, flag;
} span_marks;

/* rip_db_stored_between's callback: mark layer idx when it is this span's. */
static void mark_one(void *ctx, int64_t idx)
{
    span_marks *m = ctx;
    int64_t off = idx - m->o->shard_index;
    if (off % m->o->shard_count != 0)
        return; /* not this shard's (the open checks refuse such rows) */
    int64_t k = off / m->o->shard_count - m->sp.lo;
    if (k >= 0 && k < m->sp.count)
        m->have[k] |= m->flag;
}

/* Set bit `flag` in have[] for every layer of the span that has its row
** (executions false) or its executions.  0 or an SQLite code. */
static int mark_span(rip_db_writer *w, bool executions, const rip_sweep_opts *o, sweep_span sp, unsigned char *have,
                     unsigned char flag)
{
    span_marks m = {.o = o, .sp = sp, .have = have, .flag = flag};
    return rip_db_stored_between(w, executions, sweep_layer_of(o, sp.lo), sweep_layer_of(o, sp.lo + sp.count - 1),
                                 mark_one, &m);
}

bool sweep_complete(const rip_sweep_opts *o, unsigned char have)
{
    return (have & SWEEP_HAVE_LAYER) && (!o->execute || (have & SWEEP_HAVE_EXEC));
}

int sweep_stored_in_span(const sweep_run *r, sweep_span sp, unsigned char *have, int64_t *n_have)
{
    memset(have, 0, (size_t)sp.count);
    *n_have = 0;
    int rc = mark_span(r->w, false, r->o, sp, have, SWEEP_HAVE_LAYER);
    if (rc == 0 && r->o->execute)
        rc = mark_span(r->w, true, r->o, sp, have, SWEEP_HAVE_EXEC);
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
    int rc = rip_db_batch_begin(r->w);
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
        rc = rip_db_add_verdict_counts(r->w, (const int64_t(*)[4])counts);
    if (rc == SQLITE_OK)
        rc = rip_db_batch_commit(r->w);
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
    rip_db_batch_rollback(r->w);
    *written = 0;
    return s == RIP_S_BUSY || s == RIP_S_NOMEM ? s : RIP_S_IO;
}

void sweep_count_unsafe(sweep_run *r)
{
    rip_db_stored_unsafe(r->db, r->unsafe);
}
