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
** (Cbc_setMIPStartI with every integer column): when it reaches the lower
** bound, the cut makes CBC prove optimality at the root.  (On the Tab. 3
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
** bound.  opts.time_limit > 0 bounds the whole strategy in wall-clock time
** (the search gets at most half of it, CBC the rest); without it the
** search gets 120 s and CBC has no limit.  opts.verbose shows CBC's log.
** Every CBC model is freed before returning.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <coin/Cbc_C_Interface.h>

#include "cli.h"
#include "plan.h"

int rip_strategy_milp(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN]);

#define MILP_SHIFT_C 1e-4

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

static int mp_init(mp *m, const rip_problem *p)
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
    for (int a = 0; a < m->n; a++)
        for (int b = a + 1; b < m->n; b++)
            if (rip_tensors_meet(&p->t[a], &p->t[b]))
                np++;
    m->pair = malloc((np + 1) * sizeof *m->pair);
    if (!m->pair)
        return -1;
    np = 0;
    for (int a = 0; a < m->n; a++) {
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
** result on return.  0, or -1 (inconsistent orientation, or OOM).
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
            rc = -1;   /* a positive cycle: the orientation is inconsistent */
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

/* Run the start heuristics; the best checked, compacted plan goes to best. */
static int mp_start(const mp *m, const rip_plan_opts *o, rip_plan *best, char *src, size_t srclen,
                    char err[RIP_ERR_LEN])
{
    static const char *const names[] = {"tinyengine", "greedy-size", "hill-climb", "exact", "naive"};
    const rip_problem *p = m->p;
    bool have = false;
    double best_obj = 0;
    bool *below = malloc(((size_t)m->npair + 1) * sizeof *below);
    if (!below) {
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        return RIP_EX_OSERR;
    }
    for (size_t h = 0; h < sizeof names / sizeof names[0]; h++) {
        const rip_strategy *st = rip_strategy_by_name(names[h]);
        if (!st)
            continue;
        if (have && best->peak <= best->lower_bound && strcmp(names[h], "naive") != 0)
            break;   /* the bound is reached: nothing can do better */
        bool exact = strcmp(names[h], "exact") == 0;
        if (exact && p->n_cand > 0)
            continue;   /* the exact search places raw buffers only */
        rip_plan *pl = rip_plan_new(p, names[h]);
        if (!pl) {
            free(below);
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
            return RIP_EX_OSERR;
        }
        rip_plan_opts ho = *o;
        ho.verbose = false;
        ho.capacity = 0;
        ho.time_limit = 1.0;
        if (o->time_limit > 0 && o->time_limit / 10 < ho.time_limit)
            ho.time_limit = o->time_limit / 10;
        if (exact)
            ho.time_limit = o->time_limit > 0 && o->time_limit / 4 < 30 ? o->time_limit / 4 : 30;
        char herr[RIP_ERR_LEN];
        if (st->run(p, &ho, pl, herr) == 0 && !pl->bound_only) {
            mp_orient(m, pl->offset, below);
            if (mp_compact(m, pl->in_place, pl->shift, below, pl->offset) == 0) {
                pl->peak = rip_plan_peak(p, pl);
                if (rip_plan_check(p, pl, false, herr) == 0) {
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
    }
    free(below);
    if (!have) {
        snprintf(err, RIP_ERR_LEN, "strategy milp: no start heuristic gave a valid plan");
        return RIP_EX_SOFTWARE;
    }
    return 0;
}

/* Column and row assembly helpers. */
/* ---- the program ---- */

typedef struct mp_model {
    Cbc_Model *cbc;
    int *col_x;        /* per tensor; -1: fixed */
    int *col_z;        /* per pair; -1: both ends fixed (no rows) */
    int *col_d, *col_r;/* per candidate; -1: a constant (the fixed plan's) */
    int col_P;
    int ncol, nrow, nbin;
    double *xlo, *xhi; /* per tensor, units of U (fixed: both the value) */
} mp_model;

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

static void lin_emit(const mp_ctx *c, mp_lin *l, char sense, double rhs)
{
    if (l->n == 0)
        return;   /* constants only: holds for the fixed plan */
    Cbc_addRow(c->mm->cbc, "", l->n, l->idx, l->val, sense, rhs - l->cst);
    c->mm->nrow++;
    l->n = 0;
    l->cst = 0;
}

static void mp_model_free(mp_model *mm)
{
    if (mm->cbc)
        Cbc_deleteModel(mm->cbc);
    free(mm->col_x);
    free(mm->col_z);
    free(mm->col_d);
    free(mm->col_r);
    free(mm->xlo);
    free(mm->xhi);
    memset(mm, 0, sizeof *mm);
}

/*
** Build the program with the tensors of free_ (NULL: all) as variables and
** every other tensor, and every candidate between two fixed tensors, held
** at the plan fix.  P bounds the tops of the free tensors (and their shift
** blocks) only; ub bounds every free top (bytes), lb is P's lower bound.
** The MIP start is fix.  0, or -1 out of memory.
*/
static int mp_build(const mp *m, const rip_plan *fix, const bool *free_, int64_t ub, int64_t lb, mp_model *mm)
{
    const rip_problem *p = m->p;
    size_t n = p->n, nc = p->n_cand;
    const double U = (double)m->U;
    memset(mm, 0, sizeof *mm);
    mm->col_x = malloc(n * sizeof *mm->col_x);
    mm->col_z = malloc(((size_t)m->npair + 1) * sizeof *mm->col_z);
    mm->col_d = malloc((nc + 1) * sizeof *mm->col_d);
    mm->col_r = malloc((nc + 1) * sizeof *mm->col_r);
    mm->xlo = malloc(n * sizeof *mm->xlo);
    mm->xhi = malloc(n * sizeof *mm->xhi);
    mm->cbc = Cbc_newModel();
    if (!mm->col_x || !mm->col_z || !mm->col_d || !mm->col_r || !mm->xlo || !mm->xhi || !mm->cbc)
        return -1;
    Cbc_setProblemName(mm->cbc, p->name[0] ? p->name : "ripsim");
    Cbc_setObjSense(mm->cbc, 1);
    mp_ctx c = {m, fix, mm};
    char name[48];

    /* columns */
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
        snprintf(name, sizeof name, "x%zu", t);
        Cbc_addCol(mm->cbc, name, 0.0, mm->xhi[t], 0.0, 1, 0, NULL, NULL);
        mm->col_x[t] = mm->ncol++;
    }
    mm->col_P = mm->ncol++;
    Cbc_addCol(mm->cbc, "P", (double)lb / U, (double)ub / U, 1.0, 0, 0, NULL, NULL);
    for (int k = 0; k < m->npair; k++) {
        mm->col_z[k] = -1;
        if (mm->col_x[m->pair[k].a] < 0 && mm->col_x[m->pair[k].b] < 0)
            continue;
        snprintf(name, sizeof name, "z%d_%d", m->pair[k].a, m->pair[k].b);
        Cbc_addCol(mm->cbc, name, 0.0, 1.0, 0.0, 1, 0, NULL, NULL);
        mm->col_z[k] = mm->ncol++;
        mm->nbin++;
    }
    for (size_t k = 0; k < nc; k++) {
        const rip_candidate *cd = &p->cand[k];
        mm->col_d[k] = mm->col_r[k] = -1;
        if (!m->usable[k] || (mm->col_x[cd->in] < 0 && mm->col_x[cd->out] < 0))
            continue;
        snprintf(name, sizeof name, "d%zu", k);
        Cbc_addCol(mm->cbc, name, 0.0, 1.0, 0.0, 1, 0, NULL, NULL);
        mm->col_d[k] = mm->ncol++;
        mm->nbin++;
        if (cd->kind == RIP_INPLACE_GAP) {
            double cost = MILP_SHIFT_C * (double)p->t[cd->in].size / U;
            snprintf(name, sizeof name, "r%zu", k);
            Cbc_addCol(mm->cbc, name, 0.0, 1.0, cost, 1, 0, NULL, NULL);
            mm->col_r[k] = mm->ncol++;
            mm->nbin++;
        }
    }

    /* no overlap, per pair alive together */
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
            lin_x(&c, &l, lo, 1.0);
            lin_x(&c, &l, hi, -1.0);
            lin_col(&l, mm->col_z[k], side == 0 ? M : -M);
            for (int j = m->pc_start[k]; j < m->pc_start[k + 1]; j++)
                lin_d(&c, &l, m->pc[j], -M);
            if (strengthen)
                lin_r(&c, &l, sk, g);
            lin_emit(&c, &l, 'L', side == 0 ? M - s : -s);
        }
    }
    /* candidate rules */
    for (size_t k = 0; k < nc; k++) {
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
        lin_x(&c, &l, ou, 1.0);
        lin_x(&c, &l, in, -1.0);
        if (alias)
            lin_d(&c, &l, (int)k, M1);
        else
            lin_r(&c, &l, (int)k, M1);
        lin_emit(&c, &l, 'L', M1);
        lin_x(&c, &l, in, 1.0);
        lin_x(&c, &l, ou, -1.0);
        if (alias)
            lin_d(&c, &l, (int)k, M2);
        else
            lin_r(&c, &l, (int)k, M2);
        lin_emit(&c, &l, 'L', M2);
        if (alias)
            continue;
        double g = (double)(cd->gap / m->U);
        /* x_out + g <= x_in when d and not r */
        double Mg = M1 + g;
        lin_x(&c, &l, ou, 1.0);
        lin_x(&c, &l, in, -1.0);
        lin_d(&c, &l, (int)k, Mg);
        lin_r(&c, &l, (int)k, -Mg);
        lin_emit(&c, &l, 'L', Mg - g);
        /* r <= d */
        lin_r(&c, &l, (int)k, 1.0);
        lin_d(&c, &l, (int)k, -1.0);
        lin_emit(&c, &l, 'L', 0.0);
        /* P >= x_in + N_in / U + g r */
        lin_col(&l, mm->col_P, 1.0);
        lin_x(&c, &l, in, -1.0);
        lin_r(&c, &l, (int)k, -g);
        lin_emit(&c, &l, 'G', (double)p->t[in].size / U);
    }
    /* at most one used candidate per output (op) and per input */
    for (int side = 0; side < 2; side++) {
        for (size_t t = 0; t < n; t++) {
            int vars = 0;
            double used = 0;
            mp_lin big = {0};
            for (size_t k = 0; k < nc; k++) {
                if (!m->usable[k] || (side == 0 ? p->cand[k].out : p->cand[k].in) != (int)t)
                    continue;
                if (mm->col_d[k] >= 0) {
                    if (big.n < 16)
                        lin_col(&big, mm->col_d[k], 1.0);
                    vars++;
                } else if (fix->in_place[k]) {
                    used += 1;
                }
            }
            if (vars >= 2 || (vars >= 1 && used > 0)) {
                big.cst = used;
                lin_emit(&c, &big, 'L', 1.0);
            }
        }
    }
    /* the peak */
    for (size_t t = 0; t < n; t++) {
        if (mm->col_x[t] < 0)
            continue;
        lin_col(&l, mm->col_P, 1.0);
        lin_x(&c, &l, (int)t, -1.0);
        lin_emit(&c, &l, 'G', (double)p->t[t].size / U);
    }

    /* the MIP start: every integer column, from fix */
    int *idx = malloc((size_t)mm->ncol * sizeof *idx);
    double *val = malloc((size_t)mm->ncol * sizeof *val);
    bool *below = malloc(((size_t)m->npair + 1) * sizeof *below);
    if (!idx || !val || !below) {
        free(idx);
        free(val);
        free(below);
        return -1;
    }
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
    Cbc_setMIPStartI(mm->cbc, ns, idx, val);
    free(idx);
    free(val);
    free(below);
    return 0;
}

/*
** Read CBC's best solution of mm into cand (a plan for the whole problem:
** fixed parts from fix), round it, check it, and if the check fails
** compact it with the solution's binaries and check again.  Returns true
** for a valid plan.
*/
static bool mp_extract(const mp *m, const mp_model *mm, const rip_plan *fix, const double *sol,
                       rip_plan *cand, char cerr[RIP_ERR_LEN])
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
    if (rip_plan_check(p, cand, false, cerr) == 0)
        return true;
    bool *below = malloc(((size_t)m->npair + 1) * sizeof *below);
    if (!below)
        return false;
    mp_orient(m, fix->offset, below);
    for (int k = 0; k < m->npair; k++)
        if (mm->col_z[k] >= 0)
            below[k] = sol[mm->col_z[k]] > 0.5;
    bool ok = mp_compact(m, cand->in_place, cand->shift, below, cand->offset) == 0;
    free(below);
    if (!ok)
        return false;
    cand->peak = rip_plan_peak(p, cand);
    return rip_plan_check(p, cand, false, cerr) == 0;
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

static void mp_quiet(Cbc_Model *cbc, bool verbose, double seconds)
{
    Cbc_setLogLevel(cbc, verbose ? 1 : 0);
    /* CBC 2.10.8 crashes (SIGSEGV in CglPreProcess::postProcess) on some of
    ** these programs when a run with a MIP start stops on its time limit;
    ** its preprocessing buys nothing here (the bound comes from the cut,
    ** solutions from the start and the neighbourhood search), so it is off */
    Cbc_setParameter(cbc, "preprocess", "off");
    if (seconds > 0) {
        Cbc_setParameter(cbc, "timeMode", "elapsed");   /* wall clock, as opts.time_limit */
        Cbc_setMaximumSeconds(cbc, seconds);
    }
    Cbc_setAllowableGap(cbc, 1e-7);
    Cbc_setAllowableFractionGap(cbc, 0.0);
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
** bound, when the window covers every step, or at the deadline.
*/
static int mp_lns(const mp *m, const rip_plan_opts *o, rip_plan *cur, double deadline)
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
    int rc = 0;
    if (!pts || !lo || !hi || !res || !free_ || !hot || !cand) {
        rc = -1;
        goto out;
    }
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
    while (cur->peak > cur->lower_bound && mp_now() < deadline) {
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
            rc = -1;
            goto out;
        }
        double left = 0.8 * (deadline - mp_now());   /* CBC overruns its limit a little */
        mp_quiet(mm.cbc, false, left < 5 ? (left > 0.2 ? left : 0.2) : 5);
        Cbc_solve(mm.cbc);
        const double *sol = Cbc_bestSolution(mm.cbc);
        char cerr[RIP_ERR_LEN];
        bool kept = false;
        if (sol && mp_extract(m, &mm, cur, sol, cand, cerr)) {
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
        if (o->verbose)
            fprintf(stderr, "milp: lns window of %lld points around tensor %s, %zu free: %s, peak %lld\n",
                    (long long)(2 * w + 1), p->t[h].id, nfree, kept ? "improved" : "no gain",
                    (long long)cur->peak);
        mp_model_free(&mm);
        if (kept)
            tried = 0;
        else
            tried++;
    }
out:
    free(pts);
    free(lo);
    free(hi);
    free(res);
    free(free_);
    free(hot);
    rip_plan_free(cand);
    return rc;
}

int rip_strategy_milp(const rip_problem *p, const rip_plan_opts *o, rip_plan *out, char err[RIP_ERR_LEN])
{
    double t0 = mp_now();
    rip_plan_opts none = {0};
    if (!o)
        o = &none;
    snprintf(out->strategy, sizeof out->strategy, "milp");
    out->lower_bound = rip_problem_lower_bound(p);
    out->optimal = false;
    out->n_vars = out->n_cons = out->n_binaries = 0;
    if (p->n == 0) {
        out->peak = 0;
        out->optimal = true;
        out->seconds = mp_now() - t0;
        return 0;
    }
    if (p->n > (size_t)INT32_MAX / 8 || p->n_cand > (size_t)INT32_MAX / 8) {
        snprintf(err, RIP_ERR_LEN, "strategy milp: problem too large");
        return RIP_EX_DATAERR;
    }

    int rc = 0;
    mp m;
    mp_model mm = {0};
    rip_plan *cand = NULL;
    char start_src[32] = "";
    if (mp_init(&m, p) || !(cand = rip_plan_new(p, "milp"))) {
        rc = RIP_EX_OSERR;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    rc = mp_start(&m, o, out, start_src, sizeof start_src, err);
    if (rc)
        goto done;

    /* improve the start where it misses the bound */
    if (out->peak > out->lower_bound) {
        double budget = o->time_limit > 0 ? 0.5 * o->time_limit : 120;
        int64_t before = out->peak;
        if (mp_lns(&m, o, out, t0 + budget)) {
            rc = RIP_EX_OSERR;
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
            goto done;
        }
        if (out->peak < before)
            snprintf(start_src + strlen(start_src), sizeof start_src - strlen(start_src), "+lns");
    }

    /* the whole program, started from the best plan so far */
    double start_obj = mp_objective(p, out);
    int64_t ub = out->peak + (int64_t)(start_obj - (double)out->peak) + 1;
    if (mp_build(&m, out, NULL, ub, out->lower_bound, &mm)) {
        rc = RIP_EX_OSERR;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    out->n_vars = mm.ncol;
    out->n_cons = mm.nrow;
    out->n_binaries = mm.nbin;
    double left = 0;
    if (o->time_limit > 0) {
        left = 0.9 * (o->time_limit - (mp_now() - t0));   /* CBC overruns its limit a little */
        if (left < 0.5)
            left = 0.5;
    }
    mp_quiet(mm.cbc, o->verbose, left);
    if (o->verbose)
        fprintf(stderr, "milp: %s: %zu tensors, %zu candidates, U = %lld B, %d columns (%d binaries), %d rows "
                "(all-pairs encoding: %zu binaries); start %s peak %lld, lower bound %lld\n", p->name, p->n,
                p->n_cand, (long long)m.U, mm.ncol, mm.nbin, mm.nrow, 3 * p->n * (p->n - 1) / 2 + 2 * p->n_cand,
                start_src, (long long)out->peak, (long long)out->lower_bound);
    Cbc_solve(mm.cbc);
    bool proven = Cbc_isProvenOptimal(mm.cbc) != 0;
    const double *sol = Cbc_bestSolution(mm.cbc);
    bool used_cbc = false;
    if (sol) {
        char cerr[RIP_ERR_LEN];
        bool ok = mp_extract(&m, &mm, out, sol, cand, cerr);
        if (ok && mp_objective(p, cand) <= mp_objective(p, out) + 1e-6) {
            mp_copy_plan(p, out, cand);
            used_cbc = true;
        } else if (!ok && o->verbose) {
            fprintf(stderr, "milp: CBC's solution fails the check (%s); keeping the start plan\n", cerr);
        }
    }
    out->optimal = (proven && used_cbc) || out->peak <= out->lower_bound;
    if (o->verbose)
        fprintf(stderr, "milp: CBC status %d/%d, %s, objective %.4f, best bound %.4f; peak %lld%s\n",
                Cbc_status(mm.cbc), Cbc_secondaryStatus(mm.cbc), proven ? "proven optimal" : "not proven",
                Cbc_getObjValue(mm.cbc) * (double)m.U, Cbc_getBestPossibleObjValue(mm.cbc) * (double)m.U,
                (long long)out->peak, used_cbc ? "" : " (start plan)");

done:
    mp_model_free(&mm);
    rip_plan_free(cand);
    mp_free(&m);
    out->seconds = mp_now() - t0;
    return rc;
}
