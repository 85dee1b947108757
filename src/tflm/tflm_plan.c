/*
** tflm_plan.c — exact plans for TFLite Micro with oracle-allowed overlaps,
** and the check of an offline plan (tflm_plan.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "tflm_orders.h"
#include "tflm_plan.h"

/* exact's node budget (deterministic: no clock), and milp's safety net in seconds */
#define TFLM_EXACT_NODES 2000000u
#define TFLM_MILP_SAFETY_S 600.0

rip_status rip_tflm_gap_none(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                             char err[RIP_ERR_LEN])
{
    (void)ctx, (void)m, (void)op, (void)k, (void)err;
    *gap = -1;
    return RIP_OK;
}

rip_status rip_tflm_gap_lib(void *ctx, const rip_tfl_model *m, size_t op, int k, int64_t *gap,
                            char err[RIP_ERR_LEN])
{
    const rip_tflm_lib *lib = ctx;
    if (lib == NULL || (*lib != RIP_TFLM_REFERENCE && *lib != RIP_TFLM_CMSIS_NN)) {
        snprintf(err, RIP_ERR_LEN, "tflm plan: no kernel library given to the gap oracle");
        return RIP_S_INTERNAL;
    }
    return rip_tflm_overlap_gap(m, op, k, *lib, gap, err);
}

void rip_tflm_plan_out_free(rip_tflm_plan_out *o)
{
    if (o) {
        free(o->offset);
        free(o->overlap);
        memset(o, 0, sizeof *o);
    }
}

static const char *op_name(const rip_tfl_model *m, const rip_tfl_operator *op)
{
    const rip_tfl_opcode *c = rip_tfl_op_code(m, op);
    if (c && c->builtin == RIP_TFL_OP_CUSTOM && c->custom_code)
        return c->custom_code;
    const char *n = c ? rip_tfl_op_name(c->builtin) : NULL;
    return n ? n : "?";
}

static bool is_reshape(const rip_tfl_model *m, const rip_tfl_operator *op)
{
    const rip_tfl_opcode *c = rip_tfl_op_code(m, op);
    return c && c->builtin == RIP_TFL_OP_RESHAPE;
}

bool rip_tflm_may_share(const rip_tflm_alloc *a, size_t op, int32_t bi, int32_t bo)
{
    const int s = (int)op + 1;
    return bi >= 0 && bo >= 0 && bi != bo && a->buf[bi].last == s && a->buf[bo].first == s;
}

bool rip_tflm_next_pair(const rip_tfl_model *m, const rip_tflm_alloc *a, size_t *o, size_t *k)
{
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    for (; *o < sg->n_operators; (*o)++, *k = 0) {
        const rip_tfl_operator *op = &sg->operators[*o];
        if (op->n_outputs < 1)
            continue;
        const int32_t bo = a->buf_of[op->outputs[0]];
        for (; *k < op->n_inputs; (*k)++) {
            const int32_t bi = op->inputs[*k] >= 0 ? a->buf_of[op->inputs[*k]] : -1;
            if (rip_tflm_may_share(a, *o, bi, bo))
                return true;
        }
    }
    return false;
}

rip_status rip_tflm_op_rule(const rip_tfl_model *m, const rip_tflm_oracle *or, size_t o, int32_t t, int *k_first,
                            bool *alias, int64_t *gap, char err[RIP_ERR_LEN])
{
    const rip_tfl_operator *op = &m->subgraphs[0].operators[o];
    int uses = 0;
    *k_first = -1, *alias = false, *gap = 0;
    for (size_t k = 0; k < op->n_inputs; k++)
        if (op->inputs[k] == t && uses++ == 0)
            *k_first = (int)k;
    if (*k_first == 0 && uses == 1 && is_reshape(m, op)) {
        *alias = true;
        return RIP_OK;
    }
    for (size_t k = 0; k < op->n_inputs; k++) {
        if (op->inputs[k] != t)
            continue;
        int64_t g;
        rip_status st = or->gap(or->ctx, m, o, (int)k, &g, err);
        if (st != RIP_OK)
            return st;
        if (g < 0) {
            *gap = -1;
            return RIP_OK;
        }
        *gap = g > *gap ? g : *gap;
    }
    return RIP_OK;
}

