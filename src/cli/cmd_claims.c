/*
** cmd_claims.c — `ripsim claims`: the claims registry checked on the sweep
** database, the real layer tables and the planner (claims.h), written to
** results/claims.md, with the sweep's figures (figures.h) beside it or in
** --fig-dir.  The four files are one output set (out_set.h): staged before
** the work, so a missing folder fails first, and replaced together.
*/
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "claims.h"
#include "cli.h"
#include "db.h"
#include "figures.h"
#include "out.h"
#include "out_set.h"
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
    "temporary copy of it (on disk, in the temporary directory, removed at the\n"
    "end), so a sweep writing it meanwhile is not held up and memory stays\n"
    "flat however large the sweep.  Each statement about every layer of a set\n"
    "is judged on the sweep, the public layer tables and the Tab. 6 selection\n"
    "alike; its verdict is the strictest.\n"
    "Figures go to --fig-dir (default: the folder of --out; none with\n"
    "--no-figures or --out -), linked from claims.md by relative paths.\n"
    "claims.md and its figures are replaced together, once all are written;\n"
    "a folder missing fails before any work.\n"
    RIP_DB_CHECK_HELP;

static const rip_exit_doc exits[] = {
    {0, "written"},
    {64, "bad command line (also: --out is the database)"},
    {65, "not a ripsim database, damaged, wrong schema version, malformed layer table or graph"},
    {66, "database, layer tables or model graphs missing"},
    {69, "the milp module is missing (the planner claims need it)"},
    {70, "internal error"},
    {71, "out of memory, or milp's CBC solver process failed (no claim is judged on a failed solve)"},
    {73, "an output cannot be created"},
    {74, "an output cannot be written"},
    {75, "the database is locked; retry later"},
};

/* Append c to buf (n bytes, *len used), percent-encoded unless it is a
** letter, digit, one of -._~ or '/'.  false when buf is full. */
static bool url_put(char *buf, size_t n, size_t *len, char c)
{
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c);
    int k = snprintf(buf + *len, n - *len, plain ? "%c" : "%%%02X", plain ? c : (unsigned char)c);
    if (k < 0 || (size_t)k >= n - *len)
        return false;
    *len += (size_t)k;
    return true;
}

/*
** The prefix of the figure links: the relative URL path from the folder
** of the file text (claims.md as it will be placed) to the folder figs,
** ending in '/', or "" when they are one folder.  Both folders exist (the
** outputs are staged), so both are compared as real paths: another
** spelling or a symbolic link of the same folder is the same folder.  A
** space or a parenthesis would end a Markdown link: every byte but
** letters, digits and -._~/ is percent-encoded.  0, or 73 after the
** message.
*/
static int fig_prefix(const char *text, const char *figs, char *buf, size_t n)
{
    char dir[PATH_MAX], from[PATH_MAX + 1], to[PATH_MAX + 1];
    const char *slash = strrchr(text, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - text) + (slash == text) : 1, slash ? text : ".");
    if (!realpath(dir, from) || !realpath(figs, to)) {
        fprintf(stderr, "ripsim claims: cannot link the figures in %s from %s\n", figs, text);
        return RIP_EX_CANTCREAT;
    }
    /* both end in '/', so the common prefix ending in '/' is the common folder */
    if (strcmp(from, "/") != 0)
        strcat(from, "/");
    if (strcmp(to, "/") != 0)
        strcat(to, "/");
    size_t common = 0;
    for (size_t i = 0; from[i] && from[i] == to[i]; i++)
        if (from[i] == '/')
            common = i + 1;
    size_t len = 0;
    bool ok = true;
    buf[0] = '\0';
    for (const char *c = from + common; *c && ok; c++)
        if (*c == '/')
            ok = url_put(buf, n, &len, '.') && url_put(buf, n, &len, '.') && url_put(buf, n, &len, '/');
    for (const char *c = to + common; *c && ok; c++)
        ok = url_put(buf, n, &len, *c);
    if (!ok) {
        fprintf(stderr, "ripsim claims: the path from %s to %s is too long\n", text, figs);
        return RIP_EX_CANTCREAT;
    }
    return 0;
}

