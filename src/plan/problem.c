/*
** problem.c — plans and problems: allocation and release, the peak of a
** plan, the limits of a problem and the live-bytes lower bound (plan.h).
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
** starts or some candidate's op runs, so only those steps are evaluated,
** in one sweep over the lifetimes sorted by start and by end:
** O((n + candidates) log(n + candidates)) (131,072 intervals: tens of
** milliseconds; the earlier per-step rescan took 78 s there).  Sums are
** taken in 128 bits and saturate at INT64_MAX.  The bound ignores
** alignment and fragmentation: it is what Tab. 3 and Tab. 7 report, and
** first fit reaches it on the Tab. 3 models.
*/
#include <stdlib.h>
#include <string.h>

#include "plan.h"

__extension__ typedef __int128 wide;

static int64_t clamp64(wide v)
{
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}

rip_plan *rip_plan_new(const rip_problem *p, const char *strategy)
{
    rip_plan *plan = calloc(1, sizeof *plan);
    if (plan == NULL)
        return NULL;
    snprintf(plan->strategy, sizeof plan->strategy, "%s", strategy ? strategy : "");
    plan->offset = calloc(p->n ? p->n : 1, sizeof *plan->offset);
    plan->in_place = calloc(p->n_cand ? p->n_cand : 1, sizeof *plan->in_place);
    plan->shift = calloc(p->n_cand ? p->n_cand : 1, sizeof *plan->shift);
    plan->lower_bound = rip_problem_lower_bound(p);
    if (plan->offset == NULL || plan->in_place == NULL || plan->shift == NULL || plan->lower_bound < 0) {
        rip_plan_free(plan);
        return NULL;
    }
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
    wide peak = 0;
    for (size_t i = 0; i < p->n; i++) {
        wide end = (wide)plan->offset[i] + p->t[i].size;
        if (end > peak)
            peak = end;
    }
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        if (!plan->in_place[k] || !plan->shift[k] || c->kind != RIP_INPLACE_GAP)
            continue;
        wide end = (wide)plan->offset[c->in] + c->gap + p->t[c->in].size;
        if (end > peak)
            peak = end;
    }
    return clamp64(peak);
}

rip_status rip_problem_check_total(const rip_problem *p, char err[RIP_ERR_LEN])
{
    if (p->align < 1 || p->align > RIP_PLAN_ALIGN_MAX) {
        snprintf(err, RIP_ERR_LEN, "problem %.60s: alignment %lld is not in [1, %lld]", p->name, (long long)p->align,
                 (long long)RIP_PLAN_ALIGN_MAX);
        return RIP_S_DATA;
    }
    wide total = 0;
    for (size_t i = 0; i < p->n; i++)
        total += (wide)(p->t[i].size > 0 ? p->t[i].size : 0) + p->align;
    for (size_t k = 0; k < p->n_cand; k++)
        total += p->cand[k].gap > 0 ? p->cand[k].gap : 0;
    if (total > RIP_PLAN_TOTAL_MAX) {
        snprintf(err, RIP_ERR_LEN,
                 "problem %.60s: its %zu tensors and %zu gaps add up to more than 2^62 bytes, the planner's limit "
                 "(offsets must stay within 64 bits)",
                 p->name, p->n, p->n_cand);
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/* Bytes saved at its op by using candidate c (0 if its pair is not both
** live there, as in a hand-made problem). */
static wide saving(const rip_problem *p, const rip_candidate *c)
{
    const rip_tensor *in = &p->t[c->in], *out = &p->t[c->out];
    if (in->first > c->op || in->last < c->op || out->first > c->op || out->last < c->op)
        return 0;
    wide uni;
    if (c->kind == RIP_INPLACE_ALIAS)
        uni = in->size > out->size ? in->size : out->size;
    else
        uni = out->size > (wide)c->gap + in->size ? out->size : (wide)c->gap + in->size;
    wide s = (wide)in->size + out->size - uni;
    return s > 0 ? s : 0;
}

typedef struct event {
    int64_t step;
    wide bytes;
} event;

static int cmp_event(const void *a, const void *b)
{
    const event *x = a, *y = b;
    return (x->step > y->step) - (x->step < y->step);
}

int64_t rip_problem_lower_bound(const rip_problem *p)
{
    size_t n = p->n, m = p->n_cand;
    event *starts = malloc((n ? n : 1) * sizeof *starts);
    event *ends = malloc((n ? n : 1) * sizeof *ends);
    event *cands = malloc((m ? m : 1) * sizeof *cands);
    event *q = malloc((n + m ? n + m : 1) * sizeof *q); /* the steps to evaluate */
    int64_t lb = -1;
    if (starts == NULL || ends == NULL || cands == NULL || q == NULL)
        goto done;
    for (size_t i = 0; i < n; i++) {
        starts[i] = (event){p->t[i].first, p->t[i].size};
        ends[i] = (event){p->t[i].last, p->t[i].size};
        q[i] = (event){p->t[i].first, 0};
    }
    for (size_t k = 0; k < m; k++) {
        cands[k] = (event){p->cand[k].op, saving(p, &p->cand[k])};
        q[n + k] = (event){p->cand[k].op, 0};
    }
    qsort(starts, n, sizeof *starts, cmp_event);
    qsort(ends, n, sizeof *ends, cmp_event);
    qsort(cands, m, sizeof *cands, cmp_event);
    qsort(q, n + m, sizeof *q, cmp_event);

    wide live = 0, best_lb = 0;
    size_t a = 0, e = 0, c = 0;
    for (size_t i = 0; i < n + m; i++) {
        int64_t s = q[i].step;
        if (i > 0 && s == q[i - 1].step)
            continue;
        while (a < n && starts[a].step <= s)
            live += starts[a++].bytes;
        while (e < n && ends[e].step < s)
            live -= ends[e++].bytes;
        while (c < m && cands[c].step < s)
            c++;
        wide best = 0;
        for (size_t k = c; k < m && cands[k].step == s; k++)
            if (cands[k].bytes > best)
                best = cands[k].bytes;
        if (live - best > best_lb)
            best_lb = live - best;
    }
    lb = clamp64(best_lb);

done:
    free(starts);
    free(ends);
    free(cands);
    free(q);
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
