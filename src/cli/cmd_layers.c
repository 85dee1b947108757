/*
** cmd_layers.c — `ripsim layers FILE.csv`: a table of real layers (the
** format of sweeps/layers/README.md) through every closed form and every
** simulated truth, with the workspaces of paper Sec. 5.3 / Tab. 6.
**
** Two passes, so that memory does not grow with the file and a bad row
** still stops the run before anything is evaluated: the first reads and
** checks every row (numbers, geometry, the simulator's size limit; a bad
** row without --skip-bad stops here with stdout empty, with --skip-bad it
** is reported here) and measures the table's columns; the second reads the
** file again and evaluates and prints each row as it is read.  Input that
** cannot be read twice (a pipe) is first copied to a temporary file.  Rows with groups > 1 are
** listed as not evaluated: the closed forms and the simulator model
** channel-mixing convolutions.  The workspaces and ratios come from
** rip_compare_layer (compare.h); this file only formats and counts them.
**
** The exit statuses are the table `exits` below (also printed by --help).
*/
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "cli.h"
#include "compare.h"
#include "layer_csv.h"
#include "out.h"
#include "progress_line.h"

static const char about[] =
    "Evaluate a CSV table of convolution layers (format: sweeps/layers/README.md;\n"
    "FILE '-' reads standard input): every closed form of the RiP paper, every\n"
    "simulated truth, and the workspaces of paper Sec. 5.3 / Tab. 6 under dual\n"
    "buffering (W_naive), generalized herringbone (W_hb, Theorem 11), RiP row-major\n"
    "(W_rip, Theorem 4) and column-major (W_col, Theorem 4 on the transposed layer),\n"
    "and RiP without materialized padding (W_dense, Theorem 13).  As in Sec. 5.3,\n"
    "taps are read from the workspace (sigma = C_out).  Workspaces are in scalars.\n"
    "\n"
    "The check column says 'ok' when every judged closed form equals its simulated\n"
    "truth (tight) and column-major Theorem 4 equals its simulated truth; otherwise\n"
    "it names each one that disagrees with formula minus truth, e.g. 'thm13_taps +4'.\n"
    "Rows with groups > 1 (depthwise, grouped) are listed but not evaluated: the\n"
    "closed forms model channel-mixing convolutions.\n";

static const char notes[] =
    "Errors name the row: FILE:ROW: FIELD: problem (ROW is the line, header = 1).\n"
    "When stderr is a terminal, a progress line (rows done, rate, ETA) is shown\n"
    "there while the rows are evaluated.\n";

static const rip_exit_doc exits[] = {
    {0, "evaluated (disagreements are findings, shown in the check column)"},
    {64, "bad command line"},
    {65, "bad row or header"},
    {66, "FILE missing or unreadable"},
    {71, "out of memory"},
    {74, "output cannot be written"},
};

static const char *const formats[] = {"table", "csv", NULL};
static const char *const engines[] = {"fast", "plain", NULL};

typedef enum { ITEM_EVALUATED, ITEM_GROUPED, ITEM_SKIPPED } item_state;

typedef struct item {
    const rip_csv_layer *row;
    item_state state;
    rip_compare c;
} item;

/* ---- small formatting helpers ---- */

static bool padded(const rip_layer *L)
{
    return L->p_top || L->p_bottom || L->p_left || L->p_right;
}

/* "k3" for a square pair, "k7x1" otherwise (height x width). */
static void fmt_pair(char *buf, size_t n, const char *tag, int64_t h, int64_t w)
{
    if (h == w)
        snprintf(buf, n, "%s%lld", tag, (long long)h);
    else
        snprintf(buf, n, "%s%lldx%lld", tag, (long long)h, (long long)w);
}

/* cin->cout HxW k s d p: p1 symmetric, p3x0 per axis, p0/1/0/1 for t/b/l/r. */
static void fmt_geometry(char *buf, size_t n, const rip_layer *L)
{
    char k[48], s[48], d[48], p[96];
    fmt_pair(k, sizeof k, "k", L->k_h, L->k_w);
    fmt_pair(s, sizeof s, "s", L->s_h, L->s_w);
    fmt_pair(d, sizeof d, "d", L->d_h, L->d_w);
    if (L->p_top == L->p_bottom && L->p_left == L->p_right)
        fmt_pair(p, sizeof p, "p", L->p_top, L->p_left);
    else
        snprintf(p, sizeof p, "p%lld/%lld/%lld/%lld", (long long)L->p_top, (long long)L->p_bottom,
                 (long long)L->p_left, (long long)L->p_right);
    snprintf(buf, n, "%lld->%lld %lldx%lld %s %s %s %s", (long long)L->cin, (long long)L->cout,
             (long long)L->h_in, (long long)L->w_in, k, s, d, p);
}

