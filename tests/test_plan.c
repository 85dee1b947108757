/*
** test_plan.c — the graph-level memory planner (src/plan/, `ripsim plan`).
**
** Expected numbers come from outside the planner: the memory-planning
** lesson's six-tensor example (naive 1,920 KB, planned 1,280 KB = lower
** bound, slots A,C,F / B,E / D), TFLite Micro's and TVM USMP's unit tests
** (tests/data/planner, offsets in expected_offsets.csv), the paper's Tab. 3
** (Base and RiP peaks of the eleven MCUNet models) and Tab. 7 (dual-buffer
** and RiP peaks of 33 keras graphs, as bytes in table7_reference.csv), and
** gaps worked out by hand from the geometry.  Every plan a test makes goes
** through rip_plan_check(); the checker itself is tested on hand-made bad
** plans.  The CLI is run as $RIPSIM_BIN.
** The suite's tests are in this file (the planners against their
** expected numbers, Tab. 3 and Tab. 7, graph classes) and in
** plan_checker.c and plan_gaps.c; their shared helpers in plan_util.h.
*/
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "plan/check_replay.h"
#include "plan/graph.h"
#include "plan/plan.h"
#include "plan_util.h"

/* Shared with the suite's other files (declared in plan_util.h). */
/* ---- helpers ---- */

char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ripsim-plan-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static void cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (tmpdir[0] && system(cmd) != 0)
        cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(plan, .init = make_tmpdir, .fini = cleanup, .timeout = 600);

static int find_tensor(const rip_problem *p, const char *id)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->t[i].id, id) == 0)
            return (int)i;
    cr_assert_fail("no tensor '%s' in %s", id, p->name);
    return -1;
}

static void load_intervals(const char *path, bool inclusive, int64_t align, rip_problem *p)
{
    char err[RIP_ERR_LEN];
    int rc = rip_problem_from_intervals(path, inclusive, align, p, err);
    cr_assert_eq(rc, 0, "%s", err);
}

/* ---- the memory-planning lesson, Sec. 4 ---- */

#define KB 1024LL

/* Inclusive steps as in the lesson's chart: A 1-2, B 2-4, C 3-5, D 4-5,
** E 5-6, F 6. */
static const char lesson_csv[] = "id,start,end,size\n"
                                 "A,1,2,262144\n"
                                 "B,2,4,524288\n"
                                 "C,3,5,524288\n"
                                 "D,4,5,262144\n"
                                 "E,5,6,262144\n"
                                 "F,6,6,131072\n";

Test(plan, lesson_six_tensors)
{
    rip_problem p;
    load_intervals(write_file("lesson.csv", lesson_csv), true, 1, &p);
    cr_assert_eq(p.n, 6);

    /* the floor: B + C + D at step 4 */
    cr_expect_eq(rip_problem_lower_bound(&p), 1280 * KB);

    rip_plan *naive = plan_with(&p, "naive", 1, false);
    cr_expect_eq(naive->peak, 1920 * KB, "naive: 256+512+512+256+256+128 KB");
    rip_plan *lb = plan_with(&p, "lower-bound", 1, false);
    cr_expect(lb->bound_only);
    cr_expect_eq(lb->peak, 1280 * KB);

    /* hill-climb starts from TVM's order and lands on the lesson's slots */
    rip_plan *hc = plan_with(&p, "hill-climb", 1, false);
    cr_expect_eq(hc->peak, 1280 * KB);
    cr_expect(hc->optimal);
    int64_t *x = hc->offset;
    int A = find_tensor(&p, "A"), B = find_tensor(&p, "B"), C = find_tensor(&p, "C"), D = find_tensor(&p, "D"),
        E = find_tensor(&p, "E"), F = find_tensor(&p, "F");
    cr_expect(x[A] == x[C] && x[C] == x[F], "slot 1 = A, C, F: %lld %lld %lld", (long long)x[A], (long long)x[C],
              (long long)x[F]);
    cr_expect_eq(x[B], x[E], "slot 2 = B, E");
    cr_expect(x[D] != x[A] && x[D] != x[B] && x[A] != x[B], "three distinct slots");

    /* the other planners reach the floor too (with other sharing) */
    const char *others[] = {"greedy-size", "tinyengine"};
    for (size_t i = 0; i < 2; i++) {
        rip_plan *q = plan_with(&p, others[i], 1, false);
        cr_expect_eq(q->peak, 1280 * KB, "%s", others[i]);
        rip_plan_free(q);
    }

    /* the lesson's plan written by hand: slot 1 at 0, slot 2 at 512 KB, slot 3 at 1,024 KB */
    rip_plan *hand = rip_plan_new(&p, "hand");
    hand->offset[A] = hand->offset[C] = hand->offset[F] = 0;
    hand->offset[B] = hand->offset[E] = 512 * KB;
    hand->offset[D] = 1024 * KB;
    hand->peak = rip_plan_peak(&p, hand);
    cr_expect_eq(hand->peak, 1280 * KB);
    char err[RIP_ERR_LEN];
    cr_expect_eq(rip_plan_check(&p, hand, false, err), 0, "%s", err);

    rip_plan_free(hand);
    rip_plan_free(hc);
    rip_plan_free(lb);
    rip_plan_free(naive);
    rip_problem_free(&p);
}

