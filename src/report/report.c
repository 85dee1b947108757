/*
** report.c — `ripsim report`: the sweep database read back against the paper.
**
** Two halves.  gather() reads the small tables (run, formulas with their
** verdict counts, generators, executions) and makes one pass over
** layer_results (scan_layers), all inside one read transaction, and
** computes the statistics with GSL into a report_data; render() turns that
** into sections, paragraphs and tables through a small document model
** (doc_*, table_*) that has one emitter per format (md, csv, tex; see
** report.h for the formats).  Nothing here writes to the database.
**
** The paper's figures are the constants just below, each with its place in
** rip-convolution.txt.  A claim "agrees" when:
**   - "on all" claims: every judged verdict is tight (and, for the always
**     defined forms, every layer present was judged);
**   - share and mean claims: the paper's value (widened by half its last
**     printed digit) lies inside the 95% interval of this run's figure —
**     Clopper-Pearson for a share, Student t for a mean — since a run of
**     another seed or size is a different sample of the same generators;
**   - "never"/identity claims: no counterexample in the run.
** Otherwise it "differs"; with nothing to judge it is "not checked".
**
** Text may contain `code` spans (formula names, x*): md keeps the
** backticks, tex sets \texttt, csv drops them.
*/
#include "report.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "db.h"
#include "finite_fmt.h"
#include "status.h"

/* ---- the paper's figures ------------------------------------------------ */

#define PAPER_N_LAYERS "10,000"
#define PAPER_RESTRICTED_PCT 22.6        /* Sec. 5.2: "22.6% fall inside the restrictions of [9]" */
#define PAPER_RESTRICTED_HALF 0.05
#define PAPER_DENSE_TIGHT_PCT 99.1       /* Sec. 5.2: dense bound, taps from the workspace */
#define PAPER_DENSE_TIGHT_HALF 0.05
#define PAPER_DENSE_OVERSHOOT 91.85      /* Sec. 5.2: mean overshoot where loose, scalars */
#define PAPER_DENSE_OVERSHOOT_HALF 0.005
#define PAPER_N_GENERATORS 20            /* App. G.2, Tab. 5 */
static const int paper_tier_pct[4] = {0, 35, 45, 20};   /* App. G.2: tiers 1, 2, 3 */
static const char *const tier_title[4] = {
    "other", "real-network geometry", "small-grid and degenerate", "correctness corners"};

#define CONFIDENCE 0.95
#define XSTR(x) STR(x)
#define STR(x) #x
#define RUN_ID XSTR(RIP_DB_RUN_ID)

/* ---- growable string ------------------------------------------------------ */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool oom;
    bool nonfinite;   /* a number to print was NaN or infinite (finite_fmt.h): not appended */
} sbuf;

/* Append printf-formatted text; on allocation failure set oom, on a number
** that is not finite set nonfinite, and keep what is there. */
__attribute__((format(printf, 2, 3))) static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom || b->nonfinite)
        return;
    va_list ap;
    va_start(ap, fmt);
    b->nonfinite = !rip_fmt_args_finite(fmt, ap);
    int n = b->nonfinite ? 0 : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->nonfinite)
        return;
    if (n < 0) {
        b->oom = true;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* The text so far ("" when empty). */
static const char *sb_str(const sbuf *b)
{
    return b->s ? b->s : "";
}

/* Fixed two-decimal rendering that never prints "-0.00". */
static double tidy(double x)
{
    return fabs(x) < 0.005 ? 0.0 : x;
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ---- document model -------------------------------------------------------- */

/* where a column is shown: in every format, only md/tex, only csv */
enum { SHOW_ALL = 0, SHOW_HUMAN, SHOW_MACHINE };

typedef struct col {
    const char *key;    /* csv column key */
    const char *label;  /* md/tex header */
    char align;         /* 'l', 'r', or 'p' (wrapped text) */
    int show;
} col;

typedef struct table {
    const char *id;     /* csv section, tex label */
    const char *title;  /* md/tex caption */
    const col *cols;
    size_t ncols;
    char **cells;       /* row-major; cell 0 of a row is its csv row key */
    size_t n, cap;
    bool oom;
    bool nonfinite;     /* a number of a cell was NaN or infinite: the table is not printed */
} table;

/* Append one cell (printf-formatted) to t; rows fill left to right.  A
** number that is not finite sets nonfinite instead. */
__attribute__((format(printf, 2, 3))) static void cellf(table *t, const char *fmt, ...)
{
    if (t->oom || t->nonfinite)
        return;
    va_list ap;
    va_start(ap, fmt);
    t->nonfinite = !rip_fmt_args_finite(fmt, ap);
    int n = t->nonfinite ? 0 : vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->nonfinite)
        return;
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!s) {
        t->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **c = realloc(t->cells, cap * sizeof *c);
        if (!c) {
            free(s);
            t->oom = true;
            return;
        }
        t->cells = c;
        t->cap = cap;
    }
    t->cells[t->n++] = s;
}

/* A number with two decimals, or an empty cell when !have. */
static void cell_num(table *t, bool have, double x)
{
    if (have)
        cellf(t, "%.2f", tidy(x));
    else
        cellf(t, "%s", "");
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->cells[i]);
    free(t->cells);
    t->cells = NULL;
    t->n = t->cap = 0;
}

typedef struct doc {
    FILE *out;
    rip_report_format fmt;
    bool oom;
    bool nonfinite;   /* a figure was NaN or infinite: the report fails rather than print it */
} doc;

static bool shown(const doc *d, const col *c)
{
    if (c->show == SHOW_HUMAN)
        return d->fmt != RIP_REPORT_CSV;
    if (c->show == SHOW_MACHINE)
        return d->fmt == RIP_REPORT_CSV;
    return true;
}

/*
** Write s escaped for the format (csv: the caller quotes).  `code` spans:
** md keeps them, tex sets \texttt, csv drops the backticks.  in_md_table
** escapes the pipe; tex turns "double quotes" into ``quotes''.
*/
static void put_text(doc *d, const char *s, bool in_md_table)
{
    bool in_code = false, in_quote = false;
    for (; *s; s++) {
        char c = *s;
        if (c == '`') {
            if (d->fmt == RIP_REPORT_MD)
                fputc('`', d->out);
            else if (d->fmt == RIP_REPORT_TEX)
                fputs(in_code ? "}" : "\\texttt{", d->out);
            in_code = !in_code;
            continue;
        }
        if (d->fmt == RIP_REPORT_MD) {
            if (c == '|' && in_md_table)
                fputs("\\|", d->out);
            else
                fputc(c, d->out);
        } else if (d->fmt == RIP_REPORT_TEX) {
            switch (c) {
            case '\\': fputs("\\textbackslash{}", d->out); break;
            case '{': case '}': case '$': case '&': case '#': case '_': case '%':
                fputc('\\', d->out);
                fputc(c, d->out);
                break;
            case '~': fputs("\\textasciitilde{}", d->out); break;
            case '^': fputs("\\textasciicircum{}", d->out); break;
            case '<': fputs("\\textless{}", d->out); break;
            case '>': fputs("\\textgreater{}", d->out); break;
            case '"':
                fputs(in_quote ? "''" : "``", d->out);
                in_quote = !in_quote;
                break;
            default: fputc(c, d->out);
            }
        } else if (c == '"') {
            fputs("\"\"", d->out);
        } else {
            fputc(c, d->out);
        }
    }
    if (in_code && d->fmt == RIP_REPORT_TEX)
        fputc('}', d->out);
}

/* One csv field: quoted when it holds a comma, quote, newline or backtick span. */
static void put_csv_field(doc *d, const char *s)
{
    bool quote = strpbrk(s, ",\"\r\n") != NULL || (s[0] == ' ') || (*s && s[strlen(s) - 1] == ' ');
    if (quote)
        fputc('"', d->out);
    put_text(d, s, false);
    if (quote)
        fputc('"', d->out);
}

static void csv_line(doc *d, const char *section, const char *row, const char *column, const char *value)
{
    put_csv_field(d, section);
    fputc(',', d->out);
    put_csv_field(d, row);
    fputc(',', d->out);
    put_csv_field(d, column);
    fputc(',', d->out);
    put_csv_field(d, value);
    fputc('\n', d->out);
}

static void doc_begin(doc *d)
{
    switch (d->fmt) {
    case RIP_REPORT_MD:
        fputs("# ripsim sweep report\n\n"
              "Paper: rip-convolution, Sec. 5.2 (synthetic layers), Lemma 9, Eq. 42 and "
              "App. G.2 / Tab. 5, each figure beside this run's.  Gaps, margins and "
              "workspaces are in scalars.\n\n", d->out);
        break;
    case RIP_REPORT_TEX:
        fputs("% ripsim sweep report: a LaTeX fragment for \\input (no packages needed).\n"
              "\\section*{ripsim sweep report}\n\n"
              "Paper: rip-convolution, Sec.~5.2 (synthetic layers), Lemma~9, Eq.~42 and "
              "App.~G.2 / Tab.~5, each figure beside this run's.  Gaps, margins and "
              "workspaces are in scalars.\n\n", d->out);
        break;
    case RIP_REPORT_CSV:
        fputs("section,row,column,value\n", d->out);
        break;
    }
}

static void doc_heading(doc *d, const char *text)
{
    if (d->fmt == RIP_REPORT_MD) {
        fputs("## ", d->out);
        put_text(d, text, false);
        fputs("\n\n", d->out);
    } else if (d->fmt == RIP_REPORT_TEX) {
        fputs("\\subsection*{", d->out);
        put_text(d, text, false);
        fputs("}\n\n", d->out);
    }
}

/* A paragraph; in csv a row (section, row, "text", text).  strong: bold.
** section NULL: an explanatory note, shown in md and tex only. */
static void doc_para(doc *d, const char *section, const char *row, const char *text, bool strong)
{
    switch (d->fmt) {
    case RIP_REPORT_MD:
        fputs(strong ? "**" : "", d->out);
        put_text(d, text, false);
        fputs(strong ? "**\n\n" : "\n\n", d->out);
        break;
    case RIP_REPORT_TEX:
        fputs(strong ? "\\textbf{" : "", d->out);
        put_text(d, text, false);
        fputs(strong ? "}\n\n" : "\n\n", d->out);
        break;
    case RIP_REPORT_CSV:
        if (section)
            csv_line(d, section, row, "text", text);
        break;
    }
}

