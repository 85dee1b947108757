/*
** tfl_ops.c — the rules of each supported operator for the check
** (tfl_check.h lists them): input and output counts, the types,
** quantization and shapes of the operator's tensors, its options, and its
** output shape from TFLite's arithmetic.  Each operator is one function,
** op_NAME, that sees its tensors already range-checked (check_links in
** tfl_check.c); shapes are compared as int64 arrays of at most
** RIP_TFL_RANK_MAX dimensions.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tfl_check.h"
#include "tfl_check_internal.h"

/* ---- tensors an operator uses ------------------------------------------- */

/* Shape of t as int64 (rank <= RIP_TFL_RANK_MAX: checked in phase 2). */
static size_t dims(const tc_state *c, int32_t t, int64_t d[RIP_TFL_RANK_MAX])
{
    const rip_tfl_tensor *x = tc_tensor(c, t);
    for (size_t i = 0; i < x->rank; i++)
        d[i] = x->shape[i];
    return x->rank;
}

static int64_t elements(const tc_state *c, int32_t t)
{
    int64_t n = 1, b;
    rip_tfl_tensor_bytes(tc_tensor(c, t), &n, &b); /* checked in phase 2 for every fixed-size type */
    return n;
}

/* The role's tensor has rank `rank` (0: any). */
static rip_status need_rank(tc_state *c, int32_t t, const char *role, size_t rank)
{
    char l[80], s[120];
    if (rank && tc_tensor(c, t)->rank != rank)
        return tc_op_fail(c, "%s %s has shape %s: rank %zu needed", role, tc_label(c, t, l),
                          tc_fmt_shape(tc_tensor(c, t), s, sizeof s), rank);
    return RIP_OK;
}

/* The one scale and zero point of an int8 activation. */
static rip_status need_act_quant(tc_state *c, int32_t t)
{
    const rip_tfl_quant *q = &tc_tensor(c, t)->quant;
    if (!q->present || q->n_scale == 0 || q->n_zero_point == 0)
        return tc_tensor_fail(c, t, "int8 activation without a scale and zero point");
    if (q->n_scale != 1 || q->n_zero_point != 1)
        return tc_tensor_fail(c, t,
                              "int8 activation with %zu scales and %zu zero points: one of each (per tensor) needed",
                              q->n_scale, q->n_zero_point);
    if (q->details_type != 0)
        return tc_tensor_fail(c, t, "quantization details (type %d) are not supported", q->details_type);
    if (!isfinite(q->scale[0]) || q->scale[0] <= 0)
        return tc_tensor_fail(c, t, "scale %g: a finite positive scale needed", (double)q->scale[0]);
    if (q->zero_point[0] < -128 || q->zero_point[0] > 127)
        return tc_tensor_fail(c, t, "zero point %lld outside int8 [-128, 127]", (long long)q->zero_point[0]);
    return RIP_OK;
}

/* An int8 activation of rank `rank` (0: any); constant allowed only when may_be_const. */
static rip_status need_act(tc_state *c, int32_t t, const char *role, size_t rank, bool may_be_const)
{
    const rip_tfl_tensor *x = tc_tensor(c, t);
    char w[24], l[80];
    if (x->type != RIP_TFL_INT8) {
        if (x->type == RIP_TFL_FLOAT32)
            return tc_tensor_fail(c, t,
                                  "float32 activations are not supported (float only at a model input feeding "
                                  "QUANTIZE or an output fed by DEQUANTIZE)");
        return tc_tensor_fail(c, t, "%s activations are not supported", tc_type_word(x->type, w, sizeof w));
    }
    if (x->is_variable)
        return tc_tensor_fail(c, t, "variable tensors are not supported");
    if (!may_be_const && tc_is_const(c, t))
        return tc_op_fail(c, "%s %s is a constant", role, tc_label(c, t, l));
    for (size_t i = 0; i < x->rank; i++)
        if (x->shape[i] == 0)
            return tc_op_fail(c, "%s %s has an empty dimension", role, tc_label(c, t, l));
    rip_status st = need_act_quant(c, t);
    return st != RIP_OK ? st : need_rank(c, t, role, rank);
}

