/*
** net_run.c — rip_net_run (net.h): the net's steps in the model's order in
** one arena laid out by a rip_net_layout, each the kernel its place says
** (dual buffers, over its input, below it after an optional runtime
** shift), with a hook after every operator.  Nothing is allocated: the
** arena, the scratch, the inputs and the outputs are the caller's, and
** CONCATENATION's table of input pointers is on the stack
** (RIP_NET_MAX_OPERANDS).
*/
#include <stdio.h>
#include <string.h>

#include "net_internal.h"
#include "rk_conv2d.h"
#include "rk_conv2d_rip.h"
#include "rk_depthwise.h"
#include "rk_depthwise_inplace.h"

/* What one step runs on: the arena, its layout and the caller's buffers. */
typedef struct run_ctx {
    const rip_net *net;
    const rip_net_layout *L;
    int8_t *arena, *scratch;
    const void *const *inputs;
    void *const *outputs;
} run_ctx;

/* Where operand o of a step is: in the arena, in the model's file, or the caller's float input. */
static const int8_t *src(const run_ctx *x, const rip_net_operand *o)
{
    if (o->buf >= 0)
        return x->arena + x->L->offset[o->buf];
    return o->data ? o->data : (const int8_t *)x->inputs[o->io];
}

static int8_t *dst(const run_ctx *x, const rip_net_step *st)
{
    return x->arena + x->L->offset[st->out.buf];
}

static int64_t buf_size(const run_ctx *x, int32_t b)
{
    return x->net->buffers[b].size;
}

static rip_status refused(const run_ctx *x, const rip_net_step *st, const char *kernel, char err[RIP_ERR_LEN])
{
    net_op_fail(x->net, st->op, err, "kernel %s refused its parameters", kernel);
    return RIP_S_INTERNAL;
}

/* The in-place workspace of a step below its input: from the output's start
** to the end of the input (or of the output, if that is further). */
static int8_t *below_workspace(const run_ctx *x, const rip_net_step *st, const rip_net_place *pl, int64_t *ws_size)
{
    int64_t n_in = buf_size(x, st->in[pl->in].buf), n_out = buf_size(x, st->out.buf);
    int8_t *ws = dst(x, st);
    if (pl->shift)
        memmove(ws + pl->gap, ws, (size_t)n_in); /* the runtime shift: the block is free (the plan's check) */
    *ws_size = pl->gap + n_in > n_out ? pl->gap + n_in : n_out;
    return ws;
}

static rip_status run_conv(const run_ctx *x, const rip_net_step *st, const rip_net_place *pl, char err[RIP_ERR_LEN])
{
    const rip_net_conv *c = &st->u.conv;
    rk_status rc;
    if (st->kind == RIP_NET_DEPTHWISE) {
        if (pl->mode == RIP_NET_OVER)
            rc = rk_depthwise_inplace(&c->p, &c->q, c->in, c->out, c->filter, c->bias, dst(x, st), x->scratch);
        else
            rc = rk_depthwise(&c->p, &c->q, c->in, src(x, &st->in[0]), c->filter, c->bias, c->out, dst(x, st));
        return rc == RK_OK ? RIP_OK : refused(x, st, "depthwise", err);
    }
    if (pl->mode == RIP_NET_BELOW) {
        int64_t ws_size;
        int8_t *ws = below_workspace(x, st, pl, &ws_size);
        rk_inplace ip = {.layout = RK_DENSE, .order = RK_GATHER, .gap = pl->gap};
        rc = rk_conv2d_rip(&c->p, &c->q, c->in, c->out, c->filter, c->bias, &ip, ws, ws_size, x->scratch);
        return rc == RK_OK ? RIP_OK : refused(x, st, "rk_conv2d_rip", err);
    }
    rc = rk_conv2d(&c->p, &c->q, c->in, src(x, &st->in[0]), c->filter, c->bias, c->out, dst(x, st), x->scratch);
    return rc == RK_OK ? RIP_OK : refused(x, st, "rk_conv2d", err);
}