/*
** The overlap rule of buffers x and y (either order): *kind 0 when they
** are not an op's input and output 0 that may share (rip_tflm_may_share); else
** *rule is that pair (rip_tflm_op_rule) and *kind 1 when no overlap of it is
** allowed, 2 when one is (rule->gap, or RESHAPE's alias).  RIP_OK, or the
** oracle's status.
*/
static rip_status pair_rule(const rip_tfl_model *m, const rip_tflm_alloc *a, const rip_tflm_oracle *or, int32_t x,
                            int32_t y, int *kind, rip_tflm_overlap *rule, char err[RIP_ERR_LEN])
{
    *kind = 0;
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    for (int pass = 0; pass < 2 && *kind == 0; pass++) {
        int32_t bo = pass ? x : y, bi = pass ? y : x;
        int s = a->buf[bo].first;
        if (s < 1 || (size_t)s > sg->n_operators)
            continue;
        size_t o = (size_t)s - 1;
        const rip_tfl_operator *op = &sg->operators[o];
        if (op->n_outputs < 1 || op->outputs[0] != a->buf[bo].tensor || !rip_tflm_may_share(a, o, bi, bo))
            continue;
        rip_status st = rip_tflm_op_rule(m, or, o, a->buf[bi].tensor, &rule->k, &rule->alias, &rule->gap, err);
        if (st != RIP_OK)
            return st;
        if (rule->k < 0)
            continue;
        rule->op = o, rule->in = a->buf[bi].tensor, rule->out = a->buf[bo].tensor;
        *kind = rule->alias || rule->gap >= 0 ? 2 : 1;
    }
    return RIP_OK;
}

rip_status rip_tflm_check(const rip_tfl_model *m, const rip_tflm_alloc *a, const int32_t *off,
                          const rip_tflm_oracle *oracle, rip_tflm_verdict *v, char err[RIP_ERR_LEN])
{
    memset(v, 0, sizeof *v);
    v->safe = true, v->op = -2;
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    for (size_t t = 0; t < sg->n_tensors; t++)
        if (sg->tensors[t].is_variable && off[t] >= 0 && !rip_tfl_tensor_data(m, &sg->tensors[t], &(size_t){0})) {
            snprintf(err, RIP_ERR_LEN, "%s: tensor %zu is a variable with an offline offset: not modelled", m->label, t);
            return RIP_S_DATA;
        }
    const size_t n = a->n;
    int64_t *fixed = malloc((n + 1) * sizeof *fixed), *x = malloc((n + 1) * sizeof *x);
    rip_status st = RIP_S_NOMEM;
    if (!fixed || !x) {
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", m->label);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        fixed[i] = off[a->buf[i].tensor];
        fixed[i] >= 0 ? v->n_offline++ : v->n_online++;
    }
    if ((st = rip_tflm_greedy(a, fixed, x, &v->area, err)) != RIP_OK)
        goto done;
    int first_bad = 0;   /* the scope of the first unsafe pair, once !v->safe */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const rip_tflm_buf *bi = &a->buf[i], *bj = &a->buf[j];
            if (bi->first > bj->last || bj->first > bi->last)
                continue;
            if (x[i] >= x[j] + bj->size || x[j] >= x[i] + bi->size)
                continue;
            int s = bi->first > bj->first ? bi->first : bj->first;
            int kind;
            rip_tflm_overlap r;
            if ((st = pair_rule(m, a, oracle, (int32_t)i, (int32_t)j, &kind, &r, err)) != RIP_OK)
                goto done;
            const int32_t ib = kind ? a->buf_of[r.in] : -1, ob = kind ? a->buf_of[r.out] : -1;
            const bool found = kind == 2;
            bool ok = found && (r.alias ? x[ib] == x[ob] : x[ib] - x[ob] >= r.gap);
            if (ok) {
                v->n_overlaps++;
                continue;
            }
            if (!v->safe && s >= first_bad)
                continue;
            first_bad = s;
            v->safe = false;
            v->op = s >= 1 ? s - 1 : 0;
            char where[96];
            if (v->op < (long)sg->n_operators)
                snprintf(where, sizeof where, "operator %ld (%.40s)%s", v->op, op_name(m, &sg->operators[v->op]),
                         s < 1 ? ", both alive before it" : "");
            else
                snprintf(where, sizeof where, "before any operator");
            if (found && r.alias)
                snprintf(v->why, sizeof v->why, "%s: RESHAPE output tensor %d at %lld overlaps its input tensor %d at "
                         "%lld: only the same offset is safe", where, r.out, (long long)x[ob], r.in, (long long)x[ib]);
            else if (found)
                snprintf(v->why, sizeof v->why, "%s: output tensor %d at %lld overlaps input %d (tensor %d) at %lld: "
                         "%lld B above, %lld B needed", where, r.out, (long long)x[ob], r.k, r.in, (long long)x[ib],
                         (long long)(x[ib] - x[ob]), (long long)r.gap);
            else if (kind == 1)
                snprintf(v->why, sizeof v->why, "%s: output tensor %d at %lld overlaps input %d (tensor %d) at %lld, "
                         "and no overlap of them is safe for this kernel library", where, r.out, (long long)x[ob], r.k,
                         r.in, (long long)x[ib]);
            else
                snprintf(v->why, sizeof v->why, "%s: tensor %d [%lld, %lld) and tensor %d [%lld, %lld) are alive "
                         "together and overlap, and no overlap of them is safe", where, bi->tensor, (long long)x[i],
                         (long long)(x[i] + bi->size), bj->tensor, (long long)x[j], (long long)(x[j] + bj->size));
        }
    st = RIP_OK;
