/*
** figures.c — the sweep's figures as SVG (figures.h): verdict shares per
** generator category, loose margins per closed form, RiP against
** herringbone workspace.  Drawn on the SVG canvas (svg.h): fixed precision,
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

/* The judged verdicts of the paper's bounds per layer, pooled per category. */
static const char verdicts_sql[] =
    "SELECT g.generator, g.tier,\n"
    "       sum(v.verdict = 'unsafe'), sum(v.verdict = 'tight'), sum(v.verdict = 'loose'), sum(v.verdict = 'n/a')\n"
    "FROM verdicts v JOIN layers l USING (layer_idx) JOIN generators g ON g.generator = l.generator\n"
    "WHERE v.formula <> 'naive_workspace'\n"
    "GROUP BY g.generator ORDER BY g.ord";

/* One generator category's bar of fig_verdicts. */
typedef struct verdict_row {
    char name[48];
    int tier;
    int64_t v[4];
} verdict_row;

static rip_status fig_verdicts(sqlite3 *db, FILE *o, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    rip_status s = prep(db, verdicts_sql, &st, err);
    if (s != RIP_OK)
        return s;
    static const char *const col[4] = {"#d62728", "#2ca02c", "#ff7f0e", "#c7c7c7"};
    static const char *const lab[4] = {"unsafe", "tight", "loose", "n/a"};
    const int left = 200, top = 40, bar = 18, width = 560;
    /* the rows first: the figure's height depends on their number */
    verdict_row *row = NULL;
    int rows = 0, cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (rows == cap) {
            verdict_row *g = realloc(row, (size_t)(cap = cap ? 2 * cap : 32) * sizeof *row);
            if (!g) {
                free(row);
                sqlite3_finalize(st);
                snprintf(err, RIP_ERR_LEN, "out of memory");
                return RIP_S_NOMEM;
            }
            row = g;
        }
        verdict_row *r = &row[rows++];
        snprintf(r->name, sizeof r->name, "%s", (const char *)sqlite3_column_text(st, 0));
        r->tier = sqlite3_column_int(st, 1);
        for (int k = 0; k < 4; k++)
            r->v[k] = sqlite3_column_int64(st, 2 + k);
    }
    sqlite3_finalize(st);

    int h = top + rows * (bar + 4) + 60;
    rip_svg c;
    header(&c, o, left + width + 30, h,
           "Verdicts of Eq. 1, Cor. 1, Thm. 4, 11, 13 per generator category (share of formula x layer)");
    for (int i = 0; i < rows; i++) {
        const verdict_row *r = &row[i];
        int64_t tot = r->v[0] + r->v[1] + r->v[2] + r->v[3];
        int y = top + i * (bar + 4);
        rip_svg_text(&c, left - 6, y + 13, "text-anchor=\"end\"", "%s (tier %d)", r->name, r->tier);
        double x = left;
        for (int k = 0; k < 4 && tot > 0; k++) {
            double w = (double)width * (double)r->v[k] / (double)tot;
            char fill[32];
            snprintf(fill, sizeof fill, "fill=\"%s\"", col[k]);
            if (r->v[k] > 0)
                rip_svg_rect_titled(&c, x, y, w, bar, fill, "%s: %lld of %lld", lab[k], (long long)r->v[k],
                                    (long long)tot);
            x += w;
        }
    }
    free(row);
    for (int i = 0; i <= 4; i++) {
        int x = left + width * i / 4;
        rip_svg_line(&c, x, top - 2, x, h - 52, "stroke=\"#444\" stroke-width=\"0.5\"");
        rip_svg_text(&c, x, h - 40, "text-anchor=\"middle\"", "%d%%", 25 * i);
    }
    for (int k = 0; k < 4; k++) {
        char fill[32];
        snprintf(fill, sizeof fill, "fill=\"%s\"", col[k]);
        rip_svg_rect(&c, left + 120 * k, h - 26, 12, 12, fill);
        rip_svg_text(&c, left + 120 * k + 16, h - 16, NULL, "%s", lab[k]);
    }
    return rip_svg_end(&c, rip_figure_names[RIP_FIG_VERDICTS], err);
}

