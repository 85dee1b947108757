/*
** greedy_size.c — the `greedy-size` strategy: TensorFlow Lite Micro's
** GreedyMemoryPlanner (tensorflow/lite/micro/memory_planner/
** greedy_memory_planner.cc, CalculateOffsetsIfNeeded).
**
** Buffers are sorted by size, largest first; the sort is stable, so equal
** sizes keep their insertion order (TFLM's ReverseSortInPlace is a bubble
** sort that swaps only on strict <).  Each buffer in turn goes to the
** lowest offset at which it fits between the already placed buffers whose
** lifetimes overlap its own (first fit over the gaps, place.h).  The first
** one lands at 0.  Reproduces the TFLM unit tests' offsets and maximum
** sizes (tests/data/planner: basics 20, medium 90 with offsets 50, 70, 40,
** 0, 0, overlap case 120, person detection below 241,027).
**
** In-place candidates are ignored: TFLM has no in-place operators (every
** input and output of an op is live at the op's step), so greedy-size
** plans are dual-buffered.  Offline-planned offsets and scratch buffers of
** TFLM are not modelled.
*/
#include <stdlib.h>

#include "status.h"
#include "place.h"
#include "plan.h"
#include "strategies.h"

typedef struct by_size {
    int64_t size;
    int idx;
} by_size;

static int cmp_by_size(const void *a, const void *b)
{
    const by_size *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int rip_greedy_size_order(const rip_problem *p, int *order)
{
    by_size *v = malloc((p->n ? p->n : 1) * sizeof *v);
    if (v == NULL)
        return -1;
    for (size_t i = 0; i < p->n; i++)
        v[i] = (by_size){p->t[i].size, (int)i};
    qsort(v, p->n, sizeof *v, cmp_by_size);
    for (size_t i = 0; i < p->n; i++)
        order[i] = v[i].idx;
    free(v);
    return 0;
}

rip_status rip_strategy_greedy_size(const rip_problem *p, const rip_plan_opts *o, rip_plan *out,
                             char err[RIP_ERR_LEN])
{
    (void)o;
    int rc = RIP_S_NOMEM;
    rip_placer pl = {0};
    int *order = malloc((p->n ? p->n : 1) * sizeof *order);
    if (order == NULL || rip_greedy_size_order(p, order) != 0 || rip_placer_init(&pl, p, out->offset) != 0) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    rip_placer_run(&pl, order, p->n, 0);
    out->peak = rip_plan_peak(p, out);
    rc = 0;
done:
    rip_placer_free(&pl);
    free(order);
    return rc;
}
