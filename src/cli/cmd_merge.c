/*
** cmd_merge.c — `ripsim merge --out OUT.db SHARD.db...`: combine sweep shards.
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
#include "json_out.h"
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
    const char *paths[257];
    const char *out = NULL;
    size_t n_paths = 0;
    bool json = false;
    const rip_opt opts[] = {
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &out, .metavar = "OUT.db",
         .help = "the merged database (without it, the first word is OUT.db)"},
        {.name = "--json", .kind = RIP_OPT_FLAG, .dest = &json, .flag_value = true,
         .help = "the result as one JSON object on stdout"},
    };
    const rip_cmd cmd = {
        .name = "merge", .synopsis = "--out OUT.db SHARD.db [SHARD.db...]\nOUT.db SHARD.db [SHARD.db...]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = paths + 1, .min_pos = 1,
        .max_pos = 256, .n_pos = &n_paths, .missing = "needs OUT.db (--out) and at least one SHARD.db",
        .notes = notes, .exits = exits, .n_exits = sizeof exits / sizeof exits[0],
        .example = "ripsim merge -o results/sweep.db shard-*.db",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    const char **in = paths + 1;
    int n_in = (int)n_paths;
    if (!out) { /* the positional form: OUT.db first */
        if (n_in < 2)
            return rip_args_usage(&cmd, "needs OUT.db (--out) and at least one SHARD.db");
        out = in[0];
        in++;
        n_in--;
    }
    for (int i = 0; i < n_in; i++) {
        if (strcmp(in[i], out) == 0 || rip_same_file(in[i], out)) {
            fprintf(stderr, "ripsim merge: %s is both output and input\n", out);
            return RIP_EX_USAGE;
        }
    }
    rip_merge_result res;
    char err[RIP_ERR_LEN];
    rip_status st = rip_db_merge(out, in, n_in, &res, err);
    if (st != RIP_OK) {
        fprintf(stderr, "ripsim merge: %s\n", err);
        return rip_exit_status(st);
    }
    long long missing = (long long)(res.run.n_layers - res.layers);
    if (json) {
        printf("{\"out\": ");
        rip_json_string(stdout, out);
        printf(", \"inputs\": %d, \"layers\": %lld, \"n_layers\": %lld, \"missing\": %lld, \"seed\": %lld}\n",
               n_in, (long long)res.layers, (long long)res.run.n_layers, missing, (long long)res.run.seed);
        return 0;
    }
    printf("merged %d database%s into %s: %lld of %lld layers (seed %lld)\n", n_in, n_in > 1 ? "s" : "", out,
           (long long)res.layers, (long long)res.run.n_layers, (long long)res.run.seed);
    if (missing > 0)
        printf("%lld layers are missing; 'ripsim sweep --db %s --seed %lld --n %lld' computes them\n", missing, out,
               (long long)res.run.seed, (long long)res.run.n_layers);
    return 0;
}
