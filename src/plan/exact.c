/*
** exact.c — the `exact` strategy: an exact branch and bound for problems
** without in-place candidates (raw buffer lists, dual-buffer graphs), in the
** spirit of MiniMalloc (Moffitt, ASPLOS 2024).  Written from the ideas of
** that paper, not from its code.
**
** Canonical solutions.  Take any valid placement and let every buffer fall
** as low as it can ("gravity"): each one then sits at offset 0 or directly
** on top of (at the aligned end of) a buffer that overlaps it in time and
** lies below it.  Gravity never raises the peak, so some optimal placement
** is of this form.  Sorting its buffers by offset gives an order in which
** every buffer's offset is its *floor*, the highest aligned top of the
** buffers already placed that overlap it in time.  The search builds
** placements in that order: offsets never decrease along a branch.
**
** Branching.  At a node, lvl is the lowest floor among the buffers that
** may still go there, and C the buffers whose floor is lvl (an offset is
** only ever 0 or the aligned top of a placed neighbour).  Two rules:
**   level   one child per member of C placed at lvl, the i-th forbidding
**           the members tried before it at lvl (so each set of buffers at
**           lvl is enumerated once, in one order), and a last child where
**           none of C sits at lvl;
**   section take the time section covered by the fewest members of C (then
**           the one whose bound has cut the most nodes so far, then the
**           least slack); those members overlap each other, so at most
**           one of them sits at lvl: one child per member, and a last one
**           where none does.
** The cut counts are learned and used only by the searches at the
** tightest target: deciding a capacity, and the minimizing probes at the
** proven bound lo.  They are kept over all of those runs (every run of the
** portfolio and every probe at lo adds to them, so a restart starts from
** what the earlier ones learned, and a rising lo keeps them) and only
** order the branching, so they cost no completeness.  They send the search
** to the crowded part of time that keeps failing (on MiniMalloc's set I two
** of 178 sections cut most nodes).  Set I decides in 173 k nodes instead
** of 1.44 M and is proven optimal in 294 k instead of 1.99 M; A..H, J and
** K decide in the same nodes (C, E within ten).  The probes between lo and
** the best plan neither learn nor use them: learned and used there they
** misled D (after 60 s its best plan was 1,004,544 instead of 993,280),
** only learned there they made I's probes at lo slower (397 k); counting
** the cuts of the level-branching runs too decided I in 339 k.
** A buffer forbidden at lvl ("lifted") must later rest on a buffer placed
** above lvl; it becomes placeable again when a newly placed neighbour
** raises its floor.
**
** Inference, dominance and symmetry.
**   - Section bound: time splits into sections between consecutive lifetime
**     ends.  The buffers still to place in a section lie above the tops
**     placed there and above the lowest of their own lower bounds, and are
**     stacked: peak >= that base + their summed sizes.  Per buffer, peak >=
**     its lower bound + size, the lower bound being its floor, the current
**     level for the set being solved, and for a lifted buffer the lowest
**     top any unplaced neighbour can reach.  Nodes above the target die.
**   - A member of C that every unplaced neighbour must clear anyway (each
**     one's lower bound is at or above lvl + its size) is placed at lvl
**     without branching: it can be lowered there in any completion.
**   - Identical buffers (same size and lifetime) are stacked in index
**     order: a buffer becomes placeable only after its identical
**     predecessor.
**   - Decomposition: the unplaced buffers split into groups that do not
**     overlap in time, directly or through other unplaced buffers; given
**     what is placed the groups are independent, so each is solved on its
**     own, and a group that cannot be completed fails its node without
**     retrying the others.
**   - Failed states are remembered (a direct-mapped table of 128-bit keys:
**     the set being completed and each unplaced buffer's floor and lift
**     level, with the target): a state reached again by another order of
**     placements is not searched twice.
**   - Dominance: levels never fall along a branch, so a buffer that can no
**     longer sit at its floor f while the level has reached f + its size
**     could drop to f in any completion: such a node is cut.
**   - Restarts: the time a search takes depends heavily on its order (one
**     finds a plan in milliseconds where another needs minutes), so a
**     target is attacked by a portfolio of seven static and dynamic orders
**     (ex_configs), round robin with a node budget doubling per round.
**     Each run is complete on its own; the first to end decides.
**
** Target.  opts.capacity > 0: stop at the first plan whose peak is within
** it (a greedy first-fit plan that already fits is returned at once).
** opts.capacity == 0: minimize.  Tight targets prune hardest, so targets
** are probed between lo (proven: no plan below it; first the live-bytes
** bound) and the best peak found (first the greedy one): lo itself, then
** midpoints with a quarter of lo's node budget; a probe that runs out of
** its budget is skipped over, the budget doubling each time the probes
** meet the best peak.  Targets are multiples of the sizes' gcd (ex_grain:
** no plan's peak lies between two).  The plan is
** proven optimal when lo reaches the best peak (or the best peak is the
** lower bound).  opts.time_limit > 0 stops the search; minimizing then
** returns the best plan so far (optimal = false).
**
** Returns RIP_OK, or RIP_S_FAILED when a capacity cannot be met (err says
** whether that was proven or the time ran out; the best plan found is
** still written to out), RIP_S_DATA for a problem with in-place
** candidates (use milp), RIP_S_NOMEM on OOM.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "status.h"
#include "plan.h"

int rip_strategy_exact(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);

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

static double ex_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int ex_set(ex_search *s, int64_t *addr, int64_t v)
{
    if (s->trail_len == s->trail_cap) {
        size_t cap = s->trail_cap ? 2 * s->trail_cap : 1024;
        ex_trail *t = realloc(s->trail, cap * sizeof *t);
        if (!t) {
            s->oom = true;
            return -1;
        }
        s->trail = t;
        s->trail_cap = cap;
    }
    s->trail[s->trail_len].addr = addr;
    s->trail[s->trail_len].old = *addr;
    s->trail_len++;
    *addr = v;
    return 0;
}

static void ex_undo(ex_search *s, size_t mark)
{
    while (s->trail_len > mark) {
        s->trail_len--;
        *s->trail[s->trail_len].addr = s->trail[s->trail_len].old;
    }
}

/* Place buffer b at offset off (all changes on the trail). */
static int ex_place(ex_search *s, int b, int64_t off)
{
    int64_t ptop = off + s->psize[b];
    if (ex_set(s, &s->placed[b], 1) || ex_set(s, &s->x[b], off) ||
        ex_set(s, &s->n_placed, s->n_placed + 1))
        return -1;
    if (off + s->size[b] > s->top && ex_set(s, &s->top, off + s->size[b]))
        return -1;
    for (int k = s->adj_start[b]; k < s->adj_start[b + 1]; k++) {
        int c = s->adj[k];
        if (!s->placed[c] && s->f[c] < ptop && ex_set(s, &s->f[c], ptop))
            return -1;
    }
    for (int q = s->s0[b]; q < s->s1[b]; q++) {
        if (ex_set(s, &s->S[q], s->S[q] - s->psize[b]))
            return -1;
        if (s->h[q] < ptop && ex_set(s, &s->h[q], ptop))
            return -1;
    }
    return 0;
}

