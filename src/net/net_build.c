/*
** net_build.c — a checked TFLite model becomes a net (net.h): which
** operators are steps, aliases or folded PADs, the arena buffers and
** their lifetimes, the model's inputs and outputs, and each step's
** operands; the kernels' parameters come from net_prepare.c.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_internal.h"

static const char *const kind_names[] = {
    [RIP_NET_CONV] = "conv",           [RIP_NET_DEPTHWISE] = "depthwise", [RIP_NET_FC] = "fully_connected",
    [RIP_NET_AVGPOOL] = "avgpool",     [RIP_NET_MAXPOOL] = "maxpool",     [RIP_NET_ADD] = "add",
    [RIP_NET_MEAN] = "mean",           [RIP_NET_SOFTMAX] = "softmax",     [RIP_NET_PAD] = "pad",
    [RIP_NET_TRANSPOSE] = "transpose", [RIP_NET_CONCAT] = "concat",       [RIP_NET_RESIZE] = "resize_nearest",
    [RIP_NET_QUANTIZE] = "quantize",   [RIP_NET_DEQUANTIZE] = "dequantize",
};

const char *rip_net_kind_name(rip_net_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

void *net_alloc(rip_net *net, size_t count, size_t size)
{
    struct rip_net_store *s = net->store;
    if (size && count > SIZE_MAX / size)
        return NULL;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        void **v = realloc(s->v, cap * sizeof *v);
        if (v == NULL)
            return NULL;
        s->v = v;
        s->cap = cap;
    }
    size_t n = count * size;
    void *p = calloc(n > 0 ? n : 1, 1);
    if (p != NULL)
        s->v[s->n++] = p;
    return p;
}

void rip_net_op_label(const rip_net *net, int32_t op, char *out, size_t len)
{
    const rip_tfl_opcode *code = rip_tfl_op_code(net->model, &net->sg->operators[op]);
    const char *name = code ? rip_tfl_op_name(code->builtin) : NULL;
    snprintf(out, len, "operator %ld (%s)", (long)op, name ? name : "?");
}

rip_status net_op_fail(const rip_net *net, int32_t op, char err[RIP_ERR_LEN], const char *fmt, ...)
{
    char label[96], msg[280];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rip_net_op_label(net, op, label, sizeof label);
    snprintf(err, RIP_ERR_LEN, "%.120s: %s: %s", net->model->label, label, msg);
    rip_err_one_line(err);
    return RIP_S_DATA;
}

int64_t net_elements(const rip_net *net, int32_t t)
{
    int64_t n = 1, b;
    rip_tfl_tensor_bytes(net_tensor(net, t), &n, &b);
    return n;
}

/* The builtin operator of op i. */
static int32_t builtin_of(const rip_net *net, size_t i)
{
    return rip_tfl_op_code(net->model, &net->sg->operators[i])->builtin;
}

static rip_net_kind kind_of(int32_t builtin)
{
    switch (builtin) {
    case RIP_TFL_OP_CONV_2D: return RIP_NET_CONV;
    case RIP_TFL_OP_DEPTHWISE_CONV_2D: return RIP_NET_DEPTHWISE;
    case RIP_TFL_OP_FULLY_CONNECTED: return RIP_NET_FC;
    case RIP_TFL_OP_AVERAGE_POOL_2D: return RIP_NET_AVGPOOL;
    case RIP_TFL_OP_MAX_POOL_2D: return RIP_NET_MAXPOOL;
    case RIP_TFL_OP_ADD: return RIP_NET_ADD;
    case RIP_TFL_OP_MEAN: return RIP_NET_MEAN;
    case RIP_TFL_OP_SOFTMAX: return RIP_NET_SOFTMAX;
    case RIP_TFL_OP_PAD: return RIP_NET_PAD;
    case RIP_TFL_OP_TRANSPOSE: return RIP_NET_TRANSPOSE;
    case RIP_TFL_OP_CONCATENATION: return RIP_NET_CONCAT;
    case RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR: return RIP_NET_RESIZE;
    case RIP_TFL_OP_QUANTIZE: return RIP_NET_QUANTIZE;
    default: return RIP_NET_DEQUANTIZE; /* the check admits no other */
    }
}