/* A constant tensor of type `type` and rank `rank` (0: any). */
static rip_status need_const(tc_state *c, int32_t t, const char *role, int type, size_t rank)
{
    const rip_tfl_tensor *x = tc_tensor(c, t);
    char w[24], w2[24], l[80];
    if (!tc_is_const(c, t))
        return tc_op_fail(c, "%s %s is not a constant", role, tc_label(c, t, l));
    if (x->type != type)
        return tc_op_fail(c, "%s %s is %s: %s needed", role, tc_label(c, t, l), tc_type_word(x->type, w, sizeof w),
                          tc_type_word(type, w2, sizeof w2));
    return need_rank(c, t, role, rank);
}

/* Integer i of a constant INT32 or INT64 tensor (need_const checked it and its size). */
static int64_t const_int(const tc_state *c, int32_t t, int64_t i)
{
    return rip_tfl_const_int(c->m, tc_tensor(c, t), i);
}

/* Weights: int8 constant of rank 4 or 2, zero points 0, channels scales along dimension qdim. */
static rip_status need_weights(tc_state *c, int32_t t, size_t rank, int32_t qdim)
{
    rip_status st = need_const(c, t, "weights", RIP_TFL_INT8, rank);
    if (st != RIP_OK)
        return st;
    const rip_tfl_tensor *x = tc_tensor(c, t);
    const rip_tfl_quant *q = &x->quant;
    int64_t channels = x->shape[qdim];
    if (!q->present || q->n_scale == 0)
        return tc_tensor_fail(c, t, "int8 weights without scales");
    if (q->n_zero_point != q->n_scale)
        return tc_tensor_fail(c, t, "%zu scales but %zu zero points", q->n_scale, q->n_zero_point);
    if (q->details_type != 0)
        return tc_tensor_fail(c, t, "quantization details (type %d) are not supported", q->details_type);
    char l[80];
    if (q->n_scale != 1 && ((int64_t)q->n_scale != channels || q->quantized_dimension != qdim))
        return tc_op_fail(c, "weights %s: %zu scales along dimension %d for %lld channels along dimension %d",
                          tc_label(c, t, l), q->n_scale, q->quantized_dimension, (long long)channels, qdim);
    for (size_t i = 0; i < q->n_scale; i++) {
        if (!isfinite(q->scale[i]) || q->scale[i] <= 0)
            return tc_tensor_fail(c, t, "scale %zu is %g: finite positive scales needed", i, (double)q->scale[i]);
        if (q->zero_point[i] != 0)
            return tc_tensor_fail(c, t, "zero point %zu is %lld: int8 weights are symmetric (0)", i,
                                  (long long)q->zero_point[i]);
    }
    return RIP_OK;
}

/* The optional bias (input 2): int32 constant of `channels` elements, rank 1. */
static rip_status need_bias(tc_state *c, int64_t channels)
{
    if (c->op->n_inputs < 3 || c->op->inputs[2] < 0)
        return RIP_OK;
    int32_t t = c->op->inputs[2];
    rip_status st = need_const(c, t, "bias", RIP_TFL_INT32, 1);
    char l[80];
    if (st == RIP_OK && tc_tensor(c, t)->shape[0] != channels)
        return tc_op_fail(c, "bias %s has %ld elements for %lld output channels", tc_label(c, t, l),
                          (long)tc_tensor(c, t)->shape[0], (long long)channels);
    return st;
}

/* The output's shape is want[0..n), else a message: "..., BECAUSE [want]" (because ends in its verb). */
static rip_status need_shape(tc_state *c, int32_t t, const int64_t *want, size_t n, const char *because)
{
    const rip_tfl_tensor *x = tc_tensor(c, t);
    bool same = x->rank == n;
    for (size_t i = 0; same && i < n; i++)
        same = x->shape[i] == want[i];
    if (same)
        return RIP_OK;
    char l[80], s[120], w[120];
    return tc_op_fail(c, "output %s has shape %s, %s %s", tc_label(c, t, l), tc_fmt_shape(x, s, sizeof s), because,
                      tc_fmt_dims(want, n, w, sizeof w));
}