static bool ex_available(const ex_search *s, int c)
{
    if (s->placed[c] || s->f[c] <= s->ex[c])
        return false;
    return s->twin_prev[c] < 0 || s->placed[s->twin_prev[c]];
}

/* Sort candidates: larger key first, then lower index. */
static const ex_search *ex_sort_ctx;

static int ex_cmp(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (ex_sort_ctx->dyn_t && ex_sort_ctx->dkey[i] != ex_sort_ctx->dkey[j])
        return ex_sort_ctx->dkey[i] > ex_sort_ctx->dkey[j] ? -1 : 1;
    double ai = ex_sort_ctx->key1[i], aj = ex_sort_ctx->key1[j];
    if (ai != aj)
        return ai > aj ? -1 : 1;
    int64_t ki = ex_sort_ctx->key2[i], kj = ex_sort_ctx->key2[j];
    if (ki != kj)
        return ki > kj ? -1 : 1;
    return (i > j) - (i < j);
}

static uint64_t ex_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The key of a node: what its subtree depends on, i.e. the set U being
** completed and, per member, its floor and (if lifted) its lift level.
** Buffers outside U do not meet U's members in time (U is a component of
** the unplaced buffers, or a union of them), and the tops placed in U's
** sections are at most the floors of U's members there, so two nodes with
** the same key have the same completions. */
static void ex_key(const ex_search *s, size_t ub, size_t nu, uint64_t k[2])
{
    uint64_t a = 0x1234567ULL + nu, b = 0x7654321ULL + nu;
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        uint64_t e = s->f[c] <= s->ex[c] ? (uint64_t)s->ex[c] + 1 : 0;
        uint64_t v = ((uint64_t)s->f[c] << 1) ^ (e * 0x2545f4914f6cdd1dULL) ^ ((uint64_t)c << 48);
        a += ex_mix(v ^ 0xa0761d6478bd642fULL);
        b += ex_mix(v ^ 0xe7037ed1a0b428dbULL) * 3;
    }
    k[0] = a;
    k[1] = b;
}

/* Reserve k more ints on the list pool; returns the base index or -1. */
static long ex_pool_push(ex_search *s, size_t k)
{
    if (s->pool_len + k > s->pool_cap) {
        size_t cap = s->pool_cap ? s->pool_cap : 1024;
        while (cap < s->pool_len + k)
            cap *= 2;
        int *np = realloc(s->pool, cap * sizeof *np);
        if (!np) {
            s->oom = true;
            return -1;
        }
        s->pool = np;
        s->pool_cap = cap;
    }
    size_t b = s->pool_len;
    s->pool_len += k;
    return (long)b;
}

/*
** Complete the placement of the unplaced buffers U = pool[ub, ub + nu)
** within the target.  Returns 1 on success, with the placements kept on the
** trail; 0 when U cannot be completed (state restored); -1 to stop (time
** limit, OOM).  Unplaced buffers that do not overlap, directly or through
** other unplaced buffers, are independent given what is placed: U is split
** into its components, solved one after the other, and a component that
** fails fails the node without retrying the others (their placements cannot
** matter to it).
*/
static int ex_solve_node(ex_search *s, size_t ub, size_t nu);

static int ex_solve(ex_search *s, size_t ub, size_t nu)
{
    if (nu == 0)
        return 1;
    s->nodes++;
    if (s->nodes >= s->node_limit) {
        s->timed_out = true;
        return -1;
    }
    if ((s->nodes & 1023) == 0 && s->deadline > 0 && ex_now() > s->deadline) {
        s->timed_out = true;
        return -1;
    }
    uint64_t key[2];
    ex_key(s, ub, nu, key);
    uint64_t *slot = s->memo[key[0] & s->memo_mask];
    if (slot[0] == key[0] && slot[1] == key[1] && (uint64_t)s->target <= slot[2])
        return 0;   /* this state failed before, within this target or a larger one */
    int rc = ex_solve_node(s, ub, nu);
    if (rc == 0) {
        slot = s->memo[key[0] & s->memo_mask];
        slot[0] = key[0];
        slot[1] = key[1];
        slot[2] = (uint64_t)s->target;
    }
    return rc;
}

/* Mark the members of U = pool[ub, ub + nu) in s->mem with a fresh stamp;
** returns the stamp (later helpers tell U's members by it). */
static int64_t ex_mark_set(ex_search *s, size_t ub, size_t nu)
{
    int64_t stamp = ++s->stamp;
    for (size_t i = 0; i < nu; i++)
        s->mem[s->pool[ub + i]] = stamp;
    return stamp;
}

