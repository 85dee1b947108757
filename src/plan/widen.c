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
** The pass is greedy and local: for each used GAP candidate (no runtime
** shift) in candidate order whose distance is below the caller's wish, the
** output tensor is moved down to the wished distance (aligned), and the
** move is kept only if the whole plan still passes rip_plan_check (no
** overlap with any tensor live with it, every other candidate's rule,
** including those where the moved tensor is an input) and the peak is
** unchanged; else it is undone.  Moving a block down never raises the
** peak, so a kept move is free by construction.  Limits: it never moves
** two tensors together, never moves the input up, and so misses
** widenings that need room made elsewhere; the order of candidates
** decides which of two competing moves wins.
*/
#include <stdio.h>

#include "plan.h"

rip_status rip_plan_widen_gaps(const rip_problem *p, rip_plan *plan, const int64_t *want, int64_t *n_widened,
                               char err[RIP_ERR_LEN])
{
    char why[RIP_ERR_LEN];
    int64_t kept = 0;
    rip_status rc = RIP_OK;
    if (plan->bound_only) {
        snprintf(err, RIP_ERR_LEN, "a lower bound is no placement to widen");
        return RIP_S_DATA;
    }
    const int64_t peak = rip_plan_peak(p, plan);
    for (size_t k = 0; k < p->n_cand && rc == RIP_OK; k++) {
        const rip_candidate *c = &p->cand[k];
        if (!plan->in_place[k] || c->kind != RIP_INPLACE_GAP || plan->shift[k])
            continue;
        const int64_t x_in = plan->offset[c->in], x_out = plan->offset[c->out];
        if (want[k] <= x_in - x_out)
            continue;
        const int64_t to = x_in - rip_align_up(want[k], p->align);
        if (to < 0)
            continue;
        plan->offset[c->out] = to;
        rip_status ck = rip_plan_peak(p, plan) == peak ? rip_plan_check(p, plan, false, why) : RIP_S_FAILED;
        if (ck == RIP_OK) {
            kept++;
            continue;
        }
        plan->offset[c->out] = x_out;
        if (ck == RIP_S_NOMEM) {
            snprintf(err, RIP_ERR_LEN, "out of memory while checking a widened plan");
            rc = RIP_S_NOMEM;
        }
    }
    plan->peak = rip_plan_peak(p, plan);
    if (n_widened)
        *n_widened = kept;
    return rc;
}
