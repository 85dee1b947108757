/*
** test_optimum.c — Criterion suite for the visiting-order simulator
** (rip_sim_new_order) and the traversal-optimal search (sim/optimum.h),
** and `ripsim optimal`.
**
** Expected values come from an independent pool simulator written here
** (every tap of every output enumerated, the pool counted scalar by scalar,
** the gap found by scanning delta upward) and from brute force over every
** permutation of tiny grids; nothing is a value printed by the code under
** test.
*/
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"
#include "optimum.h"
#include "run_cmd.h"
#include "sim.h"
#include "splitmix.h"

/* A random layer with at most max_pix output pixels, asymmetric padding. */
static rip_layer random_layer(int64_t max_pix, int64_t max_hw)
{
    char err[RIP_ERR_LEN];
    for (;;) {
        rip_layer L = rip_layer_make(rng_int(1, 6), rng_int(1, 8), rng_int(1, max_hw), rng_int(1, max_hw),
                                     rng_int(1, 4), rng_int(1, 4), rng_int(1, 2), rng_int(1, 2), rng_int(1, 2),
                                     rng_int(1, 2), 0, 0);
        int64_t keh = L.d_h * (L.k_h - 1) + 1, kew = L.d_w * (L.k_w - 1) + 1;
        L.p_top = rng_int(0, keh - 1);
        L.p_bottom = rng_int(0, keh - 1);
        L.p_left = rng_int(0, kew - 1);
        L.p_right = rng_int(0, kew - 1);
        if (rip_layer_derive(&L, err) == 0 && L.h_out * L.w_out <= max_pix)
            return L;
    }
}

static rip_layer make(int64_t cin, int64_t cout, int64_t h, int64_t w, int64_t k)
{
    char err[RIP_ERR_LEN];
    rip_layer L = rip_layer_make(cin, cout, h, w, k, k, 1, 1, 1, 1, 0, 0);
    cr_assert_eq(rip_layer_derive(&L, err), 0, "%s", err);
    return L;
}

static void shuffle(int64_t *a, int64_t n)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = rng_int(0, i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/*
** Independent reference: the herringbone_taps_reader gap of L in order[]
** (window = false) or herringbone_taps (window = true), from first
** principles: per padded input scalar its release step (reader: the last
** visit of an output with a tap on it; window: the last visit of an output
** whose window origin is <= it on both axes), then the pool counted write
** by write for delta = 0, 1, ... until a run completes.
*/
static int64_t ref_gap(const rip_layer *L, const int64_t *order, bool window)
{
    const int64_t P = L->h_out * L->w_out, NP = L->h_p * L->w_p;
    int64_t *rel = malloc((size_t)NP * sizeof *rel), *vt = malloc((size_t)P * sizeof *vt);
    int64_t *cnt = calloc((size_t)P + 1, sizeof *cnt);
    cr_assert(rel && vt && cnt);
    for (int64_t t = 0; t < P; t++)
        vt[order[t]] = t;
    for (int64_t x = 0; x < NP; x++)
        rel[x] = -1;
    for (int64_t q = 0; q < P; q++) {
        const int64_t r = q / L->w_out, c = q % L->w_out;
        if (window) {
            for (int64_t i = r * L->s_h; i < L->h_p; i++)
                for (int64_t j = c * L->s_w; j < L->w_p; j++) {
                    /* origin (r s_h, c s_w) <= (i,j); the last row/column of
                    ** outputs also owns everything beyond its origin */
                    int64_t R = i / L->s_h < L->h_out - 1 ? i / L->s_h : L->h_out - 1;
                    int64_t C = j / L->s_w < L->w_out - 1 ? j / L->s_w : L->w_out - 1;
                    if (r <= R && c <= C && rel[i * L->w_p + j] < vt[q])
                        rel[i * L->w_p + j] = vt[q];
                }
        } else {
            for (int64_t a = 0; a < L->k_h; a++)
                for (int64_t b = 0; b < L->k_w; b++) {
                    int64_t x = (r * L->s_h + a * L->d_h) * L->w_p + c * L->s_w + b * L->d_w;
                    if (rel[x] < vt[q])
                        rel[x] = vt[q];
                }
        }
    }
    int64_t at_start = 0;
    for (int64_t x = 0; x < NP; x++) {
        if (rel[x] < 0)
            at_start += L->cin;
        else
            cnt[rel[x]] += L->cin;
    }
    /* completion is monotone in the gap: bisect on [0, N_out]; a step's
    ** cout writes all find a slot iff cout are free before it */
    int64_t lo = 0, hi = L->n_out;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        int64_t free_slots = mid + at_start;
        bool ok = true;
        for (int64_t t = 0; t < P && ok; t++) {
            ok = free_slots >= L->cout;
            free_slots += cnt[t] - L->cout;
        }
        if (ok)
            hi = mid;
        else
            lo = mid + 1;
    }
    const int64_t gap = lo;
    free(rel);
    free(vt);
    free(cnt);
    return gap;
}

