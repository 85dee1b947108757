/*
** milp.c — the `milp` strategy: the paper's placement program (Sec. 4.3)
** solved with COIN-OR CBC through its C interface.
**
** Units.  Offsets are integer variables in units of U bytes, U the gcd of
** the alignment V, every tensor size rounded up to V and every gap (so U
** is a multiple of V and every offset V-aligned).  This loses nothing: for
** fixed binaries the constraints are difference constraints x_b - x_a >= c
** with every c a multiple of U, whose least solution (longest paths from
** 0) is componentwise lowest, hence of lowest peak, and made of multiples
** of U.  The peak P is continuous, in the same units (P >= x_t + N_t / U).
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
** greedy-size, hill-climb with a short budget, naive) are run, each plan
** checked with rip_plan_check() and compacted onto the U grid (the least
** solution for its binaries, which only lowers offsets); the best becomes
** CBC's start (Cbc_setMIPStartI with every integer column).  When its peak
** equals the lower bound, CBC proves optimality at the root.
**
** Result.  CBC's best solution is rounded, compacted and checked; should
** it fail the check (numerics), the start plan is returned instead.
** plan->optimal: CBC proved optimality of the solution returned, or its
** peak equals the lower bound.  opts.time_limit > 0 bounds CBC's time
** (the start heuristics take a little of it); opts.verbose shows CBC's log.
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
    int64_t U = V;
    for (int i = 0; i < m->n; i++)
        U = mp_gcd(U, rip_align_up(p->t[i].size, V));
    for (size_t k = 0; k < p->n_cand; k++)
        if (p->cand[k].gap > 0)
            U = mp_gcd(U, p->cand[k].gap);
    m->U = U;
    for (int i = 0; i < m->n; i++) {
        m->s[i] = rip_align_up(p->t[i].size, V) / U;
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
    static const char *const names[] = {"tinyengine", "greedy-size", "hill-climb", "naive"};
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
        rip_plan *pl = rip_plan_new(p, names[h]);
        if (!pl) {
            free(below);
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
            return RIP_EX_OSERR;
        }
        rip_plan_opts ho = *o;
        ho.verbose = false;
        ho.time_limit = 1.0;
        if (o->time_limit > 0 && o->time_limit / 10 < ho.time_limit)
            ho.time_limit = o->time_limit / 10;
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
typedef struct mp_row {
    int n;
    int idx[8];
    double val[8];
} mp_row;

static void row_add(mp_row *r, int col, double v)
{
    r->idx[r->n] = col;
    r->val[r->n] = v;
    r->n++;
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
    Cbc_Model *cbc = NULL;
    int *col_x = NULL, *col_z = NULL, *col_d = NULL, *col_r = NULL, *start_idx = NULL;
    int *pc_start = NULL, *pc = NULL;
    double *start_val = NULL;
    bool *below = NULL;
    char start_src[32] = "";
    if (mp_init(&m, p)) {
        rc = RIP_EX_OSERR;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    rc = mp_start(&m, o, out, start_src, sizeof start_src, err);
    if (rc)
        goto done;

    const double U = (double)m.U;
    double start_obj = mp_objective(p, out);
    /* UB: no plan better than the start has a larger peak */
    int64_t ub = out->peak + (int64_t)(start_obj - (double)out->peak) + 1;
    int64_t lb = out->lower_bound;

    size_t n = p->n, nc = p->n_cand;
    col_x = malloc(n * sizeof *col_x);
    col_z = malloc(((size_t)m.npair + 1) * sizeof *col_z);
    col_d = malloc((nc + 1) * sizeof *col_d);
    col_r = malloc((nc + 1) * sizeof *col_r);
    below = malloc(((size_t)m.npair + 1) * sizeof *below);
    cbc = Cbc_newModel();
    if (!col_x || !col_z || !col_d || !col_r || !below || !cbc) {
        rc = RIP_EX_OSERR;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    Cbc_setProblemName(cbc, p->name[0] ? p->name : "ripsim");
    Cbc_setObjSense(cbc, 1);

    /* columns */
    int ncol = 0, nbin = 0;
    char name[48];
    double *xmax = malloc(n * sizeof *xmax);
    if (!xmax) {
        rc = RIP_EX_OSERR;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    for (size_t t = 0; t < n; t++) {
        int64_t hi = (ub - p->t[t].size) / m.U;
        if (hi < 0)
            hi = 0;
        xmax[t] = (double)hi;
        snprintf(name, sizeof name, "x%zu", t);
        Cbc_addCol(cbc, name, 0.0, xmax[t], 0.0, 1, 0, NULL, NULL);
        col_x[t] = ncol++;
    }
    int col_P = ncol++;
    Cbc_addCol(cbc, "P", (double)lb / U, (double)ub / U, 1.0, 0, 0, NULL, NULL);
    for (int k = 0; k < m.npair; k++) {
        snprintf(name, sizeof name, "z%d_%d", m.pair[k].a, m.pair[k].b);
        Cbc_addCol(cbc, name, 0.0, 1.0, 0.0, 1, 0, NULL, NULL);
        col_z[k] = ncol++;
        nbin++;
    }
    for (size_t k = 0; k < nc; k++) {
        col_d[k] = col_r[k] = -1;
        if (!m.usable[k])
            continue;
        snprintf(name, sizeof name, "d%zu", k);
        Cbc_addCol(cbc, name, 0.0, 1.0, 0.0, 1, 0, NULL, NULL);
        col_d[k] = ncol++;
        nbin++;
        if (p->cand[k].kind == RIP_INPLACE_GAP) {
            double cost = MILP_SHIFT_C * (double)p->t[p->cand[k].in].size / U;
            snprintf(name, sizeof name, "r%zu", k);
            Cbc_addCol(cbc, name, 0.0, 1.0, cost, 1, 0, NULL, NULL);
            col_r[k] = ncol++;
            nbin++;
        }
    }

    /* rows */
    int nrow = 0;
    mp_row r;
    /* candidates per pair: at most a few; collect them by scanning */
    pc_start = calloc((size_t)m.npair + 2, sizeof *pc_start);
    pc = malloc((nc + 1) * sizeof *pc);
    if (!pc_start || !pc) {
        free(xmax);
        rc = RIP_EX_OSERR;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    for (size_t k = 0; k < nc; k++)
        if (m.usable[k])
            pc_start[m.cand_pair[k] + 1]++;
    for (int k = 0; k < m.npair; k++)
        pc_start[k + 1] += pc_start[k];
    {
        int *fill = calloc((size_t)m.npair + 1, sizeof *fill);
        if (!fill) {
            free(xmax);
            rc = RIP_EX_OSERR;
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
            goto done;
        }
        for (size_t k = 0; k < nc; k++)
            if (m.usable[k]) {
                int q = m.cand_pair[k];
                pc[pc_start[q] + fill[q]++] = (int)k;
            }
        free(fill);
    }
    for (int k = 0; k < m.npair; k++) {
        int ends[2] = {m.pair[k].a, m.pair[k].b};
        int ncp = pc_start[k + 1] - pc_start[k];
        for (int side = 0; side < 2; side++) {
            /* side 0: x_a + s_a (+ g r) <= x_b + M (1 - z) + M sum d
            ** side 1: x_b + s_b (+ g r) <= x_a + M z       + M sum d */
            int lo = ends[side], hi = ends[1 - side];
            int sk = m.shift_of[lo];
            bool strengthen = sk >= 0 && mp_blocks(&m, sk, hi);
            double g = strengthen ? (double)(p->cand[sk].gap / m.U) : 0.0;
            double M = xmax[lo] + (double)m.s[lo] + g;
            r.n = 0;
            row_add(&r, col_x[lo], 1.0);
            row_add(&r, col_x[hi], -1.0);
            row_add(&r, col_z[k], side == 0 ? M : -M);
            for (int j = 0; j < ncp && j < 4; j++)
                row_add(&r, col_d[pc[pc_start[k] + j]], -M);
            if (strengthen)
                row_add(&r, col_r[sk], g);
            double rhs = side == 0 ? M - (double)m.s[lo] : -(double)m.s[lo];
            Cbc_addRow(cbc, "", r.n, r.idx, r.val, 'L', rhs);
            nrow++;
        }
    }
    for (size_t k = 0; k < nc; k++) {
        if (!m.usable[k])
            continue;
        const rip_candidate *c = &p->cand[k];
        int xi = col_x[c->in], xo = col_x[c->out];
        double M = xmax[c->in] > xmax[c->out] ? xmax[c->in] : xmax[c->out];
        int eqv = c->kind == RIP_INPLACE_ALIAS ? col_d[k] : col_r[k];
        /* x_out = x_in when the ALIAS is used / the GAP runs with a shift */
        r.n = 0;
        row_add(&r, xo, 1.0);
        row_add(&r, xi, -1.0);
        row_add(&r, eqv, M);
        Cbc_addRow(cbc, "", r.n, r.idx, r.val, 'L', M);
        r.n = 0;
        row_add(&r, xi, 1.0);
        row_add(&r, xo, -1.0);
        row_add(&r, eqv, M);
        Cbc_addRow(cbc, "", r.n, r.idx, r.val, 'L', M);
        nrow += 2;
        if (c->kind != RIP_INPLACE_GAP)
            continue;
        double g = (double)(c->gap / m.U);
        /* x_out + g <= x_in when d and not r: x_out - x_in + M d - M r <= M - g */
        double Mg = xmax[c->out] + g;
        r.n = 0;
        row_add(&r, xo, 1.0);
        row_add(&r, xi, -1.0);
        row_add(&r, col_d[k], Mg);
        row_add(&r, col_r[k], -Mg);
        Cbc_addRow(cbc, "", r.n, r.idx, r.val, 'L', Mg - g);
        /* r <= d */
        r.n = 0;
        row_add(&r, col_r[k], 1.0);
        row_add(&r, col_d[k], -1.0);
        Cbc_addRow(cbc, "", r.n, r.idx, r.val, 'L', 0.0);
        /* P >= x_in + N_in / U + g r */
        r.n = 0;
        row_add(&r, col_P, 1.0);
        row_add(&r, xi, -1.0);
        row_add(&r, col_r[k], -g);
        Cbc_addRow(cbc, "", r.n, r.idx, r.val, 'G', (double)p->t[c->in].size / U);
        nrow += 3;
    }
    /* at most one used candidate per output (op) and per input */
    for (int side = 0; side < 2; side++) {
        for (size_t t = 0; t < n; t++) {
            int cols[64];
            double ones[64];
            int cnt = 0;
            for (size_t k = 0; k < nc && cnt < 64; k++) {
                if (!m.usable[k] || (side == 0 ? p->cand[k].out : p->cand[k].in) != (int)t)
                    continue;
                cols[cnt] = col_d[k];
                ones[cnt++] = 1.0;
            }
            if (cnt >= 2) {
                Cbc_addRow(cbc, "", cnt, cols, ones, 'L', 1.0);
                nrow++;
            }
        }
    }
    /* the peak */
    for (size_t t = 0; t < n; t++) {
        r.n = 0;
        row_add(&r, col_P, 1.0);
        row_add(&r, col_x[t], -1.0);
        Cbc_addRow(cbc, "", r.n, r.idx, r.val, 'G', (double)p->t[t].size / U);
        nrow++;
    }
    free(pc_start);
    free(pc);
    pc_start = NULL;
    pc = NULL;
    out->n_vars = ncol;
    out->n_cons = nrow;
    out->n_binaries = nbin;

    /* MIP start: every integer column, from the start plan */
    start_idx = malloc((size_t)ncol * sizeof *start_idx);
    start_val = malloc((size_t)ncol * sizeof *start_val);
    if (!start_idx || !start_val) {
        free(xmax);
        rc = RIP_EX_OSERR;
        snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
        goto done;
    }
    int ns = 0;
    for (size_t t = 0; t < n; t++) {
        start_idx[ns] = col_x[t];
        start_val[ns++] = (double)(out->offset[t] / m.U);
    }
    mp_orient(&m, out->offset, below);
    for (int k = 0; k < m.npair; k++) {
        start_idx[ns] = col_z[k];
        start_val[ns++] = below[k] ? 1.0 : 0.0;
    }
    for (size_t k = 0; k < nc; k++) {
        if (col_d[k] >= 0) {
            start_idx[ns] = col_d[k];
            start_val[ns++] = out->in_place[k] ? 1.0 : 0.0;
        }
        if (col_r[k] >= 0) {
            start_idx[ns] = col_r[k];
            start_val[ns++] = out->shift[k] ? 1.0 : 0.0;
        }
    }
    Cbc_setMIPStartI(cbc, ns, start_idx, start_val);
    free(xmax);

    /* solve */
    Cbc_setLogLevel(cbc, o->verbose ? 1 : 0);
    if (o->time_limit > 0) {
        double left = o->time_limit - (mp_now() - t0);
        Cbc_setMaximumSeconds(cbc, left > 0.5 ? left : 0.5);
    }
    Cbc_setAllowableGap(cbc, 1e-7);
    {
        const char *e = getenv("MILPPAR");   /* DEV ONLY */
        if (e) {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", e);
            for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
                char *eq = strchr(tok, '=');
                if (eq) { *eq = 0; Cbc_setParameter(cbc, tok, eq + 1); }
            }
        }
    }
    Cbc_setAllowableFractionGap(cbc, 0.0);
    if (o->verbose)
        fprintf(stderr, "milp: %s: %zu tensors, %zu candidates, U = %lld B, %d columns (%d binaries), %d rows; "
                "start %s peak %lld, lower bound %lld\n", p->name, n, nc, (long long)m.U, ncol, nbin, nrow,
                start_src, (long long)out->peak, (long long)lb);
    Cbc_solve(cbc);
    bool proven = Cbc_isProvenOptimal(cbc) != 0;
    const double *sol = Cbc_bestSolution(cbc);
    bool used_cbc = false;
    if (sol) {
        /* round, then compact with the solution's binaries and check */
        rip_plan *cand = rip_plan_new(p, "milp");
        if (!cand) {
            rc = RIP_EX_OSERR;
            snprintf(err, RIP_ERR_LEN, "strategy milp: out of memory");
            goto done;
        }
        for (size_t t = 0; t < n; t++) {
            double v = sol[col_x[t]];
            cand->offset[t] = (int64_t)(v + 0.5) * m.U;
        }
        for (size_t k = 0; k < nc; k++) {
            cand->in_place[k] = col_d[k] >= 0 && sol[col_d[k]] > 0.5;
            cand->shift[k] = col_r[k] >= 0 && cand->in_place[k] && sol[col_r[k]] > 0.5;
        }
        for (int k = 0; k < m.npair; k++)
            below[k] = sol[col_z[k]] > 0.5;
        char cerr[RIP_ERR_LEN];
        cand->peak = rip_plan_peak(p, cand);
        bool ok = rip_plan_check(p, cand, false, cerr) == 0;
        if (!ok && mp_compact(&m, cand->in_place, cand->shift, below, cand->offset) == 0) {
            cand->peak = rip_plan_peak(p, cand);
            ok = rip_plan_check(p, cand, false, cerr) == 0;
        }
        if (ok && mp_objective(p, cand) <= mp_objective(p, out) + 1e-6) {
            memcpy(out->offset, cand->offset, n * sizeof *out->offset);
            if (nc) {
                memcpy(out->in_place, cand->in_place, nc * sizeof *out->in_place);
                memcpy(out->shift, cand->shift, nc * sizeof *out->shift);
            }
            out->peak = cand->peak;
            used_cbc = true;
        } else if (!ok && o->verbose) {
            fprintf(stderr, "milp: CBC's solution fails the check (%s); keeping the start plan\n", cerr);
        }
        rip_plan_free(cand);
    }
    out->optimal = (proven && used_cbc) || out->peak <= out->lower_bound;
    if (o->verbose)
        fprintf(stderr, "milp: CBC status %d/%d, %s, objective %.4f, best bound %.4f; peak %lld%s\n",
                Cbc_status(cbc), Cbc_secondaryStatus(cbc), proven ? "proven optimal" : "not proven",
                Cbc_getObjValue(cbc) * U, Cbc_getBestPossibleObjValue(cbc) * U, (long long)out->peak,
                used_cbc ? "" : " (start plan)");

done:
    if (cbc)
        Cbc_deleteModel(cbc);
    free(col_x);
    free(col_z);
    free(col_d);
    free(col_r);
    free(start_idx);
    free(start_val);
    free(pc_start);
    free(pc);
    free(below);
    mp_free(&m);
    out->seconds = mp_now() - t0;
    return rc;
}
