/*
** tfl_check.c — the semantic check of a decoded TFLite model (see
** tfl_check.h for what is checked and in which order): the facts it
** exports (supported operators, byte counts, TFLite's window arithmetic),
** its messages, and the walk over tensors, graph inputs and outputs and
** operators.  Each operator's own rules are in tfl_ops.c.
**
** The walk keeps one table per tensor: which operator wrote it (for the
** dataflow rules) and whether it is a graph input or output.
*/
#include "tfl_check.h"
#include "tfl_check_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ----------------------------------------------------------- */

static rip_status vfail(tc_state *c, const char *prefix, const char *fmt, va_list ap)
{
    size_t n = (size_t)snprintf(c->err, RIP_ERR_LEN, "%.200s: %s", c->m->label ? c->m->label : "model", prefix);
    if (n < RIP_ERR_LEN)
        vsnprintf(c->err + n, RIP_ERR_LEN - n, fmt, ap);
    rip_err_one_line(c->err);
    return RIP_S_DATA;
}

rip_status tc_fail(tc_state *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rip_status st = vfail(c, "", fmt, ap);
    va_end(ap);
    return st;
}

rip_status tc_op_fail(tc_state *c, const char *fmt, ...)
{
    char prefix[110];
    snprintf(prefix, sizeof prefix, "%s: ", c->op_label);
    va_list ap;
    va_start(ap, fmt);
    rip_status st = vfail(c, prefix, fmt, ap);
    va_end(ap);
    return st;
}

rip_status tc_tensor_fail(tc_state *c, int32_t t, const char *fmt, ...)
{
    char prefix[110];
    rip_tfl_tensor_label(c->sg, t, prefix, sizeof prefix - 2);
    strcat(prefix, ": ");
    va_list ap;
    va_start(ap, fmt);
    rip_status st = vfail(c, prefix, fmt, ap);
    va_end(ap);
    return st;
}

const char *tc_label(const tc_state *c, int32_t t, char buf[TC_LABEL_LEN])
{
    rip_tfl_tensor_label(c->sg, t, buf, TC_LABEL_LEN);
    return buf;
}

const char *tc_fmt_dims(const int64_t *d, size_t n, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "[");
    for (size_t i = 0; i < n && i < RIP_TFL_RANK_MAX && k < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%lld", i ? "," : "", (long long)d[i]);
    if (n > RIP_TFL_RANK_MAX && k < len)
        k += (size_t)snprintf(buf + k, len - k, ",...");
    if (k < len)
        snprintf(buf + k, len - k, "]");
    return buf;
}

const char *tc_fmt_shape(const rip_tfl_tensor *t, char *buf, size_t len)
{
    int64_t d[RIP_TFL_RANK_MAX];
    size_t n = t->rank < RIP_TFL_RANK_MAX ? t->rank : RIP_TFL_RANK_MAX;
    for (size_t i = 0; i < n; i++)
        d[i] = t->shape[i];
    tc_fmt_dims(d, n, buf, len);
    if (t->rank > RIP_TFL_RANK_MAX) {
        size_t k = strlen(buf);
        if (k > 0 && k + 4 < len)
            strcpy(buf + k - 1, ",...]");
    }
    return buf;
}

const char *tc_type_word(int type, char *buf, size_t len)
{
    const char *n = rip_tfl_type_name(type);
    if (!n) {
        snprintf(buf, len, "type %d", type);
        return buf;
    }
    size_t i = 0;
    for (; n[i] && i + 1 < len; i++)
        buf[i] = (char)(n[i] >= 'A' && n[i] <= 'Z' ? n[i] - 'A' + 'a' : n[i]);
    buf[i] = '\0';
    return buf;
}

/* ---- shared facts ------------------------------------------------------- */

bool rip_tfl_op_supported(int32_t builtin)
{
    switch (builtin) {
    case RIP_TFL_OP_CONV_2D:
    case RIP_TFL_OP_DEPTHWISE_CONV_2D:
    case RIP_TFL_OP_FULLY_CONNECTED:
    case RIP_TFL_OP_AVERAGE_POOL_2D:
    case RIP_TFL_OP_MAX_POOL_2D:
    case RIP_TFL_OP_ADD:
    case RIP_TFL_OP_MEAN:
    case RIP_TFL_OP_SOFTMAX:
    case RIP_TFL_OP_RESHAPE:
    case RIP_TFL_OP_PAD:
    case RIP_TFL_OP_TRANSPOSE:
    case RIP_TFL_OP_CONCATENATION:
    case RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR:
    case RIP_TFL_OP_QUANTIZE:
    case RIP_TFL_OP_DEQUANTIZE: return true;
    }
    return false;
}

