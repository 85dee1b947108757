/*
** hill_climb.c — the `hill-climb` strategy: TVM USMP's hill climb
** (apache/tvm src/tir/usmp/algo/hill_climb.cc) in a simpler form.
**
** Start from TVM's greedy-by-size order (sort_vector() in hill_climb.cc:
** size descending, ties by the number of conflicting buffers descending,
** then by name descending) placed by first fit.
** Then, repeatedly: swap two positions of the placement order drawn from a
** PCG32 stream (src/pcg32.h) seeded by opts.seed, re-place by first fit in
** the new order (only from the first changed position on: the prefix keeps
** its offsets), and keep the new order if its peak is no worse (sideways
** moves are accepted so the search can cross plateaus; a worse order is
** swapped back).  Stop as soon as the peak reaches the live-bytes lower
** bound without in-place pairs (then it is optimal among dual-buffered
** plans, and optimal outright when the problem has no candidates), after the iteration budget, or after
** opts.time_limit seconds when that is > 0 (which makes the result depend
** on the machine's speed; the default budget alone is deterministic).
**
** The budget is about 4e8 tensor-pair visits, at least 200 and at most
** 20,000 iterations: 20,000 for the TVM test vectors (5 to 184 buffers),
** about 800 for a 1,000-tensor graph.
**
** The tie-break matters: on the memory-planning lesson's six tensors
** (Sec. 4) TVM's order puts C before B and E before D and lands directly on
** the lesson's slots A,C,F / B,E / D at the 1,280 KB lower bound, where
** greedy-size (ties by index) reaches the same peak with other sharing.
**
** Differences from TVM: TVM picks one of the buffers that set the peak and
** swaps it with a conflicting neighbour (first or second level) and
** accepts some worse orders with a probability falling with the attempt
** number, over at most 500 attempts, seeded by rand_r(0).  Here the swap is
** uniform and only non-worsening orders are kept.  Both stop at the target
** size (TVM: memory_pressure; here: the lower bound).  In-place candidates
** are ignored, as in greedy-size (TVM's USMP has none).
*/
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "pcg32.h"
#include "place.h"
#include "plan.h"
#include "strategies.h"

#define HC_WORK 400000000.0
#define HC_MIN_ITER 200
#define HC_MAX_ITER 20000
/* PCG32 stream selector of the hill climb (any constant; fixed forever so
** that a seed means the same run everywhere). */
#define HC_STREAM 0x68696c6cULL /* "hill" */

typedef struct tvm_key {
    int64_t size;
    int64_t conflicts;
    const char *id;
    int idx;
} tvm_key;

static int cmp_tvm(const void *a, const void *b)
{
    const tvm_key *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    if (x->conflicts != y->conflicts)
        return x->conflicts > y->conflicts ? -1 : 1;
    int c = strcmp(y->id, x->id);
    if (c != 0)
        return c;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* TVM's initial order into order[]; 0, or -1 out of memory.  Conflicts are
** counted over all pairs, O(n^2), a few ms for 1,000 tensors. */
static int tvm_order(const rip_problem *p, int *order)
{
    tvm_key *v = malloc((p->n ? p->n : 1) * sizeof *v);
    if (v == NULL)
        return -1;
    for (size_t i = 0; i < p->n; i++)
        v[i] = (tvm_key){p->t[i].size, 0, p->t[i].id, (int)i};
    for (size_t i = 0; i < p->n; i++)
        for (size_t j = i + 1; j < p->n; j++)
            if (rip_tensors_meet(&p->t[i], &p->t[j])) {
                v[i].conflicts++;
                v[j].conflicts++;
            }
    qsort(v, p->n, sizeof *v, cmp_tvm);
    for (size_t i = 0; i < p->n; i++)
        order[i] = v[i].idx;
    free(v);
    return 0;
}

rip_status rip_strategy_hill_climb(const rip_problem *p, const rip_plan_opts *o, rip_plan *out,
                            char err[RIP_ERR_LEN])
{
    int rc = RIP_S_NOMEM;
    rip_placer pl = {0};
    size_t n = p->n;
    int *order = malloc((n ? n : 1) * sizeof *order);
    int64_t *cur = malloc((n ? n : 1) * sizeof *cur);
    int64_t *try_off = malloc((n ? n : 1) * sizeof *try_off);
    if (order == NULL || cur == NULL || try_off == NULL || tvm_order(p, order) != 0 ||
        rip_placer_init(&pl, p, cur) != 0) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    /* the floor for plans without in-place pairs: the bound of the same
    ** tensors with no candidates */
    rip_problem dual = *p;
    dual.n_cand = 0;
    const int64_t lb = rip_problem_lower_bound(&dual);
    int64_t cur_peak = rip_placer_run(&pl, order, n, 0);

    double pairs = (double)n * (double)n / 2.0 + 1.0;
    double it_d = HC_WORK / pairs;
    long iters = it_d > HC_MAX_ITER ? HC_MAX_ITER : it_d < HC_MIN_ITER ? HC_MIN_ITER : (long)it_d;
    double t0 = rip_plan_clock();
    rip_pcg32 g;
    rip_pcg32_seed(&g, o ? o->seed : 0, HC_STREAM);

    for (long it = 0; it < iters && cur_peak > lb && n >= 2; it++) {
        if (o && o->time_limit > 0 && (it & 15) == 0 && rip_plan_clock() - t0 > o->time_limit)
            break;
        size_t i = rip_pcg32_below(&g, (uint32_t)n), j = rip_pcg32_below(&g, (uint32_t)n);
        if (i == j)
            continue;
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
        size_t s = i < j ? i : j;
        memcpy(try_off, cur, n * sizeof *cur);
        pl.off = try_off;
        rip_placer_load_prefix(&pl, order, s);
        int64_t peak = rip_placer_run(&pl, order, n, s);
        if (peak <= cur_peak) {
            int64_t *sw = cur;
            cur = try_off;
            try_off = sw;
            cur_peak = peak;
        } else {
            order[j] = order[i];
            order[i] = tmp;
        }
    }
    memcpy(out->offset, cur, n * sizeof *cur);
    out->peak = rip_plan_peak(p, out);
    rc = 0;
done:
    rip_placer_free(&pl);
    free(order);
    free(cur);
    free(try_off);
    return rc;
}
