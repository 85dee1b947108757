/*
** sweep.c — the sweep driver, rip_sweep_run (see sweep.h), in named stages.
**
** Shape of a run: open the database for it (sweep_open.c).  Then walk this
** shard's layers in batches of RIP_SWEEP_BATCH positions: ask the database
** which layers of the batch it holds (sweep_db.c), and publish the others
** to `jobs` worker threads (sweep_pool.c).  Up to SWEEP_RING batches are in
** flight.  The main thread only prepares batches and writes each, in
** order, in one transaction once all its items are evaluated; SQLite and
** its fsyncs never hold up a worker.  Nothing is kept per layer of the
** whole sweep, so memory does not grow with --n, and a resumed run finds
** its place by asking, batch by batch.  Rows are keyed by layer index, so
** the order in which threads finish does not matter, and a batch is either
** wholly in the database or not at all.
**
** With --execute a layer is also executed (src/exec/execute.h) and its four
** execution rows are written in the same transaction as its other rows.  A
** stored layer without executions (a database swept without --execute) is
** drawn and evaluated again -- the same (seed, idx) gives the same layer and
** truths -- and only its executions are written.
**
** A finished run (the open checks count its layers) skips the walk over its
** batches: a no-op rerun costs the checks alone.  The run stops when
** *o->stop is set (the command line sets it on SIGINT/SIGTERM): the library
** itself installs no handler and prints nothing.
*/
#include "sweep.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "generator.h"
#include "source_commit.h"
#include "status.h"
#include "sweep_internal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* s, or the default set in *buf when s is NULL. */
static const rip_generator_set *set_or_default(const rip_generator_set *s, rip_generator_set *buf)
{
    if (s)
        return s;
    rip_generator_set_default(buf);
    return buf;
}

void rip_sweep_generator_set(const rip_generator_set *s, char *buf, size_t len)
{
    rip_generator_set d;
    rip_generator_set_text(set_or_default(s, &d), buf, len);
}

size_t rip_sweep_generator_rows(const rip_generator_set *s, rip_db_generator *rows, size_t cap)
{
    rip_generator_set d;
    s = set_or_default(s, &d);
    for (size_t i = 0; i < s->n && i < cap; i++)
        rows[i] = (rip_db_generator){.name = s->gen[i]->name, .title = s->gen[i]->title,
                                     .ranges = s->gen[i]->ranges, .tier = s->gen[i]->tier,
                                     .weight = s->weight[i]};
    return s->n;
}

/* Report progress (o->progress): layers done of total, with the unsafe verdicts so far. */
static void progress(const rip_sweep_opts *o, int64_t done, int64_t total, const long unsafe[2])
{
    if (o->progress.fn == NULL)
        return;
    char what[96];
    snprintf(what, sizeof what, "unsafe: %ld paper bounds, %ld G&M Eq. 1", unsafe[0], unsafe[1]);
    rip_progress_report(&o->progress, done, total, what);
}

/* Layers of the shard needing nothing more (with --execute: executed, so stored too). */
static int64_t layers_done(const rip_sweep_opts *o, const rip_sweep_result *res)
{
    return o->execute ? res->executed_before + res->executed : res->already_done + res->computed;
}

static bool stop_asked(const sweep_run *r)
{
    return atomic_load(r->stop) != 0;
}

/*
** Stage 1: open (or create) the database for this run and log its start.
** Fills res->in_shard, already_done and executed_before.
*/
static rip_status run_open(sweep_run *r, char err[RIP_ERR_LEN])
{
    const rip_sweep_opts *o = r->o;
    rip_sweep_result *res = r->res;
    rip_db_found found;
    char why[RIP_ERR_LEN];
    rip_run_info want = {0};
    want.seed = (int64_t)o->seed;
    want.n_layers = o->n_layers;
    want.shard_index = o->shard_index;
    want.shard_count = o->shard_count;
    rip_sweep_generator_set(o->generators, want.generator_set, sizeof want.generator_set);
    rip_db_generator gen_rows[RIP_SWEEP_MAX_GENERATORS];
    want.generators = gen_rows;
    want.n_generators = rip_sweep_generator_rows(o->generators, gen_rows, RIP_SWEEP_MAX_GENERATORS);
    snprintf(want.version, sizeof want.version, "%s", RIPSIM_VERSION);
    snprintf(want.commit, sizeof want.commit, "%s", rip_source_commit);
    rip_generator_set_fingerprint(r->set, want.fingerprint);
    if (want.n_generators > RIP_SWEEP_MAX_GENERATORS) {
        snprintf(err, RIP_ERR_LEN, "internal: %zu generator categories, above RIP_SWEEP_MAX_GENERATORS",
                 want.n_generators);
        return RIP_S_INTERNAL;
    }

    rip_status status = sweep_open(o, &want, &r->db, &found, err);
    if (status != RIP_OK) {
        if (status == RIP_S_BUSY)
            sweep_note_stop(NULL, "busy", res, o->db_path, err);
        return status;
    }
    res->in_shard = o->n_layers > o->shard_index ? (o->n_layers - o->shard_index - 1) / o->shard_count + 1 : 0;
    res->already_done = found.empty ? 0 : found.layers;
    res->executed_before = found.empty ? 0 : found.executed;
    snprintf(why, sizeof why, "seed %llu n %lld shard %lld/%lld jobs %d%s: %lld to do, %lld already done%s; "
             "ripsim %s, commit %s, generators %s",
             (unsigned long long)o->seed, (long long)o->n_layers, (long long)o->shard_index,
             (long long)o->shard_count, o->jobs, o->execute ? " execute" : "",
             (long long)(res->in_shard - res->already_done), (long long)res->already_done,
             o->execute && res->executed_before < res->already_done ? " (some lack their executions)" : "",
             want.version, want.commit, want.fingerprint);
    rip_db_log(r->db, res->already_done ? "resume" : "start", why);
    return RIP_OK;
}

