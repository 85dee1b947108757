/*
** cmd_tables.c — `ripsim tables NAME`: the paper's tables and figures,
** regenerated from data by the tool itself.
**
** The table is written to a temporary file beside --out and renamed when
** complete (out_set.h), so a failure never leaves half a table; fig1's SVG
** and PNG are one output set, replaced together.  '-' writes to standard
** output.  --out may not name one of the files the table reads.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "root.h"
#include "out.h"
#include "out_set.h"
#include "paper_tables.h"
#include "progress_line.h"
#include "real_models.h"
#include "svg_png.h"
#include "table2.h"
#include "tflm_table.h"
#include "table6.h"
#include "optimum_report.h"

static const char about[] =
    "Regenerate one of the paper's tables or figures from data:\n"
    "  table2   Tab. 2: the seven layers of Eq. 1's two limitations, Truth,\n"
    "           Eq. 1, Err. and Corollary 1, each ours (paper) (results/table2.md)\n"
    "  table3   Tab. 3: eleven MCUNet models, TinyEngine baseline against RiP,\n"
    "           fits Pico 1 (results/table3.md)\n"
    "  table6   Tab. 6: RiP against generalized herringbone on real layers, with\n"
    "           column-major RiP (results/table6.md)\n"
    "  table7   Tab. 7: 33 keras.applications graphs, dual-buffer MILP against RiP\n"
    "           MILP, program sizes and solve times (results/table7.md)\n"
    "  fig1     Fig. 1: MCUNet-in3's arena across its operators under naive dual\n"
    "           buffering, TinyEngine and RiP (results/fig1.svg and fig1.png)\n"
    "  optimum  the traversal-optimal gap against herringbone and RiP on every\n"
    "           small restricted layer and 2,000 anisotropic ones (results/optimum.md)\n"
    "  fig3     Fig. 2/3: row-major, herringbone and optimal visiting orders on\n"
    "           uneven grids (results/fig3.svg)\n"
    "  fig_optimum  herringbone and RiP gaps against the optimum\n"
    "           (results/fig_optimum.svg)\n"
    "  deployment  results/deployment.json from the raw output of the firmware\n"
    "           tools given by --lines (./build.sh firmware does this); a record\n"
    "           that ran without fitting, or whose arena or checksum is not its\n"
    "           model.json's, is refused (65), naming it\n"
    "  real-models  the real TFLite models on QEMU and the Picos beside TensorFlow\n"
    "           Lite Micro (results/real-models.md), from --deployment FILE\n"
    "           (default results/real-models.json) and --tflm FILE (default\n"
    "           results/tflm-peer.tsv, TFLM's figures: tests/tflm/measure.sh)\n"
    "  tflm     ripsim's exact plans run by an unchanged TensorFlow Lite Micro,\n"
    "           per real model and kernel library (results/tflm.md), from --tflm\n"
    "           FILE (default results/tflm.tsv: tests/tflm/measure-tflm.sh) and\n"
    "           --link FILE (default results/tflm-link.tsv, the images' links;\n"
    "           the fit columns say \"no build\" without it)\n"
    "table3 adds the deployment table when --deployment FILE (default\n"
    "results/deployment.json) exists.\n";

static const char notes[] =
    "A result file is replaced only once it is completely written, fig1's SVG\n"
    "and PNG together; an interrupted run leaves the old files and no temporary.\n"
    "When stderr is a terminal, a progress line (models or layers done, rate,\n"
    "ETA) is shown.\n";

static const rip_exit_doc exits[] = {
    {0, "written"},
    {64, "bad command line (also: --out is one of the input files)"},
    {65, "malformed input table or graph, or a deployment record that contradicts itself or its model.json"},
    {66, "missing input table or graph (check --layers-dir, --models-dir)"},
    {69, "fig1: rsvg-convert, needed for the PNG, is missing (SVG written, old PNG removed)"},
    {70, "internal error: a planning strategy failed or made an invalid plan"},
    {71, "out of memory, or milp's CBC solver process failed (table3, table7, fig1)"},
    {73, "the output cannot be created"},
    {74, "the output cannot be written (or rsvg-convert failed)"},
};

static const char *const names[] = {"table3", "table6", "table7", "fig1", "deployment", "table2",
                                    "optimum", "fig3", "fig_optimum", "real-models", "tflm", NULL};
enum { TABLE3, TABLE6, TABLE7, FIG1, DEPLOYMENT, TABLE2, OPTIMUM, FIG3, FIG_OPTIMUM, REAL_MODELS, TFLM };

/*
** fig1: stage the PNG beside the SVG (svg_path with .svg replaced by .png)
** in set, so the two are replaced together.  0, or the set abandoned and
** 71 / 73 after the message.
*/
static int stage_png(rip_out_set *set, const char *svg_path, char *png_path, size_t n, rip_out_item **png)
{
    size_t len = strlen(svg_path);
    size_t stem = len > 4 && strcmp(svg_path + len - 4, ".svg") == 0 ? len - 4 : len;
    if (stem + 5 > n) {
        fprintf(stderr, "ripsim tables: %s: path too long\n", svg_path);
        rip_out_set_abort(set);
        return RIP_EX_CANTCREAT;
    }
    snprintf(png_path, n, "%.*s.png", (int)stem, svg_path);
    return rip_out_set_file(set, png_path, png);
}

