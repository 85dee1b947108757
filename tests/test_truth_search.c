/*
** test_truth_search.c — the one-pass gap, confirmed by two runs, is the
** truth the full bisection finds.
**
** The bisection over [0, N_out] uses rip_sim_run() alone, so it is the
** independent computation here: on 100,000 layers drawn by the sweep's
** generators (fixed seed; every category, all seven configurations) the
** bracketed search with tables shared per layout (rip_sim_truths) must give
** exactly the bisected truth of a fresh simulation per configuration.  The
** plain engine's own one-pass gap (per scalar) is checked the same way on
** the small layers, and rip_sim_confirm() must refuse the neighbours of a
** truth, which is what turns a wrong one-pass value into an error.
*/
#include <criterion/criterion.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "generator.h"
#include "run_cmd.h"
#include "sim.h"
#include "tmpdir.h"

TEST_SUITE_WITH_TMPDIR(truth_search, 600);

#define SEED 20261130u
#define MAX_CATS 64

/* The sanitizer build runs ~10x slower: fewer layers, same checks. */
#if defined(__SANITIZE_ADDRESS__)
#define N_LAYERS 10000
#define N_PLAIN 300
#else
#define N_LAYERS 100000
#define N_PLAIN 2000
#endif

typedef struct share {
    int64_t lo, step;            /* layers lo, lo+step, ... < N_LAYERS */
    int64_t checked, mismatches, positive[RIP_CONFIG_COUNT];
    int64_t per_cat[MAX_CATS];
    int64_t first_bad;           /* layer of the first mismatch, -1 if none */
    int first_bad_exec;
    int64_t bad_bracket, bad_bisect;
    int failed;                  /* an engine call returned non-zero */
    char err[RIP_ERR_LEN];
} share;

static size_t cat_index(const rip_generator *g)
{
    size_t n = 0;
    const rip_generator *const *all = rip_generators(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i] == g)
            return i;
    return MAX_CATS - 1;
}

static void *check_range(void *arg)
{
    share *s = arg;
    s->first_bad = -1;
    for (int64_t i = s->lo; i < N_LAYERS && !s->failed; i += s->step) {
        rip_layer L;
        const rip_generator *g = rip_sweep_draw(SEED, i, &L);
        s->per_cat[cat_index(g)]++;
        int64_t bracket[RIP_CONFIG_COUNT];
        if (rip_sim_truths(&L, RIP_ENGINE_FAST, RIP_SEARCH_BRACKET, bracket, NULL, NULL, s->err) != 0) {
            s->failed = 1;
            break;
        }
        for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
            int64_t bisect = -1;
            if (rip_sim_truth_by(&L, (rip_config)e, RIP_ENGINE_FAST, RIP_SEARCH_BISECT, &bisect, s->err) != 0) {
                s->failed = 1;
                break;
            }
            s->positive[e] += bisect > 0;
            if (bisect != bracket[e] && s->mismatches++ == 0) {
                s->first_bad = i;
                s->first_bad_exec = e;
                s->bad_bracket = bracket[e];
                s->bad_bisect = bisect;
            }
        }
        s->checked++;
    }
    return NULL;
}

Test(truth_search, bracket_equals_full_bisection_on_sweep_layers)
{
    share sh[2];
    memset(sh, 0, sizeof sh);
    pthread_t t;
    sh[0].lo = 0;
    sh[1].lo = 1;
    sh[0].step = sh[1].step = 2;
    cr_assert_eq(pthread_create(&t, NULL, check_range, &sh[1]), 0);
    check_range(&sh[0]);
    pthread_join(t, NULL);

    int64_t checked = 0, mismatches = 0, positive[RIP_CONFIG_COUNT] = {0}, per_cat[MAX_CATS] = {0};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(sh[k].failed, 0, "simulator failed: %s", sh[k].err);
        checked += sh[k].checked;
        mismatches += sh[k].mismatches;
        for (int e = 0; e < RIP_CONFIG_COUNT; e++)
            positive[e] += sh[k].positive[e];
        for (int c = 0; c < MAX_CATS; c++)
            per_cat[c] += sh[k].per_cat[c];
        if (sh[k].mismatches)
            cr_expect_fail("layer %lld %s: bracket %lld, bisection %lld", (long long)sh[k].first_bad,
                           rip_config_name((rip_config)sh[k].first_bad_exec), (long long)sh[k].bad_bracket,
                           (long long)sh[k].bad_bisect);
    }
    cr_expect_eq(checked, N_LAYERS);
    cr_expect_eq(mismatches, 0, "%lld of %lld truths differ", (long long)mismatches,
                 (long long)(checked * RIP_CONFIG_COUNT));
    size_t n_cats = 0;
    const rip_generator *const *all = rip_generators(&n_cats);
    cr_assert_leq(n_cats, (size_t)MAX_CATS - 1);
    for (size_t c = 0; c < n_cats; c++)
        cr_expect_gt(per_cat[c], 0, "category %s never drawn", all[c]->name);
    /* truths of 0 are easy to agree on: every configuration has many above */
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        cr_expect_gt(positive[e], checked / 100, "%s: only %lld positive truths", rip_config_name((rip_config)e),
                     (long long)positive[e]);
    fprintf(stderr, "truth_search: %lld layers x %d configurations (%zu categories, seed %u): bracket == "
            "full bisection; positive truths per configuration %lld %lld %lld %lld %lld %lld\n",
            (long long)checked, RIP_CONFIG_COUNT, n_cats, SEED, (long long)positive[0], (long long)positive[1],
            (long long)positive[2], (long long)positive[3], (long long)positive[4], (long long)positive[5]);
}

