/*
** report_checks.c — the report suite (tests/test_report.c) on `ripsim
** report`'s outputs and refusals: CSV against the database, TeX escaping,
** determinism and --out, the Tab. 2 fixture's paper numbers, the error
** cases (missing, foreign, wrong or inconsistent databases, usage) and
** the share bounds.
*/
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db.h"
#include "evaluate.h"
#include "confidence.h"
#include "layer.h"
#include "nonfinite_words.h"
#include "report_util.h"

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static int count_str(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---- the csv rendering, parsed ----------------------------------------------- */

typedef struct {
    char *f[4];   /* section, row, column, value */
} csv_cell;

typedef struct {
    csv_cell *c;
    size_t n;
} csv_doc;

/* RFC 4180: quoted fields with "" escapes, commas and newlines inside quotes. */
static csv_doc parse_csv(const char *s)
{
    csv_doc d = {0};
    size_t cap = 0;
    bool header = true;
    while (*s) {
        csv_cell cell = {{0}};
        int k = 0;
        for (;;) {
            size_t cap2 = strlen(s) + 1, len = 0;
            char *field = malloc(cap2);
            cr_assert_not_null(field);
            if (*s == '"') {
                s++;
                for (;;) {
                    cr_assert(*s, "unterminated quoted csv field");
                    if (s[0] == '"' && s[1] == '"') {
                        field[len++] = '"';
                        s += 2;
                    } else if (s[0] == '"') {
                        s++;
                        break;
                    } else {
                        field[len++] = *s++;
                    }
                }
            } else {
                while (*s && *s != ',' && *s != '\n')
                    field[len++] = *s++;
            }
            field[len] = '\0';
            cr_assert_lt(k, 4, "csv line with more than 4 fields");
            cell.f[k++] = field;
            if (*s == ',') {
                s++;
                continue;
            }
            cr_assert(*s == '\n', "csv line must end with a newline");
            s++;
            break;
        }
        cr_assert_eq(k, 4, "csv line with %d fields", k);
        if (header) {
            cr_assert_str_eq(cell.f[0], "section");
            cr_assert_str_eq(cell.f[3], "value");
            header = false;
            for (int i = 0; i < 4; i++)
                free(cell.f[i]);
            continue;
        }
        if (d.n == cap) {
            cap = cap ? 2 * cap : 256;
            d.c = realloc(d.c, cap * sizeof *d.c);
            cr_assert_not_null(d.c);
        }
        d.c[d.n++] = cell;
    }
    return d;
}

static void csv_free(csv_doc *d)
{
    for (size_t i = 0; i < d->n; i++)
        for (int k = 0; k < 4; k++)
            free(d->c[i].f[k]);
    free(d->c);
}

/* The value of (section, row, column); fails the test when absent. */
static const char *cv(const csv_doc *d, const char *section, const char *row, const char *column)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->c[i].f[0], section) == 0 && strcmp(d->c[i].f[1], row) == 0 &&
            strcmp(d->c[i].f[2], column) == 0)
            return d->c[i].f[3];
    cr_assert_fail("csv has no cell %s/%s/%s", section, row, column);
    return NULL;
}

static int64_t cv_int(const csv_doc *d, const char *section, const char *row, const char *column)
{
    const char *v = cv(d, section, row, column);
    char *end;
    long long x = strtoll(v, &end, 10);
    cr_assert(*v && *end == '\0', "%s/%s/%s = '%s' is not an integer", section, row, column, v);
    return x;
}