/*
** fig1: the PNG of the SVG staged in svg (its temporary file, complete)
** into png.  0; 69 with the PNG dropped from set (the SVG stays, a PNG of
** an older SVG goes), the message in err; other statuses after the
** message, the caller to abandon the set.
*/
static int convert_png(rip_out_set *set, rip_out_item *svg, rip_out_item *png, char err[RIP_ERR_LEN])
{
    int e = fflush(svg->f) != 0 ? errno : ferror(svg->f) ? EIO : 0;
    if (e != 0) {
        fprintf(stderr, "ripsim tables: cannot write %s: %s\n", svg->label, strerror(e));
        return RIP_EX_IOERR;
    }
    rip_status st = rip_svg_to_png(svg->tmp, png->f, err);
    if (st == RIP_S_UNAVAILABLE) {
        rip_out_set_drop(set, png);
        return RIP_EX_UNAVAILABLE;
    }
    if (st != RIP_OK)
        fprintf(stderr, "ripsim tables: %s: %s\n", png->label, err);
    return rip_exit_status(st);
}

/* The records of path into *d (lines: the firmware tools' raw output).
** 0, or the exit status after the message. */
static int read_records(const char *path, bool lines, rip_deployment *d)
{
    char err[RIP_ERR_LEN];
    rip_status s = rip_deploy_read(path, lines, d, err);
    if (s != RIP_OK)
        fprintf(stderr, "ripsim tables: %s\n", err);
    return s == RIP_OK ? 0 : rip_exit_status(s);
}

/* deployment: the tools' lines (and model.json objects) of FILE, checked,
** sorted and written canonically to out. */
static int write_deployment(const char *lines, const char *out)
{
    rip_deployment d;
    int rc;
    if ((rc = rip_out_refuse_input("tables", out, lines, "the --lines input")) != 0 ||
        (rc = read_records(lines, true, &d)) != 0)
        return rc;
    rip_out o;
    if ((rc = rip_out_open(&o, "tables", out)) == 0) {
        bool to_stdout = o.f == stdout;
        rip_deploy_write(o.f, &d);
        if ((rc = rip_out_commit(&o)) == 0 && !to_stdout)
            fprintf(stderr, "ripsim tables: wrote %s (%zu records)\n", out, d.n);
    }
    rip_deploy_free(&d);
    return rc;
}

/* real-models: the records of deployment and TFLM's figures of tflm, to out. */
static int write_real_models(const char *deployment, const char *tflm, const char *out)
{
    char err[RIP_ERR_LEN];
    rip_deployment d;
    int rc;
    if ((rc = rip_out_refuse_input("tables", out, deployment, "the firmware records (--deployment)")) != 0 ||
        (rc = rip_out_refuse_input("tables", out, tflm, "TFLM's figures (--tflm)")) != 0 ||
        (rc = read_records(deployment, false, &d)) != 0)
        return rc;
    rip_out o;
    if ((rc = rip_out_open(&o, "tables", out)) == 0) {
        bool to_stdout = o.f == stdout;
        rip_status s = rip_real_models_write(o.f, &d, tflm, err);
        if (s != RIP_OK) {
            rip_out_abort(&o);
            fprintf(stderr, "ripsim tables: %s\n", err);
            rc = rip_exit_status(s);
        } else if ((rc = rip_out_commit(&o)) == 0 && !to_stdout)
            fprintf(stderr, "ripsim tables: wrote %s\n", out);
    }
    rip_deploy_free(&d);
    return rc;
}