/* Is tensor t one of the graph's outputs? */
static bool is_model_output(const rip_net *net, int32_t t)
{
    for (size_t k = 0; k < net->sg->n_outputs; k++)
        if (net->sg->outputs[k] == t)
            return true;
    return false;
}

/*
** Can PAD operator i be folded into its consumer?  Yes when it pads only
** axes 1 and 2 of a rank-4 tensor, its output is no model output and is
** read exactly once, as input 0 of a CONV_2D or DEPTHWISE_CONV_2D.  uses:
** per tensor, how many operator inputs name it.  Returns the consumer, or -1.
*/
static int32_t fold_target(const rip_net *net, size_t i, const int32_t *uses)
{
    const rip_tfl_operator *op = &net->sg->operators[i];
    int32_t in = op->inputs[0], out = op->outputs[0];
    const rip_tfl_tensor *pads = net_tensor(net, op->inputs[1]);
    if (net_tensor(net, in)->rank != 4 || uses[out] != 1 || is_model_output(net, out))
        return -1;
    for (int axis = 0; axis < 4; axis += 3)
        if (rip_tfl_const_int(net->model, pads, 2 * axis) != 0 || rip_tfl_const_int(net->model, pads, 2 * axis + 1) != 0)
            return -1;
    for (size_t j = i + 1; j < net->n_ops; j++) {
        const rip_tfl_operator *c = &net->sg->operators[j];
        for (size_t k = 0; k < c->n_inputs; k++)
            if (c->inputs[k] == out) {
                int32_t b = builtin_of(net, j);
                bool conv = b == RIP_TFL_OP_CONV_2D || b == RIP_TFL_OP_DEPTHWISE_CONV_2D;
                return conv && k == 0 ? (int32_t)j : -1;
            }
    }
    return -1;
}

/* A new arena buffer for tensor t written at step `producer` (-1: model input `input`). */
static int32_t new_buffer(rip_net *net, int32_t t, int32_t producer, int32_t input)
{
    rip_net_buffer *b = &net->buffers[net->n_buffers];
    b->tensor = t;
    b->size = net_elements(net, t);
    b->producer = producer;
    b->first = b->last = producer < 0 ? 0 : producer;
    b->input = input;
    net->tensor_buf[t] = (int32_t)net->n_buffers;
    return (int32_t)net->n_buffers++;
}

/* The operand reading tensor t. */
static rip_net_operand operand_of(const rip_net *net, int32_t t)
{
    rip_net_operand o = {.tensor = t, .buf = net->tensor_buf[t], .io = -1};
    const rip_tfl_tensor *x = net_tensor(net, t);
    size_t bytes;
    if (o.buf < 0 && rip_tfl_is_constant(net->model, x))
        o.data = (const int8_t *)rip_tfl_tensor_data(net->model, x, &bytes);
    for (size_t k = 0; o.buf < 0 && o.data == NULL && k < net->n_inputs; k++)
        if (net->inputs[k].tensor == t)
            o.io = (int32_t)k;
    return o;
}

/* The model's inputs and outputs; int8 inputs get their buffers (first). */
static rip_status make_io(rip_net *net)
{
    net->n_inputs = net->sg->n_inputs;
    net->n_outputs = net->sg->n_outputs;
    net->inputs = net_alloc(net, net->n_inputs, sizeof *net->inputs);
    net->outputs = net_alloc(net, net->n_outputs, sizeof *net->outputs);
    if (net->inputs == NULL || net->outputs == NULL)
        return RIP_S_NOMEM;
    for (size_t k = 0; k < net->n_inputs + net->n_outputs; k++) {
        bool in = k < net->n_inputs;
        rip_net_io *io = in ? &net->inputs[k] : &net->outputs[k - net->n_inputs];
        io->tensor = in ? net->sg->inputs[k] : net->sg->outputs[k - net->n_inputs];
        io->type = net_tensor(net, io->tensor)->type;
        io->elements = net_elements(net, io->tensor);
        io->bytes = io->elements * (io->type == RIP_TFL_FLOAT32 ? 4 : 1);
        io->buf = -1;
        if (in && io->type == RIP_TFL_INT8)
            io->buf = net->tensor_buf[io->tensor] >= 0 ? net->tensor_buf[io->tensor]
                                                        : new_buffer(net, io->tensor, -1, (int32_t)k);
    }
    return RIP_OK;
}