/* Long on purpose (over 100 lines): every section of the csv report set
** beside its own SQL over the same database, in the report's order. */
Test(report, csv_matches_the_database)
{
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    proc p = RUN("report", "--db", in_dir("sweep.db"), "--format", "csv");
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    csv_doc d = parse_csv(p.out);
    int64_t n = q_int(db, "SELECT count(*) FROM layers");
    int64_t restricted = q_int(db, "SELECT count(*) FROM layers WHERE restricted = 1");
    /* App. E.3 section: the counts again, through the truths view (workspace column) rather
    ** than layer_results; a layer has stale input when its pruned store is below the padded one */
    static const char *const prow[2] = {"all_input_read", "stale_input"};
    for (int st = 0; st < 2; st++) {
        static const char *const ops[3][2] = {{"lt", "<"}, {"eq", "="}, {"gt", ">"}};
        const char *join = "FROM truths p JOIN truths h USING (layer_idx) JOIN truths r USING (layer_idx)"
                           " JOIN layer_wide l USING (layer_idx) WHERE p.exec_config = 'herringbone_pruned'"
                           " AND h.exec_config = 'herringbone_taps' AND r.exec_config = 'herringbone_taps_reader'";
        cr_assert_eq(cv_int(&d, "pruned", prow[st], "n"),
                     q_int(db, "SELECT count(*) %s AND (l.n_in_read < l.n_in_padded) = %d", join, st));
        for (int o = 0; o < 3; o++) {
            char key[32];
            snprintf(key, sizeof key, "%s_hb", ops[o][0]);
            cr_assert_eq(cv_int(&d, "pruned", prow[st], key),
                         q_int(db, "SELECT count(*) %s AND (l.n_in_read < l.n_in_padded) = %d AND p.workspace %s "
                                   "h.workspace", join, st, ops[o][1]), "%s %s", prow[st], key);
            snprintf(key, sizeof key, "%s_reader", ops[o][0]);
            cr_assert_eq(cv_int(&d, "pruned", prow[st], key),
                         q_int(db, "SELECT count(*) %s AND (l.n_in_read < l.n_in_padded) = %d AND p.workspace %s "
                                   "r.workspace", join, st, ops[o][1]), "%s %s", prow[st], key);
        }
        cr_assert_eq(cv_int(&d, "pruned", prow[st], "max_saving"),
                     q_int(db, "SELECT coalesce(max(h.workspace - p.workspace), 0) %s AND (l.n_in_read < "
                               "l.n_in_padded) = %d", join, st));
    }
    /* without stale input pruning stores the same input: the same workspace, never a saving */
    cr_assert_eq(cv_int(&d, "pruned", "all_input_read", "eq_hb"), cv_int(&d, "pruned", "all_input_read", "n"));
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "gt_hb"), 0);

    cr_assert_eq(cv_int(&d, "run", "layers_present", "value"), n);
    cr_assert_eq(cv_int(&d, "run", "layers_expected", "value"), SWEEP_N);
    cr_assert_eq(cv_int(&d, "run", "seed", "value"), 7);
    cr_assert_eq(cv_int(&d, "claims", "restricted_share", "holds"), restricted);
    cr_assert_eq(cv_int(&d, "claims", "restricted_share", "of"), n);
    cr_assert_str_eq(cv(&d, "claims", "restricted_share", "value"), fmt2(100.0 * (double)restricted / (double)n));
    cr_assert_str_eq(cv(&d, "claims", "restricted_share", "paper_value"), "22.60");

    /* verdict counts, from the verdicts table directly (not the view) */
    for (size_t i = 0; i < sizeof judged_formulas / sizeof judged_formulas[0]; i++) {
        const char *f = judged_formulas[i];
        static const char *const v[] = {"unsafe", "tight", "loose", "n/a"};
        static const char *const key[] = {"unsafe", "tight", "loose", "na"};
        for (int k = 0; k < 4; k++)
            cr_assert_eq(cv_int(&d, "verdicts", f, key[k]),
                         q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = %Q", f, v[k]),
                         "%s %s", f, v[k]);
    }

    /* the claims' words follow the counts */
    int64_t own_unsafe = q_int(db, "SELECT count(*) FROM verdicts WHERE verdict = 'unsafe' AND formula IN "
                                   "('corollary1','thm11','thm4_gather','thm4_taps','thm13_gather','thm13_taps')");
    cr_assert_str_eq(cv(&d, "claims", "no_unsafe_bound", "check"), own_unsafe == 0 ? "agrees" : "differs");
    static const char *const all_tight[][2] = {
        {"thm4_gather", "thm4_gather_tight"}, {"thm4_taps", "thm4_taps_tight"}, {"thm11", "thm11_tight_sweep"}};
    for (int i = 0; i < 3; i++) {
        int64_t t = q_int(db, "SELECT count(*) FROM verdicts WHERE formula = %Q AND verdict = 'tight'", all_tight[i][0]);
        cr_assert_eq(cv_int(&d, "claims", all_tight[i][1], "holds"), t);
        cr_assert_str_eq(cv(&d, "claims", all_tight[i][1], "check"), t == n ? "agrees" : "differs");
    }

    /* Lemma 9, recomputed in C from the raw rows */
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
        "SELECT l.cin, l.cout, l.k_h, l.w_out, v.value, v.truth FROM verdicts v JOIN layers l USING (run_id, layer_idx) "
        "WHERE v.formula = 'gm2019_eq1' AND v.verdict != 'n/a' AND l.restricted = 1", -1, &st, NULL), SQLITE_OK);
    int64_t in_grid = 0, match = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t cin = sqlite3_column_int64(st, 0), cout = sqlite3_column_int64(st, 1);
        int64_t k = sqlite3_column_int64(st, 2), wout = sqlite3_column_int64(st, 3);
        int64_t value = sqlite3_column_int64(st, 4), truth = sqlite3_column_int64(st, 5);
        cr_assert_gt(cout, cin, "Eq. 1 judged with C_out <= C_in");
        int64_t rho = (k - 1) * cin, alpha = cout - cin;
        if (rho / alpha <= wout - 1) {
            in_grid++;
            match += truth - value == rho % alpha;
        }
    }
    sqlite3_finalize(st);
    /* the registry splits the in-grid layers: non-integer x* (Lemma 9's shortfall) and integer (Eq. 1 tight) */
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall_exact", "of") + cv_int(&d, "claims", "eq1_exact_at_integer_xstar", "of"),
                 in_grid);
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall_exact", "holds") +
                     cv_int(&d, "claims", "eq1_exact_at_integer_xstar", "holds"),
                 match);
    cr_assert_eq(match, in_grid, "Lemma 9 must hold on every in-grid layer");

    /* thm13_taps loose margins: n, mean, median, max recomputed in C */
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT margin FROM verdicts WHERE formula = 'thm13_taps' AND verdict = 'loose' "
                                        "ORDER BY margin", -1, &st, NULL), SQLITE_OK);
    double m[SWEEP_N];
    int nm = 0;
    while (sqlite3_step(st) == SQLITE_ROW)
        m[nm++] = (double)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    cr_assert_eq(cv_int(&d, "loose_margins", "thm13_taps", "n"), nm);
    if (nm > 0) {
        double sum = 0;
        for (int i = 0; i < nm; i++)
            sum += m[i];
        double median = nm % 2 ? m[nm / 2] : (m[nm / 2 - 1] + m[nm / 2]) / 2;
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "mean"), fmt2(sum / nm));
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "median"), fmt2(median));
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "max"), fmt2(m[nm - 1]));
        cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "min"), fmt2(m[0]));
    }

    /* Tab. 5: per category and per tier, summing to n */
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT generator FROM generators", -1, &st, NULL), SQLITE_OK);
    int64_t drawn = 0;
    int ngen = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *g = (const char *)sqlite3_column_text(st, 0);
        int64_t c = cv_int(&d, "tab5", g, "drawn");
        cr_assert_eq(c, q_int(db, "SELECT count(*) FROM layers WHERE generator = %Q", g), "%s", g);
        drawn += c;
        ngen++;
    }
    sqlite3_finalize(st);
    cr_assert_eq(ngen, 20);
    cr_assert_eq(drawn, n, "Tab. 5 counts must sum to n");
    cr_assert_eq(cv_int(&d, "tab5_tiers", "1", "drawn") + cv_int(&d, "tab5_tiers", "2", "drawn") +
                     cv_int(&d, "tab5_tiers", "3", "drawn"), n);
    cr_assert_eq(cv_int(&d, "tab5_tiers", "total", "drawn"), n);
    for (int t = 1; t <= 3; t++) {
        char tier[4];
        snprintf(tier, sizeof tier, "%d", t);
        cr_assert_eq(cv_int(&d, "tab5_tiers", tier, "drawn"), q_int(db, "SELECT count(*) FROM layers WHERE tier = %d", t));
    }
    cr_assert_eq(cv_int(&d, "tab5_tiers", "1", "paper_pct"), 35);
    cr_assert_eq(cv_int(&d, "tab5_tiers", "2", "paper_pct"), 45);
    cr_assert_eq(cv_int(&d, "tab5_tiers", "3", "paper_pct"), 20);

    cr_assert(strstr(cv(&d, "findings", "1", "text"), "restricted setting"));
    csv_free(&d);
    proc_free(&p);
    sqlite3_close(db);
}