bool rip_tfl_is_constant(const rip_tfl_model *m, const rip_tfl_tensor *t)
{
    return t->buffer < m->n_buffers && m->buffers[t->buffer].size > 0;
}

int64_t rip_tfl_const_int(const rip_tfl_model *m, const rip_tfl_tensor *t, int64_t i)
{
    const uint8_t *p = m->buffers[t->buffer].data;
    int size = t->type == RIP_TFL_INT64 ? 8 : 4;
    uint64_t v = 0;
    for (int k = size - 1; k >= 0; k--)
        v = v << 8 | p[i * size + k];
    return size == 8 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
}

bool rip_tfl_tensor_bytes(const rip_tfl_tensor *t, int64_t *elements, int64_t *bytes)
{
    int size = rip_tfl_type_bytes(t->type);
    int64_t n = 1;
    for (size_t i = 0; i < t->rank; i++) {
        if (t->shape[i] < 0)
            return false;
        /* n * d <= max / size, checked by division before the product */
        if (t->shape[i] != 0 && n > RIP_TFL_TENSOR_BYTES_MAX / t->shape[i])
            return false;
        n *= t->shape[i];
    }
    if (size == 0 || n > RIP_TFL_TENSOR_BYTES_MAX / size)
        return false;
    *elements = n;
    *bytes = n * size;
    return true;
}

bool rip_tfl_window(int padding, int64_t in, int64_t kernel, int64_t stride, int64_t dilation, int64_t *out,
                    int64_t *pad_before, int64_t *pad_after)
{
    /* inputs come from int32 fields: (kernel - 1) * dilation stays below 2^62 */
    if (in < 1 || kernel < 1 || stride < 1 || dilation < 1 || in > INT32_MAX || kernel > INT32_MAX ||
        stride > INT32_MAX || dilation > INT32_MAX)
        return false;
    int64_t eff = (kernel - 1) * dilation + 1;
    int64_t o;
    if (padding == RIP_TFL_PAD_SAME)
        o = (in + stride - 1) / stride;
    else if (padding == RIP_TFL_PAD_VALID) {
        if (in < eff)
            return false;
        o = (in - eff + stride) / stride;
    } else
        return false;
    int64_t total = (o - 1) * stride + eff - in;
    if (total < 0)
        total = 0;
    *out = o;
    *pad_before = total / 2;
    *pad_after = total - total / 2;
    return true;
}

/* ---- the walk ----------------------------------------------------------- */

/* Phase 2: every tensor on its own. */
static rip_status check_tensors(tc_state *c)
{
    const rip_tfl_subgraph *sg = c->sg;
    for (size_t i = 0; i < sg->n_tensors; i++) {
        const rip_tfl_tensor *t = &sg->tensors[i];
        int32_t ti = (int32_t)i;
        char s[120], w[24];
        int64_t n, bytes;
        if (t->buffer >= c->m->n_buffers)
            return tc_tensor_fail(c, ti, "buffer %lu out of range (%zu buffers)", (unsigned long)t->buffer,
                                  c->m->n_buffers);
        if (t->rank > RIP_TFL_RANK_MAX)
            return tc_tensor_fail(c, ti, "rank %zu: at most %d dimensions are supported", t->rank, RIP_TFL_RANK_MAX);
        for (size_t k = 0; k < t->rank; k++)
            if (t->shape[k] < 0)
                return tc_tensor_fail(c, ti, "shape %s has a negative dimension", tc_fmt_shape(t, s, sizeof s));
        if (t->has_sparsity)
            return tc_tensor_fail(c, ti, "sparse tensors are not supported");
        if (rip_tfl_type_bytes(t->type) == 0)
            continue; /* strings and sub-byte types: refused where an operator uses them */
        if (!rip_tfl_tensor_bytes(t, &n, &bytes))
            return tc_tensor_fail(c, ti, "shape %s of %s: the byte count overflows (over 2^46 bytes)",
                                  tc_fmt_shape(t, s, sizeof s), tc_type_word(t->type, w, sizeof w));
        size_t have = c->m->buffers[t->buffer].size;
        if (have > 0 && (uint64_t)have != (uint64_t)bytes)
            return tc_tensor_fail(c, ti, "buffer %lu holds %zu bytes, the shape %s of %s needs %lld",
                                  (unsigned long)t->buffer, have, tc_fmt_shape(t, s, sizeof s),
                                  tc_type_word(t->type, w, sizeof w), (long long)bytes);
    }
    for (size_t i = 0; i < c->m->n_metadata; i++)
        if (c->m->metadata[i].buffer >= c->m->n_buffers)
            return tc_fail(c, "metadata %zu (%.60s): buffer %lu out of range (%zu buffers)", i, c->m->metadata[i].name,
                           (unsigned long)c->m->metadata[i].buffer, c->m->n_buffers);
    return RIP_OK;
}