static void doc_table(doc *d, const table *t)
{
    if (t->oom || t->nonfinite) {
        d->oom |= t->oom;
        d->nonfinite |= t->nonfinite;
        return;
    }
    size_t rows = t->ncols ? t->n / t->ncols : 0;
    if (d->fmt == RIP_REPORT_CSV) {
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 1; c < t->ncols; c++)
                if (shown(d, &t->cols[c]))
                    csv_line(d, t->id, t->cells[r * t->ncols], t->cols[c].key,
                             t->cells[r * t->ncols + c]);
        return;
    }
    if (d->fmt == RIP_REPORT_MD) {
        fputs("Table: ", d->out);
        put_text(d, t->title, false);
        fputs("\n\n|", d->out);
        for (size_t c = 0; c < t->ncols; c++)
            if (shown(d, &t->cols[c])) {
                fputc(' ', d->out);
                put_text(d, t->cols[c].label, true);
                fputs(" |", d->out);
            }
        fputs("\n|", d->out);
        for (size_t c = 0; c < t->ncols; c++)
            if (shown(d, &t->cols[c]))
                fputs(t->cols[c].align == 'r' ? "---:|" : ":---|", d->out);
        fputc('\n', d->out);
        for (size_t r = 0; r < rows; r++) {
            fputc('|', d->out);
            for (size_t c = 0; c < t->ncols; c++)
                if (shown(d, &t->cols[c])) {
                    const char *s = t->cells[r * t->ncols + c];
                    fputc(' ', d->out);
                    put_text(d, *s ? s : "-", true);
                    fputs(" |", d->out);
                }
            fputc('\n', d->out);
        }
        fputc('\n', d->out);
        return;
    }
    /* tex */
    fputs("\\begin{table}[htbp]\n\\centering\\small\n\\caption{", d->out);
    put_text(d, t->title, false);
    fprintf(d->out, "}\n\\label{tab:ripsim-%s}\n\\begin{tabular}{", t->id);
    for (size_t c = 0; c < t->ncols; c++)
        if (shown(d, &t->cols[c]))
            fputs(t->cols[c].align == 'p' ? "p{5cm}" : t->cols[c].align == 'r' ? "r" : "l", d->out);
    fputs("}\n\\hline\n", d->out);
    bool first = true;
    for (size_t c = 0; c < t->ncols; c++)
        if (shown(d, &t->cols[c])) {
            fputs(first ? "" : " & ", d->out);
            put_text(d, t->cols[c].label, false);
            first = false;
        }
    fputs(" \\\\\n\\hline\n", d->out);
    for (size_t r = 0; r < rows; r++) {
        first = true;
        for (size_t c = 0; c < t->ncols; c++)
            if (shown(d, &t->cols[c])) {
                const char *s = t->cells[r * t->ncols + c];
                fputs(first ? "" : " & ", d->out);
                put_text(d, *s ? s : "--", false);
                first = false;
            }
        fputs(" \\\\\n", d->out);
    }
    fputs("\\hline\n\\end{tabular}\n\\end{table}\n\n", d->out);
}

/* ---- the data ---------------------------------------------------------------- */

typedef struct margin_stats {
    size_t n;
    double mean, median, sd, min, max, p90;
    double ci_lo, ci_hi;   /* 95% Student t interval of the mean; n >= 2 */
} margin_stats;

typedef struct formula_row {
    char name[48], exec_config[48], paper[128];
    bool is_workspace;
    int64_t unsafe, tight, loose, na;
    margin_stats loose_st;    /* value - truth where loose */
    margin_stats unsafe_st;   /* truth - value where unsafe (the shortfall) */
} formula_row;

typedef struct gen_row {
    char name[64], title[192];
    int64_t ord, tier, weight, drawn;
} gen_row;

typedef struct exec_row {
    char config[32];
    int64_t executed, bit_exact, early, truth_zero, truth_positive, caught;
} exec_row;

/* One truth or closed form against the traversal optimum (view optimum_gaps). */
typedef struct opt_row {
    const char *name;
    int64_t n, above, equal, below, max_over;
    double mean_over;
} opt_row;

enum { N_OPT_ROWS = 14 };

typedef struct report_data {
    rip_run_info run;
    int64_t present, expected, partial, foreign, restricted, n_formulas;
    formula_row *f;
    size_t nf;
    gen_row *g;
    size_t ng;
    int64_t unknown_gen_drawn;
    int64_t tier_weight[4], tier_gens[4], tier_drawn[4];   /* index 0: a tier outside 1..3 */
    /* Lemma 9 on restricted layers with cout > cin where Eq. 1 was judged */
    int64_t l9_in, l9_match, l9_nonint, l9_nonint_unsafe, l9_int, l9_int_tight;
    int64_t l9_out, l9_out_loose, l9_out_max_over;
    /* Eq. 42, [0] taps (sigma = C_out), [1] gather (sigma = 0) */
    int64_t eq42_n[2], eq42_ws_ok[2], eq42_pad[2], eq42_pad_strict[2], eq42_gap_ge[2];
    /* App. F.4: thm13_taps overshoot <= sigma = C_out */
    int64_t f4_loose, f4_within, f4_max_excess;
    /* App. E.3, herringbone_pruned against herringbone_taps (hb) and _reader (rd) in
    ** workspace; [0] layers whose input is all read, [1] layers with stale input */
    int64_t pr_n[2], pr_lt_hb[2], pr_eq_hb[2], pr_gt_hb[2], pr_lt_rd[2], pr_eq_rd[2], pr_gt_rd[2];
    int64_t pr_gap_ge[2];            /* pruned gap >= herringbone_taps gap */
    int64_t pr_save_centi[2];        /* mean saving against hb, percent x 100 */
    int64_t pr_max_save[2], pr_max_idx[2], pr_eq_idx;   /* largest saving and its layer; first stale layer
                                                          ** with equal workspace (-1 if none) */
    int64_t schema_version;   /* PRAGMA user_version of the database */
    /* sweep --execute (schema version 2): per rip_* configuration, view execution_summary */
    int64_t executed_layers;  /* layers with executions */
    size_t n_exec;
    exec_row x[4];
    /* sweep --optimum: layers with an optimum, and each gap against it */
    int64_t opt_layers, opt_max_pixels;
    opt_row opt[N_OPT_ROWS];
    /* the 95% Clopper-Pearson intervals of the claims' two shares (share_cis):
    ** restricted of present, thm13_taps tight of judged (when judged) */
    rip_ci restricted_ci, dense_tight_ci;
} report_data;

static void data_free(report_data *r)
{
    free(r->f);
    free(r->g);
    memset(r, 0, sizeof *r);
}

static const formula_row *find_formula(const report_data *r, const char *name)
{
    for (size_t i = 0; i < r->nf; i++)
        if (strcmp(r->f[i].name, name) == 0)
            return &r->f[i];
    return NULL;
}

static int64_t judged(const formula_row *f)
{
    return f ? f->unsafe + f->tight + f->loose : 0;
}

/* ---- queries ----------------------------------------------------------------- */

/*
** Prepare sql, bind the text parameters (NULL-terminated list, ?1, ?2, ...),
** step once and read up to n integer columns into out (NULL reads as 0).
** Returns 0 (also when the query gives no row: out is then all 0) or -1 with
** err.
*/
static int query_ints(sqlite3 *db, const char *sql, const char *const *params, int64_t *out, int n,
                      char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    for (int i = 0; rc == SQLITE_OK && params && params[i]; i++)
        rc = sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC);
    for (int i = 0; i < n; i++)
        out[i] = 0;
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            for (int i = 0; i < n && i < sqlite3_column_count(st); i++)
                out[i] = sqlite3_column_int64(st, i);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK)
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : -1;
}

static void copy_text(char *dst, size_t cap, const unsigned char *src)
{
    snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

/*
** Statistics of n margins x[0..n) ('loose': value - truth; 'unsafe':
** truth - value), sorted in place.  Fills *ms (all 0 when n = 0).
** RIP_OK, or the status of rip_ci_mean with err.
*/
static rip_status margin_stats_from(double *x, size_t n, margin_stats *ms, char err[RIP_ERR_LEN])
{
    memset(ms, 0, sizeof *ms);
    ms->n = n;
    if (n == 0)
        return RIP_OK;
    gsl_sort(x, 1, n);
    ms->mean = gsl_stats_mean(x, 1, n);
    ms->median = gsl_stats_median_from_sorted_data(x, 1, n);
    ms->p90 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.9);
    ms->min = x[0];
    ms->max = x[n - 1];
    if (n < 2)
        return RIP_OK;
    ms->sd = gsl_stats_sd_m(x, 1, n, ms->mean);
    rip_ci ci;
    rip_status s = rip_ci_mean(ms->mean, ms->sd, (int64_t)n, CONFIDENCE, &ci, err);
    if (s == RIP_OK) {
        ms->ci_lo = ci.lo;
        ms->ci_hi = ci.hi;
    }
    return s;
}

/* Every table and view the report reads; 0 or -1 with err naming the first missing. */
static int check_tables(sqlite3 *db, char err[RIP_ERR_LEN])
{
    static const char *const names[] = {"runs", "layers", "truths", "verdicts",
                                        "formulas", "generators", "verdict_summary", "layer_results"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int64_t have = 0;
        const char *p[] = {names[i], NULL};
        if (query_ints(db, "SELECT count(*) FROM sqlite_master WHERE name = ?1 AND type IN ('table','view')",
                       p, &have, 1, err) != 0)
            return -1;
        if (!have) {
            snprintf(err, RIP_ERR_LEN, "not a ripsim database (no %s %s)",
                     strcmp(names[i], "verdict_summary") == 0 ? "view" : "table", names[i]);
            return -1;
        }
    }
    return 0;
}

/*
** Per formula (verdict_summary joined to formulas, paper order): the four
** verdict counts (from verdict_counts: no pass over the layers; the margins
** come from scan_layers).  Fills r->f and r->nf; returns 0, or -1 with err
** (*oom set when memory ran out).
*/
static int gather_formulas(sqlite3 *db, report_data *r, bool *oom, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int result = -1;
    int64_t count = 0;
    if (query_ints(db, "SELECT count(*) FROM verdict_summary WHERE run_id = " RUN_ID, NULL, &count, 1, err) != 0)
        return -1;
    r->f = calloc(count > 0 ? (size_t)count : 1, sizeof *r->f);
    if (!r->f) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return -1;
    }
    int rc = sqlite3_prepare_v2(db,
        "SELECT s.formula, s.exec_config, f.paper, f.is_workspace, s.unsafe, s.tight, s.loose, s.na "
        "FROM verdict_summary s JOIN formulas f USING (formula) WHERE s.run_id = " RUN_ID
        " ORDER BY f.ord, s.exec_config", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->nf == (size_t)count)
            break;   /* a row appeared between the two statements: cannot, inside one transaction */
        formula_row *f = &r->f[r->nf++];
        copy_text(f->name, sizeof f->name, sqlite3_column_text(st, 0));
        copy_text(f->exec_config, sizeof f->exec_config, sqlite3_column_text(st, 1));
        copy_text(f->paper, sizeof f->paper, sqlite3_column_text(st, 2));
        f->is_workspace = sqlite3_column_int(st, 3) != 0;
        f->unsafe = sqlite3_column_int64(st, 4);
        f->tight = sqlite3_column_int64(st, 5);
        f->loose = sqlite3_column_int64(st, 6);
        f->na = sqlite3_column_int64(st, 7);
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
        goto done;
    }
    result = 0;
done:
    sqlite3_finalize(st);
    return result;
}

