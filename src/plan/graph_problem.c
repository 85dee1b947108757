/*
** graph_problem.c — the planning problem of a loaded graph (graph.h,
** plan.h): tensor sizes and lifetimes, and the in-place candidates of the
** RiP paper's operator classes.
**
** Lifetimes (inclusive, in op steps): the model input "input" from step 0
** to its last consumer; the output of the op at step i from i to the step
** of its last consumer; a graph output (no consumer) to the last step.
** Sizes are h * w * c * dtype_bytes.
**
** In-place candidates, only for an input that dies at the op (the op is its
** last consumer), following App. I "Operator classes" and the check of
** firmware/models/README.md that reproduces Tab. 3 and Tab. 7:
**   with rip:
**     conv2d, pointwise      GAP, gap = Theorem 13's dense gap (sigma = 0,
**                            gathered; or C_out with sigma_taps) x
**                            dtype_bytes, rounded up to the alignment; no
**                            candidate where Theorem 13 is undefined
**                            (padding >= k_eff);
**     elementwise ops        ALIAS with every dying input of the output's
**                            size (an add may alias either operand; the
**                            planner picks at most one per op);
**     local avg/max pool     GAP, gap = Theorem 13's gathered dense gap of
**                            the pool's geometry with C_in = C_out = the
**                            channels (a pool writes an output pixel after
**                            reading its whole window, as a gathered
**                            convolution does; it reads only its own
**                            channel, which needs no more room), x
**                            dtype_bytes, aligned.  It is 0 when windows do
**                            not reach back (e.g. 2x2 stride 2), but not
**                            for overlapping stride-1 windows: a 3x3/s1/p1
**                            pool still needs the row above, (W + 1) C
**                            scalars.  A global pool (k = input size, 1x1
**                            output) has none;
**     upsample               ALIAS (Theorem 14: both left-aligned, reverse
**                            traversal, W* = N_out), its geometry carried;
**     concat, fc             none (always dual buffered);
**   with inplace_depthwise:
**     depthwise              ALIAS (TinyEngine's in-place depthwise), for
**                            depth multiplier 1 (c_out == c_in) and only
**                            when the output is no larger than the input:
**                            the kernel (rk_depthwise_inplace.h) writes
**                            each channel's output plane over the input's
**                            own bytes once that channel is copied out, so
**                            an output that outgrows them (padding beyond
**                            what keeps the size, e.g. 3x3 with padding 2)
**                            has nowhere to go and runs dual buffered.
** Every ALIAS candidate records its operator (rip_alias_op, with the
** geometry of an upsample or depthwise), which the checker replays.
** rip_graph_op_candidates applies these rules to one operator; the
** TFLite net (src/net/net_problem.c) calls it for its operators too, so a
** CSV graph and a .tflite model get the same candidates.
** Limits: Theorem 13 is evaluated on the per-side padding of the row;
** mixed dtypes between an op's input and output are not modelled (the op's
** dtype_bytes is used; a GAP, upsample or depthwise candidate is made only
** when its geometry is exactly its tensors).  Pools beyond the checker's
** simulation limits (RIP_PLAN_POOL_*_MAX) and ALIAS pairs beyond its replay
** limit (RIP_PLAN_REPLAY_SCALARS_MAX) get no candidate.  The sizes of all tensors and gaps must add up to
** at most RIP_PLAN_TOTAL_MAX.
*/
#include <stdlib.h>
#include <string.h>

#include "formulas.h"
#include "graph.h"

static bool is_global_pool(const rip_op *op)
{
    return rip_op_is_pool(op->kind) && op->k_h == op->h_in && op->k_w == op->w_in && op->h_out == 1 &&
           op->w_out == 1;
}

/* The derived window geometry of a conv, depthwise or pool op into *L;
** false if it is not one. */
static bool window_layer(const rip_op *op, rip_layer *L)
{
    memset(L, 0, sizeof *L);
    L->cin = op->c_in, L->cout = op->c_out, L->h_in = op->h_in, L->w_in = op->w_in;
    L->k_h = op->k_h, L->k_w = op->k_w, L->s_h = op->s_h, L->s_w = op->s_w;
    L->d_h = op->d_h, L->d_w = op->d_w;
    L->p_top = op->p_top, L->p_bottom = op->p_bottom, L->p_left = op->p_left, L->p_right = op->p_right;
    char lerr[RIP_ERR_LEN];
    return rip_layer_derive(L, lerr) == 0;
}

