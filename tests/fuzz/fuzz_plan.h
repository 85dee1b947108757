/*
** fuzz_plan.h — what the planner harnesses do with a problem once a loader
** accepted it: run the cheap strategies (the ones `ripsim plan` runs in
** well under a second on any loaded problem) and check every placement
** with the independent checker (rip_plan_check, without re-simulation).
** A strategy that fails must say why in one line; a placement that the
** checker refuses is a bug and aborts the run.
*/
#ifndef RIPSIM_FUZZ_PLAN_H
#define RIPSIM_FUZZ_PLAN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

static void fuzz_plan_problem(const char *harness, const rip_problem *p)
{
    static const char *const names[] = {"naive", "lower-bound", "greedy-size", "tinyengine"};
    char err[RIP_ERR_LEN];
    (void)rip_problem_lower_bound(p);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const rip_strategy *s = rip_strategy_by_name(names[i]);
        rip_plan *plan = s ? rip_plan_new(p, s->name) : NULL;
        if (!plan)
            continue;
        err[0] = '\0';
        int rc = rip_strategy_run(s, p, NULL, plan, err);
        if (rc != 0 && (err[0] == '\0' || strchr(err, '\n'))) {
            fprintf(stderr, "%s: strategy %s failed without a one-line message\n", harness, s->name);
            abort();
        }
        if (rc == 0 && !plan->bound_only && rip_plan_check(p, plan, false, err) != 0) {
            fprintf(stderr, "%s: strategy %s made a plan the checker refuses: %s\n", harness, s->name, err);
            abort();
        }
        rip_plan_free(plan);
    }
}

#endif
