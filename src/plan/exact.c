/* placeholder: the exact strategy is written in a later commit */
#include <stdio.h>
#include "plan.h"
int rip_strategy_exact(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
int rip_strategy_exact(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    (void)p; (void)o; (void)out;
    snprintf(err, RIP_ERR_LEN, "strategy exact: not built yet");
    return 70;
}
