/*
** figures.c — the sweep's figures as SVG (figures.h): verdict shares per
** generator category and closed form, loose margins per closed form, RiP
** against herringbone workspace, each with titled axes, ticks and a key.  Drawn on the SVG canvas (svg.h): fixed precision,
** no timestamps, so the same database gives the same bytes; a number that
** is not finite fails the figure (RIP_S_INTERNAL) rather than reach it.
*/
#include "figures.h"

#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_histogram.h>
#include <gsl/gsl_histogram2d.h>

static rip_status prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, char err[RIP_ERR_LEN])
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
        snprintf(err, RIP_ERR_LEN, "figures: %.300s", sqlite3_errmsg(db));
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/* Start figure `which` on canvas c: the white page and its title. */
static void header(rip_svg *c, FILE *o, int w, int h, const char *title)
{
    rip_svg_begin(c, o, w, h, "sans-serif", 11);
    rip_svg_text(c, w / 2, 20, "text-anchor=\"middle\" font-size=\"14\"", "%s", title);
}

/* ------------------------------------------------------------ verdict shares */

/* The judged verdicts of each of the paper's bounds per generator category. */
static const char verdicts_sql[] =
    "SELECT g.generator, g.tier, v.formula,\n"
    "       sum(v.verdict = 'unsafe'), sum(v.verdict = 'tight'), sum(v.verdict = 'loose'), sum(v.verdict = 'n/a')\n"
    "FROM verdicts v JOIN layers l USING (layer_idx) JOIN generators g ON g.generator = l.generator\n"
    "     JOIN formulas f ON f.formula = v.formula\n"
    "WHERE v.formula <> 'naive_workspace'\n"
    "GROUP BY g.generator, v.formula ORDER BY g.ord, f.ord";

enum { VERDICT_MAXF = 8 };

/* One generator category's row of fig_verdicts: per formula, its unsafe,
** tight, loose and n/a layers. */
typedef struct verdict_row {
    char name[48];
    int tier;
    int64_t v[VERDICT_MAXF][4];
} verdict_row;

typedef struct verdict_table {
    verdict_row *row;
    int rows, cap;
    char formula[VERDICT_MAXF][32];
    int nf;
} verdict_table;

static const char *const verdict_fill[4] = {"fill=\"#d62728\"", "fill=\"#2ca02c\"", "fill=\"#ff7f0e\"",
                                            "fill=\"#c7c7c7\""};

/* The rows of verdicts_sql into t (t->row malloc'd, also on failure).  RIP_OK or a status with err. */
static rip_status verdicts_load(sqlite3 *db, verdict_table *t, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    rip_status s = prep(db, verdicts_sql, &st, err);
    while (s == RIP_OK && sqlite3_step(st) == SQLITE_ROW) {
        const char *g = (const char *)sqlite3_column_text(st, 0), *f = (const char *)sqlite3_column_text(st, 2);
        if (t->rows == 0 || strcmp(t->row[t->rows - 1].name, g) != 0) {
            if (t->rows == t->cap) {
                verdict_row *n = realloc(t->row, (size_t)(t->cap = t->cap ? 2 * t->cap : 32) * sizeof *n);
                if (!n) {
                    snprintf(err, RIP_ERR_LEN, "out of memory");
                    s = RIP_S_NOMEM;
                    break;
                }
                t->row = n;
            }
            verdict_row *r = &t->row[t->rows++];
            memset(r, 0, sizeof *r);
            snprintf(r->name, sizeof r->name, "%s", g);
            r->tier = sqlite3_column_int(st, 1);
        }
        int k = 0;
        while (k < t->nf && strcmp(t->formula[k], f) != 0)
            k++;
        if (k == VERDICT_MAXF) {
            snprintf(err, RIP_ERR_LEN, "%s: more than %d judged formulas", rip_figure_names[RIP_FIG_VERDICTS],
                     VERDICT_MAXF);
            s = RIP_S_DATA;
            break;
        }
        if (k == t->nf)
            snprintf(t->formula[t->nf++], sizeof t->formula[0], "%s", f);
        for (int j = 0; j < 4; j++)
            t->row[t->rows - 1].v[k][j] = sqlite3_column_int64(st, 3 + j);
    }
    sqlite3_finalize(st);
    return s;
}