/* The command line of `ripsim claims`, with the buffers of its default paths. */
typedef struct claims_args {
    const char *db_path, *out_path, *layers, *models, *fig_dir;
    bool no_figures, figures;   /* figures: written (not --no-figures, not --out -) */
    char dbbuf[4096], outbuf[4096], lbuf[4096], mbuf[4096], fbuf[4096];
} claims_args;

/* Parse the options into a; rip_args_parse's result (RIP_ARGS_CONTINUE to go on). */
static int parse_args(int argc, char **argv, claims_args *a)
{
    const rip_opt opts[] = {
        {.name = "--db", .kind = RIP_OPT_STR, .dest = &a->db_path, .metavar = "FILE",
         .help = "sweep database (default results/sweep.db in the ripsim tree)"},
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &a->out_path, .metavar = "FILE",
         .help = "where to write (default results/claims.md in the ripsim tree;\n'-': stdout, no figures)"},
        {.name = "--layers-dir", .kind = RIP_OPT_STR, .dest = &a->layers, .metavar = "DIR",
         .help = "the real layer tables (default sweeps/layers)"},
        {.name = "--models-dir", .kind = RIP_OPT_STR, .dest = &a->models, .metavar = "DIR",
         .help = "the model graphs (default firmware/models)"},
        {.name = "--fig-dir", .kind = RIP_OPT_STR, .dest = &a->fig_dir, .metavar = "DIR",
         .help = "where the figures go (default: the folder of --out)"},
        {.name = "--no-figures", .kind = RIP_OPT_FLAG, .dest = &a->no_figures, .flag_value = true,
         .help = "write claims.md only"},
    };
    const char *pos_db = NULL;
    const rip_cmd cmd = {
        .pos = &pos_db, .max_pos = 1,
        .name = "claims", .synopsis = "[--db FILE | FILE] [--out FILE] [--layers-dir DIR] [--models-dir DIR] [--fig-dir DIR] "
                                      "[--no-figures]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim claims --db /tmp/sweep.db --out /tmp/claims.md",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc == RIP_ARGS_CONTINUE && rip_args_db(&cmd, &a->db_path, pos_db) != 0)
        rc = RIP_EX_USAGE;
    return rc;
}

/* The default paths in the ripsim tree, --out not the database, and the
** figures' folder.  0, or the exit status after the message. */
static int default_paths(claims_args *a)
{
    int rc;
    if ((!a->db_path &&
         !(a->db_path = rip_root_path("claims", "--db", "results/sweep.db", a->dbbuf, sizeof a->dbbuf))) ||
        (!a->out_path &&
         !(a->out_path = rip_root_path("claims", "--out", "results/claims.md", a->outbuf, sizeof a->outbuf))) ||
        (!a->layers &&
         !(a->layers = rip_root_path("claims", "--layers-dir", "sweeps/layers", a->lbuf, sizeof a->lbuf))) ||
        (!a->models &&
         !(a->models = rip_root_path("claims", "--models-dir", "firmware/models", a->mbuf, sizeof a->mbuf))))
        return RIP_EX_USAGE;
    if ((rc = rip_out_refuse_input("claims", a->out_path, a->db_path, "the database being read (--db)")) != 0)
        return rc;
    a->figures = !a->no_figures && strcmp(a->out_path, "-") != 0;
    if (a->figures && !a->fig_dir) {
        const char *slash = strrchr(a->out_path, '/');
        if (slash)
            snprintf(a->fbuf, sizeof a->fbuf, "%.*s", (int)(slash - a->out_path), a->out_path);
        else
            snprintf(a->fbuf, sizeof a->fbuf, ".");
        a->fig_dir = a->fbuf[0] ? a->fbuf : "/";
    }
    return 0;
}

