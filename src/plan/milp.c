/* placeholder: the milp strategy is written in a later commit */
#include <stdio.h>
#include "plan.h"
int rip_strategy_milp(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
int rip_strategy_milp(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    (void)p; (void)o; (void)out;
    snprintf(err, RIP_ERR_LEN, "strategy milp: not built yet");
    return 70;
}
