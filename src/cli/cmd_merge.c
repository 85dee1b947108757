/*
** cmd_merge.c — `ripsim merge OUT.db SHARD.db...`: combine sweep shards.
**
** The work is rip_db_merge (src/db/db_merge.c): every input is checked
** read-only first, OUT is built under a temporary name and renamed into
** place at the end.  OUT then holds the run as one machine would have
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
    "must come from the same seed, size, generator set and generator fingerprint\n"
    "(what the categories draw; another ripsim version or commit is fine); every\n"
    "input (and an existing OUT.db) is checked read-only before anything is\n"
    "written, and OUT.db keeps every input's run_log.  OUT.db is built under a temporary name beside it and\n"
    "renamed into place at the end, so a failure leaves OUT.db as it was.  An\n"
    "existing OUT.db must hold the same run.  Layers no shard has are reported;\n"
    "'ripsim sweep --db OUT.db --seed S --n N' computes them.\n";

static const char notes[] =
    "Rows that two databases hold differently for the same layer (one of them\n"
    "altered in a way the check cannot see) are refused, naming both files; a\n"
    "write that fails on OUT.db (a full disk) names OUT.db.  An OUT.db that is\n"
    "a symbolic link is written through it, keeping the owner and mode of the\n"
    "file it names.\n"
    RIP_DB_CHECK_HELP;

static const rip_exit_doc exits[] = {
    {0, "merged"},
    {64, "bad command line (also: OUT.db is one of the inputs)"},
    {65, "an input (or OUT.db) is damaged, not a ripsim database, of another run or schema, or holds rows that differ from another input's"},
    {66, "an input is missing or unreadable"},
    {70, "internal error"},
    {71, "out of memory"},
    {73, "OUT.db cannot be created"},
    {74, "a read or write of a database or of the output failed"},
    {75, "a database is locked by another process (waited 5 s; retry later)"},
};

int rip_cmd_merge(int argc, char **argv)
{
    const char *paths[256];
    size_t n_paths = 0;
    const rip_cmd cmd = {
        .name = "merge", .synopsis = "OUT.db SHARD.db [SHARD.db...]", .about = about, .pos = paths,
        .min_pos = 2, .max_pos = 256, .n_pos = &n_paths, .missing = "needs OUT.db and at least one SHARD.db",
        .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim merge results/sweep.db shard-*.db",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    int n = (int)n_paths;
    for (int i = 1; i < n; i++) {
        if (strcmp(paths[i], paths[0]) == 0 || rip_same_file(paths[i], paths[0])) {
            fprintf(stderr, "ripsim merge: %s is both output and input\n", paths[0]);
            return RIP_EX_USAGE;
        }
    }
    rip_merge_result res;
    char err[RIP_ERR_LEN];
    rip_status st = rip_db_merge(paths[0], paths + 1, n - 1, &res, err);
    if (st != RIP_OK) {
        fprintf(stderr, "ripsim merge: %s\n", err);
        return rip_exit_status(st);
    }
    printf("merged %d database%s into %s: %lld of %lld layers (seed %lld)\n", n - 1, n > 2 ? "s" : "",
           paths[0], (long long)res.layers, (long long)res.run.n_layers, (long long)res.run.seed);
    if (res.layers < res.run.n_layers)
        printf("%lld layers are missing; 'ripsim sweep --db %s --seed %lld --n %lld' computes them\n",
               (long long)(res.run.n_layers - res.layers), paths[0], (long long)res.run.seed,
               (long long)res.run.n_layers);
    return 0;
}
