/*
** tinyengine.c — the `tinyengine` strategy: the paper's baseline, TinyEngine's
** memory scheduler (mit-han-lab/tinyengine code_generator/
** GeneralMemoryScheduler.py with allocator/firstFit.py), plus the
** opportunistic in-place placement of RiP candidates.
**
** What TinyEngine does (read from its code, not from the paper):
**   - in-place depthwise: the depthwise output takes its input's tensor, so
**     input and output become one rectangle ("same graph index");
**   - the rectangles are sorted by size, largest first (sortSize(); ties
**     keep their creation order, i.e. the order of first use);
**   - each is placed at the lowest offset of a free slot that holds it,
**     among the rectangles already placed whose lifetimes overlap (first
**     fit by address, FirstFit.fit()).
** Here: every op's first ALIAS candidate whose input dies there (the
** depthwise ones with --no-rip; with RiP also elementwise ops and upsampling)
** chains its input and output into one group that shares an offset.  A
** group's size is its largest member; groups are placed largest first,
** ties by their first tensor's index, each at the lowest aligned offset
** where every member fits beside the placed tensors that meet it in time.
** Then, with RiP candidates, a group may instead go where one of its GAP
** candidates (or an ALIAS candidate not used for grouping) with an already
** placed partner is satisfied exactly: output gap bytes below the input
** (r = 0; shifts are never scheduled), or at the input's offset for ALIAS.
** The lowest such position that is free wins, else plain first fit; each
** op still overwrites at most one input.
**
** With --no-rip this reproduces every Tab. 3 "Base" peak (tests/test_plan.c),
** and each equals the live-bytes lower bound.  First fit in schedule order
** (tensors by first step) does not: it reaches 8 of the 11 and misses
** MCUNet-in0 (66,816 for 46,080), in4 (691,200 for 409,600) and Person-Det
** (389,120 for 245,760), because a small early tensor placed first takes
** the low addresses that the large expand output at op 3 needs.
** With RiP candidates (default) it reaches the Tab. 3 RiP peak on 8 of the
** 11 and strands the gaps on the other three: MCUNet-in2 204,800 (= Base),
** in3 216,832 (RiP bound 185,856), VWW2 165,888 (= Base).
** Not modelled: TinyEngine's quirks (its slot list is edited while being
** iterated; rectangles with identical lifetimes are not seen as
** overlapping) and its stride-2 depthwise rectangle shrinking to a quarter
** after the op (our depthwise output is its own tensor of N_out bytes at
** the same offset, which is the same thing).  RiP with first fit strands
** reclaimed gaps (paper Sec. 4.3, Fig. 1); the MILP is the RiP allocator.
*/
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "place.h"
#include "plan.h"
#include "strategies.h"

typedef struct group_key {
    int64_t size;
    int idx;    /* first member's tensor index */
} group_key;

static int cmp_group(const void *a, const void *b)
{
    const group_key *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Can every member of the group starting at `head` (linked by next[]) sit
** at x beside the placed tensors? */
static bool group_fits(const rip_placer *pl, const int *next, int head, int64_t x)
{
    for (int m = head; m >= 0; m = next[m])
        if (!rip_placer_free_at(pl, m, x, pl->p->t[m].size, -1))
            return false;
    return true;
}

/* Chain each op's first ALIAS candidate whose input dies there into
** next/prev (all -1 before), marking it in place and its op busy. */
static void chain_aliases(const rip_problem *p, int *next, int *prev, bool *op_busy, rip_plan *out)
{
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        if (c->kind != RIP_INPLACE_ALIAS || p->t[c->in].last != c->op || p->t[c->out].first != c->op)
            continue;
        if (op_busy[c->op] || next[c->in] >= 0 || prev[c->out] >= 0)
            continue;
        next[c->in] = c->out;
        prev[c->out] = c->in;
        out->in_place[k] = true;
        op_busy[c->op] = true;
    }
}

/* The groups (chain heads with their largest member's size) into groups,
** largest first; their count. */
static size_t sorted_groups(const rip_problem *p, const int *next, const int *prev, group_key *groups)
{
    size_t ng = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (prev[i] >= 0)
            continue;
        int64_t size = 0;
        for (int m = (int)i; m >= 0; m = next[m])
            size = p->t[m].size > size ? p->t[m].size : size;
        groups[ng++] = (group_key){size, (int)i};
    }
    qsort(groups, ng, sizeof *groups, cmp_group);
    return ng;
}

