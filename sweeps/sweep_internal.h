/*
** sweep_internal.h — what the files of the sweep driver share; private to
** sweeps/ (sweep.h is the interface).
**
**   sweep.c       rip_sweep_run: its stages, the walk over the batches;
**   sweep_open.c  opening (creating or checking) the database for a run,
**                 the resume hint of a stopped run;
**   sweep_pool.c  the worker threads and the batches published to them;
**   sweep_db.c    what a span of layers has stored, the batch writes, the
**                 unsafe counts of a resumed run (db_batch.h holds the SQL).
*/
#ifndef RIPSIM_SWEEP_INTERNAL_H
#define RIPSIM_SWEEP_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "db.h"
#include "db_batch.h"
#include "evaluate.h"
#include "execute.h"
#include "generator.h"
#include "status.h"
#include "sweep.h"

/* One evaluated layer, filled by a worker, written by the main thread. */
typedef struct sweep_item {
    int64_t idx;
    const rip_generator *gen;
    int gen_id;          /* gen's place in the registry: generators.ord */
    rip_layer L;
    rip_eval ev;
    bool need_layer;     /* write its layer, truths and verdicts */
    bool need_exec;      /* execute it and write its executions */
    rip_xcheck xc[RIP_KERNEL_CONFIG_COUNT];
    uint32_t checksum;
    double cost;         /* for the order of work (sweep_order_by_cost) */
    int failed;          /* its draw or its evaluation failed: err says why */
    char err[RIP_ERR_LEN];
} sweep_item;

/* Where a batch lies: positions [lo, lo + count) of the shard. */
typedef struct sweep_span {
    int64_t lo, count;
} sweep_span;

typedef struct sweep_batch {
    sweep_item *items;
    int64_t *order;      /* the items by decreasing cost: largest first, so no thread idles at the end */
    int64_t count;
    int64_t next;        /* items handed out (pool.mu) */
    int64_t finished;    /* items evaluated (pool.mu) */
    sweep_span sp;
    unsigned char *have; /* sweep_write_batch's scratch */
    uint64_t seed;
    const rip_generator_set *set; /* the run's categories (never NULL) */
    rip_search how;      /* how the simulator finds each truth */
} sweep_batch;

/* Batches in flight: the oldest is waited for and written by the main
** thread while the workers evaluate the others. */
enum { SWEEP_RING = 3 };

/* The worker threads and the batches published to them. */
typedef struct sweep_pool {
    pthread_mutex_t mu;
    pthread_cond_t work;    /* to workers: a batch was published, or quit */
    pthread_cond_t done;    /* to the main thread: a batch is evaluated */
    sweep_batch *q[SWEEP_RING]; /* published batches in span order, q[0] the oldest */
    int n;
    bool quit;
    pthread_t tid[64];
    int started;
    atomic_int *stop;       /* the run's stop flag (never NULL) */
} sweep_pool;


/* What the database holds of one layer (sweep_stored_in_span). */
enum { SWEEP_HAVE_LAYER = 1, SWEEP_HAVE_EXEC = 2 };

/* Everything one rip_sweep_run holds, shared by its stages. */
typedef struct sweep_run {
    const rip_sweep_opts *o;
    rip_sweep_result *res;
    atomic_int *stop;             /* o->stop, or a flag that is never set */
    int64_t batch_size;           /* o->batch, or RIP_SWEEP_BATCH */
    sqlite3 *db;
    rip_db_writer *w;             /* the typed batch writes and span queries (db_batch.h) */
    sweep_batch bufs[SWEEP_RING];
    sweep_pool pool;
    bool pool_up;                 /* pool's locks initialised (sweep_pool_start) */
    long unsafe[2];               /* unsafe verdicts: [0] the paper's bounds, [1] G&M Eq. 1 */
    const rip_generator_set *set; /* o->generators, or default_set */
    rip_generator_set default_set;
} sweep_run;

/* --- sweep_open.c ------------------------------------------------------ */

