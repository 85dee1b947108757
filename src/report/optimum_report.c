/*
** optimum_report.c — results/optimum.md, results/fig_optimum.svg and
** results/fig3.svg (optimum_report.h): the traversal-optimal gap
** (sim/optimum.h) against the fixed visiting orders of the paper.
**
** Every number comes from the exact search and the simulator; the layer
** sets are fixed (the restricted grid below, PCG32 streams for the
** anisotropic set), so the files are byte-reproducible.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimum.h"
#include "optimum_report.h"
#include "pcg32.h"
#include "sim.h"
#include "spec.h"
#include "svg.h"

/* fig3's grids: 3x6 and 6x3 */
#define FIG3_MAX_PIXELS 18
/* Largest grid of both sets: 2^16 states a layer keeps each file in seconds. */
#define SET_MAX_PIXELS 16

typedef struct {
    rip_layer L;
    int64_t opt, lower, row;        /* optimum, its lower bound, row-major under the reader rule */
    int64_t truth[RIP_CONFIG_COUNT];
    int64_t order[RIP_OPTIMUM_MAX_PIXELS];
} row;

static const int64_t restricted_k[] = {1, 3, 5, 7, 9};
enum { N_K = sizeof restricted_k / sizeof restricted_k[0], N_RESTRICTED = 4 * N_K * 8 * 8 };

/* Layer i of the restricted set: output n x n (n = 1..4), odd k, cin and
** cout 1..8, p = 0, s = d = 1, square input h = n + k - 1. */
static rip_layer restricted_layer(int i)
{
    const int64_t cout = i % 8 + 1, cin = i / 8 % 8 + 1, k = restricted_k[i / 64 % N_K], n = i / (64 * N_K) + 1;
    return rip_layer_make(cin, cout, n + k - 1, n + k - 1, k, k, 1, 1, 1, 1, 0, 0);
}

/* Layer i of the anisotropic set: its own PCG32 stream; rectangular kernels,
** stride, dilation, per-side padding; redrawn until it derives, has 2 to
** SET_MAX_PIXELS output pixels and is not restricted. */
static rip_layer aniso_layer(int i)
{
    rip_pcg32 g;
    rip_pcg32_seed(&g, RIP_OPTIMUM_ANISO_SEED, (uint64_t)i);
    char err[RIP_ERR_LEN];
    for (;;) {
        rip_layer L = rip_layer_make(rip_pcg32_range(&g, 1, 8), rip_pcg32_range(&g, 1, 8), rip_pcg32_range(&g, 1, 12),
                                     rip_pcg32_range(&g, 1, 12), rip_pcg32_range(&g, 1, 4), rip_pcg32_range(&g, 1, 4),
                                     rip_pcg32_range(&g, 1, 3), rip_pcg32_range(&g, 1, 3), rip_pcg32_range(&g, 1, 2),
                                     rip_pcg32_range(&g, 1, 2), 0, 0);
        L.p_top = rip_pcg32_range(&g, 0, L.d_h * (L.k_h - 1));
        L.p_bottom = rip_pcg32_range(&g, 0, L.d_h * (L.k_h - 1));
        L.p_left = rip_pcg32_range(&g, 0, L.d_w * (L.k_w - 1));
        L.p_right = rip_pcg32_range(&g, 0, L.d_w * (L.k_w - 1));
        if (rip_layer_derive(&L, err) == 0 && L.h_out * L.w_out >= 2 &&
            L.h_out * L.w_out <= SET_MAX_PIXELS && !rip_layer_is_restricted(&L))
            return L;
    }
}

/* Optimum and the six truths of r->L (derived here).  RIP_OK or a status with err. */
static rip_status solve(row *r, int64_t max_pixels, char err[RIP_ERR_LEN])
{
    if (rip_layer_derive(&r->L, err) != 0)
        return RIP_S_INTERNAL;
    rip_optimum o;
    rip_status st = rip_optimum_search(&r->L, max_pixels, &o, err);
    if (st != RIP_OK)
        return st;
    r->opt = o.gap;
    r->lower = o.lower;
    r->row = o.row_gap;
    memcpy(r->order, o.order, (size_t)o.n_pix * sizeof *o.order);
    rip_optimum_free(&o);
    if (rip_sim_truths(&r->L, RIP_ENGINE_FAST, RIP_SEARCH_BRACKET, r->truth, NULL, NULL, err) != 0)
        return RIP_S_INTERNAL;
    return RIP_OK;
}

