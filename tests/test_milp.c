/*
** test_milp.c — the two exact placement strategies: `milp` (the paper's
** Sec. 4.3 program with CBC, src/plan/milp.c) and `exact` (branch and bound
** over canonical placements for buffer lists, src/plan/exact.c).
**
** Expected optima are derived by hand in the comments of the tiny problems;
** the larger ones come from outside the planner: MiniMalloc's input.12
** (height 12) and ASPLOS 2024 sets (capacity 1,048,576, equal to the lower
** bound of A, B and E), Tab. 3 (MCUNet RiP and Base peaks) and Tab. 7
** (keras dual-buffer and RiP peaks, table7_reference.csv).  Every plan goes
** through rip_plan_check(), with the simulator re-deriving RiP gaps for
** graphs.
**
** Run time: every test here takes well under a second except
** exact_asplos2024_sets (about 2 s: all five sets at capacity, E being the
** slowest at about 1.5 s), exact_decides_the_later_challenging_sets
** (about 6 s: F..K at capacity, F and I minimized, I taking most of it),
** time_limit_is_respected (about 2 s by
** construction) and the two time_limit_* tests of issue 8 (about 1 s each
** by construction).
** The benchmark bench_planner runs the sets per strategy and the 44 graphs.
*/
#include <stdint.h>
#include <time.h>

#include "run_cmd.h"

#include "cli.h"
#include "plan/graph.h"
#include "plan/plan.h"
#include "skip.h"

TestSuite(milp, .timeout = 300);

/* ---- helpers ---- */

/* RIPSIM_RESULTS_DIR/../rel */
static const char *data_path(const char *rel)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    const char *res = getenv("RIPSIM_RESULTS_DIR");
    cr_assert_not_null(res, "RIPSIM_RESULTS_DIR must be set");
    snprintf(p, 512, "%s/../%s", res, rel);
    return p;
}

/* A hand-made problem: tensors "t0".."t<n-1>" with [first, last] and size. */
typedef struct hand_tensor {
    int64_t first, last, size;
} hand_tensor;

static void hand_problem(rip_problem *p, const hand_tensor *t, size_t n, int64_t align)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "hand");
    p->t = calloc(n, sizeof *p->t);
    p->cand = calloc(4, sizeof *p->cand);
    cr_assert(p->t && p->cand);
    p->n = n;
    p->align = align;
    for (size_t i = 0; i < n; i++) {
        snprintf(p->t[i].id, sizeof p->t[i].id, "t%zu", i);
        p->t[i].first = t[i].first;
        p->t[i].last = t[i].last;
        p->t[i].size = t[i].size;
        p->t[i].producer_op = -1;
        if (t[i].last + 1 > p->n_steps)
            p->n_steps = t[i].last + 1;
    }
}

static void add_cand(rip_problem *p, int in, int out, int op, rip_inplace_kind kind, int64_t gap)
{
    cr_assert_lt(p->n_cand, 4);
    rip_candidate *c = &p->cand[p->n_cand++];
    memset(c, 0, sizeof *c);
    c->in = in;
    c->out = out;
    c->op = op;
    c->kind = kind;
    c->gap = gap;
}

/* Run a strategy through the registry (rip_strategy_run validates the
** problem); the plan must pass the checker.  The caller frees it. */
static rip_plan *run(const rip_problem *p, const char *name, const rip_plan_opts *o, bool simulate)
{
    const rip_strategy *s = rip_strategy_by_name(name);
    cr_assert_not_null(s, "strategy %s is registered", name);
    rip_plan *plan = rip_plan_new(p, s->name);
    cr_assert_not_null(plan);
    rip_plan_opts none = {.seed = 1};
    char err[RIP_ERR_LEN];
    int rc = rip_strategy_run(s, p, o ? o : &none, plan, err);
    cr_assert_eq(rc, 0, "%s on %s: %s", name, p->name, err);
    int c = rip_plan_check(p, plan, simulate, err);
    cr_assert_eq(c, 0, "%s on %s: invalid plan: %s", name, p->name, err);
    cr_assert_eq(plan->peak, rip_plan_peak(p, plan));
    cr_assert_geq(plan->peak, plan->lower_bound);
    return plan;
}

static void load_intervals(const char *rel, bool inclusive, rip_problem *p)
{
    char err[RIP_ERR_LEN];
    int rc = rip_problem_from_intervals(data_path(rel), inclusive, 1, p, err);
    cr_assert_eq(rc, 0, "%s", err);
}

static void load_graph(const char *rel, bool rip, bool dw, rip_problem *p)
{
    char err[RIP_ERR_LEN];
    rip_graph g;
    int rc = rip_graph_load(data_path(rel), &g, err);
    cr_assert_eq(rc, 0, "%s", err);
    rip_graph_opts o = {.rip = rip, .inplace_depthwise = dw, .sigma_taps = false, .align = 4};
    rc = rip_problem_from_graph(&g, &o, p, err);
    rip_graph_free(&g);
    cr_assert_eq(rc, 0, "%s", err);
}

/* Pairs of tensors whose lifetimes overlap: the only pairs given a binary. */
static size_t meeting_pairs(const rip_problem *p)
{
    size_t k = 0;
    for (size_t a = 0; a < p->n; a++)
        for (size_t b = a + 1; b < p->n; b++)
            k += rip_tensors_meet(&p->t[a], &p->t[b]);
    return k;
}

/* ---- tiny problems, optimum by hand ---- */

Test(milp, two_tensors_alive_together)
{
    /* t0 [0,1] 10 B and t1 [1,2] 6 B meet at step 1 and cannot share:
    ** the optimum stacks them, 10 + 6 = 16. */
    hand_tensor t[] = {{0, 1, 10}, {1, 2, 6}};
    rip_problem p;
    hand_problem(&p, t, 2, 1);
    rip_plan *m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 16);
    cr_expect(m->optimal);
    /* one pair, one ordering binary (the paper's encoding: 3 n(n-1)/2 = 3) */
    cr_expect_eq(m->n_binaries, 1);
    rip_plan *e = run(&p, "exact", NULL, false);
    cr_expect_eq(e->peak, 16);
    cr_expect(e->optimal);
    rip_plan_free(m);
    rip_plan_free(e);
    rip_problem_free(&p);

    /* apart in time they share the address: peak = max = 10, no binary */
    hand_tensor u[] = {{0, 0, 10}, {1, 1, 6}};
    hand_problem(&p, u, 2, 1);
    m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 10);
    cr_expect_eq(m->n_binaries, 0);
    rip_plan_free(m);
    rip_problem_free(&p);
}