/* Output t keeps the input's scale and zero point (an operator that only moves values). */
static rip_status need_same_quant(tc_state *c, int32_t in, int32_t out)
{
    const rip_tfl_quant *a = &tc_tensor(c, in)->quant, *b = &tc_tensor(c, out)->quant;
    if (a->scale[0] == b->scale[0] && a->zero_point[0] == b->zero_point[0])
        return RIP_OK;
    char l[80];
    return tc_op_fail(c, "output %s has scale %g and zero point %lld, the input %g and %lld: %s does not requantize",
                      tc_label(c, out, l), (double)b->scale[0], (long long)b->zero_point[0], (double)a->scale[0],
                      (long long)a->zero_point[0], rip_tfl_op_name(c->builtin));
}

static rip_status need_activation_fn(tc_state *c, int act)
{
    if (act == RIP_TFL_ACT_NONE || act == RIP_TFL_ACT_RELU || act == RIP_TFL_ACT_RELU6)
        return RIP_OK;
    const char *n = rip_tfl_activation_name(act);
    if (n)
        return tc_op_fail(c, "fused activation %s is not supported (NONE, RELU or RELU6)", n);
    return tc_op_fail(c, "fused activation %d is not in the schema", act);
}

/* A spatial axis of a window operator: out through rip_tfl_window, or a message. */
static rip_status window(tc_state *c, const char *axis, int padding, int64_t in, int64_t k, int64_t stride, int64_t dil,
                         int64_t *out)
{
    int64_t before, after;
    if (rip_tfl_padding_name(padding) == NULL)
        return tc_op_fail(c, "padding %d is not in the schema (SAME or VALID)", padding);
    if (stride < 1 || dil < 1)
        return tc_op_fail(c, "%s stride %lld and dilation %lld: both must be at least 1", axis, (long long)stride,
                          (long long)dil);
    if (k < 1)
        return tc_op_fail(c, "kernel %s %lld: at least 1 needed", axis, (long long)k);
    if (!rip_tfl_window(padding, in, k, stride, dil, out, &before, &after))
        return tc_op_fail(c, "%s: a kernel of %lld (dilation %lld) over %lld leaves no VALID output", axis,
                          (long long)k, (long long)dil, (long long)in);
    return RIP_OK;
}

/* ---- the operators ------------------------------------------------------ */

/* Counts of inputs [lo, hi] and exactly one output. */
static rip_status need_counts(tc_state *c, size_t lo, size_t hi)
{
    const rip_tfl_operator *op = c->op;
    if (op->n_inputs < lo || op->n_inputs > hi) {
        if (lo == hi)
            return tc_op_fail(c, "%zu inputs: %zu needed", op->n_inputs, lo);
        return tc_op_fail(c, "%zu inputs: %zu to %zu needed", op->n_inputs, lo, hi);
    }
    if (op->n_outputs != 1)
        return tc_op_fail(c, "%zu outputs: 1 needed", op->n_outputs);
    return RIP_OK;
}

static rip_status op_conv(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_conv_opts *o = &op->opt.conv;
    int32_t in = op->inputs[0], w = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], k[RIP_TFL_RANK_MAX], want[4];
    char l[80];
    if ((st = need_act(c, in, "input", 4, false)) || (st = need_weights(c, w, 4, 0)) ||
        (st = need_act(c, out, "output", 4, false)) || (st = need_activation_fn(c, o->activation)))
        return st;
    dims(c, in, a);
    dims(c, w, k);
    if (k[3] != a[3])
        return tc_op_fail(c,
                          "weights %s have %lld input channels, the input %lld (grouped convolution is not "
                          "supported)",
                          tc_label(c, w, l), (long long)k[3], (long long)a[3]);
    if ((st = need_bias(c, k[0])))
        return st;
    if (o->quantized_bias_type != RIP_TFL_FLOAT32 && o->quantized_bias_type != RIP_TFL_INT32)
        return tc_op_fail(c, "quantized_bias_type %d: int32 bias only", o->quantized_bias_type);
    want[0] = a[0];
    want[3] = k[0];
    if ((st = window(c, "height", o->padding, a[1], k[1], o->stride_h, o->dilation_h, &want[1])) ||
        (st = window(c, "width", o->padding, a[2], k[2], o->stride_w, o->dilation_w, &want[2])))
        return st;
    return need_shape(c, out, want, 4, "the input, weights and options give");
}