/*
** Tab. 5's categories: every row of the generators table with its tier and
** weight, in generator order (ord), and the tier weights.  The layers drawn
** per category are counted by scan_layers.  Fills r->g, r->ng,
** r->tier_weight, r->tier_gens; returns 0, or -1 with err (*oom set when
** memory ran out).
*/
static int gather_generators(sqlite3 *db, report_data *r, bool *oom, char err[RIP_ERR_LEN])
{
    sqlite3_stmt *st = NULL;
    int result = -1;
    int64_t count = 0;
    if (query_ints(db, "SELECT count(*) FROM generators", NULL, &count, 1, err) != 0)
        return -1;
    r->g = calloc(count > 0 ? (size_t)count : 1, sizeof *r->g);
    if (!r->g) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return -1;
    }
    int rc = sqlite3_prepare_v2(db, "SELECT generator, tier, weight, title, ord FROM generators ORDER BY ord, generator",
                                -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW && r->ng < (size_t)count) {
        gen_row *g = &r->g[r->ng++];
        copy_text(g->name, sizeof g->name, sqlite3_column_text(st, 0));
        g->tier = sqlite3_column_int64(st, 1);
        g->weight = sqlite3_column_int64(st, 2);
        copy_text(g->title, sizeof g->title, sqlite3_column_text(st, 3));
        g->ord = sqlite3_column_int64(st, 4);
        int t = g->tier >= 1 && g->tier <= 3 ? (int)g->tier : 0;
        r->tier_weight[t] += g->weight;
        r->tier_gens[t]++;
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
        goto done;
    }
    result = 0;
done:
    sqlite3_finalize(st);
    return result;
}

/*
** The schema version and, when the database has table executions (version
** 2), the execution counts per rip_* configuration.  0 or -1 with err.
*/
static int gather_executions(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN])
{
    int64_t have = 0;
    sqlite3_stmt *st = NULL;
    if (query_ints(db, "PRAGMA user_version", NULL, &r->schema_version, 1, err) != 0 ||
        query_ints(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'execution_summary'",
                   NULL, &have, 1, err) != 0)
        return -1;
    if (!have)
        return 0;
    if (query_ints(db, "SELECT count(DISTINCT layer_idx) FROM executions WHERE run_id = " RUN_ID, NULL,
                   &r->executed_layers, 1, err) != 0)
        return -1;
    int rc = sqlite3_prepare_v2(db,
                                "SELECT exec_config, executed, bit_exact, early_overwrite_at_truth, truth_zero,"
                                " truth_positive, caught_at_truth_minus_1 FROM execution_summary"
                                " WHERE run_id = " RUN_ID, -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (r->n_exec >= sizeof r->x / sizeof r->x[0])
            continue; /* the CHECK constraint allows only the four */
        exec_row *x = &r->x[r->n_exec++];
        copy_text(x->config, sizeof x->config, sqlite3_column_text(st, 0));
        x->executed = sqlite3_column_int64(st, 1);
        x->bit_exact = sqlite3_column_int64(st, 2);
        x->early = sqlite3_column_int64(st, 3);
        x->truth_zero = sqlite3_column_int64(st, 4);
        x->truth_positive = sqlite3_column_int64(st, 5);
        x->caught = sqlite3_column_int64(st, 6);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "cannot read execution_summary: %s", sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

/* ---- one pass over the layers ------------------------------------------------ */

/* Growable array of margins (one per formula and verdict). */
typedef struct margins {
    double *x;
    size_t n, cap;
} margins;

static bool margins_push(margins *m, double v)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        double *y = realloc(m->x, cap * sizeof *y);
        if (!y)
            return false;
        m->x = y;
        m->cap = cap;
    }
    m->x[m->n++] = v;
    return true;
}

/* Leading columns of the scan, then per formula its value and its truth. */
enum {
    SC_IDX, SC_GEN, SC_RESTRICTED, SC_CIN, SC_COUT, SC_KH, SC_WOUT, SC_NIP, SC_NID, SC_PAD,
    SC_NREAD, SC_HB_PRUNED, SC_HB_TAPS, SC_HB_READER, SC_FIRST
};

/* Append "r.\"name\"" (or NULL when name is empty) to b; false if name cannot be an identifier. */
static bool add_column(sbuf *b, const char *name)
{
    if (!*name) {
        sb_printf(b, ", NULL");
        return true;
    }
    if (strchr(name, '"'))
        return false;
    sb_printf(b, ", r.\"%s\"", name);
    return true;
}

/* Per formula index fi of r->f (-1: not one the checks use). */
typedef struct scan_ids {
    int gm, taps[2], gather[2], dense_taps;   /* taps/gather: [0] Theorem 4, [1] Theorem 13 */
} scan_ids;

static int formula_index(const report_data *r, const char *name)
{
    for (size_t i = 0; i < r->nf; i++)
        if (strcmp(r->f[i].name, name) == 0)
            return (int)i;
    return -1;
}

/*
** One row's share of Lemma 9, Eq. 42 and App. F.4 (v/t: each formula's
** value and truth, have: both present).
*/
static void scan_checks(report_data *r, const scan_ids *id, sqlite3_stmt *st, const int64_t *v, const int64_t *t,
                        const bool *have, bool *f4_any, bool *l9_any)
{
    int64_t cin = sqlite3_column_int64(st, SC_CIN), cout = sqlite3_column_int64(st, SC_COUT);
    int64_t nip = sqlite3_column_int64(st, SC_NIP), nid = sqlite3_column_int64(st, SC_NID);
    bool pad = sqlite3_column_int64(st, SC_PAD) > 0;
    /* Lemma 9: restricted layers with cout > cin where Eq. 1 was judged; x* = (k-1) cin / (cout - cin) */
    if (id->gm >= 0 && have[id->gm] && sqlite3_column_int64(st, SC_RESTRICTED) == 1 && cout > cin) {
        int64_t num = (sqlite3_column_int64(st, SC_KH) - 1) * cin, den = cout - cin;
        int64_t rho = num % den, margin = v[id->gm] - t[id->gm];
        if (num / den <= sqlite3_column_int64(st, SC_WOUT) - 1) {
            r->l9_in++;
            r->l9_match += -margin == rho;
            r->l9_nonint += rho != 0;
            r->l9_nonint_unsafe += rho != 0 && margin < 0;
            r->l9_int += rho == 0;
            r->l9_int_tight += rho == 0 && margin == 0;
        } else {
            r->l9_out++;
            if (margin > 0) {
                r->l9_out_loose++;
                r->l9_out_max_over = *l9_any && r->l9_out_max_over > margin ? r->l9_out_max_over : margin;
                *l9_any = true;
            }
        }
    }
    /* Eq. 42: Theorem 4 against Theorem 13, [0] taps, [1] gather, where both are defined */
    for (int i = 0; i < 2; i++) {
        int a = i == 0 ? id->taps[0] : id->gather[0], b = i == 0 ? id->taps[1] : id->gather[1];
        if (a < 0 || b < 0 || !have[a] || !have[b])
            continue;
        r->eq42_n[i]++;
        r->eq42_ws_ok[i] += v[a] + nip >= v[b] + nid;
        r->eq42_pad[i] += pad;
        r->eq42_pad_strict[i] += pad && v[a] + nip > v[b] + nid;
        r->eq42_gap_ge[i] += v[b] >= v[a];
    }
    /* App. F.4: where thm13_taps is loose, its overshoot against sigma = cout */
    if (id->dense_taps >= 0 && have[id->dense_taps] && v[id->dense_taps] > t[id->dense_taps]) {
        int64_t m = v[id->dense_taps] - t[id->dense_taps];
        r->f4_loose++;
        r->f4_within += m <= cout;
        r->f4_max_excess = *f4_any && r->f4_max_excess > m - cout ? r->f4_max_excess : m - cout;
        *f4_any = true;
    }
}

/*
** One row's share of App. E.3's comparison: the pruned herringbone's
** workspace (gap + n_in_read) against herringbone_taps' and
** herringbone_taps_reader's (gap + n_in_padded), in class 1 when the layer
** has input no output reads (n_in_read < n_in_padded), else class 0;
** save_sum[class] adds the percent saved against herringbone_taps (rows in
** layer order, as the SQL avg() it replaces).  pr_max_idx and pr_eq_idx
** start at -1.
*/
static void scan_pruned(report_data *r, sqlite3_stmt *st, double save_sum[2])
{
    const int64_t idx = sqlite3_column_int64(st, SC_IDX), nip = sqlite3_column_int64(st, SC_NIP);
    const int64_t nrd = sqlite3_column_int64(st, SC_NREAD);
    const int64_t pr = sqlite3_column_int64(st, SC_HB_PRUNED) + nrd;
    const int64_t hb = sqlite3_column_int64(st, SC_HB_TAPS) + nip;
    const int64_t rd = sqlite3_column_int64(st, SC_HB_READER) + nip;
    const int k = nrd < nip;
    r->pr_n[k]++;
    r->pr_lt_hb[k] += pr < hb;
    r->pr_eq_hb[k] += pr == hb;
    r->pr_gt_hb[k] += pr > hb;
    r->pr_lt_rd[k] += pr < rd;
    r->pr_eq_rd[k] += pr == rd;
    r->pr_gt_rd[k] += pr > rd;
    r->pr_gap_ge[k] += sqlite3_column_int64(st, SC_HB_PRUNED) >= sqlite3_column_int64(st, SC_HB_TAPS);
    save_sum[k] += 100.0 * (double)(hb - pr) / (double)hb;
    if (r->pr_max_idx[k] < 0 || hb - pr > r->pr_max_save[k]) {   /* the first layer of the largest saving */
        r->pr_max_save[k] = hb - pr;
        r->pr_max_idx[k] = idx;
    }
    if (k == 1 && pr == hb && r->pr_eq_idx < 0)
        r->pr_eq_idx = idx;
}