/* Solve n layers made by make(i) into *rows (malloc'd).  progress counts. */
static rip_status solve_set(rip_layer (*make)(int), int n, int64_t done0, int64_t total, row **rows,
                            const rip_progress_cb *progress, char err[RIP_ERR_LEN])
{
    row *rs = calloc((size_t)n, sizeof *rs);
    if (rs == NULL) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        if (i % 64 == 0)
            rip_progress_report(progress, done0 + i, total, "layers");
        rs[i].L = make(i);
        rip_status st = solve(&rs[i], SET_MAX_PIXELS, err);
        if (st != RIP_OK) {
            free(rs);
            return st;
        }
    }
    *rows = rs;
    return RIP_OK;
}

/* The visit order of r as "(row,col) (row,col) ..." into buf. */
static void order_text(const row *r, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int64_t t = 0; t < r->L.h_out * r->L.w_out && at + 16 < len; t++)
        at += (size_t)snprintf(buf + at, len - at, "%s(%lld,%lld)", t ? " " : "",
                               (long long)(r->order[t] / r->L.w_out), (long long)(r->order[t] % r->L.w_out));
}

static double pct(int64_t a, int64_t b)
{
    return b > 0 ? 100.0 * (double)a / (double)b : 0.0;
}

/* The four RiP configurations' smallest truth: the best RiP execution. */
static int64_t best_rip(const row *r)
{
    int64_t m = r->truth[RIP_CONFIG_PADDED_GATHER];
    for (int e = RIP_CONFIG_PADDED_TAPS; e <= RIP_CONFIG_DENSE_TAPS; e++)
        if (r->truth[e] < m)
            m = r->truth[e];
    return m;
}

/* Per fixed-order gap: how often the optimum is below it, and the largest
** difference with its layer. */
static void compare_rows(FILE *f, const row *rs, int n)
{
    static const struct { const char *name; int e; } cols[] = {
        {"herringbone_taps_reader (herringbone order)", RIP_CONFIG_HB_TAPS_READER},
        {"herringbone_taps (window release)", RIP_CONFIG_HB_TAPS},
        {"reader rule in row-major order", -1},
        {"rip_padded_gather", RIP_CONFIG_PADDED_GATHER},
        {"rip_padded_taps", RIP_CONFIG_PADDED_TAPS},
        {"rip_dense_gather", RIP_CONFIG_DENSE_GATHER},
        {"rip_dense_taps", RIP_CONFIG_DENSE_TAPS},
        {"best of the four RiP configurations", -2},
    };
    fprintf(f, "| fixed order | optimum below | optimum equal | optimum above | largest (fixed - optimum) | its layer |\n");
    fprintf(f, "|---|---:|---:|---:|---:|---|\n");
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        int64_t below = 0, equal = 0, above = 0, worst = INT64_MIN;
        int wi = 0;
        for (int i = 0; i < n; i++) {
            const int64_t v = cols[c].e >= 0 ? rs[i].truth[cols[c].e] : cols[c].e == -1 ? rs[i].row : best_rip(&rs[i]);
            below += rs[i].opt < v;
            equal += rs[i].opt == v;
            above += rs[i].opt > v;
            if (v - rs[i].opt > worst) {
                worst = v - rs[i].opt;
                wi = i;
            }
        }
        char spec[256];
        rip_spec_format(&rs[wi].L, spec, sizeof spec);
        fprintf(f, "| %s | %lld (%.1f%%) | %lld (%.1f%%) | %lld (%.1f%%) | %lld | `%s` |\n", cols[c].name,
                (long long)below, pct(below, n), (long long)equal, pct(equal, n), (long long)above, pct(above, n),
                (long long)worst, spec);
    }
}

