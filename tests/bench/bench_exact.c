/*
** bench_exact.c — the exact strategy on MiniMalloc's challenging sets A..K
** (issue 13): decide (a plan within 1,048,576 bytes?) and minimize, with
** wall times and results, next to MiniMalloc's own figures from the issue.
**
**   bench_exact ROOT [TIME_LIMIT [REPEATS [SETS]]]
**
** ROOT is the source tree (tests/data/planner).  TIME_LIMIT (default 60 s)
** goes to every run; REPEATS (default 1) runs each one that many times and
** prints the median time; SETS (default ABCDEFGHIJK) picks the sets.  Every
** plan is checked with rip_plan_check().  Ends with a markdown table in the
** issue's layout.  A benchmark: it asserts nothing about time; it exits 1
** if a plan fails the check, a decide run misses the capacity, or a
** minimize run claims a proof below the live-bytes bound.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/graph.h"
#include "plan/plan.h"

#define CAPACITY 1048576

/* MiniMalloc's figures from issue 13 (seconds; < 0: nothing in 60 s). */
static const struct {
    char set;
    double decide, minimize;
} ref[] = {
    {'A', 14.3, 5.4}, {'B', 9.0, 3.7}, {'C', 1.7, 0.09}, {'D', 9.2, -1}, {'E', 9.3, -1}, {'F', 16.4, 5.8},
    {'G', 2.5, 1.3},  {'H', 2.8, 1.8}, {'I', 4.4, 4.3},  {'J', 1.5, -1}, {'K', 0.63, 0.7},
};

typedef struct result {
    int64_t peak;
    bool optimal, ok;
    double seconds;
    int64_t lower_bound;
} result;

static int failures;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* exact's verbose trace (BENCH_EXACT_VERBOSE): one line on stderr. */
static void log_to_stderr(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "%s\n", line);
}

/* Run exact `reps` times; the last plan's result with the median time. */
static result run(const rip_problem *p, int64_t capacity, double tl, int reps, const char *label)
{
    const rip_strategy *s = rip_strategy_by_name("exact");
    result r = {0};
    double t[16];
    for (int k = 0; k < reps; k++) {
        rip_plan *plan = rip_plan_new(p, "exact");
        if (!plan) {
            fprintf(stderr, "out of memory\n");
            exit(71);
        }
        char err[RIP_ERR_LEN] = "", cerr[RIP_ERR_LEN] = "";
        rip_plan_opts o = {.capacity = capacity, .time_limit = tl, .verbose = getenv("BENCH_EXACT_VERBOSE") != NULL,
                           .log = log_to_stderr};
        int rc = rip_strategy_run(s, p, &o, plan, err);
        r.ok = rc == RIP_OK;
        r.peak = plan->peak;
        r.optimal = plan->optimal;
        r.lower_bound = plan->lower_bound;
        t[k] = plan->seconds;
        if (rip_plan_check(p, plan, false, cerr) != RIP_OK) {
            printf("    %s: CHECK FAILED: %s\n", label, cerr);
            failures++;
        }
        if (capacity > 0 && plan->peak > capacity) {
            printf("    %s: no plan within capacity: %s\n", label, err);
            failures++;
        }
        rip_plan_free(plan);
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    r.seconds = t[reps / 2];
    printf("%-14s peak %9lld lb %9lld %-8s %8.3f s (median of %d)\n", label, (long long)r.peak,
           (long long)r.lower_bound, r.optimal ? "optimal" : "-", r.seconds, reps);
    fflush(stdout);
    return r;
}

static void fmt_ref(char *buf, size_t len, double s, const char *what)
{
    if (s < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s%.2f s", what, s);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: bench_exact ROOT [TIME_LIMIT [REPEATS [SETS]]]\n");
        return 64;
    }
    double tl = argc > 2 ? atof(argv[2]) : 60;
    int reps = argc > 3 ? atoi(argv[3]) : 1;
    const char *sets = argc > 4 ? argv[4] : "ABCDEFGHIJK";
    if (reps < 1 || reps > 15) {
        fprintf(stderr, "bench_exact: REPEATS must be 1..15\n");
        return 64;
    }
    char table[11][2][96];
    char names[11];
    int nrow = 0;
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        if (!strchr(sets, ref[i].set))
            continue;
        char path[1024], err[RIP_ERR_LEN], label[32];
        snprintf(path, sizeof path, "%s/tests/data/planner/minimalloc_asplos2024_%c.csv", argv[1], ref[i].set);
        rip_problem p;
        if (rip_problem_from_intervals(path, false, 1, &p, err)) {
            fprintf(stderr, "%s\n", err);
            return 66;
        }
        snprintf(label, sizeof label, "%c decide", ref[i].set);
        result d = run(&p, CAPACITY, tl, reps, label);
        snprintf(label, sizeof label, "%c minimize", ref[i].set);
        result m = run(&p, 0, tl, reps, label);
        if (m.optimal && m.peak < m.lower_bound)
            failures++;
        char mm[32], md[32];
        fmt_ref(md, sizeof md, ref[i].decide, "");
        fmt_ref(mm, sizeof mm, ref[i].minimize, "1,048,576 in ");
        snprintf(table[nrow][0], sizeof table[nrow][0], "%.2f%s / %s", d.seconds, d.ok ? "" : " (no plan)", md);
        snprintf(table[nrow][1], sizeof table[nrow][1], "%lld %s %.2f s / %s", (long long)m.peak,
                 m.optimal ? "proven in" : "unproven after", m.seconds, mm);
        names[nrow++] = ref[i].set;
        rip_problem_free(&p);
    }
    printf("\n| set | decide: ripsim / minimalloc | minimize: ripsim / minimalloc |\n|---|---|---|\n");
    for (int r = 0; r < nrow; r++)
        printf("| %c | %s | %s |\n", names[r], table[r][0], table[r][1]);
    printf("\n%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