/*
** Everything the report needs per layer, in one pass over layer_results
** (a report of 1,000,000 layers reads each row once instead of once per
** query): layers present, restricted and outside the run; layers drawn
** per generator and tier; each formula's loose and unsafe margins (with
** their statistics); Lemma 9, Eq. 42 and App. F.4.  The database passed
** rip_db_check in this read transaction (db.h): every value is an integer
** in the range the sums and products here need, and verdict_summary's
** counts are those of these rows.  r->f and r->g must be loaded.  Returns 0, or -1 with err (*oom set when memory ran out).
** Memory: the margins of the loose and unsafe verdicts, 8 bytes each.
*/
static int scan_layers(sqlite3 *db, report_data *r, bool *oom, char err[RIP_ERR_LEN])
{
    sbuf q = {0};
    sqlite3_stmt *st = NULL;
    margins *m = calloc(2 * (r->nf ? r->nf : 1), sizeof *m);   /* [2 fi]: loose, [2 fi + 1]: unsafe */
    int64_t *v = calloc(2 * (r->nf ? r->nf : 1), sizeof *v), *t = v ? v + r->nf : NULL;
    bool *have = calloc(r->nf ? r->nf : 1, sizeof *have);
    bool f4_any = false, l9_any = false;
    double save_sum[2] = {0, 0};   /* percent saved against herringbone_taps, summed per class */
    int result = -1, rc = SQLITE_OK;
    for (int k = 0; k < 2; k++)
        r->pr_max_idx[k] = -1;
    r->pr_eq_idx = -1;
    if (!m || !v || !have) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    scan_ids id = {formula_index(r, "gm2019_eq1"),
                   {formula_index(r, "thm4_taps"), formula_index(r, "thm13_taps")},
                   {formula_index(r, "thm4_gather"), formula_index(r, "thm13_gather")},
                   formula_index(r, "thm13_taps")};
    sb_printf(&q, "SELECT r.layer_idx, r.gen, r.restricted, r.cin, r.cout, r.k_h, r.w_out, r.n_in_padded,"
                  " r.n_in_dense, r.p_top + r.p_bottom + r.p_left + r.p_right, r.n_in_read, r.herringbone_pruned,"
                  " r.herringbone_taps, r.herringbone_taps_reader");
    for (size_t i = 0; i < r->nf; i++)
        if (!add_column(&q, r->f[i].name) || !add_column(&q, r->f[i].is_workspace ? "" : r->f[i].exec_config)) {
            snprintf(err, RIP_ERR_LEN, "formula %.60s or its configuration is not a column name", r->f[i].name);
            goto done;
        }
    sb_printf(&q, " FROM layer_results r");
    if (q.oom) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    int64_t n = r->run.n_layers, k = r->run.shard_count, si = r->run.shard_index;
    rc = sqlite3_prepare_v2(db, sb_str(&q), -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        int64_t idx = sqlite3_column_int64(st, SC_IDX), gen = sqlite3_column_int64(st, SC_GEN);
        r->present++;
        r->restricted += sqlite3_column_int64(st, SC_RESTRICTED);
        r->foreign += idx < 0 || idx >= n || idx % k != si;
        size_t g = 0;
        while (g < r->ng && r->g[g].ord != gen)
            g++;
        if (g < r->ng) {
            r->g[g].drawn++;
            r->tier_drawn[r->g[g].tier >= 1 && r->g[g].tier <= 3 ? r->g[g].tier : 0]++;
        } else {
            r->unknown_gen_drawn++;
        }
        bool partial = false;
        for (size_t i = 0; i < r->nf; i++) {
            int cv = SC_FIRST + 2 * (int)i;
            bool workspace = r->f[i].is_workspace;
            bool tnull = !workspace && sqlite3_column_type(st, cv + 1) == SQLITE_NULL;
            partial |= tnull;
            have[i] = !workspace && !tnull && sqlite3_column_type(st, cv) != SQLITE_NULL;
            v[i] = sqlite3_column_int64(st, cv);
            t[i] = sqlite3_column_int64(st, cv + 1);
            if (!have[i])
                continue;
            int64_t d = v[i] - t[i];
            if (d != 0 && !margins_push(&m[2 * i + (d < 0)], (double)(d < 0 ? -d : d))) {
                *oom = true;
                snprintf(err, RIP_ERR_LEN, "out of memory reading the margins of %s", r->f[i].name);
                goto done;
            }
        }
        r->partial += partial;
        scan_checks(r, &id, st, v, t, have, &f4_any, &l9_any);
        scan_pruned(r, st, save_sum);
    }
    if (rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
        goto done;
    }
    for (int k = 0; k < 2; k++)   /* as SQLite's round(avg(x) * 100): half away from zero */
        r->pr_save_centi[k] = r->pr_n[k] > 0 ? (int64_t)round(save_sum[k] / (double)r->pr_n[k] * 100.0) : 0;
    for (size_t i = 0; i < r->nf; i++) {
        formula_row *f = &r->f[i];
        char why[RIP_ERR_LEN];
        if (margin_stats_from(m[2 * i].x, m[2 * i].n, &f->loose_st, why) != RIP_OK ||
            margin_stats_from(m[2 * i + 1].x, m[2 * i + 1].n, &f->unsafe_st, why) != RIP_OK) {
            snprintf(err, RIP_ERR_LEN, "the margins of %s: %.400s", f->name, why);
            goto done;
        }
    }
    result = 0;
done:
    sqlite3_finalize(st);
    for (size_t i = 0; m && i < 2 * r->nf; i++)
        free(m[i].x);
    free(m);
    free(v);
    free(have);
    free(q.s);
    return result;
}

/*
** The optima of `sweep --optimum` (view optimum_gaps), when the database
** has them; nothing otherwise, so a plain sweep's report is unchanged.
** Returns 0, or -1 with err.
*/
static int gather_optima(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN])
{
    static const char *const names[N_OPT_ROWS] = {
        "herringbone_taps_reader", "herringbone_taps", "row_major", "rip_padded_gather", "rip_padded_taps",
        "rip_dense_gather", "rip_dense_taps", "gm2019_eq1", "corollary1", "thm11", "thm4_gather", "thm4_taps",
        "thm13_gather", "thm13_taps"};
    int64_t have = 0, v[2];
    if (query_ints(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view' AND name = 'optimum_gaps'", NULL,
                   &have, 1, err) != 0)
        return -1;
    if (!have)
        return 0;
    if (query_ints(db, "SELECT count(*), coalesce(max(pixels), 0) FROM optimum_gaps", NULL, v, 2, err) != 0)
        return -1;
    r->opt_layers = v[0];
    r->opt_max_pixels = v[1];
    for (int i = 0; i < N_OPT_ROWS && r->opt_layers > 0; i++) {
        char sql[512];
        sqlite3_stmt *st = NULL;
        snprintf(sql, sizeof sql,
                 "SELECT count(%1$s_over), coalesce(sum(%1$s_over > 0), 0), coalesce(sum(%1$s_over = 0), 0), "
                 "coalesce(sum(%1$s_over < 0), 0), coalesce(max(%1$s_over), 0), coalesce(avg(%1$s_over), 0) "
                 "FROM optimum_gaps", names[i]);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
            snprintf(err, RIP_ERR_LEN, "cannot read optimum_gaps: %s", sqlite3_errmsg(db));
            sqlite3_finalize(st);
            return -1;
        }
        opt_row *o = &r->opt[i];
        o->name = names[i];
        o->n = sqlite3_column_int64(st, 0);
        o->above = sqlite3_column_int64(st, 1);
        o->equal = sqlite3_column_int64(st, 2);
        o->below = sqlite3_column_int64(st, 3);
        o->max_over = sqlite3_column_int64(st, 4);
        o->mean_over = sqlite3_column_double(st, 5);
        sqlite3_finalize(st);
    }
    return 0;
}

/*
** The intervals of the claims' two shares into r (r->present > 0).
** RIP_OK, or the status of rip_ci_share with err naming the share.
*/
static rip_status share_cis(report_data *r, char err[RIP_ERR_LEN])
{
    char why[RIP_ERR_LEN];
    const formula_row *dt = find_formula(r, "thm13_taps");
    rip_status s = rip_ci_share(r->restricted, r->present, CONFIDENCE, &r->restricted_ci, why);
    if (s != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "restricted share: %.400s", why);
        return s;
    }
    if (judged(dt) > 0 && (s = rip_ci_share(dt->tight, judged(dt), CONFIDENCE, &r->dense_tight_ci, why)) != RIP_OK)
        snprintf(err, RIP_ERR_LEN, "thm13_taps tight share: %.400s", why);
    return s;
}

/*
** Read everything the report shows.  Returns RIP_OK, or RIP_S_DATA /
** RIP_S_NOMEM / RIP_S_INTERNAL with err.
** Runs inside the caller's read transaction.
*/
static rip_status gather(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN])
{
    bool oom = false;
    if (check_tables(db, err) != 0)
        return RIP_S_DATA;
    int found = rip_db_read_run(db, &r->run, err);
    if (found < 0)
        return RIP_S_DATA;
    if (found > 0) {
        snprintf(err, RIP_ERR_LEN, "the database holds no run yet (empty sweep database)");
        return RIP_S_DATA;
    }
    if (r->run.shard_count < 1 || r->run.shard_index < 0 || r->run.shard_index >= r->run.shard_count ||
        r->run.n_layers < 0) {
        snprintf(err, RIP_ERR_LEN, "the run row is inconsistent (n_layers %lld, shard %lld of %lld)",
                 (long long)r->run.n_layers, (long long)r->run.shard_index, (long long)r->run.shard_count);
        return RIP_S_DATA;
    }
    int64_t n = r->run.n_layers, k = r->run.shard_count, i = r->run.shard_index;
    r->expected = n / k + (i < n % k ? 1 : 0);

    if (query_ints(db, "SELECT count(*) FROM formulas", NULL, &r->n_formulas, 1, err) != 0)
        return RIP_S_DATA;
    if (gather_formulas(db, r, &oom, err) != 0 || gather_generators(db, r, &oom, err) != 0 ||
        scan_layers(db, r, &oom, err) != 0)
        return oom ? RIP_S_NOMEM : RIP_S_DATA;
    if (r->present == 0) {
        snprintf(err, RIP_ERR_LEN, "the run holds no layers yet (seed %lld, %lld expected); run the sweep first",
                 (long long)r->run.seed, (long long)r->expected);
        return RIP_S_DATA;
    }
    if (gather_executions(db, r, err) != 0 || gather_optima(db, r, err) != 0)
        return RIP_S_DATA;
    return share_cis(r, err);
}

/* ---- claims ------------------------------------------------------------------ */

/* Does the paper's value (+- half its last printed digit) meet [lo, hi]? */
static bool within(double paper, double half, double lo, double hi)
{
    return paper + half >= lo && paper - half <= hi;
}

static const col claim_cols[] = {
    {"id", "id", 'l', SHOW_MACHINE},
    {"claim", "claim (paper)", 'p', SHOW_ALL},
    {"paper", "paper", 'l', SHOW_ALL},
    {"this_run", "this run", 'p', SHOW_ALL},
    {"check", "check", 'l', SHOW_ALL},
    {"holds", "holds", 'r', SHOW_MACHINE},
    {"of", "of", 'r', SHOW_MACHINE},
    {"value", "value", 'r', SHOW_MACHINE},
    {"ci_lo", "ci_lo", 'r', SHOW_MACHINE},
    {"ci_hi", "ci_hi", 'r', SHOW_MACHINE},
    {"paper_value", "paper_value", 'r', SHOW_MACHINE},
};

/*
** The machine-readable figures of a claim (csv only): holds of `of` cases
** satisfy it (layers, verdicts); value is the run's share (percent) or mean
** with its 95% interval, when the claim is about one; paper_value the
** paper's number, when it gives one.
*/
typedef struct fig {
    bool counted;
    int64_t holds, of;
    bool has_value, has_ci, has_paper;
    double value, lo, hi, paper;
} fig;

