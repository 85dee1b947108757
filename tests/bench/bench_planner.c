/*
** bench_planner.c — the memory planners per strategy, with peak and time.
**
**   bench_planner ROOT minimalloc [TIME_LIMIT]
**       MiniMalloc's ASPLOS 2024 sets A-E (capacity 1,048,576): greedy-size,
**       hill-climb, exact at the capacity, exact minimizing, milp
**   bench_planner ROOT mcunet [TIME_LIMIT]
**       the eleven Tab. 3 graphs, Base (--no-rip) and RiP: tinyengine, milp
**   bench_planner ROOT keras [TIME_LIMIT]
**       the 33 Tab. 7 graphs, dual buffer (no candidates) and RiP: milp
**
** ROOT is the source tree (tests/data/planner, firmware/models).  One line
** per run: peak, the reference (capacity, Tab. 3 or Tab. 7 bytes), the
** lower bound, whether the plan is proven optimal, wall seconds and, for
** milp, the program size next to the paper's all-pairs encoding
** 3n(n-1)/2 + 2m.  Every plan is checked (rip_plan_check, simulating RiP
** gaps for graphs).  TIME_LIMIT (default 150 s) goes to milp and exact.
** A benchmark: it asserts nothing about time; it exits 1 if a plan fails
** the check or a graph's peak differs from the paper.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/graph.h"
#include "plan/plan.h"

static int failures;

static void path_join(char *out, size_t len, const char *root, const char *rel)
{
    snprintf(out, len, "%s/%s", root, rel);
}

/* Run one strategy; print the line; return the plan's peak (-1 on error). */
static int64_t bench_one(const char *label, const rip_problem *p, const char *strategy, rip_plan_opts o,
                         long long ref, bool simulate)
{
    const rip_strategy *s = rip_strategy_by_name(strategy);
    if (!s) {
        printf("%-22s %-12s not registered\n", label, strategy);
        failures++;
        return -1;
    }
    rip_plan *plan = rip_plan_new(p, s->name);
    char err[RIP_ERR_LEN] = "";
    if (!plan) {
        fprintf(stderr, "out of memory\n");
        exit(71);
    }
    int rc = rip_strategy_run(s, p, &o, plan, err);
    const char *check = "ok";
    char cerr[RIP_ERR_LEN] = "";
    if (rip_plan_check(p, plan, simulate, cerr) != 0) {
        check = cerr;
        failures++;
    }
    size_t m = p->n_cand;
    long long allpairs = (long long)(3 * p->n * (p->n - 1) / 2 + 2 * m);
    char size[96] = "";
    if (plan->n_vars > 0)
        snprintf(size, sizeof size, "%lld vars %lld bin %lld rows (all-pairs %lld)", (long long)plan->n_vars,
                 (long long)plan->n_binaries, (long long)plan->n_cons, allpairs);
    int shifts = 0, inplace = 0;
    for (size_t k = 0; k < m; k++) {
        inplace += plan->in_place[k];
        shifts += plan->shift[k];
    }
    printf("%-24s %-11s peak %11lld ref %11lld %-5s lb %11lld %-8s %8.3f s  in-place %3d shift %d  %s%s%s%s\n",
           label, strategy, (long long)plan->peak, ref, plan->peak == ref ? "=" : (plan->peak < ref ? "<" : ">"),
           (long long)plan->lower_bound, plan->optimal ? "optimal" : "-", plan->seconds, inplace, shifts, size,
           rc ? " [" : "", rc ? err : "", rc ? "]" : "");
    if (strcmp(check, "ok") != 0)
        printf("    CHECK FAILED: %s\n", check);
    fflush(stdout);
    int64_t peak = plan->peak;
    rip_plan_free(plan);
    return peak;
}