/* The plain engine's one-pass gap (per stored scalar, bound.c) against the
** fast engine's bisected truth, on the sweep's small layers. */
Test(truth_search, plain_bracket_equals_fast_bisection)
{
    int64_t checked = 0;
    char err[RIP_ERR_LEN] = "";
    for (int64_t i = 0; i < N_LAYERS && checked < N_PLAIN; i++) {
        rip_layer L;
        rip_sweep_draw(SEED, i, &L);
        if (L.n_in_padded > 20000 || L.n_out > 20000 || L.h_out * L.w_out * L.k_h * L.k_w * L.cin > 200000)
            continue;
        int64_t plain[RIP_CONFIG_COUNT];
        cr_assert_eq(rip_sim_truths(&L, RIP_ENGINE_PLAIN, RIP_SEARCH_BRACKET, plain, NULL, NULL, err), 0,
                     "layer %lld: %s", (long long)i, err);
        for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
            int64_t fast = -1;
            cr_assert_eq(rip_sim_truth_by(&L, (rip_config)e, RIP_ENGINE_FAST, RIP_SEARCH_BISECT, &fast, err), 0);
            cr_assert_eq(plain[e], fast, "layer %lld %s: plain bracket %lld, fast bisection %lld", (long long)i,
                         rip_config_name((rip_config)e), (long long)plain[e], (long long)fast);
        }
        checked++;
    }
    cr_expect_eq(checked, N_PLAIN, "only %lld small layers", (long long)checked);
}

/* A wrong candidate is never confirmed: the runs at g and g - 1 decide. */
Test(truth_search, confirm_refuses_the_neighbours_of_the_truth)
{
    for (int64_t i = 0; i < 1000; i++) {
        rip_layer L;
        rip_sweep_draw(SEED + 1, i, &L);
        for (int e = 0; e < RIP_CONFIG_COUNT; e++) {
            int64_t g = -1;
            cr_assert_eq(rip_sim_truth_by(&L, (rip_config)e, RIP_ENGINE_FAST, RIP_SEARCH_BISECT, &g, NULL), 0);
            rip_sim *s = rip_sim_new(&L, (rip_config)e, RIP_ENGINE_FAST);
            cr_assert_not_null(s);
            cr_expect_eq(rip_sim_bound(s), g, "layer %lld %s", (long long)i, rip_config_name((rip_config)e));
            cr_expect(rip_sim_confirm(s, g));
            cr_expect(!rip_sim_confirm(s, g + 1), "layer %lld %s: %lld + 1 confirmed", (long long)i,
                      rip_config_name((rip_config)e), (long long)g);
            if (g > 0)
                cr_expect(!rip_sim_confirm(s, g - 1));
            cr_expect(!rip_sim_confirm(s, -1));
            cr_expect(!rip_sim_confirm(s, L.n_out + 1));
            rip_sim_free(s);
        }
    }
    cr_expect(!rip_sim_confirm(NULL, 0));
    cr_expect_eq(rip_sim_bound(NULL), -1);
}