/*
** The components of the overlap graph restricted to U = pool[ub, ub + nu):
** writes U's members to pool[cb, cb + nu) grouped by component, component
** c ending at comp_end[c] (relative to cb), and returns the number of
** components.  Lifetimes are intervals, so a component is a run of
** sections and two runs split at a section boundary that no member of U
** crosses: a difference array over the boundaries finds the splits in
** O(nu + sections), where a graph search would walk every overlap.  The
** order within a component is U's.  Cannot fail: pool[cb...] must be
** reserved already.
*/
static size_t ex_find_components(ex_search *s, size_t ub, size_t nu, size_t cb)
{
    int *cross = s->cnt, *comp = s->secid;
    int lo = s->nsec, hi = 0;
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        if (s->s0[c] < lo)
            lo = s->s0[c];
        if (s->s1[c] > hi)
            hi = s->s1[c];
    }
    for (int q = lo; q <= hi; q++)
        cross[q] = 0;
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        if (s->s1[c] - s->s0[c] > 1) {
            cross[s->s0[c] + 1]++;
            cross[s->s1[c]]--;
        }
    }
    /* comp[q]: the run of section q; run counts members crossing boundary q */
    int run = 0, id = 0;
    comp[lo] = 0;
    for (int q = lo + 1; q < hi; q++) {
        run += cross[q];
        if (run == 0)
            id++;
        comp[q] = id;
    }
    if (id == 0) {
        for (size_t i = 0; i < nu; i++)
            s->pool[cb + i] = s->pool[ub + i];
        s->comp_end[0] = nu;
        return 1;
    }
    /* counting sort of U by run; empty runs dropped */
    size_t *start = s->comp_end;
    for (int k = 0; k <= id; k++)
        start[k] = 0;
    for (size_t i = 0; i < nu; i++)
        start[comp[s->s0[s->pool[ub + i]]]]++;
    size_t ncomp = 0, acc = 0;
    for (int k = 0; k <= id; k++) {
        size_t m = start[k];
        start[k] = acc;
        acc += m;
        if (m)
            ncomp++;
    }
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        s->pool[cb + start[comp[s->s0[c]]]++] = c;
    }
    /* start[k] is now the end of run k: keep the ends of non-empty runs */
    size_t out = 0, prev = 0;
    for (int k = 0; k <= id; k++) {
        if (start[k] > prev)
            s->comp_end[out++] = start[k];
        prev = start[k];
    }
    return out;
}

/* ex_solve_components's answer when U is a single component. */
#define EX_CONNECTED 2

/*
** Decomposition.  U = pool[ub, ub + nu), nu > 1, its members marked with
** stamp.  When U splits into several components, solves them one after the
** other and returns 1 (all completed, placements kept on the trail), 0 (one
** cannot be completed; trail restored) or -1 (stop: time limit, OOM).  When
** U is connected, returns EX_CONNECTED with the pool and U's marks as on
** entry: the caller branches on U itself.
*/
static int ex_solve_components(ex_search *s, size_t ub, size_t nu, int64_t stamp)
{
    size_t pool_mark = s->pool_len;
    size_t mark = s->trail_len;
    long cb = ex_pool_push(s, nu);
    if (cb < 0)
        return -1;
    size_t ncomp = ex_find_components(s, ub, nu, (size_t)cb);
    if (ncomp > 1) {
        /* comp_end is scratch shared by every depth: copy it to the pool
        ** before the recursive calls overwrite it */
        long eb = ex_pool_push(s, ncomp);
        if (eb < 0)
            return -1;
        for (size_t c = 0; c < ncomp; c++)
            s->pool[(size_t)eb + c] = (int)s->comp_end[c];
        for (size_t c = 0; c < ncomp; c++) {
            size_t from = c ? (size_t)s->pool[(size_t)eb + c - 1] : 0;
            size_t to = (size_t)s->pool[(size_t)eb + c];
            int r = ex_solve(s, (size_t)cb + from, to - from);
            if (r != 1) {
                ex_undo(s, mark);
                s->pool_len = pool_mark;
                return r;
            }
        }
        s->pool_len = pool_mark;
        return 1;
    }
    s->pool_len = pool_mark;
    for (size_t i = 0; i < nu; i++)
        s->mem[s->pool[ub + i]] = stamp;
    return EX_CONNECTED;
}

/* The level of U = pool[ub, ub + nu): the lowest floor among its placeable
** buffers; EX_INF when none is placeable. */
static int64_t ex_level(const ex_search *s, size_t ub, size_t nu)
{
    int64_t lvl = EX_INF;
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        if (ex_available(s, c) && s->f[c] < lvl)
            lvl = s->f[c];
    }
    return lvl;
}

/*
** Dominance.  Every placement still to come in U is at lvl or above (levels
** never decrease along a branch).  A member c of U that is not placeable
** and whose floor f_c has f_c + size_c <= lvl would, in any completion,
** sit at lvl or higher with [f_c, f_c + size_c) free below it during its
** lifetime (placed neighbours end at or below f_c, later ones start at lvl
** or above): it could drop to f_c without raising the peak.  A completion
** with c dropped is found in the branch that placed c at f_c, so this node
** cannot hold a plan the search needs.  True when the node is dominated.
*/
static bool ex_dominated(const ex_search *s, size_t ub, size_t nu, int64_t lvl)
{
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        if (s->f[c] < lvl && s->f[c] + s->size[c] <= lvl)
            return true;
    }
    return false;
}

/*
** First lower bound of every member of U = pool[ub, ub + nu), into s->low:
** its floor, at least lvl; for a lifted buffer, at least its lift level
** plus the smallest neighbour it could rest on.  Also sets s->slo, s->shi,
** the span of sections U covers.  Returns false when a lifted buffer has
** no neighbour at all to rest on (the node fails).
*/
static bool ex_buffer_lows(ex_search *s, size_t ub, size_t nu, int64_t lvl)
{
    int lo = s->nsec, hi = 0;
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        int64_t low = s->f[c] > lvl ? s->f[c] : lvl;
        if (s->f[c] <= s->ex[c]) {
            if (s->minnb[c] == EX_INF)
                return false;  /* lifted with nothing left to rest on */
            int64_t l2 = s->ex[c] + s->minnb[c];
            if (l2 > low)
                low = l2;
        }
        s->low[c] = low;
        if (s->s0[c] < lo)
            lo = s->s0[c];
        if (s->s1[c] > hi)
            hi = s->s1[c];
    }
    s->slo = lo;
    s->shi = hi;
    return true;
}