/* The title and the definition of the optimum. */
static void write_intro(FILE *f)
{
    fprintf(f, "# The traversal-optimal gap against herringbone and RiP\n\n");
    fprintf(f, "Generated by `ripsim tables optimum` (a test regenerates it and compares byte for byte).\n\n");
    fprintf(f, "The *optimum* of a layer is the smallest `herringbone_taps_reader` gap (count-based slot pool, "
               "every input released after its last reader) over **every** visiting order of the output "
               "pixels, found by `ripsim optimal`'s exact search (dynamic programming over the sets of produced "
               "pixels) and confirmed by the simulator run on the order found (it completes at the optimum and "
               "fails one scalar below). The fixed orders are the simulated truths of `ripsim layer`. The RiP "
               "configurations store their input at addresses, not in a pool, so their gaps are compared with "
               "the optimum as workspace numbers, not as the same rule in another order; the row-major order "
               "under the pool rule is that comparison. Where a RiP gap is below the optimum (\"optimum "
               "above\"), RiP's own rule is the cheaper one: a gather configuration reads all of a pixel's taps "
               "before writing it, and the dense layout stores no padding.\n\n");
}

/* The restricted layers rs (N_RESTRICTED): the Gural-Murmann claim, its
** counterexamples and the fixed orders against the optimum. */
static void write_restricted(FILE *f, const row *rs)
{
    int64_t eq_r = 0, eq_w = 0, below_rip = 0;
    for (int i = 0; i < N_RESTRICTED; i++) {
        eq_r += rs[i].opt == rs[i].truth[RIP_CONFIG_HB_TAPS_READER];
        eq_w += rs[i].opt == rs[i].truth[RIP_CONFIG_HB_TAPS];
        below_rip += rs[i].opt < best_rip(&rs[i]);
    }
    fprintf(f, "## Restricted layers: is herringbone optimal (Gural and Murmann)?\n\n");
    fprintf(f, "Every restricted layer (p = 0, s = d = 1, odd square kernel, square input) with an output "
               "grid of n x n, n = 1..4, kernel k in {1, 3, 5, 7, 9} and C_in, C_out in 1..8: %d layers.\n\n",
            N_RESTRICTED);
    fprintf(f, "- `herringbone_taps_reader` (the herringbone order under the optimum's own rule) equals the "
               "optimum on **%lld of %d** layers; above it on %lld.\n", (long long)eq_r, N_RESTRICTED,
            (long long)(N_RESTRICTED - eq_r));
    fprintf(f, "- `herringbone_taps` (window release, the paper's herringbone) equals the optimum on %lld of %d "
               "(it releases no earlier than the reader rule, so it is never below).\n", (long long)eq_w, N_RESTRICTED);
    fprintf(f, "- The optimum is below the best RiP configuration on %lld of %d.\n\n", (long long)below_rip,
            N_RESTRICTED);
    if (eq_r < N_RESTRICTED) {
        fprintf(f, "Every counterexample (herringbone_taps_reader above the optimum), with an optimal order "
                   "as (row,col) in visit order:\n\n");
        fprintf(f, "| layer | grid | optimum | herringbone reader | herringbone window | optimal order |\n");
        fprintf(f, "|---|---|---:|---:|---:|---|\n");
        for (int i = 0; i < N_RESTRICTED; i++) {
            if (rs[i].opt == rs[i].truth[RIP_CONFIG_HB_TAPS_READER])
                continue;
            char spec[256], ord[512];
            rip_spec_format(&rs[i].L, spec, sizeof spec);
            order_text(&rs[i], ord, sizeof ord);
            fprintf(f, "| `%s` | %lldx%lld | %lld | %lld | %lld | %s |\n", spec, (long long)rs[i].L.h_out,
                    (long long)rs[i].L.w_out, (long long)rs[i].opt, (long long)rs[i].truth[RIP_CONFIG_HB_TAPS_READER],
                    (long long)rs[i].truth[RIP_CONFIG_HB_TAPS], ord);
        }
        fprintf(f, "\n");
    } else {
        fprintf(f, "No counterexample: on every one of these layers the herringbone order is optimal.\n\n");
    }
    fprintf(f, "Per fixed order on the restricted layers:\n\n");
    compare_rows(f, rs, N_RESTRICTED);
}

