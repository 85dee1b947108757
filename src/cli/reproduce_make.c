/*
** reproduce_make.c — each artefact of `ripsim reproduce` made in memory
** (reproduce.h): the library entry points `ripsim tables`, `claims` and
** `report` call, with the arguments of the committed form results/README.md
** gives (table7 without times, table3 with results/deployment.json, ...),
** into open_memstream buffers.  The sweeps the claims and the reports read
** are run here, through the sweep library, into the run's temporary folder.
** Nothing here prints: the progress line is the command's (progress_line.h).
*/
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "claims.h"
#include "db.h"
#include "deployment.h"
#include "figures.h"
#include "optimum_report.h"
#include "paper_tables.h"
#include "progress_line.h"
#include "real_models.h"
#include "report.h"
#include "reproduce.h"
#include "svg_png.h"
#include "sweep.h"
#include "table2.h"
#include "table6.h"
#include "tflm_table.h"

_Static_assert(1 + RIP_FIG_COUNT <= REPRO_MAX_FILES, "claims.md and its figures are one artefact's files");

/* The sweeps a maker may need, each made at most once per run. */
typedef enum { SWEEP_DEFAULT, SWEEP_EXECUTED, SWEEP_SHARD } sweep_kind;
static const char *const sweep_files[] = {"default.db", "executed.db", "shard0of10.db"};

/* reproduce.h */
rip_status repro_mem_open(repro_file *file, FILE **f, char err[RIP_ERR_LEN])
{
    *f = open_memstream(&file->data, &file->len);
    if (!*f) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    return RIP_OK;
}

/* reproduce.h */
rip_status repro_mem_close(FILE *f, rip_status s, char err[RIP_ERR_LEN])
{
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0)
        bad = true;
    if (s == RIP_OK && bad) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    return s;
}

/* path (n bytes) = dir/name.  false when it does not fit. */
static bool join(char *path, size_t n, const char *dir, const char *name)
{
    int k = snprintf(path, n, "%s/%s", dir, name);
    return k > 0 && (size_t)k < n;
}

/*
** The sweep kind complete in c->tmpdir, its path in path[4096]: run now
** unless this run made it already (the default 10,000 layers, seed
** 20261129; executed: with the int8 kernels; shard: shard 0 of 10,
** executed), with its progress line.  RIP_OK, or the sweep's status
** with err.
*/
static rip_status need_sweep(repro_ctx *c, sweep_kind kind, char path[4096], char err[RIP_ERR_LEN])
{
    bool *have = kind == SWEEP_DEFAULT ? &c->have_default : kind == SWEEP_EXECUTED ? &c->have_executed
                                                                                   : &c->have_shard;
    if (!join(path, 4096, c->tmpdir, sweep_files[kind])) {
        snprintf(err, RIP_ERR_LEN, "%.400s: path too long", c->tmpdir);
        return RIP_S_CANTCREATE;
    }
    if (*have)
        return RIP_OK;
    rip_progress pr;
    rip_progress_init(&pr, c->label, "layers", true);
    rip_sweep_opts o = {
        .n_layers = RIP_SWEEP_DEFAULT_N, .seed = RIP_SWEEP_DEFAULT_SEED, .db_path = path, .jobs = c->jobs,
        .shard_index = 0, .shard_count = kind == SWEEP_SHARD ? 10 : 1, .progress = rip_progress_callback(&pr),
        .execute = kind != SWEEP_DEFAULT, .stop = c->stop,
    };
    rip_sweep_result res;
    rip_status s = rip_sweep_run(&o, &res, err);
    rip_progress_end(&pr);
    *have = s == RIP_OK;
    return s;
}

/* table2: rip_table2_write, no input. */
static rip_status make_table2(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    (void)c;
    FILE *f;
    rip_status s = repro_mem_open(&files[0], &f, err);
    return s != RIP_OK ? s : repro_mem_close(f, rip_table2_write(f, err), err);
}

/* The writers that take a progress callback and the tree's folders. */
typedef enum { W_TABLE3, W_TABLE6, W_TABLE7, W_OPTIMUM, W_FIG_OPTIMUM } writer;

