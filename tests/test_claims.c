/*
** test_claims.c — `ripsim claims`: results/claims.md and the three sweep
** figures regenerated from the default sweep and compared byte for byte
** with the committed files, and a few verdicts pinned against independent
** computations: C over the raw rows of layer_results (never the claim's
** SQL or the views it reads), or the paper's own numbers.
**
** Before any test runs, the PRE_ALL hook (in the runner process, whose
** environment every test inherits) runs the default sweep
** (`ripsim sweep --db DIR/sweep.db`) and `ripsim claims` on it into a
** temporary directory; POST_ALL removes it (RIPSIM_CLAIMS_KEEP=1 keeps it).
** Environment: RIPSIM_BIN and RIPSIM_RESULTS_DIR (tests/meson.build).
*/
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "claims.h"
#include "db_dump.h"
#include "nonfinite_words.h"
#include "run_cmd.h"

static const char *testdir(void)
{
    return getenv("RIPSIM_CLAIMS_TESTDIR");
}

static const char *in_dir(const char *name)
{
    static char buf[16][1024];
    static int k;
    k = (k + 1) % 16;
    snprintf(buf[k], sizeof buf[k], "%s/%s", testdir(), name);
    return buf[k];
}

/* Run the binary with args, output to files; the exit status. */
static int spawn(const char *const *args, const char *out, const char *err)
{
    const char *bin = getenv("RIPSIM_BIN");
    if (!bin)
        return -1;
    char *argv[32];
    int n = 0;
    argv[n++] = (char *)bin;
    for (; args[n - 1] && n < 31; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen(out, "w", stdout) || !freopen(err, "w", stderr))
            _exit(127);
        execv(bin, argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Remove dir with its files and, depth levels down, its folders. */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (unlink(p) != 0 && depth > 0)
                remove_tree(p, depth - 1);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    (void)set;
    const char *base = getenv("TMPDIR");
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/ripsim-claims-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        setenv("RIPSIM_CLAIMS_SETUP_ERR", "cannot create a temporary directory", 1);
        return;
    }
    setenv("RIPSIM_CLAIMS_TESTDIR", dir, 1);
    const char *const sweep[] = {"sweep", "--db", in_dir("sweep.db"), "--jobs", "2", "--quiet", NULL};
    const char *const claims[] = {"claims", "--db", in_dir("sweep.db"), "--out", in_dir("claims.md"), NULL};
    if (spawn(sweep, in_dir("sweep.out"), in_dir("sweep.err")) != 0)
        setenv("RIPSIM_CLAIMS_SETUP_ERR", "the default `ripsim sweep` failed (sweep.err)", 1);
    else if (spawn(claims, in_dir("claims.out"), in_dir("claims.err")) != 0)
        setenv("RIPSIM_CLAIMS_SETUP_ERR", "`ripsim claims` failed (claims.err)", 1);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    const char *dir = testdir();
    if (!dir || getenv("RIPSIM_CLAIMS_KEEP"))
        return;
    remove_tree(dir, 1);
}

static void need_setup(void)
{
    const char *err = getenv("RIPSIM_CLAIMS_SETUP_ERR");
    cr_assert_null(err, "setup: %s", err ? err : "");
    cr_assert_not_null(testdir(), "setup did not run");
}

TestSuite(claims, .init = need_setup, .timeout = 300);

/* ---- regeneration ---------------------------------------------------------------- */

static void same_as_committed(const char *name)
{
    const char *results = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(results, "RIPSIM_RESULTS_DIR");
    char committed[1024];
    snprintf(committed, sizeof committed, "%s/%s", results, name);
    size_t na, nb;
    char *a = slurp_file(in_dir(name), &na), *b = slurp_file(committed, &nb);
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i])
        i++;
    cr_expect(na == nb && i == na,
              "%s differs from the regenerated file at byte %zu (sizes %zu, %zu): regenerate with "
              "`ripsim sweep --db X && ripsim claims --db X`",
              name, i, nb, na);
    free(a);
    free(b);
}

Test(claims, claims_md_regenerates_byte_for_byte) { same_as_committed("claims.md"); }
Test(claims, fig_verdicts_regenerates_byte_for_byte) { same_as_committed("fig_verdicts.svg"); }
Test(claims, fig_margins_regenerates_byte_for_byte) { same_as_committed("fig_margins.svg"); }
Test(claims, fig_rip_hb_regenerates_byte_for_byte) { same_as_committed("fig_rip_hb.svg"); }

/* ---- the claims table ------------------------------------------------------------- */

/* The table row of the claim whose query is `query` (ids may be renumbered,
** query names stay) in the claims file at path, a static copy; fails if absent. */
static const char *claim_row_in(const char *path, const char *query)
{
    static char row[8192];
    size_t n;
    char *md = slurp_file(path, &n);
    char key[128];
    snprintf(key, sizeof key, "| `%s` |", query);
    const char *p = strstr(md, key);
    cr_assert_not_null(p, "%s has no claim %s", path, query);
    while (p > md && p[-1] != '\n')
        p--;
    p--;
    const char *e = strchr(p + 1, '\n');
    size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1);
    if (len >= sizeof row)
        len = sizeof row - 1;
    memcpy(row, p + 1, len);
    row[len] = '\0';
    free(md);
    return row;
}

/* The same in the claims.md of the default sweep. */
static const char *claim_row(const char *query)
{
    return claim_row_in(in_dir("claims.md"), query);
}

static void expect_verdict(const char *id, const char *verdict)
{
    char want[64];
    snprintf(want, sizeof want, "| **%s** |", verdict);
    const char *row = claim_row(id);
    cr_expect_not_null(strstr(row, want), "%s: expected %s in: %s", id, verdict, row);
}