static int64_t sim_gap(const rip_layer *L, rip_config e, rip_engine engine, const int64_t *order)
{
    rip_sim *s = rip_sim_new_order(L, e, engine, order);
    cr_assert_not_null(s);
    int64_t g = -1;
    cr_assert_eq(rip_sim_search(s, RIP_SEARCH_BISECT, &g, NULL), 0);
    rip_sim_free(s);
    return g;
}

/* Item 2: a random order, both rules: fast engine = plain engine, run by run
** (same failing step and pixel), and both = the reference. */
Test(order, random_orders_agree_with_plain_engine_and_reference)
{
    rng_state = 20261130;
    for (int n = 0; n < 300; n++) {
        rip_layer L = random_layer(64, 12);
        const int64_t P = L.h_out * L.w_out;
        int64_t order[64];
        for (int64_t q = 0; q < P; q++)
            order[q] = q;
        shuffle(order, P);
        for (int e = RIP_CONFIG_HB_TAPS; e <= RIP_CONFIG_HB_TAPS_READER; e++) {
            rip_sim *f = rip_sim_new_order(&L, (rip_config)e, RIP_ENGINE_FAST, order);
            rip_sim *p = rip_sim_new_order(&L, (rip_config)e, RIP_ENGINE_PLAIN, order);
            cr_assert(f && p);
            const int64_t ref = ref_gap(&L, order, e == RIP_CONFIG_HB_TAPS);
            for (int64_t d = ref > 3 ? ref - 3 : 0; d <= ref + 1; d++) {
                rip_run_report rf, rp;
                bool a = rip_sim_run(f, d, &rf), b = rip_sim_run(p, d, &rp);
                cr_assert_eq(a, b, "layer %d %s delta %lld", n, rip_config_name((rip_config)e), (long long)d);
                cr_assert_eq(a, d >= ref, "layer %d %s delta %lld ref %lld", n, rip_config_name((rip_config)e),
                             (long long)d, (long long)ref);
                cr_assert_eq(rf.step, rp.step);
                cr_assert_eq(rf.pixel_r, rp.pixel_r);
                cr_assert_eq(rf.pixel_c, rp.pixel_c);
            }
            int64_t g = -1;
            cr_assert_eq(rip_sim_search(f, RIP_SEARCH_BRACKET, &g, NULL), 0);
            cr_assert_eq(g, ref);
            rip_sim_free(f);
            rip_sim_free(p);
        }
    }
}

/* Item 2: the herringbone order given explicitly is today's herringbone
** truth (rip_sim_new), and that truth is the reference's on the order built
** here independently (legs of sim/README.md); row-major likewise. */
Test(order, herringbone_and_row_major_are_instances)
{
    rng_state = 7;
    for (int n = 0; n < 200; n++) {
        rip_layer L = random_layer(400, 24);
        const int64_t H = L.h_out, W = L.w_out, P = H * W;
        int64_t *hb = malloc((size_t)P * sizeof *hb), *rm = malloc((size_t)P * sizeof *rm), k = 0;
        cr_assert(hb && rm);
        const int64_t n_min = H < W ? H : W;
        for (int64_t i = 0; i < n_min; i++) {
            if (W >= H) {
                for (int64_t c = i; c < W; c++)
                    hb[k++] = i * W + c;
                for (int64_t r = i + 1; r < H; r++)
                    hb[k++] = r * W + i;
            } else {
                for (int64_t r = i; r < H; r++)
                    hb[k++] = r * W + i;
                for (int64_t c = i + 1; c < W; c++)
                    hb[k++] = i * W + c;
            }
        }
        cr_assert_eq(k, P);
        for (int64_t q = 0; q < P; q++)
            rm[q] = q;
        for (int e = RIP_CONFIG_HB_TAPS; e <= RIP_CONFIG_HB_TAPS_READER; e++)
            for (int eng = 0; eng < 2; eng++) {
                int64_t today = -1;
                cr_assert_eq(rip_sim_truth(&L, (rip_config)e, (rip_engine)eng, &today), 0);
                cr_assert_eq(sim_gap(&L, (rip_config)e, (rip_engine)eng, hb), today);
                cr_assert_eq(today, ref_gap(&L, hb, e == RIP_CONFIG_HB_TAPS));
                cr_assert_eq(sim_gap(&L, (rip_config)e, (rip_engine)eng, rm), ref_gap(&L, rm, e == RIP_CONFIG_HB_TAPS));
            }
        free(hb);
        free(rm);
    }
}