/* The check column: "ok", "-" without the simulator, else "f +d; g -e". */
static void fmt_check(char *buf, size_t n, const rip_compare *c, bool with_sim)
{
    if (!with_sim) {
        snprintf(buf, n, "-");
        return;
    }
    const rip_eval *ev = &c->ev;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ev->n_formulas; i++) {
        if (ev->judged_by[i] < 0 || !ev->defined[i])
            continue;
        if (ev->verdict[i] != RIP_UNSAFE && ev->verdict[i] != RIP_LOOSE)
            continue;
        int k = snprintf(buf + used, n - used, "%s%s %+lld", used ? "; " : "", ev->info[i].name,
                         (long long)(ev->value[i] - ev->truth[ev->judged_by[i]]));
        if (k > 0)
            used = used + (size_t)k < n ? used + (size_t)k : n - 1;
    }
    if (c->col_gap_formula != c->col_gap_truth) {
        int k = snprintf(buf + used, n - used, "%sthm4_taps_col %+lld", used ? "; " : "",
                         (long long)(c->col_gap_formula - c->col_gap_truth));
        if (k > 0)
            used = used + (size_t)k < n ? used + (size_t)k : n - 1;
    }
    if (used == 0)
        snprintf(buf, n, "ok");
}

static void grouped_note(char *buf, size_t n, const rip_csv_layer *r)
{
    snprintf(buf, n, "not evaluated: groups=%lld (%s); the closed forms model channel-mixing convolutions",
             (long long)r->groups, r->groups == r->L.cin ? "depthwise" : "grouped");
}

/* One CSV field, quoted when it holds a comma, quote or line break. */
static void csv_str(const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void csv_int(int64_t v)
{
    printf(",%lld", (long long)v);
}

/* ---- csv format ---- */

static void print_csv_header(void)
{
    size_t nf;
    const rip_formula_info *info = rip_formulas(&nf);

    fputs("layer_name,row,groups,c_in,c_out,h_in,w_in,k_h,k_w,s_h,s_w,d_h,d_w,"
          "p_top,p_bottom,p_left,p_right,h_out,w_out,generalized,n_in_padded,n_in_dense,n_out",
          stdout);
    for (size_t i = 0; i < nf; i++)
        printf(",%s", info[i].name);
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        printf(",truth_%s", rip_config_name((rip_config)e));
    for (size_t i = 0; i < nf; i++)
        if (info[i].judged_by)
            printf(",verdict_%s", info[i].name);
    fputs(",col_thm4_taps,col_truth_rip_padded_taps,verdict_col_thm4_taps,"
          "w_naive,w_hb,w_rip,w_rip_col,w_rip_best,w_dense,gap_padded,gap_dense,"
          "ratio,ratio_best,save,dense,check,note\n",
          stdout);
}

static void print_csv_row(const item *it, bool with_sim)
{
    size_t nf;
    const rip_formula_info *info = rip_formulas(&nf);
    const rip_layer *L = &it->row->L;
    csv_str(it->row->name);
    csv_int(it->row->row);
    csv_int(it->row->groups);
    const int64_t geo[] = {L->cin,   L->cout,     L->h_in,  L->w_in,   L->k_h,  L->k_w,
                           L->s_h,   L->s_w,      L->d_h,   L->d_w,    L->p_top, L->p_bottom,
                           L->p_left, L->p_right, L->h_out, L->w_out,
                           !rip_layer_is_restricted(L), L->n_in_padded, L->n_in_dense, L->n_out};
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++)
        csv_int(geo[g]);

    if (it->state == ITEM_GROUPED) {
        /* empty evaluation: formulas, truths, verdicts, column-major (3),
        ** workspaces (6), gaps (2), ratios (4), check */
        size_t judged = 0;
        for (size_t i = 0; i < nf; i++)
            judged += info[i].judged_by != NULL;
        size_t empties = nf + RIP_CONFIG_COUNT + judged + 3 + 6 + 2 + 4 + 1;
        for (size_t e = 0; e < empties; e++)
            putchar(',');
        char note[256];
        grouped_note(note, sizeof note, it->row);
        putchar(',');
        csv_str(note);
        putchar('\n');
        return;
    }

    const rip_compare *c = &it->c;
    const rip_eval *ev = &c->ev;
    for (size_t i = 0; i < ev->n_formulas; i++) {
        if (ev->defined[i])
            csv_int(ev->value[i]);
        else
            putchar(',');
    }
    for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
        if (with_sim)
            csv_int(ev->truth[e]);
        else
            putchar(',');
    }
    for (size_t i = 0; i < ev->n_formulas; i++)
        if (ev->info[i].judged_by)
            printf(",%s", with_sim ? rip_verdict_name(ev->verdict[i]) : "");
    csv_int(c->col_gap_formula);
    if (with_sim) {
        csv_int(c->col_gap_truth);
        printf(",%s", rip_verdict_name(rip_verdict_of(true, c->col_gap_formula, c->col_gap_truth)));
    } else {
        fputs(",,", stdout);
    }
    csv_int(c->w_naive);
    csv_int(c->w_hb);
    csv_int(c->w_rip);
    csv_int(c->w_rip_col);
    csv_int(c->w_rip_best);
    if (c->w_dense >= 0)
        csv_int(c->w_dense);
    else
        putchar(',');
    csv_int(c->gap_padded);
    if (c->gap_dense >= 0)
        csv_int(c->gap_dense);
    else
        putchar(',');
    printf(",%.6f,%.6f,%.6f", c->ratio, c->ratio_best, c->save);
    if (c->w_dense >= 0)
        printf(",%.6f", c->dense);
    else
        putchar(',');
    char check[512];
    fmt_check(check, sizeof check, c, with_sim);
    putchar(',');
    csv_str(check);
    fputs(",\n", stdout);
}