/* The operands step st reads, from operator op (whose input 0 is pad's output when pad is set). */
static rip_status set_operands(rip_net *net, rip_net_step *st, const rip_tfl_operator *op,
                               const rip_tfl_operator *pad, char err[RIP_ERR_LEN])
{
    size_t n = st->kind == RIP_NET_ADD ? 2 : st->kind == RIP_NET_CONCAT ? op->n_inputs : 1;
    if (n > RIP_NET_MAX_OPERANDS)
        return net_op_fail(net, st->op, err, "%zu inputs: at most %d are supported", n, RIP_NET_MAX_OPERANDS);
    rip_net_operand *in = net_alloc(net, n, sizeof *in);
    if (in == NULL)
        return RIP_S_NOMEM;
    for (size_t k = 0; k < n; k++)
        in[k] = operand_of(net, k == 0 && pad ? pad->inputs[0] : op->inputs[k]);
    st->in = in;
    st->n_in = (int32_t)n;
    return RIP_OK;
}

/* Operator i as the next step (pad: the PAD folded into it, or NULL). */
static rip_status add_step(rip_net *net, size_t i, const rip_tfl_operator *pad, int32_t pad_op,
                           char err[RIP_ERR_LEN])
{
    const rip_tfl_operator *op = &net->sg->operators[i];
    rip_net_step *st = &net->steps[net->n_steps];
    st->kind = kind_of(builtin_of(net, i));
    st->op = (int32_t)i;
    st->folded_pad = pad_op;
    rip_status rc = set_operands(net, st, op, pad, err);
    if (rc != RIP_OK)
        return rc;
    int32_t out = op->outputs[0];
    if (net_elements(net, out) > INT32_MAX)
        return net_op_fail(net, st->op, err, "its output has 2^31 elements or more, beyond the kernels' int32 indexes");
    st->out = (rip_net_operand){.tensor = out, .buf = -1, .io = -1};
    if (st->kind == RIP_NET_DEQUANTIZE) {
        for (size_t k = 0; k < net->n_outputs; k++)
            if (net->outputs[k].tensor == out)
                st->out.io = (int32_t)k;
    } else {
        st->out.buf = new_buffer(net, out, (int32_t)net->n_steps, -1);
    }
    net->op_step[i] = (int32_t)net->n_steps;
    net->op_how[i] = RIP_NET_STEP;
    net->n_steps++;
    return net_prepare_step(net, st, op, pad, err);
}

/* Last steps: every reader of a buffer, and the end for model outputs. */
static void set_lifetimes(rip_net *net)
{
    int32_t end = net->n_steps ? (int32_t)net->n_steps - 1 : 0;
    for (size_t s = 0; s < net->n_steps; s++)
        for (int32_t k = 0; k < net->steps[s].n_in; k++) {
            int32_t b = net->steps[s].in[k].buf;
            if (b >= 0 && net->buffers[b].last < (int32_t)s)
                net->buffers[b].last = (int32_t)s;
        }
    /* a RESHAPE's output is shown to rip_net_run's hook before the next
    ** step runs: even when nothing reads it, its buffer lives to that step */
    int32_t next = 0;
    for (size_t i = 0; i < net->n_ops; i++) {
        if (net->op_how[i] == RIP_NET_STEP)
            next = net->op_step[i] + 1;
        int32_t b = net->op_how[i] == RIP_NET_ALIAS ? net->tensor_buf[net->sg->operators[i].outputs[0]] : -1;
        if (b >= 0 && net->buffers[b].last < (next < end ? next : end))
            net->buffers[b].last = next < end ? next : end;
    }
    for (size_t k = 0; k < net->n_outputs; k++) {
        int32_t b = net->tensor_buf[net->outputs[k].tensor];
        net->outputs[k].buf = net->outputs[k].type == RIP_TFL_INT8 ? b : -1;
        if (b >= 0)
            net->buffers[b].last = end;
    }
}