Test(milp, alias_chain_peak_is_the_max)
{
    /* t0 -> t1 -> t2, each op may write its output over its dying input
    ** (ALIAS).  Sizes 8, 6, 8: dual buffering needs 8 + 6 = 14 at step 1;
    ** with both aliases every step holds one block, peak = max = 8, and the
    ** three tensors share one offset. */
    hand_tensor t[] = {{0, 1, 8}, {1, 2, 6}, {2, 3, 8}};
    rip_problem p;
    hand_problem(&p, t, 3, 1);
    add_cand(&p, 0, 1, 1, RIP_INPLACE_ALIAS, 0);
    add_cand(&p, 1, 2, 2, RIP_INPLACE_ALIAS, 0);
    rip_plan *m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 8);
    cr_expect(m->optimal);
    cr_expect(m->in_place[0] && m->in_place[1]);
    cr_expect(m->offset[0] == m->offset[1] && m->offset[1] == m->offset[2]);
    /* 2 pairs meet (0-1, 1-2): 2 ordering binaries + 2 d_i */
    cr_expect_eq(m->n_binaries, 4);
    rip_plan_free(m);

    /* exact handles raw buffers only and says so */
    const rip_strategy *ex = rip_strategy_by_name("exact");
    rip_plan *e = rip_plan_new(&p, "exact");
    char err[RIP_ERR_LEN] = "";
    rip_plan_opts o = {0};
    cr_expect_eq(rip_strategy_run(ex, &p, &o, e, err), RIP_S_DATA);
    cr_expect(strstr(err, "candidates") != NULL, "%s", err);
    rip_plan_free(e);
    rip_problem_free(&p);
}

Test(milp, gap_candidate_peak_is_max_of_out_and_gap_plus_in)
{
    /* in t0 [0,1] 12 B, out t1 [1,2] 10 B, GAP 4 B (align 4): the output
    ** goes at least 4 B below the input, so the pair needs
    ** max(N_out, gap + N_in) = max(10, 16) = 16 B instead of 22. */
    hand_tensor t[] = {{0, 1, 12}, {1, 2, 10}};
    rip_problem p;
    hand_problem(&p, t, 2, 4);
    add_cand(&p, 0, 1, 1, RIP_INPLACE_GAP, 4);
    rip_plan *m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 16);
    cr_expect(m->optimal);
    cr_expect(m->in_place[0]);
    cr_expect_not(m->shift[0], "no shift: placing the output low costs nothing here");
    cr_expect_geq(m->offset[0] - m->offset[1], 4);
    rip_plan_free(m);
    rip_problem_free(&p);

    /* a larger output: max(20, 4 + 12) = 20 */
    hand_tensor u[] = {{0, 1, 12}, {1, 2, 20}};
    hand_problem(&p, u, 2, 4);
    add_cand(&p, 0, 1, 1, RIP_INPLACE_GAP, 4);
    m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 20);
    cr_expect(m->in_place[0] && !m->shift[0]);
    rip_plan_free(m);
    rip_problem_free(&p);

    /* a candidate whose input is still needed after the op is unusable:
    ** t0 lives to step 2, so the pair is stacked, 12 + 10 = 22 */
    hand_tensor v[] = {{0, 2, 12}, {1, 2, 10}};
    hand_problem(&p, v, 2, 4);
    add_cand(&p, 0, 1, 1, RIP_INPLACE_GAP, 4);
    m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 22);
    cr_expect_not(m->in_place[0]);
    rip_plan_free(m);
    rip_problem_free(&p);
}

Test(milp, shift_favourable_case)
{
    /* in t0 [0,1] 3, out t1 [1,2] 3, GAP 1 at op 1 (pair union 4);
    ** t2 [0,2] 1 (alive throughout), t3 [2,3] 3, t4 [0,0] 3, t5 [1,1] 2.
    ** Steps 0, 1, 2 each hold exactly 7 (3+1+3, 4+1+2, 3+1+3): the lower
    ** bound, and at 7 each of those steps tiles [0, 7).  t2 is at the same
    ** offset in all three, in {0, 3, 6}; step 0's tiling puts t0 and step 2's
    ** puts t1 at the same two offsets (t2 = 0: {1, 4}; 3: {0, 4}; 6: {0, 3}).
    ** Without a shift the output sits 1 below its input, x1 = x0 - 1, which
    ** none of the three cases allows; dual buffering needs 9 at step 1.  So
    ** 7 needs the shift, with t0 = t1.  Two placements attain it, mirror
    ** images: t2 at 0, t0 = t1 at 1, the shifted input at [2, 5) during op 1
    ** (block [1, 5)), t5 at [5, 7), t4 and t3 at [4, 7); or t2 at 6, t0 = t1
    ** at 0 (block [0, 4)), t5 at [4, 6), t4 and t3 at [3, 6).  CBC may return
    ** either (which one depends on memory contents), so the test pins what
    ** both share.  The optimum is peak 7 with r = 1 (objective 7 + 1e-4 x 3). */
    hand_tensor t[] = {{0, 1, 3}, {1, 2, 3}, {0, 2, 1}, {2, 3, 3}, {0, 0, 3}, {1, 1, 2}};
    rip_problem p;
    hand_problem(&p, t, 6, 1);
    add_cand(&p, 0, 1, 1, RIP_INPLACE_GAP, 1);
    cr_assert_eq(rip_problem_lower_bound(&p), 7);
    rip_plan *m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 7);
    cr_expect(m->optimal);
    cr_expect(m->in_place[0] && m->shift[0], "the optimum needs the runtime shift");
    cr_expect_eq(m->offset[0], m->offset[1]);
    cr_expect(m->offset[2] == 0 || m->offset[2] == 6, "t2 at %lld", (long long)m->offset[2]);
    cr_expect_eq(m->offset[0], m->offset[2] == 0 ? 1 : 0);
    rip_plan_free(m);
    rip_problem_free(&p);
}

/* ---- MiniMalloc ---- */

Test(milp, minimalloc_input12)
{
    /* README: capacity 12 holds all five buffers (b5 spans everything, b3+b4
    ** and b1+b2 stack on it); 12 is also the live-bytes bound. */
    rip_problem p;
    load_intervals("tests/data/planner/minimalloc_input12.csv", false, &p);
    cr_assert_eq(p.n, 5);
    rip_plan *m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 12);
    cr_expect(m->optimal);
    cr_expect_lt(m->n_binaries, 3 * 5 * 4 / 2, "overlapping pairs only");
    cr_expect_eq(m->n_binaries, (int64_t)meeting_pairs(&p));
    rip_plan *e = run(&p, "exact", NULL, false);
    cr_expect_eq(e->peak, 12);
    cr_expect(e->optimal);
    rip_plan_opts cap = {.capacity = 12};
    rip_plan *c = run(&p, "exact", &cap, false);
    cr_expect_leq(c->peak, 12);
    rip_plan_free(m);
    rip_plan_free(e);
    rip_plan_free(c);
    rip_problem_free(&p);
}