Test(report, tex_is_escaped_and_balanced)
{
    sqlite3 *db = open_ro(in_dir("sweep.db"));
    int64_t restricted = q_int(db, "SELECT count(*) FROM layers WHERE restricted = 1");
    proc p = RUN("report", "--db", in_dir("sweep.db"), "--format", "tex");
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    int tabs = count_str(p.out, "\\begin{tabular}");
    cr_assert_geq(tabs, 6);
    cr_assert_eq(tabs, count_str(p.out, "\\end{tabular}"));
    cr_assert_eq(count_str(p.out, "\\begin{table}"), count_str(p.out, "\\end{table}"));
    cr_assert_eq(count_str(p.out, "{"), count_str(p.out, "}") + count_str(p.out, "\\{") - count_str(p.out, "\\}"));
    char want[64];
    snprintf(want, sizeof want, "(%lld of 200 layers restricted; 95\\%% CI", (long long)restricted);
    cr_assert(strstr(p.out, want), "missing '%s'", want);
    /* outside comments and \label, every _ % # is escaped */
    for (const char *line = p.out; *line;) {
        const char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (line[0] != '%' && strncmp(line, "\\label{", 7) != 0)
            for (size_t i = 0; i < len; i++)
                if (strchr("_%#", line[i]))
                    cr_assert(i > 0 && line[i - 1] == '\\', "unescaped '%c' in: %.*s", line[i], (int)len, line);
        line += len + (eol ? 1 : 0);
    }
    proc_free(&p);
    sqlite3_close(db);
}

