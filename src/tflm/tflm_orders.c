/*
** tflm_orders.c — an operator of a checked TFLite model as the kernel
** order TFLM runs it with (tflm_orders.h), and its gap by the trace engine.
**
** Geometry as TFLM computes it: NHWC shapes from the tensors, padding from
** SAME/VALID by TFLite's arithmetic (rip_tfl_window: the padding before is
** TFLM's padding.height / .width), strides and dilations from the options,
** PAD's padding before each axis from its constant paddings tensor,
** the depth multiplier as c_out / c_in (TFLM's depthwise uses the output
** depth), FULLY_CONNECTED's batches = input elements / accum_depth.
*/
#include "tflm_orders.h"

#include <stdio.h>
#include <string.h>

#include "tfl_check.h"

static const rip_tfl_tensor *tensor_of(const rip_tfl_subgraph *sg, int32_t t)
{
    return t >= 0 && (size_t)t < sg->n_tensors ? &sg->tensors[t] : NULL;
}

static bool is_nhwc(const rip_tfl_tensor *t)
{
    return t != NULL && t->rank == 4 && t->type == RIP_TFL_INT8;
}

/* The window geometry of a conv-like operator into g; false when TFLite's arithmetic refuses it. */
static bool window(rip_kgeom *g, int padding, int64_t s_h, int64_t s_w, int64_t d_h, int64_t d_w)
{
    int64_t out, before, after;
    g->s_h = s_h;
    g->s_w = s_w;
    g->d_h = d_h;
    g->d_w = d_w;
    if (!rip_tfl_window(padding, g->h_in, g->k_h, s_h, d_h, &out, &before, &after) || out != g->h_out)
        return false;
    g->pad_top = before;
    if (!rip_tfl_window(padding, g->w_in, g->k_w, s_w, d_w, &out, &before, &after) || out != g->w_out)
        return false;
    g->pad_left = before;
    return true;
}

/* in, out NHWC int8 into g's sizes. */
static void sizes(rip_kgeom *g, const rip_tfl_tensor *in, const rip_tfl_tensor *out)
{
    g->batches = in->shape[0];
    g->h_in = in->shape[1];
    g->w_in = in->shape[2];
    g->c_in = in->shape[3];
    g->h_out = out->shape[1];
    g->w_out = out->shape[2];
    g->c_out = out->shape[3];
    g->groups = 1;
    g->depth_mult = 1;
}

static bool conv_order(const rip_tfl_operator *o, const rip_tfl_subgraph *sg, rip_tflm_lib lib, rip_kctx *c)
{
    const rip_tfl_tensor *in = tensor_of(sg, o->inputs[0]), *f = tensor_of(sg, o->inputs[1]),
                         *out = tensor_of(sg, o->outputs[0]);
    if (!is_nhwc(in) || !is_nhwc(out) || f == NULL || f->rank != 4 || f->shape[3] < 1)
        return false;
    sizes(&c->g, in, out);
    c->g.k_h = f->shape[1];
    c->g.k_w = f->shape[2];
    if (c->g.c_in % f->shape[3])
        return false;
    c->g.groups = c->g.c_in / f->shape[3];
    const rip_tfl_conv_opts *p = &o->opt.conv;
    if (!window(&c->g, p->padding, p->stride_h, p->stride_w, p->dilation_h, p->dilation_w))
        return false;
    c->order = lib == RIP_TFLM_REFERENCE ? RIP_KO_REF_CONV : rip_cmsis_conv_pick(&c->g);
    return true;
}

static bool dw_order(const rip_tfl_operator *o, const rip_tfl_subgraph *sg, rip_tflm_lib lib, bool dsp, rip_kctx *c)
{
    const rip_tfl_tensor *in = tensor_of(sg, o->inputs[0]), *f = tensor_of(sg, o->inputs[1]),
                         *out = tensor_of(sg, o->outputs[0]);
    if (!is_nhwc(in) || !is_nhwc(out) || f == NULL || f->rank != 4)
        return false;
    sizes(&c->g, in, out);
    c->g.k_h = f->shape[1];
    c->g.k_w = f->shape[2];
    if (c->g.c_out % c->g.c_in)
        return false;
    c->g.depth_mult = c->g.c_out / c->g.c_in;
    const rip_tfl_dw_opts *p = &o->opt.dw;
    if (!window(&c->g, p->padding, p->stride_h, p->stride_w, p->dilation_h, p->dilation_w))
        return false;
    c->order = lib == RIP_TFLM_REFERENCE ? RIP_KO_REF_DW : rip_cmsis_dw_pick(&c->g, dsp);
    return true;
}

