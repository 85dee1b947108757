/*
** report_scan.c — the one pass of `ripsim report` over layer_results: per
** layer, the counts of the run (present, restricted, foreign, drawn per
** generator and tier), each formula's loose and unsafe margins with their
** statistics (GSL), and the checks of Lemma 9, Eq. 42, App. F.4 and App.
** E.3 (the pruned herringbone).
*/
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "report_internal.h"

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
        rpt_sb_printf(b, ", NULL");
        return true;
    }
    if (strchr(name, '"'))
        return false;
    rpt_sb_printf(b, ", r.\"%s\"", name);
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
                        const bool *have, bool *l9_any)
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

/* The scan's SELECT into q: the leading columns (SC_*), then per formula its
** value and its truth.  0, or -1 with err (*oom set when memory ran out). */
static int scan_query(const report_data *r, sbuf *q, bool *oom, char err[RIP_ERR_LEN])
{
    rpt_sb_printf(q, "SELECT r.layer_idx, r.gen, r.restricted, r.cin, r.cout, r.k_h, r.w_out, r.n_in_padded,"
                  " r.n_in_dense, r.p_top + r.p_bottom + r.p_left + r.p_right, r.n_in_read, r.herringbone_pruned,"
                  " r.herringbone_taps, r.herringbone_taps_reader");
    for (size_t i = 0; i < r->nf; i++)
        if (!add_column(q, r->f[i].name) || !add_column(q, r->f[i].is_workspace ? "" : r->f[i].exec_config)) {
            snprintf(err, RIP_ERR_LEN, "formula %.60s or its configuration is not a column name", r->f[i].name);
            return -1;
        }
    rpt_sb_printf(q, " FROM layer_results r");
    if (q->oom) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return -1;
    }
    return 0;
}

/* The per-row state of the scan: each formula's margins ([2 fi]: loose,
** [2 fi + 1]: unsafe), this row's values v, truths t and whether both are
** present (have), and the running figures of the checks. */
typedef struct scan_state {
    scan_ids id;
    margins *m;
    int64_t *v, *t;
    bool *have;
    bool l9_any;
    double save_sum[2];   /* percent saved against herringbone_taps, summed per class */
} scan_state;

/* The run's and the generators' share of one row. */
static void scan_counts(report_data *r, sqlite3_stmt *st)
{
    int64_t n = r->run.n_layers, k = r->run.shard_count, si = r->run.shard_index;
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
}

/* One row: its counts, its formulas' values, truths and margins, and the
** checks.  0, or -1 with err when memory ran out. */
static int scan_row(report_data *r, scan_state *ss, sqlite3_stmt *st, char err[RIP_ERR_LEN])
{
    scan_counts(r, st);
    bool partial = false;
    for (size_t i = 0; i < r->nf; i++) {
        int cv = SC_FIRST + 2 * (int)i;
        bool workspace = r->f[i].is_workspace;
        bool tnull = !workspace && sqlite3_column_type(st, cv + 1) == SQLITE_NULL;
        partial |= tnull;
        ss->have[i] = !workspace && !tnull && sqlite3_column_type(st, cv) != SQLITE_NULL;
        ss->v[i] = sqlite3_column_int64(st, cv);
        ss->t[i] = sqlite3_column_int64(st, cv + 1);
        if (!ss->have[i])
            continue;
        int64_t d = ss->v[i] - ss->t[i];
        if (d != 0 && !margins_push(&ss->m[2 * i + (d < 0)], (double)(d < 0 ? -d : d))) {
            snprintf(err, RIP_ERR_LEN, "out of memory reading the margins of %s", r->f[i].name);
            return -1;
        }
    }
    r->partial += partial;
    scan_checks(r, &ss->id, st, ss->v, ss->t, ss->have, &ss->l9_any);
    scan_pruned(r, st, ss->save_sum);
    return 0;
}

/* After the last row: the mean savings of App. E.3 and each formula's
** margin statistics.  0, or -1 with err. */
static int scan_finish(report_data *r, scan_state *ss, char err[RIP_ERR_LEN])
{
    for (int k = 0; k < 2; k++)   /* as SQLite's round(avg(x) * 100): half away from zero */
        r->pr_save_centi[k] = r->pr_n[k] > 0 ? (int64_t)round(ss->save_sum[k] / (double)r->pr_n[k] * 100.0) : 0;
    for (size_t i = 0; i < r->nf; i++) {
        formula_row *f = &r->f[i];
        char why[RIP_ERR_LEN];
        if (margin_stats_from(ss->m[2 * i].x, ss->m[2 * i].n, &f->loose_st, why) != RIP_OK ||
            margin_stats_from(ss->m[2 * i + 1].x, ss->m[2 * i + 1].n, &f->unsafe_st, why) != RIP_OK) {
            snprintf(err, RIP_ERR_LEN, "the margins of %s: %.400s", f->name, why);
            return -1;
        }
    }
    return 0;
}

/*
** Everything the report needs per layer, in one pass over layer_results
** (a report of 1,000,000 layers reads each row once instead of once per
** query): layers present, restricted and outside the run; layers drawn
** per generator and tier; each formula's loose and unsafe margins (with
** their statistics); Lemma 9, Eq. 42 and App. F.4.  The database passed
** rip_db_check in this read transaction (db.h): every value is an integer
** in the range the sums and products here need, and verdict_summary's
** counts are those of these rows.  r->f and r->g must be loaded.  Returns
** 0, or -1 with err (*oom set when memory ran out).
** Memory: the margins of the loose and unsafe verdicts, 8 bytes each.
*/
int rpt_scan_layers(sqlite3 *db, report_data *r, bool *oom, char err[RIP_ERR_LEN])
{
    sbuf q = {0};
    sqlite3_stmt *st = NULL;
    scan_state ss = {.m = calloc(2 * (r->nf ? r->nf : 1), sizeof *ss.m),
                     .v = calloc(2 * (r->nf ? r->nf : 1), sizeof *ss.v),
                     .have = calloc(r->nf ? r->nf : 1, sizeof *ss.have)};
    ss.t = ss.v ? ss.v + r->nf : NULL;
    int result = -1, rc = SQLITE_OK;
    for (int k = 0; k < 2; k++)
        r->pr_max_idx[k] = -1;
    r->pr_eq_idx = -1;
    if (!ss.m || !ss.v || !ss.have) {
        *oom = true;
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    ss.id = (scan_ids){formula_index(r, "gm2019_eq1"),
                       {formula_index(r, "thm4_taps"), formula_index(r, "thm13_taps")},
                       {formula_index(r, "thm4_gather"), formula_index(r, "thm13_gather")},
                       formula_index(r, "thm13_taps")};
    if (scan_query(r, &q, oom, err) != 0)
        goto done;
    rc = sqlite3_prepare_v2(db, rpt_sb_str(&q), -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (scan_row(r, &ss, st, err) != 0) {
            *oom = true;
            goto done;
        }
    }
    if (rc != SQLITE_DONE) {
        snprintf(err, RIP_ERR_LEN, "database query failed: %s", sqlite3_errmsg(db));
        goto done;
    }
    if (scan_finish(r, &ss, err) != 0)
        goto done;
    result = 0;
done:
    sqlite3_finalize(st);
    for (size_t i = 0; ss.m && i < 2 * r->nf; i++)
        free(ss.m[i].x);
    free(ss.m);
    free(ss.v);
    free(ss.have);
    free(q.s);
    return result;
}
