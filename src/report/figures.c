/*
** figures.c — the sweep's figures as SVG (figures.h): verdict shares per
** generator category, loose margins per closed form, RiP against
** herringbone workspace.  Plain SVG text, fixed precision, no timestamps:
** the same database gives the same bytes.  Every number with decimals is
** written through finite_fmt.h: one that is not finite fails the figure
** (RIP_S_INTERNAL) rather than reach the SVG.
*/
#include "figures.h"

#include "finite_fmt.h"

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

static void header(FILE *o, int w, int h, const char *title)
{
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n"
               "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">%s</text>\n",
            w, h, w, h, w, h, w / 2, title);
}

/* ------------------------------------------------------------ verdict shares */

/* The judged verdicts of the paper's bounds per layer, pooled per category. */
static const char verdicts_sql[] =
    "SELECT g.generator, g.tier,\n"
    "       sum(v.verdict = 'unsafe'), sum(v.verdict = 'tight'), sum(v.verdict = 'loose'), sum(v.verdict = 'n/a')\n"
    "FROM verdicts v JOIN layers l USING (layer_idx) JOIN generators g ON g.generator = l.generator\n"
    "WHERE v.formula <> 'naive_workspace'\n"
    "GROUP BY g.generator ORDER BY g.ord";

static rip_status fig_verdicts(sqlite3 *db, FILE *o, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    rip_status s = prep(db, verdicts_sql, &st, err);
    if (s != RIP_OK)
        return s;
    static const char *const col[4] = {"#d62728", "#2ca02c", "#ff7f0e", "#c7c7c7"};
    static const char *const lab[4] = {"unsafe", "tight", "loose", "n/a"};
    const int left = 200, top = 40, bar = 18, width = 560;
    int rows = 0;
    bool finite = true;
    /* the bars go to memory first: the figure's height depends on their number */
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) {
        sqlite3_finalize(st);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t v[4], tot = 0;
        for (int k = 0; k < 4; k++)
            tot += v[k] = sqlite3_column_int64(st, 2 + k);
        int y = top + rows * (bar + 4);
        fprintf(m, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s (tier %d)</text>\n", left - 6, y + 13,
                (const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1));
        double x = left;
        for (int k = 0; k < 4 && tot > 0; k++) {
            double w = (double)width * (double)v[k] / (double)tot;
            if (v[k] > 0 &&
                rip_fmt_fprintf(m, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\">"
                                   "<title>%s: %lld of %lld</title></rect>\n",
                                x, y, w, bar, col[k], lab[k], (long long)v[k], (long long)tot) == RIP_FMT_NONFINITE)
                finite = false;
            x += w;
        }
        rows++;
    }
    sqlite3_finalize(st);
    if (fclose(m) != 0 || !buf) {
        free(buf);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    if (!finite) {
        free(buf);
        snprintf(err, RIP_ERR_LEN, "%s: a bar's position is not a finite number", rip_figure_names[RIP_FIG_VERDICTS]);
        return RIP_S_INTERNAL;
    }
    int h = top + rows * (bar + 4) + 60;
    header(o, left + width + 30, h,
           "Verdicts of Eq. 1, Cor. 1, Thm. 4, 11, 13 per generator category (share of formula x layer)");
    fwrite(buf, 1, len, o);
    free(buf);
    for (int i = 0; i <= 4; i++) {
        int x = left + width * i / 4;
        fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\" stroke-width=\"0.5\"/>"
                   "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%d%%</text>\n",
                x, top - 2, x, h - 52, x, h - 40, 25 * i);
    }
    for (int k = 0; k < 4; k++)
        fprintf(o, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">%s</text>\n",
                left + 120 * k, h - 26, col[k], left + 120 * k + 16, h - 16, lab[k]);
    fprintf(o, "</svg>\n");
    return RIP_OK;
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
    bool finite = true;
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
        header(o, left + pw + 40, h, "Loose margins, value - truth (scalars, log scale), per closed form");
        if (nf == 0)
            fprintf(o, "<text x=\"%d\" y=\"%d\">no loose verdict</text>\n", left, top + 20);
        for (int f = 0; f < nf; f++) {
            int y0 = top + f * (ph + gap);
            double mx = gsl_histogram_max_val(hist[f]);
            fprintf(o, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s: %lld loose layers</text>\n", left, y0 + 8,
                    names[f], (long long)total[f]);
            for (int b = 0; b < BINS; b++) {
                double c = gsl_histogram_get(hist[f], (size_t)b);
                double bh = mx > 0 ? (ph - 20) * c / mx : 0;
                if (c > 0 &&
                    rip_fmt_fprintf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                                       "fill=\"#1f77b4\"><title>%.0f layers</title></rect>\n",
                                    left + (double)pw * b / BINS, y0 + ph - bh, (double)pw / BINS - 1, bh,
                                    c) == RIP_FMT_NONFINITE)
                    finite = false;
            }
            fprintf(o, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n", left, y0 + ph,
                    left + pw, y0 + ph);
            for (int d = 0; d <= 6; d++)
                fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n", left + pw * d / 6,
                        y0 + ph + 14, d);
            if (rip_fmt_fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>\n", left - 4, y0 + 24,
                                mx) == RIP_FMT_NONFINITE)
                finite = false;
        }
        fprintf(o, "</svg>\n");
        if (!finite) {
            snprintf(err, RIP_ERR_LEN, "%s: a bar is not a finite number", rip_figure_names[RIP_FIG_MARGINS]);
            s = RIP_S_INTERNAL;
        }
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
    bool finite = true;
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
        header(o, left + pw + 200, top + ph + 60,
               "RiP (row-major, taps) against herringbone workspace, simulated, per sweep layer");
        double mx = gsl_histogram2d_max_val(h2);
        const double cw = (double)pw / NX, ch = (double)ph / NY;
        for (int i = 0; i < NX; i++)
            for (int j = 0; j < NY; j++) {
                double c = gsl_histogram2d_get(h2, (size_t)i, (size_t)j);
                if (c <= 0)
                    continue;
                /* shade by log count, so single layers stay visible */
                double t = mx > 1 ? log(c) / log(mx) : 1.0;
                int g = (int)lround(220.0 * (1.0 - t));
                if (rip_fmt_fprintf(o, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                                       "fill=\"rgb(%d,%d,255)\"><title>%.0f layers</title></rect>\n",
                                    left + cw * i, top + ph - ch * (j + 1), cw, ch, g, g, c) == RIP_FMT_NONFINITE)
                    finite = false;
            }
        double y1 = top + ph - ph * (1.0 - ylo) / (yhi - ylo);
        finite &= rip_fmt_fprintf(o,
                                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                                  "stroke=\"black\"/>\n<line x1=\"%d\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
                                  "stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n",
                                  left, top, pw, ph, left, y1, left + pw, y1) != RIP_FMT_NONFINITE;
        for (int d = 0; d <= 8; d += 2)
            fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n", left + pw * d / 8,
                    top + ph + 14, d);
        for (int k = 0; k <= 6; k++) {
            double r = ylo + (yhi - ylo) * k / 6;
            finite &= rip_fmt_fprintf(o, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">%.2f</text>\n", left - 4,
                                      top + ph - ph * (r - ylo) / (yhi - ylo) + 4, r) != RIP_FMT_NONFINITE;
        }
        fprintf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">herringbone workspace (scalars, log scale)</text>\n"
                   "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" text-anchor=\"middle\">RiP / "
                   "herringbone workspace</text>\n",
                left + pw / 2, top + ph + 34, top + ph / 2, top + ph / 2);
        const int lx = left + pw + 12;
        finite &= rip_fmt_fprintf(o,
                                  "<text x=\"%d\" y=\"%d\">RiP below: %lld</text>\n"
                                  "<text x=\"%d\" y=\"%d\">equal: %lld</text>\n"
                                  "<text x=\"%d\" y=\"%d\">RiP above: %lld</text>\n"
                                  "<text x=\"%d\" y=\"%d\">ratio %.3f to %.3f</text>\n"
                                  "<text x=\"%d\" y=\"%d\">outside the axis: %lld</text>\n"
                                  "<text x=\"%d\" y=\"%d\">dashed: equal workspaces</text>\n"
                                  "<text x=\"%d\" y=\"%d\">shade: log count, max %.0f</text>\n</svg>\n",
                                  lx, top + 20, (long long)below, lx, top + 38, (long long)equal, lx, top + 56,
                                  (long long)above, lx, top + 80, rmin, rmax, lx, top + 98, (long long)clipped, lx,
                                  top + 122, lx, top + 140, mx) != RIP_FMT_NONFINITE;
        if (!finite) {
            snprintf(err, RIP_ERR_LEN, "%s: a cell or label is not a finite number",
                     rip_figure_names[RIP_FIG_RIP_HB]);
            s = RIP_S_INTERNAL;
        }
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
