/*
** cmd_claims.c — `ripsim claims`: the claims registry checked on the sweep
** database, the real layer tables and the planner (claims.h), written to
** results/claims.md, with the sweep's figures (figures.h) beside it.
** Every file is written under a temporary name and renamed when complete.
*/
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "claims.h"
#include "cli.h"
#include "db.h"
#include "figures.h"
#include "out.h"
#include "root.h"

static const char about[] =
    "Check every claim of the paper that the sweep database, the real layer\n"
    "tables (sweeps/layers) or the planner (the eleven MCUNet models) can\n"
    "check: each a named SQL query with its verdict (agrees, differs,\n"
    "contradicted, not checked) and its evidence, the smallest counterexample\n"
    "of a contradicted claim with its SPEC.  Writes results/claims.md and the\n"
    "figures fig_verdicts.svg, fig_margins.svg and fig_rip_hb.svg beside it.\n";

static const char notes[] =
    "The output is deterministic: the same database and tables give the same\n"
    "bytes.  The database is opened read-only and read as it was checked: a\n"
    "copy of it in memory, so a sweep writing it meanwhile is not held up.\n"
    "Figures go to --fig-dir (default: the folder of --out; none with\n"
    "--no-figures or --out -).\n"
    RIP_DB_CHECK_HELP;

static const rip_exit_doc exits[] = {
    {0, "written"},
    {64, "bad command line (also: --out is the database)"},
    {65, "not a ripsim database, damaged, wrong schema version, malformed layer table or graph"},
    {66, "database, layer tables or model graphs missing"},
    {69, "the milp module is missing (the planner claims need it)"},
    {70, "internal error"},
    {71, "out of memory"},
    {73, "an output cannot be created"},
    {74, "an output cannot be written"},
    {75, "the database is locked; retry later"},
};

static int write_figure(sqlite3 *db, rip_figure which, const char *dir)
{
    char path[4096], err[RIP_ERR_LEN] = "";
    snprintf(path, sizeof path, "%s/%s", dir, rip_figure_names[which]);
    rip_out o;
    int rc = rip_out_open(&o, "claims", path);
    if (rc != 0)
        return rc;
    rip_status s = rip_figure_write(db, which, o.f, err);
    if (s != RIP_OK) {
        rip_out_abort(&o);
        fprintf(stderr, "ripsim claims: %s\n", err);
        return rip_exit_status(s);
    }
    return rip_out_commit(&o);
}

int rip_cmd_claims(int argc, char **argv)
{
    const char *db_path = NULL, *out_path = NULL, *layers = NULL, *models = NULL, *fig_dir = NULL;
    bool no_figures = false;
    const rip_opt opts[] = {
        {.name = "--db", .kind = RIP_OPT_STR, .dest = &db_path, .metavar = "FILE",
         .help = "sweep database (default results/sweep.db in the ripsim tree)"},
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &out_path, .metavar = "FILE",
         .help = "where to write (default results/claims.md in the ripsim tree;\n'-': stdout, no figures)"},
        {.name = "--layers-dir", .kind = RIP_OPT_STR, .dest = &layers, .metavar = "DIR",
         .help = "the real layer tables (default sweeps/layers)"},
        {.name = "--models-dir", .kind = RIP_OPT_STR, .dest = &models, .metavar = "DIR",
         .help = "the model graphs (default firmware/models)"},
        {.name = "--fig-dir", .kind = RIP_OPT_STR, .dest = &fig_dir, .metavar = "DIR",
         .help = "where the figures go (default: the folder of --out)"},
        {.name = "--no-figures", .kind = RIP_OPT_FLAG, .dest = &no_figures, .flag_value = true,
         .help = "write claims.md only"},
    };
    const rip_cmd cmd = {
        .name = "claims", .synopsis = "[--db FILE] [--out FILE] [--layers-dir DIR] [--models-dir DIR] [--fig-dir DIR] "
                                      "[--no-figures]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim claims --db /tmp/sweep.db --out /tmp/claims.md",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    char dbbuf[4096], outbuf[4096], lbuf[4096], mbuf[4096], fbuf[4096];
    if ((!db_path && !(db_path = rip_root_path("claims", "--db", "results/sweep.db", dbbuf, sizeof dbbuf))) ||
        (!out_path && !(out_path = rip_root_path("claims", "--out", "results/claims.md", outbuf, sizeof outbuf))) ||
        (!layers && !(layers = rip_root_path("claims", "--layers-dir", "sweeps/layers", lbuf, sizeof lbuf))) ||
        (!models && !(models = rip_root_path("claims", "--models-dir", "firmware/models", mbuf, sizeof mbuf))))
        return RIP_EX_USAGE;
    if ((rc = rip_out_refuse_input("claims", out_path, db_path, "the database being read (--db)")) != 0)
        return rc;
    bool figures = !no_figures && strcmp(out_path, "-") != 0;
    if (figures && !fig_dir) {
        const char *slash = strrchr(out_path, '/');
        if (slash)
            snprintf(fbuf, sizeof fbuf, "%.*s", (int)(slash - out_path), out_path);
        else
            snprintf(fbuf, sizeof fbuf, ".");
        fig_dir = fbuf[0] ? fbuf : "/";
    }

    sqlite3 *db = NULL, *aux = NULL;
    char err[RIP_ERR_LEN] = "";
    /* the checked state of the database, copied: the seconds of the queries hold no lock on the file */
    int status = rip_exit_status(rip_db_open_snapshot(db_path, &db, err));
    if (status != 0) {
        fprintf(stderr, "ripsim claims: %s\n", err);
        goto done;
    }
    if (sqlite3_open_v2(":memory:", &aux, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        fprintf(stderr, "ripsim claims: out of memory\n");
        status = RIP_EX_OSERR;
        goto done;
    }
    if ((status = rip_exit_status(rip_claims_build_aux(aux, layers, models, err))) != 0 ||
        (status = rip_exit_status(rip_claims_sweep_views(db, err))) != 0 ||
        (status = rip_exit_status(rip_claims_build_optima(aux, db, RIP_CLAIMS_OPT_PIXELS, err))) != 0) {
        fprintf(stderr, "ripsim claims: %s\n", err);
        goto done;
    }
    static const char *const links[RIP_FIG_COUNT + 1] = {"fig_verdicts.svg", "fig_margins.svg", "fig_rip_hb.svg",
                                                         NULL};
    rip_out o;
    if ((status = rip_out_open(&o, "claims", out_path)) != 0)
        goto done;
    rip_status s = rip_claims_write(db, aux, figures ? links : NULL, o.f, err);
    if (s != RIP_OK) {
        rip_out_abort(&o);
        fprintf(stderr, "ripsim claims: %s\n", err);
        status = rip_exit_status(s);
        goto done;
    }
    if ((status = rip_out_commit(&o)) != 0)
        goto done;
    for (int f = 0; figures && f < RIP_FIG_COUNT && status == 0; f++)
        status = write_figure(db, (rip_figure)f, fig_dir);
done:
    if (aux)
        sqlite3_close(aux);
    rip_db_close(db);
    return status;
}
