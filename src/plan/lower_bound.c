/*
** lower_bound.c — the `lower-bound` strategy: not a placement, a bound.
**
** It reports the live-bytes lower bound of rip_problem_lower_bound() as the
** peak and marks the plan bound_only: the offsets (all 0) place nothing,
** rip_plan_check() refuses such a plan and the CLI prints it as a bound.
** It is here so that tables can put the floor next to the strategies with
** the same command (`ripsim plan --strategy lower-bound`).
*/
#include "plan.h"
#include "strategies.h"

rip_status rip_strategy_lower_bound(const rip_problem *p, const rip_plan_opts *o, rip_plan *out,
                             char err[RIP_ERR_LEN])
{
    (void)o;
    for (size_t i = 0; i < p->n; i++)
        out->offset[i] = 0;
    out->lower_bound = rip_problem_lower_bound(p);
    if (out->lower_bound < 0) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    out->peak = out->lower_bound;
    out->bound_only = true;
    out->optimal = false;
    return 0;
}