Test(milp, exact_asplos2024_sets, .timeout = 600)
{
    /* ./minimalloc --capacity=1048576 on each set; A, B and E have lower
    ** bound 1,048,576 (so the plan is optimal), C and D are feasible at
    ** capacity (lower bounds 1,039,360 and 986,112). */
    static const struct {
        const char *set;
        int64_t lb;
    } sets[] = {{"A", 1048576}, {"B", 1048576}, {"C", 1039360}, {"D", 986112}, {"E", 1048576}};
    for (size_t i = 0; i < 5; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "tests/data/planner/minimalloc_asplos2024_%s.csv", sets[i].set);
        rip_problem p;
        load_intervals(rel, false, &p);
        cr_expect_eq(rip_problem_lower_bound(&p), sets[i].lb, "%s", sets[i].set);
        rip_plan_opts o = {.capacity = 1048576, .time_limit = 120};
        rip_plan *e = run(&p, "exact", &o, false);
        cr_expect_leq(e->peak, 1048576, "set %s: %lld", sets[i].set, (long long)e->peak);
        cr_expect_geq(e->peak, sets[i].lb);
        if (sets[i].lb == 1048576)
            cr_expect(e->optimal, "set %s", sets[i].set);
        cr_log_info("exact set %s: peak %lld in %.3f s", sets[i].set, (long long)e->peak, e->seconds);
        rip_plan_free(e);
        rip_problem_free(&p);
    }
}

Test(milp, exact_minimizes)
{
    /* A without a capacity: the search starts at the bound, which A
    ** reaches; TVM's deep_speech (184 buffers) reaches its bound too. */
    rip_problem p;
    load_intervals("tests/data/planner/minimalloc_asplos2024_A.csv", false, &p);
    rip_plan_opts o = {.time_limit = 60};
    rip_plan *e = run(&p, "exact", &o, false);
    cr_expect_eq(e->peak, 1048576);
    cr_expect(e->optimal);
    rip_plan_free(e);
    rip_problem_free(&p);

    load_intervals("tests/data/planner/tvm_usmp_deep_speech.csv", true, &p);
    e = run(&p, "exact", &o, false);
    cr_expect_eq(e->peak, 100352);
    cr_expect(e->optimal);
    rip_plan_free(e);
    rip_problem_free(&p);

    /* TFLite Micro's medium case: greedy gives 90, the bound is 80 and 80
    ** is reachable; both exact strategies find it */
    load_intervals("tests/data/planner/tflm_greedy_medium.csv", true, &p);
    e = run(&p, "exact", &o, false);
    rip_plan *m = run(&p, "milp", &o, false);
    cr_expect_eq(e->peak, 80);
    cr_expect_eq(m->peak, 80);
    cr_expect(e->optimal && m->optimal);
    rip_plan_free(e);
    rip_plan_free(m);
    rip_problem_free(&p);
}

Test(milp, exact_capacity_below_the_optimum)
{
    /* two buffers alive together need 16; a capacity of 12 is proven
    ** impossible, and the best plan (16) is still returned */
    hand_tensor t[] = {{0, 1, 10}, {1, 2, 6}};
    rip_problem p;
    hand_problem(&p, t, 2, 1);
    const rip_strategy *ex = rip_strategy_by_name("exact");
    rip_plan *e = rip_plan_new(&p, "exact");
    rip_plan_opts o = {.capacity = 12};
    char err[RIP_ERR_LEN] = "";
    cr_expect_eq(rip_strategy_run(ex, &p, &o, e, err), RIP_S_FAILED);
    cr_expect(strstr(err, "no plan within capacity 12") != NULL, "%s", err);
    cr_expect_eq(e->peak, 16);
    cr_expect_eq(rip_plan_check(&p, e, false, err), 0, "%s", err);
    rip_plan_free(e);
    rip_problem_free(&p);
}

/* ---- issue 13: exact against brute force and on the later sets F..K ---- */

/* Lowest offset for tensor b over 0 and the tops of the placed tensors
** that meets none of them in time and space (first fit). */
static int64_t bf_first_fit(const rip_problem *p, const int64_t *x, const bool *done, int b)
{
    int64_t best = -1;
    for (size_t c = 0; c <= p->n; c++) {
        int64_t cand = c == p->n ? 0 : (done[c] ? x[c] + p->t[c].size : -1);
        if (cand < 0 || (best >= 0 && cand >= best))
            continue;
        bool ok = true;
        for (size_t d = 0; d < p->n && ok; d++)
            if (done[d] && rip_tensors_meet(&p->t[b], &p->t[d]) && cand < x[d] + p->t[d].size &&
                x[d] < cand + p->t[b].size)
                ok = false;
        if (ok)
            best = cand;
    }
    return best;
}

/* The optimum by brute force: first fit over every order.  Some order
** reaches it (sort an optimal plan by offset and drop each tensor as low
** as it goes: nothing rises), so the minimum over orders is the optimum.
** align must be 1. */
static int64_t bf_optimum(const rip_problem *p, int *perm, size_t k, int64_t *x, bool *done, int64_t peak,
                          int64_t best)
{
    if (peak >= best)
        return best;
    if (k == p->n)
        return peak;
    for (size_t i = k; i < p->n; i++) {
        int t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
        x[t] = bf_first_fit(p, x, done, t);
        done[t] = true;
        int64_t top = x[t] + p->t[t].size;
        best = bf_optimum(p, perm, k + 1, x, done, top > peak ? top : peak, best);
        done[t] = false;
        perm[k] = perm[i];
        perm[i] = t;
    }
    return best;
}

/*
** A random problem of 3 to 7 buffers over 8 steps from the LCG state *st,
** sizes drawn from sizes[7], into *p; returns its brute-force optimum.
*/
static int64_t random_problem(uint64_t *st, const int64_t sizes[7], rip_problem *p)
{
    hand_tensor t[7];
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    size_t n = 3 + (size_t)((*st >> 33) % 5);
    for (size_t i = 0; i < n; i++) {
        *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t a = (int64_t)((*st >> 33) % 8), b = (int64_t)((*st >> 40) % 8);
        t[i] = (hand_tensor){a < b ? a : b, a < b ? b : a, sizes[(*st >> 50) % 7]};
    }
    hand_problem(p, t, n, 1);
    int perm[7];
    int64_t x[7];
    bool done[7] = {false};
    for (size_t i = 0; i < n; i++)
        perm[i] = (int)i;
    return bf_optimum(p, perm, 0, x, done, 0, INT64_MAX);
}

