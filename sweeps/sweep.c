/*
** sweep.c — the sweep driver (see sweep.h).
**
** Shape of a run: check the database read-only (never touching a foreign
** or damaged one; db.h), or create it with its run row in one transaction
** (when another process created it first, what it created is checked
** instead: the same run resumes, another is refused).
** Then walk this shard's layers in batches of RIP_SWEEP_BATCH positions:
** ask the database which layers of the batch it holds, and publish the
** others to `jobs` worker threads, which take items one at a time from
** the oldest published batch with items left.  Up to RING batches are in
** flight, so a worker that finishes its last item of batch k goes straight
** on with batch k+1 (no barrier between batches).  The main thread only
** prepares batches and writes each, in order, in one transaction once all
** its items are evaluated; SQLite and its fsyncs never hold up a worker.
** Nothing is kept per layer of the whole sweep, so memory does not grow
** with --n, and a resumed run finds its place by asking, batch by batch.  Rows are keyed by
** layer index, so the order in which threads finish does not matter, and a
** batch is either wholly in the database or not at all.
**
** With --execute a layer is also executed (src/exec/execute.h) and its four
** execution rows are written in the same transaction as its other rows.  A
** stored layer without executions (a database swept without --execute) is
** drawn and evaluated again -- the same (seed, idx) gives the same layer and
** truths -- and only its executions are written.
**
** A layer is one row of layer_results (schema version 4, db_schema.c); the
** batch's verdicts are added to verdict_counts in the same transaction, so
** a summary never reads the layers.  A finished run (the open checks count
** its layers) skips the walk over its batches: a no-op rerun costs the
** checks alone.
*/
#include "sweep.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "status.h"
#include "evaluate.h"
#include "execute.h"
#include "formulas.h"
#include "generator.h"

/* Set by SIGINT/SIGTERM, read by every worker: a lock-free atomic, which
** a signal handler may write and other threads may read. */
static atomic_int stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_requested, 1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void rip_sweep_generator_set(char *buf, size_t len)
{
    size_t n = 0, used = 0;
    const rip_generator *const *g = rip_generators(&n);
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s:%d", i ? "," : "", g[i]->name,
                                 g[i]->weight);
}

/* One evaluated layer, filled by a worker, written by the main thread. */
typedef struct item {
    int64_t idx;
    const rip_generator *gen;
    int gen_id;          /* gen's place in the registry: generators.ord */
    rip_layer L;
    rip_eval ev;
    bool need_layer;     /* write its layer, truths and verdicts */
    bool need_exec;      /* execute it and write its executions */
    rip_xcheck xc[RIP_EXEC_RIP_COUNT];
    uint32_t checksum;
    double cost;         /* for the order of work (order_by_cost) */
    int failed;
    char err[RIP_ERR_LEN];
} item;

/* Where a batch lies: positions [lo, lo + count) of the shard. */
typedef struct span {
    int64_t lo, count;
} span;

typedef struct batch {
    item *items;
    int64_t *order;      /* the items by decreasing cost: largest first, so no thread idles at the end */
    int64_t count;
    int64_t next;        /* items handed out (pool.mu) */
    int64_t finished;    /* items evaluated (pool.mu) */
    span sp;
    unsigned char *have; /* write_batch's scratch */
    uint64_t seed;
    rip_search how;      /* how the simulator finds each truth */
} batch;

static void evaluate_one(item *it, uint64_t seed, rip_search how)
{
    /* it->gen and it->L were drawn by order_by_cost */
    it->failed = rip_evaluate_search(&it->L, RIP_ENGINE_FAST, how, true, &it->ev, NULL, it->err);
    if (!it->failed && it->need_exec) {
        rip_pcg32 g;
        rip_exec_stream(&g, seed, (uint64_t)it->idx);
        it->failed = rip_exec_check_layer(&it->L, it->ev.truth, &g, it->xc, &it->checksum, it->err) != RIP_OK;
    }
}

/* Batches in flight: the oldest is waited for and written by the main
** thread while the workers evaluate the others. */
enum { RING = 3 };

