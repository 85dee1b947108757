/*
** strategies.c — the registry of planning strategies and the common way to
** run one (plan.h).
**
**   naive        every tensor its own block (no reuse)
**   lower-bound  the live-bytes lower bound; a bound, not a placement
**   greedy-size  TFLite Micro's GreedyMemoryPlanner (largest first, first fit)
**   tinyengine   TinyEngine's scheduler: in-place blocks, largest first, first fit by address
**   hill-climb   TVM USMP style: perturbed greedy orders, kept if no worse
**   milp         the paper's MILP (Sec. 4.3) with COIN-OR CBC  (milp.c, a module
**                opened on first use by milp_load.c)
**   exact        an exact solver                                (exact.c)
*/
#include <string.h>

#include "place.h"
#include "plan.h"
#include "strategies.h"

static const rip_strategy registry[] = {
    {"naive", "every tensor its own block, laid end to end (no reuse, no in-place)", rip_strategy_naive},
    {"lower-bound", "the live-bytes lower bound (a bound, not a placement; not checked)",
     rip_strategy_lower_bound},
    {"greedy-size", "TFLite Micro GreedyMemoryPlanner: largest first, first fit (no in-place)",
     rip_strategy_greedy_size},
    {"tinyengine", "TinyEngine scheduler: in-place blocks, largest first, lowest free address",
     rip_strategy_tinyengine},
    {"hill-climb", "TVM USMP hill climb: seeded swaps of the greedy-by-size order (no in-place)",
     rip_strategy_hill_climb},
    {"milp", "the paper's MILP placement (Sec. 4.3: offsets, in-place d_i, shifts r_i) with CBC",
     rip_strategy_milp},
    {"exact", "exact placement (optimal, or feasible within --capacity)", rip_strategy_exact},
};

const rip_strategy *rip_strategies(size_t *count)
{
    if (count)
        *count = sizeof registry / sizeof registry[0];
    return registry;
}

const rip_strategy *rip_strategy_by_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof registry / sizeof registry[0]; i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

/* The indices a strategy relies on: candidates name existing tensors;
** and the total fits (RIP_PLAN_TOTAL_MAX).  RIP_OK or RIP_S_DATA. */
static rip_status validate(const rip_problem *p, char err[RIP_ERR_LEN])
{
    if (p->align < 1) {
        snprintf(err, RIP_ERR_LEN, "problem %s: alignment %lld < 1", p->name, (long long)p->align);
        return RIP_S_DATA;
    }
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].size <= 0 || p->t[i].first > p->t[i].last) {
            snprintf(err, RIP_ERR_LEN, "problem %s: tensor %s has size %lld and lifetime [%lld, %lld]", p->name,
                     p->t[i].id, (long long)p->t[i].size, (long long)p->t[i].first, (long long)p->t[i].last);
            return RIP_S_DATA;
        }
    }
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        if (c->in < 0 || c->out < 0 || (size_t)c->in >= p->n || (size_t)c->out >= p->n || c->in == c->out ||
            c->gap < 0 || c->op < 0 || c->op >= p->n_steps) {
            snprintf(err, RIP_ERR_LEN, "problem %s: candidate %zu (%d -> %d, gap %lld) is malformed", p->name, k,
                     c->in, c->out, (long long)c->gap);
            return RIP_S_DATA;
        }
        if (c->kind == RIP_INPLACE_GAP ? c->gap % p->align != 0 : c->gap != 0) {
            snprintf(err, RIP_ERR_LEN, "problem %s: candidate %zu: gap %lld must be %s", p->name, k,
                     (long long)c->gap, c->kind == RIP_INPLACE_GAP ? "a multiple of the alignment" : "0 (ALIAS)");
            return RIP_S_DATA;
        }
    }
    return rip_problem_check_total(p, err);
}

rip_status rip_strategy_run(const rip_strategy *s, const rip_problem *p, const rip_plan_opts *o, rip_plan *out,
                            char err[RIP_ERR_LEN])
{
    rip_status rc = validate(p, err);
    if (rc != RIP_OK)
        return rc;
    rip_plan_opts none = {0};
    char why[RIP_ERR_LEN] = "";
    double t0 = rip_plan_clock();
    rc = s->run(p, o ? o : &none, out, why);
    out->seconds = rip_plan_clock() - t0;
    if (rc != RIP_OK) {
        snprintf(err, RIP_ERR_LEN, "strategy %s: %.480s", s->name, why[0] ? why : "failed without a reason");
        return rc;
    }
    if (!out->bound_only && out->peak == out->lower_bound)
        out->optimal = true;
    return RIP_OK;
}

rip_status rip_plan_solve_checked(const rip_problem *p, const char *strategy, const rip_plan_opts *o, bool simulate,
                                  rip_plan **out, char err[RIP_ERR_LEN])
{
    *out = NULL;
    const rip_strategy *s = rip_strategy_by_name(strategy);
    rip_plan *plan = s ? rip_plan_new(p, strategy) : NULL;
    if (plan == NULL) {
        snprintf(err, RIP_ERR_LEN, s ? "%.60s: out of memory" : "%.60s: no strategy %.60s", p->name, strategy);
        return s ? RIP_S_NOMEM : RIP_S_INTERNAL;
    }
    char why[RIP_ERR_LEN];
    rip_status st = rip_strategy_run(s, p, o, plan, err);
    if (st == RIP_OK && !plan->bound_only && (st = rip_plan_check(p, plan, simulate, why)) != RIP_OK) {
        if (st == RIP_S_FAILED) {
            st = RIP_S_INTERNAL; /* a strategy made an invalid plan: a bug */
            snprintf(err, RIP_ERR_LEN, "internal error: strategy %s made an invalid plan: %.400s", strategy, why);
        } else {
            snprintf(err, RIP_ERR_LEN, "checking the plan of strategy %s: %.400s", strategy, why);
        }
    }
    if (st != RIP_OK) {
        rip_plan_free(plan);
        return st;
    }
    *out = plan;
    return RIP_OK;
}
