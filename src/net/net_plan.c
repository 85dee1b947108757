/*
** net_plan.c — the two plans `ripsim run --plan` names (net.h): base, the
** paper's Tab. 3 baseline (TinyEngine's scheduler with its in-place
** depthwise only), and rip (the MILP with every RiP candidate, then its
** in-place 1x1 outputs moved down to their copy-free distance where that
** is free), each checked by rip_plan_check with simulated gaps and turned
** into a layout.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"
#include "rk_conv2d_rip.h"

rip_graph_opts rip_net_plan_opts(rip_net_plan_kind k)
{
    return (rip_graph_opts){.rip = k == RIP_NET_PLAN_RIP, .inplace_depthwise = true, .sigma_taps = false, .align = 4};
}

const char *rip_net_plan_strategy(rip_net_plan_kind k)
{
    return k == RIP_NET_PLAN_RIP ? "milp" : "tinyengine";
}

/*
** Move the outputs of the plan's in-place 1x1 convolutions down to the
** distance from which their kernel copies nothing through scratch
** (rk_conv2d_rip_direct_gap), where the arena has that room at the same
** peak (rip_plan_widen_gaps), then check the plan again with simulated
** gaps.  The peak, and so every figure of the plan, is unchanged; only
** the kernels' work is: without it a 1x1 layer with c_in = c_out placed at
** its gap of 0 copies every output pixel once.  RIP_OK; RIP_S_NOMEM;
** RIP_S_INTERNAL when the widened plan fails its check (a bug), with why.
*/
static rip_status widen_copy_free(const rip_net *net, const rip_problem *p, rip_plan *plan, char why[RIP_ERR_LEN])
{
    int64_t *want = calloc(p->n_cand ? p->n_cand : 1, sizeof *want);
    if (want == NULL) {
        snprintf(why, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    for (size_t j = 0; j < p->n_cand; j++) {
        const rip_candidate *c = &p->cand[j];
        want[j] = c->gap;
        if (c->kind != RIP_INPLACE_GAP || !c->has_layer || c->pool || c->taps || c->op < 0 ||
            (size_t)c->op >= net->n_steps || net->steps[c->op].kind != RIP_NET_CONV)
            continue;
        const rip_net_conv *cv = &net->steps[c->op].u.conv;
        const rk_inplace ip = {.layout = RK_DENSE, .order = RK_GATHER, .gap = c->gap};
        const int64_t d = rk_conv2d_rip_direct_gap(&cv->p, cv->in, cv->out, &ip);
        if (d > want[j])
            want[j] = d;
    }
    rip_status rc = rip_plan_widen_gaps(p, plan, want, NULL, why);
    free(want);
    if (rc == RIP_OK && rip_plan_check(p, plan, true, why) != RIP_OK) {
        char inner[RIP_ERR_LEN];
        snprintf(inner, sizeof inner, "%s", why);
        snprintf(why, RIP_ERR_LEN, "internal error: the widened plan is invalid: %.400s", inner);
        rc = RIP_S_INTERNAL;
    }
    return rc;
}

rip_status rip_net_plan(const rip_net *net, rip_net_plan_kind k, rip_problem *p_out, rip_plan **plan_out,
                        rip_net_layout *L_out, char err[RIP_ERR_LEN])
{
    rip_graph_opts go = rip_net_plan_opts(k);
    /* milp on its budgets: the same plan on a fast or a busy machine; the
    ** time limit is only a safety net (its expiry is an error) */
    rip_plan_opts po = {.seed = 1, .time_limit = 600, .reproducible = true};
    rip_problem p;
    rip_plan *plan = NULL;
    rip_net_layout L;
    memset(&L, 0, sizeof L);
    char why[RIP_ERR_LEN];
    rip_status rc = rip_net_problem(net, &go, &p, err);
    if (rc != RIP_OK)
        return rc;
    rc = rip_plan_solve_checked(&p, rip_net_plan_strategy(k), &po, true, &plan, why);
    if (rc == RIP_OK && k == RIP_NET_PLAN_RIP)
        rc = widen_copy_free(net, &p, plan, why);
    if (rc != RIP_OK)
        snprintf(err, RIP_ERR_LEN, "%.150s: %.350s", net->model->label, why);
    else
        rc = rip_net_layout_from_plan(net, &p, plan, &L, err);
    if (rc == RIP_OK && L_out)
        *L_out = L;
    else
        rip_net_layout_free(&L);
    if (rc == RIP_OK && plan_out)
        *plan_out = plan;
    else
        rip_plan_free(plan);
    if (rc == RIP_OK && p_out)
        *p_out = p;
    else
        rip_problem_free(&p);
    return rc;
}

rip_status rip_net_problem_from_file(const char *path, const rip_graph_opts *o, rip_problem *p, char err[RIP_ERR_LEN])
{
    rip_tfl_model m;
    rip_net net;
    memset(&net, 0, sizeof net);
    memset(p, 0, sizeof *p);
    rip_status rc = rip_tfl_model_load(path, &m, err);
    if (rc == RIP_OK && (rc = rip_net_build(&m, &net, err)) == RIP_OK)
        rc = rip_net_problem(&net, o, p, err);
    rip_net_free(&net);
    rip_tfl_model_free(&m);
    return rc;
}