/* Phase 3: the graph's inputs and outputs. */
static rip_status check_io(tc_state *c)
{
    const rip_tfl_subgraph *sg = c->sg;
    for (int side = 0; side < 2; side++) {
        size_t n = side ? sg->n_outputs : sg->n_inputs;
        const int32_t *ix = side ? sg->outputs : sg->inputs;
        for (size_t i = 0; i < n; i++) {
            if (ix[i] < 0 || (size_t)ix[i] >= sg->n_tensors)
                return tc_fail(c, "subgraph %s %zu: tensor index %ld out of range (%zu tensors)",
                               side ? "output" : "input", i, (long)ix[i], sg->n_tensors);
            if (!side && tc_is_const(c, ix[i]))
                return tc_tensor_fail(c, ix[i], "a model input holding constant data");
            (side ? c->is_output : c->is_input)[ix[i]] = true;
        }
    }
    return RIP_OK;
}

/* The operator's name for messages: "CONV_2D", "CUSTOM ethos-u", "builtin 300". */
static void op_label(tc_state *c, const rip_tfl_opcode *code)
{
    const char *name = code ? rip_tfl_op_name(code->builtin) : NULL;
    if (!code)
        snprintf(c->op_label, sizeof c->op_label, "operator %zu", c->op_ix);
    else if (code->builtin == RIP_TFL_OP_CUSTOM && code->custom_code)
        snprintf(c->op_label, sizeof c->op_label, "operator %zu (CUSTOM %.40s)", c->op_ix, code->custom_code);
    else if (name)
        snprintf(c->op_label, sizeof c->op_label, "operator %zu (%s)", c->op_ix, name);
    else
        snprintf(c->op_label, sizeof c->op_label, "operator %zu (builtin %ld)", c->op_ix, (long)code->builtin);
}

/* The tensor indexes of the operator: in range, -1 only for an absent bias; dataflow order. */
static rip_status check_links(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_subgraph *sg = c->sg;
    bool has_bias = c->builtin == RIP_TFL_OP_CONV_2D || c->builtin == RIP_TFL_OP_DEPTHWISE_CONV_2D ||
                    c->builtin == RIP_TFL_OP_FULLY_CONNECTED;
    char l[80];
    for (size_t i = 0; i < op->n_inputs; i++) {
        int32_t t = op->inputs[i];
        if (t == -1 && has_bias && i == 2)
            continue;
        if (t < 0 || (size_t)t >= sg->n_tensors)
            return tc_op_fail(c, "input %zu: tensor index %ld out of range (%zu tensors)", i, (long)t, sg->n_tensors);
        if (!tc_is_const(c, t) && !c->is_input[t] && c->writer[t] < 0)
            return tc_op_fail(c, "input %s is read before any operator writes it (not a model input or a constant)",
                              tc_label(c, t, l));
    }
    for (size_t i = 0; i < op->n_outputs; i++) {
        int32_t t = op->outputs[i];
        if (t < 0 || (size_t)t >= sg->n_tensors)
            return tc_op_fail(c, "output %zu: tensor index %ld out of range (%zu tensors)", i, (long)t, sg->n_tensors);
        if (c->writer[t] >= 0)
            return tc_op_fail(c, "output %s is already written by operator %ld", tc_label(c, t, l), (long)c->writer[t]);
        if (c->is_input[t])
            return tc_op_fail(c, "output %s is a model input", tc_label(c, t, l));
        if (tc_is_const(c, t))
            return tc_op_fail(c, "output %s holds constant data", tc_label(c, t, l));
    }
    return RIP_OK;
}