Test(order, refuses_non_permutations_and_rip_orders)
{
    rip_layer L = make(1, 2, 4, 4, 3); /* 2x2 output */
    const int64_t dup[4] = {0, 1, 1, 3}, out[4] = {0, 1, 2, 4}, ok[4] = {3, 2, 1, 0};
    cr_assert_null(rip_sim_new_order(&L, RIP_CONFIG_HB_TAPS_READER, RIP_ENGINE_FAST, dup));
    cr_assert_null(rip_sim_new_order(&L, RIP_CONFIG_HB_TAPS_READER, RIP_ENGINE_PLAIN, out));
    cr_assert_null(rip_sim_new_order(&L, RIP_CONFIG_DENSE_GATHER, RIP_ENGINE_FAST, ok));
    rip_sim *s = rip_sim_new_order(&L, RIP_CONFIG_HB_TAPS, RIP_ENGINE_FAST, ok);
    cr_assert_not_null(s);
    rip_sim_free(s);
}

/* Heap's algorithm over a[0..n): calls visit on every permutation. */
static void brute_min(const rip_layer *L, int64_t *a, int64_t n, int64_t *best)
{
    int64_t c[16] = {0};
    int64_t g = ref_gap(L, a, false);
    if (g < *best)
        *best = g;
    for (int64_t i = 1; i < n;) {
        if (c[i] < i) {
            int64_t j = i % 2 == 0 ? 0 : c[i], t = a[j];
            a[j] = a[i];
            a[i] = t;
            g = ref_gap(L, a, false);
            if (g < *best)
                *best = g;
            c[i]++;
            i = 1;
        } else {
            c[i] = 0;
            i++;
        }
    }
}

/* The search against brute force over every permutation, on grids up to
** 3x3 (9! = 362,880 orders each); its order confirmed by the reference. */
static void check_brute(const rip_layer *L)
{
    const int64_t P = L->h_out * L->w_out;
    int64_t a[16];
    for (int64_t q = 0; q < P; q++)
        a[q] = q;
    int64_t best = INT64_MAX;
    brute_min(L, a, P, &best);
    char err[RIP_ERR_LEN];
    rip_optimum o;
    cr_assert_eq(rip_optimum_search(L, 25, &o, err), RIP_OK, "%s", err);
    cr_assert_eq(o.gap, best, "grid %lldx%lld cin %lld cout %lld: search %lld, brute force %lld",
                 (long long)L->h_out, (long long)L->w_out, (long long)L->cin, (long long)L->cout,
                 (long long)o.gap, (long long)best);
    cr_assert_eq(ref_gap(L, o.order, false), best);
    cr_assert_leq(o.gap, o.hb_gap);
    cr_assert_leq(o.lower, o.gap);
    rip_optimum_free(&o);
}

/* Value ranges over 65,535 take the search's 32-bit table. */
Test(optimum, brute_force_wide_value_range)
{
    rip_layer a = make(30000, 80000, 4, 5, 3), b = make(7, 90000, 3, 4, 2); /* 2x3 grids */
    check_brute(&a);
    check_brute(&b);
}

Test(optimum, brute_force_tiny_grids_random)
{
    rng_state = 99;
    for (int n = 0; n < 120; n++) {
        rip_layer L = random_layer(6, 8); /* up to 720 orders */
        check_brute(&L);
    }
}