/* The per-tensor and per-operator tables, and the steps' and buffers' room. */
static rip_status alloc_tables(rip_net *net, int32_t **uses, int32_t **pad_of)
{
    size_t nt = net->sg->n_tensors, no = net->n_ops;
    net->tensor_buf = net_alloc(net, nt, sizeof *net->tensor_buf);
    net->op_step = net_alloc(net, no, sizeof *net->op_step);
    net->op_how = net_alloc(net, no, sizeof *net->op_how);
    net->steps = net_alloc(net, no, sizeof *net->steps);
    net->buffers = net_alloc(net, net->sg->n_inputs + no, sizeof *net->buffers);
    *uses = net_alloc(net, nt, sizeof **uses);
    *pad_of = net_alloc(net, no, sizeof **pad_of);
    if (!net->tensor_buf || !net->op_step || !net->op_how || !net->steps || !net->buffers || !*uses || !*pad_of)
        return RIP_S_NOMEM;
    for (size_t t = 0; t < nt; t++)
        net->tensor_buf[t] = -1;
    for (size_t i = 0; i < no; i++) {
        net->op_step[i] = (*pad_of)[i] = -1;
        const rip_tfl_operator *op = &net->sg->operators[i];
        for (size_t k = 0; k < op->n_inputs; k++)
            if (op->inputs[k] >= 0)
                (*uses)[op->inputs[k]]++;
    }
    return RIP_OK;
}

/* Every operator in order: an alias, a folded PAD, or a step. */
static rip_status walk_operators(rip_net *net, const int32_t *uses, int32_t *pad_of, char err[RIP_ERR_LEN])
{
    for (size_t i = 0; i < net->n_ops; i++) {
        const rip_tfl_operator *op = &net->sg->operators[i];
        int32_t b = builtin_of(net, i);
        if (b == RIP_TFL_OP_RESHAPE) {
            net->tensor_buf[op->outputs[0]] = net->tensor_buf[op->inputs[0]];
            net->op_how[i] = RIP_NET_ALIAS;
            continue;
        }
        int32_t into = b == RIP_TFL_OP_PAD ? fold_target(net, i, uses) : -1;
        if (into >= 0) {
            pad_of[into] = (int32_t)i;
            net->op_how[i] = RIP_NET_FOLDED;
            continue;
        }
        const rip_tfl_operator *pad = pad_of[i] >= 0 ? &net->sg->operators[pad_of[i]] : NULL;
        rip_status rc = add_step(net, i, pad, pad_of[i], err);
        if (rc != RIP_OK)
            return rc;
    }
    return RIP_OK;
}

rip_status rip_net_build(const rip_tfl_model *m, rip_net *net, char err[RIP_ERR_LEN])
{
    memset(net, 0, sizeof *net);
    rip_status rc = rip_tfl_check(m, err);
    if (rc != RIP_OK)
        return rc;
    int32_t *uses = NULL, *pad_of = NULL;
    net->model = m;
    net->sg = &m->subgraphs[0];
    net->n_ops = net->sg->n_operators;
    net->store = calloc(1, sizeof *net->store);
    rc = net->store == NULL ? RIP_S_NOMEM : alloc_tables(net, &uses, &pad_of);
    if (rc == RIP_OK)
        rc = make_io(net);
    if (rc == RIP_OK)
        rc = walk_operators(net, uses, pad_of, err);
    if (rc == RIP_OK) {
        set_lifetimes(net);
        return RIP_OK;
    }
    if (rc == RIP_S_NOMEM)
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory building the net", m->label);
    rip_net_free(net);
    return rc;
}

void rip_net_free(rip_net *net)
{
    if (net == NULL)
        return;
    if (net->store) {
        for (size_t i = 0; i < net->store->n; i++)
            free(net->store->v[i]);
        free(net->store->v);
        free(net->store);
    }
    memset(net, 0, sizeof *net);
}