Test(claims, at_least_forty_claims_each_with_a_verdict)
{
    size_t n;
    char *md = slurp_file(in_dir("claims.md"), &n);
    int rows = 0, judged = 0;
    for (const char *p = md; (p = strstr(p, "\n| C")) != NULL; p++) {
        rows++;
        const char *e = strchr(p + 1, '\n');
        char line[8192];
        size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1);
        len = len < sizeof line - 1 ? len : sizeof line - 1;
        memcpy(line, p + 1, len);
        line[len] = '\0';
        int v = (strstr(line, "| **agrees** |") != NULL) + (strstr(line, "| **differs** |") != NULL) +
                (strstr(line, "| **contradicted** |") != NULL) + (strstr(line, "| **not checked** |") != NULL);
        cr_expect_eq(v, 1, "row without exactly one verdict: %s", line);
        judged += v == 1 && !strstr(line, "| **not checked** |");
    }
    cr_expect_geq(rows, 40, "only %d claims", rows);
    cr_expect_geq(judged, 40, "only %d checked claims", judged);
    /* every contradicted claim about layers names its smallest counterexample */
    cr_expect_not_null(strstr(md, "## Differs and contradicted"));
    free(md);
}

/* ---- verdicts pinned by independent computation ----------------------------------- */

typedef struct {
    int64_t idx, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, pt, pb, pl, pr, h_out, w_out;
    int64_t n_in_p, n_in_d, n_out;
    int64_t t[6];    /* padded gather, padded taps, dense gather, dense taps, hb taps, hb reader */
    int64_t f[8];    /* eq1, cor1, thm11, thm4 g, thm4 t, thm13 g, thm13 t, naive */
    int has[8];
} row;

/* Every row of layer_results (the stored columns, not the views). */
static row *load_rows(size_t *n)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(in_dir("sweep.db"), &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT layer_idx, cin, cout, h_in, w_in, k_h, k_w, s_h, s_w, d_h, d_w, p_top, "
                                    "p_bottom, p_left, p_right, h_out, w_out, n_in_padded, n_in_dense, n_out, "
                                    "rip_padded_gather, rip_padded_taps, rip_dense_gather, rip_dense_taps, "
                                    "herringbone_taps, herringbone_taps_reader, gm2019_eq1, corollary1, thm11, "
                                    "thm4_gather, thm4_taps, thm13_gather, thm13_taps, naive_workspace "
                                    "FROM layer_results ORDER BY layer_idx",
                                    -1, &st, NULL),
                 SQLITE_OK);
    size_t cap = 16384, k = 0;
    row *r = calloc(cap, sizeof *r);
    cr_assert_not_null(r);
    while (sqlite3_step(st) == SQLITE_ROW) {
        cr_assert_lt(k, cap);
        int64_t *g = &r[k].idx;
        for (int c = 0; c < 20; c++)
            g[c] = sqlite3_column_int64(st, c);
        for (int c = 0; c < 6; c++)
            r[k].t[c] = sqlite3_column_int64(st, 20 + c);
        for (int c = 0; c < 8; c++) {
            r[k].has[c] = sqlite3_column_type(st, 26 + c) != SQLITE_NULL;
            r[k].f[c] = sqlite3_column_int64(st, 26 + c);
        }
        k++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    *n = k;
    return r;
}

static int restricted(const row *r)
{
    return r->pt == 0 && r->pb == 0 && r->pl == 0 && r->pr == 0 && r->s_h == 1 && r->s_w == 1 && r->d_h == 1 &&
           r->d_w == 1 && r->k_h == r->k_w && r->k_h % 2 == 1 && r->h_in == r->w_in;
}

/* C28: the restricted share, from the geometry (not the stored flag). */
Test(claims, restricted_share_counted_in_c)
{
    size_t n;
    row *r = load_rows(&n);
    int64_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += restricted(&r[i]);
    char want[128];
    snprintf(want, sizeof want, "(%lld of %zu layers restricted;", (long long)k, n);
    const char *row_text = claim_row("restricted_share");
    cr_expect_not_null(strstr(row_text, want), "restricted_share should count %s: %s", want, row_text);
    /* the paper's 22.6% lies outside the 95% interval of 2532 / 10000 */
    cr_expect_eq(k, 2532);
    expect_verdict("restricted_share", "differs");
    free(r);
}

/* C01 (Lemma 9): the shortfall identity, brute force over the rows. */
Test(claims, lemma9_shortfall_checked_in_c)
{
    size_t n;
    row *r = load_rows(&n);
    int64_t dom = 0, ok = 0;
    for (size_t i = 0; i < n; i++) {
        const row *x = &r[i];
        if (!restricted(x) || x->cout <= x->cin || !x->has[0])
            continue;
        int64_t rho = (x->k_h - 1) * x->cin, a = x->cout - x->cin;
        if (rho / a > x->w_out - 1 || rho % a == 0)
            continue;
        dom++;
        ok += x->t[4] - x->f[0] == rho % a;
    }
    cr_expect_gt(dom, 0);
    cr_expect_eq(ok, dom);
    char want[160];
    snprintf(want, sizeof want, "holds on %lld of %lld ", (long long)ok, (long long)dom);
    cr_expect_not_null(strstr(claim_row("lemma9_shortfall_exact"), want), "lemma9_shortfall_exact: %s", want);
    expect_verdict("lemma9_shortfall_exact", "agrees");
    free(r);
}

