/*
** sweep.c — the sweep driver (see sweep.h).
**
** Shape of a run: validate the database (never touching a foreign one),
** list this shard's layers that are not in it yet, then for each batch of
** RIP_SWEEP_BATCH layers evaluate them on `jobs` threads and write the
** batch in one transaction.  Rows are keyed by layer index, so the order in
** which threads finish does not matter, and a batch is either wholly in the
** database or not at all.
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

#include "cli.h"
#include "db.h"
#include "status.h"
#include "evaluate.h"
#include "generator.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
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
    rip_layer L;
    rip_eval ev;
    int failed;
    char err[RIP_ERR_LEN];
} item;

typedef struct batch {
    item *items;
    int64_t count;
    atomic_long next;
    uint64_t seed;
} batch;

static void evaluate_one(item *it, uint64_t seed)
{
    it->gen = rip_sweep_draw(seed, it->idx, &it->L);
    it->failed = rip_evaluate(&it->L, RIP_ENGINE_FAST, true, &it->ev, it->err);
}

static void *worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        long k = atomic_fetch_add(&b->next, 1);
        if (k >= b->count)
            return NULL;
        evaluate_one(&b->items[k], b->seed);
    }
}

/* Evaluate a batch on `jobs` threads (the calling thread is one of them). */
static int evaluate_batch(batch *b, int jobs, char err[RIP_ERR_LEN])
{
    pthread_t tid[64];
    int started = 0;
    atomic_store(&b->next, 0);
    for (int t = 1; t < jobs && t < 64; t++) {
        if (pthread_create(&tid[started], NULL, worker, b) != 0)
            break; /* fewer threads is slower, not wrong */
        started++;
    }
    worker(b);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    for (int64_t k = 0; k < b->count; k++)
        if (b->items[k].failed) {
            snprintf(err, RIP_ERR_LEN, "layer %lld: %.200s", (long long)b->items[k].idx, b->items[k].err);
            return -1;
        }
    return 0;
}

enum { ST_LAYER, ST_TRUTH, ST_VERDICT, ST_COUNT };
static const char *const insert_sql[ST_COUNT] = {
    "INSERT INTO layers VALUES (?,?,?,?, ?,?,?,?,?,?,?,?,?,?, ?,?,?,?,?,?, ?,?,?, ?,?,?)",
    "INSERT INTO truths VALUES (?,?,?,?,?)",
    "INSERT INTO verdicts VALUES (?,?,?,?,?,?,?,?)",
};

static int64_t stored_input(const rip_layer *L, int e)
{
    return (e == RIP_EXEC_DENSE_GATHER || e == RIP_EXEC_DENSE_TAPS) ? L->n_in_dense : L->n_in_padded;
}

static long kill_after_rows = -1;  /* test hook, see sweep.h */
static long rows_this_process;