/* Tables are shared only within a layout; a refused switch leaves s usable. */
Test(truth_search, retarget_stays_within_a_layout)
{
    rip_layer L;
    rip_sweep_draw(SEED, 7, &L);
    int64_t want[RIP_CONFIG_COUNT];
    for (int e = 0; e < RIP_CONFIG_COUNT; e++)
        cr_assert_eq(rip_sim_truth_by(&L, (rip_config)e, RIP_ENGINE_FAST, RIP_SEARCH_BISECT, &want[e], NULL), 0);
    for (int eng = 0; eng < 2; eng++) {
        rip_sim *s = rip_sim_new(&L, RIP_CONFIG_PADDED_GATHER, (rip_engine)eng);
        cr_assert_not_null(s);
        cr_expect_eq(rip_sim_retarget(s, RIP_CONFIG_DENSE_GATHER), -1);
        cr_expect_eq(rip_sim_retarget(s, RIP_CONFIG_HB_TAPS), -1);
        cr_expect_eq(rip_sim_retarget(s, RIP_CONFIG_COUNT), -1);
        int64_t g = -1;
        cr_expect_eq(rip_sim_search(s, RIP_SEARCH_BRACKET, &g, NULL), 0);
        cr_expect_eq(g, want[RIP_CONFIG_PADDED_GATHER]);
        cr_expect_eq(rip_sim_retarget(s, RIP_CONFIG_PADDED_TAPS), 0);
        cr_expect_eq(rip_sim_search(s, RIP_SEARCH_BRACKET, &g, NULL), 0);
        cr_expect_eq(g, want[RIP_CONFIG_PADDED_TAPS]);
        rip_sim_free(s);

        s = rip_sim_new(&L, RIP_CONFIG_HB_TAPS_READER, (rip_engine)eng);
        cr_assert_not_null(s);
        cr_expect_eq(rip_sim_retarget(s, RIP_CONFIG_PADDED_TAPS), -1);
        cr_expect_eq(rip_sim_retarget(s, RIP_CONFIG_HB_TAPS), 0);
        cr_expect_eq(rip_sim_search(s, RIP_SEARCH_BRACKET, &g, NULL), 0);
        cr_expect_eq(g, want[RIP_CONFIG_HB_TAPS]);
        cr_expect_eq(rip_sim_retarget(s, RIP_CONFIG_HB_TAPS_READER), 0);
        cr_expect_eq(rip_sim_search(s, RIP_SEARCH_BRACKET, &g, NULL), 0);
        cr_expect_eq(g, want[RIP_CONFIG_HB_TAPS_READER]);
        rip_sim_free(s);
    }
    int64_t g = 5;
    cr_expect_eq(rip_sim_search(NULL, RIP_SEARCH_BRACKET, &g, NULL), -1);
    cr_expect_eq(g, 5);
}

/* Every truth of a sweep database as text, one row a line (malloc'd). */
static char *truths_text(const char *path)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    buf[0] = '\0';
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, "SELECT layer_idx, exec_config, gap FROM truths ORDER BY 1, 2", -1, &st,
                                    NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW && n + 100 < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%lld %s %lld\n", sqlite3_column_int64(st, 0),
                              (const char *)sqlite3_column_text(st, 1), sqlite3_column_int64(st, 2));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* --full-bisection on the command line: same truths as the default. */
Test(truth_search, cli_full_bisection_gives_the_same_truths)
{
    static const char *const specs[] = {"cin=1,cout=5,h=14,k=3", "cin=3,cout=7,h=17,w=9,k=3x5,s=2,d=1x2,p=1",
                                        "cin=64,cout=64,h=56,k=3,p=1"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        static char want[sizeof ((run_result *)0)->out];
        run_result *r = RUN("layer", "--json", specs[i]);
        cr_assert_eq(r->status, 0, "%s", r->err);
        snprintf(want, sizeof want, "%s", r->out);
        r = RUN("layer", "--json", "--full-bisection", specs[i]);
        cr_assert_eq(r->status, 0, "%s", r->err);
        cr_expect_str_eq(r->out, want, "%s", specs[i]);
    }
    char a[320], b[320];
    snprintf(a, sizeof a, "%s", tmp("bracket.db"));
    snprintf(b, sizeof b, "%s", tmp("bisect.db"));
    run_result *r = RUN("sweep", "--n", "300", "--seed", "5", "--db", a, "--quiet");
    cr_assert_eq(r->status, 0, "%s", r->err);
    r = RUN("sweep", "--n", "300", "--seed", "5", "--db", b, "--quiet", "--full-bisection");
    cr_assert_eq(r->status, 0, "%s", r->err);
    char *ta = truths_text(a), *tb = truths_text(b);
    cr_expect_gt(strlen(ta), 300 * 6 * 10, "the truths of %s", a);
    cr_expect_str_eq(ta, tb, "the truths of the two sweeps differ");
    free(ta);
    free(tb);
    (void)count_lines;
}