/* ---- table format ---- */

/* The footer's counts, accumulated row by row. */
typedef struct totals {
    size_t evaluated, grouped, generalized, exact, within5, exact_best, within5_best, below_best, dense_defined,
        eq42_gap, eq42_ws, n_padded, eq42_strict, n_ok;
    double sum_save, sum_dense, max_ratio, max_ratio_best, best_save;
    char max_name[RIP_LAYER_NAME_LEN], max_best_name[RIP_LAYER_NAME_LEN], best_save_name[RIP_LAYER_NAME_LEN];
} totals;

static void print_table_header(int wname, int wgeo)
{
    printf("%-*s  %-*s %12s %12s %12s %7s %12s %7s %12s %6s %6s  %s\n", wname, "name", wgeo, "geometry", "W_naive",
           "W_hb", "W_rip", "rip/hb", "W_col", "best/hb", "W_dense", "dense", "save", "check");
}

static void print_table_row(const item *it, int wname, int wgeo, bool with_sim, totals *t)
{
    char geo[256];
    const rip_layer *L = &it->row->L;
    fmt_geometry(geo, sizeof geo, L);
    printf("%-*s  %-*s ", wname, it->row->name, wgeo, geo);
    if (it->state == ITEM_GROUPED) {
        char note[256];
        grouped_note(note, sizeof note, it->row);
        printf("%s\n", note);
        t->grouped++;
        return;
    }
    const rip_compare *c = &it->c;
    char wd[32] = "-", dn[16] = "-", check[512];
    if (c->w_dense >= 0) {
        snprintf(wd, sizeof wd, "%lld", (long long)c->w_dense);
        snprintf(dn, sizeof dn, "%.1f%%", 100.0 * c->dense);
    }
    fmt_check(check, sizeof check, c, with_sim);
    printf("%12lld %12lld %12lld %7.4f %12lld %7.4f %12s %6s %5.1f%%  %s\n", (long long)c->w_naive,
           (long long)c->w_hb, (long long)c->w_rip, c->ratio, (long long)c->w_rip_col, c->ratio_best, wd, dn,
           100.0 * c->save, check);

    t->evaluated++;
    t->generalized += c->generalized;
    t->exact += c->w_rip == c->w_hb;
    t->within5 += 100 * c->w_rip <= 105 * c->w_hb;
    t->exact_best += c->w_rip_best == c->w_hb;
    t->below_best += c->w_rip_best < c->w_hb;
    t->within5_best += 100 * c->w_rip_best <= 105 * c->w_hb;
    if (c->ratio > t->max_ratio) {
        t->max_ratio = c->ratio;
        snprintf(t->max_name, sizeof t->max_name, "%s", it->row->name);
    }
    if (c->ratio_best > t->max_ratio_best) {
        t->max_ratio_best = c->ratio_best;
        snprintf(t->max_best_name, sizeof t->max_best_name, "%s", it->row->name);
    }
    if (c->save > t->best_save) {
        t->best_save = c->save;
        snprintf(t->best_save_name, sizeof t->best_save_name, "%s", it->row->name);
    }
    t->sum_save += c->save;
    t->sum_dense += c->dense;
    if (c->w_dense >= 0) {
        t->dense_defined++;
        t->eq42_gap += c->gap_dense >= c->gap_padded;
        t->eq42_ws += c->w_dense <= c->w_rip;
        if (padded(L)) {
            t->n_padded++;
            t->eq42_strict += c->w_dense < c->w_rip;
        }
    }
    t->n_ok += with_sim && c->n_disagree == 0;
}

