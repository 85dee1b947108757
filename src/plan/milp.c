/*
** milp.c — the `milp` strategy: the paper's placement program (Sec. 4.3)
** solved with COIN-OR CBC through its C interface.
**
** Units.  Offsets are integer variables in units of U bytes, U the gcd of
** every tensor size rounded up to the alignment V and every gap (each a
** multiple of V, so U is one too and every offset is V-aligned).  This
** loses nothing: for fixed binaries the constraints are difference
** constraints x_b - x_a >= c with every c a multiple of U, whose least
** solution (longest paths from 0) is componentwise lowest, hence of lowest
** peak, and made of multiples of U.  The peak P is continuous, in the same units (P >= x_t + N_t / U).
**
** Variables.
**   x_t   integer, 0 <= U x_t <= UB - N_t           per tensor
**   P     continuous, LB / U <= P <= UB / U          the peak
**   z_ab  binary, 1: a lies below b                  per pair of tensors
**         whose lifetimes overlap -- only those, not all n(n-1)/2 pairs
**   d_i   binary, candidate i used in place          per candidate whose
**         input dies at its op and whose output is born there (others
**         could not share memory at all and get no variable)
**   r_i   binary, GAP candidate i runs with a shift   per GAP candidate
**         (fixed at 0 when the problem has no_shift: no start plan with a
**         shift is taken then either; rip_plan_check refuses one)
** The paper's encoding has 3 binaries on every one of the n(n-1)/2 pairs
** (3n(n-1)/2) plus 2 per candidate; here a pair costs one binary, and only
** pairs alive together have one (rip_plan n_binaries reports the count).
**
** Constraints (M: per row, the largest value its left side can take, from
** the variable bounds).
**   no overlap, pair (a, b):
**       x_a + s_a <= x_b + M (1 - z_ab) + M sum d_i
**       x_b + s_b <= x_a + M z_ab       + M sum d_i
**     s_t = ceil(N_t / U); the sums run over the candidates of that pair,
**     so a used candidate lifts its pair's disjunction and its rule holds
**     instead:
**   ALIAS i:      x_out = x_in                     if d_i (two big-M rows)
**   GAP i:        x_in - x_out >= gap / U          if d_i and not r_i
**                 x_out = x_in                     if r_i
**                 r_i <= d_i
**     and the shift block: for every other tensor T live at the op's step
**     the row "in below T" becomes x_in + s_in + (gap / U) r_i <= x_T + ...,
**     so [x_in, x_in + gap + N_in) is free of T, and P >= x_in + N_in / U +
**     (gap / U) r_i;
**   at most one used candidate per op output and per input tensor;
**   P >= x_t + N_t / U for every tensor.
** Objective: P + C sum_i (N_in(i) / U) r_i with C = 1e-4 (the paper's peak
** + C sum size_i r_i, divided by U).
**
** Valid inequality.  P >= rip_problem_lower_bound / U (a bound on the
** column): every plan's peak is at least the live-bytes bound, so this
** cuts no feasible point off; it only gives the LP relaxation, which is
** weak under big-M rows, the bound that lets CBC stop as soon as a plan
** reaches it.  Likewise UB, the MIP start's objective in bytes, bounds P
** and the offsets without excluding any plan at least as good as the
** start.
**
** MIP start.  The greedy strategies (tinyengine, which uses candidates,
** greedy-size, hill-climb with a short budget, naive) and, for problems
** without candidates, the exact search (exact.c, a quarter of the time
** limit, at most 30 s) are run until one reaches the lower bound, each
** plan checked with rip_plan_check() and compacted onto the U grid (the
** least solution for its binaries, which only lowers offsets); the best
** one is kept.  Where it misses the lower bound it is improved by a large-
** neighbourhood search with the same program: the tensors alive in a
** window of steps around a tensor that sets the peak are left free, all
** others held at the plan, and CBC minimises the highest top among the
** free ones (a few seconds per window); a result is kept when every free
** tensor ends below the peak, and a window that cannot gain is widened.
** The final plan becomes CBC's start for the whole program
** (Cbc_setMIPStartI with every integer column).  When it reaches the lower
** bound with no shift, its objective equals the bound on P and nothing can
** be better: CBC is not run (the program is still built, for its size).  (On the Tab. 3
** and Tab. 7 graphs tinyengine misses the bound on a few models, e.g.
** MCUNet-in2/in3/VWW2 and the EfficientNetV2 stems; one or two windows of
** under ten free tensors close the gap, where CBC alone on the whole
** program takes minutes on EfficientNetV2-B3 and does not finish within
** 150 s on EfficientNetV2-M/L.)
**
** Result.  CBC's best solution is rounded and checked (if the check fails,
** e.g. numerically, it is compacted with its binaries and checked again;
** if it still fails, the start plan is returned).  plan->optimal: CBC
** proved optimality of the solution returned, or its peak equals the lower
** bound.
**
** Time.  opts.time_limit > 0 bounds the whole call in wall-clock time,
** measured from its entry: listing the pairs, each start heuristic (its
** own share, at most what remains; once time is up only naive runs, and
** only if nothing else gave a plan), the neighbourhood search (until half
** the limit), building the program and CBC (the rest).  CBC's own limit
** is not enough: it is not checked inside the root LP, which alone takes
** over a minute on 300 tensors alive together, so the child process CBC
** runs in (below) is killed at the deadline.  A plan found within the
** limit is returned, optimal only if CBC proved it or it meets the lower
** bound.  Without a limit the search gets 120 s and CBC has none.
** opts.verbose shows CBC's log.
**
** Reproducible runs.  With opts.reproducible (every committed result: Tab.
** 3 and 7, Fig. 1, claims, codegen) no phase looks at the clock: the
** start heuristics run on their iteration and node budgets (hill-climb's
** own, exact MILP_EXACT_START_NODES), the neighbourhood search on
** MILP_LNS_WINDOWS windows of MILP_LNS_WINDOW_NODES CBC nodes, CBC on the
** whole program to its end (single-threaded CBC is deterministic), so the
** plan is the same on a fast machine and on a busy one.  opts.time_limit
** is then a safety net only: when it stops any phase the call fails
** (RIP_S_FAILED) instead of returning a plan that another machine would
** not find.
**
** Failures are not timeouts.  Every CBC run, with a limit or without,
** happens in a child process (milp_run.c): CBC's operator new throws
** std::bad_alloc when memory runs out, which no C caller can catch, so in
** ripsim itself it would abort the process.  A child stopped at the
** deadline is a timeout (the best plan so far, "not proven"); a child
** that dies, exits non-zero, sends a broken answer or cannot be started
** fails the whole call, as does running out of memory anywhere here (a
** start heuristic included): a plan made without the solver's answer is
** never passed off as its result.
**
** Returns RIP_OK, or a rip_status with err: RIP_S_DATA (more tensors or
** candidates than the program can index), RIP_S_NOMEM (out of memory, or
** the solver process failed: rip_milp_run), RIP_S_INTERNAL (no heuristic
** gave a valid plan, or the solver process sent a malformed answer).
**
** Packaging.  This file and milp_run.c alone link CBC (and through it
** Clp, LAPACK, gfortran, libstdc++: 22 shared libraries).  They are built
** as the shared module ripsim-milp.so, which milp_load.c opens the first
** time a plan needs it, so every other ripsim process starts without
** them.  Its one exported symbol is rip_milp_module (milp_module.h).
*/
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "milp_module.h"
#include "milp_run.h"
#include "plan.h"
#include "status.h"
#include "strategies.h"

