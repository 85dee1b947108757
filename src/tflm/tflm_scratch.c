/*
** tflm_scratch.c — TFLM's scratch requests per operator and the head of
** its arena (tflm_scratch.h, which cites the kernels each rule is read from).
*/
#include "tflm_scratch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfl_check.h"

/* At most this many requests per operator here (MEAN's three; TFLM allows 12). */
#define MAX_PER_OP 3

static const rip_tfl_tensor *tensor_at(const rip_tfl_subgraph *sg, const rip_tfl_operator *o, bool out, size_t k)
{
    size_t n = out ? o->n_outputs : o->n_inputs;
    int32_t t = k < n ? (out ? o->outputs : o->inputs)[k] : -1;
    return t >= 0 && (size_t)t < sg->n_tensors ? &sg->tensors[t] : NULL;
}

static int64_t elements(const rip_tfl_tensor *t)
{
    int64_t e = 1;
    for (size_t i = 0; i < t->rank; i++)
        e *= t->shape[i];
    return e;
}

static int64_t align4(int64_t v)
{
    return (v + 3) / 4 * 4;
}

/* One operator's requests: req[*n] appended; false with why when not modelled. */
typedef struct op_req {
    int64_t req[MAX_PER_OP];
    size_t n;
    const char *why;
} op_req;

static void add(op_req *r, int64_t bytes)
{
    r->req[r->n++] = bytes;
}

/* MEAN, SUM, REDUCE_MAX, REDUCE_MIN (reduce_common.cc), both libraries. */
static void reduce_req(const rip_tfl_tensor *in, const rip_tfl_tensor *axis, const rip_tfl_tensor *out, bool mean_sum,
                       op_req *r)
{
    if (mean_sum && (in->type == RIP_TFL_INT8 || in->type == RIP_TFL_INT16))
        add(r, 4 * elements(out));
    add(r, 4 * (int64_t)in->rank);
    add(r, 4 * elements(axis));
}

/* The padding before rows and columns (TFLM's padding.height / .width) of a
** window of filter f over NHWC input in; false when either is not rank 4 or
** TFLite's arithmetic refuses the window. */
static bool padding_before(const rip_tfl_tensor *in, const rip_tfl_tensor *f, int padding, int64_t s_h, int64_t s_w,
                           int64_t d_h, int64_t d_w, int64_t *ph, int64_t *pw)
{
    int64_t out, after;
    return in->rank == 4 && f->rank == 4 &&
           rip_tfl_window(padding, in->shape[1], f->shape[1], s_h, d_h, &out, ph, &after) &&
           rip_tfl_window(padding, in->shape[2], f->shape[2], s_w, d_w, &out, pw, &after);
}

/* CONV_2D under CMSIS-NN: arm_convolve_wrapper_s8_get_buffer_size, non-MVE (host and DSP alike). */
static void cmsis_conv_req(const rip_tfl_operator *o, const rip_tfl_tensor *in, const rip_tfl_tensor *f, op_req *r)
{
    const rip_tfl_conv_opts *p = &o->opt.conv;
    int64_t ph, pw;
    if (!padding_before(in, f, p->padding, p->stride_h, p->stride_w, p->dilation_h, p->dilation_w, &ph, &pw)) {
        r->why = "its geometry is not one TFLite computes";
        return;
    }
    if (ph == 0 && pw == 0 && f->shape[1] == 1 && f->shape[2] == 1 && p->dilation_h == 1 && p->dilation_w == 1)
        return;
    add(r, 2 * align4((int64_t)f->shape[1] * f->shape[2] * in->shape[3]) * 2);
}

