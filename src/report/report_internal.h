/*
** report_internal.h — what the files of `ripsim report` share, private to
** src/report/report*.c: the paper's figures the report checks, the growable
** string (report_buf.c), the document model with its md/csv/tex emitters
** (report_doc.c), the data read from the database (report_gather.c,
** report_scan.c), the claims (report_claims.c) and the sections
** (report_sections.c, report_sections_extra.c), which report.c puts
** together.  Nothing here is part of ripsim's interface: report.h is.
**
** Every function below that takes a table or doc records failure in it
** (oom: memory ran out; nonfinite: a number was NaN or infinite, so not
** printed) instead of returning it; rip_report_write turns those flags
** into its status.
*/
#ifndef RIPSIM_REPORT_INTERNAL_H
#define RIPSIM_REPORT_INTERNAL_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "claims.h"
#include "confidence.h"
#include "db.h"
#include "paper_data.h"
#include "report.h"
#include "status.h"

/* ---- the paper's figures ------------------------------------------------ */

/* App. G.2's tiers (paper_data.h) as Tab. 5's section (report_sections.c) reads them. */
static const int paper_tier_pct[4] = {0, RIP_PAPER_TIER1_PCT, RIP_PAPER_TIER2_PCT, RIP_PAPER_TIER3_PCT};
static const char *const tier_title[4] = {
    "other", "real-network geometry", "small-grid and degenerate", "correctness corners"};

/* The level of every interval; the run id every query reads (db.h). */
#define CONFIDENCE 0.95
#define XSTR(x) STR(x)
#define STR(x) #x
#define RUN_ID XSTR(RIP_DB_RUN_ID)

/* ---- growable string (report_buf.c) ------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool oom;
    bool nonfinite;   /* a number to print was NaN or infinite (finite_fmt.h): not appended */
} sbuf;

/* Append printf-formatted text to b; on allocation failure set b->oom, on a
** number that is not finite set b->nonfinite, and keep what is there (once
** either is set, nothing more is appended).  The caller frees b->s. */
__attribute__((format(printf, 2, 3))) void rpt_sb_printf(sbuf *b, const char *fmt, ...);

/* The text of b so far ("" when empty); valid until the next append. */
const char *rpt_sb_str(const sbuf *b);

/* x for a fixed two-decimal rendering that never prints "-0.00": 0 when
** |x| < 0.005, else x. */
double rpt_tidy(double x);

/* 100 part / whole, or 0 when whole <= 0. */
double rpt_pct(int64_t part, int64_t whole);

/* ---- document model (report_doc.c) ------------------------------------ */

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


/* Append one cell (printf-formatted) to t; rows fill left to right.  On
** allocation failure set t->oom, on a number that is not finite set
** t->nonfinite (the table is then not printed). */
__attribute__((format(printf, 2, 3))) void rpt_cellf(table *t, const char *fmt, ...);

/* Append a number with two decimals to t, or an empty cell when !have. */
void rpt_cell_num(table *t, bool have, double x);

/* Free t's cells; t can be filled again. */
void rpt_table_free(table *t);

typedef struct doc {
    FILE *out;
    rip_report_format fmt;
    bool oom;
    bool nonfinite;   /* a figure was NaN or infinite: the report fails rather than print it */
} doc;

/* The report's title and preamble (md, tex) or the csv header line, to d->out. */
void rpt_doc_begin(doc *d);

/* A section heading (md, tex; nothing in csv). */
void rpt_doc_heading(doc *d, const char *text);

/* A paragraph; in csv a row (section, row, "text", text).  strong: bold.
** section NULL: an explanatory note, shown in md and tex only. */
void rpt_doc_para(doc *d, const char *section, const char *row, const char *text, bool strong);

/* Table t in d's format (csv: one line per shown cell, its row key in
** column 0).  A table whose oom or nonfinite is set is not written: the flag
** passes to d. */
void rpt_doc_table(doc *d, const table *t);

/* ---- the data ---------------------------------------------------------- */

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
    int64_t f4_loose, f4_within;
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
    /* the claims registry's claims on the sweep database (rpt_gather_claims),
    ** in the registry's order, each with its outcome */
    const rip_claim **claim;
    rip_claim_result *claim_res;
    size_t n_claims;
} report_data;

/* ---- the data read (report_gather.c, report_scan.c) --------------------- */

/*
** Read everything the report shows into r (zeroed by the caller), inside
** the caller's read transaction; db is never written.  Returns RIP_OK, or
** with err: RIP_S_DATA (a table missing, no run or no layers, a query
** failed), RIP_S_NOMEM, RIP_S_INTERNAL (an interval cannot be computed).
** r is to be freed with rpt_data_free whatever the outcome.
*/
rip_status rpt_gather(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN]);

/*
** Run every claim of the registry that reads the sweep database
** (report_claims.c) into r->claim / r->claim_res, after the registry's
** temporary views are made on db.  RIP_OK; rip_claim_run's status with
** err (RIP_S_DATA: a query this database cannot answer, damaged rows).
*/
rip_status rpt_gather_claims(sqlite3 *db, report_data *r, char err[RIP_ERR_LEN]);

/* Free what rpt_gather allocated in r and zero it. */
void rpt_data_free(report_data *r);

/* The row of formula name in r, or NULL. */
const formula_row *rpt_find_formula(const report_data *r, const char *name);

/* The verdicts of f that were judged (unsafe + tight + loose); 0 for NULL. */
int64_t rpt_judged(const formula_row *f);

/*
** The one pass over layer_results (report_scan.c): fills r's per-layer
** counts, r->f's margin statistics, Lemma 9, Eq. 42, App. F.4 and E.3.
** r->f and r->g must be loaded.  Returns 0, or -1 with err (*oom set when
** memory ran out).
*/
int rpt_scan_layers(sqlite3 *db, report_data *r, bool *oom, char err[RIP_ERR_LEN]);

/* ---- the sections (report_claims.c, report_sections*.c) ----------------- */

/* Each writes its section of r to d; problems are recorded in d (doc). */
void rpt_section_claims(doc *d, const report_data *r);
void rpt_section_run(doc *d, const report_data *r);
void rpt_section_verdicts(doc *d, const report_data *r);
void rpt_section_margins(doc *d, const report_data *r);
void rpt_section_tab5(doc *d, const report_data *r);
void rpt_section_findings(doc *d, const report_data *r);
void rpt_section_pruned(doc *d, const report_data *r);
/* Only when the database holds executions / optima: nothing otherwise. */
void rpt_section_executions(doc *d, const report_data *r);
void rpt_section_optimum(doc *d, const report_data *r);

/* The commands that regenerate r's database and report, with or without
** --execute, into buf (n bytes, truncated to fit). */
void rpt_regen_command(const report_data *r, bool execute, char *buf, size_t n);

#endif