/* The worker threads and the batches published to them. */
typedef struct pool {
    pthread_mutex_t mu;
    pthread_cond_t work;    /* to workers: a batch was published, or quit */
    pthread_cond_t done;    /* to the main thread: a batch is evaluated */
    batch *q[RING];         /* published batches in span order, q[0] the oldest */
    int n;
    bool quit;
    pthread_t tid[64];
    int started;
} pool;

/*
** A worker: evaluate items of the oldest published batch that has any
** left, until quit or a stop is asked for (the item in hand is finished;
** its batch is then dropped, so Ctrl-C does not wait for a whole batch).
*/
static void *worker(void *arg)
{
    pool *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->quit && !atomic_load(&stop_requested)) {
        batch *b = NULL;
        for (int i = 0; i < p->n && b == NULL; i++)
            if (p->q[i]->next < p->q[i]->count)
                b = p->q[i];
        if (b == NULL) {
            pthread_cond_wait(&p->work, &p->mu);
            continue;
        }
        item *it = &b->items[b->order[b->next++]];
        pthread_mutex_unlock(&p->mu);
        evaluate_one(it, b->seed, b->how);
        pthread_mutex_lock(&p->mu);
        if (++b->finished == b->count)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/*
** Start the workers: jobs of them, or none for jobs = 1 (the main thread
** then evaluates and writes in turn: one thread in all).  Never fails:
** fewer threads is slower, not wrong, and with none the main thread
** evaluates (wait_oldest).
*/
static void pool_start(pool *p, int jobs)
{
    for (int t = 0; jobs > 1 && t < jobs && t < 64; t++) {
        if (pthread_create(&p->tid[p->started], NULL, worker, p) != 0)
            break;
        p->started++;
    }
}

/* Publish b (items drawn and ordered) to the workers. */
static void pool_publish(pool *p, batch *b)
{
    pthread_mutex_lock(&p->mu);
    p->q[p->n++] = b;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
}

/*
** Wait until the oldest published batch is evaluated.  Returns 0; 1 when a
** stop was asked for (nothing more is to be written: the batches in flight
** are dropped); -1 with the first failed layer's message in err.  Polls
** the stop flag every 50 ms, since a signal handler cannot wake a
** condition variable.  Without workers the main thread evaluates.
*/
static int wait_oldest(pool *p, char err[RIP_ERR_LEN])
{
    batch *b = p->q[0];
    if (p->started == 0)
        while (b->next < b->count && !atomic_load(&stop_requested)) {
            evaluate_one(&b->items[b->order[b->next]], b->seed, b->how);
            b->next++;
            b->finished++;
        }
    pthread_mutex_lock(&p->mu);
    while (b->finished < b->count && !atomic_load(&stop_requested)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->done, &p->mu, &ts);
    }
    pthread_mutex_unlock(&p->mu);
    if (atomic_load(&stop_requested))
        return 1;
    for (int64_t k = 0; k < b->count; k++)
        if (b->items[k].failed) {
            snprintf(err, RIP_ERR_LEN, "layer %lld: %.200s", (long long)b->items[k].idx, b->items[k].err);
            return -1;
        }
    return 0;
}

/* Drop the oldest published batch (written). */
static void pool_pop(pool *p)
{
    pthread_mutex_lock(&p->mu);
    for (int i = 1; i < p->n; i++)
        p->q[i - 1] = p->q[i];
    p->n--;
    pthread_mutex_unlock(&p->mu);
}

/* Tell the workers to quit, join them (each finishes its item in hand)
** and free the pool's locks. */
static void pool_close(pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int t = 0; t < p->started; t++)
        pthread_join(p->tid[t], NULL);
    p->started = 0;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
}

/* Multiply-accumulates of executing L once (its cost with --execute); a
** double, since the product of all six is not bounded by rip_layer_derive. */
static double macs(const rip_layer *L)
{
    return (double)L->h_out * (double)L->w_out * (double)L->cout * (double)L->k_h * (double)L->k_w * (double)L->cin;
}

/* The place of g in the registry (generators.ord of the database); -1 if
** absent, which the NOT IN check of the database refuses. */
static int generator_id(const rip_generator *g)
{
    size_t n = 0;
    const rip_generator *const *all = rip_generators(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i] == g)
            return (int)i;
    return -1;
}