done:
    free(fixed);
    free(x);
    return st;
}

/* ---- the plan ---- */

/* The problem: buffers with a lifetime as tensors (index map in pidx), candidates from the oracle. */
static rip_status build_problem(const rip_tfl_model *m, const rip_tflm_alloc *a, const rip_tflm_oracle *or,
                                bool overlaps, rip_problem *p, int32_t *pidx, char err[RIP_ERR_LEN])
{
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "tflm");
    p->align = RIP_TFLM_ALIGN, p->no_shift = true, p->n_steps = (int64_t)a->n_ops + 1;
    p->t = calloc(a->n + 1, sizeof *p->t);
    p->cand = calloc(2 * sg->n_operators + 1, sizeof *p->cand);   /* at most RESHAPE's or one per input */
    size_t cap = 2 * sg->n_operators;
    if (!p->t || !p->cand)
        goto nomem;
    for (size_t i = 0; i < a->n; i++) {
        pidx[i] = -1;
        if (a->buf[i].last < 0)
            continue;   /* never used: left to TFLM (scope -1 meets only such buffers) */
        rip_tensor *t = &p->t[p->n];
        snprintf(t->id, sizeof t->id, "t%d", a->buf[i].tensor);
        /* used but never created (an operator's input only, like Vela's scratch): TFLM's scope -1 to its
        ** last use; scope 0 here, which meets every buffer scope -1 meets that is in the problem */
        t->first = a->buf[i].first < 0 ? 0 : a->buf[i].first;
        t->size = a->buf[i].size, t->last = a->buf[i].last, t->producer_op = -1;
        pidx[i] = (int32_t)p->n++;
    }
    for (size_t o = 0, k = 0; overlaps && rip_tflm_next_pair(m, a, &o, &k); k++) {
        const rip_tfl_operator *op = &sg->operators[o];
        const int32_t bo = a->buf_of[op->outputs[0]], bi = a->buf_of[op->inputs[k]];
        int k_first;
        bool alias;
        int64_t gap;
        rip_status st = rip_tflm_op_rule(m, or, o, op->inputs[k], &k_first, &alias, &gap, err);
        if (st != RIP_OK)
            return st;
        if (k_first != (int)k || (!alias && gap < 0) || (alias && a->buf[bi].size != a->buf[bo].size))
            continue;   /* one candidate per input tensor, where its rule allows an overlap */
        if (p->n_cand == cap) {
            rip_candidate *c = realloc(p->cand, (2 * cap + 1) * sizeof *c);
            if (!c)
                goto nomem;
            p->cand = c, cap = 2 * cap + 1;
        }
        rip_candidate *c = &p->cand[p->n_cand++];
        memset(c, 0, sizeof *c);
        c->in = pidx[bi], c->out = pidx[bo], c->op = (int)o + 1;
        c->kind = alias ? RIP_INPLACE_ALIAS : RIP_INPLACE_GAP;
        c->gap = alias ? 0 : rip_align_up(gap, RIP_TFLM_ALIGN);
        c->dtype_bytes = 1;
    }
    return rip_problem_check_total(p, err);
nomem:
    snprintf(err, RIP_ERR_LEN, "%s: out of memory", m->label);
    return RIP_S_NOMEM;
}

/* Solve p deterministically and check the plan (gaps as given).  RIP_OK with *plan. */
static rip_status solve(const rip_problem *p, rip_plan **plan, char err[RIP_ERR_LEN])
{
    const char *name = p->n_cand ? "milp" : "exact";
    rip_plan_opts o = {.reproducible = true};
    if (p->n_cand)
        o.time_limit = TFLM_MILP_SAFETY_S;
    else
        o.node_limit = TFLM_EXACT_NODES;
    rip_status st = rip_plan_solve_checked(p, name, &o, false, plan, err);
    if (st == RIP_S_FAILED)   /* milp's safety net expired: no plan that another machine would also find */
        st = RIP_S_INTERNAL;
    return st;
}

