/*
** cmd_sweep.c — `ripsim sweep`: the project's main job.
**
** Parses the options, runs (or resumes) the sweep, and prints the verdict
** summary of the whole database when the sweep is complete.  It owns the
** process for the sweep library: SIGINT/SIGTERM set the run's stop flag
** (rip_sweep_opts.stop) while it runs, and the test build's hooks raise
** signals from the run's write hooks.
*/
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "db.h"
#include "json_out.h"
#include "stored_rows.h"
#include "optimum.h"
#include "progress_line.h"
#include "root.h"
#include "sweep.h"

static const char about[] =
    "Draw N seeded layers from the generator categories (by default the paper's\n"
    "20 of Tab. 5 at its weights; --generators), run each under the seven\n"
    "execution configurations of the simulator, evaluate\n"
    "every closed form, and write layers, truths and verdicts to an SQLite\n"
    "database.\n"
    "With --execute, also run every layer with the int8 kernels in place at the\n"
    "truth of each rip_* configuration and at truth - 1, against dual buffering\n"
    "(table executions; see 'ripsim execute --help').\n"
    "With --optimum P, also store the traversal-optimal gap (see 'ripsim optimal\n"
    "--help') of every layer with at most P output pixels (table optima, view\n"
    "optimum_gaps), which 'ripsim report' then compares with every truth and\n"
    "closed form.\n";

static const char notes[] =
    "Interrupted (Ctrl-C, kill, even kill -9) and rerun with the same arguments,\n"
    "the sweep resumes and ends with exactly the rows of an uninterrupted run.\n"
    "An existing database is checked read-only first; one that is damaged, or\n"
    "holds another seed, size, shard, generator set or schema, or whose\n"
    "generators draw other layers (runs.generator_fingerprint: a category's\n"
    "draw() changed), is refused and left untouched (also when another sweep\n"
    "created it a moment before this one: the same run resumes, another one is\n"
    "refused).  Another ripsim version or source commit with the same\n"
    "fingerprint resumes: run_log records which one computed what.\n"
    "--execute on a database swept without it executes its stored layers too.\n"
    "A database of an older schema (version 1 to 4) is refused with the hint to\n"
    "convert it first: ripsim migrate --db FILE.\n"
    RIP_DB_CHECK_HELP;

static const rip_exit_doc exits[] = {
    {0, "done (the summary is printed)"},
    {64, "bad command line"},
    {65, "the database is damaged, holds another run or schema (older ones: ripsim migrate), or is not a ripsim database"},
    {66, "the database cannot be read"},
    {70, "internal error (a layer could not be evaluated or executed)"},
    {71, "out of memory"},
    {73, "the database cannot be created"},
    {74, "a read or write of the database or of the output failed (e.g. disk full; committed work is kept)"},
    {75, "the database is locked by another process (waited 5 s; rerun to resume)"},
    {130, "interrupted; rerun the same command to resume"},
};

/* Set by SIGINT/SIGTERM, read by every thread of the sweep: a lock-free
** atomic, which a signal handler may write and other threads may read. */
static atomic_int stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&stop_requested, 1);
}

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

static void hook_row_written(void *ctx)
{
    (void)ctx;
    if (kill_after_rows >= 0 && ++rows_this_process >= kill_after_rows)
        raise(SIGKILL); /* die mid-transaction */
}

static void hook_batch_committed(void *ctx)
{
    (void)ctx;
    if (sigint_after_batches >= 0 && ++batches_this_process >= sigint_after_batches)
        raise(SIGINT);
}

static void hooks_init(rip_sweep_opts *o)
{
    const char *b = getenv("RIPSIM_TEST_BATCH");
    o->batch = b && atol(b) >= 1 && atol(b) <= RIP_SWEEP_BATCH ? atol(b) : RIP_SWEEP_BATCH;
    const char *v = getenv("RIPSIM_TEST_KILL_AFTER_ROWS");
    kill_after_rows = v ? atol(v) : -1;
    v = getenv("RIPSIM_TEST_SIGINT_AFTER_BATCHES");
    sigint_after_batches = v ? atol(v) : -1;
    rows_this_process = batches_this_process = 0;
    o->hooks.row_written = hook_row_written;
    o->hooks.batch_committed = hook_batch_committed;
}
#else
static void hooks_init(rip_sweep_opts *o)
{
    (void)o;
}
#endif