/* DEPTHWISE_CONV_2D under CMSIS-NN: arm_depthwise_conv_wrapper_s8_get_buffer_size, non-MVE. */
static void cmsis_dw_req(const rip_tfl_operator *o, const rip_tfl_tensor *in, const rip_tfl_tensor *f,
                         const rip_tfl_tensor *out, bool dsp, op_req *r)
{
    const rip_tfl_dw_opts *p = &o->opt.dw;
    int64_t ph, pw;
    if (out->rank != 4 ||
        !padding_before(in, f, p->padding, p->stride_h, p->stride_w, p->dilation_h, p->dilation_w, &ph, &pw)) {
        r->why = "its geometry is not one TFLite computes";
        return;
    }
    if (!dsp || in->shape[3] != out->shape[3] || in->shape[0] != 1 || p->dilation_h != 1 || p->dilation_w != 1)
        return;
    if (f->shape[1] == 3 && f->shape[2] == 3 && ph <= 1 && pw <= 1)
        return;
    add(r, (int64_t)in->shape[3] * f->shape[1] * f->shape[2] * 2);
}

/* FULLY_CONNECTED under CMSIS-NN (cmsis_nn/fully_connected.cc Prepare), non-MVE. */
static void cmsis_fc_req(const rip_tfl_tensor *f, const rip_tfl_tensor *out, op_req *r)
{
    if (f->rank < 1 || out->rank < 1) {
        r->why = "a filter or output without dimensions";
        return;
    }
    const int64_t accum_depth = f->shape[f->rank - 1], output_depth = out->shape[out->rank - 1];
    const bool per_channel = f->quant.present && f->quant.n_scale > 1;
    if (out->rank > 2 && accum_depth % 4 == 0 && !per_channel)
        add(r, output_depth * 4 * 2);
}

/* The requests of operator o (lib, dsp) into r. */
static void op_requests(const rip_tfl_subgraph *sg, const rip_tfl_operator *o, const char *name, rip_tflm_lib lib,
                        bool dsp, op_req *r)
{
    const rip_tfl_tensor *in = tensor_at(sg, o, false, 0), *in1 = tensor_at(sg, o, false, 1),
                         *out = tensor_at(sg, o, true, 0);
    const bool cmsis = lib == RIP_TFLM_CMSIS_NN;
    if (!strcmp(name, "MEAN") || !strcmp(name, "SUM") || !strcmp(name, "REDUCE_MAX") || !strcmp(name, "REDUCE_MIN")) {
        if (in == NULL || in1 == NULL || out == NULL)
            r->why = "an input or the output is missing";
        else
            reduce_req(in, in1, out, !strcmp(name, "MEAN") || !strcmp(name, "SUM"), r);
        return;
    }
    if (!strcmp(name, "TRANSPOSE_CONV") || !strcmp(name, "SVDF") || !strcmp(name, "UNIDIRECTIONAL_SEQUENCE_LSTM") ||
        !strcmp(name, "BATCH_MATMUL") || !strcmp(name, "REDUCE_PROD")) {
        r->why = "its kernels' scratch requests are not modelled";
        return;
    }
    const bool conv = !strcmp(name, "CONV_2D"), dw = !strcmp(name, "DEPTHWISE_CONV_2D"),
               fc = !strcmp(name, "FULLY_CONNECTED"), avg = !strcmp(name, "AVERAGE_POOL_2D");
    if (!conv && !dw && !fc && !avg)
        return;   /* no kernel of this operator requests scratch */
    if (in == NULL || out == NULL || (!avg && in1 == NULL)) {
        r->why = "an input or the output is missing";
        return;
    }
    if (!avg && in1->type == RIP_TFL_INT4) {
        r->why = "int4 filters (unpacked into scratch) are not modelled";
        return;
    }
    if (!cmsis)
        return;   /* the reference kernels request only for int4 filters */
    if (in->type != RIP_TFL_INT8) {
        if (in->type == RIP_TFL_INT16)
            r->why = "CMSIS-NN's int16 kernels' scratch is not modelled";
        return;   /* float32: the reference kernel, no request */
    }
    if (avg) {
        if (dsp && in->rank == 4)
            add(r, 4 * (int64_t)in->shape[3]);
        else if (in->rank != 4)
            r->why = "an input of rank other than 4";
    } else if (!o->options_decoded && !fc) {
        r->why = "its options are not decoded";
    } else if (conv) {
        cmsis_conv_req(o, in, in1, r);
    } else if (dw) {
        cmsis_dw_req(o, in, in1, out, dsp, r);
    } else {
        cmsis_fc_req(in1, out, r);
    }
}