/* Bind and step one prepared insert; 0 or -1. */
static int step_reset(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Unsafe verdicts so far: [0] the paper's own bounds, [1] G&M's Eq. 1 as
** published (whose shortfall is the paper's Limitation 1, so expected). */
static int write_item(sqlite3_stmt *st[ST_COUNT], const item *it, long unsafe[2])
{
    const rip_layer *L = &it->L;
    sqlite3_stmt *s = st[ST_LAYER];
    const int64_t cols[] = {
        L->cin, L->cout, L->h_in, L->w_in, L->k_h, L->k_w, L->s_h, L->s_w, L->d_h, L->d_w,
        L->p_top, L->p_left, L->p_top, L->p_bottom, L->p_left, L->p_right, L->h_out, L->w_out,
        rip_layer_is_restricted(L), L->n_in_padded, L->n_in_dense, L->n_out,
    };
    sqlite3_bind_int(s, 1, RIP_DB_RUN_ID);
    sqlite3_bind_int64(s, 2, it->idx);
    sqlite3_bind_text(s, 3, it->gen->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 4, it->gen->tier);
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        sqlite3_bind_int64(s, 5 + (int)c, cols[c]);
    if (step_reset(s) != 0)
        return -1;
    if (kill_after_rows >= 0 && ++rows_this_process >= kill_after_rows)
        raise(SIGKILL); /* test hook: die mid-transaction */

    for (int e = 0; e < RIP_EXEC_COUNT; e++) {
        s = st[ST_TRUTH];
        sqlite3_bind_int(s, 1, RIP_DB_RUN_ID);
        sqlite3_bind_int64(s, 2, it->idx);
        sqlite3_bind_text(s, 3, rip_exec_name((rip_exec)e), -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 4, it->ev.truth[e]);
        sqlite3_bind_int64(s, 5, it->ev.truth[e] + stored_input(L, e));
        if (step_reset(s) != 0)
            return -1;
    }
    for (size_t i = 0; i < it->ev.n_formulas; i++) {
        const rip_eval *ev = &it->ev;
        int j = ev->judged_by[i];
        s = st[ST_VERDICT];
        sqlite3_bind_int(s, 1, RIP_DB_RUN_ID);
        sqlite3_bind_int64(s, 2, it->idx);
        sqlite3_bind_text(s, 3, ev->info[i].name, -1, SQLITE_STATIC);
        if (j >= 0)
            sqlite3_bind_text(s, 4, rip_exec_name((rip_exec)j), -1, SQLITE_STATIC);
        if (ev->defined[i])
            sqlite3_bind_int64(s, 5, ev->value[i]);
        if (j >= 0)
            sqlite3_bind_int64(s, 6, ev->truth[j]);
        sqlite3_bind_text(s, 7, rip_verdict_name(ev->verdict[i]), -1, SQLITE_STATIC);
        if (ev->verdict[i] != RIP_NA)
            sqlite3_bind_int64(s, 8, ev->value[i] - ev->truth[j]);
        if (ev->verdict[i] == RIP_UNSAFE)
            unsafe[strcmp(ev->info[i].name, "gm2019_eq1") == 0]++;
        if (step_reset(s) != 0)
            return -1;
    }
    return 0;
}

static int write_batch(sqlite3 *db, sqlite3_stmt *st[ST_COUNT], const batch *b, long unsafe[2],
                       char err[RIP_ERR_LEN])
{
    char why[RIP_ERR_LEN];
    if (rip_db_exec(db, "BEGIN IMMEDIATE", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%s", why);
        return -1;
    }
    long u[2] = {0, 0};
    for (int64_t k = 0; k < b->count; k++)
        if (write_item(st, &b->items[k], u) != 0) {
            snprintf(err, RIP_ERR_LEN, "database: cannot write layer %lld (%s)",
                     (long long)b->items[k].idx, sqlite3_errmsg(db));
            rip_db_exec(db, "ROLLBACK", why);
            return -1;
        }
    if (rip_db_exec(db, "COMMIT", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%s", why);
        rip_db_exec(db, "ROLLBACK", why);
        return -1;
    }
    unsafe[0] += u[0];
    unsafe[1] += u[1];
    return 0;
}

/* Layers of this shard not yet in the database, ascending; NULL on OOM. */
static int64_t *todo_list(sqlite3 *db, const rip_sweep_opts *o, int64_t *n_todo, int64_t *in_shard,
                          char err[RIP_ERR_LEN])
{
    int64_t n = o->n_layers;
    unsigned char *done = calloc((size_t)n, 1);
    int64_t *todo = NULL;
    sqlite3_stmt *st = NULL;
    if (!done) {
        snprintf(err, RIP_ERR_LEN, "out of memory listing %lld layers", (long long)n);
        return NULL;
    }
    int rc = sqlite3_prepare_v2(db, "SELECT layer_idx FROM layers WHERE run_id = ?", -1, &st, NULL);
    if (rc == SQLITE_OK)
        sqlite3_bind_int(st, 1, RIP_DB_RUN_ID);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t idx = sqlite3_column_int64(st, 0);
        if (idx >= 0 && idx < n)
            done[idx] = 1;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "database: cannot list finished layers (%s)", sqlite3_errmsg(db));
        free(done);
        return NULL;
    }
    *in_shard = 0;
    *n_todo = 0;
    for (int64_t i = o->shard_index; i < n; i += o->shard_count)
        (*in_shard)++;
    todo = malloc(sizeof *todo * (size_t)(*in_shard > 0 ? *in_shard : 1));
    if (todo) {
        for (int64_t i = o->shard_index; i < n; i += o->shard_count)
            if (!done[i])
                todo[(*n_todo)++] = i;
    } else {
        snprintf(err, RIP_ERR_LEN, "out of memory listing %lld layers", (long long)n);
    }
    free(done);
    return todo;
}

/* Unsafe verdicts already stored (a resumed run), split as in write_item. */
static void count_unsafe(sqlite3 *db, long unsafe[2])
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT formula = 'gm2019_eq1', count(*) FROM verdicts "
                               "WHERE verdict = 'unsafe' GROUP BY 1", -1, &st, NULL) == SQLITE_OK)
        while (sqlite3_step(st) == SQLITE_ROW)
            unsafe[sqlite3_column_int(st, 0) ? 1 : 0] = (long)sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
}