/*
** Open o->db_path for this run: create it (one transaction) when there is
** none yet, else check it read-only and require the same run (want).
** Out: *db open for writing, *found what was there.  Returns RIP_OK;
** RIP_S_DATA (another run, another formula set, damaged: left untouched),
** RIP_S_BUSY, RIP_S_CANTCREATE, RIP_S_IO or RIP_S_NOMEM with err set and
** *db NULL.
*/
rip_status sweep_open(const rip_sweep_opts *o, const rip_run_info *want, sqlite3 **db, rip_db_found *found,
                      char err[RIP_ERR_LEN]);

/*
** Append to err the hint that a rerun resumes (how many layers of res are
** saved in path), and log it as event when db is not NULL (best effort,
** 500 ms of waiting at most).  Never fails.
*/
void sweep_note_stop(sqlite3 *db, const char *event, const rip_sweep_result *res, const char *path,
                     char err[RIP_ERR_LEN]);

/* --- sweep_pool.c ------------------------------------------------------ */

/*
** Initialise p (stop: the run's flag, not NULL) and start jobs workers, or
** none for jobs = 1 (the main thread then evaluates and writes in turn:
** one thread in all).  Never fails: fewer threads is slower, not wrong,
** and with none the main thread evaluates (sweep_pool_wait_oldest).
*/
void sweep_pool_start(sweep_pool *p, int jobs, atomic_int *stop);

/* Publish b (items drawn and ordered: sweep_order_by_cost) to the workers; fewer than SWEEP_RING in flight. */
void sweep_pool_publish(sweep_pool *p, sweep_batch *b);

/*
** Wait until the oldest published batch is evaluated.  Returns 0; 1 when a
** stop was asked for (nothing more is to be written: the batches in flight
** are dropped); -1 with the first failed layer's message in err.
*/
int sweep_pool_wait_oldest(sweep_pool *p, char err[RIP_ERR_LEN]);

/* Drop the oldest published batch (written). */
void sweep_pool_pop(sweep_pool *p);

/* Tell the workers to quit, join them (each finishes its item in hand)
** and free the pool's locks. */
void sweep_pool_close(sweep_pool *p);

/*
** Draw every item's layer of b (cheap) and order the items by decreasing
** cost.  A failed draw marks its item failed (err set), which
** sweep_pool_wait_oldest then reports; it is never evaluated.
*/
void sweep_order_by_cost(sweep_batch *b);

/* --- sweep_db.c -------------------------------------------------------- */

/* Layer index of position pos of the shard. */
int64_t sweep_layer_of(const rip_sweep_opts *o, int64_t pos);

/* Does the database already hold everything this run wants of a layer (have: SWEEP_HAVE_* bits)? */
bool sweep_complete(const rip_sweep_opts *o, unsigned char have);

/*
** Open r's batch writer on r->db (rip_db_writer_open: the inserts, and
** the queries of stored layers and executions).  Returns RIP_OK, or
** RIP_S_INTERNAL / RIP_S_NOMEM with err set; sweep_finalize frees it.
*/
rip_status sweep_prepare(sweep_run *r, char err[RIP_ERR_LEN]);

/* Close r's batch writer (none open is fine). */
void sweep_finalize(sweep_run *r);

/*
** Mark in have[0..sp.count) what the database holds of each layer of the
** span; *n_have counts the layers needing nothing more.  Returns 0 or an
** SQLite code.
*/
int sweep_stored_in_span(const sweep_run *r, sweep_span sp, unsigned char *have, int64_t *n_have);

/*
** Write the evaluated items of b in one transaction, skipping what another
** process running the same sweep committed meanwhile (asked again under
** the write lock, into b->have), and add their unsafe verdicts to
** r->unsafe.  *written counts the layers inserted, *executed the layers
** whose executions were inserted.  Returns RIP_OK; RIP_S_BUSY, RIP_S_NOMEM
** or RIP_S_IO with err set, the transaction rolled back and *written 0.
*/
rip_status sweep_write_batch(sweep_run *r, const sweep_batch *b, int64_t *written, int64_t *executed,
                             char err[RIP_ERR_LEN]);

/* Set r->unsafe to the unsafe verdicts already stored (a resumed run),
** from verdict_counts, so a resume does not read every layer.  Best effort. */
void sweep_count_unsafe(sweep_run *r);

#endif
