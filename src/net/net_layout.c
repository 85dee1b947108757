/*
** net_layout.c — a plan of the net's problem as a layout (net.h): offsets
** per buffer, and per step how it runs (dual buffers, over its input, or
** below it with a gap, maybe after a runtime shift), from the plan's used
** candidates; then what the kernels need of it, and the scratch.
**
** rip_plan_check (plan.h) verifies the plan itself: no two live buffers
** overlap except a used candidate's pair, and each GAP at least the
** simulated gap.  The checks here are the kernels' own conditions, so a
** layout that passes can be run without a kernel reading or writing
** outside the arena or aliasing buffers it must not: every buffer within
** the arena; a dual step's output disjoint from each arena input; an
** in-place step of a kind whose kernel runs in place, with the geometry
** that kernel needs, its other operands disjoint from the output.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_depthwise.h"
#include "rk_depthwise_inplace.h"

static bool disjoint(int64_t a, int64_t na, int64_t b, int64_t nb)
{
    return a + na <= b || b + nb <= a;
}

/* The candidate k's place at its step; RIP_S_DATA when it does not belong to the step. */
static rip_status place_candidate(const rip_net *net, const rip_problem *p, const rip_plan *plan, size_t k,
                                  rip_net_layout *L, char err[RIP_ERR_LEN])
{
    const rip_candidate *c = &p->cand[k];
    if (c->op < 0 || (size_t)c->op >= net->n_steps || c->in < 0 || (size_t)c->in >= net->n_buffers || c->out < 0 ||
        (size_t)c->out >= net->n_buffers) {
        snprintf(err, RIP_ERR_LEN, "%.200s: the plan's in-place candidate %zu is not one of this net's",
                 net->model->label, k);
        return RIP_S_DATA;
    }
    const rip_net_step *st = &net->steps[c->op];
    rip_net_place *pl = &L->place[c->op];
    int32_t j = -1;
    for (int32_t i = 0; i < st->n_in; i++)
        if (st->in[i].buf == c->in)
            j = i;
    if (j < 0 || st->out.buf != c->out)
        return net_op_fail(net, st->op, err, "the plan's in-place pair t%ld -> t%ld is not this step's",
                           (long)net->buffers[c->in].tensor, (long)net->buffers[c->out].tensor);
    if (pl->mode != RIP_NET_DUAL)
        return net_op_fail(net, st->op, err, "the plan overwrites two of its inputs");
    pl->in = j;
    if (c->kind == RIP_INPLACE_ALIAS) {
        pl->mode = RIP_NET_OVER;
    } else {
        pl->mode = RIP_NET_BELOW;
        pl->shift = plan->shift[k];
        pl->gap = pl->shift ? c->gap : L->offset[c->in] - L->offset[c->out];
    }
    return RIP_OK;
}

/* Does the step's kernel run over or below operand j as the place says? */
static bool kernel_runs_in_place(const rip_net *net, const rip_net_step *st, const rip_net_place *pl,
                                 const rip_net_layout *L)
{
    int32_t in = st->in[pl->in].buf, out = st->out.buf;
    int64_t x_in = L->offset[in], x_out = L->offset[out];
    if (pl->mode == RIP_NET_OVER) {
        if (x_in != x_out)
            return false;
        switch (st->kind) {
        case RIP_NET_DEPTHWISE: {
            const rip_net_conv *c = &st->u.conv;
            return c->in.c == c->out.c && (int64_t)c->out.h * c->out.w <= (int64_t)c->in.h * c->in.w;
        }
        case RIP_NET_ADD: return net->buffers[in].size == net->buffers[out].size;
        case RIP_NET_RESIZE: return st->u.resize.up.s_h > 0;
        default: return false;
        }
    }
    if (st->kind != RIP_NET_CONV && st->kind != RIP_NET_AVGPOOL && st->kind != RIP_NET_MAXPOOL)
        return false;
    if (pl->shift)
        return x_in == x_out && pl->gap >= 0 && x_in + pl->gap + net->buffers[in].size <= L->arena_bytes;
    return pl->gap >= 0 && x_in - x_out == pl->gap;
}