/*
** The dead leading run L of App. F.4 by enumeration: mark every real input
** row and column some output tap reads, then count the real pixels before
** the first read one in row-major order.
*/
static int64_t lead_run(const row *x)
{
    char rows[256] = {0}, cols[256] = {0};
    cr_assert_leq(x->h_in, 256);
    cr_assert_leq(x->w_in, 256);
    for (int64_t o = 0; o < x->h_out; o++)
        for (int64_t i = 0; i < x->k_h; i++) {
            int64_t y = o * x->s_h + i * x->d_h - x->pt;
            if (y >= 0 && y < x->h_in)
                rows[y] = 1;
        }
    for (int64_t o = 0; o < x->w_out; o++)
        for (int64_t j = 0; j < x->k_w; j++) {
            int64_t c = o * x->s_w + j * x->d_w - x->pl;
            if (c >= 0 && c < x->w_in)
                cols[c] = 1;
        }
    for (int64_t y = 0; y < x->h_in; y++)
        for (int64_t c = 0; c < x->w_in; c++)
            if (rows[y] && cols[c])
                return y * x->w_in + c;
    return x->h_in * x->w_in;
}

/* C35 and C37 (App. F.4): every loose dense-taps layer has L > 0, Theorem 13 = sigma,
** and an overshoot of at most min(sigma, L C_in). */
Test(claims, dense_loose_conditions_checked_by_enumeration)
{
    size_t n;
    row *r = load_rows(&n);
    int64_t loose = 0, cond = 0, bound = 0, dead_tight = 0;
    for (size_t i = 0; i < n; i++) {
        const row *x = &r[i];
        if (!x->has[6])
            continue;
        int64_t L = lead_run(x);
        if (x->f[6] > x->t[3]) {
            loose++;
            cond += L > 0 && x->f[6] == x->cout;
            int64_t cap = L * x->cin < x->cout ? L * x->cin : x->cout;
            bound += x->f[6] - x->t[3] <= cap;
        } else if (L > 0 && x->f[6] == x->t[3]) {
            dead_tight++;
        }
    }
    cr_expect_eq(loose, 307);
    char want[128];
    snprintf(want, sizeof want, "holds on %lld of %lld loose layers", (long long)cond, (long long)loose);
    cr_expect_not_null(strstr(claim_row("dense_loose_conditions"), want), "dense_loose_conditions: %s", want);
    snprintf(want, sizeof want, "holds on %lld of %lld loose layers", (long long)bound, (long long)loose);
    cr_expect_not_null(strstr(claim_row("dense_overshoot_bound"), want), "dense_overshoot_bound: %s", want);
    snprintf(want, sizeof want, "%lld layers have a dead leading run", (long long)dead_tight);
    cr_expect_not_null(strstr(claim_row("dense_dead_not_sufficient"), want), "dense_dead_not_sufficient: %s", want);
    expect_verdict("dense_loose_conditions", cond == loose ? "agrees" : "contradicted");
    expect_verdict("dense_overshoot_bound", bound == loose ? "agrees" : "contradicted");
    free(r);
}

/* C32: the dense-taps tight share, counted in C. */
Test(claims, dense_taps_share_counted_in_c)
{
    size_t n;
    row *r = load_rows(&n);
    int64_t judged = 0, tight = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].has[6]) {
            judged++;
            tight += r[i].f[6] == r[i].t[3];
        }
    char want[128];
    snprintf(want, sizeof want, "(%lld of %lld judged layers tight;", (long long)tight, (long long)judged);
    cr_expect_not_null(strstr(claim_row("dense_taps_tight_share"), want), "dense_taps_tight_share: %s", want);
    expect_verdict("dense_taps_tight_share", "differs");
    free(r);
}

/* C41 (Eq. 42, sigma = 0, strict where padded): contradicted, and the witness
** is a smallest failing layer by N_in + N_out, found here by a scan. */
Test(claims, eq42_strict_counterexample_is_the_smallest)
{
    size_t n;
    row *r = load_rows(&n);
    int64_t dom = 0, bad = 0, best = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const row *x = &r[i];
        if (!(x->pt + x->pb + x->pl + x->pr > 0) || !x->has[5])
            continue;
        dom++;
        if (x->f[3] + x->n_in_p <= x->f[5] + x->n_in_d) {
            bad++;
            if (x->n_in_d + x->n_out < best)
                best = x->n_in_d + x->n_out;
        }
    }
    cr_assert_gt(bad, 0, "the sweep has no counterexample to pin");
    expect_verdict("eq42_strict_when_padded_gather", "contradicted");
    const char *row_text = claim_row("eq42_strict_when_padded_gather");
    char want[160];
    snprintf(want, sizeof want, "holds on %lld of %lld padded", (long long)(dom - bad), (long long)dom);
    cr_expect_not_null(strstr(row_text, want), "eq42 (sigma 0): %s in %s", want, row_text);
    snprintf(want, sizeof want, "N_in+N_out = %lld)", (long long)best);
    cr_expect_not_null(strstr(row_text, want), "eq42 (sigma 0) counterexample should have %s: %s", want, row_text);
    free(r);
}

/* C07, C08: the paper's Tab. 2 numbers (G&M and Truth per row), and Corollary 1. */
Test(claims, tab2_rows_agree_with_the_paper)
{
    expect_verdict("tab2_values", "agrees");
    cr_expect_not_null(strstr(claim_row("tab2_values"), "7 of 7 rows equal"));
    expect_verdict("tab2_corollary1", "agrees");
    expect_verdict("eq1_overestimate_ratio_tab2", "agrees");
    cr_expect_not_null(strstr(claim_row("eq1_overestimate_ratio_tab2"), "2432.0x"), "48,640 / 20 = 2,432");
}