static void progress(const rip_sweep_opts *o, int64_t done, int64_t total, int64_t fresh,
                     double started, const long unsafe[2], bool final)
{
    if (!o->progress)
        return;
    double el = now() - started, rate = el > 0 ? (double)fresh / el : 0;
    double eta = rate > 0 ? (double)(total - done) / rate : 0;
    fprintf(stderr, "\rsweep: %lld/%lld layers (%.1f%%)  %.0f layers/s  ETA %d:%02d  "
            "unsafe: %ld paper bounds, %ld G&M Eq. 1   %s",
            (long long)done, (long long)total, total ? 100.0 * (double)done / (double)total : 100.0,
            rate, (int)eta / 60, (int)eta % 60, unsafe[0], unsafe[1], final ? "\n" : "");
    fflush(stderr);
}

static int check_run(const rip_run_info *have, const rip_run_info *want, const char *path,
                     char err[RIP_ERR_LEN])
{
    if (have->seed != want->seed || have->n_layers != want->n_layers)
        snprintf(err, RIP_ERR_LEN,
                 "%s holds a sweep with --seed %lld --n %lld, not --seed %lld --n %lld; "
                 "resume with its arguments or choose another --db",
                 path, (long long)have->seed, (long long)have->n_layers, (long long)want->seed,
                 (long long)want->n_layers);
    else if (have->shard_index != want->shard_index || have->shard_count != want->shard_count)
        snprintf(err, RIP_ERR_LEN, "%s holds shard %lld/%lld, not %lld/%lld", path,
                 (long long)have->shard_index, (long long)have->shard_count,
                 (long long)want->shard_index, (long long)want->shard_count);
    else if (strcmp(have->generator_set, want->generator_set) != 0 ||
             strcmp(have->version, want->version) != 0)
        snprintf(err, RIP_ERR_LEN,
                 "%s was written by ripsim %s with other generator categories or version; "
                 "its rows would not match this binary's (%s)", path, have->version, want->version);
    else
        return 0;
    return -1;
}

