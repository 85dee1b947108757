/*
** widen.c — widening a plan's gaps where it costs nothing (plan.h,
** rip_plan_widen_gaps).
**
** A GAP candidate's gap is the least distance at which its kernel is safe,
** not always the distance at which it runs fastest: the in-place 1x1
** convolution reads a pixel where it lies only while the pixel's writes
** stay below its reads, and copies the others through scratch
** (rk_conv2d_rip_direct_gap says from which distance none is).  A planner
** that minimises the peak leaves many such outputs right at the gap, or
** closer than the copy-free distance, although the arena has room below
** them at that step.
**
** The pass is greedy and local.  Tensors a used ALIAS candidate joins
** share an offset, so they move together (a group).  For each used GAP
** candidate (no runtime shift), last to first, whose distance is below the
** caller's wish, the shortfall (aligned) is made up by moving the output's
** group down or, failing that, the input's group up; a move is kept only
** if the whole plan still passes rip_plan_check (no overlap with any
** tensor live with a moved one, every other candidate's rule, including
** those where a moved tensor is an input or output) at the same peak, and
** undone otherwise.  Last to first, because in a chain (depthwise over its
** input, then a 1x1 below it, then the next depthwise ...) moving a 1x1's
** input group up leaves room to move the group before it up further.
** Limits: two groups never move together, the order of candidates decides
** which of two competing moves wins, and a wish the arena cannot meet
** within its peak is left unmet.
*/
#include <stdio.h>
#include <stdlib.h>

#include "plan.h"

/* The group of each tensor: the smallest index it is joined to by used
** ALIAS candidates (a union-find flattened). */
static void alias_groups(const rip_problem *p, const rip_plan *plan, size_t *grp)
{
    for (size_t i = 0; i < p->n; i++)
        grp[i] = i;
    for (bool changed = true; changed;) { /* few candidates: iterate to the fixpoint */
        changed = false;
        for (size_t k = 0; k < p->n_cand; k++) {
            const rip_candidate *c = &p->cand[k];
            if (!plan->in_place[k] || c->kind != RIP_INPLACE_ALIAS)
                continue;
            size_t a = grp[c->in], b = grp[c->out], m = a < b ? a : b;
            if (a != b) {
                for (size_t i = 0; i < p->n; i++)
                    if (grp[i] == a || grp[i] == b)
                        grp[i] = m;
                changed = true;
            }
        }
    }
}

/* The least distance candidate k may be left at: its gap, and no less
** than what it has already been given up to its wish (a move never undoes
** another's widening). */
static int64_t floor_of(const rip_problem *p, const rip_plan *plan, const int64_t *want, size_t k)
{
    const rip_candidate *c = &p->cand[k];
    int64_t dist = plan->offset[c->in] - plan->offset[c->out], keep = dist < want[k] ? dist : want[k];
    return keep > c->gap ? keep : c->gap;
}

/*
** Move group g by delta (> 0 up, < 0 down) and, in a cascade, every group
** the move would bring too close: a used GAP candidate (no shift) whose
** input group moves down against its output, or whose output group moves
** up against its input, pushes the other group the same way by the
** shortfall below floor_of.  Keep the moves if every offset stays >= 0 and
** the plan passes rip_plan_check at the same peak (true), else undo them.
** d: scratch of p->n deltas.  *rc set on RIP_S_NOMEM.
*/
static bool try_move(const rip_problem *p, rip_plan *plan, const int64_t *want, const size_t *grp, size_t g,
                     int64_t delta, int64_t peak, int64_t *d, int64_t *floors, rip_status *rc)
{
    char why[RIP_ERR_LEN];
    for (size_t i = 0; i < p->n; i++)
        d[i] = 0;
    for (size_t k = 0; k < p->n_cand; k++)
        floors[k] = plan->in_place[k] && p->cand[k].kind == RIP_INPLACE_GAP ? floor_of(p, plan, want, k) : 0;
    d[g] = delta;
    bool ok = true;
    for (bool changed = true; changed && ok;) {
        changed = false;
        for (size_t k = 0; k < p->n_cand && ok; k++) {
            const rip_candidate *c = &p->cand[k];
            if (!plan->in_place[k] || c->kind != RIP_INPLACE_GAP || plan->shift[k])
                continue;
            const size_t gi = grp[c->in], go = grp[c->out];
            if (gi == go)
                continue;
            const int64_t now = plan->offset[c->in] + d[gi] - plan->offset[c->out] - d[go];
            if (now >= floors[k])
                continue;
            const int64_t short_by = rip_align_up(floors[k] - now, p->align);
            if (delta > 0)
                d[gi] += short_by; /* pushed up: the input follows */
            else
                d[go] -= short_by; /* pushed down: the output follows */
            changed = true;
            ok = d[gi] <= RIP_PLAN_TOTAL_MAX && -d[go] <= RIP_PLAN_TOTAL_MAX;
        }
    }
    for (size_t i = 0; i < p->n && ok; i++)
        ok = plan->offset[i] + d[grp[i]] >= 0;
    if (!ok)
        return false;
    for (size_t i = 0; i < p->n; i++)
        plan->offset[i] += d[grp[i]];
    rip_status ck = rip_plan_peak(p, plan) == peak ? rip_plan_check(p, plan, false, why) : RIP_S_FAILED;
    if (ck == RIP_OK)
        return true;
    for (size_t i = 0; i < p->n; i++)
        plan->offset[i] -= d[grp[i]];
    if (ck == RIP_S_NOMEM)
        *rc = RIP_S_NOMEM;
    return false;
}

rip_status rip_plan_widen_gaps(const rip_problem *p, rip_plan *plan, const int64_t *want, int64_t *n_widened,
                               char err[RIP_ERR_LEN])
{
    int64_t kept = 0;
    rip_status rc = RIP_OK;
    if (plan->bound_only) {
        snprintf(err, RIP_ERR_LEN, "a lower bound is no placement to widen");
        return RIP_S_DATA;
    }
    size_t *grp = malloc((p->n ? p->n : 1) * sizeof *grp);
    int64_t *d = malloc((p->n ? p->n : 1) * sizeof *d), *floors = malloc((p->n_cand ? p->n_cand : 1) * sizeof *floors);
    if (grp == NULL || d == NULL || floors == NULL) {
        free(grp);
        free(d);
        free(floors);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    alias_groups(p, plan, grp);
    const int64_t peak = rip_plan_peak(p, plan);
    for (size_t j = p->n_cand; j-- > 0 && rc == RIP_OK;) {
        const rip_candidate *c = &p->cand[j];
        if (!plan->in_place[j] || c->kind != RIP_INPLACE_GAP || plan->shift[j])
            continue;
        const int64_t dist = plan->offset[c->in] - plan->offset[c->out];
        if (want[j] <= dist || grp[c->in] == grp[c->out])
            continue;
        const int64_t by = rip_align_up(want[j] - dist, p->align);
        if (try_move(p, plan, want, grp, grp[c->out], -by, peak, d, floors, &rc) ||
            (rc == RIP_OK && try_move(p, plan, want, grp, grp[c->in], by, peak, d, floors, &rc)))
            kept++;
    }
    free(d);
    free(floors);
    free(grp);
    if (rc == RIP_S_NOMEM)
        snprintf(err, RIP_ERR_LEN, "out of memory while checking a widened plan");
    plan->peak = rip_plan_peak(p, plan);
    if (n_widened)
        *n_widened = kept;
    return rc;
}