/* C66..C69: Tab. 3's numbers, which the paper prints (and which test_tables reproduces). */
Test(claims, tab3_planner_claims)
{
    expect_verdict("tab3_base_peaks", "agrees");
    expect_verdict("tab3_rip_peaks", "agrees");
    cr_expect_not_null(strstr(claim_row("tab3_reduction"), "reductions 12.5 to 33.3%, mean 19.7%, 444672 B in total"));
    /* 247,808 + 28,548 - 262,144 = 14,212; 262,144 - 185,856 - 28,548 = 47,740 */
    cr_expect_not_null(strstr(claim_row("fig1_in3_margins"), "overruns by 14212 B, RiP 185856 B clears by 47740 B"));
}

/* ---- every domain ------------------------------------------------------------------ */

/* The figures "holds on K of N" after marker in row: K and N. */
static void holds_after(const char *row, const char *marker, long *k, long *n)
{
    const char *p = strstr(row, marker);
    cr_assert_not_null(p, "no \"%s\" in: %s", marker, row);
    cr_assert_eq(sscanf(p + strlen(marker), "holds on %ld of %ld", k, n), 2, "after \"%s\" in: %s", marker, row);
}

/* The conv2d and pointwise rows of the eleven graphs of firmware/models/mcunet/
** (every CSV there with an op column, the Tab. 3 reference tables aside). */
static long mcunet_conv_rows(void)
{
    const char *root = getenv("RIPSIM_FIRMWARE_DIR");
    cr_assert_not_null(root, "RIPSIM_FIRMWARE_DIR is not set");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/models/mcunet", root);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    long rows = 0;
    int graphs = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".csv") != 0 || strncmp(e->d_name, "table3", 6) == 0)
            continue;
        char path[8192], line[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        graphs++;
        while (fgets(line, sizeof line, f)) {
            const char *c = strchr(line, ',');
            rows += c && (strncmp(c + 1, "conv2d,", 7) == 0 || strncmp(c + 1, "pointwise,", 10) == 0);
        }
        fclose(f);
    }
    closedir(d);
    cr_assert_eq(graphs, 11, "%d graphs in %s", graphs, dir);
    return rows;
}

/* A statement written for the sweep is judged on the public tables and
** Tab. 6 too, with the same members those domains' own claims count (C18,
** C19: 76 Tab. 6 layers, 2281 channel-mixing ones); and one written for
** the public tables on the sweep, with the sweep's 10,000. */
Test(claims, statements_are_judged_on_every_domain)
{
    long k, n, k2, n2;
    const char *c16 = claim_row("thm11_tight_sweep");
    holds_after(c16, "on the public layer tables: ", &k, &n);
    holds_after(claim_row("thm11_tight_real_all"), "| **agrees** | ", &k2, &n2);
    cr_expect_eq(n, n2, "the public tables: %ld members against C19's %ld", n, n2);
    holds_after(c16, "on Tab. 6: ", &k, &n);
    cr_expect_eq(n, 76);
    holds_after(claim_row("thm11_tight_real_all"), "on the sweep: ", &k, &n);
    cr_expect_eq(n, 10000);
    /* the MCUNet graphs: every conv2d and pointwise row of the eleven
    ** graphs, counted here from the CSV files themselves */
    holds_after(c16, "on the MCUNet graphs: ", &k, &n);
    cr_expect_eq(n, mcunet_conv_rows(), "the MCUNet domain: %ld members", n);
    /* a column the sweep does not store: not judged there, and said so */
    cr_expect_not_null(strstr(claim_row("small_output_exact_tab6"), "on the sweep: not judged (no such column: w_rip)"));
}

/* C33 holds on the sweep and on Tab. 6 but not on the public tables: the
** overall verdict is the strictest, with that domain's smallest
** counterexample.  The counterexample is one by the claim's reading (a
** formula not defined counts as not holding): its top padding is at least
** the effective kernel height, outside Theorem 13's domain (p < k_eff on
** every side), which the spec shows without running ripsim. */
Test(claims, the_strictest_domain_decides)
{
    const char *row = claim_row("dense_gather_tight_all");
    cr_expect_not_null(strstr(row, "| **contradicted** |"), "%s", row);
    cr_expect_not_null(strstr(row, "holds on 10000 of 10000 sweep layers"), "%s", row);
    const char *w = strstr(row, "on the public layer tables: holds on ");
    cr_assert_not_null(w, "%s", row);
    w = strstr(w, " (contradicted; smallest counterexample there: ");
    cr_assert_not_null(w, "%s", row);
    const char *spec = strstr(w, "`ripsim layer ");
    cr_assert_not_null(spec, "%s", w);
    int kh, kw, dh, dw, pt;
    cr_assert_not_null(strstr(spec, ",k="));
    cr_assert_eq(sscanf(strstr(spec, ",k="), ",k=%dx%d", &kh, &kw), 2);
    cr_assert_eq(sscanf(strstr(spec, ",d="), ",d=%dx%d", &dh, &dw), 2);
    cr_assert_eq(sscanf(strstr(spec, ",pt="), ",pt=%d", &pt), 1);
    cr_expect_geq(pt, (kh - 1) * dh + 1, "the counterexample's top pad %d is inside Theorem 13's domain (k_eff %d)", pt,
                  (kh - 1) * dh + 1);
    const char *md = NULL;
    size_t len;
    char *text = slurp_file(in_dir("claims.md"), &len);
    md = strstr(text, "change verdict when the other domains are added: ");
    cr_expect_not_null(md, "claims.md names the claims the other domains change");
    if (md)
        cr_expect_not_null(strstr(md, "C33 (agrees on its own domain -> contradicted on the public layer tables)"));
    free(text);
}

