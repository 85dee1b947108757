/*
** sweep.h — the seeded sweep: draw layers, evaluate every closed form
** against the simulator, write the verdicts to SQLite.
**
** Layer i of a sweep is drawn by rip_sweep_draw(seed, i): its own PCG32
** stream, so its rows depend on (seed, i) alone — never on --jobs, on the
** shard, or on how often the sweep was interrupted and resumed.  Work is
** committed in batches; a rerun with the same arguments skips the layers
** already in the database.
*/
#ifndef RIPSIM_SWEEP_H
#define RIPSIM_SWEEP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "layer.h"
#include "progress.h"
#include "status.h"
#include "generator.h"

#define RIP_SWEEP_DEFAULT_SEED 20261129u
#define RIP_SWEEP_DEFAULT_N 10000
#define RIP_SWEEP_DEFAULT_DB "results/sweep.db"
#define RIP_SWEEP_BATCH 250

/*
** Observers of a run's writes, for the interruption tests (the command
** line's test build sets them; fn NULL: none).  Called on the thread that
** writes, with ctx.
*/
typedef struct rip_sweep_hooks {
    void (*row_written)(void *ctx);     /* a layer's row (or its executions alone) was inserted,
                                        ** inside its batch's transaction, before the commit */
    void (*batch_committed)(void *ctx); /* a batch was committed and its progress reported */
    void *ctx;
} rip_sweep_hooks;

typedef struct rip_sweep_opts {
    int64_t n_layers;        /* size of the whole sweep, >= 1 */
    uint64_t seed;
    const char *db_path;
    int jobs;                /* worker threads, >= 1 */
    int64_t shard_index;     /* this process runs layers with */
    int64_t shard_count;     /*   idx % shard_count == shard_index */
    rip_progress_cb progress; /* progress reports (core/progress.h: layers done of the shard's,
                             ** with the unsafe counts so far); fn NULL: none */
    const rip_generator_set *generators; /* the categories and weights drawn from
                                (generator.h); NULL: the default, the paper's 20 */
    bool no_fsync;           /* commits are written but not flushed to the disk
                                (synchronous=OFF): safe against a killed process,
                                not against a machine crash or power cut */
    bool execute;            /* also execute every layer with the int8 kernels (table executions) */
    bool full_bisection;     /* truths by binary search over [0, N_out] instead of the
                                confirmed one-pass gap (same truths, slower; sim.h) */
    atomic_int *stop;        /* polled by every thread of the run: nonzero asks it to stop
                             ** (the item in hand is finished, committed work kept); a
                             ** signal handler may set it (lock-free).  NULL: never stops */
    rip_sweep_hooks hooks;   /* NULL fns: none */
    int64_t batch;           /* layers per batch, 1..RIP_SWEEP_BATCH; 0 (or out of range):
                             ** RIP_SWEEP_BATCH.  Rows do not depend on it */
} rip_sweep_opts;

typedef struct rip_sweep_result {
    int64_t in_shard;        /* layers this shard owns */
    int64_t already_done;    /* found in the database at start */
    int64_t computed;        /* evaluated and committed by this call */
    int64_t executed;        /* layers whose executions this call committed (execute) */
    int64_t executed_before; /* layers whose executions were stored at start (execute) */
    bool interrupted;        /* stopped by *o->stop; rerun to resume */
    double seconds_eval;     /* wall time waiting for evaluation (draw, formulas,
                                simulator) beyond the writes it overlaps */
    double seconds_write;    /* wall time in SQLite writes and commits (batch k is
                                written while batch k+1 is evaluated) */
} rip_sweep_result;

/*
** Run (or resume) a sweep into o->db_path.  With o->execute every layer is
** also executed (src/exec/execute.h: at the truth of each rip_*
** configuration and at truth - 1) and recorded in table executions; a
** database that lacks executions of stored layers gets them (resume).
** Without it, executions are neither computed nor
** required.  Returns RIP_OK when every layer
** of the shard is stored; RIP_S_INTERRUPTED when stopped by o->stop (the
** command line sets it on SIGINT/SIGTERM; all committed work kept); RIP_S_DATA when the database holds another run
** (seed, size, shard, generator set, version), another schema (versions 1
** and 2: the message names `ripsim migrate`), or is
** damaged or inconsistent -- it is then left byte-identical; RIP_S_BUSY when
** another process holds its lock for RIP_DB_BUSY_MS (committed work kept);
** RIP_S_CANTCREATE / RIP_S_IO / RIP_S_NOMEM on environment failures;
** RIP_S_INTERNAL when a layer cannot be drawn (a generator's impossible
** draw: err names the layer and the category) or evaluated.  err receives one line,
** which says that a rerun resumes when it does.
**
** The library never touches the process: no signal handler, no output
** but through o->progress and o->hooks.
**
** Memory does not grow with n_layers: the driver keeps one batch, and finds
** what a resumed database holds by asking it batch by batch.
*/
rip_status rip_sweep_run(const rip_sweep_opts *o, rip_sweep_result *res, char err[RIP_ERR_LEN]);

/* "name:weight,..." of set s (NULL: the default set, the paper's 20), into buf. */
void rip_sweep_generator_set(const rip_generator_set *s, char *buf, size_t len);

/* The categories of set s (NULL: the default) as table generators records
** them (db.h), each with its weight in s, the first cap of them into
** rows[cap]; returns how many there are (more than cap: not all written). */
#define RIP_SWEEP_MAX_GENERATORS RIP_GENERATOR_SET_MAX
struct rip_db_generator;
size_t rip_sweep_generator_rows(const rip_generator_set *s, struct rip_db_generator *rows, size_t cap);

#endif
