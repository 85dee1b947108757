/*
** net_problem.c — the planning problem of a net (net.h, plan.h): one
** tensor per arena buffer (id "tN", N the model's tensor it holds first),
** its size and lifetime from the net, one step per net step, and the
** in-place candidates of rip_graph_op_candidates (graph.h), the rules CSV
** graphs are planned by.  Each step that has an operator class there is
** described to it as a graph operator (rip_op): CONV_2D as conv2d (or
** pointwise when 1x1, stride 1, unpadded; the same rule), its geometry
** including a folded PAD; DEPTHWISE_CONV_2D as depthwise with its real
** channel counts (so a multiplier above 1 gets no candidate); ADD as an
** elementwise add of its arena operands (a constant operand is no tensor);
** AVERAGE/MAX_POOL_2D as pools; an integer nearest upsampling as
** upsample.  Every other step (FULLY_CONNECTED, MEAN, SOFTMAX, PAD,
** TRANSPOSE, CONCATENATION, a non-integer resize, QUANTIZE, DEQUANTIZE)
** runs in dual buffers, as fc and concat do in graphs.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"

/* Window geometry of a conv or pool step as a graph operator. */
static void window_op(rip_op *g, rk_dims in, rk_dims out, int32_t kh, int32_t kw, int32_t sh, int32_t sw,
                      int32_t pt, int32_t pl, int32_t pb, int32_t pr, int32_t dh, int32_t dw)
{
    g->h_in = in.h, g->w_in = in.w, g->c_in = in.c;
    g->h_out = out.h, g->w_out = out.w, g->c_out = out.c;
    g->k_h = kh, g->k_w = kw, g->s_h = sh, g->s_w = sw;
    g->p_top = pt, g->p_left = pl, g->p_bottom = pb, g->p_right = pr;
    g->d_h = dh, g->d_w = dw;
}

/* Step st as a graph operator for the candidate rules; false when its
** kind has no in-place class. */
static bool as_graph_op(const rip_net_step *st, rip_op *g)
{
    memset(g, 0, sizeof *g);
    g->dtype_bytes = 1;
    g->n_inputs = 1;
    switch (st->kind) {
    case RIP_NET_CONV:
    case RIP_NET_DEPTHWISE: {
        const rip_net_conv *c = &st->u.conv;
        g->kind = st->kind == RIP_NET_DEPTHWISE ? RIP_OP_DEPTHWISE : c->pointwise ? RIP_OP_POINTWISE : RIP_OP_CONV2D;
        window_op(g, c->in, c->out, c->p.k_h, c->p.k_w, c->p.s_h, c->p.s_w, c->p.p_top, c->p.p_left, c->p.p_bottom,
                  c->p.p_right, c->p.d_h, c->p.d_w);
        return true;
    }
    case RIP_NET_AVGPOOL:
    case RIP_NET_MAXPOOL: {
        const rip_net_pool *pl = &st->u.pool;
        g->kind = st->kind == RIP_NET_AVGPOOL ? RIP_OP_AVGPOOL : RIP_OP_MAXPOOL;
        window_op(g, pl->in, pl->out, pl->p.k_h, pl->p.k_w, pl->p.s_h, pl->p.s_w, pl->p.p_top, pl->p.p_left,
                  pl->p.p_bottom, pl->p.p_right, 1, 1);
        return true;
    }
    case RIP_NET_ADD:
        g->kind = RIP_OP_ADD;
        g->n_inputs = 2;
        g->h_in = g->w_in = g->h_out = g->w_out = 1;
        g->c_in = g->c_out = st->u.add.n;
        return true;
    case RIP_NET_RESIZE: {
        const rip_net_resize *rs = &st->u.resize;
        if (rs->up.s_h == 0)
            return false;
        g->kind = RIP_OP_UPSAMPLE;
        window_op(g, rs->in, rs->out, 1, 1, rs->up.s_h, rs->up.s_w, 0, 0, 0, 0, 1, 1);
        return true;
    }
    default: return false;
    }
}

/* The buffers as the problem's tensors. */
static void make_tensors(const rip_net *net, rip_problem *p)
{
    for (size_t b = 0; b < net->n_buffers; b++) {
        const rip_net_buffer *nb = &net->buffers[b];
        rip_tensor *t = &p->t[b];
        snprintf(t->id, sizeof t->id, "t%ld", (long)nb->tensor);
        t->size = nb->size;
        t->first = nb->first;
        t->last = nb->last;
        t->producer_op = nb->producer;
    }
}

rip_status rip_net_problem(const rip_net *net, const rip_graph_opts *o, rip_problem *p, char err[RIP_ERR_LEN])
{
    memset(p, 0, sizeof *p);
    if (o->align < 1 || o->align > RIP_PLAN_ALIGN_MAX) {
        snprintf(err, RIP_ERR_LEN, "align: %lld, must be in [1, %lld]", (long long)o->align,
                 (long long)RIP_PLAN_ALIGN_MAX);
        return RIP_S_INTERNAL;
    }
    const char *base = strrchr(net->model->label, '/');
    snprintf(p->name, sizeof p->name, "%s", base ? base + 1 : net->model->label);
    p->align = o->align;
    p->n_steps = net->n_steps ? (int64_t)net->n_steps : 1;
    p->n = net->n_buffers;
    p->t = calloc(p->n ? p->n : 1, sizeof *p->t);
    p->cand = calloc(2 * (net->n_steps ? net->n_steps : 1), sizeof *p->cand); /* at most 2 arena operands get one */
    rip_status rc = RIP_OK;
    if (p->t == NULL || p->cand == NULL) {
        snprintf(err, RIP_ERR_LEN, "%.60s: out of memory", p->name);
        rc = RIP_S_NOMEM;
    } else {
        make_tensors(net, p);
    }
    for (size_t s = 0; rc == RIP_OK && s < net->n_steps; s++) {
        const rip_net_step *st = &net->steps[s];
        rip_op g;
        if (!as_graph_op(st, &g))
            continue;
        int tin[2] = {st->in[0].buf, st->n_in > 1 ? st->in[1].buf : -1};
        rip_graph_op_candidates(p, &g, o, (int)s, tin, st->out.buf);
    }
    if (rc == RIP_OK)
        rc = rip_problem_check_total(p, err);
    if (rc != RIP_OK)
        rip_problem_free(p);
    return rc;
}
