/*
** cmd_sweep.c — `ripsim sweep`: the project's main job.
**
** Parses the options, runs (or resumes) the sweep, and prints the verdict
** summary of the whole database when the sweep is complete.
*/
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "db.h"
#include "sweep.h"

static const char usage_text[] =
    "usage: ripsim sweep [--n N] [--seed S] [--db FILE] [--jobs J] [--shard I/K] [--quiet]\n"
    "\n"
    "Draw N seeded layers from the 20 generator categories of paper Tab. 5, run\n"
    "each under the six execution configurations of the simulator, evaluate every\n"
    "closed form, and write layers, truths and verdicts to an SQLite database.\n"
    "\n"
    "options:\n"
    "  --n N        layers in the sweep (default 10000; 1..1000000000)\n"
    "  --seed S     PCG32 seed (default 20261129); layer i uses stream i\n"
    "  --db FILE    database (default results/sweep.db); created when missing\n"
    "  --jobs J     worker threads (default: the number of online CPUs)\n"
    "  --shard I/K  run only layers with index % K == I (0 <= I < K), e.g. one\n"
    "               task of a Slurm array; combine shards with 'ripsim merge'\n"
    "  --quiet      no progress line (it is shown only when stderr is a terminal)\n"
    "  -h, --help   this help\n"
    "\n"
    "Interrupted (Ctrl-C, kill, even kill -9) and rerun with the same arguments,\n"
    "the sweep resumes and ends with exactly the rows of an uninterrupted run.\n"
    "An existing database is checked read-only first (SQLite quick_check and\n"
    "ripsim's row counts); one that is damaged, or holds another seed, size,\n"
    "shard, generator set, version or schema, is refused and left untouched.\n"
    "Exit status: 0 done, 64 usage, 65 database damaged or of another run or\n"
    "schema, 66 database unreadable, 70 internal error (a layer could not be\n"
    "evaluated), 71 out of memory, 73 cannot create or write the database,\n"
    "74 read or write error (e.g. disk full; committed work is kept), 75 the\n"
    "database is locked by another process (waited 5 s; rerun to resume),\n"
    "130 interrupted (rerun to resume).\n";

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ripsim sweep: %s%s%s%s\n", msg, arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
    return RIP_EX_USAGE;
}

static int print_summary(const char *path, const rip_sweep_result *r, double seconds)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    char err[RIP_ERR_LEN];
    rip_status s = rip_db_open_read(path, &db, err);
    if (s != RIP_OK) {
        fprintf(stderr, "ripsim sweep: %s\n", err);
        return rip_exit_status(s);
    }
    rip_run_info run;
    int64_t layers = 0;
    if (rip_db_read_run(db, &run, err) == 0 &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM layers", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        layers = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    st = NULL;
    printf("sweep: %lld of %lld layers (seed %lld, shard %lld/%lld) in %s\n", (long long)layers,
           (long long)run.n_layers, (long long)run.seed, (long long)run.shard_index,
           (long long)run.shard_count, path);
    printf("this run: %lld layers evaluated in %.1f s (%.0f layers/s; evaluation %.1f s, "
           "SQLite writes %.1f s), %lld were already done\n\n",
           (long long)r->computed, seconds, seconds > 0 ? (double)r->computed / seconds : 0.0,
           r->seconds_eval, r->seconds_write, (long long)r->already_done);
    printf("%-16s %-24s %8s %8s %8s %8s\n", "formula", "judged against", "unsafe", "tight", "loose", "n/a");
    if (sqlite3_prepare_v2(db, "SELECT formula, coalesce(exec_config, '-'), unsafe, tight, loose, na "
                               "FROM verdict_summary", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "ripsim sweep: %s\n", sqlite3_errmsg(db));
        rip_db_close(db);
        return RIP_EX_IOERR;
    }
    while (sqlite3_step(st) == SQLITE_ROW)
        printf("%-16s %-24s %8lld %8lld %8lld %8lld\n", sqlite3_column_text(st, 0),
               sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
               sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5));
    sqlite3_finalize(st);
    rip_db_close(db);
    printf("\nquery it: sqlite3 %s 'select * from verdict_summary'; full report: ripsim report --db %s\n",
           path, path);
    return 0;
}

int rip_cmd_sweep(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    rip_sweep_opts o = {
        .n_layers = RIP_SWEEP_DEFAULT_N, .seed = RIP_SWEEP_DEFAULT_SEED,
        .db_path = RIP_SWEEP_DEFAULT_DB, .jobs = cpus > 0 ? (int)(cpus < 64 ? cpus : 64) : 1,
        .shard_index = 0, .shard_count = 1, .progress = isatty(2) == 1,
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int64_t x;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return RIP_EX_OK;
        } else if (strcmp(a, "--quiet") == 0) {
            o.progress = false;
        } else if (rip_arg_value(argc, argv, &i, "--n", &v)) {
            if (!rip_arg_int(v, 1, 1000000000, &x))
                return usage_error("--n takes a whole number from 1 to 1000000000, not", v ? v : "");
            o.n_layers = x;
        } else if (rip_arg_value(argc, argv, &i, "--seed", &v)) {
            if (!rip_arg_int(v, 0, INT64_MAX, &x))
                return usage_error("--seed takes a whole number from 0 to 2^63-1, not", v ? v : "");
            o.seed = (uint64_t)x;
        } else if (rip_arg_value(argc, argv, &i, "--jobs", &v)) {
            if (!rip_arg_int(v, 1, 64, &x))
                return usage_error("--jobs takes a whole number from 1 to 64, not", v ? v : "");
            o.jobs = (int)x;
        } else if (rip_arg_value(argc, argv, &i, "--db", &v)) {
            if (v == NULL || *v == '\0')
                return usage_error("--db needs a file name", NULL);
            o.db_path = v;
        } else if (rip_arg_value(argc, argv, &i, "--shard", &v)) {
            char ibuf[32], kbuf[32];
            const char *slash = v ? strchr(v, '/') : NULL;
            int64_t si, sk;
            if (!slash || (size_t)(slash - v) >= sizeof ibuf || strlen(slash + 1) >= sizeof kbuf)
                return usage_error("--shard takes I/K with 0 <= I < K, not", v ? v : "");
            memcpy(ibuf, v, (size_t)(slash - v));
            ibuf[slash - v] = '\0';
            strcpy(kbuf, slash + 1);
            if (!rip_arg_int(kbuf, 1, 1000000, &sk) || !rip_arg_int(ibuf, 0, sk - 1, &si))
                return usage_error("--shard takes I/K with 0 <= I < K, not", v);
            o.shard_index = si;
            o.shard_count = sk;
        } else {
            return usage_error(a[0] == '-' ? "unknown option" : "unexpected argument", a);
        }
    }
    rip_sweep_result r;
    char err[RIP_ERR_LEN];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rip_status s = rip_sweep_run(&o, &r, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (s != RIP_OK) {
        fprintf(stderr, "ripsim sweep: %s\n", err);
        return rip_exit_status(s);
    }
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return print_summary(o.db_path, &r, seconds);
}
