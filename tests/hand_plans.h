/*
** hand_plans.h — plans made by hand for the planning problem of a net
** (src/net/net.h), for the suites that run a net under plans no strategy
** chose: every tensor apart (dual buffers), and one in-place candidate
** alone, with or without a runtime shift.  Header-only, for
** tests/test_tflite_run.c and tests/test_codegen_tflite.c.
*/
#ifndef RIPSIM_TEST_HAND_PLANS_H
#define RIPSIM_TEST_HAND_PLANS_H

#include <criterion/criterion.h>
#include <stdbool.h>

#include "plan/plan.h"

/* A plan of p with every tensor in its own block, end to end, nothing in
** place; *top receives the end of the last block. */
static inline rip_plan *plan_apart(const rip_problem *p, int64_t *top)
{
    rip_plan *plan = rip_plan_new(p, "hand");
    cr_assert_not_null(plan);
    *top = 0;
    for (size_t i = 0; i < p->n; i++) {
        plan->offset[i] = *top;
        *top += rip_align_up(p->t[i].size, p->align);
    }
    plan->peak = rip_plan_peak(p, plan);
    return plan;
}

/* plan_apart with candidate k alone in place at the top: ALIAS (same
** offset), GAP with the output gap bytes below the input, or (shift) both
** at one offset and the input moved up at run time. */
static inline rip_plan *plan_with(const rip_problem *p, size_t k, bool shift)
{
    int64_t top;
    rip_plan *plan = plan_apart(p, &top);
    const rip_candidate *c = &p->cand[k];
    plan->offset[c->in] = plan->offset[c->out] = top;
    if (c->kind == RIP_INPLACE_GAP && !shift)
        plan->offset[c->in] = top + c->gap;
    plan->in_place[k] = true;
    plan->shift[k] = shift;
    plan->peak = rip_plan_peak(p, plan);
    return plan;
}

#endif