static void claim(table *t, const char *id, const char *text, const char *paper, const char *check,
                  const fig *f, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* One row of the claims table; this_run is printf-formatted. */
static void claim(table *t, const char *id, const char *text, const char *paper, const char *check,
                  const fig *f, const char *fmt, ...)
{
    char run[512];
    va_list ap;
    va_start(ap, fmt);
    if (rip_fmt_vsnprintf(run, sizeof run, fmt, ap) == RIP_FMT_NONFINITE)
        t->nonfinite = true;
    va_end(ap);
    cellf(t, "%s", id);
    cellf(t, "%s", text);
    cellf(t, "%s", paper);
    cellf(t, "%s", run);
    cellf(t, "%s", check);
    if (f->counted) {
        cellf(t, "%lld", (long long)f->holds);
        cellf(t, "%lld", (long long)f->of);
    } else {
        cellf(t, "%s", "");
        cellf(t, "%s", "");
    }
    cell_num(t, f->has_value, f->value);
    cell_num(t, f->has_ci, f->lo);
    cell_num(t, f->has_ci, f->hi);
    cell_num(t, f->has_paper, f->paper);
}

static const char *check_word(int64_t of, bool ok)
{
    return of == 0 ? "not checked" : ok ? "agrees" : "differs";
}

/* "tight on every layer" for an always-defined formula. */
static void claim_tight_all(table *t, const report_data *r, const char *id, const char *name,
                            const char *text)
{
    const formula_row *f = find_formula(r, name);
    if (!f) {
        fig none = {0};
        claim(t, id, text, "all " PAPER_N_LAYERS " tight", "not checked", &none, "no verdicts of %s", name);
        return;
    }
    fig g = {.counted = true, .holds = f->tight, .of = r->present};
    bool ok = f->tight == r->present && f->unsafe == 0 && f->loose == 0;
    claim(t, id, text, "all " PAPER_N_LAYERS " tight", check_word(r->present, ok), &g,
          "%lld of %lld layers tight (%lld unsafe, %lld loose, %lld n/a)", (long long)f->tight,
          (long long)r->present, (long long)f->unsafe, (long long)f->loose, (long long)f->na);
}

/* A share claim: x of n against the paper's percentage; ci its interval
** (share_cis) when n > 0. */
static void claim_share(table *t, const char *id, const char *text, const char *paper_text, double paper,
                        double half, int64_t x, int64_t n, const rip_ci *ci, const char *unit)
{
    fig g = {.counted = true, .holds = x, .of = n, .has_paper = true, .paper = paper};
    if (n == 0) {
        claim(t, id, text, paper_text, "not checked", &g, "no %s", unit);
        return;
    }
    g.lo = 100.0 * ci->lo;
    g.hi = 100.0 * ci->hi;
    g.has_value = g.has_ci = true;
    g.value = pct(x, n);
    claim(t, id, text, paper_text, within(paper, half, g.lo, g.hi) ? "agrees" : "differs", &g,
          "%.2f%% (%lld of %lld %s; 95%% CI %.2f-%.2f%%)", tidy(g.value), (long long)x, (long long)n, unit,
          tidy(g.lo), tidy(g.hi));
}

static void build_claims(table *t, const report_data *r)
{
    claim_share(t, "restricted_share", "Layers inside the restricted setting of Gural & Murmann (Sec. 5.2)",
                "22.6%", PAPER_RESTRICTED_PCT, PAPER_RESTRICTED_HALF, r->restricted, r->present, &r->restricted_ci,
                "layers");

    int64_t unsafe = 0, verdicts = 0;
    sbuf who = {0};
    for (size_t i = 0; i < r->nf; i++) {
        const formula_row *f = &r->f[i];
        if (f->is_workspace || strcmp(f->name, "gm2019_eq1") == 0)
            continue;
        unsafe += f->unsafe;
        verdicts += judged(f);
        if (f->unsafe)
            sb_printf(&who, "%s%s %lld", who.len ? ", " : "; ", f->name, (long long)f->unsafe);
    }
    fig nu = {.counted = true, .holds = verdicts - unsafe, .of = verdicts, .has_paper = true, .paper = 0};
    claim(t, "no_unsafe", "No bound of the paper (Cor. 1, Thm. 4, 11, 13) is unsafe on any layer (Sec. 5.2, G.1)",
          "0 unsafe", check_word(verdicts, unsafe == 0), &nu, "%lld unsafe of %lld judged verdicts%s",
          (long long)unsafe, (long long)verdicts, sb_str(&who));
    if (who.oom)
        t->oom = true;
    if (who.nonfinite)
        t->nonfinite = true;
    free(who.s);

    claim_tight_all(t, r, "thm4_gather_tight", "thm4_gather",
                    "RiP padded bound, gather first, tight on every layer (Sec. 5.2)");
    claim_tight_all(t, r, "thm4_taps_tight", "thm4_taps",
                    "RiP padded bound, taps from the workspace, tight on every layer (Sec. 5.2)");
    claim_tight_all(t, r, "thm11_tight", "thm11",
                    "Generalized herringbone bound tight on every layer (Sec. 3.3, 5.2)");

    const formula_row *dt = find_formula(r, "thm13_taps");
    claim_share(t, "thm13_taps_tight_share", "Dense bound, taps from the workspace: share tight (Sec. 5.2)",
                "99.1%", PAPER_DENSE_TIGHT_PCT, PAPER_DENSE_TIGHT_HALF, dt ? dt->tight : 0, judged(dt),
                &r->dense_tight_ci, "judged");

    const margin_stats *ov = dt ? &dt->loose_st : NULL;
    const char *ov_text = "Dense bound, taps from the workspace: mean overshoot where loose (Sec. 5.2)";
    fig og = {.counted = false, .has_paper = true, .paper = PAPER_DENSE_OVERSHOOT};
    if (ov && ov->n >= 1) {
        og.has_value = true;
        og.value = ov->mean;
    }
    if (ov && ov->n >= 2) {
        og.has_ci = true;
        og.lo = ov->ci_lo;
        og.hi = ov->ci_hi;
        claim(t, "thm13_taps_overshoot", ov_text, "91.85",
              within(PAPER_DENSE_OVERSHOOT, PAPER_DENSE_OVERSHOOT_HALF, ov->ci_lo, ov->ci_hi) ? "agrees" : "differs",
              &og, "%.2f over %zu loose layers (95%% CI %.2f-%.2f)", tidy(ov->mean), ov->n, tidy(ov->ci_lo),
              tidy(ov->ci_hi));
    } else if (ov && ov->n == 1) {
        claim(t, "thm13_taps_overshoot", ov_text, "91.85", "not checked", &og,
              "one loose layer (%.2f): no interval", tidy(ov->mean));
    } else {
        claim(t, "thm13_taps_overshoot", ov_text, "91.85", "not checked", &og, "no loose layer");
    }

    fig f4 = {.counted = true, .holds = r->f4_within, .of = r->f4_loose};
    if (r->f4_loose > 0)
        claim(t, "thm13_taps_overshoot_le_sigma", "Dense overshoot never exceeds sigma = C_out (App. F.4)", "never",
              r->f4_within == r->f4_loose ? "agrees" : "differs", &f4,
              "%lld of %lld loose layers within sigma (largest excess over sigma %lld)", (long long)r->f4_within,
              (long long)r->f4_loose, (long long)(r->f4_max_excess > 0 ? r->f4_max_excess : 0));
    else
        claim(t, "thm13_taps_overshoot_le_sigma", "Dense overshoot never exceeds sigma = C_out (App. F.4)", "never",
              "agrees", &f4, "no loose layer");

    const formula_row *dg = find_formula(r, "thm13_gather");
    int64_t gj = judged(dg);
    fig gg = {.counted = true, .holds = dg ? dg->tight : 0, .of = gj};
    claim(t, "thm13_gather_tight", "Dense bound, gather first, tight on every layer it is defined on (Sec. 5.2)",
          "all " PAPER_N_LAYERS " tight", check_word(gj, dg && dg->tight == gj), &gg,
          "%lld of %lld judged tight (%lld unsafe, %lld loose; %lld n/a: p >= k_eff)",
          (long long)(dg ? dg->tight : 0), (long long)gj, (long long)(dg ? dg->unsafe : 0),
          (long long)(dg ? dg->loose : 0), (long long)(dg ? dg->na : 0));

    const formula_row *c1 = find_formula(r, "corollary1");
    int64_t cj = judged(c1);
    fig cg = {.counted = true, .holds = c1 ? c1->tight : 0, .of = r->restricted};
    claim(t, "corollary1_tight", "Corollary 1 tight on every restricted layer (Tab. 2; the paper checks its rows)",
          "tight on Tab. 2", check_word(cj, c1 && c1->tight == cj && cj == r->restricted), &cg,
          "%lld of %lld restricted layers tight (%lld judged)", (long long)(c1 ? c1->tight : 0),
          (long long)r->restricted, (long long)cj);

    fig lg = {.counted = true, .holds = r->l9_match, .of = r->l9_in};
    claim(t, "lemma9_shortfall",
          "G&M Eq. 1 falls short by exactly (k-1)C_in mod (C_out-C_in) where floor(x*) <= W_out-1 (Lemma 9)",
          "exact", check_word(r->l9_in, r->l9_match == r->l9_in), &lg,
          "%lld of %lld layers match (%lld with non-integer x*)", (long long)r->l9_match, (long long)r->l9_in,
          (long long)r->l9_nonint);

    static const char *const eq42_id[2] = {"eq42_taps", "eq42_gather"};
    static const char *const eq42_text[2] = {
        "Dense workspace never above padded, below it on padded layers (Eq. 42, App. F.3), sigma = C_out",
        "Dense workspace never above padded, below it on padded layers (Eq. 42, App. F.3), sigma = 0"};
    for (int i = 0; i < 2; i++) {
        bool ok = r->eq42_ws_ok[i] == r->eq42_n[i] && r->eq42_pad_strict[i] == r->eq42_pad[i];
        /* holds: layers satisfying both halves (>= everywhere, > where padded) */
        int64_t bad = (r->eq42_n[i] - r->eq42_ws_ok[i]) + (r->eq42_pad[i] - r->eq42_pad_strict[i]);
        fig eg = {.counted = true, .holds = r->eq42_n[i] - bad, .of = r->eq42_n[i]};
        claim(t, eq42_id[i], eq42_text[i], "every layer", check_word(r->eq42_n[i], ok), &eg,
              "W* >= W_d* on %lld of %lld; W* > W_d* on %lld of %lld padded", (long long)r->eq42_ws_ok[i],
              (long long)r->eq42_n[i], (long long)r->eq42_pad_strict[i], (long long)r->eq42_pad[i]);
    }

    bool comp_ok = r->ng == PAPER_N_GENERATORS && r->tier_gens[0] == 0;
    for (int k = 1; k <= 3; k++)
        comp_ok = comp_ok && r->tier_weight[k] == paper_tier_pct[k];
    fig cp = {.counted = false, .has_value = true, .value = (double)r->ng, .has_paper = true,
              .paper = PAPER_N_GENERATORS};
    claim(t, "composition", "Twenty generators in three tiers weighted 35/45/20% (App. G.2, Tab. 5)",
          "20; 35/45/20%", comp_ok ? "agrees" : "differs", &cp,
          "%zu generators; weights %lld/%lld/%lld%%; drawn %.2f/%.2f/%.2f%%", r->ng,
          (long long)r->tier_weight[1], (long long)r->tier_weight[2], (long long)r->tier_weight[3],
          tidy(pct(r->tier_drawn[1], r->present)), tidy(pct(r->tier_drawn[2], r->present)),
          tidy(pct(r->tier_drawn[3], r->present)));
}

/* ---- sections ---------------------------------------------------------------- */

/* The commands that regenerate the run's database and report, with or without --execute. */
static void regen_command(const report_data *r, bool execute, char *buf, size_t n)
{
    const char *exec = execute ? " --execute" : "";
    if (r->run.shard_count == 1)
        snprintf(buf, n, "ripsim sweep --n %lld --seed %lld%s --db DB; ripsim report --db DB",
                 (long long)r->run.n_layers, (long long)r->run.seed, exec);
    else
        snprintf(buf, n, "ripsim sweep --n %lld --seed %lld --shard %lld/%lld%s --db DB; ripsim report --db DB",
                 (long long)r->run.n_layers, (long long)r->run.seed, (long long)r->run.shard_index,
                 (long long)r->run.shard_count, exec);
}

static void section_run(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"key", "key", 'l', SHOW_MACHINE},
        {"label", "quantity", 'l', SHOW_HUMAN},
        {"value", "value", 'r', SHOW_ALL},
    };
    table t = {.id = "run", .title = "The run", .cols = cols, .ncols = 3};
    cellf(&t, "seed"); cellf(&t, "seed"); cellf(&t, "%lld", (long long)r->run.seed);
    cellf(&t, "n_layers"); cellf(&t, "sweep size (layers)"); cellf(&t, "%lld", (long long)r->run.n_layers);
    cellf(&t, "shard_index"); cellf(&t, "shard index"); cellf(&t, "%lld", (long long)r->run.shard_index);
    cellf(&t, "shard_count"); cellf(&t, "shards"); cellf(&t, "%lld", (long long)r->run.shard_count);
    cellf(&t, "layers_expected"); cellf(&t, "layers expected in this database");
    cellf(&t, "%lld", (long long)r->expected);
    cellf(&t, "layers_present"); cellf(&t, "layers present"); cellf(&t, "%lld", (long long)r->present);
    cellf(&t, "pct_present"); cellf(&t, "%s", "% present"); cellf(&t, "%.2f", tidy(pct(r->present, r->expected)));
    cellf(&t, "layers_partial"); cellf(&t, "layers lacking a verdict"); cellf(&t, "%lld", (long long)r->partial);
    cellf(&t, "layers_foreign"); cellf(&t, "layers outside the run's index set");
    cellf(&t, "%lld", (long long)r->foreign);
    cellf(&t, "formulas"); cellf(&t, "closed forms"); cellf(&t, "%lld", (long long)r->n_formulas);
    cellf(&t, "generators"); cellf(&t, "generator categories"); cellf(&t, "%zu", r->ng);
    cellf(&t, "ripsim_version"); cellf(&t, "written by ripsim"); cellf(&t, "%s", r->run.version);
    cellf(&t, "schema_version"); cellf(&t, "schema version"); cellf(&t, "%lld", (long long)r->schema_version);
    /* how to regenerate this database and report (the path is the user's);
    ** the executions say their own command (section_executions), so this
    ** section reads the same whether or not the sweep was executed */
    char cmd[256];
    regen_command(r, false, cmd, sizeof cmd);
    cellf(&t, "regenerate"); cellf(&t, "regenerate with"); cellf(&t, "%s", cmd);

    char line[512];
    if (r->present < r->expected) {
        if (rip_fmt_snprintf(line, sizeof line,
                             "INCOMPLETE RUN: only %lld of the %lld expected layers are present (%.2f%%). Every "
                             "figure below covers only the layers present; rerun the same `ripsim sweep` command to "
                             "finish it.",
                             (long long)r->present, (long long)r->expected,
                             tidy(pct(r->present, r->expected))) == RIP_FMT_NONFINITE)
            d->nonfinite = true;
        else
            doc_para(d, "warning", "incomplete", line, true);
    }
    if (r->partial > 0) {
        snprintf(line, sizeof line,
                 "INCOMPLETE ROWS: %lld layer(s) lack the verdict of some closed form; their formulas count fewer verdicts.", (long long)r->partial);
        doc_para(d, "warning", "partial", line, true);
    }
    if (r->foreign > 0) {
        snprintf(line, sizeof line,
                 "INCONSISTENT: %lld layers have an index outside this run's index set.", (long long)r->foreign);
        doc_para(d, "warning", "foreign", line, true);
    }
    if (r->run.shard_count > 1) {
        snprintf(line, sizeof line,
                 "This database is one shard of the sweep (layers with index %% %lld == %lld): combine the "
                 "shards with `ripsim merge` for the figures of the whole sweep.", (long long)r->run.shard_count,
                 (long long)r->run.shard_index);
        doc_para(d, "warning", "shard", line, true);
    }
    doc_heading(d, "Run");
    doc_table(d, &t);
    table_free(&t);
}