/*
** Draw every item's layer (cheap) and order the items by decreasing cost
** (longest first), so that a batch's largest execution does not start last
** while the other threads idle.  Rows are keyed by layer index, so the order
** changes nothing stored.  Insertion sort: a batch is at most 250 items.
*/
static void order_by_cost(batch *b)
{
    for (int64_t k = 0; k < b->count; k++) {
        item *it = &b->items[k];
        it->gen = rip_sweep_draw(b->seed, it->idx, &it->L);
        it->gen_id = generator_id(it->gen);
        it->cost = it->need_exec ? macs(&it->L) : (double)(it->L.h_out * it->L.w_out);
        int64_t j = k;
        for (; j > 0 && b->items[b->order[j - 1]].cost < it->cost; j--)
            b->order[j] = b->order[j - 1];
        b->order[j] = k;
    }
}

enum { ST_LAYER, ST_COUNTS, ST_EXEC, ST_COUNT };
static const char *const insert_sql[ST_COUNT] = {
    /* layer_results: index, generator id, 20 geometry columns, n_in_read, the 7 truths, the 8 values */
    "INSERT INTO layer_results VALUES (?,?, ?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?,?,?, ?, ?,?,?,?,?,?,?, ?,?,?,?,?,?,?,?)",
    "INSERT INTO verdict_counts VALUES (?1, ?2, ?3) ON CONFLICT (ord, verdict) DO UPDATE SET n = n + excluded.n",
    "INSERT INTO executions VALUES (?,?,?,?,?,?,?,?,?)", /* prepared only with --execute */
};

/* What the database holds of one layer (stored_in_span). */
enum { HAVE_LAYER = 1, HAVE_EXEC = 2 };

#ifdef RIPSIM_TEST_HOOKS
/*
** Test hooks, compiled only into the test-only executable ripsim-testhooks
** (tests/meson.build), never into the released ripsim:
**   RIPSIM_TEST_KILL_AFTER_ROWS=K       raise SIGKILL after inserting K layer
**                                       rows in this process, mid-transaction;
**   RIPSIM_TEST_SIGINT_AFTER_BATCHES=K  raise SIGINT after K commits;
**   RIPSIM_TEST_BATCH=K                 batches of K (1..RIP_SWEEP_BATCH)
**                                       layers, so that a sweep small enough
**                                       to execute spans several batches.
*/
static long kill_after_rows = -1, rows_this_process, sigint_after_batches = -1, batches_this_process;
static int64_t batch_size = RIP_SWEEP_BATCH;

static void hooks_init(void)
{
    const char *b = getenv("RIPSIM_TEST_BATCH");
    batch_size = b && atol(b) >= 1 && atol(b) <= RIP_SWEEP_BATCH ? atol(b) : RIP_SWEEP_BATCH;
    const char *v = getenv("RIPSIM_TEST_KILL_AFTER_ROWS");
    kill_after_rows = v ? atol(v) : -1;
    v = getenv("RIPSIM_TEST_SIGINT_AFTER_BATCHES");
    sigint_after_batches = v ? atol(v) : -1;
    rows_this_process = batches_this_process = 0;
}

static void hook_row_written(void)
{
    if (kill_after_rows >= 0 && ++rows_this_process >= kill_after_rows)
        raise(SIGKILL); /* die mid-transaction */
}

static void hook_batch_committed(void)
{
    if (sigint_after_batches >= 0 && ++batches_this_process >= sigint_after_batches)
        raise(SIGINT);
}
#else
static const int64_t batch_size = RIP_SWEEP_BATCH;
static void hooks_init(void) {}
static void hook_row_written(void) {}
static void hook_batch_committed(void) {}
#endif

/* Step one bound insert and clear it for the next row; 0 or an SQLite code. */
static int step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

/* Unsafe verdicts so far: [0] the paper's own bounds, [1] G&M's Eq. 1 as
** published (whose shortfall is the paper's Limitation 1, so expected).
** Returns 0 or an SQLite code. */
static int write_executions(sqlite3_stmt *s, const item *it)
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