/* Writer w into files[0] with a progress line (unit: models or layers);
** dep: table3's deployment records or NULL. */
static rip_status with_progress(repro_ctx *c, writer w, const rip_deployment *dep, repro_file *files,
                                char err[RIP_ERR_LEN])
{
    FILE *f;
    rip_status s = repro_mem_open(&files[0], &f, err);
    if (s != RIP_OK)
        return s;
    rip_progress pr;
    rip_progress_init(&pr, c->label, w == W_TABLE3 || w == W_TABLE7 ? "models" : "layers", true);
    rip_progress_cb cb = rip_progress_callback(&pr);
    rip_progress_tick(&pr);
    s = w == W_TABLE3   ? rip_table3_write(f, c->models, dep, &cb, err)
      : w == W_TABLE6   ? rip_table6_write(f, c->layers, &cb, err)
      : w == W_TABLE7   ? rip_table7_write(f, c->models, 150.0, false, &cb, err)
      : w == W_OPTIMUM  ? rip_optimum_md_write(f, &cb, err)
                        : rip_fig_optimum_write(f, &cb, err);
    rip_progress_end(&pr);
    return repro_mem_close(f, s, err);
}

/* table3: with the deployment table when DIR/deployment.json exists (the
** committed form: `tables table3` reads results/deployment.json). */
static rip_status make_table3(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    char path[4096];
    if (!join(path, sizeof path, c->results, "deployment.json")) {
        snprintf(err, RIP_ERR_LEN, "%.400s: path too long", c->results);
        return RIP_S_NOINPUT;
    }
    rip_deployment dep = {0};
    bool have = access(path, F_OK) == 0;
    rip_status s = have ? rip_deploy_read(path, false, &dep, err) : RIP_OK;
    if (s == RIP_OK)
        s = with_progress(c, W_TABLE3, have ? &dep : NULL, files, err);
    rip_deploy_free(&dep);
    return s;
}

/* table6 from the layer tables of sweeps/layers. */
static rip_status make_table6(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    return with_progress(c, W_TABLE6, NULL, files, err);
}

/* table7 --no-times at the default time limit, 150 s per program. */
static rip_status make_table7(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    return with_progress(c, W_TABLE7, NULL, files, err);
}

/* optimum.md: the traversal optimum against herringbone and RiP. */
static rip_status make_optimum(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    return with_progress(c, W_OPTIMUM, NULL, files, err);
}

/* fig_optimum.svg, the same comparison drawn. */
static rip_status make_fig_optimum(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    return with_progress(c, W_FIG_OPTIMUM, NULL, files, err);
}

/* fig3.svg: the visiting orders, no input. */
static rip_status make_fig3(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    (void)c;
    FILE *f;
    rip_status s = repro_mem_open(&files[0], &f, err);
    return s != RIP_OK ? s : repro_mem_close(f, rip_fig3_write(f, err), err);
}

/* The whole of the regular file f (from its start) into file's buffer.
** RIP_OK, or RIP_S_IO / RIP_S_NOMEM with err. */
static rip_status slurp(FILE *f, repro_file *file, char err[RIP_ERR_LEN])
{
    FILE *m;
    rip_status s = repro_mem_open(file, &m, err);
    if (s != RIP_OK)
        return s;
    char buf[65536];
    size_t k;
    rewind(f);
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        if (fwrite(buf, 1, k, m) != k)
            break;
    if (ferror(f)) {
        snprintf(err, RIP_ERR_LEN, "cannot read the PNG back: %s", strerror(errno));
        s = RIP_S_IO;
    }
    return repro_mem_close(m, s, err);
}

