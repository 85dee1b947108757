/*
** exact_search.c — the branch and bound of the `exact` strategy: one run
** at one target under one buffer order (s->key1/key2, by_section), as the
** header of exact.c explains it: canonical floors, level and section
** branching, section bounds, dominance, twins, decomposition into
** components and the memo of failed states.  exact.c chooses the orders,
** restarts and targets.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exact_internal.h"

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

/* Sort idx[0, k) into branching order under s's current keys. */
static void ex_sort(const ex_search *s, int *idx, size_t k)
{
    ex_sort_ctx = s;
    qsort(idx, k, sizeof *idx, ex_cmp);
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
    ex_sort(s, s->pool + c0, k);
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


/* The entry points of exact_internal.h: wrappers, so that the search's own
** calls stay to static functions the compiler may inline into its
** recursion; the driver calls each a few times per run. */
double rip_ex_now(void)
{
    return ex_now();
}

void rip_ex_undo(ex_search *s, size_t mark)
{
    ex_undo(s, mark);
}

long rip_ex_pool_push(ex_search *s, size_t k)
{
    return ex_pool_push(s, k);
}

int rip_ex_solve(ex_search *s, size_t ub, size_t nu)
{
    return ex_solve(s, ub, nu);
}

void rip_ex_sort(const ex_search *s, int *idx, size_t k)
{
    ex_sort(s, idx, k);
}