static void section_verdicts(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"formula", "formula", 'l', SHOW_ALL},
        {"exec_config", "judged against", 'l', SHOW_ALL},
        {"paper_ref", "paper", 'l', SHOW_ALL},
        {"unsafe", "unsafe", 'r', SHOW_ALL},
        {"tight", "tight", 'r', SHOW_ALL},
        {"loose", "loose", 'r', SHOW_ALL},
        {"na", "n/a", 'r', SHOW_ALL},
        {"judged", "judged", 'r', SHOW_ALL},
        {"pct_tight", "% tight of judged", 'r', SHOW_ALL},
    };
    table t = {.id = "verdicts", .title = "Verdicts per closed form (from view verdict_summary)",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (size_t i = 0; i < r->nf; i++) {
        const formula_row *f = &r->f[i];
        int64_t j = judged(f);
        cellf(&t, "%s", f->name);
        cellf(&t, "%s", f->exec_config);
        cellf(&t, "%s", f->paper);
        cellf(&t, "%lld", (long long)f->unsafe);
        cellf(&t, "%lld", (long long)f->tight);
        cellf(&t, "%lld", (long long)f->loose);
        cellf(&t, "%lld", (long long)f->na);
        cellf(&t, "%lld", (long long)j);
        cell_num(&t, j > 0, pct(f->tight, j));
    }
    doc_heading(d, "Verdicts");
    doc_para(d, NULL, NULL,
             "unsafe: value < truth (a corruption), tight: value = truth, loose: value > truth, n/a: not "
             "defined on the layer. `naive_workspace` is a workspace size, not a gap, and is never judged.",
             false);
    doc_table(d, &t);
    table_free(&t);
}

static void stats_row(table *t, const formula_row *f, const margin_stats *m)
{
    cellf(t, "%s", f->name);
    cellf(t, "%s", f->exec_config);
    cellf(t, "%zu", m->n);
    cell_num(t, m->n > 0, m->mean);
    cell_num(t, m->n > 0, m->median);
    cell_num(t, m->n >= 2, m->sd);
    cell_num(t, m->n > 0, m->min);
    cell_num(t, m->n > 0, m->p90);
    cell_num(t, m->n > 0, m->max);
}