/* The anisotropic layers as (RIP_OPTIMUM_ANISO_LAYERS): the shares below
** herringbone and RiP and the fixed orders against the optimum. */
static void write_aniso(FILE *f, const row *as)
{
    int64_t below_hb = 0, below_rp = 0, below_both = 0;
    for (int i = 0; i < RIP_OPTIMUM_ANISO_LAYERS; i++) {
        const bool h = as[i].opt < as[i].truth[RIP_CONFIG_HB_TAPS_READER], r = as[i].opt < best_rip(&as[i]);
        below_hb += h;
        below_rp += r;
        below_both += h && r;
    }
    fprintf(f, "\n## Anisotropic layers\n\n");
    fprintf(f, "%d seeded layers (PCG32 seed %u, stream i for layer i): C_in, C_out 1..8, input 1..12 per "
               "axis, kernel 1..4, stride 1..3, dilation 1..2 per axis, each side padded 0..d(k-1) on its own, "
               "output grid of 2 to %d pixels, restricted layers redrawn.\n\n",
            RIP_OPTIMUM_ANISO_LAYERS, RIP_OPTIMUM_ANISO_SEED, SET_MAX_PIXELS);
    fprintf(f, "- Optimum below herringbone (`herringbone_taps_reader`): **%lld (%.1f%%)**.\n", (long long)below_hb,
            pct(below_hb, RIP_OPTIMUM_ANISO_LAYERS));
    fprintf(f, "- Optimum below the best RiP configuration: **%lld (%.1f%%)**.\n", (long long)below_rp,
            pct(below_rp, RIP_OPTIMUM_ANISO_LAYERS));
    fprintf(f, "- Below both: %lld (%.1f%%).\n\n", (long long)below_both, pct(below_both, RIP_OPTIMUM_ANISO_LAYERS));
    compare_rows(f, as, RIP_OPTIMUM_ANISO_LAYERS);
}

/* The five anisotropic layers where herringbone is furthest above the
** optimum, with an optimal order. */
static void write_furthest(FILE *f, const row *as)
{
    fprintf(f, "\nThe five layers where herringbone is furthest above the optimum:\n\n");
    fprintf(f, "| layer | grid | optimum | herringbone reader | best RiP | optimal order |\n|---|---|---:|---:|---:|---|\n");
    int picked[5] = {-1, -1, -1, -1, -1};
    for (int k = 0; k < 5; k++) {
        int64_t best = -1;
        for (int i = 0; i < RIP_OPTIMUM_ANISO_LAYERS; i++) {
            bool used = false;
            for (int j = 0; j < k; j++)
                used |= picked[j] == i;
            const int64_t d = as[i].truth[RIP_CONFIG_HB_TAPS_READER] - as[i].opt;
            if (!used && d > best) {
                best = d;
                picked[k] = i;
            }
        }
        const row *r = &as[picked[k]];
        char spec[256], ord[512];
        rip_spec_format(&r->L, spec, sizeof spec);
        order_text(r, ord, sizeof ord);
        fprintf(f, "| `%s` | %lldx%lld | %lld | %lld | %lld | %s |\n", spec, (long long)r->L.h_out,
                (long long)r->L.w_out, (long long)r->opt, (long long)r->truth[RIP_CONFIG_HB_TAPS_READER],
                (long long)best_rip(r), ord);
    }
}