Test(milp, exact_agrees_with_brute_force_on_small_random_problems)
{
    /* 200 problems of 3 to 7 buffers over 8 steps (a fixed LCG): exact
    ** minimizing reaches the brute-force optimum and says it is optimal;
    ** at that capacity it finds a plan, one byte below it proves none. */
    uint64_t st = 12345;
    for (int it = 0; it < 200; it++) {
        static const int64_t sizes[7] = {1, 2, 3, 4, 5, 6, 8};
        rip_problem p;
        int64_t opt = random_problem(&st, sizes, &p);
        rip_plan *e = run(&p, "exact", NULL, false);
        cr_expect_eq(e->peak, opt, "problem %d: exact %lld, brute force %lld", it, (long long)e->peak,
                     (long long)opt);
        cr_expect(e->optimal, "problem %d", it);
        rip_plan_opts cap = {.capacity = opt};
        rip_plan *c = run(&p, "exact", &cap, false);
        cr_expect_leq(c->peak, opt, "problem %d", it);
        if (opt > 1) {
            const rip_strategy *ex = rip_strategy_by_name("exact");
            rip_plan *f = rip_plan_new(&p, "exact");
            rip_plan_opts below = {.capacity = opt - 1};
            char err[RIP_ERR_LEN] = "";
            cr_expect_eq(rip_strategy_run(ex, &p, &below, f, err), RIP_S_FAILED, "problem %d", it);
            cr_expect(strstr(err, "no plan within capacity") != NULL, "problem %d: %s", it, err);
            cr_expect_eq(rip_plan_check(&p, f, false, err), 0, "%s", err);
            rip_plan_free(f);
        }
        rip_plan_free(e);
        rip_plan_free(c);
        rip_problem_free(&p);
    }
}

Test(milp, exact_minimizes_in_steps_of_the_size_gcd)
{
    /* Sizes that are multiples of 4 (gcd 4 or more): the minimizing probes
    ** step by that gcd, and the minimum and its proof must still be the
    ** brute-force optimum's (100 problems of 3 to 7 buffers, a fixed LCG;
    ** a different one from the test above). */
    uint64_t st = 987654321;
    for (int it = 0; it < 100; it++) {
        static const int64_t sizes[7] = {4, 8, 12, 20, 24, 32, 36};
        rip_problem p;
        int64_t opt = random_problem(&st, sizes, &p);
        rip_plan *e = run(&p, "exact", NULL, false);
        cr_expect_eq(e->peak, opt, "problem %d: exact %lld, brute force %lld", it, (long long)e->peak,
                     (long long)opt);
        cr_expect(e->optimal, "problem %d", it);
        rip_plan_free(e);
        rip_problem_free(&p);
    }
}

Test(milp, exact_decides_the_later_challenging_sets, .timeout = 600)
{
    /* MiniMalloc places F..K within 1,048,576 (its --capacity run); F, G, H,
    ** I and K have that as their lower bound, J has 989,184.  Each takes
    ** under a second here, I about 2 s (the other minimize runs are in
    ** bench_exact).  run() checks every plan. */
    static const struct {
        const char *set;
        int64_t lb;
    } sets[] = {{"F", 1048576}, {"G", 1048576}, {"H", 1048576}, {"I", 1048576}, {"J", 989184}, {"K", 1048576}};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "tests/data/planner/minimalloc_asplos2024_%s.csv", sets[i].set);
        rip_problem p;
        load_intervals(rel, false, &p);
        cr_expect_eq(rip_problem_lower_bound(&p), sets[i].lb, "%s", sets[i].set);
        rip_plan_opts o = {.capacity = 1048576, .time_limit = 60};
        rip_plan *e = run(&p, "exact", &o, false);
        cr_expect_leq(e->peak, 1048576, "set %s: %lld", sets[i].set, (long long)e->peak);
        cr_expect_geq(e->peak, sets[i].lb);
        cr_expect_eq(e->optimal, sets[i].lb == 1048576, "set %s", sets[i].set);
        cr_log_info("exact set %s: peak %lld in %.3f s", sets[i].set, (long long)e->peak, e->seconds);
        rip_plan_free(e);
        rip_problem_free(&p);
    }
    /* minimizing F and I reaches (and so proves) their bound: I's plan
    ** needs the search at the bound to finish (about 3 s here), where the
    ** cut counts of the section-branching runs steer it (issue 13) */
    static const char *const minimize[] = {"F", "I"};
    for (size_t i = 0; i < sizeof minimize / sizeof minimize[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "tests/data/planner/minimalloc_asplos2024_%s.csv", minimize[i]);
        rip_problem p;
        load_intervals(rel, false, &p);
        rip_plan_opts o = {.time_limit = 60};
        rip_plan *e = run(&p, "exact", &o, false);
        cr_expect_eq(e->peak, 1048576, "set %s: %lld", minimize[i], (long long)e->peak);
        cr_expect(e->optimal, "set %s", minimize[i]);
        cr_log_info("exact minimizes set %s: peak %lld in %.3f s", minimize[i], (long long)e->peak, e->seconds);
        rip_plan_free(e);
        rip_problem_free(&p);
    }
}

Test(milp, both_exact_strategies_agree_on_the_small_vectors)
{
    static const struct {
        const char *file;
        bool inclusive;
        int64_t opt;
    } v[] = {
        {"tflm_greedy_basics.csv", true, 20},  {"tflm_overlap_case.csv", true, 120},
        {"tflm_person_detection.csv", true, 64512}, {"tvm_usmp_alloc_max.csv", true, 67600},
        {"tvm_usmp_simple.csv", true, 216096}, {"tvm_usmp_five.csv", true, 176923},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "tests/data/planner/%s", v[i].file);
        rip_problem p;
        load_intervals(rel, v[i].inclusive, &p);
        rip_plan_opts o = {.time_limit = 60, .seed = 1};
        rip_plan *m = run(&p, "milp", &o, false);
        rip_plan *e = run(&p, "exact", &o, false);
        cr_expect_eq(m->peak, v[i].opt, "%s: milp %lld", v[i].file, (long long)m->peak);
        cr_expect_eq(e->peak, v[i].opt, "%s: exact %lld", v[i].file, (long long)e->peak);
        cr_expect(m->optimal && e->optimal, "%s", v[i].file);
        rip_plan_free(m);
        rip_plan_free(e);
        rip_problem_free(&p);
    }
}

Test(milp, time_limit_is_respected)
{
    /* 14 buffers whose optimum (47) lies above the bound (44): exact proves
    ** 47 at once; CBC needs tens of seconds to close the big-M gap, so with
    ** 2 s it stops early with a valid plan no better than the optimum. */
    hand_tensor t[] = {{4, 7, 6}, {5, 5, 9}, {0, 2, 9}, {2, 5, 9}, {4, 7, 7}, {1, 1, 6}, {4, 6, 1},
                       {2, 2, 1}, {4, 6, 6}, {1, 4, 7}, {5, 7, 2}, {0, 0, 1}, {5, 7, 4}, {2, 2, 5}};
    rip_problem p;
    hand_problem(&p, t, 14, 2);
    cr_assert_eq(rip_problem_lower_bound(&p), 44);
    rip_plan *e = run(&p, "exact", NULL, false);
    cr_expect_eq(e->peak, 47);
    cr_expect(e->optimal);
    rip_plan_opts o = {.time_limit = 2};
    rip_plan *m = run(&p, "milp", &o, false);
    cr_expect_geq(m->peak, 47);
    cr_expect_lt(m->seconds, 5.0, "%.2f s for a 2 s limit", m->seconds);
    rip_plan_free(e);
    rip_plan_free(m);
    rip_problem_free(&p);
}