Test(report, deterministic_and_out_file)
{
    proc a = RUN("report", "--db", in_dir("sweep.db"));
    proc b = RUN("report", "--db", in_dir("sweep.db"));
    cr_assert_eq(a.status, 0);
    cr_assert_str_eq(a.out, b.out, "two runs of the same report differ");
    char out[512];
    snprintf(out, sizeof out, "%s", in_dir("report.md"));
    proc c = RUN("report", "--db", in_dir("sweep.db"), "--out", out);
    cr_assert_eq(c.status, 0, "stderr: %s", c.err);
    cr_assert_str_empty(c.out);
    char *file = slurp_file(out);
    cr_assert_not_null(file);
    cr_assert_str_eq(file, a.out, "--out differs from stdout");
    free(file);
    unlink(out);
    for (const char *f = "csv\0tex\0"; *f; f += strlen(f) + 1) {
        proc x = RUN("report", "--db", in_dir("sweep.db"), "--format", f);
        proc y = RUN("report", "--db", in_dir("sweep.db"), "--format", f);
        cr_assert_eq(x.status, 0);
        cr_assert_str_eq(x.out, y.out, "%s not deterministic", f);
        proc_free(&x);
        proc_free(&y);
    }
    proc_free(&a);
    proc_free(&b);
    proc_free(&c);
}

/* ---- report on paper Tab. 2 ---------------------------------------------------------- */