/*
** fig1: the SVG (rip_fig1_write), and its PNG made by rsvg-convert from a
** copy of the SVG in the temporary folder, as `tables fig1` makes it; the
** PNG is skipped, with the reason, when rsvg-convert is not installed.
*/
static rip_status make_fig1(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    FILE *f, *svg = NULL, *png = NULL;
    char path[4096];
    rip_status s = repro_mem_open(&files[0], &f, err);
    if (s != RIP_OK)
        return s;
    if ((s = repro_mem_close(f, rip_fig1_write(f, c->models, err), err)) != RIP_OK)
        return s;
    if (!join(path, sizeof path, c->tmpdir, "fig1.svg")) {
        snprintf(err, RIP_ERR_LEN, "%.400s: path too long", c->tmpdir);
        return RIP_S_CANTCREATE;
    }
    if (!(svg = fopen(path, "wb")) || !(png = tmpfile())) {
        snprintf(err, RIP_ERR_LEN, "cannot create a temporary file for the PNG: %s", strerror(errno));
        s = RIP_S_CANTCREATE;
    } else if (fwrite(files[0].data, 1, files[0].len, svg) != files[0].len || fclose(svg) != 0) {
        snprintf(err, RIP_ERR_LEN, "cannot write %.400s: %s", path, strerror(errno));
        s = RIP_S_IO;
    } else {
        svg = NULL; /* closed */
        char why[RIP_ERR_LEN];
        s = rip_svg_to_png(path, png, why);
        if (s == RIP_S_UNAVAILABLE) {
            snprintf(files[1].skip, sizeof files[1].skip, "%.480s", why);
            s = RIP_OK;
        } else if (s != RIP_OK)
            snprintf(err, RIP_ERR_LEN, "fig1.png: %.480s", why);
        else
            s = slurp(png, &files[1], err);
    }
    if (svg)
        fclose(svg);
    if (png)
        fclose(png);
    unlink(path);
    return s;
}

/* claims on the open snapshot db: aux built, views, optima, claims.md and
** the three figures beside it (linked without a prefix). */
static rip_status write_claims(repro_ctx *c, sqlite3 *db, sqlite3 *aux, repro_file *files, char err[RIP_ERR_LEN])
{
    rip_status s;
    if ((s = rip_claims_build_aux(aux, c->layers, c->models, err)) != RIP_OK ||
        (s = rip_claims_sweep_views(db, err)) != RIP_OK ||
        (s = rip_claims_build_optima(aux, db, RIP_CLAIMS_OPT_PIXELS, err)) != RIP_OK)
        return s;
    const char *links[RIP_FIG_COUNT + 1] = {NULL};
    for (int k = 0; k < RIP_FIG_COUNT; k++) {
        links[k] = rip_figure_names[k];
        if (!files[1 + k].name || strcmp(files[1 + k].name, rip_figure_names[k]) != 0) {
            snprintf(err, RIP_ERR_LEN, "the claims figure %.100s is not in reproduce's list of the claims files "
                     "(src/cli/reproduce_make.c)", rip_figure_names[k]);
            return RIP_S_INTERNAL;
        }
    }
    FILE *f;
    if ((s = repro_mem_open(&files[0], &f, err)) != RIP_OK ||
        (s = repro_mem_close(f, rip_claims_write(db, aux, links, "", f, err), err)) != RIP_OK)
        return s;
    for (int k = 0; k < RIP_FIG_COUNT && s == RIP_OK; k++)
        if ((s = repro_mem_open(&files[1 + k], &f, err)) == RIP_OK)
            s = repro_mem_close(f, rip_figure_write(db, (rip_figure)k, f, err), err);
    return s;
}

/* claims: the registry and its figures on the default sweep (its executed
** run when sweep-report is made too: the same layers, truths and verdicts). */
static rip_status make_claims(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    char path[4096];
    rip_status s = need_sweep(c, c->claims_on_executed ? SWEEP_EXECUTED : SWEEP_DEFAULT, path, err);
    if (s != RIP_OK)
        return s;
    sqlite3 *db = NULL, *aux = NULL;
    rip_progress pr;
    rip_progress_init(&pr, c->label, "", true);
    rip_progress_tick(&pr);
    if ((s = rip_db_open_snapshot(path, &db, err)) == RIP_OK) {
        if (sqlite3_open_v2(":memory:", &aux, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "out of memory");
            s = RIP_S_NOMEM;
        } else
            s = write_claims(c, db, aux, files, err);
    }
    rip_progress_end(&pr);
    if (aux)
        sqlite3_close(aux);
    rip_db_close(db);
    return s;
}

/* The Markdown report of sweep kind (`report --db X`). */
static rip_status make_report(repro_ctx *c, sweep_kind kind, repro_file *files, char err[RIP_ERR_LEN])
{
    char path[4096];
    rip_status s = need_sweep(c, kind, path, err);
    if (s != RIP_OK)
        return s;
    sqlite3 *db = NULL;
    FILE *f;
    if ((s = rip_db_open_snapshot(path, &db, err)) == RIP_OK && (s = repro_mem_open(&files[0], &f, err)) == RIP_OK)
        s = repro_mem_close(f, rip_report_write(db, RIP_REPORT_MD, f, NULL, err), err);
    rip_db_close(db);
    return s;
}