Test(optimum, brute_force_3x3_grids, .timeout = 300)
{
    /* restricted 3x3 grids, and anisotropic ones with 9 pixels */
    rip_layer a = make(1, 5, 5, 5, 3), b = make(4, 2, 5, 5, 3);
    check_brute(&a);
    check_brute(&b);
    char err[RIP_ERR_LEN];
    rip_layer c = rip_layer_make(3, 7, 7, 4, 3, 2, 3, 1, 1, 2, 0, 0);
    c.p_top = 1;
    c.p_bottom = 2;
    c.p_left = 1;
    cr_assert_eq(rip_layer_derive(&c, err), 0, "%s", err);
    cr_assert_eq(c.h_out * c.w_out, 9);
    check_brute(&c);
}

Test(optimum, refuses_large_grids)
{
    rip_layer L = make(1, 1, 8, 8, 3); /* 6x6 = 36 pixels */
    char err[RIP_ERR_LEN];
    rip_optimum o;
    cr_assert_eq(rip_optimum_search(&L, 30, &o, err), RIP_S_DATA);
    cr_assert(strstr(err, "36 pixels") != NULL, "%s", err);
    cr_assert_null(o.order);
    L = make(1, 1, 7, 7, 3); /* 25 pixels, refused under --max-pixels 24 */
    cr_assert_eq(rip_optimum_search(&L, 24, &o, err), RIP_S_DATA);
}

Test(optimal_cli, json_shape_and_confirmed_order)
{
    run_result *r = RUN("optimal", "--json", "cin=2,cout=3,h=4,w=5,k=2");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_assert(strncmp(r->out, "{\"layer\":{\"cin\":2,\"cout\":3,", 27) == 0, "%s", r->out);
    const char *opt = strstr(r->out, "},\"optimum\":{\"gap\":");
    cr_assert_not_null(opt, "%s", r->out);
    cr_assert_not_null(strstr(r->out, "]},\"truth\":{\"rip_padded_gather\":"));
    cr_assert_not_null(strstr(r->out, "\"herringbone_taps_reader\":"));
    /* the gap and order printed are the reference's: the order is a
    ** permutation of the 3x4 grid and attains the gap */
    long long gap = -1;
    cr_assert_eq(sscanf(opt, "},\"optimum\":{\"gap\":%lld", &gap), 1);
    const char *p = strstr(opt, "\"order\":[") + 9;
    int64_t order[12];
    int seen[12] = {0};
    for (int t = 0; t < 12; t++) {
        order[t] = strtoll(p, (char **)&p, 10);
        cr_assert(order[t] >= 0 && order[t] < 12 && !seen[order[t]]);
        seen[order[t]] = 1;
        p++;
    }
    cr_assert_eq(p[-1], ']');
    rip_layer L = make(2, 3, 4, 5, 2);
    cr_assert_eq(ref_gap(&L, order, false), gap);
    cr_assert_eq(r->out[strlen(r->out) - 1], '\n');
}

Test(optimal_cli, refusals)
{
    run_result *r = RUN("optimal", "cin=1,cout=1,h=8,k=3");
    cr_assert_eq(r->status, 65);
    cr_assert_not_null(strstr(r->err, "36 pixels"), "%s", r->err);
    cr_assert_eq(count_lines(r->err), 1);
    r = RUN("optimal", "--max-pixels", "31", "cin=1,cout=1,h=4,k=3");
    cr_assert_eq(r->status, 64);
    r = RUN("optimal", "cin=0,cout=1,h=4,k=3");
    cr_assert_eq(r->status, 65);
}

/* The committed file RIPSIM_RESULTS_DIR/name, malloc'd, NUL-terminated. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert_not_null(buf);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* `ripsim tables NAME` regenerates the committed results/FILE byte for byte. */
static void check_regenerates(const char *table, const char *file)
{
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR must be set");
    char dir[] = "/tmp/ripsim-optimum-XXXXXX", out[256];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(out, sizeof out, "%s/%s", dir, file);
    run_result *r = RUN("tables", table, "--out", out);
    cr_assert_eq(r->status, 0, "%s", r->err);
    size_t a, b;
    char *want = slurp(res, file, &a), *got = slurp(dir, file, &b);
    cr_assert_eq(a, b, "%s: %zu bytes regenerated, %zu committed: run `ripsim tables %s` (or `ripsim reproduce "
                 "--only %s`)", file, b, a, table, table);
    cr_assert(memcmp(want, got, a) == 0, "%s differs from its regeneration: run `ripsim tables %s`", file, table);
    free(want);
    free(got);
    unlink(out);
    rmdir(dir);
}