Test(report, tab2_fixture_gives_the_paper_numbers)
{
    proc p = RUN("report", "--db", in_dir("tab2.db"), "--format", "csv");
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    csv_doc d = parse_csv(p.out);
    /* Tab. 2: Limitation 1 rows are unsafe by 2, 1, 1; Limitation 2 rows loose */
    cr_assert_eq(cv_int(&d, "verdicts", "gm2019_eq1", "unsafe"), 3);
    cr_assert_eq(cv_int(&d, "verdicts", "gm2019_eq1", "loose"), 4);
    cr_assert_eq(cv_int(&d, "verdicts", "gm2019_eq1", "tight"), 0);
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "n"), "3");
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "mean"), "1.33");
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "max"), "2.00");
    cr_assert_str_eq(cv(&d, "unsafe_shortfalls", "gm2019_eq1", "min"), "1.00");
    /* Tab. 2 Err. column +72, +2,070, +15,500, +48,620 */
    cr_assert_str_eq(cv(&d, "loose_margins", "gm2019_eq1", "max"), "48620.00");
    cr_assert_str_eq(cv(&d, "loose_margins", "gm2019_eq1", "min"), "72.00");
    cr_assert_str_eq(cv(&d, "loose_margins", "gm2019_eq1", "mean"), fmt2((72 + 2070 + 15500 + 48620) / 4.0));
    cr_assert(strstr(cv(&d, "findings", "1", "text"), "loose on 4 of 4 layers, by up to 48620 scalars"));
    /* Lemma 9 on the three in-grid rows; Corollary 1 tight on all seven */
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall_exact", "holds"), 3);
    cr_assert_eq(cv_int(&d, "claims", "lemma9_shortfall_exact", "of"), 3);
    cr_assert_str_eq(cv(&d, "claims", "lemma9_shortfall_exact", "check"), "agrees");
    cr_assert_eq(cv_int(&d, "claims", "corollary1_tight", "holds"), 7);
    cr_assert_str_eq(cv(&d, "claims", "corollary1_tight", "check"), "agrees");
    /* App. E.3: only the F.4 layer (7) has stale input, its real column (2 scalars; test_sim's
    ** f4_stale_from_the_outset): pruned 4 stored + gap 2 = 6 against herringbone_taps 6 + 2 = 8
    ** and herringbone_taps_reader 6 + 0 = 6.  The other eight read all their input. */
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "n"), 1);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "lt_hb"), 1);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "eq_reader"), 1);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "max_saving"), 2);
    cr_assert_eq(cv_int(&d, "pruned", "stale_input", "max_saving_layer"), 7);
    cr_assert_str_eq(cv(&d, "pruned", "stale_input", "mean_saving_pct"), "25.00");
    cr_assert_eq(cv_int(&d, "pruned", "all_input_read", "n"), 8);
    cr_assert_eq(cv_int(&d, "pruned", "all_input_read", "eq_hb"), 8);
    cr_assert_eq(cv_int(&d, "claims", "restricted_share", "holds"), 7);
    /* App. F.4: the single loose dense layer overshoots by sigma = C_out = 2 */
    cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "n"), "1");
    cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "mean"), "2.00");
    cr_assert_str_eq(cv(&d, "loose_margins", "thm13_taps", "sd"), "");
    /* one value has no interval: the mean overshoot is not checked */
    cr_assert_str_eq(cv(&d, "claims", "dense_taps_mean_overshoot", "check"), "not checked");
    cr_assert_eq(cv_int(&d, "claims", "dense_taps_mean_overshoot", "of"), 1);
    cr_assert_eq(cv_int(&d, "claims", "dense_overshoot_bound", "holds"), 1);
    cr_assert_str_eq(cv(&d, "claims", "no_unsafe_bound", "check"), "agrees");
    /* three made-up categories: the composition claims must say so */
    cr_assert_str_eq(cv(&d, "claims", "tab5_weights", "check"), "differs");
    cr_assert_str_eq(cv(&d, "claims", "sweep_composition", "check"), "differs");
    csv_free(&d);
    proc_free(&p);
}

/* ---- errors -------------------------------------------------------------------------------- */