/*
** rip_sweep_run with SIGINT and SIGTERM setting its stop flag while it
** runs (the previous handlers are restored after).  Returns its status.
*/
static rip_status run_interruptible(rip_sweep_opts *o, rip_sweep_result *r, char err[RIP_ERR_LEN])
{
    struct sigaction sa, old_int, old_term;
    atomic_store(&stop_requested, 0);
    o->stop = &stop_requested;
    hooks_init(o);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rip_status s = rip_sweep_run(o, r, err);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return s;
}

/* --generators NAME[:WEIGHT],...: into the rip_generator_set at dest. */
static bool parse_generators(const char *v, void *dest, char *why, size_t n)
{
    char err[RIP_ERR_LEN];
    if (rip_generator_set_parse(v, dest, err) == RIP_OK)
        return true;
    snprintf(why, n, "NAME[:WEIGHT],... of the categories (%s)", err);
    return false;
}

/* --shard I/K: 0 <= I < K <= 1000000. */
static bool parse_shard(const char *v, void *dest, char *why, size_t n)
{
    int64_t *ik = dest, si, sk;
    char ibuf[32], kbuf[32];
    const char *slash = strchr(v, '/');
    snprintf(why, n, "I/K with 0 <= I < K <= 1000000");
    if (!slash || (size_t)(slash - v) >= sizeof ibuf || strlen(slash + 1) >= sizeof kbuf)
        return false;
    memcpy(ibuf, v, (size_t)(slash - v));
    ibuf[slash - v] = '\0';
    snprintf(kbuf, sizeof kbuf, "%s", slash + 1);
    if (!rip_arg_int(kbuf, 1, 1000000, &sk) || !rip_arg_int(ibuf, 0, sk - 1, &si))
        return false;
    ik[0] = si;
    ik[1] = sk;
    return true;
}

/* How the summary is shown: text (default), JSON (--json), or not at all (--quiet). */
typedef enum summary_form { SUMMARY_TEXT, SUMMARY_JSON, SUMMARY_NONE } summary_form;

/* Does the database have the view `name`? */
static bool has_view(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    bool have = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = ?1", -1, &st, NULL) == SQLITE_OK &&
                sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return have;
}

/* The execution summary (when the database has executions) as text or as
** the JSON array "executions"; 0, or -1 after the message. */
static int print_executions(sqlite3 *db, const char *path, summary_form form)
{
    sqlite3_stmt *st = NULL;
    if (!has_view(db, "execution_summary"))
        return 0;
    if (sqlite3_prepare_v2(db, "SELECT exec_config, executed, bit_exact, early_overwrite_at_truth, truth_zero, "
                               "caught_at_truth_minus_1, truth_positive FROM execution_summary", -1, &st,
                           NULL) != SQLITE_OK) {
        fprintf(stderr, "ripsim sweep: %s: %s\n", path, sqlite3_errmsg(db));
        return -1;
    }
    bool first = true;
    while (sqlite3_step(st) == SQLITE_ROW) {
        long long v[6];
        for (int k = 0; k < 6; k++)
            v[k] = (long long)sqlite3_column_int64(st, k + 1);
        const char *config = (const char *)sqlite3_column_text(st, 0);
        if (form == SUMMARY_JSON) {
            printf("%s\n    {\"config\": ", first ? ",\n  \"executions\": [" : ",");
            rip_json_string(stdout, config ? config : "");
            printf(", \"executed\": %lld, \"bit_exact\": %lld, \"early_overwrite_at_truth\": %lld, "
                   "\"truth_zero\": %lld, \"caught_at_truth_minus_1\": %lld, \"truth_positive\": %lld}",
                   v[0], v[1], v[2], v[3], v[4], v[5]);
        } else {
            if (first)
                printf("\n%-18s %9s %9s %16s %8s %18s\n", "executed in place", "layers", "bit-exact",
                       "early overwrite", "truth 0", "caught at truth-1");
            printf("%-18s %9lld %9lld %16lld %8lld %9lld of %6lld\n", config, v[0], v[1], v[2], v[3], v[4], v[5]);
        }
        first = false;
    }
    sqlite3_finalize(st);
    if (form == SUMMARY_JSON && !first)
        printf("\n  ]");
    return 0;
}