/* Contract (optimum_report.h). */
rip_status rip_optimum_md_write(FILE *f, const rip_progress_cb *progress, char err[RIP_ERR_LEN])
{
    row *rs = NULL, *as = NULL;
    const int64_t total = N_RESTRICTED + RIP_OPTIMUM_ANISO_LAYERS;
    rip_status st = solve_set(restricted_layer, N_RESTRICTED, 0, total, &rs, progress, err);
    if (st != RIP_OK)
        return st;
    if ((st = solve_set(aniso_layer, RIP_OPTIMUM_ANISO_LAYERS, N_RESTRICTED, total, &as, progress, err)) != RIP_OK) {
        free(rs);
        return st;
    }
    rip_progress_report(progress, total, total, "layers");
    write_intro(f);
    write_restricted(f, rs);
    write_aniso(f, as);
    write_furthest(f, as);
    free(rs);
    free(as);
    return RIP_OK;
}

/* One distinct point of a scatter panel: the layers at (opt, v). */
typedef struct {
    int64_t opt, v, n;
} dot;

/* More layers first, then by coordinates: big discs under small ones, a total order. */
static int dot_cmp(const void *pa, const void *pb)
{
    const dot *a = pa, *b = pb;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    if (a->opt != b->opt)
        return a->opt < b->opt ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v;
}

static const char *const relation_fill[3] = {"fill=\"#d62728\"", "fill=\"#1f77b4\"", "fill=\"#2ca02c\""};

/* The disc radius for n layers at one point: 1.8 px for one, 2.2 px more per decade. */
static double dot_radius(int64_t n)
{
    return 1.8 + 2.2 * log10((double)n);
}

/* One axis of a scatter panel: gap 0..vmax on a log(1 + gap) scale, 8 px
** inset from the corner so the points at 0 stay off the frame. */
static void gap_axis(rip_svg *f, const rip_svg_axis *ax, int64_t vmax, const char *title)
{
    static const int64_t at[] = {0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};
    rip_svg_axis_line(f, ax);
    for (size_t i = 0; i < sizeof at / sizeof at[0] && at[i] <= vmax; i++) {
        char label[24];
        snprintf(label, sizeof label, "%lld", (long long)at[i]);
        rip_svg_axis_tick(f, ax, 1.0 + (double)at[i], label);
    }
    rip_svg_axis_title(f, ax, 30, title);
}

/* One scatter panel at (x0, y0) of size s: fixed-order gap against the
** optimum, one disc per distinct point sized by its layers, coloured by
** the fixed order's relation to the optimum; *most rises to the layers of
** the largest disc.  RIP_OK or RIP_S_NOMEM. */
static rip_status scatter(rip_svg *f, double x0, double y0, double s, const row *rs, int n, int which,
                          const char *title, int64_t vmax, int64_t *most)
{
    dot *d = calloc((size_t)n, sizeof *d);
    if (!d)
        return RIP_S_NOMEM;
    int nd = 0;
    int64_t rel[3] = {0};
    for (int i = 0; i < n; i++) {
        const int64_t v = which >= 0 ? rs[i].truth[which] : best_rip(&rs[i]);
        rel[v > rs[i].opt ? 0 : v == rs[i].opt ? 1 : 2]++;
        int k = 0;
        while (k < nd && (d[k].opt != rs[i].opt || d[k].v != v))
            k++;
        if (k == nd)
            d[nd++] = (dot){rs[i].opt, v, 0};
        d[k].n++;
    }
    qsort(d, (size_t)nd, sizeof *d, dot_cmp);
    if (nd > 0 && d[0].n > *most)
        *most = d[0].n;
    rip_svg_text(f, x0 + s / 2, y0 - 26, "text-anchor=\"middle\" font-size=\"14\"", "%s", title);
    rip_svg_text(f, x0 + s / 2, y0 - 10, "text-anchor=\"middle\" font-size=\"11\"",
                 "%lld above the optimum, %lld equal, %lld below", (long long)rel[0], (long long)rel[1],
                 (long long)rel[2]);
    rip_svg_axis x = {RIP_SVG_BOTTOM, y0 + s, x0 + 8, x0 + s, 1, 1.0 + (double)vmax, true, s};
    rip_svg_axis y = {RIP_SVG_LEFT, x0, y0 + s - 8, y0, 1, 1.0 + (double)vmax, true, s};
    gap_axis(f, &x, vmax, "optimum gap (scalars, log(1 + gap) scale)");
    gap_axis(f, &y, vmax, "fixed order's gap (scalars, log(1 + gap) scale)");
    rip_svg_rect(f, x0, y0, s, s, "fill=\"none\" stroke=\"#444\"");
    rip_svg_line(f, rip_svg_axis_pos(&x, 1), rip_svg_axis_pos(&y, 1), rip_svg_axis_pos(&x, 1.0 + (double)vmax),
                 rip_svg_axis_pos(&y, 1.0 + (double)vmax), "stroke=\"#999\" stroke-dasharray=\"4 3\"");
    for (int k = 0; k < nd; k++) {
        char fill[96];
        snprintf(fill, sizeof fill, "%s fill-opacity=\"0.55\" stroke=\"white\" stroke-width=\"0.5\"",
                 relation_fill[d[k].v > d[k].opt ? 0 : d[k].v == d[k].opt ? 1 : 2]);
        rip_svg_circle(f, rip_svg_axis_pos(&x, 1.0 + (double)d[k].opt), rip_svg_axis_pos(&y, 1.0 + (double)d[k].v),
                       dot_radius(d[k].n), fill);
    }
    free(d);
    return RIP_OK;
}