/* Stage 2: prepare the statements, allocate the batches, count what a resumed run found unsafe. */
static rip_status run_setup(sweep_run *r, char err[RIP_ERR_LEN])
{
    rip_status status = sweep_prepare(r, err);
    if (status != RIP_OK)
        return status;
    bool no_memory = false;
    for (int i = 0; i < SWEEP_RING; i++) {
        sweep_batch *b = &r->bufs[i];
        b->seed = r->o->seed;
        b->set = r->set;
        b->how = r->o->full_bisection ? RIP_SEARCH_BISECT : RIP_SEARCH_BRACKET;
        b->items = calloc(RIP_SWEEP_BATCH, sizeof *b->items);
        b->order = calloc(RIP_SWEEP_BATCH, sizeof *b->order);
        b->have = calloc(RIP_SWEEP_BATCH, 1);
        no_memory |= !b->items || !b->order || !b->have;
    }
    if (no_memory) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    sweep_count_unsafe(r);
    return RIP_OK;
}

/*
** Stage 3a: fill b with the next span of the shard from *next_lo (advanced
** past it): one item per layer the database does not hold completely,
** drawn and ordered.  *any says whether there is any.  Returns RIP_OK, or
** RIP_S_BUSY / RIP_S_IO when the stored layers cannot be read (err set).
*/
static rip_status fill_batch(sweep_run *r, sweep_batch *b, int64_t *next_lo, bool *any, char err[RIP_ERR_LEN])
{
    const rip_sweep_opts *o = r->o;
    int64_t n_have = 0, left = r->res->in_shard - *next_lo;
    b->sp.lo = *next_lo;
    b->sp.count = left < r->batch_size ? left : r->batch_size;
    *next_lo += b->sp.count;
    int rc = sweep_stored_in_span(r, b->sp, b->have, &n_have);
    if (rc != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s: cannot read stored layers (%.200s)", o->db_path,
                 sqlite3_errmsg(r->db));
        return rip_db_status(rc) == RIP_S_BUSY ? RIP_S_BUSY : RIP_S_IO;
    }
    *any = n_have < b->sp.count;
    if (!*any)
        return RIP_OK;
    b->count = b->next = b->finished = 0;
    for (int64_t k = 0; k < b->sp.count; k++)
        if (!sweep_complete(o, b->have[k])) {
            sweep_item *it = &b->items[b->count++];
            memset(it, 0, sizeof *it);
            it->idx = sweep_layer_of(o, b->sp.lo + k);
            it->need_layer = !(b->have[k] & SWEEP_HAVE_LAYER);
            it->need_exec = o->execute && !(b->have[k] & SWEEP_HAVE_EXEC);
        }
    sweep_order_by_cost(b);
    return RIP_OK;
}

/*
** Stage 3b: write the evaluated oldest batch b and account for it in res:
** counts, res->seconds_write the time it took, the progress line, the
** batch_committed hook.  Returns RIP_OK or sweep_write_batch's status (err
** set; a busy database gets the resume hint).
*/
static rip_status write_oldest(sweep_run *r, const sweep_batch *b, char err[RIP_ERR_LEN])
{
    const rip_sweep_opts *o = r->o;
    rip_sweep_result *res = r->res;
    int64_t written = 0, executed = 0;
    double t1 = now();
    rip_status status = sweep_write_batch(r, b, &written, &executed, err);
    if (status != RIP_OK) {
        if (status == RIP_S_BUSY)
            sweep_note_stop(r->db, "busy", res, o->db_path, err);
        return status;
    }
    res->seconds_write += now() - t1;
    res->computed += written;
    res->executed += executed;
    progress(o, layers_done(o, res), res->in_shard, r->unsafe);
    if (o->hooks.batch_committed)
        o->hooks.batch_committed(o->hooks.ctx);
    return RIP_OK;
}