static bool pool_order(const rip_tfl_operator *o, const rip_tfl_subgraph *sg, rip_tflm_lib lib, bool max,
                       bool dsp, rip_kctx *c)
{
    const rip_tfl_tensor *in = tensor_of(sg, o->inputs[0]), *out = tensor_of(sg, o->outputs[0]);
    if (!is_nhwc(in) || !is_nhwc(out))
        return false;
    sizes(&c->g, in, out);
    const rip_tfl_pool_opts *p = &o->opt.pool;
    c->g.k_h = p->filter_h;
    c->g.k_w = p->filter_w;
    if (!window(&c->g, p->padding, p->stride_h, p->stride_w, 1, 1))
        return false;
    if (lib == RIP_TFLM_REFERENCE)
        c->order = RIP_KO_REF_POOL;
    else if (max)
        c->order = RIP_KO_CMSIS_MAXPOOL;
    else
        c->order = dsp ? RIP_KO_CMSIS_AVGPOOL_DSP : RIP_KO_CMSIS_AVGPOOL;
    return true;
}

static bool fc_order(const rip_tfl_operator *o, const rip_tfl_subgraph *sg, rip_tflm_lib lib, bool dsp, rip_kctx *c)
{
    const rip_tfl_tensor *in = tensor_of(sg, o->inputs[0]), *f = tensor_of(sg, o->inputs[1]),
                         *out = tensor_of(sg, o->outputs[0]);
    int64_t n_in, bytes;
    if (in == NULL || f == NULL || out == NULL || in->type != RIP_TFL_INT8 || out->type != RIP_TFL_INT8 ||
        f->rank != 2 || f->shape[1] < 1 || !rip_tfl_tensor_bytes(in, &n_in, &bytes) || n_in % f->shape[1])
        return false;
    rip_kgeom *g = &c->g;
    g->c_in = f->shape[1];
    g->c_out = f->shape[0];
    g->batches = n_in / g->c_in;
    g->h_in = g->w_in = g->h_out = g->w_out = 1;
    g->k_h = g->k_w = g->s_h = g->s_w = g->d_h = g->d_w = 1;
    g->groups = g->depth_mult = 1;
    if (lib == RIP_TFLM_REFERENCE)
        c->order = RIP_KO_REF_FC;
    else if (out->rank > 2 && g->c_in % 4 == 0)
        c->order = RIP_KO_CMSIS_1X1_FAST;     /* fully_connected.cc: "output_dim_count > 2" */
    else
        c->order = dsp ? RIP_KO_CMSIS_FC_DSP : RIP_KO_CMSIS_FC;
    return true;
}