/* fig_optimum's legend along the bottom from (x, y): the colours, the disc
** sizes and the layers of the largest disc, most. */
static void scatter_legend(rip_svg *f, double x, double y, int64_t most)
{
    static const char *const what[3] = {"fixed order above the optimum", "equal (on the dashed diagonal)",
                                        "below (RiP's own rule is cheaper there)"};
    for (int k = 0; k < 3; k++)
        rip_svg_swatch(f, x + 230 * k, y, relation_fill[k], what[k]);
    rip_svg_text(f, x, y + 26, NULL, "%s", "disc size: layers at the point");
    static const int64_t sizes[3] = {1, 10, 100};
    for (int k = 0; k < 3; k++) {
        rip_svg_circle(f, x + 210 + 70 * k, y + 22, dot_radius(sizes[k]), "fill=\"#777\" fill-opacity=\"0.55\"");
        rip_svg_text(f, x + 222 + 70 * k, y + 26, NULL, "%lld", (long long)sizes[k]);
    }
    rip_svg_text(f, x + 430, y + 26, NULL, "(largest disc: %lld layers)", (long long)most);
}

/* Contract (optimum_report.h). */
rip_status rip_fig_optimum_write(FILE *f, const rip_progress_cb *progress, char err[RIP_ERR_LEN])
{
    row *as = NULL;
    rip_status st = solve_set(aniso_layer, RIP_OPTIMUM_ANISO_LAYERS, 0, RIP_OPTIMUM_ANISO_LAYERS, &as, progress, err);
    if (st != RIP_OK)
        return st;
    int64_t vmax = 1;
    for (int i = 0; i < RIP_OPTIMUM_ANISO_LAYERS; i++) {
        if (as[i].truth[RIP_CONFIG_HB_TAPS_READER] > vmax)
            vmax = as[i].truth[RIP_CONFIG_HB_TAPS_READER];
        if (best_rip(&as[i]) > vmax)
            vmax = best_rip(&as[i]);
    }
    vmax = (vmax + 49) / 50 * 50;
    rip_svg c;
    rip_svg_begin(&c, f, 900, 540, "sans-serif", 0);
    rip_svg_text(&c, 450, 24, "text-anchor=\"middle\" font-size=\"16\"",
                 "Fixed visiting orders against the traversal optimum, %d anisotropic layers (results/optimum.md)",
                 RIP_OPTIMUM_ANISO_LAYERS);
    int64_t most = 0;
    st = scatter(&c, 90, 84, 330, as, RIP_OPTIMUM_ANISO_LAYERS, RIP_CONFIG_HB_TAPS_READER,
                 "herringbone_taps_reader gap", vmax, &most);
    if (st == RIP_OK)
        st = scatter(&c, 530, 84, 330, as, RIP_OPTIMUM_ANISO_LAYERS, -1, "best RiP configuration gap", vmax, &most);
    free(as);
    if (st != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return st;
    }
    scatter_legend(&c, 90, 490, most);
    return rip_svg_end(&c, "fig_optimum", err);
}