static int bench_minimalloc(const char *root, double tl)
{
    static const char *sets[] = {"A", "B", "C", "D", "E"};
    for (int i = 0; i < 5; i++) {
        char rel[256], path[1024], label[64], err[RIP_ERR_LEN];
        snprintf(rel, sizeof rel, "tests/data/planner/minimalloc_asplos2024_%s.csv", sets[i]);
        path_join(path, sizeof path, root, rel);
        rip_problem p;
        if (rip_problem_from_intervals(path, false, 1, &p, err)) {
            fprintf(stderr, "%s\n", err);
            return 66;
        }
        snprintf(label, sizeof label, "asplos2024_%s (%zu)", sets[i], p.n);
        rip_plan_opts o = {.seed = 1};
        bench_one(label, &p, "greedy-size", o, 1048576, false);
        bench_one(label, &p, "hill-climb", o, 1048576, false);
        o.time_limit = tl;
        o.capacity = 1048576;
        bench_one(label, &p, "exact", o, 1048576, false);
        o.capacity = 0;
        snprintf(label, sizeof label, "asplos2024_%s minimize", sets[i]);
        bench_one(label, &p, "exact", o, 1048576, false);
        bench_one(label, &p, "milp", o, 1048576, false);
        rip_problem_free(&p);
    }
    return 0;
}

static int load_graph(const char *path, bool rip, bool dw, rip_problem *p)
{
    char err[RIP_ERR_LEN];
    rip_graph g;
    if (rip_graph_load(path, &g, err)) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    rip_graph_opts go = {.rip = rip, .inplace_depthwise = dw, .align = 4};
    int rc = rip_problem_from_graph(&g, &go, p, err);
    rip_graph_free(&g);
    if (rc)
        fprintf(stderr, "%s\n", err);
    return rc ? -1 : 0;
}

/* Split a CSV line in place; returns the number of fields. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *s = line; n < max;) {
        f[n++] = s;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

static int bench_graphs(const char *root, bool keras, double tl)
{
    char path[1024], line[2048];
    path_join(path, sizeof path, root,
              keras ? "firmware/models/keras/table7_reference.csv" : "firmware/models/mcunet/table3_reference.csv");
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 66;
    }
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 65;
    }
    while (fgets(line, sizeof line, f)) {
        char *fld[16];
        int n = split(line, fld, 16);
        if (n < (keras ? 11 : 7))
            continue;
        const char *model = fld[0], *file = fld[1];
        /* mcunet: base, rip = columns 5, 6; keras: dual, rip = columns 9, 10 */
        long long base = atoll(fld[keras ? 9 : 5]), rip = atoll(fld[keras ? 10 : 6]);
        char rel[512];
        snprintf(rel, sizeof rel, "firmware/models/%s/%s", keras ? "keras" : "mcunet", file);
        path_join(path, sizeof path, root, rel);
        for (int mode = 0; mode < 2; mode++) {
            rip_problem p;
            /* mode 0: Base (mcunet: in-place depthwise only) / dual (keras: none); 1: RiP */
            if (load_graph(path, mode == 1, mode == 1 || !keras, &p))
                return 65;
            char label[96];
            snprintf(label, sizeof label, "%.17s %s", model, mode ? "rip" : (keras ? "dual" : "base"));
            long long ref = mode ? rip : base;
            rip_plan_opts o = {.seed = 1, .time_limit = tl};
            if (!keras)
                bench_one(label, &p, "tinyengine", o, ref, true);
            int64_t peak = bench_one(label, &p, "milp", o, ref, true);
            if (peak != ref)
                failures++;
            rip_problem_free(&p);
        }
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: bench_planner ROOT minimalloc|mcunet|keras [TIME_LIMIT]\n");
        return 64;
    }
    double tl = argc > 3 ? atof(argv[3]) : 150;
    int rc;
    if (strcmp(argv[2], "minimalloc") == 0)
        rc = bench_minimalloc(argv[1], tl);
    else if (strcmp(argv[2], "mcunet") == 0)
        rc = bench_graphs(argv[1], false, tl);
    else if (strcmp(argv[2], "keras") == 0)
        rc = bench_graphs(argv[1], true, tl);
    else {
        fprintf(stderr, "bench_planner: unknown set %s\n", argv[2]);
        return 64;
    }
    if (rc)
        return rc;
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
