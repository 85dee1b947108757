/*
** milp_model.c — the milp strategy's program (milp.c states its variables
** and constraints): its columns and rows assembled in plain arrays for a
** plan held fixed outside a set of free tensors (mp_build), packed by
** columns for Cbc_loadProblem with the plan as the MIP start, and CBC's
** solution read back into a checked plan (mp_extract).
**
** The program is assembled in plain arrays (columns, and rows as triplets,
** then packed by columns) and handed to CBC in one Cbc_loadProblem call,
** in the solver's child process (milp_run.c; ripsim itself never runs CBC
** code): adding rows one at a time with Cbc_addRow re-packs CBC's
** column-ordered matrix on every row, which is quadratic and took minutes
** on 300 tensors alive together.
*/
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "milp_internal.h"
#include "plan.h"
#include "status.h"

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

/* Contract: milp_internal.h. */
void mp_model_free(mp_model *mm)
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
/* Contract: milp_internal.h. */
int mp_build(const mp *m, const rip_plan *fix, const bool *free_, int64_t ub, int64_t lb, mp_model *mm)
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
/* Contract: milp_internal.h. */
int mp_extract(const mp *m, const mp_model *mm, const rip_plan *fix, const double *sol, rip_plan *cand,
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