/* The centre of output pixel p of a W-wide grid of c px cells at (x0, y0). */
static void cell_centre(double x0, double y0, double c, int64_t W, int64_t p, double *x, double *y)
{
    *x = x0 + (double)(p % W) * c + c / 2;
    *y = y0 + (double)(p / W) * c + c / 2;
}

/* One grid panel: cells numbered by visit step, the order drawn as legs
** (maximal straight runs of unit moves, arrowed, the leg number in a disc
** at each start) and the jumps between legs as dashed grey arrows that
** stop at the next leg's disc.  Needs fig3's markers "leg" and "jump". */
static void grid_panel(rip_svg *f, double x0, double y0, const rip_layer *L, const int64_t *order, const char *title)
{
    const double c = 34, disc = 8;
    const int64_t H = L->h_out, W = L->w_out, P = H * W;
    rip_svg_text(f, x0, y0 - 8, "font-size=\"13\"", "%s", title);
    for (int64_t t = 0; t < P; t++) {
        const int64_t r = order[t] / W, q = order[t] % W;
        rip_svg_rect(f, x0 + q * c, y0 + r * c, c, c, "fill=\"#f4f4f4\" stroke=\"#bbb\"");
        rip_svg_text(f, x0 + q * c + 2, y0 + r * c + 10, "font-size=\"9\" fill=\"#888\"", "%lld", (long long)t);
    }
    /* the legs [start[l], end[l]] */
    int64_t start[RIP_OPTIMUM_MAX_PIXELS], end[RIP_OPTIMUM_MAX_PIXELS], legs = 0;
    for (int64_t t = 0; t < P && legs < RIP_OPTIMUM_MAX_PIXELS;) {
        int64_t u = t + 1, dr = 0, dc = 0;
        if (u < P) {
            dr = order[u] / W - order[t] / W;
            dc = order[u] % W - order[t] % W;
        }
        const bool unit = (dr == 0 && (dc == 1 || dc == -1)) || (dc == 0 && (dr == 1 || dr == -1));
        if (unit)
            while (u + 1 < P && order[u + 1] / W - order[u] / W == dr && order[u + 1] % W - order[u] % W == dc)
                u++;
        else
            u = t;
        start[legs] = t;
        end[legs++] = u;
        t = u + 1;
    }
    for (int64_t l = 0; l + 1 < legs; l++) {
        double ax, ay, bx, by;
        cell_centre(x0, y0, c, W, order[end[l]], &ax, &ay);
        cell_centre(x0, y0, c, W, order[start[l + 1]], &bx, &by);
        const double len = sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay)), k = (len - disc - 1) / len;
        rip_svg_line(f, ax, ay, ax + (bx - ax) * k, ay + (by - ay) * k,
                     "stroke=\"#999\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\" marker-end=\"url(#jump)\"");
    }
    for (int64_t l = 0; l < legs; l++) {
        if (end[l] > start[l]) {
            rip_svg_polyline_begin(f, "fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2.5\" marker-end=\"url(#leg)\"");
            for (int64_t v = start[l]; v <= end[l]; v++) {
                double px, py;
                cell_centre(x0, y0, c, W, order[v], &px, &py);
                rip_svg_point(f, px, py);
            }
            rip_svg_polyline_end(f);
        }
        double cx, cy;
        cell_centre(x0, y0, c, W, order[start[l]], &cx, &cy);
        rip_svg_circle(f, cx, cy, disc, "fill=\"#d62728\"");
        rip_svg_text(f, cx, cy + 3.5, "text-anchor=\"middle\" font-size=\"10\" fill=\"white\"", "%lld",
                     (long long)(l + 1));
    }
}