/* Write what the database lacks of it: its layer row (with_layer), counted
** into counts[formula][verdict]; its executions (with_exec).  Returns 0 or
** an SQLite code. */
static int write_item(sqlite3_stmt *st[ST_COUNT], const item *it, bool with_layer, bool with_exec, long unsafe[2],
                      int64_t counts[][4])
{
    const rip_layer *L = &it->L;
    const rip_eval *ev = &it->ev;
    sqlite3_stmt *s = st[ST_LAYER];
    int rc;
    if (!with_layer) {
        if ((rc = write_executions(st[ST_EXEC], it)) == 0)
            hook_row_written();
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
    hook_row_written();
    return with_exec ? write_executions(st[ST_EXEC], it) : 0;
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

static int64_t layer_of(const rip_sweep_opts *o, int64_t pos)
{
    return o->shard_index + pos * o->shard_count;
}

/* Set bit `flag` in have[] for every layer of the span that query q
** (layer_idx ... BETWEEN ?1 AND ?2) returns.  0 or an SQLite code. */
static int mark_span(sqlite3_stmt *q, const rip_sweep_opts *o, span sp, unsigned char *have, unsigned char flag)
{
    int rc;
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, layer_of(o, sp.lo));
    sqlite3_bind_int64(q, 2, layer_of(o, sp.lo + sp.count - 1));
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

/* Does the database already hold everything this run wants of a layer? */
static bool complete(const rip_sweep_opts *o, unsigned char have)
{
    return (have & HAVE_LAYER) && (!o->execute || (have & HAVE_EXEC));
}

/*
** Mark in have[0..sp.count) what the database holds of each layer of the
** span (q: its layers; qx: its executions, NULL without --execute);
** *n_have counts the layers needing nothing more.  Returns 0 or an SQLite
** code.
*/
static int stored_in_span(sqlite3_stmt *q, sqlite3_stmt *qx, const rip_sweep_opts *o, span sp,
                          unsigned char *have, int64_t *n_have)
{
    memset(have, 0, (size_t)sp.count);
    *n_have = 0;
    int rc = mark_span(q, o, sp, have, HAVE_LAYER);
    if (rc == 0 && qx)
        rc = mark_span(qx, o, sp, have, HAVE_EXEC);
    for (int64_t k = 0; rc == 0 && k < sp.count; k++)
        *n_have += complete(o, have[k]);
    return rc;
}

/*
** Write the evaluated items of b in one transaction, skipping what another
** process running the same sweep committed meanwhile (asked again under
** the write lock, into b->have).  *written counts the layers inserted,
** *executed the layers whose executions were inserted.
*/
static rip_status write_batch(sqlite3 *db, sqlite3_stmt *st[ST_COUNT], sqlite3_stmt *q, sqlite3_stmt *qx,
                              const rip_sweep_opts *o, const batch *b, long unsafe[2], int64_t *written,
                              int64_t *executed, char err[RIP_ERR_LEN])
{
    const span sp = b->sp;
    unsigned char *have = b->have;
    long u[2] = {0, 0};
    int64_t n_have = 0, k = 0, w = 0, x = 0, counts[RIP_DB_N_FORMULAS][4] = {{0}};
    *written = *executed = 0;
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = stored_in_span(q, qx, o, sp, have, &n_have);
    for (k = 0; rc == SQLITE_OK && k < b->count; k++) {
        const item *it = &b->items[k];
        unsigned char h = have[(it->idx - o->shard_index) / o->shard_count - sp.lo];
        bool with_layer = it->need_layer && !(h & HAVE_LAYER);
        bool with_exec = it->need_exec && !(h & HAVE_EXEC);
        if (!with_layer && !with_exec)
            continue;
        rc = write_item(st, it, with_layer, with_exec, u, counts);
        w += rc == SQLITE_OK && with_layer;
        x += rc == SQLITE_OK && with_exec;
    }
    if (rc == SQLITE_OK)
        rc = write_counts(st[ST_COUNTS], counts);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK) {
        unsafe[0] += u[0];
        unsafe[1] += u[1];
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
                 (long long)(k > 0 ? b->items[k - 1].idx : layer_of(o, sp.lo)), sqlite3_errmsg(db));
    if (!sqlite3_get_autocommit(db))
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    *written = 0;
    return s == RIP_S_BUSY || s == RIP_S_NOMEM ? s : RIP_S_IO;
}

/* Unsafe verdicts already stored (a resumed run), split as in write_item;
** from verdict_counts, so a resume does not read every layer. */
static void count_unsafe(sqlite3 *db, long unsafe[2])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT f.formula = 'gm2019_eq1', sum(c.n) FROM verdict_counts c "
                               "JOIN formulas f USING (ord) WHERE c.verdict = 1 GROUP BY 1", -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            unsafe[sqlite3_column_int(st, 0) ? 1 : 0] = (long)sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
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

/*
** Open o->db_path for this run: create it (one transaction) when there is
** none yet, else check it read-only and require the same run.  *found
** describes what was there.
*/
static rip_status open_for_run(const rip_sweep_opts *o, const rip_run_info *want, sqlite3 **db,
                               rip_db_found *found, char err[RIP_ERR_LEN])
{
    char what[RIP_ERR_LEN];
    size_t nf = 0;
    rip_status s = rip_db_inspect(o->db_path, true, found, err);
    if (s == RIP_OK && found->empty) {
        s = rip_db_create(o->db_path, want, db, err);
        if (s != RIP_S_BUSY)
            return s;
        /* another process may have created it first, in one transaction: then its run decides,
        ** as for any existing database (the same run resumes, another one is refused) */
        char why[RIP_ERR_LEN];
        if (rip_db_inspect(o->db_path, true, found, why) != RIP_OK || found->empty)
            return s;
        s = RIP_OK;
    }
    if (s != RIP_OK)
        return s;
    if (found->has_run && !rip_run_same(&found->run, want, true, "the database", "this command", what,
                                        sizeof what)) {
        snprintf(err, RIP_ERR_LEN, "%.150s holds another run (%.250s); resume with its arguments or choose "
                 "another --db", o->db_path, what);
        return RIP_S_DATA;
    }
    rip_formulas(&nf);
    if (found->has_run && found->formulas != (int64_t)nf) {
        snprintf(err, RIP_ERR_LEN, "%s lists %lld formulas, this ripsim evaluates %zu; choose another --db",
                 o->db_path, (long long)found->formulas, nf);
        return RIP_S_DATA;
    }
    /* checked: from here on this database is ours to write */
    if ((s = rip_db_open_write(o->db_path, db, err)) != RIP_OK)
        return s;
    if (!found->has_run) { /* schema of an older ripsim, no run row yet */
        char why[RIP_ERR_LEN];
        if (rip_db_exec(*db, "BEGIN IMMEDIATE", why) != 0 || rip_db_write_run(*db, want, why) != 0 ||
            rip_db_exec(*db, "COMMIT", why) != 0) {
            snprintf(err, RIP_ERR_LEN, "%.200s: %.250s", o->db_path, why);
            s = rip_db_status(sqlite3_errcode(*db)) == RIP_S_BUSY ? RIP_S_BUSY : RIP_S_IO;
            rip_db_close(*db);
            *db = NULL;
        }
    }
    return s;
}

/* Layers of the shard needing nothing more (with --execute: executed, so stored too). */
static int64_t layers_done(const rip_sweep_opts *o, const rip_sweep_result *res)
{
    return o->execute ? res->executed_before + res->executed : res->already_done + res->computed;
}

/* Append to err the hint that a rerun resumes, and log it when the database takes it. */
static void note_stop(sqlite3 *db, const char *event, const rip_sweep_result *res, const char *path,
                      char err[RIP_ERR_LEN])
{
    size_t n = strlen(err);
    if (res->in_shard > 0)
        snprintf(err + n, RIP_ERR_LEN - n, "; %lld of %lld layers are saved in %s, rerun the same command to resume",
                 (long long)(res->already_done + res->computed), (long long)res->in_shard, path);
    else
        snprintf(err + n, RIP_ERR_LEN - n, "; rerun the same command to resume");
    if (db) {
        sqlite3_busy_timeout(db, 500); /* best effort: the holder of a lock may block this too */
        rip_db_log(db, event, err);
    }
}

/*
** Write the evaluated batch b and account for it in res: counts, *tw and
** res->seconds_write the time it took, the progress line, the test hook.
** Returns RIP_OK or write_batch's status (err set; a busy database gets the
** resume hint).
*/
static rip_status write_pending(sqlite3 *db, sqlite3_stmt *st[ST_COUNT], sqlite3_stmt *q, sqlite3_stmt *qx,
                                const rip_sweep_opts *o, const batch *b, long unsafe[2], rip_sweep_result *res,
                                double *tw, char err[RIP_ERR_LEN])
{
    int64_t written = 0, executed = 0;
    double t1 = now();
    rip_status status = write_batch(db, st, q, qx, o, b, unsafe, &written, &executed, err);
    if (status != RIP_OK) {
        if (status == RIP_S_BUSY)
            note_stop(db, "busy", res, o->db_path, err);
        return status;
    }
    *tw = now() - t1;
    res->seconds_write += *tw;
    res->computed += written;
    res->executed += executed;
    progress(o, layers_done(o, res), res->in_shard, unsafe);
    hook_batch_committed();
    return RIP_OK;
}

rip_status rip_sweep_run(const rip_sweep_opts *o, rip_sweep_result *res, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st[ST_COUNT] = {NULL}, *q = NULL, *qx = NULL;
    batch bufs[RING];
    pool pool = {.n = 0, .quit = false, .started = 0};
    bool pool_up = false;
    rip_status status = RIP_OK;
    struct sigaction sa, old_int, old_term;
    bool handlers = false;
    char why[RIP_ERR_LEN];
    rip_db_found found;

    memset(res, 0, sizeof *res);
    memset(bufs, 0, sizeof bufs);
    hooks_init();

    rip_run_info want = {0};
    want.seed = (int64_t)o->seed;
    want.n_layers = o->n_layers;
    want.shard_index = o->shard_index;
    want.shard_count = o->shard_count;
    rip_sweep_generator_set(want.generator_set, sizeof want.generator_set);
    snprintf(want.version, sizeof want.version, "%s", RIPSIM_VERSION);

    if ((status = open_for_run(o, &want, &db, &found, err)) != RIP_OK) {
        if (status == RIP_S_BUSY)
            note_stop(NULL, "busy", res, o->db_path, err);
        goto done;
    }
    res->in_shard = o->n_layers > o->shard_index ? (o->n_layers - o->shard_index - 1) / o->shard_count + 1 : 0;
    res->already_done = found.empty ? 0 : found.layers;
    res->executed_before = found.empty ? 0 : found.executed;
    snprintf(why, sizeof why, "seed %llu n %lld shard %lld/%lld jobs %d%s: %lld to do, %lld already done%s",
             (unsigned long long)o->seed, (long long)o->n_layers, (long long)o->shard_index,
             (long long)o->shard_count, o->jobs, o->execute ? " execute" : "",
             (long long)(res->in_shard - res->already_done), (long long)res->already_done,
             o->execute && res->executed_before < res->already_done ? " (some lack their executions)" : "");
    rip_db_log(db, res->already_done ? "resume" : "start", why);

    for (int i = 0; i < (o->execute ? ST_COUNT : ST_EXEC); i++)
        if (sqlite3_prepare_v2(db, insert_sql[i], -1, &st[i], NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "database: %s", sqlite3_errmsg(db));
            status = RIP_S_INTERNAL;
            goto done;
        }
    if (sqlite3_prepare_v2(db, "SELECT layer_idx FROM layer_results WHERE layer_idx BETWEEN ?1 AND ?2",
                           -1, &q, NULL) != SQLITE_OK ||
        (o->execute && sqlite3_prepare_v2(db, "SELECT DISTINCT layer_idx FROM executions WHERE run_id = 1 AND "
                                              "layer_idx BETWEEN ?1 AND ?2", -1, &qx, NULL) != SQLITE_OK)) {
        snprintf(err, RIP_ERR_LEN, "database: %s", sqlite3_errmsg(db));
        status = RIP_S_INTERNAL;
        goto done;
    }
    bool no_memory = false;
    for (int i = 0; i < RING; i++) {
        bufs[i].seed = o->seed;
        bufs[i].how = o->full_bisection ? RIP_SEARCH_BISECT : RIP_SEARCH_BRACKET;
        bufs[i].items = calloc(RIP_SWEEP_BATCH, sizeof *bufs[i].items);
        bufs[i].order = calloc(RIP_SWEEP_BATCH, sizeof *bufs[i].order);
        bufs[i].have = calloc(RIP_SWEEP_BATCH, 1);
        no_memory |= !bufs[i].items || !bufs[i].order || !bufs[i].have;
    }
    if (no_memory) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        status = RIP_S_NOMEM;
        goto done;
    }

    atomic_store(&stop_requested, 0);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    handlers = true;

    long unsafe[2] = {0, 0};
    count_unsafe(db, unsafe);
    /* a finished run (the checked counts say so) needs no pass over its batches */
    bool finished = res->already_done == res->in_shard && (!o->execute || res->executed_before == res->in_shard);
    /* Keep RING batches published; write the oldest once it is evaluated. */
    if (!finished) {
        pthread_mutex_init(&pool.mu, NULL);
        pthread_cond_init(&pool.work, NULL);
        pthread_cond_init(&pool.done, NULL);
        pool_up = true;
        pool_start(&pool, o->jobs);
    }
    int64_t next_lo = 0, published = 0;
    while (!finished) {
        while (pool.n < RING && next_lo < res->in_shard && !atomic_load(&stop_requested)) {
            batch *b = &bufs[published % RING]; /* not in flight: the queue is in publishing order */
            int64_t n_have = 0;
            b->sp.lo = next_lo;
            b->sp.count = res->in_shard - next_lo < batch_size ? res->in_shard - next_lo : batch_size;
            next_lo += b->sp.count;
            int rc = stored_in_span(q, qx, o, b->sp, b->have, &n_have);
            if (rc != 0) {
                status = rip_db_status(rc) == RIP_S_BUSY ? RIP_S_BUSY : RIP_S_IO;
                snprintf(err, RIP_ERR_LEN, "%.200s: cannot read stored layers (%.200s)", o->db_path,
                         sqlite3_errmsg(db));
                goto done;
            }
            if (n_have == b->sp.count)
                continue;
            b->count = b->next = b->finished = 0;
            for (int64_t k = 0; k < b->sp.count; k++)
                if (!complete(o, b->have[k])) {
                    item *it = &b->items[b->count++];
                    memset(it, 0, sizeof *it);
                    it->idx = layer_of(o, b->sp.lo + k);
                    it->need_layer = !(b->have[k] & HAVE_LAYER);
                    it->need_exec = o->execute && !(b->have[k] & HAVE_EXEC);
                }
            order_by_cost(b);
            pool_publish(&pool, b);
            published++;
        }
        if (pool.n == 0)
            break; /* every span is stored */
        double t0 = now(), tw = 0;
        int rc = wait_oldest(&pool, err);
        res->seconds_eval += now() - t0;
        if (rc > 0)
            break; /* stopped: the batches in flight are dropped, what was committed stays */
        if (rc < 0) {
            status = RIP_S_INTERNAL;
            goto done;
        }
        status = write_pending(db, st, q, qx, o, pool.q[0], unsafe, res, &tw, err);
        if (status != RIP_OK)
            goto done;
        pool_pop(&pool);
    }
    if (pool_up) {
        pool_close(&pool);
        pool_up = false;
    }
    progress(o, layers_done(o, res), res->in_shard, unsafe);
    if (atomic_load(&stop_requested) && layers_done(o, res) < res->in_shard) {
        res->interrupted = true;
        status = RIP_S_INTERRUPTED;
        snprintf(err, RIP_ERR_LEN, "interrupted");
        note_stop(db, "interrupted", res, o->db_path, err);
    } else {
        snprintf(why, sizeof why, "%lld layers", (long long)res->in_shard);
        rip_db_log(db, "finish", why);
    }
done:
    if (pool_up)
        pool_close(&pool);
    if (handlers) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(st[i]);
    sqlite3_finalize(q);
    sqlite3_finalize(qx);
    for (int i = 0; i < RING; i++) {
        free(bufs[i].items);
        free(bufs[i].order);
        free(bufs[i].have);
    }
    rip_db_close(db);
    if (status != 0)
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return status;
}