static rip_status op_depthwise(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_dw_opts *o = &op->opt.dw;
    int32_t in = op->inputs[0], w = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], k[RIP_TFL_RANK_MAX], want[4];
    char l[80];
    if ((st = need_act(c, in, "input", 4, false)) || (st = need_weights(c, w, 4, 3)) ||
        (st = need_act(c, out, "output", 4, false)) || (st = need_activation_fn(c, o->activation)))
        return st;
    dims(c, in, a);
    dims(c, w, k);
    if (k[0] != 1)
        return tc_op_fail(c, "weights %s have first dimension %lld: depthwise weights are [1, KH, KW, C*M]",
                          tc_label(c, w, l), (long long)k[0]);
    if (k[3] % a[3] != 0)
        return tc_op_fail(c, "weights %s have %lld channels, not a multiple of the input's %lld", tc_label(c, w, l),
                          (long long)k[3], (long long)a[3]);
    if (o->depth_multiplier != 0 && o->depth_multiplier != k[3] / a[3])
        return tc_op_fail(c, "depth_multiplier %ld, but weights of %lld channels over %lld input channels give %lld",
                          (long)o->depth_multiplier, (long long)k[3], (long long)a[3], (long long)(k[3] / a[3]));
    if ((st = need_bias(c, k[3])))
        return st;
    want[0] = a[0];
    want[3] = k[3];
    if ((st = window(c, "height", o->padding, a[1], k[1], o->stride_h, o->dilation_h, &want[1])) ||
        (st = window(c, "width", o->padding, a[2], k[2], o->stride_w, o->dilation_w, &want[2])))
        return st;
    return need_shape(c, out, want, 4, "the input, weights and options give");
}

static rip_status op_fully_connected(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_fc_opts *o = &op->opt.fc;
    int32_t in = op->inputs[0], w = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], k[RIP_TFL_RANK_MAX], want[RIP_TFL_RANK_MAX];
    char l[80];
    if ((st = need_act(c, in, "input", 0, false)) || (st = need_weights(c, w, 2, 0)) ||
        (st = need_act(c, out, "output", 0, false)) || (st = need_activation_fn(c, o->activation)))
        return st;
    if (o->weights_format != 0)
        return tc_op_fail(c, "weights_format %d: only DEFAULT (0) is supported", o->weights_format);
    if (o->quantized_bias_type != RIP_TFL_FLOAT32 && o->quantized_bias_type != RIP_TFL_INT32)
        return tc_op_fail(c, "quantized_bias_type %d: int32 bias only", o->quantized_bias_type);
    size_t r = dims(c, in, a);
    dims(c, w, k);
    if ((st = need_bias(c, k[0])))
        return st;
    int64_t n = elements(c, in);
    if (r == 0 || n % k[1] != 0)
        return tc_op_fail(c, "input %s has %lld elements, not rows of the weights' %lld", tc_label(c, in, l),
                          (long long)n, (long long)k[1]);
    if (o->keep_num_dims) {
        if (a[r - 1] != k[1])
            return tc_op_fail(c, "keep_num_dims: the input's last dimension %lld is not the weights' %lld",
                              (long long)a[r - 1], (long long)k[1]);
        memcpy(want, a, r * sizeof *a);
        want[r - 1] = k[0];
        return need_shape(c, out, want, r, "the input, weights and keep_num_dims give");
    }
    want[0] = n / k[1];
    want[1] = k[0];
    return need_shape(c, out, want, 2, "the input and weights give");
}