/*
** Issue 8, item 10: --time-limit bounds the whole call (model building,
** start heuristics, neighbourhood search, CBC), not just CBC's branch and
** bound.  Before, `--time-limit 2` ran 50 s on 300 intervals and 108 s on
** one conv feeding 300 relus: CBC's first LP of 45,000 pair binaries does
** not look at the clock.  The bound is measured here, on the wall clock
** around the whole command (process start, loading, checking and printing
** included), with a generous margin: a bound, not a benchmark.
*/
static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run `ripsim plan ARGS... --strategy milp --time-limit 1` on path and
** require a checked plan within 5 s of wall clock. */
static void plan_within_bound(const char *what, const char *a1, const char *a2)
{
    double t = wall_now();
    run_result *r = a2 ? RUN("plan", a1, a2, "--strategy", "milp", "--time-limit", "1")
                       : RUN("plan", a1, "--strategy", "milp", "--time-limit", "1");
    double took = wall_now() - t;
    cr_expect_eq(r->status, 0, "%s: status %d: %s", what, r->status, r->err);
    cr_expect(strstr(r->out, "check        passed") != NULL, "%s: no checked plan: %s", what, r->out);
    cr_expect_eq(count_lines(r->err), 0, "%s: %s", what, r->err);
    cr_expect_lt(took, 5.0, "%s: %.1f s of wall clock for --time-limit 1", what, took);
    fprintf(stderr, "milp --time-limit 1, %s: %.2f s wall\n", what, took);
}

Test(milp, time_limit_bounds_the_whole_call)
{
    char dir[] = "/tmp/ripsim-milp-limit-XXXXXX", ivs[128], graph[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(ivs, sizeof ivs, "%s/intervals.csv", dir);
    snprintf(graph, sizeof graph, "%s/relus.csv", dir);
    /* 300 intervals: start in 0..999, length 1..200, size 1..100000, from
    ** a fixed LCG (so the file is the same on every run) */
    FILE *f = fopen(ivs, "w");
    cr_assert_not_null(f);
    fprintf(f, "id,start,end,size\n");
    uint64_t x = 7;
    for (int i = 0; i < 300; i++) {
        uint64_t v[3];
        for (int k = 0; k < 3; k++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            v[k] = x >> 33;
        }
        long long start = (long long)(v[0] % 1000), len = 1 + (long long)(v[1] % 200);
        fprintf(f, "%d,%lld,%lld,%lld\n", i, start, start + len, 1 + (long long)(v[2] % 100000));
    }
    cr_assert_eq(fclose(f), 0);
    /* one 3x3 conv feeding 300 relus, every relu output a graph output: all
    ** 301 tensors alive together, 45,150 pairs */
    f = fopen(graph, "w");
    cr_assert_not_null(f);
    fprintf(f, "op_id,op,inputs,h_in,w_in,c_in,h_out,w_out,c_out,k_h,k_w,s_h,s_w,p_top,p_left,p_bottom,p_right,"
               "d_h,d_w,dtype_bytes\n0,conv2d,-1,16,16,8,16,16,8,3,3,1,1,1,1,1,1,1,1,1\n");
    for (int i = 1; i <= 300; i++)
        fprintf(f, "%d,relu,0,16,16,8,16,16,8,1,1,1,1,0,0,0,0,1,1,1\n", i);
    cr_assert_eq(fclose(f), 0);

    plan_within_bound("300 intervals", "--intervals", ivs);
    plan_within_bound("a conv feeding 300 relus", graph, NULL);
    remove(ivs);
    remove(graph);
    rmdir(dir);
}

/* 300 tensors from a fixed LCG (seed 11): first step in 0..99, lifetime
** up to 60 steps, size 1..5000 bytes, alignment 1; too many alive
** together for CBC to prove anything within a second. */
static void random_300(rip_problem *p)
{
    enum { N = 300 };
    hand_tensor t[N];
    uint64_t x = 11;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        int64_t first = (int64_t)((x >> 33) % 100);
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        t[i] = (hand_tensor){first, first + (int64_t)((x >> 33) % 60), 1 + (int64_t)((x >> 40) % 5000)};
    }
    hand_problem(p, t, N, 1);
}

/* The same bound through the library, with the plan checked: a result
** found within the limit comes back valid, and is called optimal only
** when it meets the lower bound (CBC cannot have proved anything here). */
Test(milp, time_limit_returns_a_checked_plan)
{
    rip_problem p;
    random_300(&p);
    rip_plan_opts o = {.time_limit = 1};
    double t0 = wall_now();
    rip_plan *m = run(&p, "milp", &o, false);
    double took = wall_now() - t0;
    cr_expect_lt(took, 5.0, "%.1f s of wall clock for a 1 s limit", took);
    char err[RIP_ERR_LEN];
    cr_expect_eq(rip_plan_check(&p, m, false, err), 0, "%s", err);
    cr_expect_geq(m->peak, rip_problem_lower_bound(&p));
    if (m->optimal)
        cr_expect_eq(m->peak, rip_problem_lower_bound(&p), "proven optimal above the bound in 1 s");
    rip_plan_free(m);
    rip_problem_free(&p);
}

/* ---- model graphs ---- */

typedef struct t3_row {
    char file[64];
    long long base, rip;
} t3_row;

static int read_table3(t3_row *r, int max)
{
    FILE *f = fopen(data_path("firmware/models/mcunet/table3_reference.csv"), "r");
    cr_assert_not_null(f);
    char line[1024];
    int n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (n < max && fgets(line, sizeof line, f)) {
        /* model,file,graph_source,input_res,buffer,base,rip,... */
        char *fld[8];
        int k = 0;
        for (char *s = strtok(line, ","); s && k < 8; s = strtok(NULL, ","))
            fld[k++] = s;
        cr_assert_geq(k, 7);
        snprintf(r[n].file, sizeof r[n].file, "%s", fld[1]);
        r[n].base = atoll(fld[5]);
        r[n].rip = atoll(fld[6]);
        n++;
    }
    fclose(f);
    return n;
}