/* ------------------------------------------------------------ loose margins */

static const char margins_sql[] =
    "SELECT formula, margin FROM verdicts WHERE verdict = 'loose' ORDER BY formula, margin";

static rip_status fig_margins(sqlite3 *db, FILE *o, char err[RIP_ERR_LEN])
{
    enum { BINS = 24, MAXF = 8 };
    /* log10(margin) in [0, 6): margins are >= 1 scalar; the top bin takes the rest */
    gsl_histogram *hist[MAXF] = {NULL};
    char names[MAXF][32];
    int nf = 0;
    int64_t total[MAXF] = {0};
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
            gsl_histogram_set_ranges_uniform(hist[nf], 0.0, 6.0);
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
        gsl_histogram_increment(hist[nf - 1], lg < 6.0 ? lg : 5.999);
        total[nf - 1]++;
    }
    sqlite3_finalize(st);
    if (s == RIP_OK) {
        const int left = 70, top = 40, pw = 600, ph = 140, gap = 50;
        int h = top + (nf ? nf : 1) * (ph + gap) + 10;
        rip_svg c;
        header(&c, o, left + pw + 40, h, "Loose margins, value - truth (scalars, log scale), per closed form");
        if (nf == 0)
            rip_svg_text(&c, left, top + 20, NULL, "no loose verdict");
        for (int f = 0; f < nf; f++) {
            int y0 = top + f * (ph + gap);
            double mx = gsl_histogram_max_val(hist[f]);
            rip_svg_text(&c, left, y0 + 8, "font-size=\"12\"", "%s: %lld loose layers", names[f], (long long)total[f]);
            for (int b = 0; b < BINS; b++) {
                double n = gsl_histogram_get(hist[f], (size_t)b);
                double bh = mx > 0 ? (ph - 20) * n / mx : 0;
                if (n > 0)
                    rip_svg_rect_titled(&c, left + (double)pw * b / BINS, y0 + ph - bh, (double)pw / BINS - 1, bh,
                                        "fill=\"#1f77b4\"", "%.0f layers", n);
            }
            rip_svg_line(&c, left, y0 + ph, left + pw, y0 + ph, "stroke=\"black\"");
            for (int d = 0; d <= 6; d++)
                rip_svg_text(&c, left + pw * d / 6, y0 + ph + 14, "text-anchor=\"middle\"", "1e%d", d);
            rip_svg_text(&c, left - 4, y0 + 24, "text-anchor=\"end\"", "%.0f", mx);
        }
        s = rip_svg_end(&c, rip_figure_names[RIP_FIG_MARGINS], err);
    }
    for (int f = 0; f < nf; f++)
        gsl_histogram_free(hist[f]);
    return s;
}

/* ------------------------------------------------------------ RiP vs herringbone */

static const char riphb_sql[] =
    "SELECT r.rip_padded_taps + r.n_in_padded, r.herringbone_taps + r.n_in_padded FROM layer_results r";