/* Phase 4a, one operator: its code in range and supported; sets c->op_label and c->builtin. */
static rip_status check_known(tc_state *c)
{
    const rip_tfl_opcode *code = rip_tfl_op_code(c->m, c->op);
    op_label(c, code);
    if (!code)
        return tc_op_fail(c, "opcode index %lu out of range (%zu operator codes)", (unsigned long)c->op->opcode_index,
                          c->m->n_opcodes);
    c->builtin = code->builtin;
    if (!rip_tfl_op_supported(code->builtin))
        return tc_op_fail(c, "not supported");
    return RIP_OK;
}

/* Phase 4b, one operator (check_known passed for every operator). */
static rip_status check_operator(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_opcode *code = rip_tfl_op_code(c->m, op);
    rip_status st;
    op_label(c, code);
    c->builtin = code->builtin;
    int want = rip_tfl_options_of_op(code->builtin);
    if (op->options_type != RIP_TFL_OPT_NONE && op->options_type != want) {
        const char *have = rip_tfl_options_name(op->options_type);
        if (have)
            return tc_op_fail(c, "options are %s, not %s", have, rip_tfl_options_name(want));
        return tc_op_fail(c, "options type %d is not in the schema (%s needed)", op->options_type,
                          rip_tfl_options_name(want));
    }
    if (op->options_2_type != 0)
        return tc_op_fail(c, "builtin_options_2 (type %d) are not supported", op->options_2_type);
    if ((st = tc_operator_counts(c)) != RIP_OK || (st = check_links(c)) != RIP_OK)
        return st;
    if ((st = tc_operator_rules(c)) != RIP_OK)
        return st;
    for (size_t i = 0; i < op->n_outputs; i++)
        c->writer[op->outputs[i]] = (int32_t)c->op_ix;
    return RIP_OK;
}

rip_status rip_tfl_check(const rip_tfl_model *m, char err[RIP_ERR_LEN])
{
    tc_state c = {.m = m, .err = err};
    rip_status st = RIP_OK;
    err[0] = '\0';
    if (m->n_subgraphs != 1)
        return tc_fail(&c, m->n_subgraphs == 0 ? "no subgraph" : "%zu subgraphs: only models with one are supported",
                       m->n_subgraphs);
    c.sg = &m->subgraphs[0];
    size_t n = c.sg->n_tensors ? c.sg->n_tensors : 1;
    c.writer = malloc(n * sizeof *c.writer);
    c.is_input = calloc(n, sizeof *c.is_input);
    c.is_output = calloc(n, sizeof *c.is_output);
    if (!c.writer || !c.is_input || !c.is_output) {
        snprintf(err, RIP_ERR_LEN, "%.200s: out of memory checking the model", m->label ? m->label : "model");
        st = RIP_S_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        c.writer[i] = -1;
    if ((st = check_tensors(&c)) != RIP_OK || (st = check_io(&c)) != RIP_OK)
        goto done;
    /* first whether every operator is one ripsim has, then what each does */
    for (c.op_ix = 0; c.op_ix < c.sg->n_operators; c.op_ix++) {
        c.op = &c.sg->operators[c.op_ix];
        if ((st = check_known(&c)) != RIP_OK)
            goto done;
    }
    for (c.op_ix = 0; c.op_ix < c.sg->n_operators; c.op_ix++) {
        c.op = &c.sg->operators[c.op_ix];
        if ((st = check_operator(&c)) != RIP_OK)
            goto done;
    }
    for (size_t i = 0; i < c.sg->n_outputs; i++)
        if (c.writer[c.sg->outputs[i]] < 0) {
            st = tc_tensor_fail(&c, c.sg->outputs[i], "a model output no operator writes");
            goto done;
        }
done:
    free(c.writer);
    free(c.is_input);
    free(c.is_output);
    return st;
}