Test(milp, table3_every_mcunet_model)
{
    /* Tab. 3: RiP (gathered taps, in-place depthwise) and Base (--no-rip:
    ** in-place depthwise only), each solved to proven optimality */
    t3_row r[16];
    int n = read_table3(r, 16);
    cr_assert_eq(n, 11);
    for (int i = 0; i < n; i++) {
        char rel[1536];
        snprintf(rel, sizeof rel, "firmware/models/mcunet/%s", r[i].file);
        for (int rip = 1; rip >= 0; rip--) {
            rip_problem p;
            load_graph(rel, rip, true, &p);
            rip_plan_opts o = {.time_limit = 60, .seed = 1};
            rip_plan *m = run(&p, "milp", &o, true);
            long long want = rip ? r[i].rip : r[i].base;
            cr_expect_eq(m->peak, want, "%s %s: milp %lld, Tab. 3 %lld", r[i].file, rip ? "RiP" : "Base",
                         (long long)m->peak, want);
            cr_expect(m->optimal, "%s", r[i].file);
            cr_expect_lt(m->seconds, 10.0, "%s: %.2f s", r[i].file, m->seconds);
            cr_expect_lt(m->n_binaries, (int64_t)(3 * p.n * (p.n - 1) / 2));
            rip_plan_free(m);
            rip_problem_free(&p);
        }
    }
}

Test(milp, table7_mobilenet_dual_and_rip)
{
    /* Tab. 7, MobileNet: dual buffer (no in-place candidates at all)
    ** 1,176.0 KB = 1,204,224 B, RiP 784.0 KB = 802,816 B.  The paper's
    ** program has 1,361 variables (3 n(n-1)/2 + 2m, n = 30, m = 28); ours
    ** gives binaries to overlapping pairs only. */
    rip_problem p;
    load_graph("firmware/models/keras/graphs/MobileNet.csv", false, false, &p);
    cr_assert_eq(p.n_cand, 0);
    rip_plan *d = run(&p, "milp", NULL, true);
    cr_expect_eq(d->peak, 1204224);
    cr_expect(d->optimal);
    cr_expect_eq(d->n_binaries, (int64_t)meeting_pairs(&p));
    rip_plan *e = run(&p, "exact", NULL, true);
    cr_expect_eq(e->peak, 1204224, "exact agrees on the dual-buffer program");
    rip_plan_free(d);
    rip_plan_free(e);
    rip_problem_free(&p);

    load_graph("firmware/models/keras/graphs/MobileNet.csv", true, true, &p);
    cr_assert_eq(p.n, 30);
    cr_assert_eq(p.n_cand, 28);
    rip_plan *r = run(&p, "milp", NULL, true);
    cr_expect_eq(r->peak, 802816);
    cr_expect(r->optimal);
    cr_expect_lt(r->n_vars, 1361);
    cr_expect_leq(r->n_binaries, (int64_t)(meeting_pairs(&p) + 2 * p.n_cand));
    for (size_t k = 0; k < p.n_cand; k++)
        cr_expect_not(r->shift[k], "no move on MobileNet (Tab. 7 Shift: -)");
    rip_plan_free(r);
    rip_problem_free(&p);
}

Test(milp, table7_vgg16_needs_one_shift)
{
    /* Tab. 7: VGG-16's RiP peak 3,150.1 KB = 3,225,664 B (conv1_2,
    ** W* = N_out + 14,400) is reached with exactly one runtime shift */
    rip_problem p;
    load_graph("firmware/models/keras/graphs/VGG16.csv", true, true, &p);
    rip_plan *r = run(&p, "milp", NULL, true);
    cr_expect_eq(r->peak, 3225664);
    cr_expect(r->optimal);
    int shifts = 0;
    for (size_t k = 0; k < p.n_cand; k++)
        shifts += r->shift[k];
    cr_expect_eq(shifts, 1);
    rip_plan_free(r);
    rip_problem_free(&p);
}

/* ---- reproducible runs (issue 22 item 5): budgets, not the clock ---- */

/* A reproducible run's plan is a function of the problem alone: with a
** generous safety net and with none, the same offsets, in-place set and
** shifts, on graphs whose start misses the bound (so the neighbourhood
** search and CBC both run: VGG-16 needs three windows and a shift,
** EfficientNetV2-B1 a window from the stem). */
Test(milp, reproducible_plan_does_not_depend_on_the_time_limit)
{
    static const char *const graphs[] = {"firmware/models/keras/graphs/VGG16.csv",
                                         "firmware/models/keras/graphs/EfficientNetV2B1.csv"};
    for (size_t g = 0; g < sizeof graphs / sizeof graphs[0]; g++) {
        rip_problem p;
        load_graph(graphs[g], true, true, &p);
        rip_plan_opts a = {.seed = 1, .reproducible = true}, b = {.seed = 1, .time_limit = 150, .reproducible = true};
        rip_plan *pa = run(&p, "milp", &a, false), *pb = run(&p, "milp", &b, false);
        cr_expect(pa->optimal && pb->optimal, "%s: both proven", graphs[g]);
        cr_expect_eq(pa->peak, pb->peak, "%s", graphs[g]);
        cr_expect_eq(memcmp(pa->offset, pb->offset, p.n * sizeof *pa->offset), 0, "%s: offsets differ", graphs[g]);
        for (size_t k = 0; k < p.n_cand; k++) {
            cr_expect_eq(pa->in_place[k], pb->in_place[k], "%s: candidate %zu", graphs[g], k);
            cr_expect_eq(pa->shift[k], pb->shift[k], "%s: candidate %zu", graphs[g], k);
        }
        rip_plan_free(pa);
        rip_plan_free(pb);
        rip_problem_free(&p);
    }
}

/* The safety net of a reproducible run is a failure, never a plan the
** clock chose: 300 random tensors in 2 ms cannot be planned, and the
** call says that the time limit ran out. */
Test(milp, reproducible_run_stopped_by_the_clock_fails)
{
    rip_problem p;
    random_300(&p);
    rip_plan_opts o = {.time_limit = 0.002, .reproducible = true};
    const rip_strategy *s = rip_strategy_by_name("milp");
    rip_plan *plan = rip_plan_new(&p, "milp");
    cr_assert(s && plan);
    char err[RIP_ERR_LEN] = "";
    rip_status rc = rip_strategy_run(s, &p, &o, plan, err);
    cr_expect_eq(rc, RIP_S_FAILED, "status %d: %s", rc, err);
    cr_expect_not_null(strstr(err, "time limit"), "%s", err);
    rip_plan_free(plan);
    rip_problem_free(&p);
}

/* ---- the MILP module: loaded only when a plan needs it (issue 11) ---- */

