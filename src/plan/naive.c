/*
** naive.c — the `naive` strategy: every tensor its own block.
**
** Tensors are laid end to end in index order (model input first, then op
** outputs in execution order), each offset the previous end rounded up to
** the alignment.  Nothing is shared and nothing is in place, so the peak is
** the sum of all sizes (plus alignment padding): the "no planning at all"
** reference of the memory-planning lesson, Sec. 4.5 (1,920 KB there).
*/
#include "plan.h"
#include "strategies.h"

rip_status rip_strategy_naive(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    (void)o;
    (void)err;
    const int64_t align = p->align >= 1 ? p->align : 1;
    int64_t end = 0;
    for (size_t i = 0; i < p->n; i++) {
        out->offset[i] = rip_align_up(end, align);
        end = out->offset[i] + p->t[i].size;
    }
    out->peak = rip_plan_peak(p, out);
    return 0;
}
