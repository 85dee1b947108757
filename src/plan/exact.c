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
** returns the best plan so far (optimal = false).  opts.node_limit > 0
** stops minimizing after the first probe that passes that many nodes in
** all: the same result on any machine, where a time limit is not.
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

#include "status.h"
#include "plan.h"
#include "plan_log.h"
#include "exact_internal.h"

rip_status rip_strategy_exact(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);

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
    rip_ex_sort(s, order, (size_t)n);
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
            int r = rip_ex_solve(s, all, (size_t)s->n);
            used += s->nodes - start;
            if (r == 1) {
                s->best_peak = s->top;
                memcpy(s->best_x, s->x, (size_t)s->n * sizeof *s->x);
                rip_ex_undo(s, 0);
                return 1;
            }
            rip_ex_undo(s, 0);
            if (r == 0 || s->oom)
                return s->oom ? -1 : 0;
            if (s->deadline > 0 && rip_ex_now() >= s->deadline)
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

/* The time sections (between consecutive distinct lifetime boundaries:
** s->nsec) and, per buffer, its size, aligned size (V) and first and
** past-the-end section (s0, s1).  0, or -1 out of memory. */
static int ex_sections(ex_search *s, const rip_problem *p, int64_t V)
{
    int n = s->n;
    int64_t *pts = calloc(2 * ((size_t)n + 1), sizeof(int64_t));
    if (!pts)
        return -1;
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
    return 0;
}

/* The overlap lists (adj, CSR by adj_start), each buffer's smallest
** neighbour (minnb) and its last identical twin before it (twin_prev).
** 0, or -1 out of memory. */
static int ex_overlaps(ex_search *s, const rip_problem *p)
{
    int n = s->n;
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

/* The search's state for p in a fresh *s: every per-buffer and
** per-section array, the sections, the failed-state table and the overlap
** lists.  0, or -1 out of memory (ex_free releases what was allocated). */
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
    if (!s->size || !s->psize || !s->s0 || !s->s1 || !s->minnb || !s->twin_prev ||
        !s->adj_start || !s->key1 || !s->key2 || !s->placed || !s->x || !s->f || !s->ex || !s->best_x || !s->low ||
        !s->mem || !s->comp_end || !s->total || !s->dkey || !s->order)
        return -1;
    if (ex_sections(s, p, V))
        return -1;
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
    return ex_overlaps(s, p);
}

/* The stage before any search: refuse candidates and sizes the search
** cannot index, fill out's header (strategy, lower bound, program size 0)
** and place an empty problem (*done set).  RIP_OK; RIP_S_DATA or
** RIP_S_NOMEM with err. */
static rip_status ex_begin(const rip_problem *p, rip_plan *out, double t0, bool *done, char err[RIP_ERR_LEN])
{
    *done = false;
    if (p->n_cand > 0) {
        snprintf(err, RIP_ERR_LEN,
                 "the problem has %zu in-place candidates; exact places raw "
                 "buffers only (use --strategy milp, or build the problem without in-place "
                 "candidates)", p->n_cand);
        return RIP_S_DATA;
    }
    snprintf(out->strategy, sizeof out->strategy, "exact");
    out->lower_bound = rip_problem_lower_bound(p);
    if (out->lower_bound < 0) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    out->n_vars = out->n_cons = out->n_binaries = 0;
    if (p->n == 0) {
        out->peak = 0;
        out->optimal = true;
        out->seconds = rip_ex_now() - t0;
        *done = true;
        return RIP_OK;
    }
    if (p->n > (size_t)INT32_MAX / 4) {
        snprintf(err, RIP_ERR_LEN, "too many buffers (%zu)", p->n);
        return RIP_S_DATA;
    }
    return RIP_OK;
}