/* The rule itself, on made-up judgements. */
Test(claims, overall_is_the_strictest_of_the_domains)
{
    rip_claim_domain_result d[RIP_CLAIM_DOMAINS];
    int from;
    memset(d, 0, sizeof d);
    cr_expect_str_eq(rip_claim_overall("agrees", d, &from), "agrees");
    cr_expect_eq(from, -1);
    d[1] = (rip_claim_domain_result){.judged = true, .applicable = true, .verdict = "agrees", .k = 3, .n = 3};
    d[2] = (rip_claim_domain_result){.judged = true, .applicable = true, .verdict = "contradicted", .k = 2, .n = 3};
    cr_expect_str_eq(rip_claim_overall("agrees", d, &from), "contradicted");
    cr_expect_eq(from, 2);
    cr_expect_str_eq(rip_claim_overall("contradicted", d, &from), "contradicted");
    cr_expect_eq(from, -1, "a home counterexample is its own");
    d[2].applicable = false; /* a domain that could not judge decides nothing */
    cr_expect_str_eq(rip_claim_overall("differs", d, &from), "agrees", "an empty premise at home, held elsewhere");
    cr_expect_eq(from, 1);
    d[1].verdict[0] = '\0';
    snprintf(d[1].verdict, sizeof d[1].verdict, "never");
    cr_expect_str_eq(rip_claim_overall("differs", d, &from), "differs");
}

/* ---- command line ------------------------------------------------------------------ */

Test(claims, help_and_errors)
{
    run_result *h = RUN("claims", "--help");
    cr_expect_eq(h->status, 0);
    cr_expect_not_null(strstr(h->out, "--db FILE"));
    cr_expect_not_null(strstr(h->out, "contradicted"));
    cr_expect_gt(count_lines(h->out), 10, "help lists options and exit statuses");
    cr_expect(strstr(h->out, "\n  71   ") && strstr(h->out, "solver process"), "71 for a failed solve: %s", h->out);
    run_result *u = RUN("claims", "--frobnicate");
    cr_expect_eq(u->status, 64);
    run_result *m = RUN("claims", "--db", in_dir("no-such.db"), "--out", in_dir("x.md"), "--no-figures");
    cr_expect_eq(m->status, 66, "missing database: %d %s", m->status, m->err);
    cr_expect_eq(access(in_dir("x.md"), F_OK), -1, "no output on failure");
    run_result *s = RUN("claims", "--db", in_dir("sweep.db"), "--out", in_dir("sweep.db"));
    cr_expect_eq(s->status, 64, "--out naming the database: %d", s->status);
    run_result *l = RUN("claims", "--db", in_dir("sweep.db"), "--out", in_dir("y.md"), "--layers-dir",
                        in_dir("no-such-dir"));
    cr_expect_eq(l->status, 66, "missing layer tables: %d %s", l->status, l->err);
    cr_expect_eq(access(in_dir("y.md"), F_OK), -1, "no output on failure");
}

/* ---- shares whose Clopper-Pearson bound GSL's inverse could not find ---------------------- */

/*
** Issue 19: `ripsim claims` aborted (GSL "inverse failed to converge",
** SIGABRT, a 0-byte temporary file left behind) on these complete sweeps.
** Each runs in its own folder (figures included, as the repro did); the
** bounds are pinned to mpmath 1.3 (40 digits: mpmath.betainc solved by
** bisection), e.g. 391 of 1583: 22.5923703549707-26.9017432041007%.
*/
typedef struct {
    const char *n, *seed;   /* the sweep (seed NULL: the default seed) */
    const char *restricted, *dense;   /* evidence of restricted_share and dense_taps_tight_share */
    const char *restricted_verdict;
} share_case;

/* The folder of case name, created empty. */
static const char *case_dir(const char *name)
{
    const char *dir = in_dir(name);
    remove_tree(dir, 0);
    cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s", dir);
    return dir;
}

/* Sweep into dir/sweep.db (n layers, seed or the default); the database's path. */
static const char *sweep_into(const char *dir, const char *n, const char *seed)
{
    static char db[1024];
    snprintf(db, sizeof db, "%s/sweep.db", dir);
    run_result *s = seed ? RUN("sweep", "--n", n, "--seed", seed, "--db", db, "--jobs", "2", "--quiet")
                         : RUN("sweep", "--n", n, "--db", db, "--jobs", "2", "--quiet");
    cr_assert_eq(s->status, 0, "sweep --n %s: %s", n, s->err);
    return db;
}

/* The names in dir that start with '.' (a temporary file left behind), as one string. */
static const char *hidden_files(const char *dir)
{
    static char names[1024];
    names[0] = '\0';
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            snprintf(names + strlen(names), sizeof names - strlen(names), " %s", e->d_name);
    closedir(d);
    return names;
}