static rip_status op_pool(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_pool_opts *o = &op->opt.pool;
    int32_t in = op->inputs[0], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], want[4];
    if ((st = need_act(c, in, "input", 4, false)) || (st = need_act(c, out, "output", 4, false)) ||
        (st = need_activation_fn(c, o->activation)) || (st = need_same_quant(c, in, out)))
        return st;
    dims(c, in, a);
    want[0] = a[0];
    want[3] = a[3];
    if ((st = window(c, "height", o->padding, a[1], o->filter_h, o->stride_h, 1, &want[1])) ||
        (st = window(c, "width", o->padding, a[2], o->filter_w, o->stride_w, 1, &want[2])))
        return st;
    return need_shape(c, out, want, 4, "the input and options give");
}

static rip_status op_add(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    int32_t x = op->inputs[0], y = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], b[RIP_TFL_RANK_MAX], want[RIP_TFL_RANK_MAX];
    if ((st = need_act(c, x, "input", 0, true)) || (st = need_act(c, y, "input", 0, true)) ||
        (st = need_act(c, out, "output", 0, false)) || (st = need_activation_fn(c, op->opt.add.activation)))
        return st;
    /* numpy broadcasting: align from the last dimension; each pair equal or one of them 1 */
    size_t ra = dims(c, x, a), rb = dims(c, y, b), r = ra > rb ? ra : rb;
    for (size_t i = 0; i < r; i++) {
        int64_t da = i < ra ? a[ra - 1 - i] : 1, db = i < rb ? b[rb - 1 - i] : 1;
        if (da != db && da != 1 && db != 1) {
            char s1[120], s2[120];
            return tc_op_fail(c, "inputs of shapes %s and %s do not broadcast",
                              tc_fmt_shape(tc_tensor(c, x), s1, sizeof s1),
                              tc_fmt_shape(tc_tensor(c, y), s2, sizeof s2));
        }
        want[r - 1 - i] = da == 1 ? db : da;
    }
    return need_shape(c, out, want, r, "the inputs broadcast to");
}

static rip_status op_mean(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    int32_t in = op->inputs[0], ax = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], want[RIP_TFL_RANK_MAX];
    bool reduced[RIP_TFL_RANK_MAX] = {false};
    if ((st = need_act(c, in, "input", 0, false)) || (st = need_const(c, ax, "axis", RIP_TFL_INT32, 0)) ||
        (st = need_act(c, out, "output", 0, false)))
        return st;
    size_t r = dims(c, in, a), n = 0;
    if (tc_tensor(c, ax)->rank > 1)
        return tc_op_fail(c, "axis tensor of rank %zu: a scalar or a vector needed", tc_tensor(c, ax)->rank);
    for (int64_t i = 0; i < elements(c, ax); i++) {
        int64_t v = const_int(c, ax, i);
        if (v < -(int64_t)r || v >= (int64_t)r)
            return tc_op_fail(c, "axis %lld outside the input's rank %zu", (long long)v, r);
        reduced[v < 0 ? v + (int64_t)r : v] = true;
    }
    for (size_t i = 0; i < r; i++)
        if (!reduced[i])
            want[n++] = a[i];
        else if (op->opt.reducer.keep_dims)
            want[n++] = 1;
    return need_shape(c, out, want, n, "the input, axes and keep_dims give");
}

static rip_status op_softmax(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    int32_t in = op->inputs[0], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX];
    char l[80];
    if ((st = need_act(c, in, "input", 0, false)) || (st = need_act(c, out, "output", 0, false)))
        return st;
    float beta = op->opt.softmax.beta;
    if (!isfinite(beta) || beta <= 0)
        return tc_op_fail(c, "beta %g: a finite positive beta needed", (double)beta);
    const rip_tfl_quant *q = &tc_tensor(c, out)->quant;
    /* TFLite's int8 softmax writes probabilities p as p * 256 - 128 */
    if (q->zero_point[0] != -128 || fabs(q->scale[0] - 1.0 / 256) > 1e-3 / 256)
        return tc_op_fail(c, "output %s has scale %g and zero point %lld: int8 softmax needs 1/256 and -128",
                          tc_label(c, out, l), (double)q->scale[0], (long long)q->zero_point[0]);
    size_t r = dims(c, in, a);
    return need_shape(c, out, a, r, "the input has");
}