static rip_status run_pool(const run_ctx *x, const rip_net_step *st, const rip_net_place *pl, char err[RIP_ERR_LEN])
{
    const rip_net_pool *q = &st->u.pool;
    rk_pool_kind kind = st->kind == RIP_NET_AVGPOOL ? RK_POOL_AVG : RK_POOL_MAX;
    rk_status rc;
    if (pl->mode == RIP_NET_BELOW) {
        int64_t ws_size;
        int8_t *ws = below_workspace(x, st, pl, &ws_size);
        rc = rk_pool_inplace(&q->p, kind, q->in, q->out, pl->gap, ws, ws_size, x->scratch);
    } else if (kind == RK_POOL_AVG) {
        rc = rk_avgpool(&q->p, q->in, src(x, &st->in[0]), q->out, dst(x, st));
    } else {
        rc = rk_maxpool(&q->p, q->in, src(x, &st->in[0]), q->out, dst(x, st));
    }
    return rc == RK_OK ? RIP_OK : refused(x, st, "pool", err);
}

/* ADD with broadcasting: runs along the last axis where both inputs have it
** whole, else one element at a time; offsets by the aligned shapes. */
static rk_status add_broadcast(const rip_net_add *a, const int8_t *x1, const int8_t *x2, int8_t *y)
{
    int32_t r = a->out.rank, idx[RK_MAX_RANK] = {0};
    int64_t st1[RK_MAX_RANK], st2[RK_MAX_RANK], s1 = 1, s2 = 1;
    for (int32_t i = r - 1; i >= 0; i--) {
        st1[i] = a->in1.d[i] == 1 ? 0 : s1;
        st2[i] = a->in2.d[i] == 1 ? 0 : s2;
        s1 *= a->in1.d[i];
        s2 *= a->in2.d[i];
    }
    int32_t last = a->out.d[r - 1];
    bool runs = a->in1.d[r - 1] == last && a->in2.d[r - 1] == last;
    for (int64_t o = 0; o < a->n;) {
        int64_t o1 = 0, o2 = 0;
        for (int32_t i = 0; i < r; i++)
            o1 += idx[i] * st1[i], o2 += idx[i] * st2[i];
        int32_t n = runs ? last : 1;
        rk_status rc = rk_add(&a->p, n, x1 + o1, x2 + o2, y + o);
        if (rc != RK_OK)
            return rc;
        o += n;
        idx[r - 1] += n;
        for (int32_t i = r - 1; i > 0 && idx[i] >= a->out.d[i]; i--)
            idx[i] = 0, idx[i - 1]++;
    }
    return RK_OK;
}

static rip_status run_add(const run_ctx *x, const rip_net_step *st, char err[RIP_ERR_LEN])
{
    const rip_net_add *a = &st->u.add;
    const int8_t *x1 = src(x, &st->in[0]), *x2 = src(x, &st->in[1]);
    rk_status rc = a->broadcast ? add_broadcast(a, x1, x2, dst(x, st)) : rk_add(&a->p, a->n, x1, x2, dst(x, st));
    return rc == RK_OK ? RIP_OK : refused(x, st, "rk_add", err);
}

static rip_status run_concat(const run_ctx *x, const rip_net_step *st, char err[RIP_ERR_LEN])
{
    const int8_t *ptr[RIP_NET_MAX_OPERANDS];
    for (int32_t i = 0; i < st->n_in; i++)
        ptr[i] = src(x, &st->in[i]);
    rk_status rc = rk_concat(&st->u.concat.p, st->u.concat.shapes, ptr, dst(x, st));
    return rc == RK_OK ? RIP_OK : refused(x, st, "rk_concat", err);
}

static rip_status run_resize(const run_ctx *x, const rip_net_step *st, const rip_net_place *pl,
                             char err[RIP_ERR_LEN])
{
    const rip_net_resize *rs = &st->u.resize;
    rk_status rc;
    if (pl->mode == RIP_NET_OVER)
        rc = rk_upsample_nearest_inplace(&rs->up, rs->in, rs->out, dst(x, st), buf_size(x, st->out.buf));
    else
        rc = rk_resize_nearest(&rs->p, rs->in, src(x, &st->in[0]), rs->out, dst(x, st));
    return rc == RK_OK ? RIP_OK : refused(x, st, "resize", err);
}