/* One cell: formula k of row r as a bar of width w at (x, y), its shares
** stacked in verdict order, a share above zero at least 2 px wide (taken
** from the widest), its unsafe and loose layers counted in text. */
static void verdict_cell(rip_svg *c, const verdict_table *t, const verdict_row *r, int k, double x, double y,
                         double w, double bar)
{
    const int64_t *v = r->v[k];
    const int64_t tot = v[0] + v[1] + v[2] + v[3];
    if (tot <= 0)
        return;
    double wd[4], sum = 0;
    int widest = 0;
    for (int j = 0; j < 4; j++) {
        wd[j] = w * (double)v[j] / (double)tot;
        if (v[j] > 0 && wd[j] < 2)
            wd[j] = 2;
        widest = wd[j] > wd[widest] ? j : widest;
        sum += wd[j];
    }
    wd[widest] -= sum - w;
    for (int j = 0; j < 4; j++) {
        if (v[j] > 0)
            rip_svg_rect(c, x, y, wd[j], bar, verdict_fill[j]);
        x += wd[j];
    }
    rip_svg_rect_titled(c, x - w, y, w, bar, "fill=\"none\" stroke=\"#999\" stroke-width=\"0.5\"",
                        "%s on %s: %lld unsafe, %lld tight, %lld loose, %lld n/a", t->formula[k], r->name,
                        (long long)v[0], (long long)v[1], (long long)v[2], (long long)v[3]);
    char note[64] = "";
    if (v[0] > 0 && v[2] > 0)
        snprintf(note, sizeof note, "%lld unsafe, %lld loose", (long long)v[0], (long long)v[2]);
    else if (v[0] > 0 || v[2] > 0)
        snprintf(note, sizeof note, "%lld %s", (long long)(v[0] + v[2]), v[0] > 0 ? "unsafe" : "loose");
    if (note[0])
        rip_svg_text(c, x - 3, y + bar - 4, "text-anchor=\"end\" font-size=\"9\"", "%s", note);
}