static rip_status op_reshape(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_reshape_opts *o = &op->opt.reshape;
    int32_t in = op->inputs[0], out = op->outputs[0];
    rip_status st;
    int64_t want[RIP_TFL_RANK_MAX];
    size_t n = 0;
    char l[80], l2[80];
    if ((st = need_act(c, in, "input", 0, false)) || (st = need_act(c, out, "output", 0, false)) ||
        (st = need_same_quant(c, in, out)))
        return st;
    if (elements(c, in) != elements(c, out))
        return tc_op_fail(c, "output %s has %lld elements, the input %s %lld", tc_label(c, out, l),
                          (long long)elements(c, out), tc_label(c, in, l2), (long long)elements(c, in));
    /* the target shape: the shape input when given, else new_shape; one -1 takes what is left */
    bool given = false;
    if (op->n_inputs == 2 && op->inputs[1] >= 0) {
        int32_t s = op->inputs[1];
        if ((st = need_const(c, s, "shape", RIP_TFL_INT32, 1)))
            return st;
        n = (size_t)tc_tensor(c, s)->shape[0];
        if (n > RIP_TFL_RANK_MAX)
            return tc_op_fail(c, "shape %s has %zu dimensions: at most %d", tc_label(c, s, l), n, RIP_TFL_RANK_MAX);
        for (size_t i = 0; i < n; i++)
            want[i] = const_int(c, s, (int64_t)i);
        given = true;
    } else if (o->has_new_shape && o->n_new_shape > 0) {
        n = o->n_new_shape;
        if (n > RIP_TFL_RANK_MAX)
            return tc_op_fail(c, "new_shape has %zu dimensions: at most %d", n, RIP_TFL_RANK_MAX);
        for (size_t i = 0; i < n; i++)
            want[i] = o->new_shape[i];
        given = true;
    }
    if (!given)
        return RIP_OK;
    int64_t known = 1;
    int wild = -1;
    for (size_t i = 0; i < n; i++) {
        if (want[i] == -1 && wild < 0)
            wild = (int)i;
        else if (want[i] < 0)
            return tc_op_fail(c, "target shape dimension %lld: at most one -1, others at least 0", (long long)want[i]);
        else if (want[i] > 0 && known > RIP_TFL_TENSOR_BYTES_MAX / want[i])
            return tc_op_fail(c, "target shape too large");
        else
            known *= want[i];
    }
    if (wild >= 0)
        want[wild] = known ? elements(c, in) / known : 0;
    return need_shape(c, out, want, n, "the target shape is");
}

static rip_status op_pad(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    int32_t in = op->inputs[0], p = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], want[RIP_TFL_RANK_MAX];
    char l[80], s[120];
    if ((st = need_act(c, in, "input", 0, false)) || (st = need_act(c, out, "output", 0, false)) ||
        (st = need_same_quant(c, in, out)))
        return st;
    if ((st = need_const(c, p, "paddings", tc_tensor(c, p)->type == RIP_TFL_INT64 ? RIP_TFL_INT64 : RIP_TFL_INT32, 2)))
        return st;
    size_t r = dims(c, in, a);
    if (tc_tensor(c, p)->shape[0] != (int32_t)r || tc_tensor(c, p)->shape[1] != 2)
        return tc_op_fail(c, "paddings %s have shape %s: [%zu,2] needed", tc_label(c, p, l),
                          tc_fmt_shape(tc_tensor(c, p), s, sizeof s), r);
    for (size_t i = 0; i < r; i++) {
        int64_t before = const_int(c, p, 2 * (int64_t)i), after = const_int(c, p, 2 * (int64_t)i + 1);
        if (before < 0 || after < 0 || before > INT32_MAX || after > INT32_MAX)
            return tc_op_fail(c, "padding of dimension %zu is %lld before and %lld after: 0 to 2^31-1 needed", i,
                              (long long)before, (long long)after);
        want[i] = a[i] + before + after;
    }
    return need_shape(c, out, want, r, "the input and paddings give");
}