#define MILP_SHIFT_C 1e-4

/* The budgets of a reproducible run (opts.reproducible), in place of the
** clock: the exact start's search nodes, the neighbourhood search's
** windows and each window's CBC nodes.  On the Tab. 3 and Tab. 7 graphs
** the exact start ends within 1e6 nodes and a window within a few
** hundred CBC nodes; the search needs at most 7 windows per graph. */
#define MILP_EXACT_START_NODES 4000000ULL
#define MILP_LNS_WINDOWS 256
#define MILP_LNS_WINDOW_NODES 20000

typedef struct mp_pair {
    int a, b;          /* a < b */
} mp_pair;

/* One difference constraint x[to] >= x[from] + c (bytes), for compaction. */
typedef struct mp_edge {
    int from, to;
    int64_t c;
    int64_t key;       /* sort key: the source's current offset */
} mp_edge;

typedef struct mp {
    const rip_problem *p;
    int n;
    int64_t U;
    int64_t *s;        /* aligned size in units of U */
    mp_pair *pair;
    int npair;
    int *pair_start;   /* CSR by a: pairs (a, b) for b > a */
    int *cand_pair;    /* per candidate: its pair index, -1 if its pair does not meet */
    bool *usable;      /* per candidate */
    int *shift_of;     /* per tensor: the usable GAP candidate it is the input of, or -1 */
    int *pc_start, *pc;/* per pair: its usable candidates (CSR) */
} mp;