static void print_table_footer(const totals *t, size_t n_bad, bool with_sim, rip_engine engine)
{
    size_t ev = t->evaluated;
    printf("\n");
    printf("layers: %zu listed, %zu evaluated, %zu grouped/depthwise not evaluated", ev + t->grouped, ev, t->grouped);
    if (n_bad)
        printf(", %zu bad rows skipped", n_bad);
    printf("\n");
    if (ev == 0) {
        printf("no layer evaluated\n");
        return;
    }
    printf("generalized (outside Gural & Murmann's restrictions): %zu of %zu\n", t->generalized, ev);
    printf("W_rip vs W_hb (row-major):     exact %zu of %zu, <= 5%% %zu of %zu, max %.4f (%s)\n", t->exact, ev,
           t->within5, ev, t->max_ratio, t->max_name);
    printf("best of row- and column-major: exact %zu of %zu, below W_hb %zu, <= 5%% %zu of %zu, max %.4f (%s)\n",
           t->exact_best, ev, t->below_best, t->within5_best, ev, t->max_ratio_best, t->max_best_name);
    printf("save vs dual buffering: mean %.1f%%, best %.1f%% (%s)\n", 100.0 * t->sum_save / (double)ev,
           100.0 * t->best_save, t->best_save_name);
    printf("dense (no materialized padding): mean further saving %.1f%%", 100.0 * t->sum_dense / (double)ev);
    if (t->dense_defined < ev)
        printf(" (Theorem 13 undefined on %zu: padding >= k_eff; counted as 0)", ev - t->dense_defined);
    printf("\n");
    printf("Eq. 42: dense gap >= padded gap on %zu of %zu; dense workspace <= padded on %zu of %zu, "
           "strictly < on the padded ones %zu of %zu\n",
           t->eq42_gap, t->dense_defined, t->eq42_ws, t->dense_defined, t->eq42_strict, t->n_padded);
    if (with_sim)
        printf("check (%s simulator): %zu of %zu ok (every judged closed form tight, column-major "
               "Theorem 4 equal to its truth)\n",
               engine == RIP_ENGINE_FAST ? "fast" : "plain", t->n_ok, ev);
    else
        printf("check: closed forms only (--no-sim)\n");
}

/* ---- the two passes ---- */

typedef struct run_opts {
    const char *fname;
    bool csv, skip_bad, with_sim;
    rip_engine engine;
} run_opts;