/* A lifted member of U rests on a neighbour still to be placed (all of
** them are in U): raises its s->low to the lowest top an unplaced
** neighbour can reach.  Returns false when no unplaced neighbour is left
** (the node fails). */
static bool ex_lifted_lows(ex_search *s, size_t ub, size_t nu)
{
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        if (s->f[c] > s->ex[c])
            continue;
        int64_t m = EX_INF;
        for (int k = s->adj_start[c]; k < s->adj_start[c + 1]; k++) {
            int d = s->adj[k];
            if (!s->placed[d] && s->low[d] + s->psize[d] < m)
                m = s->low[d] + s->psize[d];
        }
        if (m == EX_INF)
            return false;
        if (m > s->low[c])
            s->low[c] = m;
    }
    return true;
}

/*
** The bounds against the target, from s->low: per member of U (its low +
** size) and per section of U's span (the base of what is left there, the
** higher of the tops placed and the lowest low, plus its summed sizes:
** only U's members are left in those sections).  Returns false when a
** bound exceeds the target (the node fails); otherwise fills s->minlow and
** s->qslack (per section: target - bound) for section branching.
*/
static bool ex_within_target(ex_search *s, size_t ub, size_t nu)
{
    for (int q = s->slo; q < s->shi; q++)
        s->minlow[q] = EX_INF;
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        int64_t low = s->low[c];
        if (low + s->size[c] > s->target)
            return false;
        /* branch-free: this loop is the search's hottest, and a compare
        ** per section mispredicts often (about a fifth faster on set I) */
        int64_t *ml = s->minlow;
        for (int q = s->s0[c]; q < s->s1[c]; q++) {
            int64_t m = ml[q];
            ml[q] = low < m ? low : m;
        }
    }
    for (int q = s->slo; q < s->shi; q++) {
        if (s->S[q] <= 0)
            continue;
        int64_t base = s->h[q] > s->minlow[q] ? s->h[q] : s->minlow[q];
        if (base + s->S[q] - s->slack > s->target) {
            if (s->by_section && s->use_secw)
                s->secw[q]++;
            return false;
        }
        s->qslack[q] = s->target - (base + s->S[q] - s->slack);
    }
    return true;
}

/* The candidates at lvl (placeable members of U whose floor is lvl), pushed
** on the pool at *c0 (pool_len ends right after them).  Returns their
** number, or -1 on OOM. */
static long ex_candidates(ex_search *s, size_t ub, size_t nu, int64_t lvl, size_t *c0)
{
    size_t nc = 0;
    long cb = ex_pool_push(s, nu);
    if (cb < 0)
        return -1;
    for (size_t i = 0; i < nu; i++) {
        int c = s->pool[ub + i];
        if (ex_available(s, c) && s->f[c] == lvl)
            s->pool[(size_t)cb + nc++] = c;
    }
    s->pool_len = (size_t)cb + nc;
    *c0 = (size_t)cb;
    return (long)nc;
}

/* Dominance: the first candidate of pool[c0, c0 + nc) that every unplaced
** neighbour must clear anyway (each one's low is at or above lvl + its
** size), which is then placed at lvl without branching; -1 when none. */
static int ex_forced(const ex_search *s, size_t c0, size_t nc, int64_t lvl)
{
    for (size_t i = 0; i < nc; i++) {
        int c = s->pool[c0 + i];
        int64_t top = lvl + s->psize[c];
        bool clear = true;
        for (int k = s->adj_start[c]; k < s->adj_start[c + 1] && clear; k++) {
            int d = s->adj[k];
            if (!s->placed[d] && s->low[d] < top)
                clear = false;
        }
        if (clear)
            return c;
    }
    return -1;
}

/* Section branching: the section covered by the fewest candidates of
** pool[c0, c0 + nc), then the one whose bound has cut the most nodes so far
** (s->secw), then the one with the least slack (s->qslack); -1 under level
** branching.  Uses s->cnt as scratch. */
static int ex_branch_section(ex_search *s, size_t c0, size_t nc)
{
    int best = -1;
    if (!s->by_section)
        return best;
    for (int q = s->slo; q < s->shi; q++)
        s->cnt[q] = 0;
    for (size_t i = 0; i < nc; i++) {
        int c = s->pool[c0 + i];
        for (int q = s->s0[c]; q < s->s1[c]; q++)
            s->cnt[q]++;
    }
    for (int q = s->slo; q < s->shi; q++) {
        if (s->cnt[q] == 0)
            continue;
        if (best < 0 || s->cnt[q] < s->cnt[best])
            best = q;
        else if (s->cnt[q] == s->cnt[best] && s->use_secw && s->secw[q] != s->secw[best]) {
            if (s->secw[q] > s->secw[best])
                best = q;
        } else if (s->cnt[q] == s->cnt[best] && s->qslack[q] < s->qslack[best])
            best = q;
    }
    return best;
}

/* Keeps the candidates of pool[c0, c0 + nc) that cover section best (all
** of them when best < 0), sorted into branching order (ex_cmp, under the
** current keys); returns how many are kept. */
static size_t ex_order_candidates(ex_search *s, size_t c0, size_t nc, int best)
{
    size_t k = 0;
    for (size_t i = 0; i < nc; i++) {
        int c = s->pool[c0 + i];
        if (best < 0 || (s->s0[c] <= best && best < s->s1[c]))
            s->pool[c0 + k++] = c;
    }
    if (s->dyn_t)
        for (size_t i = 0; i < k; i++) {
            int c = s->pool[c0 + i];
            int64_t m = 0;
            for (int q = s->s0[c]; q < s->s1[c]; q++)
                if (s->S[q] > m)
                    m = s->S[q];
            s->dkey[c] = m;
        }
    ex_sort_ctx = s;
    qsort(s->pool + c0, k, sizeof(int), ex_cmp);
    return k;
}