/* tflm: the measurement tflm and the links of link (NULL: none), to out. */
static int write_tflm(const char *tflm, const char *link, const char *out)
{
    char err[RIP_ERR_LEN];
    rip_out o;
    int rc;
    if ((rc = rip_out_refuse_input("tables", out, tflm, "the measurement (--tflm)")) != 0 ||
        (link && (rc = rip_out_refuse_input("tables", out, link, "the links (--link)")) != 0) ||
        (rc = rip_out_open(&o, "tables", out)) != 0)
        return rc;
    bool to_stdout = o.f == stdout;
    rip_status s = rip_tflm_table_write(o.f, tflm, link, err);
    if (s != RIP_OK) {
        rip_out_abort(&o);
        fprintf(stderr, "ripsim tables: %s\n", err);
        return rip_exit_status(s);
    }
    if ((rc = rip_out_commit(&o)) == 0 && !to_stdout)
        fprintf(stderr, "ripsim tables: wrote %s\n", out);
    return rc;
}

/* table2: no input files; the seven layers are simulated here. */
static int write_table2(const char *out)
{
    char err[RIP_ERR_LEN];
    rip_out o;
    int rc;
    if ((rc = rip_out_open(&o, "tables", out)) != 0)
        return rc;
    rip_status s = rip_table2_write(o.f, err);
    if (s != RIP_OK) {
        rip_out_abort(&o);
        fprintf(stderr, "ripsim tables: %s\n", err);
        return rip_exit_status(s);
    }
    bool to_stdout = o.f == stdout;
    if ((rc = rip_out_commit(&o)) == 0 && !to_stdout)
        fprintf(stderr, "ripsim tables: wrote %s\n", out);
    return rc;
}

/* The command line of `ripsim tables`, with the defaults filled in by
** resolve_paths (the buffers hold the default paths). */
typedef struct tables_args {
    const char *name, *out, *dir, *models, *deployment, *lines, *tflm, *link;
    int64_t time_limit;
    bool no_times;
    bool link_given, dep_given;   /* --link, --deployment given (not defaults) */
    int which;                    /* TABLE3, ... */
    char outbuf[4096], dirbuf[4096], modbuf[4096], depbuf[4096], tflmbuf[4096], linkbuf[4096];
} tables_args;