/* fig_verdicts: a row per generator category, a column per judged formula. */
static rip_status fig_verdicts(sqlite3 *db, FILE *o, char err[RIP_ERR_LEN])
{
    verdict_table t = {0};
    rip_status s = verdicts_load(db, &t, err);
    if (s != RIP_OK) {
        free(t.row);
        return s;
    }
    const int left = 270, top = 78, bar = 16, pitch = 21, cw = 104, gap = 22;
    const int bottom = top + t.rows * pitch + 4, W = left + t.nf * (cw + gap) + 10, H = bottom + 88;
    rip_svg c;
    header(&c, o, W, H, "Verdicts of each closed form per generator category: which formula is unsafe or loose where");
    rip_svg_text(&c, W / 2, 38, "text-anchor=\"middle\" font-size=\"11\" fill=\"#555\"",
                 "each bar: the category's layers, split by the formula's verdict against its simulated truth");
    for (int k = 0; k < t.nf; k++)
        rip_svg_text(&c, left + k * (cw + gap) + cw / 2, top - 10, "text-anchor=\"middle\" font-weight=\"bold\"", "%s",
                     t.formula[k]);
    for (int i = 0; i < t.rows; i++) {
        const verdict_row *r = &t.row[i];
        const int64_t n = r->v[0][0] + r->v[0][1] + r->v[0][2] + r->v[0][3];
        const int y = top + i * pitch;
        if (i > 0 && r->tier != t.row[i - 1].tier)
            rip_svg_line(&c, 8, y - 2.5, W - 8, y - 2.5, "stroke=\"#bbb\"");
        rip_svg_text(&c, left - 8, y + 12, "text-anchor=\"end\"", "%s (tier %d, %lld layers)", r->name, r->tier,
                     (long long)n);
        for (int k = 0; k < t.nf; k++)
            verdict_cell(&c, &t, r, k, left + k * (cw + gap), y, cw, bar);
    }
    for (int k = 0; k < t.nf; k++) {
        rip_svg_axis x = {RIP_SVG_BOTTOM, bottom, left + k * (cw + gap), left + k * (cw + gap) + cw, 0, 100, false, 0};
        rip_svg_axis_linear(&c, &x, 50, NULL);
    }
    rip_svg_text(&c, left + (t.nf * (cw + gap) - gap) / 2.0, bottom + 34, "text-anchor=\"middle\"",
                 "share of the category's layers in each verdict (%%), per formula");
    static const char *const meaning[4] = {"unsafe: value below the truth", "tight: value = truth",
                                           "loose: value above the truth", "n/a: no value or no truth"};
    for (int j = 0; j < 4; j++)
        rip_svg_swatch(&c, left + 200 * j, bottom + 58, verdict_fill[j], meaning[j]);
    rip_svg_text(&c, left, bottom + 78, "font-size=\"10\" fill=\"#555\"", "%s",
                 "a share above zero is drawn at least 2 px wide; the text in a bar counts its unsafe and loose "
                 "layers; lines separate the tiers");
    free(t.row);
    return rip_svg_end(&c, rip_figure_names[RIP_FIG_VERDICTS], err);
}

/* ------------------------------------------------------------ loose margins */

static const char margins_sql[] =
    "SELECT formula, margin FROM verdicts WHERE verdict = 'loose' ORDER BY formula, margin";

enum { MARGIN_BINS = 24, MARGIN_DECADES = 6, MARGIN_MAXF = 8 };

/* fig_margins from its nf histograms (log10 of the margin, MARGIN_BINS over
** [0, MARGIN_DECADES)): one panel per closed form, each with a log x axis
** of the margin and a linear y axis of layers per bin. */
static rip_status margins_draw(FILE *o, gsl_histogram *const *hist, const char names[][32], const int64_t *total,
                               const int64_t *clamped, int nf, char err[RIP_ERR_LEN])
{
    const int left = 80, top = 62, pw = 600, ph = 150, gap = 74;
    const int h = top + (nf ? nf : 1) * (ph + gap) + 4;
    rip_svg c;
    header(&c, o, left + pw + 40, h, "Loose margins per closed form: how far above the simulated truth");
    rip_svg_swatch(&c, left, 42, "fill=\"#1f77b4\"",
                   "bar: loose layers whose margin (value - truth) falls in the bin, 4 bins per decade");
    if (nf == 0)
        rip_svg_text(&c, left, top + 20, NULL, "no loose verdict");
    for (int f = 0; f < nf; f++) {
        const int y0 = top + f * (ph + gap) + 22;
        const double mx = gsl_histogram_max_val(hist[f]);
        const double step = rip_svg_nice_step(mx > 0 ? mx : 1, 5), ymax = step * ceil((mx > 0 ? mx : 1) / step);
        rip_svg_text(&c, left, y0 - 8, "font-size=\"12\" font-weight=\"bold\"", "%s: %lld loose layers%s", names[f],
                     (long long)total[f], clamped[f] ? " (margins from 10\xe2\x81\xb6 up in the last bin)" : "");
        rip_svg_axis y = {RIP_SVG_LEFT, left, y0 + ph, y0, 0, ymax, false, pw};
        rip_svg_axis_linear(&c, &y, step, NULL);
        rip_svg_axis_title(&c, &y, 38, "layers per bin");
        for (int b = 0; b < MARGIN_BINS; b++) {
            double n = gsl_histogram_get(hist[f], (size_t)b);
            double bh = ph * n / ymax;
            if (n > 0)
                rip_svg_rect_titled(&c, left + (double)pw * b / MARGIN_BINS, y0 + ph - bh, (double)pw / MARGIN_BINS - 1,
                                    bh, "fill=\"#1f77b4\"", "%.0f layers", n);
        }
        rip_svg_axis x = {RIP_SVG_BOTTOM, y0 + ph, left, left + pw, 1, 1e6, true, 0};
        rip_svg_axis_log(&c, &x);
        rip_svg_axis_title(&c, &x, 32, "margin, value - truth (scalars, log scale)");
    }
    return rip_svg_end(&c, rip_figure_names[RIP_FIG_MARGINS], err);
}