/* sweep-report.md: the executed default sweep reported. */
static rip_status make_sweep_report(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    return make_report(c, SWEEP_EXECUTED, files, err);
}

/* sweep-report-shard0of10.md: shard 0 of 10, executed, reported. */
static rip_status make_shard_report(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    return make_report(c, SWEEP_SHARD, files, err);
}

/* DIR/name into path[4096], or RIP_S_UNAVAILABLE with the reason when it
** is missing (what: what it is). */
static rip_status input(const repro_ctx *c, const char *name, const char *what, char path[4096],
                        char err[RIP_ERR_LEN])
{
    if (!join(path, 4096, c->results, name) || access(path, R_OK) != 0) {
        snprintf(err, RIP_ERR_LEN, "no %.200s/%.60s (%.160s)", c->results, name, what);
        return RIP_S_UNAVAILABLE;
    }
    return RIP_OK;
}

/* real-models.md from the committed records and TFLM's figures. */
static rip_status make_real_models(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    char dep_path[4096], tflm_path[4096];
    rip_status s;
    if ((s = input(c, "real-models.json", "the firmware records: ./build.sh firmware", dep_path, err)) != RIP_OK ||
        (s = input(c, "tflm-peer.tsv", "TFLM's figures: tests/tflm/measure.sh", tflm_path, err)) != RIP_OK)
        return s;
    rip_deployment d = {0};
    FILE *f;
    if ((s = rip_deploy_read(dep_path, false, &d, err)) == RIP_OK && (s = repro_mem_open(&files[0], &f, err)) == RIP_OK)
        s = repro_mem_close(f, rip_real_models_write(f, &d, tflm_path, err), err);
    rip_deploy_free(&d);
    return s;
}

/* tflm.md from the committed measurement and, when there, the links. */
static rip_status make_tflm(repro_ctx *c, repro_file *files, char err[RIP_ERR_LEN])
{
    char tflm_path[4096], link_path[4096], why[RIP_ERR_LEN];
    rip_status s = input(c, "tflm.tsv", "the measurement: tests/tflm/measure-tflm.sh", tflm_path, err);
    if (s != RIP_OK)
        return s;
    bool link = input(c, "tflm-link.tsv", "the links", link_path, why) == RIP_OK;
    FILE *f;
    if ((s = repro_mem_open(&files[0], &f, err)) == RIP_OK)
        s = repro_mem_close(f, rip_tflm_table_write(f, tflm_path, link ? link_path : NULL, err), err);
    return s;
}

static const repro_artefact artefacts[] = {
    {"table2", "Tab. 2", {"table2.md"}, make_table2},
    {"deployment", "Tab. 3's firmware deployment", {"deployment.json"}, repro_make_deployment},
    {"table3", "Tab. 3, with results/deployment.json", {"table3.md"}, make_table3},
    {"table6", "Tab. 6", {"table6.md"}, make_table6},
    {"table7", "Tab. 7 (App. I), as tables table7 --no-times", {"table7.md"}, make_table7},
    {"fig1", "Fig. 1 (the PNG by rsvg-convert)", {"fig1.svg", "fig1.png"}, make_fig1},
    {"optimum", "the traversal optimum against the paper", {"optimum.md"}, make_optimum},
    {"fig3", "Fig. 2/3", {"fig3.svg"}, make_fig3},
    {"fig_optimum", "the optimum against herringbone and RiP", {"fig_optimum.svg"}, make_fig_optimum},
    {"sweep-report", "Tab. 5, Sec. 5.2, App. E.3: the executed default sweep", {"sweep-report.md"},
     make_sweep_report},
    {"claims", "the claims registry and its figures", {"claims.md", "fig_verdicts.svg", "fig_margins.svg",
     "fig_rip_hb.svg"}, make_claims},
    {"sweep-report-shard", "the report of shard 0/10, executed", {"sweep-report-shard0of10.md"},
     make_shard_report},
    {"real-models", "the real TFLite models, from the committed records", {"real-models.md"}, make_real_models},
    {"tflm", "ripsim's plans in TFLM, from the committed measurement", {"tflm.md"}, make_tflm},
};

/* reproduce.h */
const repro_artefact *repro_artefacts(size_t *n)
{
    *n = sizeof artefacts / sizeof artefacts[0];
    return artefacts;
}