/* Is a library whose path contains name mapped in this process? */
static bool mapped(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    cr_assert_not_null(f);
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

Test(milp, ripsim_does_not_link_cbc)
{
    /* the dynamic loader's own list of what ripsim needs at startup
    ** (LD_TRACE_LOADED_OBJECTS: what ldd shows): none of the solver's */
    run_result *r = RUN_ENV("LD_TRACE_LOADED_OBJECTS=1", "--version");
    cr_assert_eq(r->status, 0, "%s", r->err);
    cr_assert(strstr(r->out, "libc.so"), "no loader listing: %s", r->out);
    const char *solver[] = {"libCbc", "libClp", "libCoinUtils", "libOsi", "liblapack", "libgfortran", "libstdc++"};
    /* (a sanitizer build's libasan brings libstdc++ itself) */
    size_t n = sizeof solver / sizeof solver[0] - (strstr(r->out, "libasan") != NULL);
    for (size_t i = 0; i < n; i++)
        cr_expect_null(strstr(r->out, solver[i]), "ripsim links %s:\n%s", solver[i], r->out);
}

Test(milp, cbc_is_loaded_only_by_a_milp_plan)
{
    /* in this process: a tinyengine plan maps no CBC, a milp plan does */
    hand_tensor t[] = {{0, 1, 10}, {1, 2, 6}};
    rip_problem p;
    hand_problem(&p, t, 2, 1);
    rip_plan *g = run(&p, "tinyengine", NULL, false);
    cr_expect_eq(g->peak, 16);
    cr_expect_not(mapped("libCbc"), "CBC mapped before any milp plan");
    rip_plan *m = run(&p, "milp", NULL, false);
    cr_expect_eq(m->peak, 16);
    cr_expect(mapped("ripsim-milp.so"));
    cr_expect(mapped("libCbc"));
    rip_plan_free(g);
    rip_plan_free(m);
    rip_problem_free(&p);
}

/* One line on stderr, nothing on stdout, exit 69 (a needed part missing). */
static void expect_unavailable(const run_result *r, const char *needle)
{
    cr_expect_eq(r->status, RIP_EX_UNAVAILABLE, "status %d: %s", r->status, r->err);
    cr_expect_eq(r->out[0], '\0', "%s", r->out);
    cr_expect_eq(count_lines(r->err), 1, "%s", r->err);
    cr_expect(strncmp(r->err, "ripsim plan: strategy milp: ", 28) == 0, "%s", r->err);
    cr_expect(strstr(r->err, needle), "no '%s' in: %s", needle, r->err);
}

Test(milp, missing_module_is_one_clear_line)
{
    const char *g = data_path("firmware/models/mcunet/mcunet-in3.csv");
    run_result *r = RUN_ENV("RIPSIM_MILP_MODULE=/nonexistent/ripsim-milp.so", "plan", g, "--strategy", "milp");
    expect_unavailable(r, "/nonexistent/ripsim-milp.so");
    cr_expect(strstr(r->err, "RIPSIM_MILP_MODULE"), "%s", r->err);
    /* the other strategies do not need it */
    r = RUN_ENV("RIPSIM_MILP_MODULE=/nonexistent/ripsim-milp.so", "plan", g, "--strategy", "tinyengine", "--json");
    cr_expect_eq(r->status, 0, "%s", r->err);
}

Test(milp, foreign_library_is_refused)
{
    /* a shared library that is not the module (libm: no rip_milp_module) */
    const char *g = data_path("firmware/models/mcunet/mcunet-in3.csv");
    run_result *r = RUN_ENV("RIPSIM_MILP_MODULE=libm.so.6", "plan", g, "--strategy", "milp");
    expect_unavailable(r, "no rip_milp_module symbol");
}

/* ---- a failed solve is an error, a timeout is not (issue 19, item 3) ----
**
** The solver runs in a child process (milp.c, mp_solve).  A child that
** dies (a signal, a non-zero exit), sends a truncated answer or cannot be
** started is an error: exit 71 (70 for a malformed answer), one line on
** stderr, nothing on stdout.  Only a child stopped at the deadline is a
** timeout, whose result is the best plan so far, "not proven".  Before,
** under `ulimit -v 30000`, CBC's operator new threw std::bad_alloc in every
** child (SIGABRT), each taken for a timeout: exit 0 with peak 216,832 "not
** proven" where the optimum is 185,856; without --time-limit it threw in
** ripsim itself and aborted (134). */

/* The "peak" line of a text plan, commas dropped; -1 if there is none. */
static long long text_peak(const char *out)
{
    const char *s = strstr(out, "\npeak ");
    s = strncmp(out, "peak ", 5) == 0 ? out : s ? s + 1 : NULL;
    if (!s)
        return -1;
    long long v = 0;
    for (s += 5; *s == ' '; s++)
        ;
    for (; (*s >= '0' && *s <= '9') || *s == ','; s++)
        if (*s != ',')
            v = 10 * v + (*s - '0');
    return v;
}

/* Tab. 3's RiP peak of file (table3_reference.csv). */
static long long table3_rip(const char *file)
{
    t3_row r[16];
    int n = read_table3(r, 16);
    for (int i = 0; i < n; i++)
        if (strcmp(r[i].file, file) == 0)
            return r[i].rip;
    cr_assert_fail("%s is not in table3_reference.csv", file);
    return -1;
}

/* A failure: status want, nothing on stdout, one line on stderr starting
** with prefix and containing needle (NULL: any). */
static void expect_failure(const run_result *r, int want, const char *prefix, const char *needle, const char *what)
{
    cr_expect_eq(r->status, want, "%s: status %d (want %d): %s", what, r->status, want, r->err);
    cr_expect_eq(r->out[0], '\0', "%s: a failed solve printed a plan:\n%s", what, r->out);
    cr_expect_eq(count_lines(r->err), 1, "%s: %s", what, r->err);
    cr_expect(strncmp(r->err, prefix, strlen(prefix)) == 0, "%s: %s", what, r->err);
    if (needle)
        cr_expect(strstr(r->err, needle) != NULL, "%s: no '%s' in: %s", what, needle, r->err);
}

/* `ripsim plan GRAPH --strategy milp [--time-limit 100]` under an
** address-space limit of kib KiB (0: none). */
static run_result *plan_in3_limited(long kib, bool time_limit, const char *strategy)
{
    const char *g = data_path("firmware/models/mcunet/mcunet-in3.csv");
    const char *args[] = {"plan", g, "--strategy", strategy, time_limit ? "--time-limit" : NULL, "100", NULL};
    return run_env_limited(NULL, args, (rlim_t)kib * 1024);
}

Test(milp, memory_limit_gives_the_optimum_or_exit_71, .timeout = 600)
{
    /* The smallest limit (to 256 KiB) under which ripsim plans mcunet-in3
    ** with tinyengine: the graph loads and ripsim runs there, and the MILP
    ** module with CBC's 22 libraries cannot be mapped.  From it upwards in
    ** 1 MiB steps every limit is tried, with and without --time-limit,
    ** until the milp plan succeeds: on the way the module cannot be mapped,
    ** then CBC runs out of memory (the issue's `ulimit -v 30000`), and each
    ** run must either give Tab. 3's optimum or fail with 71 -- never 134,
    ** never a worse plan passed off as the result of a timeout.  The steps
    ** adapt to the libraries' sizes, so no figure of this machine is
    ** pinned. */
    long lo = 1024, hi = 4L << 20;
    if (plan_in3_limited(hi, false, "tinyengine")->status != 0)
        rip_skip("ripsim does not start under a 4 GiB address-space limit (a sanitizer build reserves "
                 "terabytes of shadow memory): RLIMIT_AS not tested");
    while (hi - lo > 256) {
        long mid = lo + (hi - lo) / 2;
        if (plan_in3_limited(mid, false, "tinyengine")->status == 0)
            hi = mid;
        else
            lo = mid;
    }
    long long want = table3_rip("mcunet-in3.csv");
    int failed = 0, ok = 0, unmapped = 0, solver = 0;
    bool done = false;
    long kib = hi;
    for (; !done && kib <= hi + (256L << 10); kib += 1024) {
        done = true;
        for (int tl = 0; tl < 2; tl++) {
            run_result *r = plan_in3_limited(kib, tl, "milp");
            char what[96];
            snprintf(what, sizeof what, "milp%s under %ld KiB", tl ? " --time-limit 100" : "", kib);
            if (r->status == 0) {
                cr_expect_eq(text_peak(r->out), want, "%s: peak %lld, Tab. 3 %lld:\n%s", what, text_peak(r->out),
                             want, r->out);
                cr_expect(strstr(r->out, "optimal      yes"), "%s:\n%s", what, r->out);
                ok++;
            } else {
                expect_failure(r, RIP_EX_OSERR, "ripsim plan: strategy milp: ", NULL, what);
                unmapped += strstr(r->err, "cannot load the CBC module") != NULL;
                solver += strstr(r->err, "CBC solver process") != NULL;
                failed++;
                done = false;
            }
        }
    }
    fprintf(stderr, "milp under RLIMIT_AS from %ld KiB: %d runs failed with 71 (%d: module not mapped, %d: CBC solver "
            "process), optimum from %ld KiB\n", hi, failed, unmapped, solver, kib - 1024);
    cr_expect(done, "milp still fails 256 MiB above the smallest limit ripsim runs under");
    cr_expect_gt(unmapped, 0, "the module was mapped at the smallest limit ripsim runs under");
}

/* Run args with the MILP module built with test hooks and
** RIPSIM_TEST_MILP=mode (milp.c, RIPSIM_TEST_HOOKS). */
static run_result *run_hooked(const char *mode, const char *const *args)
{
    const char *mod = getenv("RIPSIM_MILP_TESTHOOKS_MODULE");
    cr_assert_not_null(mod, "RIPSIM_MILP_TESTHOOKS_MODULE must name ripsim-milp-testhooks.so");
    char e_mod[1024], e_mode[64];
    snprintf(e_mod, sizeof e_mod, "RIPSIM_MILP_MODULE=%s", mod);
    snprintf(e_mode, sizeof e_mode, "RIPSIM_TEST_MILP=%s", mode);
    const char *env[] = {e_mod, e_mode, NULL};
    return run_env(env, args);
}

/* The hooked solver on mcunet-in3, with and without --time-limit 100:
** the failure want, one line containing needle. */
static void expect_hooked_failure(const char *mode, int want, const char *needle)
{
    const char *g = data_path("firmware/models/mcunet/mcunet-in3.csv");
    for (int tl = 0; tl < 2; tl++) {
        const char *args[] = {"plan", g, "--strategy", "milp", tl ? "--time-limit" : NULL, "100", NULL};
        char what[64];
        snprintf(what, sizeof what, "%s%s", mode, tl ? ", --time-limit 100" : "");
        expect_failure(run_hooked(mode, args), want, "ripsim plan: strategy milp: ", needle, what);
    }
}

Test(milp, a_solver_killed_by_a_signal_is_an_error)
{
    expect_hooked_failure("abort", RIP_EX_OSERR, "the CBC solver process was killed by signal 6 (SIGABRT");
}

Test(milp, a_solver_out_of_memory_is_an_error)
{
    /* the child alone gets a limit just above what it has mapped: CBC's
    ** operator new throws std::bad_alloc, which terminates it (SIGABRT) */
    expect_hooked_failure("oom", RIP_EX_OSERR, "the CBC solver process");
}

Test(milp, a_solver_exiting_non_zero_is_an_error)
{
    expect_hooked_failure("exit", RIP_EX_OSERR, "the CBC solver process exited with status 5");
}

Test(milp, a_truncated_answer_is_an_error)
{
    expect_hooked_failure("truncate", RIP_EX_SOFTWARE, "truncated answer");
}

Test(milp, a_solver_that_cannot_be_started_is_an_error)
{
    expect_hooked_failure("nofork", RIP_EX_OSERR, "cannot start the CBC solver process");
}

Test(milp, a_timeout_returns_the_best_plan_not_proven)
{
    /* The 14 buffers of time_limit_is_respected (align 2: optimum 47
    ** above the bound 44) with a solver that never answers: every child
    ** is stopped at its deadline, and the start plan comes back, checked,
    ** "not proven". */
    static const int b[14][3] = {{4, 7, 6}, {5, 5, 9}, {0, 2, 9}, {2, 5, 9}, {4, 7, 7}, {1, 1, 6}, {4, 6, 1},
                                 {2, 2, 1}, {4, 6, 6}, {1, 4, 7}, {5, 7, 2}, {0, 0, 1}, {5, 7, 4}, {2, 2, 5}};
    char dir[] = "/tmp/ripsim-milp-hang-XXXXXX", csv[128];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(csv, sizeof csv, "%s/buffers.csv", dir);
    FILE *f = fopen(csv, "w");
    cr_assert_not_null(f);
    fprintf(f, "id,start,end,size\n");
    for (int i = 0; i < 14; i++)
        fprintf(f, "b%d,%d,%d,%d\n", i, b[i][0], b[i][1] + 1, b[i][2]);
    cr_assert_eq(fclose(f), 0);
    run_result *e = RUN("plan", "--intervals", csv, "--align", "2", "--strategy", "exact");
    cr_assert_eq(e->status, 0, "%s", e->err);
    long long opt = text_peak(e->out);
    cr_assert(strstr(e->out, "optimal      yes") && strstr(e->out, "lower bound  44 B"), "%s", e->out);
    cr_assert_eq(opt, 47, "%s", e->out);
    double t = wall_now();
    const char *args[] = {"plan", "--intervals", csv, "--align", "2", "--strategy", "milp", "--time-limit", "2", NULL};
    run_result *r = run_hooked("hang", args);
    double took = wall_now() - t;
    cr_expect_eq(r->status, 0, "status %d: %s", r->status, r->err);
    cr_expect_eq(r->err[0], '\0', "%s", r->err);
    cr_expect(strstr(r->out, "optimal      not proven"), "%s", r->out);
    cr_expect(strstr(r->out, "check        passed"), "%s", r->out);
    cr_expect_geq(text_peak(r->out), opt, "%s", r->out);
    cr_expect_gt(took, 1.5, "%.2f s: the solver was not waited for until the deadline", took);
    cr_expect_lt(took, 5.0, "%.2f s for --time-limit 2", took);
    remove(csv);
    rmdir(dir);
}