/*
** The next row for the pass: RIP_OK with *got (false at the end).  A bad
** row (unreadable, or too large to simulate) is RIP_S_DATA with err: the
** caller skips it under --skip-bad.
*/
static rip_status next_row(rip_layer_reader *lr, const run_opts *o, rip_csv_layer *row, bool *got,
                           char err[RIP_ERR_LEN])
{
    rip_status s = rip_layer_reader_next(lr, row, got, err);
    if (s != RIP_OK || !*got || row->groups > 1 || !o->with_sim)
        return s;
    char why[RIP_ERR_LEN];
    if (rip_sim_size_ok(&row->L, o->engine, why) != 0) {
        snprintf(err, RIP_ERR_LEN, "%.200s:%lld: %.280s", o->fname, (long long)row->row, why);
        *got = false;
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/* Pass 1: every row checked, nothing evaluated or printed; bad rows
** reported (and counted in *n_bad under --skip-bad); the good rows counted
** in *n_rows; the table widths.  An exit status. */
static int check_pass(FILE *f, const run_opts *o, size_t *n_bad, size_t *n_rows, int *wname, int *wgeo)
{
    char err[RIP_ERR_LEN];
    rip_layer_reader *lr = NULL;
    rip_status s = rip_layer_reader_open(f, o->fname, &lr, err);
    rip_csv_layer row;
    bool got = true;
    while (s == RIP_OK && got) {
        s = next_row(lr, o, &row, &got, err);
        if (s == RIP_S_DATA && o->skip_bad) {
            fprintf(stderr, "%s (skipped)\n", err);
            ++*n_bad;
            s = RIP_OK;
            got = true;
            continue;
        }
        if (s != RIP_OK || !got)
            break;
        ++*n_rows;
        char geo[256];
        fmt_geometry(geo, sizeof geo, &row.L);
        int ln = (int)strlen(row.name), lg = (int)strlen(geo);
        *wname = ln > *wname ? ln : *wname;
        *wgeo = lg > *wgeo ? lg : *wgeo;
    }
    rip_layer_reader_close(lr);
    if (s != RIP_OK)
        fprintf(stderr, "%s%s\n", s == RIP_S_DATA ? "" : "ripsim layers: ", err);
    return rip_exit_status(s);
}

/* Pass 2: read again, evaluate and print each row as it comes (bad rows
** were reported by pass 1 and are skipped quietly).  n_rows (from pass 1)
** sizes the progress line, shown only when the rows themselves are not
** going to a terminal.  An exit status. */
static int print_pass(FILE *f, const run_opts *o, size_t n_bad, size_t n_rows, int wname, int wgeo)
{
    rip_progress pr;
    rip_progress_init(&pr, "layers", "rows", o->with_sim && !isatty(STDOUT_FILENO));
    int64_t done = 0;
    char err[RIP_ERR_LEN];
    rip_layer_reader *lr = NULL;
    rip_status s = rip_layer_reader_open(f, o->fname, &lr, err);
    totals t;
    memset(&t, 0, sizeof t);
    t.best_save = -1;
    if (s == RIP_OK) {
        if (o->csv)
            print_csv_header();
        else
            print_table_header(wname, wgeo);
    }
    rip_csv_layer row;
    item it;
    bool got = true;
    while (s == RIP_OK) {
        s = next_row(lr, o, &row, &got, err);
        if (s == RIP_S_DATA && o->skip_bad) {
            s = RIP_OK;
            continue;
        }
        if (s != RIP_OK || !got)
            break;
        rip_progress_update(&pr, done++, (int64_t)n_rows, row.name);
        memset(&it, 0, sizeof it);
        it.row = &row;
        it.state = row.groups > 1 ? ITEM_GROUPED : ITEM_EVALUATED;
        if (it.state == ITEM_EVALUATED && rip_compare_layer(&row.L, o->engine, o->with_sim, &it.c, err) != 0) {
            /* rip_sim_size_ok passed in pass 1: only memory is left to fail */
            rip_progress_end(&pr);
            fprintf(stderr, "%s:%lld: %s\n", o->fname, (long long)row.row, err);
            rip_layer_reader_close(lr);
            return RIP_EX_OSERR;
        }
        if (o->csv)
            print_csv_row(&it, o->with_sim);
        else
            print_table_row(&it, wname, wgeo, o->with_sim, &t);
    }
    rip_progress_end(&pr);
    rip_layer_reader_close(lr);
    if (s != RIP_OK) {
        /* pass 1 read the same bytes without fault: the file changed, or the disk failed */
        fprintf(stderr, "%s%s\n", s == RIP_S_DATA ? "" : "ripsim layers: ", err);
        return rip_exit_status(s);
    }
    if (!o->csv)
        print_table_footer(&t, n_bad, o->with_sim, o->engine);
    return RIP_EX_OK;
}

/*
** Input that cannot be read twice (a pipe, a terminal) is copied to an
** anonymous temporary file first.  *out is f itself when f is a regular
** file.  An exit status.
*/
static int rereadable(FILE *f, const char *fname, FILE **out)
{
    struct stat st;
    *out = f;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && fseek(f, 0, SEEK_CUR) == 0)
        return RIP_EX_OK;
    FILE *tmp = tmpfile();
    if (tmp == NULL) {
        fprintf(stderr, "ripsim layers: cannot create a temporary copy of %s: %s\n", fname, strerror(errno));
        return RIP_EX_CANTCREAT;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (fwrite(buf, 1, n, tmp) != n) {
            fprintf(stderr, "ripsim layers: cannot write the temporary copy of %s: %s\n", fname, strerror(errno));
            fclose(tmp);
            return RIP_EX_IOERR;
        }
    if (ferror(f)) {
        fprintf(stderr, "ripsim layers: %s: read error\n", fname);
        fclose(tmp);
        return RIP_EX_NOINPUT;
    }
    if (fflush(tmp) != 0 || fseek(tmp, 0, SEEK_SET) != 0) {
        fprintf(stderr, "ripsim layers: cannot write the temporary copy of %s: %s\n", fname, strerror(errno));
        fclose(tmp);
        return RIP_EX_IOERR;
    }
    *out = tmp;
    return RIP_EX_OK;
}

/* ---- the command ---- */

int rip_cmd_layers(int argc, char **argv)
{
    bool skip_bad = false, no_sim = false;
    int format_ix = 0, engine_ix = 0;
    const char *path = NULL;
    const rip_opt opts[] = {
        {.name = "--format", .kind = RIP_OPT_ENUM, .dest = &format_ix, .metavar = "F", .choices = formats,
         .help = "table (default: aligned columns and a Tab. 6 style summary)\n"
                 "or csv (one header, one row per layer, every number)"},
        {.name = "--skip-bad", .kind = RIP_OPT_FLAG, .dest = &skip_bad, .flag_value = true,
         .help = "report each bad row on stderr and evaluate the others\n"
                 "(default: the first bad row stops everything, exit 65)"},
        {.name = "--engine", .kind = RIP_OPT_ENUM, .dest = &engine_ix, .metavar = "E", .choices = engines,
         .help = "simulator engine: fast (default, per pixel) or plain\n(per scalar, slow; same answers)"},
        {.name = "--no-sim", .kind = RIP_OPT_FLAG, .dest = &no_sim, .flag_value = true,
         .help = "closed forms only (truths empty, check '-')"},
    };
    const rip_cmd cmd = {
        .name = "layers", .synopsis = "[--format table|csv] [--skip-bad] [--engine fast|plain] [--no-sim] FILE.csv",
        .about = about, .opts = opts, .n_opts = sizeof opts / sizeof opts[0], .pos = &path, .min_pos = 1,
        .max_pos = 1, .missing = "missing FILE.csv ('-' for standard input)", .notes = notes, .exits = exits,
        .n_exits = sizeof exits / sizeof exits[0], .example = "ripsim layers sweeps/layers/resnet50.csv",
    };
    int rc = rip_args_parse(&cmd, argc, argv, stdout, stderr);
    if (rc != RIP_ARGS_CONTINUE)
        return rc;
    bool csv = format_ix == 1, with_sim = !no_sim;
    rip_engine engine = engine_ix == 0 ? RIP_ENGINE_FAST : RIP_ENGINE_PLAIN;

    /* read */
    bool is_stdin = strcmp(path, "-") == 0;
    const char *fname = is_stdin ? "<stdin>" : path;
    FILE *f = is_stdin ? stdin : fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "ripsim layers: %s: %s\n", path, strerror(errno));
        return RIP_EX_NOINPUT;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "ripsim layers: %s: is a directory\n", path);
        if (!is_stdin)
            fclose(f);
        return RIP_EX_NOINPUT;
    }
    FILE *in = f;
    rc = rereadable(f, fname, &in);
    off_t start = rc == RIP_EX_OK ? ftello(in) : 0; /* standard input need not start at 0 */
    run_opts o = {fname, csv, skip_bad, with_sim, engine};
    size_t n_bad = 0, n_rows = 0;
    int wname = 4, wgeo = 8;
    if (rc == RIP_EX_OK)
        rc = check_pass(in, &o, &n_bad, &n_rows, &wname, &wgeo);
    if (rc == RIP_EX_OK) {
        if (start < 0 || fseeko(in, start, SEEK_SET) != 0) {
            fprintf(stderr, "ripsim layers: %s: cannot read it a second time: %s\n", fname, strerror(errno));
            rc = RIP_EX_NOINPUT;
        } else {
            clearerr(in);
            rc = print_pass(in, &o, n_bad, n_rows, wname, wgeo);
        }
    }
    if (in != f)
        fclose(in);
    if (!is_stdin)
        fclose(f);
    if (rc != RIP_EX_OK)
        return rc;
    if (n_bad)
        fprintf(stderr, "ripsim layers: %zu bad row%s skipped\n", n_bad, n_bad == 1 ? "" : "s");
    return rip_out_check_stdout("layers");
}