static bool add_order(const rip_tfl_operator *o, const rip_tfl_subgraph *sg, rip_tflm_lib lib, bool dsp, rip_kctx *c)
{
    const rip_tfl_tensor *a = tensor_of(sg, o->inputs[0]), *b = tensor_of(sg, o->inputs[1]),
                         *out = tensor_of(sg, o->outputs[0]);
    int64_t na, nb, no, bytes;
    if (a == NULL || b == NULL || out == NULL || a->type != RIP_TFL_INT8 || out->type != RIP_TFL_INT8 ||
        !rip_tfl_tensor_bytes(a, &na, &bytes) || !rip_tfl_tensor_bytes(b, &nb, &bytes) ||
        !rip_tfl_tensor_bytes(out, &no, &bytes) || na != nb || na != no || a->rank != b->rank)
        return false;
    for (size_t i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;                     /* broadcast: BroadcastAdd*Slow, not modelled */
    c->g.n_elem = na;
    if (lib == RIP_TFLM_REFERENCE)
        c->order = RIP_KO_REF_ADD;
    else
        c->order = dsp ? RIP_KO_CMSIS_ADD_DSP : RIP_KO_CMSIS_ADD;
    return true;
}

/* PAD of an int8 tensor of rank 1 to 4 (TFLM's cmsis_nn/pad.cc takes at most 4; shorter shapes are
** extended with leading ones by both kernels), its paddings constant [rank, 2]. */
static bool pad_order(const rip_tfl_model *m, const rip_tfl_operator *o, const rip_tfl_subgraph *sg,
                      rip_tflm_lib lib, rip_kctx *c)
{
    const rip_tfl_tensor *in = tensor_of(sg, o->inputs[0]), *p = o->n_inputs > 1 ? tensor_of(sg, o->inputs[1]) : NULL,
                         *out = tensor_of(sg, o->outputs[0]);
    if (in == NULL || p == NULL || out == NULL || in->type != RIP_TFL_INT8 || out->type != RIP_TFL_INT8 ||
        in->rank < 1 || in->rank > 4 || out->rank != in->rank || !rip_tfl_is_constant(m, p) || p->rank != 2 ||
        p->shape[0] != (int32_t)in->rank || p->shape[1] != 2)
        return false;
    int64_t ext_in[4] = { 1, 1, 1, 1 }, ext_out[4] = { 1, 1, 1, 1 }, before[4] = { 0, 0, 0, 0 };
    const size_t lead = 4 - in->rank;
    for (size_t i = 0; i < in->rank; i++) {
        ext_in[lead + i] = in->shape[i];
        ext_out[lead + i] = out->shape[i];
        before[lead + i] = rip_tfl_const_int(m, p, 2 * (int64_t)i);
    }
    rip_kgeom *g = &c->g;
    g->batches = ext_in[0], g->h_in = ext_in[1], g->w_in = ext_in[2], g->c_in = ext_in[3];
    g->batches_out = ext_out[0], g->h_out = ext_out[1], g->w_out = ext_out[2], g->c_out = ext_out[3];
    g->pad_batch = before[0], g->pad_top = before[1], g->pad_left = before[2], g->pad_depth = before[3];
    c->order = lib == RIP_TFLM_REFERENCE ? RIP_KO_REF_PAD : RIP_KO_CMSIS_PAD;
    return true;
}

/* QUANTIZE of a float32 tensor to int8 (quantize.cc's AffineQuantize in both builds; int8 -> int8
** requantization and the other type pairs are not modelled). */
static bool quantize_order(const rip_tfl_operator *o, const rip_tfl_subgraph *sg, rip_kctx *c)
{
    const rip_tfl_tensor *in = tensor_of(sg, o->inputs[0]), *out = tensor_of(sg, o->outputs[0]);
    int64_t n_in, n_out, bytes;
    if (in == NULL || out == NULL || in->type != RIP_TFL_FLOAT32 || out->type != RIP_TFL_INT8 ||
        !rip_tfl_tensor_bytes(in, &n_in, &bytes) || !rip_tfl_tensor_bytes(out, &n_out, &bytes) || n_in != n_out)
        return false;
    c->g.n_elem = n_in;
    c->g.in_bytes = 4;
    c->order = RIP_KO_REF_QUANTIZE;
    return true;
}

/* Contract (tflm_orders.h). */
bool rip_tflm_order(const rip_tfl_model *m, size_t op, int k, rip_tflm_lib lib, bool dsp, rip_kctx *ctx)
{
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    const rip_tfl_operator *o = &sg->operators[op];
    const rip_tfl_opcode *code = rip_tfl_op_code(m, o);
    memset(ctx, 0, sizeof *ctx);
    const rip_tfl_tensor *in = tensor_of(sg, o->inputs[k]);
    if (code == NULL || in == NULL || o->n_outputs < 1 || !o->options_decoded || rip_tfl_is_constant(m, in))
        return false;
    const bool data_input = k == 0 || (code->builtin == RIP_TFL_OP_ADD && k == 1);
    if (!data_input)
        return false;
    switch (code->builtin) {
    case RIP_TFL_OP_CONV_2D: return conv_order(o, sg, lib, ctx);
    case RIP_TFL_OP_DEPTHWISE_CONV_2D: return dw_order(o, sg, lib, dsp, ctx);
    case RIP_TFL_OP_AVERAGE_POOL_2D: return pool_order(o, sg, lib, false, dsp, ctx);
    case RIP_TFL_OP_MAX_POOL_2D: return pool_order(o, sg, lib, true, dsp, ctx);
    case RIP_TFL_OP_FULLY_CONNECTED: return fc_order(o, sg, lib, dsp, ctx);
    case RIP_TFL_OP_ADD: return add_order(o, sg, lib, dsp, ctx);
    case RIP_TFL_OP_PAD: return pad_order(m, o, sg, lib, ctx);
    case RIP_TFL_OP_QUANTIZE: return quantize_order(o, sg, ctx);
    default: return false;
    }
}

/* Contract (tflm_orders.h). */
rip_status rip_kctx_gap(const rip_kctx *ctx, int64_t *gap, char err[RIP_ERR_LEN])
{
    rip_kt_kernel k;
    if (!rip_korder_kernel(ctx, &k)) {
        *gap = -1;
        return RIP_OK;
    }
    return rip_kt_gap(&k, gap, err);
}

/* Contract (tflm_orders.h). */
rip_status rip_tflm_overlap_gap(const rip_tfl_model *m, size_t op, int k, rip_tflm_lib lib,
                                int64_t *gap, char err[RIP_ERR_LEN])
{
    if (m == NULL || m->n_subgraphs < 1 || op >= m->subgraphs[0].n_operators) {
        snprintf(err, RIP_ERR_LEN, "%s: operator %zu: out of range", m && m->label ? m->label : "model", op);
        return RIP_S_DATA;
    }
    const rip_tfl_operator *o = &m->subgraphs[0].operators[op];
    if (k < 0 || (size_t)k >= o->n_inputs || o->inputs[k] < 0) {
        snprintf(err, RIP_ERR_LEN, "%s: operator %zu: input %d: out of range", m->label, op, k);
        return RIP_S_DATA;
    }
    if (lib != RIP_TFLM_REFERENCE && lib != RIP_TFLM_CMSIS_NN) {
        snprintf(err, RIP_ERR_LEN, "%s: operator %zu: unknown kernel library %d", m->label, op, (int)lib);
        return RIP_S_DATA;
    }
    int64_t worst = -2;
    for (int dsp = 0; dsp <= (lib == RIP_TFLM_CMSIS_NN); dsp++) {
        rip_kctx ctx;
        int64_t g = -1;
        if (rip_tflm_order(m, op, k, lib, dsp, &ctx)) {
            const rip_status st = rip_kctx_gap(&ctx, &g, err);
            if (st != RIP_OK)
                return st;
        }
        if (g < 0 || worst == -1)
            worst = -1;
        else if (g > worst)
            worst = g;
    }
    *gap = worst;
    return RIP_OK;
}
