/*
** exact_internal.h — what the two halves of the exact strategy share: the
** search state (ex_search) and the entry points of the branch and bound
** (exact_search.c) that the driver (exact.c: the orders, the restarts, the
** targets) calls.  Not part of the planner's interface.
*/
#ifndef RIP_EXACT_INTERNAL_H
#define RIP_EXACT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#define EX_INF INT64_MAX

typedef struct ex_trail {
    int64_t *addr;
    int64_t old;
} ex_trail;

typedef struct ex_search {
    int n, nsec;
    const rip_problem *p;
    /* static data */
    int64_t *size, *psize;      /* real and aligned-up size */
    int *s0, *s1;               /* section span [s0, s1) */
    int64_t *minnb;             /* smallest aligned size of a neighbour (EX_INF: none) */
    int *twin_prev;             /* previous identical buffer or -1 */
    int *adj_start, *adj;       /* overlap lists, CSR */
    double *key1;               /* branching order: larger key1, then larger key2 */
    int64_t *key2;
    bool by_section;            /* branch on a section (else on the whole level) */
    bool dyn_t;                 /* order candidates first by dkey, then key1 */
    int64_t *dkey;              /* per buffer: the largest size still to place in its sections */
    int64_t slack;              /* align - 1 if some size is not aligned, else 0 */
    /* dynamic state */
    int64_t *placed;            /* 0/1 (int64_t so the trail can restore it) */
    int64_t *x;
    int64_t *f;                 /* floor: max aligned top of placed neighbours */
    int64_t *ex;                /* lifted at this level (-1: not lifted) */
    int64_t *S;                 /* per section: aligned sizes still to place */
    int64_t *h;                 /* per section: max aligned top placed */
    int64_t top;                /* max real top placed */
    int64_t n_placed;
    ex_trail *trail;
    size_t trail_len, trail_cap;
    /* scratch, per depth */
    int64_t *minlow;            /* per section */
    int64_t *qslack;            /* per section: target - bound */
    int slo, shi;               /* the span of sections of the node's U */
    int *cnt;                   /* per section: candidates covering it */
    int *secid;                 /* per section: scratch */
    int64_t *low;               /* per buffer: lowest offset it can still take */
    int64_t *mem;               /* per buffer: stamp of the set it was last listed in */
    int64_t stamp;
    size_t *comp_end;           /* scratch for components */
    uint64_t (*memo)[3];        /* failed states: direct-mapped (128-bit key, target) */
    uint64_t memo_mask;
    int *pool;                  /* stacked buffer lists */
    size_t pool_len, pool_cap;
    /* result */
    int64_t target;             /* prune nodes whose bound exceeds this */
    int64_t best_peak;
    int64_t *best_x;
    /* limits */
    uint64_t nodes;
    uint64_t node_limit;        /* of the current run (nodes counts all runs) */
    int64_t *total;             /* per buffer: the largest section total it spans */
    uint64_t *secw;             /* per section: how often its bound cut a node under section branching */
    bool use_secw;              /* at the tightest target: section branching learns secw and breaks ties by it */
    int *order;                 /* scratch: n ints */
    double deadline;            /* of the whole search; <= 0: none */
    bool timed_out;
    bool oom;
} ex_search;

/* Monotonic clock, seconds. */
double rip_ex_now(void);

/* Undo the trail down to mark (restores every value set since). */
void rip_ex_undo(ex_search *s, size_t mark);

/* Reserve k ints on s->pool; returns their start, or -1 on OOM (s->oom set). */
long rip_ex_pool_push(ex_search *s, size_t k);

/* Sort the buffers idx[0, k) into branching order under s's current keys. */
void rip_ex_sort(const ex_search *s, int *idx, size_t k);

/*
** Complete the placement of the unplaced buffers U = pool[ub, ub + nu)
** within s->target.  Returns 1 (placed, kept on the trail), 0 (impossible,
** state restored) or -1 (stop: node or time limit, OOM).
*/
int rip_ex_solve(ex_search *s, size_t ub, size_t nu);

#endif