static rip_status op_transpose(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    int32_t in = op->inputs[0], p = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], want[RIP_TFL_RANK_MAX];
    bool seen[RIP_TFL_RANK_MAX] = {false};
    char l[80];
    if ((st = need_act(c, in, "input", 0, false)) || (st = need_act(c, out, "output", 0, false)) ||
        (st = need_same_quant(c, in, out)) || (st = need_const(c, p, "perm", RIP_TFL_INT32, 1)))
        return st;
    size_t r = dims(c, in, a);
    if (tc_tensor(c, p)->shape[0] != (int32_t)r)
        return tc_op_fail(c, "perm %s has %ld entries for rank %zu", tc_label(c, p, l), (long)tc_tensor(c, p)->shape[0],
                          r);
    for (size_t i = 0; i < r; i++) {
        int64_t v = const_int(c, p, (int64_t)i);
        if (v < 0 || v >= (int64_t)r || seen[v])
            return tc_op_fail(c, "perm %s is not a permutation of 0..%zu", tc_label(c, p, l), r - 1);
        seen[v] = true;
        want[i] = a[v];
    }
    return need_shape(c, out, want, r, "the input and perm give");
}

static rip_status op_concatenation(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    const rip_tfl_concat_opts *o = &op->opt.concat;
    int32_t out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], want[RIP_TFL_RANK_MAX];
    char s1[120], s2[120];
    if ((st = need_act(c, out, "output", 0, false)) || (st = need_activation_fn(c, o->activation)))
        return st;
    for (size_t i = 0; i < op->n_inputs; i++)
        if ((st = need_act(c, op->inputs[i], "input", 0, true)))
            return st;
    size_t r = dims(c, op->inputs[0], want);
    int64_t axis = o->axis < 0 ? o->axis + (int64_t)r : o->axis;
    if (axis < 0 || axis >= (int64_t)r)
        return tc_op_fail(c, "axis %ld outside the inputs' rank %zu", (long)o->axis, r);
    for (size_t i = 1; i < op->n_inputs; i++) {
        size_t ri = dims(c, op->inputs[i], a);
        bool ok = ri == r;
        for (size_t j = 0; ok && j < r; j++)
            ok = (int64_t)j == axis || a[j] == want[j];
        if (!ok)
            return tc_op_fail(c, "input %zu of shape %s does not join input 0 of shape %s along axis %lld", i,
                              tc_fmt_shape(tc_tensor(c, op->inputs[i]), s1, sizeof s1),
                              tc_fmt_shape(tc_tensor(c, op->inputs[0]), s2, sizeof s2), (long long)axis);
        want[axis] += a[axis];
    }
    return need_shape(c, out, want, r, "the inputs joined along the axis give");
}

static rip_status op_resize_nearest(tc_state *c)
{
    const rip_tfl_operator *op = c->op;
    int32_t in = op->inputs[0], sz = op->inputs[1], out = op->outputs[0];
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX], want[4];
    char l[80];
    if ((st = need_act(c, in, "input", 4, false)) || (st = need_act(c, out, "output", 4, false)) ||
        (st = need_same_quant(c, in, out)) || (st = need_const(c, sz, "size", RIP_TFL_INT32, 1)))
        return st;
    if (tc_tensor(c, sz)->shape[0] != 2)
        return tc_op_fail(c, "size %s has %ld entries: [height, width] needed", tc_label(c, sz, l),
                          (long)tc_tensor(c, sz)->shape[0]);
    dims(c, in, a);
    want[0] = a[0];
    want[1] = const_int(c, sz, 0);
    want[2] = const_int(c, sz, 1);
    want[3] = a[3];
    if (want[1] < 1 || want[2] < 1)
        return tc_op_fail(c, "size %lldx%lld: at least 1x1 needed", (long long)want[1], (long long)want[2]);
    return need_shape(c, out, want, 4, "the input and size give");
}