/* Parse argv into *a (a->which the table).  RIP_ARGS_CONTINUE, or the exit
** status after the help or the usage message. */
static int parse_args(int argc, char **argv, tables_args *a)
{
    *a = (tables_args){.time_limit = 150};
    const rip_opt opts[] = {
        {.name = "--out", .kind = RIP_OPT_STR, .dest = &a->out, .metavar = "FILE",
         .help = "where to write (default results/NAME.md, fig1: results/fig1.svg,\nin the ripsim tree);\n"
                 "'-' writes to standard output (fig1: the SVG, no PNG)"},
        {.name = "--layers-dir", .kind = RIP_OPT_STR, .dest = &a->dir, .metavar = "DIR",
         .help = "the layer tables of table6 (default sweeps/layers in the\nripsim tree)"},
        {.name = "--models-dir", .kind = RIP_OPT_STR, .dest = &a->models, .metavar = "DIR",
         .help = "the model graphs (default firmware/models in the ripsim tree)"},
        {.name = "--time-limit", .kind = RIP_OPT_INT, .dest = &a->time_limit, .metavar = "S", .lo = 1, .hi = 86400,
         .help = "MILP time limit per program, whole seconds (table7; default 150)"},
        {.name = "--no-times", .kind = RIP_OPT_FLAG, .dest = &a->no_times, .flag_value = true,
         .help = "table7 without the wall-clock column (reproducible)"},
        {.name = "--deployment", .kind = RIP_OPT_STR, .dest = &a->deployment, .metavar = "FILE",
         .help = "table3: the deployment results (default results/deployment.json\nin the ripsim tree, "
                 "skipped when absent; a FILE given must exist);\nreal-models: the real models' records "
                 "(default\nresults/real-models.json)"},
        {.name = "--tflm", .kind = RIP_OPT_STR, .dest = &a->tflm, .metavar = "FILE",
         .help = "real-models: TFLM's figures (default results/tflm-peer.tsv);\n"
                 "tflm: the measurement (default results/tflm.tsv)"},
        {.name = "--link", .kind = RIP_OPT_STR, .dest = &a->link, .metavar = "FILE",
         .help = "tflm: the images' links (default results/tflm-link.tsv,\n"
                 "skipped when absent; a FILE given must exist)"},
        {.name = "--lines", .kind = RIP_OPT_STR, .dest = &a->lines, .metavar = "FILE",
         .help = "deployment: the firmware tools' JSON lines and the models'\nmodel.json objects (required)"},
    };
    const rip_cmd cmd = {
        .name = "tables",
        .synopsis = "NAME [--out FILE] [--layers-dir DIR] [--models-dir DIR]\n"
                    "       [--time-limit S] [--no-times] [--deployment FILE] [--lines FILE]\n"
                    "       [--tflm FILE] [--link FILE]",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &a->name, .min_pos = 1,
        .max_pos = 1, .missing = "which table? table2, table3, table6, table7, fig1, deployment, optimum, fig3, fig_optimum, real-models or tflm", .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim tables table6 --out /tmp/table6.md",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    a->which = -1;
    for (int k = 0; names[k]; k++)
        if (strcmp(a->name, names[k]) == 0)
            a->which = k;
    if (a->which < 0)
        return rip_args_usage(&cmd, "unknown table '%s' (known: table2, table3, table6, table7, fig1, deployment, optimum, fig3, fig_optimum, real-models, tflm)", a->name);
    if ((a->which == DEPLOYMENT) != (a->lines != NULL))
        return rip_args_usage(&cmd, a->which == DEPLOYMENT ? "deployment needs --lines FILE"
                                                        : "--lines is only for deployment");
    if (a->tflm && a->which != REAL_MODELS && a->which != TFLM)
        return rip_args_usage(&cmd, "--tflm is only for real-models and tflm");
    if (a->link && a->which != TFLM)
        return rip_args_usage(&cmd, "--link is only for tflm");
    a->link_given = a->link != NULL;
    a->dep_given = a->deployment != NULL;
    return RIP_ARGS_CONTINUE;
}

/* The default of every path a->which reads or writes and the user left out
** (in the ripsim tree).  0, or 64 after the message. */
static int resolve_paths(tables_args *a)
{
    static const char *const defaults[] = {"results/table3.md", "results/table6.md", "results/table7.md",
                                           "results/fig1.svg", "results/deployment.json", "results/table2.md",
                                           "results/optimum.md", "results/fig3.svg", "results/fig_optimum.svg",
                                           "results/real-models.md", "results/tflm.md"};
    const int which = a->which;
    if ((!a->out && !(a->out = rip_root_path("tables", "--out", defaults[which], a->outbuf, sizeof a->outbuf))) ||
        (!a->dir && !(a->dir = rip_root_path("tables", "--layers-dir", "sweeps/layers", a->dirbuf, sizeof a->dirbuf))) ||
        (!a->models &&
         !(a->models = rip_root_path("tables", "--models-dir", "firmware/models", a->modbuf, sizeof a->modbuf))) ||
        (which == TABLE3 && !a->deployment &&
         !(a->deployment = rip_root_path("tables", "--deployment", "results/deployment.json", a->depbuf,
                                         sizeof a->depbuf))) ||
        (which == REAL_MODELS && !a->deployment &&
         !(a->deployment = rip_root_path("tables", "--deployment", "results/real-models.json", a->depbuf,
                                         sizeof a->depbuf))) ||
        (which == REAL_MODELS && !a->tflm &&
         !(a->tflm = rip_root_path("tables", "--tflm", "results/tflm-peer.tsv", a->tflmbuf, sizeof a->tflmbuf))) ||
        (which == TFLM && !a->tflm &&
         !(a->tflm = rip_root_path("tables", "--tflm", "results/tflm.tsv", a->tflmbuf, sizeof a->tflmbuf))) ||
        (which == TFLM && !a->link &&
         !(a->link = rip_root_path("tables", "--link", "results/tflm-link.tsv", a->linkbuf, sizeof a->linkbuf))))
        return RIP_EX_USAGE;
    return 0;
}

/* table3: the deployment results, if any (the default may be absent), into
** *dep (*have_dep set); --out may not be them.  0, or the exit status after
** the message (*dep then holds nothing). */
static int read_table3_deployment(const tables_args *a, rip_deployment *dep, bool *have_dep)
{
    int rc;
    if ((rc = rip_out_refuse_input("tables", a->out, a->deployment, "the deployment results (--deployment)")) != 0)
        return rc;
    if (!a->dep_given && access(a->deployment, F_OK) != 0)
        return 0;
    char err[RIP_ERR_LEN];
    rip_status ds = rip_deploy_read(a->deployment, false, dep, err);
    if (ds != RIP_OK) {
        fprintf(stderr, "ripsim tables: %s\n", err);
        return rip_exit_status(ds);
    }
    *have_dep = true;
    return 0;
}

/* Write table a->which (table3, table6, table7, optimum, fig1, fig3,
** fig_optimum) to f with a progress line; dep: table3's deployment results
** or NULL.  The status of the table's writer, err its message. */
static rip_status write_table(const tables_args *a, FILE *f, const rip_deployment *dep, char err[RIP_ERR_LEN])
{
    const int which = a->which;
    rip_progress pr;
    rip_progress_init(&pr, "tables", which == TABLE6 || which >= OPTIMUM ? "layers" : "models", which != FIG1);
    rip_progress_cb cb = rip_progress_callback(&pr);
    rip_progress_tick(&pr);
    rip_status s = which == TABLE3 ? rip_table3_write(f, a->models, dep, &cb, err)
                 : which == TABLE6 ? rip_table6_write(f, a->dir, &cb, err)
                 : which == TABLE7 ? rip_table7_write(f, a->models, (double)a->time_limit, !a->no_times, &cb, err)
                 : which == OPTIMUM ? rip_optimum_md_write(f, &cb, err)
                 : which == FIG3 ? rip_fig3_write(f, err)
                 : which == FIG_OPTIMUM ? rip_fig_optimum_write(f, &cb, err)
                                   : rip_fig1_write(f, a->models, err);
    rip_progress_end(&pr);
    return s;
}

/*
** The tables that read a folder (table3, table6, table7, optimum, fig1,
** fig3, fig_optimum): --out outside it, every output staged first and
** replaced together once written; fig1's PNG is made from the SVG file, so
** only when the SVG goes to a file (not '-', not a device).  0, 69 (fig1
** without its PNG), or another exit status after the message.
*/
static int write_staged(const tables_args *a, const rip_deployment *dep)
{
    int rc;
    if ((rc = a->which == TABLE6 ? rip_out_refuse_in_dir("tables", a->out, a->dir, "an input of table6 (--layers-dir)")
                                 : rip_out_refuse_in_dir("tables", a->out, a->models, "an input graph (--models-dir)")) != 0)
        return rc;
    rip_out_set set;
    rip_out_item *main_out = NULL, *png = NULL;
    char png_path[4096], err[RIP_ERR_LEN];
    rip_out_set_init(&set, "tables");
    if ((rc = rip_out_set_file(&set, a->out, &main_out)) != 0 ||
        (a->which == FIG1 && main_out->tmp && (rc = stage_png(&set, a->out, png_path, sizeof png_path, &png)) != 0))
        return rc;
    FILE *f = main_out->f;
    rip_status s = write_table(a, f, dep, err);
    if (s != RIP_OK) {
        rip_out_set_abort(&set);
        fprintf(stderr, "ripsim tables: %s\n", err);
        return rip_exit_status(s);
    }
    int png_rc = png ? convert_png(&set, main_out, png, err) : 0;
    if (png_rc != 0 && png_rc != RIP_EX_UNAVAILABLE) {
        rip_out_set_abort(&set);
        return png_rc;
    }
    bool to_stdout = f == stdout;
    if ((rc = rip_out_set_commit(&set)) != 0)
        return rc;
    if (png_rc != 0)
        fprintf(stderr, "ripsim tables: wrote %s; %s not made (a PNG of an older SVG removed): %s\n", a->out,
                png_path, err);
    else if (png)
        fprintf(stderr, "ripsim tables: wrote %s and %s\n", a->out, png_path);
    else if (!to_stdout)
        fprintf(stderr, "ripsim tables: wrote %s\n", a->out);
    return png_rc;
}

int rip_cmd_tables(int argc, char **argv)
{
    tables_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    if ((rc = resolve_paths(&a)) != 0)
        return rc;
    switch (a.which) {
    case TFLM:   /* the default links may be absent: no image linked yet */
        return write_tflm(a.tflm, a.link_given || access(a.link, F_OK) == 0 ? a.link : NULL, a.out);
    case DEPLOYMENT:
        return write_deployment(a.lines, a.out);
    case REAL_MODELS:
        return write_real_models(a.deployment, a.tflm, a.out);
    case TABLE2:
        return write_table2(a.out);
    default:
        break;
    }
    rip_deployment dep = {0};
    bool have_dep = false;
    if (a.which != TABLE3 || (rc = read_table3_deployment(&a, &dep, &have_dep)) == 0)
        rc = write_staged(&a, have_dep ? &dep : NULL);
    rip_deploy_free(&dep);   /* the one cleanup: every path after the read passes here */
    return rc;
}