/* ---- TFLite Micro and TVM USMP vectors ---- */

typedef struct planner_case {
    char name[64], file[96], intervals[16], kind[32];
    long long value, lb;
} planner_case;

/* Read tests/data/planner/cases.csv (source and licence columns ignored). */
static int read_cases(planner_case *c, int max)
{
    FILE *f = fopen(data_path("tests/data/planner/cases.csv"), "r");
    cr_assert_not_null(f);
    char line[1024];
    int n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (n < max && fgets(line, sizeof line, f)) {
        planner_case *k = &c[n];
        int m = sscanf(line, "%63[^,],%95[^,],%15[^,],%*d,%31[^,],%lld,%lld", k->name, k->file, k->intervals,
                       k->kind, &k->value, &k->lb);
        cr_assert_eq(m, 6, "cases.csv: %s", line);
        n++;
    }
    fclose(f);
    return n;
}

static const planner_case *case_named(const planner_case *c, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(c[i].name, name) == 0)
            return &c[i];
    cr_assert_fail("no case %s", name);
    return NULL;
}

static void load_case(const planner_case *k, rip_problem *p)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/data/planner/%s", k->file);
    load_intervals(data_path(rel), strcmp(k->intervals, "inclusive") == 0, 1, p);
    cr_assert_eq(rip_problem_lower_bound(p), k->lb, "%s: lower bound", k->name);
}

Test(plan, tflm_greedy_offsets_and_sizes)
{
    planner_case c[32];
    int n = read_cases(c, 32);
    const char *names[] = {"tflm_greedy_basics", "tflm_greedy_medium", "tflm_overlap_case", "tflm_person_detection"};
    for (int i = 0; i < 4; i++) {
        const planner_case *k = case_named(c, n, names[i]);
        rip_problem p;
        load_case(k, &p);
        rip_plan *plan = plan_with(&p, "greedy-size", 1, false);
        if (strcmp(k->kind, "max_size") == 0)
            cr_expect_eq(plan->peak, k->value, "%s: max size %lld, expected %lld", k->name, (long long)plan->peak,
                         k->value);
        else
            cr_expect_lt(plan->peak, k->value, "%s: %lld must stay below %lld", k->name, (long long)plan->peak,
                         k->value);

        /* offsets asserted by the TFLM tests */
        FILE *f = fopen(data_path("tests/data/planner/expected_offsets.csv"), "r");
        cr_assert_not_null(f);
        char line[256], cname[64], id[64];
        long long off;
        int seen = 0;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "%63[^,],%63[^,],%lld", cname, id, &off) != 3 || strcmp(cname, k->name) != 0)
                continue;
            int t = find_tensor(&p, id);
            cr_expect_eq(plan->offset[t], off, "%s buffer %s at %lld, expected %lld", k->name, id,
                         (long long)plan->offset[t], off);
            seen++;
        }
        fclose(f);
        if (strcmp(k->name, "tflm_greedy_basics") == 0)
            cr_expect_eq(seen, 2);
        if (strcmp(k->name, "tflm_greedy_medium") == 0)
            cr_expect_eq(seen, 5);
        rip_plan_free(plan);
        rip_problem_free(&p);
    }
}