/*
** One child per candidate of pool[c0, c0 + nc): place it at lvl and
** complete U without it.  With lift (level branching), a candidate whose
** child failed is forbidden at lvl for the later children, so each set of
** buffers at lvl is tried once.  Returns 1 (a child completed U, its
** placements kept on the trail), 0 (no child did; the lifts stay on the
** trail) or -1 (stop).
*/
static int ex_children_at_level(ex_search *s, size_t ub, size_t nu, size_t c0, size_t nc,
                                int64_t lvl, bool lift)
{
    int rc = 0;
    for (size_t i = 0; i < nc; i++) {
        int c = s->pool[c0 + i];
        size_t m2 = s->trail_len;
        long nb = ex_pool_push(s, nu - 1);
        if (nb < 0 || ex_place(s, c, lvl)) {
            rc = -1;
            break;
        }
        size_t k = 0;
        for (size_t j = 0; j < nu; j++)
            if (s->pool[ub + j] != c)
                s->pool[(size_t)nb + k++] = s->pool[ub + j];
        rc = ex_solve(s, (size_t)nb, nu - 1);
        s->pool_len = (size_t)nb;
        if (rc != 0)
            break;
        ex_undo(s, m2);
        if (lift && ex_set(s, &s->ex[c], lvl)) {
            rc = -1;
            break;
        }
    }
    return rc;
}

/* The last child: none of the candidates of pool[c0, c0 + nc) sits at lvl
** (each is lifted there), and U is completed above.  Returns as ex_solve. */
static int ex_child_none_at_level(ex_search *s, size_t ub, size_t nu, size_t c0, size_t nc,
                                  int64_t lvl)
{
    for (size_t i = 0; i < nc; i++)
        if (ex_set(s, &s->ex[s->pool[c0 + i]], lvl))
            return -1;
    return ex_solve(s, ub, nu);
}

/* See the contract at the declaration above: decompose, find the level,
** bound, then branch on the candidates at the level. */
static int ex_solve_node(ex_search *s, size_t ub, size_t nu)
{
    size_t pool_mark = s->pool_len;
    size_t mark = s->trail_len;

    int64_t stamp = ex_mark_set(s, ub, nu);
    if (nu > 1) {
        int r = ex_solve_components(s, ub, nu, stamp);
        if (r != EX_CONNECTED)
            return r;
    }

    int64_t lvl = ex_level(s, ub, nu);
    if (lvl == EX_INF)
        return 0;  /* every buffer left is lifted and nothing can raise it */
    if (ex_dominated(s, ub, nu, lvl))
        return 0;

    /* bounds, over every unplaced buffer (U's lie at or above the level) */
    if (!ex_buffer_lows(s, ub, nu, lvl) || !ex_lifted_lows(s, ub, nu) || !ex_within_target(s, ub, nu))
        return 0;

    size_t c0;
    long got = ex_candidates(s, ub, nu, lvl, &c0);
    if (got < 0)
        return -1;
    size_t nc = (size_t)got;
    int forced = ex_forced(s, c0, nc, lvl);
    int best = -1;
    if (forced >= 0) {
        s->pool[c0] = forced;
        nc = 1;
    } else {
        best = ex_branch_section(s, c0, nc);
        nc = ex_order_candidates(s, c0, nc, best);
    }
    s->pool_len = c0 + nc;

    int rc = ex_children_at_level(s, ub, nu, c0, nc, lvl, best < 0 && forced < 0);
    if (rc == 0 && forced < 0)
        rc = ex_child_none_at_level(s, ub, nu, c0, nc, lvl);
    if (rc != 1)
        ex_undo(s, mark);
    s->pool_len = pool_mark;
    return rc;
}

/* Greedy first fit, largest buffers first: a quick upper bound. */
static int64_t ex_greedy(const ex_search *s, int64_t *x)
{
    int n = s->n;
    int *order = malloc((size_t)n * sizeof *order);
    int64_t (*iv)[2] = malloc((size_t)n * sizeof *iv);
    bool *done = calloc((size_t)n, sizeof *done);
    int64_t peak = -1;
    if (!order || !iv || !done)
        goto out;
    for (int i = 0; i < n; i++)
        order[i] = i;
    ex_sort_ctx = s;
    qsort(order, (size_t)n, sizeof *order, ex_cmp);
    peak = 0;
    for (int k = 0; k < n; k++) {
        int b = order[k];
        int m = 0;
        for (int j = s->adj_start[b]; j < s->adj_start[b + 1]; j++) {
            int c = s->adj[j];
            if (done[c]) {
                iv[m][0] = x[c];
                iv[m][1] = x[c] + s->psize[c];
                m++;
            }
        }
        /* lowest offset among 0 and placed tops that clears every interval */
        int64_t best = EX_INF;
        for (int t = -1; t < m; t++) {
            int64_t cand = t < 0 ? 0 : iv[t][1];
            if (cand >= best)
                continue;
            bool ok = true;
            for (int u = 0; u < m && ok; u++)
                if (cand < iv[u][1] && iv[u][0] < cand + s->psize[b])
                    ok = false;
            if (ok)
                best = cand;
        }
        x[b] = best;
        done[b] = true;
        if (best + s->size[b] > peak)
            peak = best + s->size[b];
    }
out:
    free(order);
    free(iv);
    free(done);
    return peak;
}