static void section_margins(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"formula", "formula", 'l', SHOW_ALL},
        {"exec_config", "judged against", 'l', SHOW_ALL},
        {"n", "n", 'r', SHOW_ALL},
        {"mean", "mean", 'r', SHOW_ALL},
        {"median", "median", 'r', SHOW_ALL},
        {"sd", "sd", 'r', SHOW_ALL},
        {"min", "min", 'r', SHOW_ALL},
        {"p90", "p90", 'r', SHOW_ALL},
        {"max", "max", 'r', SHOW_ALL},
    };
    table lt = {.id = "loose_margins", .title = "Loose margins, value - truth in scalars, where loose",
                .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    table ut = {.id = "unsafe_shortfalls", .title = "Unsafe shortfalls, truth - value in scalars, where unsafe",
                .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (size_t i = 0; i < r->nf; i++) {
        const formula_row *f = &r->f[i];
        if (f->is_workspace)
            continue;
        stats_row(&lt, f, &f->loose_st);
        if (f->unsafe_st.n > 0)
            stats_row(&ut, f, &f->unsafe_st);
    }
    doc_heading(d, "Margins");
    doc_para(d, NULL, NULL,
             "Statistics with GSL: sd is the sample standard deviation (n >= 2), median and p90 are "
             "quantiles of the sorted margins (linear interpolation).", false);
    doc_table(d, &lt);
    if (ut.n > 0)
        doc_table(d, &ut);
    else
        doc_para(d, "unsafe_shortfalls", "none", "No closed form was unsafe on any layer.", false);
    table_free(&lt);
    table_free(&ut);
}

static void section_tab5(doc *d, const report_data *r)
{
    static const col gcols[] = {
        {"generator", "generator", 'l', SHOW_ALL},
        {"tier", "tier", 'r', SHOW_ALL},
        {"title", "Tab. 5 title", 'l', SHOW_ALL},
        {"weight_pct", "weight %", 'r', SHOW_ALL},
        {"drawn", "drawn", 'r', SHOW_ALL},
        {"share_pct", "share %", 'r', SHOW_ALL},
    };
    static const col tcols[] = {
        {"tier", "tier", 'l', SHOW_ALL},
        {"title", "", 'l', SHOW_ALL},
        {"generators", "generators", 'r', SHOW_ALL},
        {"weight_pct", "weight %", 'r', SHOW_ALL},
        {"paper_pct", "paper %", 'r', SHOW_ALL},
        {"drawn", "drawn", 'r', SHOW_ALL},
        {"share_pct", "share %", 'r', SHOW_ALL},
    };
    table g = {.id = "tab5", .title = "Tab. 5 as drawn: generator categories", .cols = gcols,
               .ncols = sizeof gcols / sizeof gcols[0]};
    table t = {.id = "tab5_tiers", .title = "Tab. 5 as drawn: tiers (paper App. G.2: 35/45/20%)", .cols = tcols,
               .ncols = sizeof tcols / sizeof tcols[0]};
    for (size_t i = 0; i < r->ng; i++) {
        const gen_row *x = &r->g[i];
        cellf(&g, "%s", x->name);
        cellf(&g, "%lld", (long long)x->tier);
        cellf(&g, "%s", x->title);
        cellf(&g, "%lld", (long long)x->weight);
        cellf(&g, "%lld", (long long)x->drawn);
        cellf(&g, "%.2f", tidy(pct(x->drawn, r->present)));
    }
    if (r->unknown_gen_drawn > 0) {
        cellf(&g, "(unknown)");
        cellf(&g, "%s", "");
        cellf(&g, "categories not in the generators table");
        cellf(&g, "%s", "");
        cellf(&g, "%lld", (long long)r->unknown_gen_drawn);
        cellf(&g, "%.2f", tidy(pct(r->unknown_gen_drawn, r->present)));
    }
    int64_t wsum = 0;
    for (int k = 1; k <= 3; k++) {
        cellf(&t, "%d", k);
        cellf(&t, "%s", tier_title[k]);
        cellf(&t, "%lld", (long long)r->tier_gens[k]);
        cellf(&t, "%lld", (long long)r->tier_weight[k]);
        cellf(&t, "%d", paper_tier_pct[k]);
        cellf(&t, "%lld", (long long)r->tier_drawn[k]);
        cellf(&t, "%.2f", tidy(pct(r->tier_drawn[k], r->present)));
        wsum += r->tier_weight[k];
    }
    if (r->tier_gens[0] > 0 || r->tier_drawn[0] > 0) {
        cellf(&t, "other");
        cellf(&t, "%s", tier_title[0]);
        cellf(&t, "%lld", (long long)r->tier_gens[0]);
        cellf(&t, "%lld", (long long)r->tier_weight[0]);
        cellf(&t, "%s", "");
        cellf(&t, "%lld", (long long)r->tier_drawn[0]);
        cellf(&t, "%.2f", tidy(pct(r->tier_drawn[0], r->present)));
        wsum += r->tier_weight[0];
    }
    cellf(&t, "total");
    cellf(&t, "%s", "");
    cellf(&t, "%zu", r->ng);
    cellf(&t, "%lld", (long long)wsum);
    cellf(&t, "100");
    cellf(&t, "%lld", (long long)r->present);
    cellf(&t, "%.2f", tidy(pct(r->present, r->present)));
    doc_heading(d, "Sweep composition (Tab. 5)");
    doc_table(d, &g);
    doc_table(d, &t);
    table_free(&g);
    table_free(&t);
}

/* The findings paragraph: every sentence is computed from the numbers. */
static void section_findings(doc *d, const report_data *r)
{
    sbuf b = {0};
    const formula_row *gm = find_formula(r, "gm2019_eq1");
    const formula_row *t4g = find_formula(r, "thm4_gather"), *t4t = find_formula(r, "thm4_taps");
    const formula_row *t11 = find_formula(r, "thm11");
    const formula_row *dg = find_formula(r, "thm13_gather"), *dt = find_formula(r, "thm13_taps");

    sb_printf(&b, "The database holds %lld of the %lld layers expected%s. ", (long long)r->present,
              (long long)r->expected, r->present < r->expected ? " (INCOMPLETE)" : "");
    sb_printf(&b, "%lld of them (%.2f%%) lie in the restricted setting of Gural & Murmann, against 22.6%% in "
                  "the paper. ", (long long)r->restricted, tidy(pct(r->restricted, r->present)));

    int64_t unsafe = 0, verdicts = 0;
    for (size_t i = 0; i < r->nf; i++)
        if (!r->f[i].is_workspace && strcmp(r->f[i].name, "gm2019_eq1") != 0) {
            unsafe += r->f[i].unsafe;
            verdicts += judged(&r->f[i]);
        }
    if (unsafe == 0)
        sb_printf(&b, "No bound of the paper was unsafe: all %lld judged verdicts of Corollary 1 and Theorems "
                      "4, 11 and 13 are tight or loose, as Sec. 5.2 reports. ", (long long)verdicts);
    else
        sb_printf(&b, "%lld of %lld judged verdicts of the paper's own bounds are UNSAFE, contrary to Sec. 5.2; "
                      "results/queries/unsafe_verdicts.sql lists them. ", (long long)unsafe, (long long)verdicts);

    sb_printf(&b, "Theorem 4 is tight on %lld (gather first) and %lld (taps from the workspace) and Theorem 11 "
                  "on %lld of %lld layers. ", (long long)(t4g ? t4g->tight : 0), (long long)(t4t ? t4t->tight : 0),
              (long long)(t11 ? t11->tight : 0), (long long)r->present);
    if (dt && judged(dt) > 0) {
        sb_printf(&b, "The dense bound (Theorem 13) with taps read from the workspace is tight on %lld of %lld "
                      "judged layers (%.2f%%, paper 99.1%%)", (long long)dt->tight, (long long)judged(dt),
                  tidy(pct(dt->tight, judged(dt))));
        if (dt->loose_st.n > 0)
            sb_printf(&b, "; where loose it overshoots by %.2f scalars on average (paper 91.85; median %.2f, "
                          "max %.2f), and by at most sigma = C_out on %lld of %lld loose layers",
                      tidy(dt->loose_st.mean), tidy(dt->loose_st.median), tidy(dt->loose_st.max),
                      (long long)r->f4_within, (long long)r->f4_loose);
        sb_printf(&b, ". ");
    }
    if (dg && judged(dg) > 0)
        sb_printf(&b, "With the receptive field gathered first it is tight on %lld of %lld judged layers%s. ",
                  (long long)dg->tight, (long long)judged(dg),
                  dg->tight == judged(dg) ? ", as the paper reports" : ", where the paper reports all");

    if (gm && judged(gm) > 0) {
        int64_t gj = judged(gm);
        sb_printf(&b, "G&M Eq. 1 as published, judged on the %lld restricted layers with C_out > C_in, is unsafe "
                      "on %lld (%.2f%%), tight on %lld and loose on %lld. ", (long long)gj, (long long)gm->unsafe,
                  tidy(pct(gm->unsafe, gj)), (long long)gm->tight, (long long)gm->loose);
        if (gm->unsafe_st.n > 0)
            sb_printf(&b, "Its shortfall truth - value averages %.2f scalars (median %.2f, max %.2f). ",
                      tidy(gm->unsafe_st.mean), tidy(gm->unsafe_st.median), tidy(gm->unsafe_st.max));
        if (r->l9_in > 0)
            sb_printf(&b, "The shortfall identity of Lemma 9, truth - Eq. 1 = (k-1)C_in mod (C_out-C_in), holds on "
                          "%lld of the %lld layers with `floor(x*) <= W_out-1`; of these, %lld have a non-integer "
                          "`x*` and %lld of them are unsafe, while %lld have an integer `x*` and %lld of them are "
                          "tight. ", (long long)r->l9_match, (long long)r->l9_in, (long long)r->l9_nonint,
                      (long long)r->l9_nonint_unsafe, (long long)r->l9_int, (long long)r->l9_int_tight);
        if (r->l9_out > 0)
            sb_printf(&b, "Outside the grid (`floor(x*) >= W_out`, Limitation 2) Eq. 1 is loose on %lld of %lld "
                          "layers, by up to %lld scalars. ", (long long)r->l9_out_loose, (long long)r->l9_out,
                      (long long)r->l9_out_max_over);
    } else {
        sb_printf(&b, "G&M Eq. 1 was not judged on any layer (no restricted layer with C_out > C_in). ");
    }
    if (r->eq42_n[0] > 0)
        sb_printf(&b, "In workspace (Eq. 42) the dense layout needs no more than the padded one on %lld of %lld "
                      "layers and strictly less on %lld of the %lld padded ones, while its gap is at least the "
                      "padded gap on %lld of %lld (taps from the workspace).", (long long)r->eq42_ws_ok[0],
                  (long long)r->eq42_n[0], (long long)r->eq42_pad_strict[0], (long long)r->eq42_pad[0],
                  (long long)r->eq42_gap_ge[0], (long long)r->eq42_n[0]);
    if (b.oom)
        d->oom = true;
    if (b.nonfinite)
        d->nonfinite = true;
    doc_heading(d, "Findings");
    doc_para(d, "findings", "1", sb_str(&b), false);
    free(b.s);
}

/*
** The known finding of the taps order at truth - 1, said beside its counts
** whenever a taps configuration went uncaught there: the simulator's taps
** semantics (sigma = C_out) is one scalar more conservative than a kernel
** that writes each channel right after computing it needs.
*/
static void taps_finding(doc *d, const report_data *r)
{
    char counts[256] = "";
    size_t used = 0;
    int uncaught = 0;
    for (size_t i = 0; i < r->n_exec; i++) {
        const exec_row *x = &r->x[i];
        if (strstr(x->config, "_taps") == NULL)
            continue;
        uncaught += x->caught < x->truth_positive;
        int k = snprintf(counts + used, sizeof counts - used, "%s%s %lld of %lld", used ? ", " : "", x->config,
                         (long long)x->caught, (long long)x->truth_positive);
        if (k > 0 && (size_t)k < sizeof counts - used)
            used += (size_t)k;
    }
    if (uncaught == 0)
        return;
    char line[1536];
    snprintf(line, sizeof line,
             "At truth - 1 the taps configurations are caught on few layers or none (%s layers with truth > 0), "
             "unlike the gather ones: the simulator's taps semantics (paper Eq. 6, sigma = C_out: a pixel's "
             "inputs stay live while any of its C_out channels is written) is one scalar more conservative than a "
             "kernel that writes each channel right after computing it needs. At truth - 1 the simulator's first "
             "failing write is the pixel's last channel landing on an input only that pixel reads, after every "
             "channel has read it, so no stale read follows and the output is still right; one scalar less "
             "(truth - 2) the kernels are caught (tests/test_kernels.c). Neither the simulator nor the kernels "
             "are changed to hide it.",
             counts);
    doc_para(d, "executions", "taps_truth_minus_1", line, false);
}

/* `sweep --execute`: the int8 kernels in place against dual buffering (only when executed). */
/*
** Appendix E.3's pruned herringbone (configuration herringbone_pruned,
** sim/README.md) against herringbone_taps and herringbone_taps_reader, in
** workspace, with E.3's sentence quoted: "strictly less" is checked on the
** layers that have stale input.
*/
static void section_pruned(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"layers", "layers", 'l', SHOW_ALL},
        {"n", "n", 'r', SHOW_ALL},
        {"lt_hb", "pruned < herringbone_taps", 'r', SHOW_ALL},
        {"eq_hb", "=", 'r', SHOW_ALL},
        {"gt_hb", ">", 'r', SHOW_ALL},
        {"lt_reader", "pruned < herringbone_taps_reader", 'r', SHOW_ALL},
        {"eq_reader", "=", 'r', SHOW_ALL},
        {"gt_reader", ">", 'r', SHOW_ALL},
        {"mean_saving_pct", "mean saving vs herringbone_taps (%)", 'r', SHOW_ALL},
        {"max_saving", "largest saving (scalars)", 'r', SHOW_ALL},
        {"max_saving_layer", "its layer_idx", 'r', SHOW_ALL},
    };
    table t = {.id = "pruned", .title = "Pruned herringbone (App. E.3) against herringbone, in workspace",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    static const char *const keys[2] = {"all_input_read", "stale_input"};
    for (int k = 0; k < 2; k++) {
        cellf(&t, "%s", keys[k]);
        cellf(&t, "%lld", (long long)r->pr_n[k]);
        cellf(&t, "%lld", (long long)r->pr_lt_hb[k]);
        cellf(&t, "%lld", (long long)r->pr_eq_hb[k]);
        cellf(&t, "%lld", (long long)r->pr_gt_hb[k]);
        cellf(&t, "%lld", (long long)r->pr_lt_rd[k]);
        cellf(&t, "%lld", (long long)r->pr_eq_rd[k]);
        cellf(&t, "%lld", (long long)r->pr_gt_rd[k]);
        cell_num(&t, r->pr_n[k] > 0, (double)r->pr_save_centi[k] / 100.0);
        cellf(&t, "%lld", (long long)r->pr_max_save[k]);
        if (r->pr_max_idx[k] >= 0 && r->pr_max_save[k] > 0)
            cellf(&t, "%lld", (long long)r->pr_max_idx[k]);
        else
            cellf(&t, "%s", "");
    }
    if (t.oom)
        d->oom = true;
    doc_heading(d, "Pruned herringbone (Appendix E.3)");
    sbuf b = {0};
    sb_printf(&b, "E.3: \"some input pixels are stale on arrival: no output ever depends on them. A traversal that "
                  "discards those before storing the input and then runs herringbone uses strictly less memory.\" "
                  "Configuration herringbone_pruned stores only the input some tap reads and runs the herringbone "
                  "with window release (sim/README.md); its workspace is its gap plus that input. ");
    sb_printf(&b, "%lld of %lld layers have stale input. On them the pruned workspace is strictly below "
                  "herringbone_taps' on %lld, equal on %lld and above on %lld", (long long)r->pr_n[1],
              (long long)(r->pr_n[0] + r->pr_n[1]), (long long)r->pr_lt_hb[1], (long long)r->pr_eq_hb[1],
              (long long)r->pr_gt_hb[1]);
    if (r->pr_eq_hb[1] > 0 && r->pr_eq_idx >= 0)
        sb_printf(&b, " (first equal: layer %lld; \"strictly\" fails where the stale input leaves the unpruned "
                      "pool before its peak)", (long long)r->pr_eq_idx);
    sb_printf(&b, "; against herringbone_taps_reader, which frees stale input before the first write, it is "
                  "below on %lld, equal on %lld and above on %lld. ", (long long)r->pr_lt_rd[1],
              (long long)r->pr_eq_rd[1], (long long)r->pr_gt_rd[1]);
    sb_printf(&b, "On the %lld layers without stale input the pruned workspace equals herringbone_taps' on %lld. "
                  "The pruned gap is at least herringbone_taps' on %lld of %lld layers (it has fewer slots to "
                  "reuse). No closed form of the paper describes this traversal; none is judged against it.",
              (long long)r->pr_n[0], (long long)r->pr_eq_hb[0], (long long)(r->pr_gap_ge[0] + r->pr_gap_ge[1]),
              (long long)(r->pr_n[0] + r->pr_n[1]));
    if (b.oom)
        d->oom = true;
    if (b.nonfinite)
        d->nonfinite = true;
    doc_para(d, NULL, NULL, sb_str(&b), false);
    free(b.s);
    doc_table(d, &t);
    table_free(&t);
}