Test(plan, tvm_hill_climb_reaches_the_bound)
{
    planner_case c[32];
    int n = read_cases(c, 32);
    const char *names[] = {"tvm_usmp_alloc_max", "tvm_usmp_simple", "tvm_usmp_deep_speech", "tvm_usmp_five"};
    const long long want[] = {67600, 216096, 100352, 176923};
    for (int i = 0; i < 4; i++) {
        const planner_case *k = case_named(c, n, names[i]);
        cr_expect_eq(k->value, want[i]);
        rip_problem p;
        load_case(k, &p);
        rip_plan *a = plan_with(&p, "hill-climb", 1, false);
        cr_expect_eq(a->peak, want[i], "%s: hill-climb %lld, bound %lld", k->name, (long long)a->peak, want[i]);
        cr_expect(a->optimal);
        /* deterministic for a seed */
        rip_plan *b = plan_with(&p, "hill-climb", 1, false);
        cr_expect_arr_eq(a->offset, b->offset, p.n * sizeof *a->offset, "%s: same seed, same plan", k->name);
        rip_plan_free(a);
        rip_plan_free(b);
        rip_problem_free(&p);
    }
}

Test(plan, every_vector_every_strategy_is_valid)
{
    planner_case c[32];
    int n = read_cases(c, 32);
    const char *names[] = {"naive", "greedy-size", "tinyengine"};
    for (int i = 0; i < n; i++) {
        rip_problem p;
        load_case(&c[i], &p);
        for (int s = 0; s < 3; s++) {
            rip_plan *plan = plan_with(&p, names[s], 1, false);
            if (strcmp(c[i].kind, "optimal_height") == 0 || strcmp(c[i].kind, "max_size_equals") == 0)
                cr_expect_geq(plan->peak, c[i].value);
            rip_plan_free(plan);
        }
        rip_problem_free(&p);
    }
    /* MiniMalloc's example: half-open [lower, upper), optimum 12 */
    const planner_case *k = case_named(c, n, "minimalloc_input12");
    rip_problem p;
    load_case(k, &p);
    int b1 = find_tensor(&p, "b1");
    cr_expect(p.t[b1].first == 0 && p.t[b1].last == 2, "b1 [0,3) is steps 0..2");
    rip_plan *plan = plan_with(&p, "hill-climb", 1, false);
    cr_expect_eq(plan->peak, 12);
    rip_plan_free(plan);
    rip_problem_free(&p);
}

Test(plan, hill_climb_on_a_challenging_set)
{
    planner_case c[32];
    int n = read_cases(c, 32);
    const planner_case *k = case_named(c, n, "minimalloc_asplos2024_A");
    rip_problem p;
    load_case(k, &p);
    rip_plan *g = plan_with(&p, "greedy-size", 1, false);
    rip_plan *h = plan_with(&p, "hill-climb", 7, false);
    cr_expect_leq(h->peak, g->peak, "hill-climb keeps only orders no worse than greedy's");
    rip_plan_free(g);
    rip_plan_free(h);
    rip_problem_free(&p);
}

/* ---- paper Tab. 3: the eleven MCUNet models ---- */

static const struct {
    const char *file;
    long long base, rip;
} table3[] = {
    {"mcunet-in0", 46080, 36864},      {"mcunet-in1", 92160, 73728},     {"mcunet-in2", 204800, 179200},
    {"mcunet-in3", 247808, 185856},    {"mcunet-in4", 409600, 307200},   {"mbv2-w0.35", 290304, 248832},
    {"proxyless-w0.3", 247808, 185856}, {"mcunet-vww0", 57344, 49152},   {"mcunet-vww1", 89600, 76800},
    {"mcunet-vww2", 165888, 145152},   {"person-det", 245760, 163840},
};

Test(plan, table3_base_peaks_by_tinyengine)
{
    for (size_t i = 0; i < sizeof table3 / sizeof table3[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "firmware/models/mcunet/%s.csv", table3[i].file);
        rip_problem p;
        load_graph(data_path(rel), false, true, 4, &p);
        cr_expect_eq(rip_problem_lower_bound(&p), table3[i].base, "%s: base bound", table3[i].file);
        rip_plan *plan = plan_with(&p, "tinyengine", 1, true);
        cr_expect_eq(plan->peak, table3[i].base, "%s: tinyengine --no-rip %lld, Tab. 3 Base %lld", table3[i].file,
                     (long long)plan->peak, table3[i].base);
        /* only depthwise candidates, and TinyEngine uses every one */
        for (size_t k = 0; k < p.n_cand; k++) {
            cr_expect_eq(p.cand[k].kind, RIP_INPLACE_ALIAS);
            cr_expect(plan->in_place[k]);
        }
        rip_plan_free(plan);
        rip_problem_free(&p);
    }
}

