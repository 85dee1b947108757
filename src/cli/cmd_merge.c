/*
** cmd_merge.c — `ripsim merge OUT.db SHARD.db...`: combine sweep shards.
**
** Every input must be a ripsim database of the same seed, size, generator
** set and ripsim version (any shard split); all are checked before OUT is
** created or written.  OUT then holds the run as one machine would have
** written it: shard 0/1, rows keyed by layer index.  OUT may already exist
** (a merge can be done in steps, or into a partly finished run); a missing
** layer can be filled afterwards by `ripsim sweep` on OUT with the run's
** --seed and --n.
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "out.h"
#include "db.h"
#include "sweep.h"

static const char about[] =
    "Combine the databases of 'ripsim sweep --shard I/K' runs into OUT.db, whose\n"
    "rows then equal a single-machine run of the same --seed and --n.  All inputs\n"
    "must come from the same seed, size and ripsim version; they are checked\n"
    "before OUT.db is touched.  OUT.db is created when missing; an existing one\n"
    "must hold the same run.  Layers no shard has are reported; 'ripsim sweep\n"
    "--db OUT.db --seed S --n N' computes them.\n";

static const rip_exit_doc exits[] = {
    {0, "merged"},
    {64, "bad command line (also: OUT.db is one of the inputs)"},
    {65, "inputs of different runs or schemas, or rows that differ"},
    {66, "an input is missing or unreadable"},
    {73, "OUT.db cannot be created"},
    {74, "a read or write of a database or of the output failed"},
};

static bool same_run(const rip_run_info *a, const rip_run_info *b)
{
    return a->seed == b->seed && a->n_layers == b->n_layers &&
           strcmp(a->generator_set, b->generator_set) == 0 && strcmp(a->version, b->version) == 0;
}

static int64_t count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Copy one attached shard "s" into main in one transaction. */
static int copy_shard(sqlite3 *db, const char *path, char err[RIP_ERR_LEN])
{
    static const char *const tables[] = {"layers", "truths", "verdicts"};
    char sql[512], why[RIP_ERR_LEN];
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "ATTACH ? AS s", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "%s: cannot attach (%s)", path, sqlite3_errmsg(db));
        return RIP_EX_IOERR;
    }
    int status = 0;
    if (rip_db_exec(db, "BEGIN IMMEDIATE", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%s", why);
        status = RIP_EX_IOERR;
        goto detach;
    }
    for (size_t t = 0; t < 3; t++) {
        /* rows present on both sides must be identical: the same run computes
        ** the same rows, so a difference means a corrupted or foreign input */
        snprintf(sql, sizeof sql,
                 "SELECT (SELECT count(*) FROM s.%s JOIN main.%s USING (run_id, layer_idx%s))"
                 " - (SELECT count(*) FROM (SELECT * FROM s.%s INTERSECT SELECT * FROM main.%s))",
                 tables[t], tables[t], t == 0 ? "" : t == 1 ? ", exec_config" : ", formula",
                 tables[t], tables[t]);
        int64_t differ = count(db, sql);
        if (differ != 0) {
            snprintf(err, RIP_ERR_LEN, "%s: %lld %s rows differ from rows already in the output",
                     path, (long long)differ, tables[t]);
            status = RIP_EX_DATAERR;
            break;
        }
        snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO main.%s SELECT * FROM s.%s", tables[t], tables[t]);
        if (rip_db_exec(db, sql, why) != 0) {
            snprintf(err, RIP_ERR_LEN, "%.100s: %.150s", path, why);
            status = RIP_EX_IOERR;
            break;
        }
    }
    if (status == 0 && rip_db_exec(db, "COMMIT", why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%s", why);
        status = RIP_EX_IOERR;
    }
    if (status != 0)
        rip_db_exec(db, "ROLLBACK", why);
detach:
    rip_db_exec(db, "DETACH s", why);
    return status;
}

int rip_cmd_merge(int argc, char **argv)
{
    const char *paths[256];
    size_t n_paths = 0;
    const rip_cmd cmd = {
        .name = "merge", .synopsis = "OUT.db SHARD.db [SHARD.db...]", .about = about, .pos = paths,
        .min_pos = 2, .max_pos = 256, .n_pos = &n_paths, .missing = "needs OUT.db and at least one SHARD.db",
        .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim merge results/sweep.db shard-*.db",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    int n = (int)n_paths;
    const char *out = paths[0];
    char err[RIP_ERR_LEN];
    rip_run_info run = {0}, other;
    int status = 0;

    /* check every input before touching the output */
    for (int i = 1; i < n; i++) {
        sqlite3 *s = NULL;
        if (strcmp(paths[i], out) == 0 || rip_same_file(paths[i], out)) {
            fprintf(stderr, "ripsim merge: %s is both output and input\n", out);
            return RIP_EX_USAGE;
        }
        if ((status = rip_db_open(paths[i], RIP_DB_READ, &s, NULL, err)) != 0) {
            fprintf(stderr, "ripsim merge: %s\n", err);
            return status;
        }
        int found = rip_db_read_run(s, i == 1 ? &run : &other, err);
        rip_db_close(s);
        if (found != 0) {
            fprintf(stderr, "ripsim merge: %s\n", found < 0 ? err : "an input holds no run");
            return RIP_EX_DATAERR;
        }
        if (i > 1 && !same_run(&run, &other)) {
            fprintf(stderr, "ripsim merge: %s (seed %lld, n %lld, ripsim %s) is not the run of %s "
                            "(seed %lld, n %lld, ripsim %s)\n", paths[i], (long long)other.seed,
                    (long long)other.n_layers, other.version, paths[1], (long long)run.seed,
                    (long long)run.n_layers, run.version);
            return RIP_EX_DATAERR;
        }
    }
    sqlite3 *db = NULL;
    bool created = false;
    if ((status = rip_db_open(out, RIP_DB_CREATE, &db, &created, err)) != 0) {
        fprintf(stderr, "ripsim merge: %s\n", err);
        return status;
    }
    run.shard_index = 0;
    run.shard_count = 1;
    if (!created) {
        int found = rip_db_read_run(db, &other, err);
        if (found < 0 || (found == 0 && (!same_run(&run, &other) || other.shard_count != 1))) {
            fprintf(stderr, "ripsim merge: %s already holds another run; choose a new output\n", out);
            rip_db_close(db);
            return RIP_EX_DATAERR;
        }
        created = found == 1;
    }
    if (rip_db_tune_for_writing(db, err) != 0 || (created && rip_db_write_run(db, &run, err) != 0)) {
        fprintf(stderr, "ripsim merge: %s\n", err);
        rip_db_close(db);
        return RIP_EX_IOERR;
    }
    for (int i = 1; i < n && status == 0; i++)
        status = copy_shard(db, paths[i], err);
    if (status != 0) {
        fprintf(stderr, "ripsim merge: %s\n", err);
        rip_db_close(db);
        return status;
    }
    int64_t have = count(db, "SELECT count(*) FROM layers");
    char detail[128];
    snprintf(detail, sizeof detail, "%d inputs, %lld of %lld layers", n - 1, (long long)have,
             (long long)run.n_layers);
    rip_db_log(db, "merge", detail);
    rip_db_close(db);
    printf("merged %d database%s into %s: %lld of %lld layers (seed %lld)\n", n - 1, n > 2 ? "s" : "",
           out, (long long)have, (long long)run.n_layers, (long long)run.seed);
    if (have < run.n_layers)
        printf("%lld layers are missing; 'ripsim sweep --db %s --seed %lld --n %lld' computes them\n",
               (long long)(run.n_layers - have), out, (long long)run.seed, (long long)run.n_layers);
    return 0;
}
