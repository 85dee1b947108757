/*
** milp_module.h — the interface between ripsim and its MILP module
** (ripsim-milp.so, built from milp*.c with CBC).  The module exports one
** object, rip_milp_module; the loader (milp_load.c) accepts it only if the
** ABI number, the version and the sizes of the structures passed across
** match its own, so a module of another build is refused, not misread.
*/
#ifndef RIPSIM_PLAN_MILP_MODULE_H
#define RIPSIM_PLAN_MILP_MODULE_H

#include <stddef.h>

#include "plan.h"

#define RIP_MILP_MODULE_ABI 1
#define RIP_MILP_MODULE_SYMBOL "rip_milp_module"
#define RIP_MILP_MODULE_FILE "ripsim-milp.so"

typedef struct rip_milp_module_info {
    int abi;                   /* RIP_MILP_MODULE_ABI */
    const char *version;       /* RIPSIM_VERSION of the build */
    size_t problem_size, plan_size, opts_size;
    /* the milp strategy: the rip_strategy_fn contract (strategies.h, milp.c) */
    rip_status (*solve)(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);
} rip_milp_module_info;

#endif