/* The scratch bytes step st needs under its place. */
static int64_t step_scratch(const rip_net_step *st, const rip_net_place *pl)
{
    switch (st->kind) {
    case RIP_NET_CONV: {
        const rip_net_conv *c = &st->u.conv;
        if (pl->mode == RIP_NET_BELOW) {
            rk_inplace ip = {.layout = RK_DENSE, .order = RK_GATHER, .gap = pl->gap};
            return (int64_t)rk_conv2d_rip_buffer_size(&c->p, c->in, c->out, &ip);
        }
        return (int64_t)rk_conv2d_buffer_size(&c->p, c->in, c->out);
    }
    case RIP_NET_DEPTHWISE: {
        const rip_net_conv *c = &st->u.conv;
        return (int64_t)(pl->mode == RIP_NET_OVER ? rk_depthwise_inplace_buffer_size(&c->p, c->in, c->out)
                                                   : rk_depthwise_buffer_size(&c->p, c->in, c->out));
    }
    case RIP_NET_AVGPOOL:
    case RIP_NET_MAXPOOL: {
        const rip_net_pool *q = &st->u.pool;
        rk_pool_kind kind = st->kind == RIP_NET_AVGPOOL ? RK_POOL_AVG : RK_POOL_MAX;
        if (pl->mode == RIP_NET_BELOW)
            return (int64_t)rk_pool_inplace_buffer_size(&q->p, kind, q->in, q->out);
        return (int64_t)(kind == RK_POOL_AVG ? rk_avgpool_buffer_size(&q->p, q->in, q->out)
                                             : rk_maxpool_buffer_size(&q->p, q->in, q->out));
    }
    case RIP_NET_FC: return (int64_t)rk_fully_connected_buffer_size(&st->u.fc.p);
    case RIP_NET_ADD: return (int64_t)rk_add_buffer_size(&st->u.add.p, st->u.add.n);
    case RIP_NET_SOFTMAX:
        return (int64_t)rk_softmax_buffer_size(&st->u.softmax.p, st->u.softmax.rows, st->u.softmax.depth);
    case RIP_NET_MEAN:
        return (int64_t)rk_mean_buffer_size(&st->u.mean.p, st->u.mean.in, st->u.mean.axis, st->u.mean.n_axis);
    case RIP_NET_PAD: return (int64_t)rk_pad_buffer_size(&st->u.pad.p, st->u.pad.in);
    case RIP_NET_TRANSPOSE: return (int64_t)rk_transpose_buffer_size(&st->u.transpose.p, st->u.transpose.in);
    case RIP_NET_CONCAT: return (int64_t)rk_concat_buffer_size(&st->u.concat.p, st->u.concat.shapes);
    default: return 0; /* resize, upsampling in place, quantize, dequantize: none */
    }
}

/* Step s under its place: the kernels' conditions, and its scratch into L. */
static rip_status check_step(const rip_net *net, size_t s, rip_net_layout *L, char err[RIP_ERR_LEN])
{
    const rip_net_step *st = &net->steps[s];
    const rip_net_place *pl = &L->place[s];
    int32_t out = st->out.buf;
    if (pl->mode != RIP_NET_DUAL && !kernel_runs_in_place(net, st, pl, L))
        return net_op_fail(net, st->op, err, "the plan runs it %s its input, which its kernel cannot do there",
                           pl->mode == RIP_NET_OVER ? "over" : "below");
    /* An ADD of a tensor with itself run over it: its other operand is the same buffer, read at the
    ** same scalar before that scalar is written (rk_add), so the in-place check covers it too.  Every
    ** other input must be disjoint from the output. */
    const int32_t in_place = pl->mode == RIP_NET_DUAL ? -1 : st->in[pl->in].buf;
    const int32_t same_operand = st->kind == RIP_NET_ADD ? in_place : -1;
    for (int32_t k = 0; out >= 0 && k < st->n_in; k++) {
        int32_t b = st->in[k].buf;
        if (b < 0 || (pl->mode != RIP_NET_DUAL && k == pl->in) || b == same_operand)
            continue;
        if (!disjoint(L->offset[b], net->buffers[b].size, L->offset[out], net->buffers[out].size))
            return net_op_fail(net, st->op, err, "the plan puts its output over input t%ld, which it reads",
                               (long)net->buffers[b].tensor);
    }
    int64_t need = step_scratch(st, pl);
    if (need > L->scratch_bytes)
        L->scratch_bytes = need;
    return RIP_OK;
}

rip_status rip_net_layout_from_plan(const rip_net *net, const rip_problem *p, const rip_plan *plan,
                                    rip_net_layout *L, char err[RIP_ERR_LEN])
{
    memset(L, 0, sizeof *L);
    int64_t steps = net->n_steps ? (int64_t)net->n_steps : 1;
    if (p->n != net->n_buffers || p->n_steps != steps || plan->bound_only) {
        snprintf(err, RIP_ERR_LEN, "%.200s: the plan is not a placement of this net's problem", net->model->label);
        return RIP_S_DATA;
    }
    L->offset = calloc(p->n ? p->n : 1, sizeof *L->offset);
    L->place = calloc((size_t)steps, sizeof *L->place);
    if (L->offset == NULL || L->place == NULL) {
        rip_net_layout_free(L);
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory", net->model->label);
        return RIP_S_NOMEM;
    }
    L->arena_bytes = rip_plan_peak(p, plan);
    rip_status rc = RIP_OK;
    for (size_t b = 0; rc == RIP_OK && b < p->n; b++) {
        L->offset[b] = plan->offset[b];
        if (L->offset[b] < 0 || L->offset[b] > L->arena_bytes - net->buffers[b].size) {
            snprintf(err, RIP_ERR_LEN, "%.200s: buffer t%ld at %lld is outside the arena of %lld bytes",
                     net->model->label, (long)net->buffers[b].tensor, (long long)L->offset[b],
                     (long long)L->arena_bytes);
            rc = RIP_S_DATA;
        }
    }
    for (size_t k = 0; rc == RIP_OK && k < p->n_cand; k++)
        if (plan->in_place[k])
            rc = place_candidate(net, p, plan, k, L, err);
    for (size_t s = 0; rc == RIP_OK && s < net->n_steps; s++)
        rc = check_step(net, s, L, err);
    if (rc != RIP_OK)
        rip_net_layout_free(L);
    return rc;
}

void rip_net_layout_free(rip_net_layout *L)
{
    if (L == NULL)
        return;
    free(L->offset);
    free(L->place);
    memset(L, 0, sizeof *L);
}