static rip_status fig_margins(sqlite3 *db, FILE *o, char err[RIP_ERR_LEN])
{
    enum { BINS = MARGIN_BINS, MAXF = MARGIN_MAXF };
    /* log10(margin) in [0, 6): margins are >= 1 scalar; the top bin takes the rest */
    gsl_histogram *hist[MAXF] = {NULL};
    char names[MAXF][32];
    int nf = 0;
    int64_t total[MAXF] = {0}, clamped[MAXF] = {0};
    sqlite3_stmt *st = NULL;
    rip_status s = prep(db, margins_sql, &st, err);
    while (s == RIP_OK && sqlite3_step(st) == SQLITE_ROW) {
        const char *f = (const char *)sqlite3_column_text(st, 0);
        if (nf == 0 || strcmp(names[nf - 1], f) != 0) {
            if (nf == MAXF)
                break;
            snprintf(names[nf], sizeof names[nf], "%s", f);
            if (!(hist[nf] = gsl_histogram_alloc(BINS))) {
                snprintf(err, RIP_ERR_LEN, "out of memory");
                s = RIP_S_NOMEM;
                break;
            }
            gsl_histogram_set_ranges_uniform(hist[nf], 0.0, MARGIN_DECADES);
            nf++;
        }
        int64_t margin = sqlite3_column_int64(st, 1);
        if (margin < 1) {   /* its logarithm would be -inf or NaN */
            snprintf(err, RIP_ERR_LEN, "%s: a loose margin of %s is %lld, below 1 scalar (damaged database)",
                     rip_figure_names[RIP_FIG_MARGINS], f, (long long)margin);
            s = RIP_S_DATA;
            break;
        }
        double lg = log10((double)margin);
        clamped[nf - 1] += lg >= 6.0;
        gsl_histogram_increment(hist[nf - 1], lg < 6.0 ? lg : 5.999);
        total[nf - 1]++;
    }
    sqlite3_finalize(st);
    if (s == RIP_OK)
        s = margins_draw(o, hist, names, total, clamped, nf, err);
    for (int f = 0; f < nf; f++)
        gsl_histogram_free(hist[f]);
    return s;
}

/* ------------------------------------------------------------ RiP vs herringbone */

static const char riphb_sql[] =
    "SELECT r.rip_padded_taps + r.n_in_padded, r.herringbone_taps + r.n_in_padded FROM layer_results r";
static const char riphb_range_sql[] =
    "SELECT min(r.herringbone_taps + r.n_in_padded), max(r.herringbone_taps + r.n_in_padded) FROM layer_results r";

/* fig_rip_hb's counts: the 2-D histogram and the legend's numbers. */
typedef struct riphb {
    gsl_histogram2d *h2;
    int decades;                        /* x: 10^x0 .. 10^(x0 + decades) */
    int x0;
    int64_t below, equal, above, clipped;
    double rmin, rmax;
} riphb;

enum { RIPHB_PER_DECADE = 8, RIPHB_NY = 40 };
static const double riphb_ylo = 0.5, riphb_yhi = 2.0;
/* the shade of a cell: log count on a ramp from light to full blue */
static const unsigned riphb_light = 0xdcdcff, riphb_dark = 0x0000ff;