static double mp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t mp_gcd(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int mp_find_pair(const mp *m, int a, int b)
{
    if (a > b) {
        int t = a;
        a = b;
        b = t;
    }
    for (int k = m->pair_start[a]; k < m->pair_start[a + 1]; k++)
        if (m->pair[k].b == b)
            return k;
    return -1;
}

static bool mp_live_at(const rip_tensor *t, int64_t step)
{
    return t->first <= step && step <= t->last;
}

static void mp_free(mp *m)
{
    free(m->s);
    free(m->pair);
    free(m->pair_start);
    free(m->cand_pair);
    free(m->usable);
    free(m->shift_of);
    free(m->pc_start);
    free(m->pc);
}

/* 0, -1 out of memory, 1 the deadline (0: none) passed while listing the
** pairs (quadratic in the number of tensors).  mp_free(m) in every case. */
static int mp_init(mp *m, const rip_problem *p, double deadline)
{
    memset(m, 0, sizeof *m);
    m->p = p;
    m->n = (int)p->n;
    int64_t V = p->align >= 1 ? p->align : 1;
    size_t n1 = p->n + 1, c1 = p->n_cand + 1;
    m->s = calloc(n1, sizeof *m->s);
    m->pair_start = calloc(n1 + 1, sizeof *m->pair_start);
    m->cand_pair = calloc(c1, sizeof *m->cand_pair);
    m->usable = calloc(c1, sizeof *m->usable);
    m->shift_of = calloc(n1, sizeof *m->shift_of);
    if (!m->s || !m->pair_start || !m->cand_pair || !m->usable || !m->shift_of)
        return -1;
    /* every element is a multiple of V, so their gcd is too */
    int64_t U = 0;
    for (int i = 0; i < m->n; i++)
        U = mp_gcd(U, rip_align_up(p->t[i].size, V));
    for (size_t k = 0; k < p->n_cand; k++)
        if (p->cand[k].gap > 0)
            U = mp_gcd(U, p->cand[k].gap);
    m->U = U > 0 ? U : V;
    for (int i = 0; i < m->n; i++) {
        m->s[i] = rip_align_up(p->t[i].size, V) / m->U;
        m->shift_of[i] = -1;
    }
    /* pairs alive together */
    size_t np = 0;
    for (int a = 0; a < m->n; a++) {
        if (deadline > 0 && (a & 63) == 0 && mp_now() > deadline)
            return 1;
        for (int b = a + 1; b < m->n; b++)
            if (rip_tensors_meet(&p->t[a], &p->t[b]))
                np++;
    }
    m->pair = malloc((np + 1) * sizeof *m->pair);
    if (!m->pair)
        return -1;
    np = 0;
    for (int a = 0; a < m->n; a++) {
        if (deadline > 0 && (a & 63) == 0 && mp_now() > deadline)
            return 1;
        m->pair_start[a] = (int)np;
        for (int b = a + 1; b < m->n; b++)
            if (rip_tensors_meet(&p->t[a], &p->t[b]))
                m->pair[np++] = (mp_pair){a, b};
    }
    m->pair_start[m->n] = (int)np;
    m->npair = (int)np;
    /* usable candidates: the input dies at the op and the output is born
    ** there (rip_plan_check requires it; otherwise the pair would share
    ** memory at other steps too) */
    for (size_t k = 0; k < p->n_cand; k++) {
        const rip_candidate *c = &p->cand[k];
        const rip_tensor *ti = &p->t[c->in], *to = &p->t[c->out];
        m->usable[k] = ti->last == c->op && to->first == c->op;
        m->cand_pair[k] = m->usable[k] ? mp_find_pair(m, c->in, c->out) : -1;
        if (m->cand_pair[k] < 0)
            m->usable[k] = false;
        if (m->usable[k] && c->kind == RIP_INPLACE_GAP && m->shift_of[c->in] < 0)
            m->shift_of[c->in] = (int)k;
    }
    m->pc_start = calloc((size_t)m->npair + 2, sizeof *m->pc_start);
    m->pc = malloc(c1 * sizeof *m->pc);
    if (!m->pc_start || !m->pc)
        return -1;
    for (size_t k = 0; k < p->n_cand; k++)
        if (m->usable[k])
            m->pc_start[m->cand_pair[k] + 1]++;
    for (int k = 0; k < m->npair; k++)
        m->pc_start[k + 1] += m->pc_start[k];
    for (size_t k = 0; k < p->n_cand; k++)   /* fill, then shift the starts back */
        if (m->usable[k])
            m->pc[m->pc_start[m->cand_pair[k]]++] = (int)k;
    for (int k = m->npair; k > 0; k--)
        m->pc_start[k] = m->pc_start[k - 1];
    m->pc_start[0] = 0;
    return 0;
}

/* Is candidate k, a used shift of input `in`, a reason for the row "in
** below t" to clear the shift block? (t live at the op, not the output) */
static bool mp_blocks(const mp *m, int k, int t)
{
    const rip_candidate *c = &m->p->cand[k];
    return t != c->in && t != c->out && mp_live_at(&m->p->t[t], c->op);
}

static int mp_cmp_edge(const void *x, const void *y)
{
    const mp_edge *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

/*
** Compaction: given which candidates are used (d, r) and, for every pair
** not lifted by a used candidate, which tensor lies below (below[k]: a
** below b), set every offset to the least solution of the resulting
** difference constraints (bytes, so multiples of U).  off[] holds the
** current offsets on entry (used only to order the relaxation) and the
** result on return.  0; 1, the orientation is inconsistent (off kept); -1
** out of memory.
*/
static int mp_compact(const mp *m, const bool *d, const bool *r, const bool *below, int64_t *off)
{
    const rip_problem *p = m->p;
    size_t cap = 2 * (size_t)m->npair + 2 * p->n_cand + 1;
    mp_edge *e = malloc(cap * sizeof *e);
    bool *lifted = calloc((size_t)m->npair + 1, sizeof *lifted);
    int64_t *x = calloc(p->n + 1, sizeof *x);
    if (!e || !lifted || !x) {
        free(e);
        free(lifted);
        free(x);
        return -1;
    }
    size_t ne = 0;
    for (size_t k = 0; k < p->n_cand; k++) {
        if (!m->usable[k] || !d[k])
            continue;
        const rip_candidate *c = &p->cand[k];
        lifted[m->cand_pair[k]] = true;
        if (c->kind == RIP_INPLACE_ALIAS || r[k]) {
            e[ne++] = (mp_edge){c->in, c->out, 0, off[c->in]};
            e[ne++] = (mp_edge){c->out, c->in, 0, off[c->out]};
        } else {
            e[ne++] = (mp_edge){c->out, c->in, c->gap, off[c->out]};
        }
    }
    for (int k = 0; k < m->npair; k++) {
        if (lifted[k])
            continue;
        int lo = below[k] ? m->pair[k].a : m->pair[k].b;
        int hi = below[k] ? m->pair[k].b : m->pair[k].a;
        int64_t c = m->s[lo] * m->U;
        int sk = m->shift_of[lo];
        if (sk >= 0 && d[sk] && r[sk] && mp_blocks(m, sk, hi))
            c += p->cand[sk].gap;
        e[ne++] = (mp_edge){lo, hi, c, off[lo]};
    }
    qsort(e, ne, sizeof *e, mp_cmp_edge);
    bool changed = true;
    int rc = 0;
    for (size_t pass = 0; changed; pass++) {
        if (pass > p->n + 1) {
            rc = 1;   /* a positive cycle: the orientation is inconsistent */
            break;
        }
        changed = false;
        for (size_t i = 0; i < ne; i++) {
            int64_t v = x[e[i].from] + e[i].c;
            if (v > x[e[i].to]) {
                x[e[i].to] = v;
                changed = true;
            }
        }
    }
    if (rc == 0)
        memcpy(off, x, p->n * sizeof *off);
    free(e);
    free(lifted);
    free(x);
    return rc;
}

/* Orientation of every pair from the offsets of a valid plan. */
static void mp_orient(const mp *m, const int64_t *off, bool *below)
{
    for (int k = 0; k < m->npair; k++) {
        int a = m->pair[k].a, b = m->pair[k].b;
        below[k] = off[a] < off[b] || (off[a] == off[b] && a < b);
    }
}

static double mp_objective(const rip_problem *p, const rip_plan *pl)
{
    double v = (double)pl->peak;
    for (size_t k = 0; k < p->n_cand; k++)
        if (pl->in_place[k] && pl->shift[k])
            v += MILP_SHIFT_C * (double)p->t[p->cand[k].in].size;
    return v;
}

/*
** Run the start heuristics; the best checked, compacted plan goes to best.
** Each time-limited heuristic gets its share, at most what remains before
** the deadline (0: none); once it has passed, only naive (linear time)
** still runs, and only if no plan was found yet.  Under opts.reproducible
** no heuristic looks at the clock (hill-climb runs its iteration budget,
** exact MILP_EXACT_START_NODES nodes) and *clocked is set when the
** deadline passed over a heuristic all the same.  A heuristic that finds
** no plan is passed over, one that runs out of memory is not: RIP_S_NOMEM,
** like running out here (a start missed for want of memory would make a
** worse plan look like the solver's result).
*/
static rip_status mp_start(const mp *m, const rip_plan_opts *o, double deadline, rip_plan *best, char *src,
                           size_t srclen, bool *clocked, char err[RIP_ERR_LEN])
{
    static const char *const names[] = {"tinyengine", "greedy-size", "hill-climb", "exact", "naive"};
    const rip_problem *p = m->p;
    bool have = false;
    double best_obj = 0;
    bool *below = malloc(((size_t)m->npair + 1) * sizeof *below);
    if (!below) {
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        return RIP_S_NOMEM;
    }
    for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
        const rip_strategy *st = rip_strategy_by_name(names[h]);
        if (!st)
            continue;
        if (have && best->peak <= best->lower_bound && strcmp(names[h], "naive") != 0)
            break;   /* the bound is reached: nothing can do better */
        bool exact = strcmp(names[h], "exact") == 0, naive = strcmp(names[h], "naive") == 0;
        if (exact && p->n_cand > 0)
            continue;   /* the exact search places raw buffers only */
        double left = deadline > 0 ? deadline - mp_now() : 0;
        if (deadline > 0 && left <= 0 && (have || !naive)) {
            *clocked = true;
            continue;   /* time is up */
        }
        rip_plan *pl = rip_plan_new(p, names[h]);
        if (!pl) {
            free(below);
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
            return RIP_S_NOMEM;
        }
        rip_plan_opts ho = *o;
        ho.verbose = false;
        ho.capacity = 0;
        ho.time_limit = 1.0;
        if (o->time_limit > 0 && o->time_limit / 10 < ho.time_limit)
            ho.time_limit = o->time_limit / 10;
        if (exact)
            ho.time_limit = o->time_limit > 0 && o->time_limit / 4 < 30 ? o->time_limit / 4 : 30;
        if (deadline > 0 && left < ho.time_limit)
            ho.time_limit = left > 0.001 ? left : 0.001;
        if (o->reproducible) {
            ho.time_limit = 0;
            ho.node_limit = exact ? MILP_EXACT_START_NODES : 0;
        }
        char herr[RIP_ERR_LEN];
        int hs = st->run(p, &ho, pl, herr), cs = 0;   /* cs: mp_compact's, or -1 when the check ran out */
        if (hs == 0 && !pl->bound_only) {
            mp_orient(m, pl->offset, below);
            cs = mp_compact(m, pl->in_place, pl->shift, below, pl->offset);
            if (cs == 0) {
                pl->peak = rip_plan_peak(p, pl);
                rip_status ck = rip_plan_check(p, pl, false, herr);
                if (ck == RIP_S_NOMEM) {
                    cs = -1;
                } else if (ck == RIP_OK) {
                    double obj = mp_objective(p, pl);
                    if (o->verbose)
                        fprintf(stderr, "milp: start %s: peak %lld\n", names[h], (long long)pl->peak);
                    if (!have || obj < best_obj) {
                        have = true;
                        best_obj = obj;
                        memcpy(best->offset, pl->offset, p->n * sizeof *pl->offset);
                        if (p->n_cand) {
                            memcpy(best->in_place, pl->in_place, p->n_cand * sizeof *pl->in_place);
                            memcpy(best->shift, pl->shift, p->n_cand * sizeof *pl->shift);
                        }
                        best->peak = pl->peak;
                        snprintf(src, srclen, "%s", names[h]);
                    }
                } else if (o->verbose) {
                    fprintf(stderr, "milp: start %s rejected: %s\n", names[h], herr);
                }
            }
        }
        rip_plan_free(pl);
        if (hs == RIP_S_NOMEM || cs < 0) {
            free(below);
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory (start %s)", names[h]);
            return RIP_S_NOMEM;
        }
    }
    free(below);
    if (!have) {
        snprintf(err, RIP_ERR_LEN, "strategy milp: no start heuristic gave a valid plan");
        return RIP_S_INTERNAL;
    }
    return RIP_OK;
}

/* ---- the program ----
**
** The program is assembled in plain arrays (columns, and rows as triplets,
** then packed by columns) and handed to CBC in one Cbc_loadProblem call,
** in the solver's child process (milp_run.c; ripsim itself never runs CBC
** code): adding rows one at a time with Cbc_addRow re-packs CBC's
** column-ordered matrix on every row, which is quadratic and took minutes
** on 300 tensors alive together. */

typedef struct mp_model {
    int *col_x;        /* per tensor; -1: fixed */
    int *col_z;        /* per pair; -1: both ends fixed (no rows) */
    int *col_d, *col_r;/* per candidate; -1: a constant (the fixed plan's) */
    int col_P;
    int ncol, nrow, nbin;
    double *xlo, *xhi; /* per tensor, units of U (fixed: both the value) */
    /* columns: bounds, objective, integrality */
    double *clb, *cub, *cobj;
    char *cint;
    size_t ccap;
    /* rows: bounds, and the matrix as (row, column, value) triplets */
    double *rlo, *rhi;
    size_t rcap;
    int *trow, *tcol;
    double *tval;
    size_t nnz, tcap;
    bool oom;          /* an append failed; the model is unusable */
    /* the matrix by columns (mp_pack), the MIP start (mp_set_start) */
    CoinBigIndex *mstart;
    int *mindex;
    double *mvalue;
    int *start_idx;
    double *start_val;
    int nstart;
    const char *name;
} mp_model;

/* Resize *a to cap elements of size sz; false (a unchanged) on failure. */
static bool mp_resize(void *a, size_t cap, size_t sz)
{
    void **pa = a;
    void *b = realloc(*pa, cap * sz);
    if (!b)
        return false;
    *pa = b;
    return true;
}

/* The next capacity when n elements fill cap: doubled, or 0 past INT32_MAX
** (CBC indexes rows, columns and nonzeros with int). */
static size_t mp_next_cap(size_t cap)
{
    size_t c = cap ? 2 * cap : 256;
    return cap >= (size_t)INT32_MAX ? 0 : c > (size_t)INT32_MAX ? (size_t)INT32_MAX : c;
}

/* Append a column; returns its index, or -1 (mm->oom set). */
static int mp_add_col(mp_model *mm, double lb, double ub, double obj, bool integer)
{
    size_t n = (size_t)mm->ncol;
    if (!mm->oom && n == mm->ccap) {
        size_t c = mp_next_cap(mm->ccap);
        if (c && mp_resize(&mm->clb, c, sizeof *mm->clb) && mp_resize(&mm->cub, c, sizeof *mm->cub) &&
            mp_resize(&mm->cobj, c, sizeof *mm->cobj) && mp_resize(&mm->cint, c, sizeof *mm->cint))
            mm->ccap = c;
        else
            mm->oom = true;
    }
    if (mm->oom)
        return -1;
    mm->clb[n] = lb;
    mm->cub[n] = ub;
    mm->cobj[n] = obj;
    mm->cint[n] = integer;
    return mm->ncol++;
}

/* A row under construction: terms plus a constant moved to the right side. */
typedef struct mp_lin {
    int n;
    int idx[16];
    double val[16];
    double cst;
} mp_lin;

typedef struct mp_ctx {
    const mp *m;
    const rip_plan *fix;
    mp_model *mm;
} mp_ctx;

static void lin_col(mp_lin *l, int col, double v)
{
    for (int i = 0; i < l->n; i++)
        if (l->idx[i] == col) {
            l->val[i] += v;
            return;
        }
    l->idx[l->n] = col;
    l->val[l->n] = v;
    l->n++;
}

static void lin_x(const mp_ctx *c, mp_lin *l, int t, double v)
{
    if (c->mm->col_x[t] >= 0)
        lin_col(l, c->mm->col_x[t], v);
    else
        l->cst += v * c->mm->xlo[t];
}

static void lin_d(const mp_ctx *c, mp_lin *l, int k, double v)
{
    if (c->mm->col_d[k] >= 0)
        lin_col(l, c->mm->col_d[k], v);
    else
        l->cst += c->fix->in_place[k] ? v : 0.0;
}

static void lin_r(const mp_ctx *c, mp_lin *l, int k, double v)
{
    if (c->mm->col_r[k] >= 0)
        lin_col(l, c->mm->col_r[k], v);
    else
        l->cst += c->fix->in_place[k] && c->fix->shift[k] ? v : 0.0;
}

/* Append the row l (sense 'L': <= rhs, 'G': >= rhs) and clear l. */
static void lin_emit(const mp_ctx *c, mp_lin *l, char sense, double rhs)
{
    mp_model *mm = c->mm;
    if (l->n == 0)
        return;   /* constants only: holds for the fixed plan */
    size_t r = (size_t)mm->nrow;
    if (!mm->oom && r == mm->rcap) {
        size_t cap = mp_next_cap(mm->rcap);
        if (cap && mp_resize(&mm->rlo, cap, sizeof *mm->rlo) && mp_resize(&mm->rhi, cap, sizeof *mm->rhi))
            mm->rcap = cap;
        else
            mm->oom = true;
    }
    while (!mm->oom && mm->nnz + (size_t)l->n > mm->tcap) {
        size_t cap = mp_next_cap(mm->tcap);
        if (cap && mp_resize(&mm->trow, cap, sizeof *mm->trow) && mp_resize(&mm->tcol, cap, sizeof *mm->tcol) &&
            mp_resize(&mm->tval, cap, sizeof *mm->tval))
            mm->tcap = cap;
        else
            mm->oom = true;
    }
    if (!mm->oom) {
        for (int i = 0; i < l->n; i++) {
            mm->trow[mm->nnz] = (int)r;
            mm->tcol[mm->nnz] = l->idx[i];
            mm->tval[mm->nnz] = l->val[i];
            mm->nnz++;
        }
        mm->rlo[r] = sense == 'L' ? -DBL_MAX : rhs - l->cst;
        mm->rhi[r] = sense == 'L' ? rhs - l->cst : DBL_MAX;
        mm->nrow++;
    }
    l->n = 0;
    l->cst = 0;
}

/* Pack the assembled triplets by columns into mm->mstart, mindex, mvalue
** (Cbc_loadProblem's form).  0, or -1 out of memory (also an append that
** failed before). */
static int mp_pack(mp_model *mm)
{
    if (mm->oom)
        return -1;
    size_t nc = (size_t)mm->ncol;
    CoinBigIndex *start = mm->mstart = calloc(nc + 1, sizeof *start);
    int *index = mm->mindex = malloc((mm->nnz + 1) * sizeof *index);
    double *value = mm->mvalue = malloc((mm->nnz + 1) * sizeof *value);
    CoinBigIndex *fill = malloc((nc + 1) * sizeof *fill);
    int rc = -1;
    if (!start || !index || !value || !fill)
        goto out;
    for (size_t k = 0; k < mm->nnz; k++)
        start[mm->tcol[k] + 1]++;
    for (size_t j = 0; j < nc; j++)
        start[j + 1] += start[j];
    memcpy(fill, start, (nc + 1) * sizeof *fill);
    for (size_t k = 0; k < mm->nnz; k++) {   /* rows stay in order within a column */
        CoinBigIndex at = fill[mm->tcol[k]]++;
        index[at] = mm->trow[k];
        value[at] = mm->tval[k];
    }
    rc = 0;
out:
    free(fill);
    return rc;
}

static void mp_model_free(mp_model *mm)
{
    free(mm->col_x);
    free(mm->col_z);
    free(mm->col_d);
    free(mm->col_r);
    free(mm->xlo);
    free(mm->xhi);
    free(mm->clb);
    free(mm->cub);
    free(mm->cobj);
    free(mm->cint);
    free(mm->rlo);
    free(mm->rhi);
    free(mm->trow);
    free(mm->tcol);
    free(mm->tval);
    free(mm->mstart);
    free(mm->mindex);
    free(mm->mvalue);
    free(mm->start_idx);
    free(mm->start_val);
    memset(mm, 0, sizeof *mm);
}

/* Allocate the model's index arrays (per tensor, pair and candidate) in a
** zeroed mm.  0, or -1 out of memory (mp_model_free releases what was
** allocated). */
static int mp_model_alloc(const mp *m, mp_model *mm)
{
    size_t n = m->p->n, nc = m->p->n_cand;
    memset(mm, 0, sizeof *mm);
    mm->col_x = malloc(n * sizeof *mm->col_x);
    mm->col_z = malloc(((size_t)m->npair + 1) * sizeof *mm->col_z);
    mm->col_d = malloc((nc + 1) * sizeof *mm->col_d);
    mm->col_r = malloc((nc + 1) * sizeof *mm->col_r);
    mm->xlo = malloc(n * sizeof *mm->xlo);
    mm->xhi = malloc(n * sizeof *mm->xhi);
    if (!mm->col_x || !mm->col_z || !mm->col_d || !mm->col_r || !mm->xlo || !mm->xhi)
        return -1;
    return 0;
}

/*
** The columns, in this order: x_t per free tensor (a tensor held at fix
** gets no column, its value goes to xlo = xhi), P, z per pair with a free
** end, and d (and r for a GAP) per usable candidate with a free end.
** Fills col_x/col_z/col_d/col_r (-1: no column), xlo/xhi and nbin.  An
** append that fails sets mm->oom (mp_pack reports it).
*/
static void mp_add_columns(const mp_ctx *c, const bool *free_, int64_t ub, int64_t lb)
{
    const mp *m = c->m;
    const rip_plan *fix = c->fix;
    mp_model *mm = c->mm;
    const rip_problem *p = m->p;
    size_t n = p->n, nc = p->n_cand;
    const double U = (double)m->U;
    for (size_t t = 0; t < n; t++) {
        if (free_ && !free_[t]) {
            mm->col_x[t] = -1;
            mm->xlo[t] = mm->xhi[t] = (double)(fix->offset[t] / m->U);
            continue;
        }
        int64_t hi = (ub - p->t[t].size) / m->U;
        if (hi < fix->offset[t] / m->U)
            hi = fix->offset[t] / m->U;   /* keep the start feasible */
        mm->xlo[t] = 0;
        mm->xhi[t] = (double)hi;
        mm->col_x[t] = mp_add_col(mm, 0.0, mm->xhi[t], 0.0, true);
    }
    mm->col_P = mp_add_col(mm, (double)lb / U, (double)ub / U, 1.0, false);
    for (int k = 0; k < m->npair; k++) {
        mm->col_z[k] = -1;
        if (mm->col_x[m->pair[k].a] < 0 && mm->col_x[m->pair[k].b] < 0)
            continue;
        mm->col_z[k] = mp_add_col(mm, 0.0, 1.0, 0.0, true);
        mm->nbin++;
    }
    for (size_t k = 0; k < nc; k++) {
        const rip_candidate *cd = &p->cand[k];
        mm->col_d[k] = mm->col_r[k] = -1;
        if (!m->usable[k] || (mm->col_x[cd->in] < 0 && mm->col_x[cd->out] < 0))
            continue;
        mm->col_d[k] = mp_add_col(mm, 0.0, 1.0, 0.0, true);
        mm->nbin++;
        if (cd->kind == RIP_INPLACE_GAP) {
            double cost = MILP_SHIFT_C * (double)p->t[cd->in].size / U;
            mm->col_r[k] = mp_add_col(mm, 0.0, p->no_shift ? 0.0 : 1.0, cost, true);
            mm->nbin++;
        }
    }
}

/* The no-overlap rows: two per pair alive together that has a z column
** (with the shift block where the lower end's GAP candidate blocks the
** other).  Failures set mm->oom. */
static void mp_rows_no_overlap(const mp_ctx *c)
{
    const mp *m = c->m;
    mp_model *mm = c->mm;
    const rip_problem *p = m->p;
    mp_lin l = {0};
    for (int k = 0; k < m->npair; k++) {
        if (mm->col_z[k] < 0)
            continue;
        int ends[2] = {m->pair[k].a, m->pair[k].b};
        for (int side = 0; side < 2; side++) {
            /* side 0: x_a + s_a (+ g r) <= x_b + M (1 - z) + M sum d
            ** side 1: x_b + s_b (+ g r) <= x_a + M z       + M sum d */
            int lo = ends[side], hi = ends[1 - side];
            int sk = m->shift_of[lo];
            bool strengthen = sk >= 0 && mp_blocks(m, sk, hi);
            double g = strengthen ? (double)(p->cand[sk].gap / m->U) : 0.0;
            double s = (double)m->s[lo];
            double M = mm->xhi[lo] + s + g - mm->xlo[hi];
            if (M < 1)
                M = 1;
            lin_x(c, &l, lo, 1.0);
            lin_x(c, &l, hi, -1.0);
            lin_col(&l, mm->col_z[k], side == 0 ? M : -M);
            for (int j = m->pc_start[k]; j < m->pc_start[k + 1]; j++)
                lin_d(c, &l, m->pc[j], -M);
            if (strengthen)
                lin_r(c, &l, sk, g);
            lin_emit(c, &l, 'L', side == 0 ? M - s : -s);
        }
    }
}

/* The rules of each candidate with a d column: ALIAS x_out = x_in if d;
** GAP x_out = x_in if r, x_in - x_out >= gap if d and not r, r <= d, and
** the peak over the shift block.  Failures set mm->oom. */
static void mp_rows_candidates(const mp_ctx *c)
{
    const mp *m = c->m;
    mp_model *mm = c->mm;
    const rip_problem *p = m->p;
    const double U = (double)m->U;
    mp_lin l = {0};
    for (size_t k = 0; k < p->n_cand; k++) {
        if (mm->col_d[k] < 0)
            continue;
        const rip_candidate *cd = &p->cand[k];
        int in = cd->in, ou = cd->out;
        /* x_out = x_in when the ALIAS is used / the GAP runs with a shift */
        double M1 = mm->xhi[ou] - mm->xlo[in], M2 = mm->xhi[in] - mm->xlo[ou];
        if (M1 < 1)
            M1 = 1;
        if (M2 < 1)
            M2 = 1;
        bool alias = cd->kind == RIP_INPLACE_ALIAS;
        lin_x(c, &l, ou, 1.0);
        lin_x(c, &l, in, -1.0);
        if (alias)
            lin_d(c, &l, (int)k, M1);
        else
            lin_r(c, &l, (int)k, M1);
        lin_emit(c, &l, 'L', M1);
        lin_x(c, &l, in, 1.0);
        lin_x(c, &l, ou, -1.0);
        if (alias)
            lin_d(c, &l, (int)k, M2);
        else
            lin_r(c, &l, (int)k, M2);
        lin_emit(c, &l, 'L', M2);
        if (alias)
            continue;
        double g = (double)(cd->gap / m->U);
        /* x_out + g <= x_in when d and not r */
        double Mg = M1 + g;
        lin_x(c, &l, ou, 1.0);
        lin_x(c, &l, in, -1.0);
        lin_d(c, &l, (int)k, Mg);
        lin_r(c, &l, (int)k, -Mg);
        lin_emit(c, &l, 'L', Mg - g);
        /* r <= d */
        lin_r(c, &l, (int)k, 1.0);
        lin_d(c, &l, (int)k, -1.0);
        lin_emit(c, &l, 'L', 0.0);
        /* P >= x_in + N_in / U + g r */
        lin_col(&l, mm->col_P, 1.0);
        lin_x(c, &l, in, -1.0);
        lin_r(c, &l, (int)k, -g);
        lin_emit(c, &l, 'G', (double)p->t[in].size / U);
    }
}

/* At most one used candidate per output (op) and per input tensor: a row
** wherever two candidates are free, or one is free and a fixed one is
** used.  Failures set mm->oom. */
static void mp_rows_at_most_one(const mp_ctx *c)
{
    const mp *m = c->m;
    mp_model *mm = c->mm;
    const rip_problem *p = m->p;
    for (int side = 0; side < 2; side++) {
        for (size_t t = 0; t < p->n; t++) {
            int vars = 0;
            double used = 0;
            mp_lin big = {0};
            for (size_t k = 0; k < p->n_cand; k++) {
                if (!m->usable[k] || (side == 0 ? p->cand[k].out : p->cand[k].in) != (int)t)
                    continue;
                if (mm->col_d[k] >= 0) {
                    if (big.n < 16)
                        lin_col(&big, mm->col_d[k], 1.0);
                    vars++;
                } else if (c->fix->in_place[k]) {
                    used += 1;
                }
            }
            if (vars >= 2 || (vars >= 1 && used > 0)) {
                big.cst = used;
                lin_emit(c, &big, 'L', 1.0);
            }
        }
    }
}

/* P >= x_t + N_t / U for every free tensor.  Failures set mm->oom. */
static void mp_rows_peak(const mp_ctx *c)
{
    const rip_problem *p = c->m->p;
    mp_model *mm = c->mm;
    const double U = (double)c->m->U;
    mp_lin l = {0};
    for (size_t t = 0; t < p->n; t++) {
        if (mm->col_x[t] < 0)
            continue;
        lin_col(&l, mm->col_P, 1.0);
        lin_x(c, &l, (int)t, -1.0);
        lin_emit(c, &l, 'G', (double)p->t[t].size / U);
    }
}

/* The plan fix as the program's MIP start (mm->start_idx, start_val,
** nstart): every integer column (x, z from the plan's order, d, r).  0, or
** -1 out of memory. */
static int mp_set_start(const mp *m, const rip_plan *fix, mp_model *mm)
{
    size_t n = m->p->n, nc = m->p->n_cand;
    int *idx = mm->start_idx = malloc(((size_t)mm->ncol + 1) * sizeof *idx);
    double *val = mm->start_val = malloc(((size_t)mm->ncol + 1) * sizeof *val);
    bool *below = malloc(((size_t)m->npair + 1) * sizeof *below);
    int rc = -1;
    if (!idx || !val || !below)
        goto out;
    int ns = 0;
    for (size_t t = 0; t < n; t++)
        if (mm->col_x[t] >= 0) {
            idx[ns] = mm->col_x[t];
            val[ns++] = (double)(fix->offset[t] / m->U);
        }
    mp_orient(m, fix->offset, below);
    for (int k = 0; k < m->npair; k++)
        if (mm->col_z[k] >= 0) {
            idx[ns] = mm->col_z[k];
            val[ns++] = below[k] ? 1.0 : 0.0;
        }
    for (size_t k = 0; k < nc; k++) {
        if (mm->col_d[k] >= 0) {
            idx[ns] = mm->col_d[k];
            val[ns++] = fix->in_place[k] ? 1.0 : 0.0;
        }
        if (mm->col_r[k] >= 0) {
            idx[ns] = mm->col_r[k];
            val[ns++] = fix->in_place[k] && fix->shift[k] ? 1.0 : 0.0;
        }
    }
    mm->nstart = ns;
    rc = 0;
out:
    free(below);
    return rc;
}

/*
** Build the program with the tensors of free_ (NULL: all) as variables and
** every other tensor, and every candidate between two fixed tensors, held
** at the plan fix.  P bounds the tops of the free tensors (and their shift
** blocks) only; ub bounds every free top (bytes), lb is P's lower bound.
** The MIP start is fix.  0, or -1 out of memory (the caller frees mm with
** mp_model_free either way).
*/
static int mp_build(const mp *m, const rip_plan *fix, const bool *free_, int64_t ub, int64_t lb, mp_model *mm)
{
    if (mp_model_alloc(m, mm))
        return -1;
    mp_ctx c = {m, fix, mm};
    mp_add_columns(&c, free_, ub, lb);
    mp_rows_no_overlap(&c);
    mp_rows_candidates(&c);
    mp_rows_at_most_one(&c);
    mp_rows_peak(&c);
    if (mp_pack(mm))
        return -1;
    mm->name = m->p->name[0] ? m->p->name : "ripsim";
    return mp_set_start(m, fix, mm);
}

/*
** Read CBC's best solution of mm into cand (a plan for the whole problem:
** fixed parts from fix), round it, check it, and if the check fails
** compact it with the solution's binaries and check again.  Returns 0 for
** a valid plan, 1 for none (why in cerr), -1 out of memory.
*/
static int mp_extract(const mp *m, const mp_model *mm, const rip_plan *fix, const double *sol, rip_plan *cand,
                      char cerr[RIP_ERR_LEN])
{
    const rip_problem *p = m->p;
    for (size_t t = 0; t < p->n; t++)
        cand->offset[t] = mm->col_x[t] >= 0 ? (int64_t)(sol[mm->col_x[t]] + 0.5) * m->U : fix->offset[t];
    for (size_t k = 0; k < p->n_cand; k++) {
        if (mm->col_d[k] >= 0) {
            cand->in_place[k] = sol[mm->col_d[k]] > 0.5;
            cand->shift[k] = mm->col_r[k] >= 0 && cand->in_place[k] && sol[mm->col_r[k]] > 0.5;
        } else {
            cand->in_place[k] = fix->in_place[k];
            cand->shift[k] = fix->shift[k];
        }
    }
    cand->peak = rip_plan_peak(p, cand);
    rip_status ck = rip_plan_check(p, cand, false, cerr);
    bool *below = NULL;
    int rc = ck == RIP_OK ? 0 : ck == RIP_S_NOMEM ? -1 : 1;
    if (rc == 1 && !(below = malloc(((size_t)m->npair + 1) * sizeof *below)))
        rc = -1;
    if (rc == 1) {
        mp_orient(m, fix->offset, below);
        for (int k = 0; k < m->npair; k++)
            if (mm->col_z[k] >= 0)
                below[k] = sol[mm->col_z[k]] > 0.5;
        int cs = mp_compact(m, cand->in_place, cand->shift, below, cand->offset);
        if (cs == 0) {
            cand->peak = rip_plan_peak(p, cand);
            ck = rip_plan_check(p, cand, false, cerr);
            rc = ck == RIP_OK ? 0 : ck == RIP_S_NOMEM ? -1 : 1;
        } else {
            rc = cs;
        }
    }
    free(below);
    return rc;
}

static void mp_copy_plan(const rip_problem *p, rip_plan *dst, const rip_plan *src)
{
    memcpy(dst->offset, src->offset, p->n * sizeof *dst->offset);
    if (p->n_cand) {
        memcpy(dst->in_place, src->in_place, p->n_cand * sizeof *dst->in_place);
        memcpy(dst->shift, src->shift, p->n_cand * sizeof *dst->shift);
    }
    dst->peak = src->peak;
}

/*
** Solve mm with CBC in a child process (milp_run.c): CBC's log under
** verbose, its own time limit seconds (0: none) and node limit max_nodes
** (0: none), the child stopped at deadline (0: none).  rip_milp_run's
** contract: RIP_OK with r->finished false for a timeout; a failed solver
** is an error, never a timeout.
*/
static rip_status mp_solve(const mp_model *mm, bool verbose, double seconds, int max_nodes, double deadline,
                           rip_milp_answer *r, char err[RIP_ERR_LEN])
{
    const rip_milp_program pg = {
        .ncol = mm->ncol, .nrow = mm->nrow, .clb = mm->clb, .cub = mm->cub, .cobj = mm->cobj, .cint = mm->cint,
        .rlo = mm->rlo, .rhi = mm->rhi, .start = mm->mstart, .index = mm->mindex, .value = mm->mvalue,
        .nstart = mm->nstart, .start_idx = mm->start_idx, .start_val = mm->start_val, .name = mm->name,
        .verbose = verbose, .seconds = seconds, .max_nodes = max_nodes,
    };
    return rip_milp_run(&pg, deadline, r, err);
}

/* The top a tensor reaches in plan pl (its block, or its shift block). */
static int64_t mp_top(const mp *m, const rip_plan *pl, int t)
{
    int64_t top = pl->offset[t] + m->p->t[t].size;
    int k = m->shift_of[t];
    if (k >= 0 && pl->in_place[k] && pl->shift[k]) {
        int64_t b = pl->offset[t] + m->p->cand[k].gap + m->p->t[t].size;
        if (b > top)
            top = b;
    }
    return top;
}

static int mp_cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Index of v in the sorted array pts[0..n) (v is present). */
static int64_t mp_index(const int64_t *pts, int64_t n, int64_t v)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (pts[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/*
** Large-neighbourhood search on the start plan: free the tensors alive in
** a window of steps around a tensor that sets the peak, hold the rest, and
** let CBC minimise the highest top among the free ones; keep the result
** when every free tensor ends below the peak.  Each kept step removes at
** least one tensor from the peak, so the peak falls once none is left
** there.  A window that cannot improve is widened.  Stops at the lower
** bound, when the window covers every step, or at the deadline (a window
** whose solver is stopped there gains nothing).  Under opts.reproducible a
** window's CBC has MILP_LNS_WINDOW_NODES nodes instead of 5 s, the search
** MILP_LNS_WINDOWS windows, and the deadline (0: none) is only a safety
** net: *clocked is set when it stopped a window or the search.  Returns
** RIP_OK, or with err RIP_S_NOMEM (out of memory) or a failed solver's
** status (mp_solve).
*/
static rip_status mp_lns(const mp *m, const rip_plan_opts *o, rip_plan *cur, double deadline, bool *clocked,
                         char err[RIP_ERR_LEN])
{
    const rip_problem *p = m->p;
    /* time is compressed to the distinct lifetime ends, so a window of w
    ** points means the same for graphs (consecutive steps) and for buffer
    ** lists (arbitrary times) */
    size_t np = 2 * p->n;
    int64_t *pts = malloc((np + 1) * sizeof *pts);
    int64_t *lo = malloc((p->n + 1) * sizeof *lo), *hi = malloc((p->n + 1) * sizeof *hi);
    int64_t *res = calloc(np + 1, sizeof *res);
    bool *free_ = malloc((p->n + 1) * sizeof *free_);
    int *hot = malloc((p->n + 1) * sizeof *hot);
    rip_plan *cand = rip_plan_new(p, "milp");
    rip_status rc = RIP_OK;
    bool oom = !pts || !lo || !hi || !res || !free_ || !hot || !cand;
    if (oom)
        goto out;
    for (size_t t = 0; t < p->n; t++) {
        pts[2 * t] = p->t[t].first;
        pts[2 * t + 1] = p->t[t].last;
    }
    qsort(pts, np, sizeof *pts, mp_cmp_i64);
    int64_t ns = 0;
    for (size_t i = 0; i < np; i++)
        if (ns == 0 || pts[ns - 1] != pts[i])
            pts[ns++] = pts[i];
    /* live bytes per point: where to centre a window */
    for (size_t t = 0; t < p->n; t++) {
        lo[t] = mp_index(pts, ns, p->t[t].first);
        hi[t] = mp_index(pts, ns, p->t[t].last);
        for (int64_t s = lo[t]; s <= hi[t]; s++)
            res[s] += p->t[t].size;
    }
    int64_t w = 2;
    size_t tried = 0;
    for (int windows = 0; cur->peak > cur->lower_bound; windows++) {
        if (deadline > 0 && mp_now() >= deadline) {
            *clocked = true;
            break;
        }
        if (o->reproducible && windows >= MILP_LNS_WINDOWS)
            break;
        size_t nh = 0;
        for (size_t t = 0; t < p->n; t++)
            if (mp_top(m, cur, (int)t) >= cur->peak)
                hot[nh++] = (int)t;
        if (nh == 0)
            break;
        if (tried >= nh) {
            tried = 0;
            if (w > ns)
                break;   /* the last window held every tensor */
            w *= 2;
        }
        int h = hot[tried % nh];
        int64_t centre = lo[h];
        for (int64_t s = lo[h]; s <= hi[h]; s++)
            if (res[s] > res[centre])
                centre = s;
        int64_t a = centre - w, b = centre + w;
        size_t nfree = 0;
        for (size_t t = 0; t < p->n; t++) {
            free_[t] = lo[t] <= b && a <= hi[t];
            nfree += free_[t];
        }
        mp_model mm;
        if (mp_build(m, cur, free_, cur->peak, 0, &mm)) {
            mp_model_free(&mm);
            oom = true;
            goto out;
        }
        /* a window gets at most 5 s (reproducible: its node budget); the
        ** child is stopped at the deadline */
        double left = 0.8 * (deadline - mp_now());
        double secs = o->reproducible ? 0 : left < 5 ? (left > 0.01 ? left : 0.01) : 5;
        rip_milp_answer ans;
        rc = mp_solve(&mm, false, secs, o->reproducible ? MILP_LNS_WINDOW_NODES : 0, deadline, &ans, err);
        if (rc == RIP_OK && !ans.finished)
            *clocked = true;
        char cerr[RIP_ERR_LEN];
        int ex = rc == RIP_OK && ans.sol ? mp_extract(m, &mm, cur, ans.sol, cand, cerr) : 1;
        bool kept = false;
        oom = ex < 0;
        if (ex == 0) {
            int64_t local = 0;
            for (size_t t = 0; t < p->n; t++)
                if (free_[t]) {
                    int64_t top = mp_top(m, cand, (int)t);
                    if (top > local)
                        local = top;
                }
            if (local < cur->peak) {
                mp_copy_plan(p, cur, cand);
                kept = true;
            }
        }
        if (o->verbose && rc == RIP_OK && !oom)
            fprintf(stderr, "milp: lns window of %lld points around tensor %s, %zu free: %s, peak %lld\n",
                    (long long)(2 * w + 1), p->t[h].id, nfree,
                    kept ? "improved" : ans.finished ? "no gain" : "stopped at the deadline", (long long)cur->peak);
        free(ans.sol);
        mp_model_free(&mm);
        if (rc != RIP_OK || oom)
            goto out;
        if (kept)
            tried = 0;
        else
            tried++;
    }
out:
    if (oom) {
        rc = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
    }
    free(pts);
    free(lo);
    free(hi);
    free(res);
    free(free_);
    free(hot);
    rip_plan_free(cand);
    return rc;
}

/* When time ran out before the program could even be set up: the naive
** plan (every tensor its own block), checked; not proven optimal unless it
** meets the lower bound. */
static rip_status mp_fallback(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    const rip_strategy *st = rip_strategy_by_name("naive");
    rip_plan *pl = st ? rip_plan_new(p, "naive") : NULL;
    rip_status rc = RIP_OK;
    char herr[RIP_ERR_LEN];
    if (!pl) {
        snprintf(err, RIP_ERR_LEN, st ? "strategy milp: out of memory" : "strategy milp: no naive strategy");
        return st ? RIP_S_NOMEM : RIP_S_INTERNAL;
    }
    rip_plan_opts ho = *o;
    ho.verbose = false;
    if (st->run(p, &ho, pl, herr) != 0 || pl->bound_only || rip_plan_check(p, pl, false, herr) != 0) {
        snprintf(err, RIP_ERR_LEN, "strategy milp: no plan within the time limit (%.400s)", herr);
        rc = RIP_S_INTERNAL;
    } else {
        mp_copy_plan(p, out, pl);
        out->optimal = out->peak <= out->lower_bound;
        if (o->verbose)
            fprintf(stderr, "milp: the time limit passed while setting up the program; naive plan, peak %lld\n",
                    (long long)out->peak);
    }
    rip_plan_free(pl);
    return rc;
}

static int milp_solve(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    double t0 = mp_now();
    rip_plan_opts none = {0};
    if (!o)
        o = &none;
    /* the time limit bounds the whole call, from here: every phase below
    ** gets what remains of it */
    const double deadline = o->time_limit > 0 ? t0 + o->time_limit : 0;
    snprintf(out->strategy, sizeof out->strategy, "milp");
    out->lower_bound = rip_problem_lower_bound(p);
    out->optimal = false;
    out->n_vars = out->n_cons = out->n_binaries = 0;
    if (p->n == 0) {
        out->peak = 0;
        out->optimal = true;
        out->seconds = mp_now() - t0;
        return RIP_OK;
    }
    if (p->n > (size_t)INT32_MAX / 8 || p->n_cand > (size_t)INT32_MAX / 8) {
        snprintf(err, RIP_ERR_LEN, "strategy milp: problem too large");
        return RIP_S_DATA;
    }

    rip_status rc = RIP_OK;
    mp m;
    mp_model mm = {0};
    rip_milp_answer res = {0};
    rip_plan *cand = NULL;
    char start_src[32] = "";
    bool clocked = false;   /* the clock stopped a phase (an error under opts.reproducible) */
    int init = mp_init(&m, p, deadline);
    if (init < 0 || !(cand = rip_plan_new(p, "milp"))) {
        rc = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    if (init > 0) {
        /* time ran out listing the pairs alive together: the plan of the
        ** only heuristic that needs no time, not proven */
        clocked = true;
        rc = mp_fallback(p, o, out, err);
        goto done;
    }
    rc = mp_start(&m, o, deadline, out, start_src, sizeof start_src, &clocked, err);
    if (rc)
        goto done;

    /* improve the start where it misses the bound: at most half the limit
    ** (reproducible: its budget of windows, the deadline a safety net) */
    if (out->peak > out->lower_bound && (deadline == 0 || mp_now() < deadline)) {
        double lns_end = o->reproducible ? deadline : o->time_limit > 0 ? t0 + 0.5 * o->time_limit : t0 + 120;
        int64_t before = out->peak;
        if ((rc = mp_lns(&m, o, out, lns_end, &clocked, err)) != RIP_OK)
            goto done;
        if (out->peak < before)
            snprintf(start_src + strlen(start_src), sizeof start_src - strlen(start_src), "+lns");
    }

    /* the whole program, started from the best plan so far */
    double start_obj = mp_objective(p, out);
    int64_t ub = out->peak + (int64_t)(start_obj - (double)out->peak) + 1;
    if (mp_build(&m, out, NULL, ub, out->lower_bound, &mm)) {
        rc = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    out->n_vars = mm.ncol;
    out->n_cons = mm.nrow;
    out->n_binaries = mm.nbin;
    double left = deadline > 0 ? deadline - mp_now() : 0;
    if (o->verbose)
        fprintf(stderr, "milp: %s: %zu tensors, %zu candidates, U = %lld B, %d columns (%d binaries), %d rows "
                "(all-pairs encoding: %zu binaries); start %s peak %lld, lower bound %lld\n", p->name, p->n,
                p->n_cand, (long long)m.U, mm.ncol, mm.nbin, mm.nrow, 3 * p->n * (p->n - 1) / 2 + 2 * p->n_cand,
                start_src, (long long)out->peak, (long long)out->lower_bound);
    if (start_obj <= (double)out->lower_bound) {
        /* the start's objective is the column bound of P with no shift
        ** penalty: nothing is better, so CBC could only prove what the
        ** bound already does (it would, at the root, in tens of ms) */
        if (o->verbose)
            fprintf(stderr, "milp: the start meets the lower bound without a shift: optimal, CBC not run\n");
    } else if (deadline > 0 && left <= 0.01) {
        clocked = true;
        if (o->verbose)
            fprintf(stderr, "milp: the time limit is used up; CBC not run, the start plan stands\n");
    } else {
        /* CBC's own limit ends it gracefully (it overruns a little); the
        ** deadline stops it where it does not look at the clock.  A
        ** reproducible run gives CBC no limit: it ends on its own, or the
        ** deadline stops it as a failure */
        double secs = deadline > 0 && !o->reproducible ? 0.9 * left : 0;
        if ((rc = mp_solve(&mm, o->verbose, secs, 0, deadline, &res, err)) != RIP_OK)
            goto done;
        clocked |= !res.finished;
    }
    bool used_cbc = false;
    if (res.sol) {
        char cerr[RIP_ERR_LEN];
        int ex = mp_extract(&m, &mm, out, res.sol, cand, cerr);
        if (ex < 0) {
            rc = RIP_S_NOMEM;
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
            goto done;
        }
        if (ex == 0 && mp_objective(p, cand) <= mp_objective(p, out) + 1e-6) {
            mp_copy_plan(p, out, cand);
            used_cbc = true;
        } else if (ex > 0 && o->verbose) {
            fprintf(stderr, "milp: CBC's solution fails the check (%s); keeping the start plan\n", cerr);
        }
    }
    out->optimal = (res.proven && used_cbc) || out->peak <= out->lower_bound;
    if (o->verbose && res.finished)
        fprintf(stderr, "milp: CBC status %d/%d, %s, objective %.4f, best bound %.4f; peak %lld%s\n",
                res.status, res.secondary, res.proven ? "proven optimal" : "not proven", res.obj * (double)m.U,
                res.bound * (double)m.U, (long long)out->peak, used_cbc ? "" : " (start plan)");
    else if (o->verbose && start_obj > (double)out->lower_bound)
        fprintf(stderr, "milp: CBC stopped at the time limit; peak %lld (start plan)\n", (long long)out->peak);

done:
    if (rc == RIP_OK && clocked && o->reproducible) {
        rc = RIP_S_FAILED;
        snprintf(err, RIP_ERR_LEN,
                 "strategy milp: the time limit of %g s ran out before the search ended; a plan cut short by "
                 "the clock would depend on the machine's speed (raise the time limit)", o->time_limit);
    }
    free(res.sol);
    mp_model_free(&mm);
    rip_plan_free(cand);
    mp_free(&m);
    out->seconds = mp_now() - t0;
    return rc;
}

/* The module's entry, checked by milp_load.c before use. */
__attribute__((visibility("default"))) const rip_milp_module_info rip_milp_module = {
    .abi = RIP_MILP_MODULE_ABI,
    .version = RIPSIM_VERSION,
    .problem_size = sizeof(rip_problem),
    .plan_size = sizeof(rip_plan),
    .opts_size = sizeof(rip_plan_opts),
    .solve = milp_solve,
};