static void section_executions(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"exec_config", "configuration", 'l', SHOW_ALL},
        {"executed", "layers executed", 'r', SHOW_ALL},
        {"bit_exact", "bit-exact at truth", 'r', SHOW_ALL},
        {"early_overwrite_at_truth", "early overwrite at truth", 'r', SHOW_ALL},
        {"truth_zero", "truth 0", 'r', SHOW_ALL},
        {"truth_positive", "truth > 0", 'r', SHOW_ALL},
        {"caught_at_truth_minus_1", "caught at truth - 1", 'r', SHOW_ALL},
        {"pct_caught", "% caught of truth > 0", 'r', SHOW_ALL},
    };
    if (r->executed_layers == 0)
        return;
    table t = {.id = "executions", .title = "Layers executed with the int8 kernels (from view execution_summary)",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (size_t i = 0; i < r->n_exec; i++) {
        const exec_row *x = &r->x[i];
        cellf(&t, "%s", x->config);
        cellf(&t, "%lld", (long long)x->executed);
        cellf(&t, "%lld", (long long)x->bit_exact);
        cellf(&t, "%lld", (long long)x->early);
        cellf(&t, "%lld", (long long)x->truth_zero);
        cellf(&t, "%lld", (long long)x->truth_positive);
        cellf(&t, "%lld", (long long)x->caught);
        cell_num(&t, x->truth_positive > 0, pct(x->caught, x->truth_positive));
    }
    if (t.oom)
        d->oom = true;
    doc_heading(d, "Executions");
    char cmd[256], line[1024];
    regen_command(r, true, cmd, sizeof cmd);
    snprintf(line, sizeof line,
             "Every executed layer ran with the int8 kernels of firmware/kernels/ on tensors drawn from its own "
             "stream: once in dual buffers, then per configuration in place in one workspace at the simulated "
             "truth (instrumented, to the end: bit-exact means equal to the dual-buffer output byte for byte, an "
             "early overwrite is a read of an input scalar already overwritten) and at truth - 1 until the "
             "instrumented run catches its first overwrite. A layer of truth 0 has no truth - 1 run. %lld layers "
             "executed; regenerate with %s.",
             (long long)r->executed_layers, cmd);
    doc_para(d, NULL, NULL, line, false);
    if (r->executed_layers < r->present) {
        char line[256];
        snprintf(line, sizeof line,
                 "INCOMPLETE EXECUTIONS: %lld of the %lld layers present are executed; rerun `ripsim sweep "
                 "--execute` to execute the rest.", (long long)r->executed_layers, (long long)r->present);
        doc_para(d, "warning", "executions", line, true);
    }
    doc_table(d, &t);
    table_free(&t);
    taps_finding(d, r);
}

/* How far every truth and closed form is from the traversal optimum, when
** the sweep stored optima (`ripsim sweep --optimum P`). */
static void section_optimum(doc *d, const report_data *r)
{
    static const col cols[] = {
        {"gap", "truth or closed form", 'l', SHOW_ALL},
        {"layers", "layers", 'r', SHOW_ALL},
        {"above", "above the optimum", 'r', SHOW_ALL},
        {"equal", "equal", 'r', SHOW_ALL},
        {"below", "below", 'r', SHOW_ALL},
        {"pct_above", "% above", 'r', SHOW_ALL},
        {"mean_over", "mean (value - optimum)", 'r', SHOW_ALL},
        {"max_over", "largest (value - optimum)", 'r', SHOW_ALL},
    };
    if (r->opt_layers == 0)
        return;
    table t = {.id = "optimum", .title = "Truths and closed forms against the traversal optimum (view optimum_gaps)",
               .cols = cols, .ncols = sizeof cols / sizeof cols[0]};
    for (int i = 0; i < N_OPT_ROWS; i++) {
        const opt_row *o = &r->opt[i];
        cellf(&t, "%s", o->name);
        cellf(&t, "%lld", (long long)o->n);
        cellf(&t, "%lld", (long long)o->above);
        cellf(&t, "%lld", (long long)o->equal);
        cellf(&t, "%lld", (long long)o->below);
        cell_num(&t, o->n > 0, pct(o->above, o->n));
        cell_num(&t, o->n > 0, o->mean_over);
        cellf(&t, "%lld", (long long)o->max_over);
    }
    if (t.oom)
        d->oom = true;
    doc_heading(d, "Against the traversal optimum");
    char line[1024];
    snprintf(line, sizeof line,
             "%lld layers of this run (output grids of up to %lld pixels) have their traversal-optimal gap: the "
             "smallest herringbone_taps_reader gap over every visiting order of the output pixels, by exact "
             "search, confirmed by the simulator (`ripsim sweep --optimum P`, `ripsim optimal`). Each row counts "
             "the layers where the truth or closed form is above, equal to or below it; row_major is the same "
             "pool rule in RiP's row-major order. RiP's configurations and their closed forms follow another "
             "rule (addresses, gather first, dense layouts), so \"below\" is possible there; for the two "
             "herringbone truths it would be a bug.",
             (long long)r->opt_layers, (long long)r->opt_max_pixels);
    doc_para(d, NULL, NULL, line, false);
    doc_table(d, &t);
    table_free(&t);
}

static void render(doc *d, const report_data *r)
{
    doc_begin(d);
    section_run(d, r);

    table claims = {.id = "claims", .title = "The paper's claims, checked on this run", .cols = claim_cols,
                    .ncols = sizeof claim_cols / sizeof claim_cols[0]};
    build_claims(&claims, r);
    doc_heading(d, "Claims");
    doc_para(d, NULL, NULL,
             "A share or mean agrees when the paper's value lies inside this run's 95% interval (Clopper-Pearson "
             "for a share, Student t for a mean); an \"on every layer\" claim agrees when no judged verdict is "
             "unsafe or loose.", false);
    doc_table(d, &claims);
    table_free(&claims);

    section_verdicts(d, r);
    section_margins(d, r);
    section_tab5(d, r);
    section_pruned(d, r);
    section_executions(d, r);
    section_optimum(d, r);
    section_findings(d, r);
}

/* ---- entry points --------------------------------------------------------------- */

bool rip_report_format_parse(const char *name, rip_report_format *fmt)
{
    static const char *const names[] = {"md", "csv", "tex"};
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, names[i]) == 0) {
            *fmt = (rip_report_format)i;
            return true;
        }
    return false;
}

rip_status rip_report_write(sqlite3 *db, rip_report_format fmt, FILE *out, rip_report_status *st,
                     char err[RIP_ERR_LEN])
{
    report_data r;
    memset(&r, 0, sizeof r);
    bool in_txn = false;   /* a read transaction of our own (none open: not opened by rip_db_open_read) */
    rip_status status = RIP_S_DATA;

    if (sqlite3_get_autocommit(db)) {
        if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
            snprintf(err, RIP_ERR_LEN, "cannot start a read transaction: %s", sqlite3_errmsg(db));
            goto done;
        }
        in_txn = true;
    }
    status = gather(db, &r, err);
    if (st) {
        st->layers_present = r.present;
        st->layers_expected = r.expected;
        st->layers_partial = r.partial;
    }
    if (status != 0)
        goto done;

    doc d = {.out = out, .fmt = fmt};
    render(&d, &r);
    if (d.oom) {
        snprintf(err, RIP_ERR_LEN, "out of memory while rendering the report");
        status = RIP_S_NOMEM;
    } else if (d.nonfinite) {
        snprintf(err, RIP_ERR_LEN, "a figure of the report is not a finite number (NaN or infinite): not printed");
        status = RIP_S_INTERNAL;
    } else if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, RIP_ERR_LEN, "cannot write the report");
        status = RIP_S_IO;
    }
done:
    if (in_txn && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK && status == 0) {
        snprintf(err, RIP_ERR_LEN, "cannot end the read transaction: %s", sqlite3_errmsg(db));
        status = RIP_S_DATA;
    }
    data_free(&r);
    if (status != 0)
        rip_err_one_line(err);   /* SQLite may quote damaged schema text */
    return status;
}