/* The lowest free in-place position of the group at head against a placed
** partner (RiP candidates), its candidate in *used_k; -1 (and *used_k -1) when none. */
static int64_t inplace_position(const rip_placer *pl, const int *next, const bool *placed, const bool *op_busy,
                                const rip_plan *out, int head, long *used_k)
{
    const rip_problem *p = pl->p;
    int64_t x = -1;
    *used_k = -1;
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        if (op_busy[c->op] || p->t[c->in].last != c->op || p->t[c->out].first != c->op)
            continue;
        bool in_here = false, out_here = false;
        for (int m = head; m >= 0; m = next[m]) {
            in_here |= m == c->in;
            out_here |= m == c->out;
        }
        int64_t want;
        if (out_here && !in_here && placed[c->in])
            want = out->offset[c->in] - c->gap;
        else if (in_here && !out_here && placed[c->out])
            want = out->offset[c->out] + c->gap;
        else
            continue;
        if (want < 0 || (x >= 0 && want >= x))
            continue;
        /* the pair itself may overlap: test with the partner ignored */
        bool ok = true;
        for (int m = head; m >= 0 && ok; m = next[m])
            ok = rip_placer_free_at(pl, m, want, p->t[m].size, out_here ? c->in : c->out);
        if (ok) {
            x = want;
            *used_k = (long)k;
        }
    }
    return x;
}

/* First fit: the lowest candidate offset (0 or an aligned block end) where
** every member of the group at head fits; xs is scratch for n + n_cand + 1
** offsets; -1 when none. */
static int64_t first_fit_position(const rip_placer *pl, const int *next, const rip_plan *out, int head,
                                  int64_t *xs)
{
    const rip_problem *p = pl->p;
    int64_t x = -1;
    size_t nx = 0;
    xs[nx++] = 0;
    for (size_t j = 0; j < pl->n_placed; j++) {
        int u = pl->by_off[j];
        bool meets = false;
        for (int m = head; m >= 0 && !meets; m = next[m])
            meets = rip_tensors_meet(&p->t[m], &p->t[u]);
        if (meets)
            xs[nx++] = rip_align_up(out->offset[u] + p->t[u].size, p->align);
    }
    qsort(xs, nx, sizeof *xs, cmp_i64);
    for (size_t j = 0; j < nx && x < 0; j++)
        if (group_fits(pl, next, head, xs[j]))
            x = xs[j];
    return x;
}

/*
** The strategy (strategies.h): chain, sort the groups, place each at its
** in-place position or else by first fit.  One cleanup path.
*/
rip_status rip_strategy_tinyengine(const rip_problem *p, const rip_plan_opts *o, rip_plan *out,
                            char err[RIP_ERR_LEN])
{
    (void)o;
    int rc = RIP_S_NOMEM;
    size_t n = p->n, nc = p->n_cand;
    rip_placer pl = {0};
    int *next = malloc((n ? n : 1) * sizeof *next);      /* group chain: next member or -1 */
    int *prev = malloc((n ? n : 1) * sizeof *prev);      /* previous member or -1 */
    bool *placed = calloc(n ? n : 1, sizeof *placed);
    group_key *groups = malloc((n ? n : 1) * sizeof *groups);
    int64_t *xs = malloc((n + nc + 1) * sizeof *xs);
    bool *op_busy = NULL;                                 /* per step: its op overwrites an input already */
    if (next == NULL || prev == NULL || placed == NULL || groups == NULL || xs == NULL ||
        rip_placer_init(&pl, p, out->offset) != 0) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    op_busy = calloc(nc && p->n_steps > 0 ? (size_t)p->n_steps : 1, sizeof *op_busy);
    if (op_busy == NULL) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        next[i] = prev[i] = -1;
    chain_aliases(p, next, prev, op_busy, out);
    size_t ng = sorted_groups(p, next, prev, groups);
    for (size_t gi = 0; gi < ng; gi++) {
        int head = groups[gi].idx;
        long used_k;
        int64_t x = inplace_position(&pl, next, placed, op_busy, out, head, &used_k);
        if (x < 0)
            x = first_fit_position(&pl, next, out, head, xs);
        if (used_k >= 0) {
            out->in_place[used_k] = true;
            op_busy[p->cand[used_k].op] = true;
        }
        for (int m = head; m >= 0; m = next[m]) {
            rip_placer_put(&pl, m, x);
            placed[m] = true;
        }
    }
    out->peak = rip_plan_peak(p, out);
    rc = 0;
done:
    rip_placer_free(&pl);
    free(next);
    free(prev);
    free(placed);
    free(groups);
    free(xs);
    free(op_busy);
    return rc;
}