/*
** Restarts.  The time a search takes depends heavily on its branching
** order (a heavy tail: one order finds a plan in a few hundred nodes where
** another needs millions), so a target is attacked by a portfolio of
** orders, round robin, with a node budget that doubles every round
** (counted in nodes, not seconds, so that a run is the same on a busy
** machine).  Each run is complete on its own, so the first one that ends
** decides: a plan (1) or none exists (0).  Failed states are facts about
** the problem, not the order, so the memo is shared by all runs and all
** (decreasing) targets.
**
** The static orders rank buffers lexicographically by up to three keys,
** larger first: W the lifetime, A the area (size x lifetime), T the
** largest section total the buffer spans (the summed sizes of the most
** crowded moment it lives through), Z the size.  Ties fall to the lower
** index.  A leading t is T taken at the node (the sizes still to place
** in the buffer's sections), so the most crowded part of what is left
** goes first.  Which order wins differs per instance (on MiniMalloc's
** sets: H falls to tAW in a few thousand nodes, I to section tWA or WZA,
** most others to the first three); the list is short so that the budget
** of each grows fast.  The last EX_EXTRA_CONFIGS (TAW, level and
** section) decided none of A..K first: deciding a capacity and probing
** the proven bound go without them (every set then decides in as many
** nodes or fewer: I in 1.44 M instead of 1.75 M, E in 348 k instead of
** 442 k), but the probes between the bound and the best plan keep them
** (without them at all, J's best plan after 60 s was 1,022,976 instead
** of 1,012,736 in a side-by-side run; J's figure at 60 s varies with the
** load, between those two).
*/
#define EX_EXTRA_CONFIGS 2

static const struct {
    bool by_section;
    char keys[4];
} ex_configs[] = {
    {true, "ZAW"}, {false, "WAT"}, {false, "TWA"}, {true, "WZA"},
    {false, "AWT"}, {false, "tAW"}, {true, "tWA"}, {false, "TAW"}, {true, "TAW"},
};

static const ex_search *ex_rank_ctx;
static const char *ex_rank_keys;

static double ex_key_of(const ex_search *s, int i, char k)
{
    const rip_tensor *t = &s->p->t[i];
    double len = (double)(t->last - t->first + 1);
    switch (k) {
    case 'W': return len;
    case 'A': return len * (double)s->psize[i];
    case 'T': return (double)s->total[i];
    default: return (double)s->psize[i];
    }
}

static int ex_rank_cmp(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    for (const char *k = ex_rank_keys; *k; k++) {
        double ki = ex_key_of(ex_rank_ctx, i, *k), kj = ex_key_of(ex_rank_ctx, j, *k);
        if (ki != kj)
            return ki > kj ? -1 : 1;
    }
    return (i > j) - (i < j);
}

/* Branching keys for the order named by keys: key1 = n - rank (the first
** in the order gets the largest), key2 = 0.  order is n ints of scratch. */
static void ex_set_keys(ex_search *s, const char *keys, int *order)
{
    for (int i = 0; i < s->n; i++)
        order[i] = i;
    s->dyn_t = keys[0] == 't';
    ex_rank_ctx = s;
    ex_rank_keys = s->dyn_t ? keys + 1 : keys;
    qsort(order, (size_t)s->n, sizeof *order, ex_rank_cmp);
    for (int r = 0; r < s->n; r++) {
        s->key1[order[r]] = (double)(s->n - r);
        s->key2[order[r]] = 0;
    }
}

/* Where a portfolio stopped for its node budget: the round's slice and
** the first run not completed (slice 0: from the start). */
typedef struct ex_resume {
    uint64_t slice;
    size_t k;
} ex_resume;

/* Returns 1 (plan within target, kept in best_x / best_peak), 0 (none
** exists), -1 (node budget, time limit or OOM).  budget caps the nodes
** of the whole call (0: none).  resume (may be NULL) starts the round
** robin where an earlier call on the same target ran out of budget, and
** is updated when this one does: its completed runs are not repeated
** (they would only re-walk states the memo holds or fail the same way).
** full: every order, else all but the last EX_EXTRA_CONFIGS. */
static int ex_portfolio(ex_search *s, size_t all, int64_t target, uint64_t budget, ex_resume *resume,
                        bool full)
{
    size_t nconf = sizeof ex_configs / sizeof ex_configs[0];
    if (!full)
        nconf -= EX_EXTRA_CONFIGS;
    uint64_t used = 0;
    bool saved = false;
    s->target = target;
    uint64_t slice0 = resume && resume->slice ? resume->slice : 2 * (uint64_t)s->n + 64;
    size_t k0 = resume && resume->slice ? resume->k : 0;
    for (uint64_t slice = slice0;; slice *= 2, k0 = 0) {
        for (size_t k = k0; k < nconf; k++) {
            s->by_section = ex_configs[k].by_section;
            ex_set_keys(s, ex_configs[k].keys, s->order);
            uint64_t run = slice;
            if (budget > 0 && used + run > budget)
                run = budget > used ? budget - used : 0;
            if (run < slice && resume && !saved) {
                resume->slice = slice;
                resume->k = k;
                saved = true;
            }
            if (run == 0)
                return -1;
            uint64_t start = s->nodes;
            s->node_limit = s->nodes + run;
            s->timed_out = false;
            s->pool_len = all + (size_t)s->n;
            int r = ex_solve(s, all, (size_t)s->n);
            used += s->nodes - start;
            if (r == 1) {
                s->best_peak = s->top;
                memcpy(s->best_x, s->x, (size_t)s->n * sizeof *s->x);
                ex_undo(s, 0);
                return 1;
            }
            ex_undo(s, 0);
            if (r == 0 || s->oom)
                return s->oom ? -1 : 0;
            if (s->deadline > 0 && ex_now() >= s->deadline)
                return -1;
        }
    }
}

static int ex_cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void ex_free(ex_search *s)
{
    free(s->size); free(s->psize); free(s->s0); free(s->s1); free(s->minnb);
    free(s->twin_prev); free(s->adj_start); free(s->adj); free(s->key1); free(s->key2);
    free(s->placed); free(s->x); free(s->f); free(s->ex); free(s->S); free(s->h);
    free(s->trail); free(s->minlow); free(s->qslack); free(s->cnt); free(s->secid); free(s->low); free(s->mem); free(s->comp_end); free(s->total); free(s->secw); free(s->dkey); free(s->order); free(s->pool); free(s->memo); free(s->best_x);
}

