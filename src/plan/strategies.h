/*
** strategies.h — the strategy functions behind the registry of
** strategies.c (internal to src/plan/).  Each has the rip_strategy_fn
** signature: it fills *out (made by rip_plan_new for p) and returns
** RIP_OK, or a rip_status with its bare reason in err (rip_strategy_run
** prefixes "strategy NAME: ").
*/
#ifndef RIPSIM_PLAN_STRATEGIES_H
#define RIPSIM_PLAN_STRATEGIES_H

#include "plan.h"

rip_status rip_strategy_naive(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
rip_status rip_strategy_lower_bound(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
rip_status rip_strategy_greedy_size(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
rip_status rip_strategy_tinyengine(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
rip_status rip_strategy_hill_climb(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
/* provided by src/plan/milp_load.c (which opens the CBC module built from
** milp*.c) and src/plan/exact.c */
rip_status rip_strategy_milp(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
rip_status rip_strategy_exact(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);

/* Greedy-by-size order: tensor indices by size descending, ties by index.
** 0, or -1 out of memory. */
int rip_greedy_size_order(const rip_problem *p, int *order);

#endif