Test(optimum_tables, optimum_md_regenerates, .timeout = 300)
{
    check_regenerates("optimum", "optimum.md");
}

Test(optimum_tables, fig3_regenerates)
{
    check_regenerates("fig3", "fig3.svg");
    /* independent of the code: the tall grid's herringbone order under the
    ** pool rule, by the reference here, is the gap the figure shows */
    char err[RIP_ERR_LEN];
    rip_layer L = rip_layer_make(2, 8, 7, 4, 4, 3, 2, 1, 1, 2, 0, 0);
    L.p_top = 3, L.p_bottom = 2, L.p_left = 3, L.p_right = 0;
    cr_assert_eq(rip_layer_derive(&L, err), 0);
    int64_t hb[15];
    cr_assert_eq(rip_herringbone_order(L.h_out, L.w_out, hb), 0);
    char want[64];
    snprintf(want, sizeof want, "herringbone: gap %lld<", (long long)ref_gap(&L, hb, false));
    size_t n;
    char *svg = slurp(getenv("RIPSIM_RESULTS_DIR"), "fig3.svg", &n);
    cr_assert_not_null(strstr(svg, want), "%s", want);
    /* arrowheads: both markers defined, every leg (a polyline) ends in one,
    ** and each panel's legs are its jumps plus one (six panels; the key
    ** draws one disc, one leg and one jump more) */
    cr_expect_not_null(strstr(svg, "<marker id=\"leg\""));
    cr_expect_not_null(strstr(svg, "<marker id=\"jump\""));
    int polylines = 0, arrowed = 0, discs = 0, jumps = 0;
    for (const char *p = svg; (p = strstr(p, "<polyline")) != NULL; p++, polylines++)
        arrowed += strstr(p, "marker-end=\"url(#leg)\"") < strchr(p, '>');
    for (const char *p = svg; (p = strstr(p, "fill=\"#d62728\"")) != NULL; p++, discs++) {}
    for (const char *p = svg; (p = strstr(p, "marker-end=\"url(#jump)\"")) != NULL; p++, jumps++) {}
    cr_expect_gt(polylines, 0);
    cr_expect_eq(arrowed, polylines);
    cr_expect_eq(discs - 1, (jumps - 1) + 6, "%d discs, %d jumps", discs, jumps);
    free(svg);
}

Test(optimum_tables, fig_optimum_regenerates, .timeout = 300)
{
    check_regenerates("fig_optimum", "fig_optimum.svg");
    /* no overplotting: one disc per distinct point, never two at one centre;
    ** each panel accounts for every layer */
    size_t n;
    char *svg = slurp(getenv("RIPSIM_RESULTS_DIR"), "fig_optimum.svg", &n);
    enum { MAXC = 4096 };
    static double cx[MAXC], cy[MAXC];
    int nc = 0;
    for (const char *p = svg; (p = strstr(p, "<circle cx=\"")) != NULL && nc < MAXC; p++, nc++)
        cr_assert_eq(sscanf(p, "<circle cx=\"%lf\" cy=\"%lf\"", &cx[nc], &cy[nc]), 2);
    cr_expect_gt(nc, 100);
    for (int i = 0; i < nc; i++)
        for (int j = i + 1; j < nc; j++)
            cr_expect(cx[i] != cx[j] || cy[i] != cy[j], "two discs at (%g, %g)", cx[i], cy[i]);
    int panels = 0;
    for (const char *p = svg; (p = strstr(p, " above the optimum, ")) != NULL; p++, panels++) {
        const char *q = p;
        while (q > svg && q[-1] != '>')
            q--;
        long long above, equal, below;
        cr_assert_eq(sscanf(q, "%lld above the optimum, %lld equal, %lld below", &above, &equal, &below), 3);
        cr_expect_eq(above + equal + below, 2000, "the title's 2000 layers");
    }
    cr_expect_eq(panels, 2);
    free(svg);
}