/*
** Theorem 13 gap of a conv or pool op in bytes, aligned; false if
** undefined.  A pool is taken with C_in = C_out (its channels) and gathered
** windows.  *L receives the derived layer.
*/
static bool window_gap(const rip_op *op, bool taps, int64_t align, rip_layer *L, int64_t *gap)
{
    if (!window_layer(op, L))
        return false;
    int64_t g;
    if (!rip_thm13(L, taps ? RIP_SIGMA_TAPS : RIP_SIGMA_GATHER, &g))
        return false;
    *gap = rip_align_up(g * op->dtype_bytes, align);
    return true;
}

/* The layer of c is exactly the tensors ti -> out (not so when the
** producer's dtype differs from the op's: mixed dtypes are not modelled). */
static bool joins(const rip_problem *p, const rip_candidate *c, int ti, int out)
{
    return c->layer.n_in_dense * c->dtype_bytes == p->t[ti].size && c->layer.n_out * c->dtype_bytes == p->t[out].size;
}

/* Within the limits at which the checker simulates a pool (plan.h). */
static bool pool_simulable(const rip_op *op)
{
    int64_t n_in = op->h_in * op->w_in, n_out = op->h_out * op->w_out;
    return n_in <= RIP_PLAN_POOL_PIXELS_MAX && n_out <= RIP_PLAN_POOL_PIXELS_MAX &&
           n_out * op->k_h * op->k_w <= RIP_PLAN_POOL_WORK_MAX;
}

/* Within the limit at which the checker replays an ALIAS operator (plan.h). */
static bool replayable(const rip_problem *p, int ti, int out, int64_t dtype)
{
    return p->t[ti].size / dtype + p->t[out].size / dtype <= RIP_PLAN_REPLAY_SCALARS_MAX;
}

/* The candidate of input j of op i (tensor ti -> out), if its class has one. */
static bool make_candidate(const rip_problem *p, const rip_op *op, const rip_graph_opts *o, int j, int ti, int out,
                           rip_candidate *c)
{
    memset(c, 0, sizeof *c);
    c->in = ti, c->out = out;
    c->dtype_bytes = op->dtype_bytes;
    if (o->rip && (op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE) && j == 0) {
        c->kind = RIP_INPLACE_GAP;
        c->taps = o->sigma_taps;
        c->has_layer = window_gap(op, o->sigma_taps, o->align, &c->layer, &c->gap) && joins(p, c, ti, out);
        return c->has_layer;
    }
    if (o->rip && rip_op_is_elementwise(op->kind)) {
        c->kind = RIP_INPLACE_ALIAS;
        c->alias_op = RIP_ALIAS_ELEMENTWISE;
        return p->t[ti].size == p->t[out].size && replayable(p, ti, out, op->dtype_bytes);
    }
    if (o->rip && rip_op_is_pool(op->kind) && !is_global_pool(op) && pool_simulable(op)) {
        c->kind = RIP_INPLACE_GAP;
        c->pool = window_gap(op, false, o->align, &c->layer, &c->gap) && joins(p, c, ti, out);
        return c->pool;
    }
    if (o->rip && op->kind == RIP_OP_UPSAMPLE) {
        /* Theorem 14's argument holds for s_h != s_w as well */
        c->kind = RIP_INPLACE_ALIAS;
        c->alias_op = RIP_ALIAS_UPSAMPLE;
        rip_layer *L = &c->layer;
        L->cin = L->cout = op->c_in, L->h_in = op->h_in, L->w_in = op->w_in, L->s_h = op->s_h, L->s_w = op->s_w;
        L->h_out = op->h_out, L->w_out = op->w_out;
        return op->h_in * op->w_in * op->c_in * op->dtype_bytes == p->t[ti].size &&
               replayable(p, ti, out, op->dtype_bytes);
    }
    if (o->inplace_depthwise && op->kind == RIP_OP_DEPTHWISE && op->c_out == op->c_in &&
        op->h_out * op->w_out <= op->h_in * op->w_in) {
        c->kind = RIP_INPLACE_ALIAS;
        c->alias_op = RIP_ALIAS_DEPTHWISE;
        return p->t[out].size <= p->t[ti].size && /* the output must fit in its input's bytes */
               window_layer(op, &c->layer) && joins(p, c, ti, out) && replayable(p, ti, out, op->dtype_bytes);
    }
    return false;
}

void rip_graph_op_candidates(rip_problem *p, const rip_op *op, const rip_graph_opts *o, int step, const int *tin,
                             int out)
{
    for (int j = 0; j < op->n_inputs; j++) {
        int ti = tin[j];
        bool dup = false;
        for (int q = 0; q < j; q++)
            dup |= tin[q] == ti;
        if (ti < 0 || dup || p->t[ti].last != (int64_t)step)
            continue; /* not a tensor, a repeated operand, or still needed later */
        rip_candidate c;
        if (make_candidate(p, op, o, j, ti, out, &c)) {
            c.op = step;
            p->cand[p->n_cand++] = c;
        }
    }
}