static void check_share_case(const share_case *c)
{
    char name[64], out[1024];
    snprintf(name, sizeof name, "i19-%s", c->n);
    const char *dir = case_dir(name);
    const char *db = sweep_into(dir, c->n, c->seed);
    snprintf(out, sizeof out, "%s/claims.md", dir);
    run_result *r = RUN("claims", "--db", db, "--out", out);
    cr_assert_eq(r->status, 0, "claims on sweep --n %s: status %d: %s", c->n, r->status, r->err);
    cr_expect_str_empty(hidden_files(dir), "left behind in %s:%s", dir, hidden_files(dir));
    size_t len;
    char *md = slurp_file(out, &len);
    const char *bad = first_nonfinite_word(md);
    cr_expect_null(bad, "claims.md prints a non-finite number: ...%.60s", bad);
    free(md);
    const char *row = claim_row_in(out, "restricted_share");
    cr_expect_not_null(strstr(row, c->restricted), "restricted_share: want '%s' in %s", c->restricted, row);
    char want[64];
    snprintf(want, sizeof want, "| **%s** |", c->restricted_verdict);
    cr_expect_not_null(strstr(row, want), "restricted_share: want %s in %s", c->restricted_verdict, row);
    row = claim_row_in(out, "dense_taps_tight_share");
    cr_expect_not_null(strstr(row, c->dense), "dense_taps_tight_share: want '%s' in %s", c->dense, row);
    cr_expect_not_null(strstr(row, "| **differs** |"), "dense_taps_tight_share: %s", row);
    remove_tree(dir, 0);
}

Test(claims, share_bounds_of_291_layers)
{
    share_case c = {"291", NULL, "25.09% (73 of 291 layers restricted; 95% CI 20.21-30.48%), paper 22.6%",
                    "97.59% (284 of 291 judged layers tight; 95% CI 95.11-99.03%), paper 99.1%", "agrees"};
    check_share_case(&c);
}

Test(claims, share_bounds_of_1100_layers)
{
    share_case c = {"1100", NULL, "27.00% (297 of 1100 layers restricted; 95% CI 24.40-29.73%), paper 22.6%",
                    "97.73% (1075 of 1100 judged layers tight; 95% CI 96.66-98.52%), paper 99.1%", "differs"};
    check_share_case(&c);
}

Test(claims, share_bounds_of_1583_layers_seed_2)
{
    /* the paper's 22.6% lies in 22.59-26.90: agrees */
    share_case c = {"1583", "2", "24.70% (391 of 1583 layers restricted; 95% CI 22.59-26.90%), paper 22.6%",
                    "97.03% (1536 of 1583 judged layers tight; 95% CI 96.07-97.81%), paper 99.1%", "agrees"};
    check_share_case(&c);
}