/* Item 4: `sweep --optimum P` stores, for every layer with at most P output
** pixels, an optimum that brute force over every order confirms (grids of
** up to 6 pixels here), and the report gains its section only then. */
Test(optimum_sweep, optima_rows_brute_force_and_report, .timeout = 300)
{
    char dir[] = "/tmp/ripsim-optsweep-XXXXXX", dbp[256], plain[256];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(dbp, sizeof dbp, "%s/s.db", dir);
    snprintf(plain, sizeof plain, "%s/p.db", dir);
    run_result *r = RUN("sweep", "--n", "400", "--db", plain);
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_assert_null(strstr(r->out, "optimum"));
    r = RUN("sweep", "--n", "400", "--db", dbp, "--optimum", "6");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_assert_not_null(strstr(r->out, "\noptimum: "), "%s", r->out);

    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(dbp, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT r.cin, r.cout, r.h_in, r.w_in, r.k_h, r.k_w, r.s_h, r.s_w, r.d_h, r.d_w, "
                                    "r.p_top, r.p_bottom, r.p_left, r.p_right, r.herringbone_taps_reader, o.gap, "
                                    "o.visit_order, (SELECT count(*) FROM layer_results WHERE h_out * w_out <= 6) "
                                    "FROM layer_results r LEFT JOIN optima o ON o.layer_idx = r.layer_idx "
                                    "WHERE r.h_out * r.w_out <= 6",
                                    -1, &st, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t v[18];
        for (int i = 0; i < 18; i++)
            v[i] = sqlite3_column_int64(st, i);
        cr_assert_neq(sqlite3_column_type(st, 15), SQLITE_NULL, "a small layer has no optimum");
        char err[RIP_ERR_LEN];
        rip_layer L = rip_layer_make(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], 0, 0);
        L.p_top = v[10], L.p_bottom = v[11], L.p_left = v[12], L.p_right = v[13];
        cr_assert_eq(rip_layer_derive(&L, err), 0);
        const int64_t P = L.h_out * L.w_out;
        int64_t a[8], best = INT64_MAX, order[8];
        for (int64_t q = 0; q < P; q++)
            a[q] = q;
        brute_min(&L, a, P, &best);
        cr_assert_eq(v[15], best, "stored optimum %lld, brute force %lld", (long long)v[15], (long long)best);
        cr_assert_leq(v[15], v[14]);
        const char *p = (const char *)sqlite3_column_text(st, 16);
        for (int64_t t = 0; t < P; t++) {
            order[t] = strtoll(p, (char **)&p, 10);
            if (*p == ',')
                p++;
        }
        cr_assert_eq(*p, '\0');
        cr_assert_eq(ref_gap(&L, order, false), best);
        rows++;
        cr_assert_eq(rows <= v[17], true);
    }
    cr_assert_gt(rows, 10, "only %d small layers", rows);
    sqlite3_finalize(st);
    sqlite3_close(db);

    /* a rerun resumes with nothing to add */
    r = RUN("sweep", "--n", "400", "--db", dbp, "--optimum", "6");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_assert_not_null(strstr(r->out, "(0 by this run)"), "%s", r->out);

    /* the report: the section only with optima; everything else identical */
    static char with[1 << 16], without[1 << 16];
    r = RUN("report", "--db", dbp);
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(with, sizeof with, "%s", r->out);
    r = RUN("report", "--db", plain);
    cr_assert_eq(r->status, 0, "%s", r->err);
    snprintf(without, sizeof without, "%s", r->out);
    cr_assert_null(strstr(without, "traversal optimum"));
    char *sec = strstr(with, "## Against the traversal optimum");
    cr_assert_not_null(sec);
    char *end = strstr(sec + 1, "\n## ");
    cr_assert_not_null(end);
    cr_assert_not_null(strstr(sec, "| herringbone_taps_reader | "));
    cr_assert(strstr(sec, " | 0 | ") != NULL); /* some count is zero: herringbone never below */
    /* with the section cut out and the database's name swapped (same
    ** length), the two reports are byte-identical */
    memmove(sec, end + 1, strlen(end + 1) + 1);
    for (char *q = strstr(with, dbp); q; q = strstr(q + 1, dbp))
        memcpy(q, plain, strlen(plain));
    cr_assert_str_eq(with, without);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}