static rip_status fig_rip_hb(sqlite3 *db, FILE *o, char err[RIP_ERR_LEN])
{
    /* x: log10 of the herringbone workspace; y: RiP / herringbone workspace,
    ** whose spread is what a reader looks for (a log-log plot of the two
    ** workspaces hides it on the diagonal).  Ratios outside [YLO, YHI] are
    ** drawn in the edge row and counted in the legend. */
    enum { NX = 48, NY = 40 };
    const double xlo = 0.0, xhi = 8.0, ylo = 0.5, yhi = 2.0;
    gsl_histogram2d *h2 = gsl_histogram2d_alloc(NX, NY);
    if (!h2) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    gsl_histogram2d_set_ranges_uniform(h2, xlo, xhi, ylo, yhi);
    sqlite3_stmt *st = NULL;
    int64_t below = 0, equal = 0, above = 0, clipped = 0;
    double rmin = 1e300, rmax = 0;
    rip_status s = prep(db, riphb_sql, &st, err);
    while (s == RIP_OK && sqlite3_step(st) == SQLITE_ROW) {
        int64_t wr = sqlite3_column_int64(st, 0), wh = sqlite3_column_int64(st, 1);
        below += wr < wh;
        equal += wr == wh;
        above += wr > wh;
        double r = wh > 0 ? (double)wr / (double)wh : 1.0;
        rmin = r < rmin ? r : rmin;
        rmax = r > rmax ? r : rmax;
        clipped += r < ylo || r >= yhi;
        double x = log10((double)(wh > 1 ? wh : 1));
        double y = r < ylo ? ylo : r >= yhi ? yhi - 1e-9 : r;
        gsl_histogram2d_increment(h2, x < xhi ? x : xhi - 1e-9, y);
    }
    sqlite3_finalize(st);
    if (s == RIP_OK) {
        const int left = 70, top = 40, pw = 576, ph = 400;
        rip_svg c;
        header(&c, o, left + pw + 200, top + ph + 60,
               "RiP (row-major, taps) against herringbone workspace, simulated, per sweep layer");
        double mx = gsl_histogram2d_max_val(h2);
        const double cw = (double)pw / NX, ch = (double)ph / NY;
        for (int i = 0; i < NX; i++)
            for (int j = 0; j < NY; j++) {
                double n = gsl_histogram2d_get(h2, (size_t)i, (size_t)j);
                if (n <= 0)
                    continue;
                /* shade by log count, so single layers stay visible */
                double t = mx > 1 ? log(n) / log(mx) : 1.0;
                int g = (int)lround(220.0 * (1.0 - t));
                char fill[48];
                snprintf(fill, sizeof fill, "fill=\"rgb(%d,%d,255)\"", g, g);
                rip_svg_rect_titled(&c, left + cw * i, top + ph - ch * (j + 1), cw, ch, fill, "%.0f layers", n);
            }
        double y1 = top + ph - ph * (1.0 - ylo) / (yhi - ylo);
        rip_svg_rect(&c, left, top, pw, ph, "fill=\"none\" stroke=\"black\"");
        rip_svg_line(&c, left, y1, left + pw, y1, "stroke=\"#d62728\" stroke-dasharray=\"4 3\"");
        for (int d = 0; d <= 8; d += 2)
            rip_svg_text(&c, left + pw * d / 8, top + ph + 14, "text-anchor=\"middle\"", "1e%d", d);
        for (int k = 0; k <= 6; k++) {
            double r = ylo + (yhi - ylo) * k / 6;
            rip_svg_text(&c, left - 4, top + ph - ph * (r - ylo) / (yhi - ylo) + 4, "text-anchor=\"end\"", "%.2f", r);
        }
        rip_svg_text(&c, left + pw / 2, top + ph + 34, "text-anchor=\"middle\"",
                     "herringbone workspace (scalars, log scale)");
        char rot[64];
        snprintf(rot, sizeof rot, "transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\"", top + ph / 2);
        rip_svg_text(&c, 14, top + ph / 2, rot, "RiP / herringbone workspace");
        const int lx = left + pw + 12;
        rip_svg_text(&c, lx, top + 20, NULL, "RiP below: %lld", (long long)below);
        rip_svg_text(&c, lx, top + 38, NULL, "equal: %lld", (long long)equal);
        rip_svg_text(&c, lx, top + 56, NULL, "RiP above: %lld", (long long)above);
        rip_svg_text(&c, lx, top + 80, NULL, "ratio %.3f to %.3f", rmin, rmax);
        rip_svg_text(&c, lx, top + 98, NULL, "outside the axis: %lld", (long long)clipped);
        rip_svg_text(&c, lx, top + 122, NULL, "dashed: equal workspaces");
        rip_svg_text(&c, lx, top + 140, NULL, "shade: log count, max %.0f", mx);
        s = rip_svg_end(&c, rip_figure_names[RIP_FIG_RIP_HB], err);
    }
    gsl_histogram2d_free(h2);
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