/* The decades the herringbone workspaces span, then the histogram of every
** layer into *k (k->h2 allocated, also on failure).  RIP_OK or a status with err. */
static rip_status riphb_count(sqlite3 *db, riphb *k, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    rip_status s = prep(db, riphb_range_sql, &st, err);
    int64_t lo = 1, hi = 10;
    if (s == RIP_OK && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        lo = sqlite3_column_int64(st, 0);
        hi = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (s != RIP_OK)
        return s;
    k->x0 = (int)floor(log10((double)(lo > 1 ? lo : 1)));
    k->decades = (int)ceil(log10((double)(hi > 1 ? hi : 1)) - 1e-12) - k->x0;
    k->decades = k->decades < 1 ? 1 : k->decades;
    const double xlo = k->x0, xhi = k->x0 + k->decades;
    if (!(k->h2 = gsl_histogram2d_alloc((size_t)(RIPHB_PER_DECADE * k->decades), RIPHB_NY))) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    gsl_histogram2d_set_ranges_uniform(k->h2, xlo, xhi, riphb_ylo, riphb_yhi);
    k->rmin = 1e300;
    s = prep(db, riphb_sql, &st, err);
    while (s == RIP_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t wr = sqlite3_column_int64(st, 0), wh = sqlite3_column_int64(st, 1);
        k->below += wr < wh;
        k->equal += wr == wh;
        k->above += wr > wh;
        double r = wh > 0 ? (double)wr / (double)wh : 1.0;
        k->rmin = r < k->rmin ? r : k->rmin;
        k->rmax = r > k->rmax ? r : k->rmax;
        k->clipped += r < riphb_ylo || r >= riphb_yhi;
        double x = log10((double)(wh > 1 ? wh : 1));
        double y = r < riphb_ylo ? riphb_ylo : r >= riphb_yhi ? riphb_yhi - 1e-9 : r;
        gsl_histogram2d_increment(k->h2, x < xlo ? xlo : x < xhi ? x : xhi - 1e-9, y);
    }
    sqlite3_finalize(st);
    return s;
}

/* The legend right of the plot at x lx: the counts, the dashed line, the
** colour bar of layers per cell (log scale, 1 to mx). */
static void riphb_legend(rip_svg *c, const riphb *k, double lx, int top, int ph, double mx)
{
    rip_svg_text(c, lx, top + 12, "font-weight=\"bold\"", "%s", "layers");
    rip_svg_text(c, lx, top + 30, NULL, "RiP below: %lld", (long long)k->below);
    rip_svg_text(c, lx, top + 48, NULL, "equal: %lld", (long long)k->equal);
    rip_svg_text(c, lx, top + 66, NULL, "RiP above: %lld", (long long)k->above);
    rip_svg_text(c, lx, top + 90, NULL, "ratio %.3f to %.3f", k->rmin, k->rmax);
    rip_svg_text(c, lx, top + 108, NULL, "outside the axis: %lld", (long long)k->clipped);
    rip_svg_line(c, lx, top + 128, lx + 24, top + 128, "stroke=\"#d62728\" stroke-dasharray=\"4 3\"");
    rip_svg_text(c, lx + 30, top + 132, NULL, "%s", "equal workspaces");
    const double cy = top + 186, chh = ph - 186;
    rip_svg_text(c, lx, cy - 26, "font-weight=\"bold\"", "%s", "layers per cell");
    rip_svg_text(c, lx, cy - 10, "font-size=\"10\"", "log scale, 1 to %.0f", mx);
    rip_svg_colorbar(c, lx, cy, 14, chh, 32, riphb_light, riphb_dark);
    if (mx > 1) {
        rip_svg_axis bar = {RIP_SVG_RIGHT, lx + 14, cy + chh, cy, 1, mx, true, 0};
        rip_svg_axis_log(c, &bar);
    }
}

static rip_status fig_rip_hb(sqlite3 *db, FILE *o, char err[RIP_ERR_LEN])
{
    /* x: log10 of the herringbone workspace over the decades the sweep
    ** spans; y: RiP / herringbone workspace, whose spread is what a reader
    ** looks for (a log-log plot of the two workspaces hides it on the
    ** diagonal).  Ratios outside the y axis are drawn in the edge row and
    ** counted in the legend. */
    riphb k = {0};
    rip_status s = riphb_count(db, &k, err);
    if (s == RIP_OK) {
        const int left = 80, top = 48, pw = 576, ph = 400, NX = RIPHB_PER_DECADE * k.decades;
        const double ylo = riphb_ylo, yhi = riphb_yhi;
        rip_svg c;
        header(&c, o, left + pw + 190, top + ph + 56,
               "RiP (rip_padded_taps) against herringbone (herringbone_taps) workspace, simulated, per sweep layer");
        rip_svg_axis y = {RIP_SVG_LEFT, left, top + ph, top, ylo, yhi, false, pw};
        rip_svg_axis_linear(&c, &y, 0.25, NULL);
        rip_svg_axis_title(&c, &y, 40, "RiP workspace / herringbone workspace");
        double mx = gsl_histogram2d_max_val(k.h2);
        const double cw = (double)pw / NX, ch = (double)ph / RIPHB_NY;
        for (int i = 0; i < NX; i++)
            for (int j = 0; j < RIPHB_NY; j++) {
                double n = gsl_histogram2d_get(k.h2, (size_t)i, (size_t)j);
                if (n <= 0)
                    continue;
                /* shade by log count, so single layers stay visible */
                char fill[48];
                rip_svg_ramp_fill(fill, mx > 1 ? log(n) / log(mx) : 1.0, riphb_light, riphb_dark);
                rip_svg_rect_titled(&c, left + cw * i, top + ph - ch * (j + 1), cw, ch, fill, "%.0f layers", n);
            }
        double y1 = rip_svg_axis_pos(&y, 1.0);
        rip_svg_rect(&c, left, top, pw, ph, "fill=\"none\" stroke=\"#333\"");
        rip_svg_line(&c, left, y1, left + pw, y1, "stroke=\"#d62728\" stroke-dasharray=\"4 3\"");
        double p = 1;
        for (int e = 0; e < k.x0; e++)
            p *= 10;
        rip_svg_axis x = {RIP_SVG_BOTTOM, top + ph, left, left + pw, p, p, true, 0};
        for (int e = 0; e < k.decades; e++)
            x.hi *= 10;
        rip_svg_axis_log(&c, &x);
        rip_svg_axis_title(&c, &x, 34, "herringbone workspace, herringbone_taps + N_in_padded (scalars, log scale)");
        riphb_legend(&c, &k, left + pw + 16, top, ph, mx);
        s = rip_svg_end(&c, rip_figure_names[RIP_FIG_RIP_HB], err);
    }
    if (k.h2)
        gsl_histogram2d_free(k.h2);
    return s;
}

const char *const rip_figure_names[RIP_FIG_COUNT] = {"fig_verdicts.svg", "fig_margins.svg", "fig_rip_hb.svg"};

rip_status rip_figure_write(sqlite3 *db, rip_figure which, FILE *out, char err[RIP_ERR_LEN])
{
    rip_status s = which == RIP_FIG_VERDICTS ? fig_verdicts(db, out, err)
                 : which == RIP_FIG_MARGINS  ? fig_margins(db, out, err)
                                             : fig_rip_hb(db, out, err);
    if (s == RIP_OK && ferror(out)) {
        snprintf(err, RIP_ERR_LEN, "cannot write %s", rip_figure_names[which]);
        s = RIP_S_IO;
    }
    return s;
}