/* A claim that fails after claims.md was opened (a share above its whole:
** a restricted flag of 400 written by hand) is one line and exit 65, and
** leaves neither claims.md nor its temporary file. */
Test(claims, a_failed_claim_leaves_no_file_behind)
{
    const char *dir = case_dir("i19-overfull");
    const char *db = sweep_into(dir, "291", NULL);
    sqlite3 *s = NULL;
    cr_assert_eq(sqlite3_open(db, &s), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(s, "UPDATE layer_results SET restricted = 400 WHERE layer_idx = 0", NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(s));
    sqlite3_close(s);
    char out[1024];
    snprintf(out, sizeof out, "%s/claims.md", dir);
    run_result *r = RUN("claims", "--db", db, "--out", out, "--no-figures");
    cr_expect_eq(r->status, 65, "status %d: %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "one line: %s", r->err);
    cr_expect_not_null(strstr(r->err, "restricted_share"), "names the claim: %s", r->err);
    cr_expect_not_null(strstr(r->err, "472 of 291 is not a share"), "%s", r->err);
    cr_expect_eq(access(out, F_OK), -1, "claims.md written");
    cr_expect_str_empty(hidden_files(dir), "left behind in %s:%s", dir, hidden_files(dir));
    remove_tree(dir, 0);
}

/* ---- no non-finite number is ever printed ------------------------------------------------ */

/* Run one made-up claim of kind `kind` whose query `sql` reads an empty
** in-memory database; *r its result. */
static rip_status run_made_up(rip_claim_kind kind, const char *sql, double paper, rip_claim_result *r,
                              char err[RIP_ERR_LEN])
{
    sqlite3 *aux = NULL;
    cr_assert_eq(sqlite3_open(":memory:", &aux), SQLITE_OK);
    rip_claim c = {.id = "T1", .section = "test", .quote = "q", .query = "made_up", .db = RIP_CLAIM_AUX,
                   .kind = kind, .sql = sql, .paper = paper, .unit = "things"};
    err[0] = '\0';
    rip_status s = rip_claim_run(&c, NULL, aux, r, err);
    sqlite3_close(aux);
    return s;
}

/* A figure that is not finite makes the claim fail with a status and one
** line naming it, never a verdict printed beside "inf" or "nan". */
Test(claims, a_claim_never_prints_a_non_finite_number)
{
    rip_claim_result r;
    char err[RIP_ERR_LEN];
    /* SQLite's printf writes an overflow as "Inf" */
    cr_expect_eq(run_made_up(RIP_CLAIM_SQL, "SELECT 'agrees', printf('ratio %.2f', 1e308 * 10), NULL", 0, &r, err),
                 RIP_S_DATA, "SQL evidence 'ratio Inf': %s", err);
    cr_expect_not_null(strstr(err, "made_up"), "%s", err);
    cr_expect_not_null(strstr(err, "not finite"), "%s", err);
    cr_expect_eq(run_made_up(RIP_CLAIM_SQL, "SELECT 'agrees', 'fine', printf('at %.1f', -1e308 * 10)", 0, &r, err),
                 RIP_S_DATA, "SQL witness '-Inf': %s", err);
    /* a mean whose sum overflows */
    cr_expect_eq(run_made_up(RIP_CLAIM_MEAN, "SELECT 1e308 UNION ALL SELECT 1.5e308", 1.0, &r, err), RIP_S_DATA,
                 "mean of 1e308 and 1.5e308: %s", err);
    cr_expect_not_null(strstr(err, "T1 (made_up)"), "%s", err);
    /* a registry figure that is not finite (a bug) */
    cr_expect_eq(run_made_up(RIP_CLAIM_SHARE, "SELECT 391, 1583", NAN, &r, err), RIP_S_INTERNAL, "%s", err);
    cr_expect_eq(run_made_up(RIP_CLAIM_MEAN, "SELECT 1.0", INFINITY, &r, err), RIP_S_INTERNAL,
                 "one value, paper inf: %s", err);
    /* and the same claims with finite figures */
    cr_assert_eq(run_made_up(RIP_CLAIM_SHARE, "SELECT 391, 1583", 22.6, &r, err), RIP_OK, "%s", err);
    cr_expect_str_eq(r.evidence, "24.70% (391 of 1583 things; 95% CI 22.59-26.90%), paper 22.6%");
    cr_expect_str_eq(r.verdict, "agrees");
    cr_assert_eq(run_made_up(RIP_CLAIM_MEAN, "SELECT 1.0 UNION ALL SELECT 3.0", 1.0, &r, err), RIP_OK, "%s", err);
    /* mean 2, sd sqrt(2), n 2: 2 -+ 12.706204736174705 (mpmath) * sqrt(2) / sqrt(2) */
    cr_expect_str_eq(r.evidence, "mean 2.00 things (n = 2; 95% CI -10.71-14.71), paper 1.00");
}

/* A claim whose database fails is that failure's status, not bad data: a
** database another connection holds locked is busy (75), and a query
** that SQLite itself refuses stays bad data (65). */
Test(claims, a_failing_database_is_its_own_status)
{
    char dir[] = "/tmp/ripsim-claim-busy-XXXXXX", path[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/aux.db", dir);
    sqlite3 *holder = NULL, *aux = NULL;
    cr_assert_eq(sqlite3_open(path, &holder), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(holder, "CREATE TABLE t(v); INSERT INTO t VALUES (1)", NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_open(path, &aux), SQLITE_OK);
    rip_claim c = {.id = "T2", .section = "test", .quote = "q", .query = "locked", .db = RIP_CLAIM_AUX,
                   .kind = RIP_CLAIM_SQL, .sql = "SELECT 'agrees', count(*), NULL FROM no_such_table", .unit = "rows"};
    rip_claim_result r;
    char err[RIP_ERR_LEN] = "";
    cr_expect_eq(rip_claim_run(&c, NULL, aux, &r, err), RIP_S_DATA, "no such table: %s", err);
    cr_assert_eq(sqlite3_exec(holder, "BEGIN EXCLUSIVE; INSERT INTO t VALUES (2)", NULL, NULL, NULL), SQLITE_OK);
    c.sql = "SELECT 'agrees', count(*), NULL FROM t";
    cr_expect_eq(rip_claim_run(&c, NULL, aux, &r, err), RIP_S_BUSY, "locked: %s", err);
    cr_expect_not_null(strstr(err, "T2 (locked)"), "%s", err);
    sqlite3_close(aux);
    sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(holder);
    remove(path);
    rmdir(dir);
}

Test(claims, a_failed_solve_is_an_error_not_a_verdict)
{
    /* Issue 19, item 3: under a memory limit the solver's child processes
    ** died and claims judged Tab. 3 on the plans left over (exit 0, four
    ** claims flipped).  A solver killed by a signal (the MILP module built
    ** with test hooks, RIPSIM_TEST_MILP=abort) must stop claims with 71 and
    ** one line, and write nothing. */
    const char *mod = getenv("RIPSIM_MILP_TESTHOOKS_MODULE");
    cr_assert_not_null(mod, "RIPSIM_MILP_TESTHOOKS_MODULE");
    char e_mod[1024];
    snprintf(e_mod, sizeof e_mod, "RIPSIM_MILP_MODULE=%s", mod);
    const char *env[] = {e_mod, "RIPSIM_TEST_MILP=abort", NULL};
    const char *args[] = {"claims", "--db", in_dir("sweep.db"), "--out", in_dir("failed.md"), "--no-figures", NULL};
    run_result *r = run_env(env, args);
    cr_expect_eq(r->status, 71, "status %d: %s", r->status, r->err);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect(strncmp(r->err, "ripsim claims: ", 15) == 0 && strstr(r->err, "mcunet-") &&
                  strstr(r->err, "strategy milp: the CBC solver process was killed by signal 6 (SIGABRT"),
              "the model and the failure named: %s", r->err);
    cr_expect_eq(access(in_dir("failed.md"), F_OK), -1, "claims written after a failed solve");
}

/* ---- figures: their legends against counts made here ------------------------------- */

/* How often needle occurs in hay. */
static int occurrences(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++, n++) {}
    return n;
}

/* The sum over fig_verdicts' cells of formula f of verdict k (0 unsafe, 1 tight, 2 loose, 3 n/a) in
** their "<title>F on CATEGORY: U unsafe, T tight, L loose, N n/a</title>". */
static int64_t cell_sum(const char *svg, const char *f, int k)
{
    char key[64];
    snprintf(key, sizeof key, "<title>%s on ", f);
    int64_t sum = 0;
    long long v[4] = {0};
    for (const char *p = svg; (p = strstr(p, key)) != NULL; p++, sum += v[k])
        cr_assert_eq(sscanf(strchr(p, ':'), ": %lld unsafe, %lld tight, %lld loose, %lld n/a", &v[0], &v[1], &v[2],
                            &v[3]), 4, "%.80s", p);
    return sum;
}

Test(claims, figure_counts_match_the_rows)
{
    size_t n, ns;
    row *r = load_rows(&n);
    int64_t below = 0, equal = 0, above = 0, loose_eq1 = 0, loose_t13 = 0, unsafe_eq1 = 0, wh_max = 1;
    for (size_t i = 0; i < n; i++) {
        /* both workspaces add the same padded input to their gap */
        below += r[i].t[1] < r[i].t[4];
        equal += r[i].t[1] == r[i].t[4];
        above += r[i].t[1] > r[i].t[4];
        loose_eq1 += r[i].has[0] && r[i].f[0] > r[i].t[4];
        unsafe_eq1 += r[i].has[0] && r[i].f[0] < r[i].t[4];
        loose_t13 += r[i].has[6] && r[i].f[6] > r[i].t[3];
        wh_max = r[i].t[4] + r[i].n_in_p > wh_max ? r[i].t[4] + r[i].n_in_p : wh_max;
    }
    char *svg = slurp_file(in_dir("fig_rip_hb.svg"), &ns), want[128];
    snprintf(want, sizeof want, "RiP below: %lld<", (long long)below);
    cr_expect_not_null(strstr(svg, want), "%s", want);
    snprintf(want, sizeof want, "equal: %lld<", (long long)equal);
    cr_expect_not_null(strstr(svg, want), "%s", want);
    snprintf(want, sizeof want, "RiP above: %lld<", (long long)above);
    cr_expect_not_null(strstr(svg, want), "%s", want);
    /* the x axis ends at the first power of ten at or above the largest herringbone workspace */
    static const char *const decade[7] = {">10\xc2\xb3<", ">10\xe2\x81\xb4<", ">10\xe2\x81\xb5<", ">10\xe2\x81\xb6<",
                                          ">10\xe2\x81\xb7<", ">10\xe2\x81\xb8<", ">10\xe2\x81\xb9<"};
    int e = 0;
    for (int64_t p = 1; p < wh_max; p *= 10, e++) {}
    cr_assert(e >= 3 && e <= 8, "10^%d", e);
    cr_expect(strstr(svg, decade[e - 3]) && !strstr(svg, decade[e - 2]), "the x axis ends at 10^%d", e);
    cr_expect_not_null(strstr(svg, ">layers per cell</text>"), "the colour bar's title");
    cr_expect_geq(occurrences(svg, "fill=\"rgb("), 32 + 1, "a 32-band colour bar and the cells");
    cr_expect_not_null(strstr(svg, ">RiP workspace / herringbone workspace</text>"));
    cr_expect_not_null(strstr(svg, "</svg>\n"));
    free(svg);
    /* fig_margins: per closed form a panel with a y axis of >= 4 ticks, both axes titled */
    svg = slurp_file(in_dir("fig_margins.svg"), &ns);
    snprintf(want, sizeof want, "gm2019_eq1: %lld loose layers", (long long)loose_eq1);
    cr_expect_not_null(strstr(svg, want), "%s", want);
    snprintf(want, sizeof want, "thm13_taps: %lld loose layers", (long long)loose_t13);
    cr_expect_not_null(strstr(svg, want), "%s", want);
    cr_expect_eq(occurrences(svg, ">layers per bin</text>"), 2);
    cr_expect_eq(occurrences(svg, ">margin, value - truth (scalars, log scale)</text>"), 2);
    cr_expect_geq(occurrences(svg, "text-anchor=\"end\" font-size=\"10\""), 2 * 4, "y tick labels");
    free(svg);
    /* fig_verdicts: a row per category of Tab. 5, a column per judged formula,
    ** each cell's verdicts in its tooltip, adding up to the counts made here */
    svg = slurp_file(in_dir("fig_verdicts.svg"), &ns);
    cr_expect_eq(occurrences(svg, " (tier "), 20);
    static const char *const formulas[7] = {"gm2019_eq1", "corollary1", "thm11", "thm4_gather", "thm4_taps",
                                            "thm13_gather", "thm13_taps"};
    for (int f = 0; f < 7; f++) {
        snprintf(want, sizeof want, "font-weight=\"bold\">%s</text>", formulas[f]);
        cr_expect_eq(occurrences(svg, want), 1, "%s", want);
    }
    cr_expect_eq(occurrences(svg, " n/a</title>"), 20 * 7);
    cr_expect_eq(cell_sum(svg, "gm2019_eq1", 2), loose_eq1);
    cr_expect_eq(cell_sum(svg, "gm2019_eq1", 0), unsafe_eq1);
    cr_expect_eq(cell_sum(svg, "thm13_taps", 2), loose_t13);
    cr_expect_not_null(strstr(svg, ">share of the category's layers in each verdict (%), per formula</text>"));
    free(svg);
    free(r);
}

/* C79: the pruned workspace against herringbone_taps', counted in C over the stored columns. */
Test(claims, pruned_strictly_less_counted_in_c)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(in_dir("sweep.db"), &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT n_in_read, n_in_padded, herringbone_pruned, herringbone_taps "
                                    "FROM layer_results",
                                    -1, &st, NULL),
                 SQLITE_OK);
    int64_t stale = 0, less = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t rd = sqlite3_column_int64(st, 0), pd = sqlite3_column_int64(st, 1);
        if (rd >= pd)
            continue;
        stale++;
        less += sqlite3_column_int64(st, 2) + rd < sqlite3_column_int64(st, 3) + pd;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    char want[160];
    snprintf(want, sizeof want, "holds on %lld of %lld layers with input no output reads", (long long)less,
             (long long)stale);
    cr_expect_not_null(strstr(claim_row("pruned_strictly_less"), want), "pruned_strictly_less: %s", want);
    expect_verdict("pruned_strictly_less", less == stale ? "agrees" : "contradicted");
    cr_expect_gt(stale, 0);
}
