/*
** cmd_migrate.c — `ripsim migrate --db FILE`: convert a sweep database of
** schema version 1, 2 or 3 to the current version (4), in place.
**
** The work is rip_db_migrate (src/db/db_migrate.c): the database is checked
** read-only, converted into a temporary file beside it, compared row for
** row, and renamed over it; a kill or failure leaves it as it was.
*/
#include <stdio.h>
#include <stdlib.h>
#ifdef RIPSIM_TEST_HOOKS
#include <signal.h>
#endif

#include "args.h"
#include "cli.h"
#include "db.h"
#include "stored_rows.h"
#include "progress_line.h"

static const char about[] =
    "Convert a sweep database written by an older ripsim (schema version 1 or 2:\n"
    "a row per truth and per verdict; version 3: a row per layer, six\n"
    "configurations; version 4: no provenance, SPEC or column dictionary) to\n"
    "schema version 5 (a row per layer, seven configurations; the old tables\n"
    "stay readable as views of the same names, so saved queries run unchanged).\n"
    "From versions 1 to 3, the truth of the seventh, herringbone_pruned, and the\n"
    "read input it stores are simulated for every stored layer (fast engine);\n"
    "version 4's rows (its optima too) are copied as they are.  The source\n"
    "commit and generator fingerprint an older version never recorded are\n"
    "stored as 'unrecorded' (such a run resumes under any generators).  The\n"
    "database is checked first, converted under a temporary name beside it,\n"
    "every row compared with the original, then renamed over it: interrupted at\n"
    "any point, it is left as it was.  A database already at version 5 is left\n"
    "untouched.\n";

static const char notes[] =
    "--db may be a symbolic link: the file it names is converted in its folder,\n"
    "and keeps its owner, group and mode (as root, another user's file stays\n"
    "theirs; a user who cannot give it back its owner is refused, 73).\n"
    RIP_DB_CHECK_HELP;

static const rip_exit_doc exits[] = {
    {0, "converted, or already at the current version"},
    {64, "bad command line"},
    {65, "the database is damaged, not a ripsim database, of an unknown version, or its rows do not convert (a layer whose geometry does not derive)"},
    {66, "the database is missing or unreadable"},
    {70, "internal error"},
    {71, "out of memory"},
    {73, "the database or a temporary file beside it cannot be written, or given the database's owner and mode"},
    {74, "a read or write failed (e.g. disk full); the database is as it was"},
    {75, "the database is locked by another process (waited 5 s; retry later)"},
};

/*
** The migration's stages to the progress line.  Test hook (ripsim-testhooks
** only, RIPSIM_TEST_HOOKS): RIPSIM_TEST_MIGRATE_KILL_AT=K raises SIGKILL when
** stage K (0..4, db.h) is reported, so a test stops the migration at each
** point it can be killed without racing a clock.
*/
static void on_stage(void *ctx, int64_t done, int64_t total, const char *what)
{
#ifdef RIPSIM_TEST_HOOKS
    const char *k = getenv("RIPSIM_TEST_MIGRATE_KILL_AT");
    if (k && *k && strtoll(k, NULL, 10) == done)
        raise(SIGKILL);
#endif
    rip_progress_update(ctx, done, total, what);
}

int rip_cmd_migrate(int argc, char **argv)
{
    const char *path = NULL;
    const rip_opt opts[] = {
        {.name = "--db", .kind = RIP_OPT_STR, .dest = &path, .metavar = "FILE", .help = "the database to convert"},
    };
    const char *pos_db = NULL;
    const rip_cmd cmd = {
        .pos = &pos_db, .max_pos = 1,
        .name = "migrate", .synopsis = "--db FILE | FILE", .about = about, .opts = opts, .n_opts = 1, .notes = notes,
        .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim migrate --db results/sweep.db",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if ((rc = rip_args_db(&cmd, &path, pos_db)) != 0)
        return rc;
    if (!path) {
        fprintf(stderr, "ripsim migrate: needs --db FILE\n");
        return RIP_EX_USAGE;
    }
    char err[RIP_ERR_LEN];
    int64_t from = 0, layers = 0;
    rip_progress line;
    rip_progress_init(&line, "migrate", "stages", true);
    rip_progress_cb cb = {.fn = on_stage, .ctx = &line};
    rip_status s = rip_db_migrate(path, &from, &layers, rip_eval_pruned_row, &cb, err);
    rip_progress_end(&line);
    if (s != RIP_OK) {
        fprintf(stderr, "ripsim migrate: %s\n", err);
        return rip_exit_status(s);
    }
    if (from == RIP_DB_SCHEMA_VERSION)
        printf("%s is already at schema version %d; nothing to do\n", path, RIP_DB_SCHEMA_VERSION);
    else
        printf("%s: schema version %lld -> %d, %lld layers converted\n", path, (long long)from,
               RIP_DB_SCHEMA_VERSION, (long long)layers);
    return 0;
}