static void expect_error(const char *db, int status, const char *needle)
{
    proc p = RUN("report", "--db", db);
    cr_assert_eq(p.status, status, "%s: status %d, stderr: %s", db, p.status, p.err);
    cr_assert_eq(count_lines(p.err), 1, "%s: want one line on stderr, got: %s", db, p.err);
    cr_assert(strncmp(p.err, "ripsim report: ", 15) == 0, "%s", p.err);
    cr_assert(strstr(p.err, needle), "%s: stderr lacks '%s': %s", db, needle, p.err);
    cr_assert_str_empty(p.out);
    proc_free(&p);
}

Test(report, missing_database)
{
    expect_error(in_dir("no-such-dir/missing.db"), 66, "missing.db");
}

Test(report, not_sqlite)
{
    expect_error(in_dir("notdb.db"), 65, "not an SQLite database");
}

Test(report, wrong_schema_version)
{
    expect_error(in_dir("v99.db"), 65, "99");
}

Test(report, foreign_database)
{
    expect_error(in_dir("foreign.db"), 65, "not a ripsim database");
}

Test(report, empty_runs)
{
    expect_error(in_dir("norun.db"), 65, "no run");
    expect_error(in_dir("nolayers.db"), 65, "no layers");
}

/* The check of every open (db.h) counts every verdict again from the layers and refuses counts that disagree. */
Test(report, verdict_counts_that_disagree_with_the_layers_are_refused)
{
    expect_error(in_dir("shifted.db"), 65, "verdict counts of thm11");
}

/* A value that is not an integer is refused, never read as 0. */
Test(report, a_value_that_is_not_an_integer_is_refused)
{
    expect_error(in_dir("texty.db"), 65, "layer 42: cin holds a text value, not an integer");
}

Test(report, incomplete_run_is_loud)
{
    proc p = RUN("report", "--db", in_dir("incomplete.db"));
    cr_assert_eq(p.status, 0, "stderr: %s", p.err);
    cr_assert(strstr(p.out, "**INCOMPLETE RUN: only 150 of the 200 expected layers are present (75.00%)"), "%s", p.out);
    cr_assert_eq(count_lines(p.err), 1);
    cr_assert(strstr(p.err, "incomplete: 150 of 200"), "%s", p.err);
    proc_free(&p);
    proc c = RUN("report", "--db", in_dir("incomplete.db"), "--format", "csv");
    csv_doc d = parse_csv(c.out);
    cr_assert(strstr(cv(&d, "warning", "incomplete", "text"), "150 of the 200"));
    cr_assert_eq(cv_int(&d, "run", "layers_present", "value"), 150);
    csv_free(&d);
    proc_free(&c);
}

Test(report, usage_and_output_errors)
{
    proc h = RUN("report", "--help");
    cr_assert_eq(h.status, 0);
    cr_assert(strstr(h.out, "usage: ripsim report"));
    proc_free(&h);
    proc f = RUN("report", "--db", in_dir("sweep.db"), "--format", "pdf");
    cr_assert_eq(f.status, 64);
    cr_assert_str_empty(f.out);
    proc_free(&f);
    proc u = RUN("report", "--db", in_dir("sweep.db"), "--frobnicate");
    cr_assert_eq(u.status, 64);
    proc_free(&u);
    proc o = RUN("report", "--db", in_dir("sweep.db"), "--out", in_dir("no-such-dir/r.md"));
    cr_assert_eq(o.status, 73, "stderr: %s", o.err);
    cr_assert_eq(count_lines(o.err), 1, "%s", o.err);
    cr_assert_neq(access(in_dir("no-such-dir/r.md"), F_OK), 0);
    proc_free(&o);
}

/* ---- shares whose Clopper-Pearson bound GSL's inverse could not find ---------------------- */

/*
** Issue 19: on these sweeps gsl_cdf_beta_Pinv fails to converge for a share
** of the claims table; the report printed "nan" as its bound and judged the
** claim on it.  Every bound below is pinned to mpmath 1.3 (40 digits: the
** regularized incomplete beta mpmath.betainc solved by bisection); e.g.
** 391 of 1583 gives 22.5923703549707-26.9017432041007%, 284 of 291
** 95.1067753837231-99.0275182383408%.  The counts are the databases' own,
** counted here with the test's SQL.
*/
typedef struct {
    const char *n, *seed;       /* the sweep (seed NULL: the default seed) */
    int64_t restricted, dense_tight, dense_judged;
    const char *restricted_row, *dense_row;   /* this run | check, as the md table prints them */
} share_case;