rip_status rip_tflm_scratch_build(const rip_tfl_model *m, rip_tflm_lib lib, bool dsp, rip_tflm_scratch *s,
                                  char err[RIP_ERR_LEN])
{
    memset(s, 0, sizeof *s);
    s->unmodelled_op = -1;
    if (m->n_subgraphs < 1) {
        snprintf(err, RIP_ERR_LEN, "%s: no subgraph", m->label);
        return RIP_S_DATA;
    }
    const rip_tfl_subgraph *sg = &m->subgraphs[0];
    const size_t cap = sg->n_operators * MAX_PER_OP + 1;
    s->op = malloc(cap * sizeof *s->op);
    s->bytes = malloc(cap * sizeof *s->bytes);
    if (!s->op || !s->bytes) {
        rip_tflm_scratch_free(s);
        snprintf(err, RIP_ERR_LEN, "scratch requests: out of memory");
        return RIP_S_NOMEM;
    }
    for (size_t i = 0; i < sg->n_operators; i++) {
        const rip_tfl_operator *o = &sg->operators[i];
        const rip_tfl_opcode *c = rip_tfl_op_code(m, o);
        const char *name = c ? rip_tfl_op_name(c->builtin) : NULL;
        op_req r = {.n = 0};
        if (name == NULL)
            r.why = "its operator code is not in the schema";
        else if (c->builtin == RIP_TFL_OP_CUSTOM)
            r.why = "a custom operator's kernel is not known";
        else
            op_requests(sg, o, name, lib, dsp, &r);
        if (r.why != NULL) {
            if (s->unmodelled_op < 0) {
                s->unmodelled_op = (long)i;
                snprintf(s->why, sizeof s->why, "operator %zu (%s): %s", i, name ? name : "?", r.why);
            }
            continue;
        }
        for (size_t k = 0; k < r.n; k++) {
            if (r.req[k] <= 0)
                continue;
            s->op[s->n] = i;
            s->bytes[s->n++] = r.req[k];
            s->total += r.req[k];
        }
    }
    return RIP_OK;
}

void rip_tflm_scratch_free(rip_tflm_scratch *s)
{
    free(s->op);
    free(s->bytes);
    s->op = NULL, s->bytes = NULL, s->n = 0;
}

rip_status rip_tflm_head(const rip_tflm_alloc *a, const int64_t *offline, const rip_tflm_scratch *s, int64_t *head,
                         char err[RIP_ERR_LEN])
{
    const size_t ns = s ? s->n : 0, n = a->n + ns;
    rip_tflm_alloc x = *a;
    x.n = n;
    x.buf = malloc((n + 1) * sizeof *x.buf);
    int64_t *off = malloc((n + 1) * sizeof *off), *fixed = malloc((n + 1) * sizeof *fixed);
    rip_status st = RIP_S_NOMEM;
    if (!x.buf || !off || !fixed) {
        snprintf(err, RIP_ERR_LEN, "arena head: out of memory");
        goto done;
    }
    memcpy(x.buf, a->buf, a->n * sizeof *x.buf);
    for (size_t i = 0; i < a->n; i++)
        fixed[i] = offline ? offline[i] : -1;
    for (size_t i = 0; i < ns; i++) {
        const int scope = (int)s->op[i] + 1;
        x.buf[a->n + i] = (rip_tflm_buf){.tensor = -1, .bytes = s->bytes[i],
                                         .size = rip_tflm_placed_size(s->bytes[i]),
                                         .first = scope, .last = scope};
        fixed[a->n + i] = -1;
    }
    st = rip_tflm_greedy(&x, fixed, off, head, err);
done:
    free(x.buf);
    free(off);
    free(fixed);
    return st;
}