/* QUANTIZE: a float32 model input to int8; DEQUANTIZE: int8 to a float32 model output. */
static rip_status op_quantize(tc_state *c, bool quantize)
{
    const rip_tfl_operator *op = c->op;
    int32_t in = op->inputs[0], out = op->outputs[0];
    int32_t fl = quantize ? in : out, q = quantize ? out : in;
    rip_status st;
    int64_t a[RIP_TFL_RANK_MAX];
    char l[80], w[24];
    const rip_tfl_tensor *f = tc_tensor(c, fl);
    if (f->type != RIP_TFL_FLOAT32)
        return tc_op_fail(c, "%s %s is %s: %s is supported only %s a float32 model %s", quantize ? "input" : "output",
                          tc_label(c, fl, l), tc_type_word(f->type, w, sizeof w), quantize ? "QUANTIZE" : "DEQUANTIZE",
                          quantize ? "from" : "to", quantize ? "input" : "output");
    if (quantize ? !c->is_input[fl] : !c->is_output[fl])
        return tc_op_fail(c, "%s %s is float32 but not a model %s: float tensors only at the model's edges",
                          quantize ? "input" : "output", tc_label(c, fl, l), quantize ? "input" : "output");
    if (tc_is_const(c, fl))
        return tc_op_fail(c, "%s is a constant", tc_label(c, fl, l));
    if ((st = need_act(c, q, quantize ? "output" : "input", 0, false)))
        return st;
    size_t r = dims(c, in, a);
    return need_shape(c, out, a, r, "the input has");
}

/* How many inputs the operator takes (and one output): before any input is looked at. */
rip_status tc_operator_counts(tc_state *c)
{
    size_t lo = 1, hi = 1;
    switch (c->builtin) {
    case RIP_TFL_OP_CONV_2D:
    case RIP_TFL_OP_DEPTHWISE_CONV_2D:
    case RIP_TFL_OP_FULLY_CONNECTED:
        lo = 2, hi = 3; /* input, weights, optional bias */
        break;
    case RIP_TFL_OP_ADD:
    case RIP_TFL_OP_MEAN:
    case RIP_TFL_OP_PAD:
    case RIP_TFL_OP_TRANSPOSE:
    case RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR: lo = hi = 2; break;
    case RIP_TFL_OP_RESHAPE:
        hi = 2; /* the shape input is optional */
        break;
    case RIP_TFL_OP_CONCATENATION: hi = SIZE_MAX; break;
    }
    return need_counts(c, lo, hi);
}

rip_status tc_operator_rules(tc_state *c)
{
    rip_status st;
    switch (c->builtin) {
    case RIP_TFL_OP_CONV_2D: st = op_conv(c); break;
    case RIP_TFL_OP_DEPTHWISE_CONV_2D: st = op_depthwise(c); break;
    case RIP_TFL_OP_FULLY_CONNECTED: st = op_fully_connected(c); break;
    case RIP_TFL_OP_AVERAGE_POOL_2D:
    case RIP_TFL_OP_MAX_POOL_2D: st = op_pool(c); break;
    case RIP_TFL_OP_ADD: st = op_add(c); break;
    case RIP_TFL_OP_MEAN: st = op_mean(c); break;
    case RIP_TFL_OP_SOFTMAX: st = op_softmax(c); break;
    case RIP_TFL_OP_RESHAPE: st = op_reshape(c); break;
    case RIP_TFL_OP_PAD: st = op_pad(c); break;
    case RIP_TFL_OP_TRANSPOSE: st = op_transpose(c); break;
    case RIP_TFL_OP_CONCATENATION: st = op_concatenation(c); break;
    case RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR: st = op_resize_nearest(c); break;
    case RIP_TFL_OP_QUANTIZE: st = op_quantize(c, true); break;
    case RIP_TFL_OP_DEQUANTIZE: st = op_quantize(c, false); break;
    default: st = tc_op_fail(c, "not supported"); /* unreachable: checked first */
    }
    return st;
}
