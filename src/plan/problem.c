/*
** problem.c — plans, problems and graphs: allocation and release, the
** peak of a plan, and the live-bytes lower bound (plan.h, graph.h).
**
** Lower bound.  At a step s the bytes that must be resident are the sizes
** of all tensors live at s; an in-place candidate of the op at step s may
** let its input and output share memory, so the pair counts as its
** smallest union, ALIAS max(N_in, N_out), GAP max(N_out, gap + N_in).  An
** op overwrites at most one input, so at most one candidate per step is
** credited: the one saving the most.  The maximum over steps of
**     live(s) - max_saving(s)
** bounds every valid plan from below (no plan can hold fewer bytes than
** are resident at once).  It is attained at a step where some tensor
** starts or some candidate's op runs, so only those steps are evaluated:
** O(n (n + n_cand)) time, no allocation, which is milliseconds for the
** 1,006-tensor EfficientNetV2-L and for interval files of thousands of
** buffers.  The bound ignores alignment and fragmentation: it is what
** Tab. 3 and Tab. 7 report, and first fit reaches it on the Tab. 3 models.
*/
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "plan.h"

rip_plan *rip_plan_new(const rip_problem *p, const char *strategy)
{
    rip_plan *plan = calloc(1, sizeof *plan);
    if (plan == NULL)
        return NULL;
    snprintf(plan->strategy, sizeof plan->strategy, "%s", strategy ? strategy : "");
    plan->offset = calloc(p->n ? p->n : 1, sizeof *plan->offset);
    plan->in_place = calloc(p->n_cand ? p->n_cand : 1, sizeof *plan->in_place);
    plan->shift = calloc(p->n_cand ? p->n_cand : 1, sizeof *plan->shift);
    if (plan->offset == NULL || plan->in_place == NULL || plan->shift == NULL) {
        rip_plan_free(plan);
        return NULL;
    }
    plan->lower_bound = rip_problem_lower_bound(p);
    return plan;
}

void rip_plan_free(rip_plan *plan)
{
    if (plan == NULL)
        return;
    free(plan->offset);
    free(plan->in_place);
    free(plan->shift);
    free(plan);
}

int64_t rip_plan_peak(const rip_problem *p, const rip_plan *plan)
{
    int64_t peak = 0;
    for (size_t i = 0; i < p->n; i++) {
        int64_t end = plan->offset[i] + p->t[i].size;
        if (end > peak)
            peak = end;
    }
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        if (!plan->in_place[k] || !plan->shift[k] || c->kind != RIP_INPLACE_GAP)
            continue;
        int64_t end = plan->offset[c->in] + c->gap + p->t[c->in].size;
        if (end > peak)
            peak = end;
    }
    return peak;
}

/* Bytes saved at its op by using candidate c (0 if its pair is not both
** live there, as in a hand-made problem). */
static int64_t saving(const rip_problem *p, const rip_candidate *c)
{
    const rip_tensor *in = &p->t[c->in], *out = &p->t[c->out];
    if (in->first > c->op || in->last < c->op || out->first > c->op || out->last < c->op)
        return 0;
    int64_t uni;
    if (c->kind == RIP_INPLACE_ALIAS)
        uni = in->size > out->size ? in->size : out->size;
    else
        uni = out->size > c->gap + in->size ? out->size : c->gap + in->size;
    int64_t s = in->size + out->size - uni;
    return s > 0 ? s : 0;
}

/* live(s) - max_saving(s) at step s. */
static int64_t resident(const rip_problem *p, int64_t s)
{
    int64_t live = 0, best = 0;
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].first <= s && s <= p->t[i].last)
            live += p->t[i].size;
    for (size_t k = 0; k < p->n_cand; k++) {
        if (p->cand[k].op != s)
            continue;
        int64_t v = saving(p, &p->cand[k]);
        if (v > best)
            best = v;
    }
    return live - best;
}

int64_t rip_problem_lower_bound(const rip_problem *p)
{
    int64_t lb = 0;
    for (size_t i = 0; i < p->n; i++) {
        int64_t v = resident(p, p->t[i].first);
        if (v > lb)
            lb = v;
    }
    for (size_t k = 0; k < p->n_cand; k++) {
        int64_t v = resident(p, p->cand[k].op);
        if (v > lb)
            lb = v;
    }
    return lb;
}

void rip_problem_free(rip_problem *p)
{
    if (p == NULL)
        return;
    free(p->t);
    free(p->cand);
    p->t = NULL;
    p->cand = NULL;
    p->n = p->n_cand = 0;
}

void rip_graph_free(rip_graph *g)
{
    if (g == NULL)
        return;
    free(g->ops);
    g->ops = NULL;
    g->n_ops = 0;
}