/* The search's state for p in *s: the greedy first-fit plan as the best so
** far (*greedy its peak) and every buffer in the pool from *all on.
** RIP_OK; RIP_S_NOMEM with err, s freed. */
static rip_status ex_setup(ex_search *s, const rip_problem *p, int64_t *greedy, long *all, char err[RIP_ERR_LEN])
{
    if (ex_init(s, p)) {
        ex_free(s);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    ex_set_keys(s, "Z", s->order);
    *greedy = ex_greedy(s, s->best_x);
    s->best_peak = *greedy;
    *all = *greedy < 0 ? -1 : rip_ex_pool_push(s, (size_t)s->n);
    if (*all < 0) {
        ex_free(s);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    for (int i = 0; i < s->n; i++)
        s->pool[*all + i] = i;
    return RIP_OK;
}

/*
** Minimize by probing targets between lo (proven: no plan below it) and
** the best peak found.  Tight targets prune hardest and the bound is often
** the optimum, so every round first probes lo with the round's node
** budget, then halves [soft, best - 1] with a quarter of it each; a probe
** that runs out moves soft above it (unproven).  When soft meets the best
** the budget doubles and soft falls back to lo.  Ends when lo reaches the
** best peak (proven optimal: returns true), at the time limit, at o's node
** limit or out of memory (s->oom).  lower_bound: the live-bytes bound; t0
** the call's start, for the trace.
*/
static bool ex_minimize(ex_search *s, const rip_plan_opts *o, size_t all, int64_t lower_bound, double t0)
{
    int64_t g = ex_grain(s);
    int64_t lo = (lower_bound + g - 1) / g * g, soft = lo;
    uint64_t budget = 50000;
    ex_resume at_lo_resume = {0, 0};   /* lo's probes go on where the last one stopped */
    while (lo < s->best_peak) {
        if (soft >= s->best_peak) {
            soft = lo;
            budget *= 2;
        }
        bool at_lo = soft == lo;
        int64_t t = at_lo ? lo : (soft + (s->best_peak - 1 - soft) / 2) / g * g;
        s->use_secw = at_lo;
        int r = at_lo ? ex_portfolio(s, all, t, budget, &at_lo_resume, false)
                      : ex_portfolio(s, all, t, budget / 4, NULL, true);
        if (s->oom)
            break;
        if (r == 1) {
            if (o->verbose)
                rip_plan_log(o, "exact: plan of peak %lld after %.2f s", (long long)s->best_peak,
                             rip_ex_now() - t0);
        } else if (r == 0) {
            lo = soft = t + g;
            at_lo_resume = (ex_resume){0, 0};
        } else {
            if (s->deadline > 0 && rip_ex_now() >= s->deadline)
                break;
            soft = t + g;
        }
        if (o->node_limit > 0 && s->nodes >= o->node_limit)
            break;   /* the node budget: the same stop on any machine */
    }
    return lo >= s->best_peak;
}

/* The best plan of the search into out (offsets, peak, optimal: it meets
** the bound, or minimizing ended complete), and the capacity verdict:
** RIP_OK, or RIP_S_FAILED with err when the best plan exceeds
** o->capacity (proven when complete, else the time ran out). */
static rip_status ex_finish(const ex_search *s, const rip_plan_opts *o, bool complete, rip_plan *out,
                            char err[RIP_ERR_LEN])
{
    for (int i = 0; i < s->n; i++)
        out->offset[i] = s->best_x[i];
    out->peak = s->best_peak;
    out->optimal = s->best_peak <= out->lower_bound || (o->capacity <= 0 && complete);
    if (o->capacity <= 0 || s->best_peak <= o->capacity)
        return RIP_OK;
    if (complete)
        snprintf(err, RIP_ERR_LEN,
                 "no plan within capacity %lld bytes exists (search complete "
                 "after %llu nodes); best plan found %lld",
                 (long long)o->capacity, (unsigned long long)s->nodes, (long long)s->best_peak);
    else
        snprintf(err, RIP_ERR_LEN,
                 "time limit %.1f s reached after %llu nodes without a plan "
                 "within capacity %lld bytes; best plan found %lld",
                 o->time_limit, (unsigned long long)s->nodes, (long long)o->capacity,
                 (long long)s->best_peak);
    return RIP_S_FAILED;
}

/* Contract: this file's opening comment (Target, Returns) and strategies.h. */
rip_status rip_strategy_exact(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    double t0 = rip_ex_now();
    rip_plan_opts none = {0};
    if (!o)
        o = &none;
    bool done = false;
    rip_status st = ex_begin(p, out, t0, &done, err);
    if (st != RIP_OK || done)
        return st;
    ex_search s;
    int64_t greedy = 0;
    long all = 0;
    if ((st = ex_setup(&s, p, &greedy, &all, err)) != RIP_OK)
        return st;
    s.deadline = o->time_limit > 0 ? t0 + o->time_limit : 0;
    /* complete: a search ran to its end without a plan within its target */
    bool complete = false;
    if (o->capacity > 0) {
        s.use_secw = true;
        if (greedy > o->capacity)
            complete = ex_portfolio(&s, (size_t)all, o->capacity, 0, NULL, false) == 0;
    } else {
        complete = ex_minimize(&s, o, (size_t)all, out->lower_bound, t0);
    }
    if (s.oom) {
        ex_free(&s);
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    int rc = ex_finish(&s, o, complete, out, err);
    if (o->verbose)
        rip_plan_log(o, "exact: %d buffers, %d sections, greedy %lld, peak %lld, lower bound %lld, "
                     "%llu nodes, %s", s.n, s.nsec, (long long)greedy, (long long)s.best_peak,
                     (long long)out->lower_bound, (unsigned long long)s.nodes,
                     s.timed_out ? "time limit" : "search complete");
    ex_free(&s);
    out->seconds = rip_ex_now() - t0;
    return rc;
}