/* The verdict table as text or as the JSON array "verdicts"; 0, or -1
** after the message.  A formula judged against no truth (the naive
** workspace, a reference size) has no verdicts: its row says so. */
static int print_verdicts(sqlite3 *db, summary_form form)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT formula, exec_config, unsafe, tight, loose, na FROM verdict_summary", -1,
                           &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "ripsim sweep: %s\n", sqlite3_errmsg(db));
        return -1;
    }
    if (form == SUMMARY_TEXT)
        printf("\n%-16s %-24s %8s %8s %8s %8s\n", "formula", "judged against", "unsafe", "tight", "loose", "n/a");
    bool first = true;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *formula = (const char *)sqlite3_column_text(st, 0);
        const char *against = (const char *)sqlite3_column_text(st, 1);
        long long v[4];
        for (int k = 0; k < 4; k++)
            v[k] = (long long)sqlite3_column_int64(st, k + 2);
        if (form == SUMMARY_JSON) {
            printf("%s\n    {\"formula\": ", first ? ",\n  \"verdicts\": [" : ",");
            rip_json_string(stdout, formula ? formula : "");
            printf(", \"judged_against\": ");
            if (against)
                rip_json_string(stdout, against);
            else
                printf("null");
            printf(", \"unsafe\": %lld, \"tight\": %lld, \"loose\": %lld, \"na\": %lld}", v[0], v[1], v[2],
                   v[3]);
        } else if (against) {
            printf("%-16s %-24s %8lld %8lld %8lld %8lld\n", formula, against, v[0], v[1], v[2], v[3]);
        } else {
            printf("%-16s %-24s %s\n", formula, "-", "a reference size (dual buffering), not judged");
        }
        first = false;
    }
    sqlite3_finalize(st);
    if (form == SUMMARY_JSON && !first)
        printf("\n  ]");
    return 0;
}

/* The head of the summary: the database's run and what this call did. */
static void print_head(const char *path, const rip_run_info *run, int64_t layers, const rip_sweep_result *r,
                       double seconds, summary_form form)
{
    if (form == SUMMARY_JSON) {
        printf("{\n  \"db\": ");
        rip_json_string(stdout, path);
        printf(",\n  \"seed\": %lld, \"n_layers\": %lld, \"shard\": [%lld, %lld], \"layers_stored\": %lld,\n"
               "  \"this_run\": {\"evaluated\": %lld, \"already_done\": %lld, \"executed\": %lld, "
               "\"executed_before\": %lld, \"seconds\": %.3f, \"seconds_writing\": %.3f, "
               "\"seconds_waiting_for_evaluation\": %.3f}",
               (long long)run->seed, (long long)run->n_layers, (long long)run->shard_index,
               (long long)run->shard_count, (long long)layers, (long long)r->computed,
               (long long)r->already_done, (long long)r->executed, (long long)r->executed_before, seconds,
               r->seconds_write, r->seconds_eval);
        return;
    }
    printf("sweep: %lld of %lld layers (seed %lld, shard %lld/%lld) in %s\n", (long long)layers,
           (long long)run->n_layers, (long long)run->seed, (long long)run->shard_index,
           (long long)run->shard_count, path);
    /* the writing thread's wall time: writing batch k while the workers
    ** evaluate batch k+1 and later, or waiting for them */
    printf("this run: %lld layers in %.1f s (%.0f layers/s), %lld were already done; of the writer's time,\n"
           "  %.1f s writing to SQLite (evaluation goes on meanwhile) and %.1f s waiting for evaluation\n",
           (long long)r->computed, seconds, seconds > 0 ? (double)r->computed / seconds : 0.0,
           (long long)r->already_done, r->seconds_write, r->seconds_eval);
    if (r->executed > 0 || r->executed_before > 0)
        printf("executed: %lld layers by this run, %lld were already executed\n", (long long)r->executed,
               (long long)r->executed_before);
}