/* Stage every output before the work: the figures, then claims.md, which
** links them (the last renamed), and the links' prefix.  0, or the exit
** status after the message. */
static int stage_outputs(const claims_args *a, rip_out_set *set, rip_out_item *figs[RIP_FIG_COUNT],
                         rip_out_item **text, char *prefix, size_t n)
{
    int rc;
    for (int f = 0; a->figures && f < RIP_FIG_COUNT; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", a->fig_dir, rip_figure_names[f]);
        if ((rc = rip_out_set_file(set, path, &figs[f])) != 0)
            return rc;
    }
    if ((rc = rip_out_set_file(set, a->out_path, text)) != 0)
        return rc;
    if (a->figures && (rc = fig_prefix((*text)->final ? (*text)->final : a->out_path, a->fig_dir, prefix, n)) != 0) {
        rip_out_set_abort(set);
        return rc;
    }
    return 0;
}

/* Open the database (*db) and the aux tables (*aux, the caller closes both),
** check the claims and write claims.md and the figures.  The exit status,
** after the message. */
static int check_and_write(const claims_args *a, sqlite3 **db, sqlite3 **aux, rip_out_item *figs[RIP_FIG_COUNT],
                           rip_out_item *text, const char *prefix)
{
    char err[RIP_ERR_LEN] = "";
    /* the checked state of the database, copied: the seconds of the queries hold no lock on the file */
    int status = rip_exit_status(rip_db_open_snapshot(a->db_path, db, err));
    if (status != 0) {
        fprintf(stderr, "ripsim claims: %s\n", err);
        return status;
    }
    /* the aux tables in an anonymous temporary database, not in memory: its
    ** table of traversal optima grows with the sweep (174,194 rows on a
    ** 1,000,000-layer one) */
    if (sqlite3_open_v2("", aux, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        fprintf(stderr, "ripsim claims: out of memory\n");
        return RIP_EX_OSERR;
    }
    if ((status = rip_exit_status(rip_claims_build_aux(*aux, a->layers, a->models, err))) != 0 ||
        (status = rip_exit_status(rip_claims_sweep_views(*db, err))) != 0 ||
        (status = rip_exit_status(rip_claims_build_optima(*aux, *db, RIP_CLAIMS_OPT_PIXELS, err))) != 0) {
        fprintf(stderr, "ripsim claims: %s\n", err);
        return status;
    }
    const char *links[RIP_FIG_COUNT + 1] = {NULL};
    for (int f = 0; f < RIP_FIG_COUNT; f++)
        links[f] = rip_figure_names[f];
    rip_status s = rip_claims_write(*db, *aux, a->figures ? links : NULL, prefix, text->f, err);
    for (int f = 0; a->figures && f < RIP_FIG_COUNT && s == RIP_OK; f++)
        s = rip_figure_write(*db, (rip_figure)f, figs[f]->f, err);
    if (s != RIP_OK) {
        fprintf(stderr, "ripsim claims: %s\n", err);
        return rip_exit_status(s);
    }
    return 0;
}

/* What was written, one file a line: on stdout, or on stderr when the
** claims themselves went to stdout (--out -). */
static void say_written(const claims_args *a)
{
    bool to_stdout = strcmp(a->out_path, "-") == 0;
    FILE *f = to_stdout ? stderr : stdout;
    fprintf(f, "claims: wrote %s\n", to_stdout ? "the claims to stdout" : a->out_path);
    for (int k = 0; a->figures && k < RIP_FIG_COUNT; k++)
        fprintf(f, "claims: wrote %s/%s\n", a->fig_dir, rip_figure_names[k]);
}

/* The command (cli.h).  One cleanup path once the outputs are staged: the set, aux and the database. */
int rip_cmd_claims(int argc, char **argv)
{
    claims_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if ((rc = default_paths(&a)) != 0)
        return rc;
    rip_out_set set;
    rip_out_item *figs[RIP_FIG_COUNT] = {NULL}, *text = NULL;
    char prefix[4096] = "";
    rip_out_set_init(&set, "claims");
    if ((rc = stage_outputs(&a, &set, figs, &text, prefix, sizeof prefix)) != 0)
        return rc;
    sqlite3 *db = NULL, *aux = NULL;
    int status = check_and_write(&a, &db, &aux, figs, text, prefix);
    if (status == 0)
        status = rip_out_set_commit(&set);
    if (status != 0)
        rip_out_set_abort(&set); /* nothing when the commit ran */
    else
        say_written(&a);
    if (aux)
        sqlite3_close(aux);
    rip_db_close(db);
    return status;
}