/*
** The grain of the peak: every plan the search builds has offsets that are
** 0 or sums of aligned sizes and a peak that is such an offset plus a
** size, so its peak is a multiple of the gcd g of all aligned and real
** sizes (1 when every size is 0).  Gravity never raises a peak, so if no
** plan within t exists, none within t rounded up to the next multiple of
** g minus 1 does either: the minimizing probes need only multiples of g
** (on MiniMalloc's sets, whose sizes are multiples of 1,024, ten of the
** eleven probes of a halving between two plans were at targets no plan
** can tell apart).
*/
static int64_t ex_grain(const ex_search *s)
{
    int64_t g = 0;
    for (int i = 0; i < s->n; i++) {
        int64_t v[2] = {s->size[i], s->psize[i]};
        for (int k = 0; k < 2; k++) {
            int64_t a = g, b = v[k];
            while (b) {
                int64_t r = a % b;
                a = b;
                b = r;
            }
            g = a;
        }
    }
    return g > 0 ? g : 1;
}

static int ex_init(ex_search *s, const rip_problem *p)
{
    int n = (int)p->n;
    int64_t V = p->align >= 1 ? p->align : 1;
    memset(s, 0, sizeof *s);
    s->n = n;
    s->p = p;
    size_t un = (size_t)n + 1;
    s->size = calloc(un, sizeof(int64_t));
    s->psize = calloc(un, sizeof(int64_t));
    s->s0 = calloc(un, sizeof(int));
    s->s1 = calloc(un, sizeof(int));
    s->minnb = calloc(un, sizeof(int64_t));
    s->twin_prev = calloc(un, sizeof(int));
    s->adj_start = calloc(un + 1, sizeof(int));
    s->key1 = calloc(un, sizeof(double));
    s->key2 = calloc(un, sizeof(int64_t));
    s->placed = calloc(un, sizeof(int64_t));
    s->x = calloc(un, sizeof(int64_t));
    s->f = calloc(un, sizeof(int64_t));
    s->ex = calloc(un, sizeof(int64_t));
    s->best_x = calloc(un, sizeof(int64_t));
    s->low = calloc(un, sizeof(int64_t));
    s->mem = calloc(un, sizeof(int64_t));
    s->comp_end = calloc(2 * un + 1, sizeof(size_t));   /* a run per section */
    s->total = calloc(un, sizeof(int64_t));
    s->dkey = calloc(un, sizeof(int64_t));
    s->order = calloc(un, sizeof(int));
    int64_t *pts = calloc(2 * un, sizeof(int64_t));
    if (!s->size || !s->psize || !s->s0 || !s->s1 || !s->minnb || !s->twin_prev ||
        !s->adj_start || !s->key1 || !s->key2 || !s->placed || !s->x || !s->f || !s->ex || !s->best_x || !s->low ||
        !s->mem || !s->comp_end || !s->total || !s->dkey || !s->order || !pts) {
        free(pts);
        return -1;
    }
    /* sections: between consecutive distinct lifetime boundaries */
    for (int i = 0; i < n; i++) {
        pts[2 * i] = p->t[i].first;
        pts[2 * i + 1] = p->t[i].last + 1;
    }
    qsort(pts, 2 * (size_t)n, sizeof *pts, ex_cmp64);
    int m = 0;
    for (int i = 0; i < 2 * n; i++)
        if (m == 0 || pts[m - 1] != pts[i])
            pts[m++] = pts[i];
    s->nsec = m > 0 ? m - 1 : 0;
    for (int i = 0; i < n; i++) {
        const rip_tensor *t = &p->t[i];
        s->size[i] = t->size;
        s->psize[i] = rip_align_up(t->size, V);
        if (s->psize[i] != s->size[i])
            s->slack = V - 1;
        /* binary search the boundaries */
        int lo = 0, hi = m - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (pts[mid] < t->first) lo = mid + 1; else hi = mid;
        }
        s->s0[i] = lo;
        lo = 0, hi = m - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (pts[mid] < t->last + 1) lo = mid + 1; else hi = mid;
        }
        s->s1[i] = lo;
        s->ex[i] = -1;
    }
    free(pts);
    s->memo_mask = ((uint64_t)1 << 20) - 1;
    s->memo = calloc((size_t)s->memo_mask + 1, sizeof *s->memo);
    if (!s->memo)
        return -1;
    s->S = calloc((size_t)s->nsec + 1, sizeof(int64_t));
    s->h = calloc((size_t)s->nsec + 1, sizeof(int64_t));
    s->minlow = calloc((size_t)s->nsec + 1, sizeof(int64_t));
    s->qslack = calloc((size_t)s->nsec + 1, sizeof(int64_t));
    s->cnt = calloc((size_t)s->nsec + 1, sizeof(int));
    s->secid = calloc((size_t)s->nsec + 1, sizeof(int));
    s->secw = calloc((size_t)s->nsec + 1, sizeof(uint64_t));
    if (!s->S || !s->h || !s->minlow || !s->qslack || !s->cnt || !s->secid || !s->secw)
        return -1;
    for (int i = 0; i < n; i++)
        for (int q = s->s0[i]; q < s->s1[i]; q++)
            s->S[q] += s->psize[i];
    for (int i = 0; i < n; i++)
        for (int q = s->s0[i]; q < s->s1[i]; q++)
            if (s->S[q] > s->total[i])
                s->total[i] = s->S[q];
    /* overlap lists */
    size_t na = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && rip_tensors_meet(&p->t[i], &p->t[j]))
                na++;
    s->adj = malloc((na + 1) * sizeof(int));
    if (!s->adj)
        return -1;
    na = 0;
    for (int i = 0; i < n; i++) {
        s->adj_start[i] = (int)na;
        s->minnb[i] = EX_INF;
        s->twin_prev[i] = -1;
        for (int j = 0; j < n; j++) {
            if (i == j || !rip_tensors_meet(&p->t[i], &p->t[j]))
                continue;
            s->adj[na++] = j;
            if (s->psize[j] < s->minnb[i])
                s->minnb[i] = s->psize[j];
            if (j < i && p->t[j].size == p->t[i].size && p->t[j].first == p->t[i].first &&
                p->t[j].last == p->t[i].last)
                s->twin_prev[i] = j;   /* the last identical one before i */
        }
    }
    s->adj_start[n] = (int)na;
    return 0;
}