rip_status rip_problem_from_graph(const rip_graph *g, const rip_graph_opts *o, rip_problem *p, char err[RIP_ERR_LEN])
{
    memset(p, 0, sizeof *p);
    rip_status rc = RIP_OK;
    int *tin = NULL; /* per (op, input): the input's tensor index */
    if (o->align < 1 || o->align > RIP_PLAN_ALIGN_MAX) {
        snprintf(err, RIP_ERR_LEN, "align: %lld, must be in [1, %lld]", (long long)o->align,
                 (long long)RIP_PLAN_ALIGN_MAX);
        return RIP_S_INTERNAL;
    }
    if (g->n_ops == 0 || g->n_ops >= (size_t)INT32_MAX / RIP_OP_MAX_INPUTS) {
        snprintf(err, RIP_ERR_LEN, "%.60s: %zu operators (must be 1 to %d)", g->name, g->n_ops,
                 INT32_MAX / RIP_OP_MAX_INPUTS - 1);
        return RIP_S_DATA;
    }
    snprintf(p->name, sizeof p->name, "%s", g->name);
    p->align = o->align;
    p->n_steps = (int64_t)g->n_ops;
    p->n = g->n_ops + 1;
    size_t max_cand = 0;
    for (size_t i = 0; i < g->n_ops; i++)
        max_cand += (size_t)g->ops[i].n_inputs;
    p->t = calloc(p->n, sizeof *p->t);
    p->cand = calloc(max_cand ? max_cand : 1, sizeof *p->cand);
    tin = calloc(max_cand ? max_cand : 1, sizeof *tin);
    if (p->t == NULL || p->cand == NULL || tin == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.60s: out of memory", g->name);
        rc = RIP_S_NOMEM;
        goto done;
    }

    /* tensors: 0 = model input, i + 1 = output of op i */
    rip_tensor *in = &p->t[0];
    snprintf(in->id, sizeof in->id, "input");
    in->first = 0;
    in->last = -1;
    in->producer_op = -1;
    for (size_t i = 0; i < g->n_ops && in->size == 0; i++)
        if (g->ops[i].inputs[0] == -1)
            in->size = g->ops[i].h_in * g->ops[i].w_in * g->ops[i].c_in * g->ops[i].dtype_bytes;
    int64_t total = in->size + o->align;
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        rip_tensor *t = &p->t[i + 1];
        snprintf(t->id, sizeof t->id, "%lld", (long long)op->id);
        /* the loader keeps each tensor <= RIP_GRAPH_TENSOR_MAX, so one more cannot wrap the total */
        t->size = op->h_out * op->w_out * op->c_out * op->dtype_bytes;
        t->first = (int64_t)i;
        t->last = -1;
        t->producer_op = (int)i;
        total += t->size + o->align;
        if (total > RIP_PLAN_TOTAL_MAX) {
            snprintf(err, RIP_ERR_LEN,
                     "%.60s: op %lld: the tensors up to this op add up to more than 2^62 bytes, the planner's "
                     "limit (offsets must stay within 64 bits)",
                     g->name, (long long)op->id);
            rc = RIP_S_DATA;
            goto done;
        }
    }

    /* map each input to its tensor index and extend lifetimes */
    size_t k = 0;
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        for (int j = 0; j < op->n_inputs; j++, k++) {
            long idx = op->inputs[j] == -1 ? -1 : rip_graph_find_op(g, op->inputs[j]);
            if (op->inputs[j] != -1 && (idx < 0 || (size_t)idx >= i)) {
                snprintf(err, RIP_ERR_LEN, "%.60s: op %lld: input %lld is not an earlier op (graph not checked?)",
                         g->name, (long long)op->id, (long long)op->inputs[j]);
                rc = RIP_S_INTERNAL;
                goto done;
            }
            tin[k] = (int)(idx + 1);
            rip_tensor *t = &p->t[tin[k]];
            if ((int64_t)i > t->last)
                t->last = (int64_t)i;
        }
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].last < 0)
            p->t[i].last = p->n_steps - 1; /* graph output: live to the end */

    /* candidates */
    k = 0;
    for (size_t i = 0; i < g->n_ops; i++) {
        rip_graph_op_candidates(p, &g->ops[i], o, (int)i, &tin[k], (int)i + 1);
        k += (size_t)g->ops[i].n_inputs;
    }
    rc = rip_problem_check_total(p, err);

done:
    free(tin);
    if (rc != RIP_OK)
        rip_problem_free(p);
    return rc;
}