/*
** Stage 3: keep SWEEP_RING batches published; write the oldest once it is
** evaluated, until every span is stored or a stop is asked for (the
** batches in flight are then dropped, what was committed stays).  A
** finished run (the checked counts say so) needs no pass over its batches.
*/
static rip_status run_walk(sweep_run *r, char err[RIP_ERR_LEN])
{
    const rip_sweep_opts *o = r->o;
    rip_sweep_result *res = r->res;
    bool finished = res->already_done == res->in_shard && (!o->execute || res->executed_before == res->in_shard);
    if (finished)
        return RIP_OK;
    sweep_pool *pool = &r->pool;
    sweep_pool_start(pool, o->jobs, r->stop);
    r->pool_up = true;
    int64_t next_lo = 0, published = 0;
    for (;;) {
        while (pool->n < SWEEP_RING && next_lo < res->in_shard && !stop_asked(r)) {
            sweep_batch *b = &r->bufs[published % SWEEP_RING]; /* not in flight: the queue is in publishing order */
            bool any = false;
            rip_status status = fill_batch(r, b, &next_lo, &any, err);
            if (status != RIP_OK)
                return status;
            if (!any)
                continue;
            sweep_pool_publish(pool, b);
            published++;
        }
        if (pool->n == 0)
            return RIP_OK; /* every span is stored */
        double t0 = now();
        int rc = sweep_pool_wait_oldest(pool, err);
        res->seconds_eval += now() - t0;
        if (rc > 0)
            return RIP_OK; /* stopped: the batches in flight are dropped, what was committed stays */
        if (rc < 0)
            return RIP_S_INTERNAL;
        rip_status status = write_oldest(r, pool->q[0], err);
        if (status != RIP_OK)
            return status;
        sweep_pool_pop(pool);
    }
}

/* Stage 4: the last progress report, and the end of the run in the log: finished or interrupted. */
static rip_status run_finish(sweep_run *r, char err[RIP_ERR_LEN])
{
    const rip_sweep_opts *o = r->o;
    rip_sweep_result *res = r->res;
    progress(o, layers_done(o, res), res->in_shard, r->unsafe);
    if (stop_asked(r) && layers_done(o, res) < res->in_shard) {
        res->interrupted = true;
        snprintf(err, RIP_ERR_LEN, "interrupted");
        sweep_note_stop(r->db, "interrupted", res, o->db_path, err);
        return RIP_S_INTERRUPTED;
    }
    char why[RIP_ERR_LEN];
    snprintf(why, sizeof why, "%lld layers", (long long)res->in_shard);
    rip_db_log(r->db, "finish", why);
    return RIP_OK;
}

/* Stage 5: release what the run holds (each stage may have stopped half-way). */
static void run_release(sweep_run *r)
{
    if (r->pool_up)
        sweep_pool_close(&r->pool);
    r->pool_up = false;
    sweep_finalize(r);
    for (int i = 0; i < SWEEP_RING; i++) {
        free(r->bufs[i].items);
        free(r->bufs[i].order);
        free(r->bufs[i].have);
    }
    rip_db_close(r->db);
    r->db = NULL;
}

rip_status rip_sweep_run(const rip_sweep_opts *o, rip_sweep_result *res, char err[RIP_ERR_LEN])
{
    static atomic_int never; /* the stop flag of a run without o->stop: never set */
    sweep_run r;
    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    r.o = o;
    r.res = res;
    r.stop = o->stop ? o->stop : &never;
    r.batch_size = o->batch >= 1 && o->batch <= RIP_SWEEP_BATCH ? o->batch : RIP_SWEEP_BATCH;
    rip_generator_set_default(&r.default_set);
    r.set = o->generators ? o->generators : &r.default_set;

    rip_status status = run_open(&r, err);
    if (status == RIP_OK)
        status = run_setup(&r, err);
    if (status == RIP_OK)
        status = run_walk(&r, err);
    if (status == RIP_OK) {
        if (r.pool_up)
            sweep_pool_close(&r.pool);
        r.pool_up = false;
        status = run_finish(&r, err);
    }
    run_release(&r);
    if (status != 0)
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return status;
}