static void check_share_case(const share_case *c)
{
    char db[64], path[512];
    snprintf(db, sizeof db, "i19-%s.db", c->n);
    snprintf(path, sizeof path, "%s", in_dir(db));
    unlink(path);
    proc s = c->seed ? RUN("sweep", "--n", c->n, "--seed", c->seed, "--db", path, "--jobs", "2", "--quiet")
                     : RUN("sweep", "--n", c->n, "--db", path, "--jobs", "2", "--quiet");
    cr_assert_eq(s.status, 0, "sweep --n %s: %s", c->n, s.err);
    proc_free(&s);
    sqlite3 *sq = open_ro(path);
    cr_assert_eq(q_int(sq, "SELECT count(*) FROM layers WHERE restricted = 1"), c->restricted);
    cr_assert_eq(q_int(sq, "SELECT count(*) FROM verdicts WHERE formula = 'thm13_taps' AND verdict = 'tight'"),
                 c->dense_tight);
    cr_assert_eq(q_int(sq, "SELECT count(*) FROM verdicts WHERE formula = 'thm13_taps' AND verdict IN "
                           "('unsafe', 'tight', 'loose')"),
                 c->dense_judged);
    sqlite3_close(sq);
    static const char *const formats[] = {"md", "csv", "tex"};
    for (int f = 0; f < 3; f++) {
        proc p = RUN("report", "--db", path, "--format", formats[f]);
        cr_assert_eq(p.status, 0, "report --format %s: %s", formats[f], p.err);
        const char *bad = first_nonfinite_word(p.out);
        cr_expect_null(bad, "report --format %s prints a non-finite number: ...%.40s", formats[f], bad);
        if (f == 0) {
            cr_expect(strstr(p.out, c->restricted_row), "md lacks '%s'", c->restricted_row);
            cr_expect(strstr(p.out, c->dense_row), "md lacks '%s'", c->dense_row);
        }
        proc_free(&p);
    }
    unlink(path);
}

Test(report, share_bounds_of_1583_layers_seed_2)
{
    /* the paper's 22.6% lies in 22.59-26.90: agrees */
    share_case c = {"1583", "2", 391, 1536, 1583,
                    "| 24.70% (391 of 1583 layers restricted; 95% CI 22.59-26.90%), paper 22.6% | agrees |",
                    "| 97.03% (1536 of 1583 judged layers tight; 95% CI 96.07-97.81%), paper 99.1% | differs |"};
    check_share_case(&c);
}

Test(report, share_bounds_of_291_layers)
{
    share_case c = {"291", NULL, 73, 284, 291,
                    "| 25.09% (73 of 291 layers restricted; 95% CI 20.21-30.48%), paper 22.6% | agrees |",
                    "| 97.59% (284 of 291 judged layers tight; 95% CI 95.11-99.03%), paper 99.1% | differs |"};
    check_share_case(&c);
}

Test(report, share_bounds_of_1100_layers)
{
    share_case c = {"1100", NULL, 297, 1075, 1100,
                    "| 27.00% (297 of 1100 layers restricted; 95% CI 24.40-29.73%), paper 22.6% | differs |",
                    "| 97.73% (1075 of 1100 judged layers tight; 95% CI 96.66-98.52%), paper 99.1% | differs |"};
    check_share_case(&c);
}

/* A share above its whole (a restricted flag of 400 written by hand) is
** refused with one line, never printed with an interval made up for it. */
Test(report, a_share_above_its_whole_is_refused)
{
    cr_assert_eq(altered_copy("overfull.db", "UPDATE layer_results SET restricted = 400 WHERE layer_idx = 0;",
                              "SELECT 1;"),
                 0);
    expect_error(in_dir("overfull.db"), 65, "of 200 is not a share");
}