/* The kernels without an in-place variant of their own. */
static rip_status run_plain(const run_ctx *x, const rip_net_step *st, char err[RIP_ERR_LEN])
{
    const int8_t *in = st->kind == RIP_NET_QUANTIZE ? NULL : src(x, &st->in[0]);
    rk_status rc = RK_ARG;
    switch (st->kind) {
    case RIP_NET_FC: rc = rk_fully_connected(&st->u.fc.p, &st->u.fc.q, in, st->u.fc.weights, st->u.fc.bias, dst(x, st)); break;
    case RIP_NET_MEAN:
        rc = rk_mean(&st->u.mean.p, st->u.mean.in, st->u.mean.axis, st->u.mean.n_axis, in, dst(x, st));
        break;
    case RIP_NET_SOFTMAX:
        rc = rk_softmax(&st->u.softmax.p, st->u.softmax.rows, st->u.softmax.depth, in, dst(x, st));
        if (rc != RK_OK)
            return net_op_fail(x->net, st->op, err,
                               "a row's exponentials sum to 2^28 or more, where TFLite Micro aborts");
        break;
    case RIP_NET_PAD: rc = rk_pad(&st->u.pad.p, st->u.pad.in, in, dst(x, st)); break;
    case RIP_NET_TRANSPOSE: rc = rk_transpose(&st->u.transpose.p, st->u.transpose.in, in, dst(x, st)); break;
    case RIP_NET_QUANTIZE:
        rc = rk_quantize_f32(&st->u.quant.q, st->u.quant.n, (const float *)x->inputs[st->in[0].io], dst(x, st));
        break;
    case RIP_NET_DEQUANTIZE:
        rc = rk_dequantize_f32(&st->u.quant.q, st->u.quant.n, in, (float *)x->outputs[st->out.io]);
        break;
    default: break;
    }
    return rc == RK_OK ? RIP_OK : refused(x, st, rip_net_kind_name(st->kind), err);
}

static rip_status run_step(const run_ctx *x, size_t s, char err[RIP_ERR_LEN])
{
    const rip_net_step *st = &x->net->steps[s];
    const rip_net_place *pl = &x->L->place[s];
    switch (st->kind) {
    case RIP_NET_CONV:
    case RIP_NET_DEPTHWISE: return run_conv(x, st, pl, err);
    case RIP_NET_AVGPOOL:
    case RIP_NET_MAXPOOL: return run_pool(x, st, pl, err);
    case RIP_NET_ADD: return run_add(x, st, err);
    case RIP_NET_CONCAT: return run_concat(x, st, err);
    case RIP_NET_RESIZE: return run_resize(x, st, pl, err);
    default: return run_plain(x, st, err);
    }
}

/* Operator op's output 0 after it ran: where it is and its bytes (NULL for a folded PAD). */
static const void *op_output(const run_ctx *x, int32_t op, int64_t *bytes)
{
    const rip_net *net = x->net;
    *bytes = 0;
    if (net->op_how[op] == RIP_NET_FOLDED)
        return NULL;
    if (net->op_how[op] == RIP_NET_STEP) {
        const rip_net_step *st = &net->steps[net->op_step[op]];
        if (st->out.io >= 0) {
            *bytes = net->outputs[st->out.io].bytes;
            return x->outputs[st->out.io];
        }
    }
    int32_t b = net->tensor_buf[net->sg->operators[op].outputs[0]];
    *bytes = net->buffers[b].size;
    return x->arena + x->L->offset[b];
}

rip_status rip_net_run(const rip_net *net, const rip_net_layout *L, int8_t *arena, int8_t *scratch,
                       const void *const *inputs, void *const *outputs, rip_net_hook hook, void *ctx,
                       char err[RIP_ERR_LEN])
{
    run_ctx x = {.net = net, .L = L, .arena = arena, .scratch = scratch, .inputs = inputs, .outputs = outputs};
    for (size_t k = 0; k < net->n_inputs; k++)
        if (net->inputs[k].buf >= 0)
            memcpy(arena + L->offset[net->inputs[k].buf], inputs[k], (size_t)net->inputs[k].bytes);
    for (size_t op = 0; op < net->n_ops; op++) {
        if (net->op_how[op] == RIP_NET_STEP) {
            rip_status rc = run_step(&x, (size_t)net->op_step[op], err);
            if (rc != RIP_OK)
                return rc;
        }
        if (hook) {
            int64_t bytes;
            const void *data = op_output(&x, (int32_t)op, &bytes);
            hook(ctx, (int32_t)op, net->op_how[op], data, bytes);
        }
    }
    for (size_t k = 0; k < net->n_outputs; k++)
        if (net->outputs[k].buf >= 0)
            memcpy(outputs[k], arena + L->offset[net->outputs[k].buf], (size_t)net->outputs[k].bytes);
    return RIP_OK;
}