int rip_strategy_exact(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    double t0 = ex_now();
    rip_plan_opts none = {0};
    if (!o)
        o = &none;
    if (p->n_cand > 0) {
        snprintf(err, RIP_ERR_LEN,
                 "strategy exact: the problem has %zu in-place candidates; exact places raw "
                 "buffers only (use --strategy milp, or build the problem without in-place "
                 "candidates)", p->n_cand);
        return RIP_S_DATA;
    }
    snprintf(out->strategy, sizeof out->strategy, "exact");
    out->lower_bound = rip_problem_lower_bound(p);
    if (out->lower_bound < 0) {
        snprintf(err, RIP_ERR_LEN, "strategy exact: out of memory");
        return RIP_S_NOMEM;
    }
    out->n_vars = out->n_cons = out->n_binaries = 0;
    if (p->n == 0) {
        out->peak = 0;
        out->optimal = true;
        out->seconds = ex_now() - t0;
        return 0;
    }
    if (p->n > (size_t)INT32_MAX / 4) {
        snprintf(err, RIP_ERR_LEN, "strategy exact: too many buffers (%zu)", p->n);
        return RIP_S_DATA;
    }

    ex_search s;
    if (ex_init(&s, p)) {
        ex_free(&s);
        snprintf(err, RIP_ERR_LEN, "strategy exact: out of memory");
        return RIP_S_NOMEM;
    }
    int rc = 0;
    ex_set_keys(&s, "Z", s.order);
    int64_t greedy = ex_greedy(&s, s.best_x);
    s.best_peak = greedy;
    long all = greedy < 0 ? -1 : ex_pool_push(&s, (size_t)s.n);
    if (all < 0) {
        ex_free(&s);
        snprintf(err, RIP_ERR_LEN, "strategy exact: out of memory");
        return RIP_S_NOMEM;
    }
    for (int i = 0; i < s.n; i++)
        s.pool[all + i] = i;
    s.deadline = o->time_limit > 0 ? t0 + o->time_limit : 0;
    /* complete: a search ran to its end without a plan within its target */
    bool complete = false;
    if (o->capacity > 0) {
        s.use_secw = true;
        if (greedy > o->capacity)
            complete = ex_portfolio(&s, (size_t)all, o->capacity, 0, NULL, false) == 0;
    } else {
        /*
        ** Minimize by probing targets between lo (proven: no plan below it)
        ** and the best peak found.  Tight targets prune hardest and the
        ** bound is often the optimum, so every round first probes lo with
        ** the round's node budget, then halves [soft, best - 1] with a
        ** quarter of it each; a probe that runs out moves soft above it
        ** (unproven).  When soft meets the best the budget doubles and
        ** soft falls back to lo.  Ends when lo reaches the best peak
        ** (proven optimal) or at the time limit.
        */
        int64_t g = ex_grain(&s);
        int64_t lo = (out->lower_bound + g - 1) / g * g, soft = lo;
        uint64_t budget = 50000;
        ex_resume at_lo_resume = {0, 0};   /* lo's probes go on where the last one stopped */
        while (lo < s.best_peak) {
            if (soft >= s.best_peak) {
                soft = lo;
                budget *= 2;
            }
            bool at_lo = soft == lo;
            int64_t t = at_lo ? lo : (soft + (s.best_peak - 1 - soft) / 2) / g * g;
            s.use_secw = at_lo;
            int r = at_lo ? ex_portfolio(&s, (size_t)all, t, budget, &at_lo_resume, false)
                          : ex_portfolio(&s, (size_t)all, t, budget / 4, NULL, true);
            if (s.oom)
                break;
            if (r == 1) {
                if (o->verbose)
                    fprintf(stderr, "exact: plan of peak %lld after %.2f s\n", (long long)s.best_peak,
                            ex_now() - t0);
            } else if (r == 0) {
                lo = soft = t + g;
                at_lo_resume = (ex_resume){0, 0};
            } else {
                if (s.deadline > 0 && ex_now() >= s.deadline)
                    break;
                soft = t + g;
            }
        }
        complete = lo >= s.best_peak;
    }
    if (s.oom) {
        ex_free(&s);
        snprintf(err, RIP_ERR_LEN, "strategy exact: out of memory");
        return RIP_S_NOMEM;
    }
    for (int i = 0; i < s.n; i++)
        out->offset[i] = s.best_x[i];
    out->peak = s.best_peak;
    out->optimal = s.best_peak <= out->lower_bound || (o->capacity <= 0 && complete);
    if (o->capacity > 0 && s.best_peak > o->capacity) {
        if (complete)
            snprintf(err, RIP_ERR_LEN,
                     "strategy exact: no plan within capacity %lld bytes exists (search complete "
                     "after %llu nodes); best plan found %lld",
                     (long long)o->capacity, (unsigned long long)s.nodes, (long long)s.best_peak);
        else
            snprintf(err, RIP_ERR_LEN,
                     "strategy exact: time limit %.1f s reached after %llu nodes without a plan "
                     "within capacity %lld bytes; best plan found %lld",
                     o->time_limit, (unsigned long long)s.nodes, (long long)o->capacity,
                     (long long)s.best_peak);
        rc = RIP_S_FAILED;
    }
    if (o->verbose)
        fprintf(stderr, "exact: %d buffers, %d sections, greedy %lld, peak %lld, lower bound %lld, "
                "%llu nodes, %s\n", s.n, s.nsec, (long long)greedy, (long long)s.best_peak,
                (long long)out->lower_bound, (unsigned long long)s.nodes,
                s.timed_out ? "time limit" : "search complete");
    ex_free(&s);
    out->seconds = ex_now() - t0;
    return rc;
}