static int print_summary(const char *path, const rip_sweep_result *r, double seconds,
                         const rip_optima_result *opt, int64_t opt_pixels, summary_form form)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char err[RIP_ERR_LEN];
    if (form == SUMMARY_NONE)
        return 0;
    /* rip_sweep_run has just checked and written it: a second full check would cost as much again */
    rip_status s = rip_db_open_read_unchecked(path, &db, err);
    if (s != RIP_OK) {
        fprintf(stderr, "ripsim sweep: %s\n", err);
        return rip_exit_status(s);
    }
    rip_run_info run = {0};
    int64_t layers = 0;
    if (rip_db_read_run(db, &run, err) == 0 &&
        /* every formula's verdicts add up to the layers (checked on open, kept
        ** by each write): a count without a pass over layer_results */
        sqlite3_prepare_v2(db, "SELECT coalesce(sum(n), 0) FROM verdict_counts WHERE ord = 0", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        layers = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    print_head(path, &run, layers, r, seconds, form);
    int rc = print_verdicts(db, form) != 0 ? RIP_EX_IOERR : 0;
    if (rc == 0 && opt_pixels > 0) {
        if (form == SUMMARY_JSON)
            printf(",\n  \"optimum\": {\"max_pixels\": %lld, \"stored\": %lld, \"eligible\": %lld, "
                   "\"added\": %lld}", (long long)opt_pixels, (long long)(opt->before + opt->added),
                   (long long)opt->eligible, (long long)opt->added);
        else
            printf("\noptimum: %lld of %lld layers with at most %lld output pixels (%lld by this run); "
                   "table optima, view optimum_gaps\n", (long long)(opt->before + opt->added),
                   (long long)opt->eligible, (long long)opt_pixels, (long long)opt->added);
    }
    if (rc == 0 && print_executions(db, path, form) != 0)
        rc = RIP_EX_IOERR;
    rip_db_close(db);
    if (rc == 0 && form == SUMMARY_JSON)
        printf("\n}\n");
    else if (rc == 0)
        printf("\nquery it: sqlite3 %s 'select * from verdict_summary'; full report: ripsim report --db %s\n",
               path, path);
    return rc;
}

int rip_cmd_sweep(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    rip_sweep_opts o = {
        .n_layers = RIP_SWEEP_DEFAULT_N, .seed = RIP_SWEEP_DEFAULT_SEED,
        .db_path = NULL, .jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1,
        .shard_index = 0, .shard_count = 1,
    };
    bool quiet = false, json = false; /* the progress line is shown only when stderr is a terminal */
    rip_generator_set gens;
    bool gens_given = false;
    int64_t seed = (int64_t)o.seed, jobs = o.jobs, shard[2] = {0, 1}, opt_pixels = 0;
    const rip_opt opts[] = {
        {.name = "--n", .kind = RIP_OPT_INT, .dest = &o.n_layers, .metavar = "N", .lo = 1, .hi = 1000000000,
         .help = "layers in the sweep (default 10000; 1..1000000000)"},
        {.name = "--seed", .kind = RIP_OPT_INT, .dest = &seed, .metavar = "S", .lo = 0, .hi = INT64_MAX,
         .help = "PCG32 seed (default 20261129); layer i uses stream i"},
        {.name = "--db", .kind = RIP_OPT_STR, .dest = &o.db_path, .metavar = "FILE",
         .help = "database (default " RIP_SWEEP_DEFAULT_DB " in the ripsim tree);\ncreated when missing"},
        {.name = "--jobs", .kind = RIP_OPT_INT, .dest = &jobs, .metavar = "J", .lo = 1, .hi = 64,
         .help = "evaluation threads beside the one that writes; 1: one\nthread in all (default: the number of online CPUs,\nat most 64)"},
        {.name = "--generators", .kind = RIP_OPT_CUSTOM, .dest = &gens, .metavar = "LIST",
         .parse = parse_generators, .given = &gens_given,
         .help = "the categories and weights drawn: NAME[:WEIGHT],... (a name\n"
                 "alone: its own weight; 'paper': the paper's 20 at its\n"
                 "weights, the default); stored in the database, compared\n"
                 "on resume; the names: sqlite3 DB 'select * from generators'\n"
                 "or sweeps/README.md"},
        {.name = "--shard", .kind = RIP_OPT_CUSTOM, .dest = shard, .metavar = "I/K", .parse = parse_shard,
         .help = "run only layers with index % K == I (0 <= I < K), e.g. one\n"
                 "task of a Slurm array; combine shards with 'ripsim merge'"},
        {.name = "--quiet", .kind = RIP_OPT_FLAG, .dest = &quiet, .flag_value = true,
         .help = "print nothing but errors: no progress line (shown only\nwhen stderr is a terminal), no summary"},
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &json, .flag_value = true,
         .help = "the summary as one JSON object on stdout (run, this call's\ncounts and times, verdicts, executions)"},
        {.name = "--no-fsync", .kind = RIP_OPT_FLAG, .dest = &o.no_fsync, .flag_value = true,
         .help = "for a throwaway database on a slow disk: commits are\n"
                 "written but not flushed to the disk, so a killed sweep\n"
                 "still loses nothing, but a machine crash or power cut can\n"
                 "damage the database (default: every commit flushed)"},
        {.name = "--execute", .kind = RIP_OPT_FLAG, .dest = &o.execute, .flag_value = true,
         .help = "also execute every layer with the int8 kernels (in place at\n"
                 "truth and truth - 1 of each rip_* configuration, and dual)"},
        {.name = "--full-bisection", .kind = RIP_OPT_FLAG, .dest = &o.full_bisection, .flag_value = true,
         .help = "find each truth by binary search over [0, N_out] instead of\n"
                 "the one-pass gap confirmed by two runs (same truths, slower)"},
        {.name = "--optimum", .kind = RIP_OPT_INT, .dest = &opt_pixels, .metavar = "P", .lo = 1,
         .hi = RIP_OPTIMUM_MAX_PIXELS,
         .help = "also the traversal-optimal gap of every layer with at most P\n"
                 "output pixels (1..30; 16: milliseconds a layer, 25: seconds)"},
    };
    const char *pos_db = NULL;
    const rip_cmd cmd = {
        .pos = &pos_db, .max_pos = 1,
        .name = "sweep", .synopsis = "[--db FILE | FILE] [--n N] [--seed S] [--jobs J] [--shard I/K] [--generators LIST] [--quiet] [--json] [--no-fsync] [--execute] "
                    "[--full-bisection] [--optimum P]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim sweep --n 2000 --db /tmp/s.db",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if ((rc = rip_args_db(&cmd, &o.db_path, pos_db)) != 0)
        return rc;
    if (quiet && json)
        return rip_args_usage(&cmd, "--quiet and --json do not go together");
    bool show = !quiet;
    summary_form form = quiet ? SUMMARY_NONE : json ? SUMMARY_JSON : SUMMARY_TEXT;
    char dbbuf[4096];
    if (!o.db_path && !(o.db_path = rip_root_path("sweep", "--db", RIP_SWEEP_DEFAULT_DB, dbbuf, sizeof dbbuf)))
        return RIP_EX_USAGE;
    o.seed = (uint64_t)seed;
    o.generators = gens_given ? &gens : NULL;
    o.jobs = (int)jobs;
    o.shard_index = shard[0];
    o.shard_count = shard[1];
    rip_sweep_result r;
    char err[RIP_ERR_LEN];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rip_progress line;
    rip_progress_init(&line, "sweep", "layers", show);
    o.progress = rip_progress_callback(&line);
    rip_status s = run_interruptible(&o, &r, err);
    rip_progress_end(&line);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (s != RIP_OK) {
        fprintf(stderr, "ripsim sweep: %s\n", err);
        return rip_exit_status(s);
    }
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    rip_optima_result opt = {0};
    if (opt_pixels > 0) {
        rip_progress pr;
        rip_progress_init(&pr, "sweep", "optima", show);
        rip_progress_cb cb = rip_progress_callback(&pr);
        s = rip_db_optima_fill(o.db_path, opt_pixels, rip_eval_optimum_row, &cb, &opt, err);
        rip_progress_end(&pr);
        if (s != RIP_OK) {
            fprintf(stderr, "ripsim sweep: %s\n", err);
            return rip_exit_status(s);
        }
    }
    return print_summary(o.db_path, &r, seconds, &opt, opt_pixels, form);
}