static void problem_release(rip_problem *p)
{
    free(p->t);
    free(p->cand);
    memset(p, 0, sizeof *p);
}

rip_status rip_tflm_plan(const rip_tfl_model *m, const rip_tflm_alloc *a, const rip_tflm_oracle *oracle,
                         rip_tflm_plan_out *out, char err[RIP_ERR_LEN])
{
    memset(out, 0, sizeof *out);
    rip_problem p = {0}, p0 = {0};
    rip_plan *pl = NULL, *pl0 = NULL;
    int32_t *pidx = malloc((a->n + 1) * sizeof *pidx);
    int64_t *x = malloc((a->n + 1) * sizeof *x);
    rip_status st = RIP_S_NOMEM;
    size_t total = 0;
    for (size_t s = 0; s < m->n_subgraphs; s++)
        total += m->subgraphs[s].n_tensors;
    out->offset = malloc((total + 1) * sizeof *out->offset);
    if (!pidx || !x || !out->offset) {
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", m->label);
        goto done;
    }
    out->n_offset = total;
    if ((st = rip_tflm_greedy(a, NULL, x, &out->greedy_area, err)) != RIP_OK ||
        (st = build_problem(m, a, oracle, false, &p0, pidx, err)) != RIP_OK || (st = solve(&p0, &pl0, err)) != RIP_OK ||
        (st = build_problem(m, a, oracle, true, &p, pidx, err)) != RIP_OK || (st = solve(&p, &pl, err)) != RIP_OK)
        goto done;
    out->no_overlap_area = pl0->peak;
    out->lower_bound = pl->lower_bound, out->optimal = pl->optimal, out->n_candidates = p.n_cand;
    snprintf(out->strategy, sizeof out->strategy, "%s", pl->strategy);
    if (pl0->peak < pl->peak) {   /* a plan without overlaps is one with them too: never report worse */
        for (size_t k = 0; k < p.n_cand; k++)
            pl->in_place[k] = pl->shift[k] = false;
        memcpy(pl->offset, pl0->offset, p.n * sizeof *pl->offset);
        pl->peak = pl0->peak;
    }
    for (size_t i = 0; i < total; i++)
        out->offset[i] = -1;
    for (size_t i = 0; i < a->n; i++)
        if (pidx[i] >= 0) {
            if (pl->offset[pidx[i]] > INT32_MAX) {
                snprintf(err, RIP_ERR_LEN, "%s: an offset passes 2^31", m->label);
                st = RIP_S_DATA;
                goto done;
            }
            out->offset[a->buf[i].tensor] = (int32_t)pl->offset[pidx[i]];
        }
    out->overlap = calloc(p.n_cand + 1, sizeof *out->overlap);
    if (!out->overlap) {
        st = RIP_S_NOMEM;
        snprintf(err, RIP_ERR_LEN, "%s: out of memory", m->label);
        goto done;
    }
    for (size_t k = 0; k < p.n_cand; k++)
        if (pl->in_place[k]) {
            const rip_candidate *c = &p.cand[k];
            rip_tflm_overlap *r = &out->overlap[out->n_overlaps++];
            r->op = (size_t)c->op - 1, r->alias = c->kind == RIP_INPLACE_ALIAS, r->gap = c->gap;
            for (size_t i = 0; i < a->n; i++) {   /* the buffers the candidate joins */
                if (pidx[i] == c->in)
                    r->in = a->buf[i].tensor;
                if (pidx[i] == c->out)
                    r->out = a->buf[i].tensor;
            }
            const rip_tfl_operator *op = &m->subgraphs[0].operators[r->op];
            r->k = -1;
            for (size_t j = 0; j < op->n_inputs && r->k < 0; j++)
                if (op->inputs[j] == r->in)
                    r->k = (int)j;
        }
    rip_tflm_verdict v;
    if ((st = rip_tflm_check(m, a, out->offset, oracle, &v, err)) != RIP_OK)
        goto done;
    if (!v.safe) {
        snprintf(err, RIP_ERR_LEN, "%s: the plan fails its check: %.180s", m->label, v.why);
        st = RIP_S_INTERNAL;
        goto done;
    }
    out->area = v.area;
    st = RIP_OK;
done:
    rip_plan_free(pl);
    rip_plan_free(pl0);
    problem_release(&p);
    problem_release(&p0);
    free(pidx);
    free(x);
    if (st != RIP_OK)
        rip_tflm_plan_out_free(out);
    return st;
}