Test(plan, table3_rip_bounds_and_valid_rip_plans)
{
    for (size_t i = 0; i < sizeof table3 / sizeof table3[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "firmware/models/mcunet/%s.csv", table3[i].file);
        rip_problem p;
        load_graph(data_path(rel), true, true, 4, &p);
        cr_expect_eq(rip_problem_lower_bound(&p), table3[i].rip, "%s: RiP bound = Tab. 3 RiP", table3[i].file);
        const char *names[] = {"tinyengine", "naive", "greedy-size"};
        for (int s = 0; s < 3; s++) {
            rip_plan *plan = plan_with(&p, names[s], 1, true);
            if (s == 0)
                cr_expect_leq(plan->peak, table3[i].base, "%s: RiP first fit no worse than Base", table3[i].file);
            rip_plan_free(plan);
        }
        rip_problem_free(&p);
    }
}

/* ---- paper Tab. 7: 33 keras graphs ---- */

Test(plan, table7_bounds_and_valid_plans)
{
    FILE *f = fopen(data_path("firmware/models/keras/table7_reference.csv"), "r");
    cr_assert_not_null(f);
    char line[1024];
    int n = 0;
    cr_assert_not_null(fgets(line, sizeof line, f));
    while (fgets(line, sizeof line, f)) {
        char model[64], file[128];
        long long dual, rip;
        int m = sscanf(line, "%63[^,],%127[^,],%*[^,],%*d,%*d,%*d,%*d,%*[^,],%*[^,],%lld,%lld", model, file, &dual,
                       &rip);
        cr_assert_eq(m, 4, "%s", line);
        char rel[256];
        snprintf(rel, sizeof rel, "firmware/models/keras/%s", file);
        rip_problem p;
        load_graph(data_path(rel), false, false, 4, &p);
        cr_expect_eq(p.n_cand, 0u);
        cr_expect_eq(rip_problem_lower_bound(&p), dual, "%s: dual-buffer bound", model);
        rip_problem_free(&p);

        load_graph(data_path(rel), true, true, 4, &p);
        cr_expect_eq(rip_problem_lower_bound(&p), rip, "%s: RiP bound", model);
        rip_plan *plan = plan_with(&p, "tinyengine", 1, true);
        rip_plan_free(plan);
        rip_problem_free(&p);
        n++;
    }
    fclose(f);
    cr_expect_eq(n, 33);
}

/* every operator class once */
static const char classes_csv[] = GHEAD
    "0,pointwise,-1,8,8,16,8,8,64,1,1,1,1,0,0,0,0,1,1,1\n"     /* GAP, gap 3,072 */
    "1,depthwise,0,8,8,64,8,8,64,3,3,1,1,1,1,1,1,1,1,1\n"      /* ALIAS (in-place depthwise) */
    "2,relu,1,8,8,64,8,8,64,1,1,1,1,0,0,0,0,1,1,1\n"           /* ALIAS; 1 also read by 3: no candidate */
    "3,add,2;1,8,8,64,8,8,64,1,1,1,1,0,0,0,0,1,1,1\n"          /* ALIAS with 2 and with 1 */
    "4,maxpool,3,8,8,64,4,4,64,2,2,2,2,0,0,0,0,1,1,1\n"        /* local pool: GAP 0 */
    "5,upsample,4,4,4,64,8,8,64,1,1,2,2,0,0,0,0,1,1,1\n"       /* ALIAS (Theorem 14) */
    "6,concat,5;-1,8,8,64,8,8,80,1,1,1,1,0,0,0,0,1,1,1\n"      /* none; keeps the input alive */
    "7,avgpool,6,8,8,80,1,1,80,8,8,1,1,0,0,0,0,1,1,1\n"        /* global pool: none */
    "8,fc,7,1,1,80,1,1,10,1,1,1,1,0,0,0,0,1,1,1\n";            /* none; graph output */

static const rip_candidate *cand_of(const rip_problem *p, const char *in, const char *out)
{
    int a = find_tensor(p, in), b = find_tensor(p, out);
    for (size_t k = 0; k < p->n_cand; k++)
        if (p->cand[k].in == a && p->cand[k].out == b)
            return &p->cand[k];
    return NULL;
}