int rip_sweep_run(const rip_sweep_opts *o, rip_sweep_result *res, char err[RIP_ERR_LEN])
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st[ST_COUNT] = {NULL};
    int64_t *todo = NULL;
    batch b = {0};
    int status = 0;
    bool created = false;
    struct sigaction sa, old_int, old_term;
    bool handlers = false;
    char why[RIP_ERR_LEN];

    memset(res, 0, sizeof *res);
    const char *hook = getenv("RIPSIM_TEST_KILL_AFTER_ROWS");
    kill_after_rows = hook ? atol(hook) : -1;
    rows_this_process = 0;
    hook = getenv("RIPSIM_TEST_SIGINT_AFTER_BATCHES");
    long sigint_after = hook ? atol(hook) : -1;

    rip_run_info want = {0}, have;
    want.seed = (int64_t)o->seed;
    want.n_layers = o->n_layers;
    want.shard_index = o->shard_index;
    want.shard_count = o->shard_count;
    rip_sweep_generator_set(want.generator_set, sizeof want.generator_set);
    snprintf(want.version, sizeof want.version, "%s", RIPSIM_VERSION);

    if ((status = rip_db_open(o->db_path, RIP_DB_CREATE, &db, &created, err)) != 0)
        goto done;
    int found = rip_db_read_run(db, &have, err);
    if (found < 0) {
        status = RIP_EX_DATAERR;
        goto done;
    }
    if (found == 0 && check_run(&have, &want, o->db_path, err) != 0) {
        status = RIP_EX_DATAERR;
        goto done;
    }
    /* validated: from here on this database is ours to write */
    if (rip_db_tune_for_writing(db, err) != 0) {
        status = RIP_EX_IOERR;
        goto done;
    }
    if (found == 1 && rip_db_write_run(db, &want, err) != 0) {
        status = RIP_EX_IOERR;
        goto done;
    }
    int64_t n_todo = 0;
    if (!(todo = todo_list(db, o, &n_todo, &res->in_shard, err))) {
        status = RIP_EX_OSERR;
        goto done;
    }
    res->already_done = res->in_shard - n_todo;
    snprintf(why, sizeof why, "seed %llu n %lld shard %lld/%lld jobs %d: %lld to do, %lld already done",
             (unsigned long long)o->seed, (long long)o->n_layers, (long long)o->shard_index,
             (long long)o->shard_count, o->jobs, (long long)n_todo, (long long)res->already_done);
    rip_db_log(db, res->already_done ? "resume" : "start", why);

    for (int i = 0; i < ST_COUNT; i++)
        if (sqlite3_prepare_v2(db, insert_sql[i], -1, &st[i], NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "database: %s", sqlite3_errmsg(db));
            status = RIP_EX_SOFTWARE;
            goto done;
        }
    b.seed = o->seed;
    b.items = calloc(RIP_SWEEP_BATCH, sizeof *b.items);
    if (!b.items) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        status = RIP_EX_OSERR;
        goto done;
    }

    stop_requested = 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    handlers = true;

    long unsafe[2] = {0, 0};
    count_unsafe(db, unsafe);
    double started = now();
    long batches = 0;
    for (int64_t pos = 0; pos < n_todo && !stop_requested; pos += RIP_SWEEP_BATCH) {
        b.count = n_todo - pos < RIP_SWEEP_BATCH ? n_todo - pos : RIP_SWEEP_BATCH;
        for (int64_t k = 0; k < b.count; k++) {
            memset(&b.items[k], 0, sizeof b.items[k]);
            b.items[k].idx = todo[pos + k];
        }
        double t0 = now();
        if (evaluate_batch(&b, o->jobs, err) != 0) {
            status = RIP_EX_SOFTWARE;
            goto done;
        }
        double t1 = now();
        if (write_batch(db, st, &b, unsafe, err) != 0) {
            status = RIP_EX_IOERR;
            goto done;
        }
        res->seconds_eval += t1 - t0;
        res->seconds_write += now() - t1;
        res->computed += b.count;
        progress(o, res->already_done + res->computed, res->in_shard, res->computed, started, unsafe, false);
        if (sigint_after >= 0 && ++batches >= sigint_after)
            raise(SIGINT);
    }
    progress(o, res->already_done + res->computed, res->in_shard, res->computed, started, unsafe, true);
    if (stop_requested && res->already_done + res->computed < res->in_shard) {
        res->interrupted = true;
        status = RIP_EX_INTERRUPTED;
        snprintf(err, RIP_ERR_LEN,
                 "interrupted: %lld of %lld layers saved in %s; rerun the same command to resume",
                 (long long)(res->already_done + res->computed), (long long)res->in_shard, o->db_path);
        rip_db_log(db, "interrupted", err);
    } else {
        snprintf(why, sizeof why, "%lld layers", (long long)res->in_shard);
        rip_db_log(db, "finish", why);
    }
done:
    if (handlers) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(st[i]);
    free(b.items);
    free(todo);
    rip_db_close(db);
    if (status != 0)
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return status;
}