/* fig3's key along the bottom at y. */
static void fig3_legend(rip_svg *f, double y)
{
    rip_svg_circle(f, 38, y - 4, 8, "fill=\"#d62728\"");
    rip_svg_text(f, 38, y - 0.5, "text-anchor=\"middle\" font-size=\"10\" fill=\"white\"", "%s", "1");
    rip_svg_text(f, 52, y, "font-size=\"12\"", "%s", "a leg starts (numbered in visit order)");
    rip_svg_line(f, 300, y - 4, 336, y - 4, "stroke=\"#1f77b4\" stroke-width=\"2.5\" marker-end=\"url(#leg)\"");
    rip_svg_text(f, 346, y, "font-size=\"12\"", "%s", "a leg: unit moves in one direction");
    rip_svg_line(f, 580, y - 4, 616, y - 4,
                 "stroke=\"#999\" stroke-width=\"1.2\" stroke-dasharray=\"3 2\" marker-end=\"url(#jump)\"");
    rip_svg_text(f, 626, y, "font-size=\"12\"", "%s", "a jump to the next leg");
    rip_svg_text(f, 30, y + 22, "font-size=\"12\" fill=\"#555\"", "%s",
                 "small grey number: the cell's visit step; gap: the workspace beyond the input, in scalars, "
                 "under the herringbone_taps_reader rule");
}

/* Contract (optimum_report.h). */
rip_status rip_fig3_write(FILE *f, char err[RIP_ERR_LEN])
{
    /* two uneven grids: a wide restricted-style one, where herringbone is
    ** optimal, and the tall anisotropic layer of results/optimum.md where
    ** herringbone is furthest above the optimum */
    static const char *const specs[2] = {"cin=1,cout=4,h=5,w=8,k=3",
                                         "cin=2,cout=8,h=7,w=4,k=4x3,s=2x1,d=1x2,pt=3,pb=2,pl=3,pr=0"};
    int64_t orders[2][FIG3_MAX_PIXELS];
    rip_svg c;
    rip_svg_begin(&c, f, 900, 520, "sans-serif", 0);
    rip_svg_arrow_marker(&c, "leg", "#1f77b4");
    rip_svg_arrow_marker(&c, "jump", "#999");
    rip_svg_text(&c, 450, 24, "text-anchor=\"middle\" font-size=\"14\"",
                 "Visiting orders (paper Fig. 2/3): row-major, herringbone and traversal-optimal; legs numbered, "
                 "cells by visit step");
    for (int g = 0; g < 2; g++) {
        row r = {0};
        if (rip_spec_parse(specs[g], &r.L, err) != 0)
            return RIP_S_INTERNAL;
        rip_status st = solve(&r, FIG3_MAX_PIXELS, err);
        if (st != RIP_OK)
            return st;
        const rip_layer *L = &r.L;
        rip_row_major_order(L->h_out, L->w_out, orders[0]);
        rip_herringbone_order(L->h_out, L->w_out, orders[1]);
        const double y0 = g == 0 ? 80 : 260;
        char title[256];
        snprintf(title, sizeof title, "row-major (RiP order): gap %lld", (long long)r.row);
        grid_panel(&c, 30, y0, L, orders[0], title);
        snprintf(title, sizeof title, "herringbone: gap %lld", (long long)r.truth[RIP_CONFIG_HB_TAPS_READER]);
        grid_panel(&c, 320, y0, L, orders[1], title);
        snprintf(title, sizeof title, r.opt < r.truth[RIP_CONFIG_HB_TAPS_READER] ? "optimal: gap %lld"
                                      : "optimal: gap %lld (= herringbone)", (long long)r.opt);
        grid_panel(&c, 610, y0, L, r.order, title);
        rip_svg_text(&c, 30, y0 - 28, "font-size=\"11\" fill=\"#555\"",
                     "%s: %lldx%lld output pixels, herringbone_taps_reader rule", specs[g], (long long)L->h_out,
                     (long long)L->w_out);
    }
    fig3_legend(&c, 480);
    return rip_svg_end(&c, "fig3", err);
}