Test(plan, graph_classes_lifetimes_candidates)
{
    const char *path = write_file("classes.csv", classes_csv);
    rip_problem p;
    load_graph(path, true, true, 4, &p);
    cr_assert_eq(p.n, 10u, "input + 9 ops");
    cr_expect_eq(p.n_steps, 9);
    int in = find_tensor(&p, "input");
    cr_expect_eq(p.t[in].size, 8 * 8 * 16);
    cr_expect(p.t[in].first == 0 && p.t[in].last == 6, "input lives until the concat reads it");
    int t1 = find_tensor(&p, "1");
    cr_expect(p.t[t1].first == 1 && p.t[t1].last == 3);
    int t8 = find_tensor(&p, "8");
    cr_expect(p.t[t8].first == 8 && p.t[t8].last == 8 && p.t[t8].size == 10, "graph output to the last step");

    /* pointwise 16 -> 64 on 8x8: alpha, beta > 0, the dense gap is
    ** max(max D, N_out - N_in) = max((63*64 - 63*16), 4096 - 1024) = 3,072 */
    const rip_candidate *c = cand_of(&p, "input", "0");
    cr_expect_null(c, "the input is still needed by the concat");
    c = cand_of(&p, "0", "1");
    cr_assert_not_null(c);
    cr_expect_eq(c->kind, RIP_INPLACE_ALIAS, "in-place depthwise");
    cr_expect(c->alias_op == RIP_ALIAS_DEPTHWISE && c->layer.cin == 64 && c->layer.k_h == 3 && c->layer.p_top == 1 &&
                  c->layer.h_out == 8,
              "the depthwise's geometry carried for the checker's replay");
    cr_expect_null(cand_of(&p, "1", "2"), "relu's input is read again by the add");
    c = cand_of(&p, "2", "3");
    cr_assert_not_null(c);
    cr_expect_eq(c->kind, RIP_INPLACE_ALIAS);
    cr_expect_eq(c->alias_op, RIP_ALIAS_ELEMENTWISE);
    c = cand_of(&p, "1", "3");
    cr_assert_not_null(c, "an add may alias either operand");
    cr_expect_eq(c->alias_op, RIP_ALIAS_ELEMENTWISE);
    c = cand_of(&p, "3", "4");
    cr_assert_not_null(c);
    cr_expect(c->kind == RIP_INPLACE_GAP && c->gap == 0 && c->pool && !c->has_layer,
              "local 2x2/s2 pool: GAP 0, its geometry carried for the checker");
    cr_expect(c->layer.cin == 64 && c->layer.cout == 64 && c->layer.k_h == 2 && c->layer.s_h == 2);
    c = cand_of(&p, "4", "5");
    cr_assert_not_null(c);
    cr_expect_eq(c->kind, RIP_INPLACE_ALIAS, "upsample");
    cr_expect(c->alias_op == RIP_ALIAS_UPSAMPLE && c->layer.cin == 64 && c->layer.h_in == 4 && c->layer.s_h == 2 &&
                  c->layer.s_w == 2 && c->layer.h_out == 8 && c->layer.w_out == 8,
              "the upsampling's geometry carried for the checker's replay");
    cr_expect_null(cand_of(&p, "5", "6"), "concat: none");
    cr_expect_null(cand_of(&p, "6", "7"), "global pool: none");
    cr_expect_null(cand_of(&p, "7", "8"), "fc: none");
    cr_expect_eq(p.n_cand, 5u);
    rip_problem_free(&p);

    /* a pointwise whose input dies: the RiP gap */
    static const char conv_csv[] = GHEAD "0,pointwise,-1,8,8,16,8,8,64,1,1,1,1,0,0,0,0,1,1,1\n"
                                         "1,pointwise,0,8,8,64,8,8,16,1,1,1,1,0,0,0,0,1,1,2\n";
    load_graph(write_file("conv.csv", conv_csv), true, true, 4, &p);
    c = cand_of(&p, "input", "0");
    cr_assert_not_null(c);
    cr_expect(c->kind == RIP_INPLACE_GAP && c->has_layer && c->gap == 3072, "gap %lld", (long long)c->gap);
    /* op 1 reads int8 and writes int16: mixed dtypes are not modelled, and
    ** its layer (8x8x64 x 2 B) would not match its 4,096 B input: no candidate */
    cr_expect_null(cand_of(&p, "0", "1"));
    cr_expect_eq(p.t[find_tensor(&p, "1")].size, 8 * 8 * 16 * 2, "dtype_bytes scales sizes");
    rip_plan *plan = plan_with(&p, "tinyengine", 1, true);
    rip_plan_free(plan);
    rip_problem_free(&p);

    /* without RiP only the depthwise candidate remains; dual: none */
    load_graph(path, false, true, 4, &p);
    cr_expect_eq(p.n_cand, 1u);
    rip_problem_free(&p);
    load_graph(path, false, false, 4, &p);
    cr_expect_eq(p.n_cand, 0u);
    rip_problem_free(&p);
}
