/*
** cg_model.c — the parameters of a generated model (codegen.h): drawn
** from PCG32 and calibrated on a dual-buffer run of the graph, which is
** kept as the reference output.
**
** Stream: PCG32 seeded with (seed XOR FNV-1a-64 of the graph's name,
** sequence 0x434f444547454e = "CODEGEN"), so each model has its own weights
** for one --seed.  Draws, in graph order and never depending on the plan:
**   the input zero point in [-12, 12], the input uniform int8;
**   conv2d, pointwise, depthwise, fc: the output zero point in [-12, 12],
**     the weights uniform in [-127, 127] (TFLite's symmetric int8 weights,
**     filter order of the kernel), then per output channel a target mean
**     mu in [-12, 12];
**   add: the output zero point in [-12, 12], the two input multipliers in
**     [2^30, 2^31 - 1] (scales in [0.5, 1), shift 0);
**   pools and upsample keep their input's quantization: no draw.
** Calibration (why: random weights with a scale from the fan-in alone
** shrink or blow up the activations over 50 layers; a scale from the
** statistics the layer really sees keeps every tensor spread over the int8
** range, as post-training quantization calibrates real models): with m
** the mean of (x - z_in) and v the variance of x over the whole input
** tensor, output channel oc with weights w gets
**   scale_oc = 28 / sqrt(v * sum w^2),   bias_oc = mu / scale_oc - m * sum w,
** so its values have about standard deviation 28 around z_out + mu (4.5
** standard deviations inside [-128, 127]: few clamps, many codes).  An add
** gets the output scale 28 / (2^20 sqrt(r1^2 v1 + r2^2 v2)).  A scale is a
** Q31 multiplier in [2^30, 2^31) and a shift, as TFLite's.  Only IEEE
** double +, *, /, sqrt and integer sums enter, so the bytes are the same
** on every run.
**
** The activation clamp is the full int8 range (no ReLU): the network is a
** seeded stand-in for MCUNet's arithmetic and memory traffic, not a
** classifier.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cg_internal.h"
#include "pcg32.h"
#include "rk_crc32.h"
#include "rk_depthwise.h"
#include "rk_pointwise.h"

#define TARGET_STD 28.0
#define ZP_RANGE 12
#define MU_RANGE 12
#define CG_SEQUENCE UINT64_C(0x434f444547454e)

/* FNV-1a, 64 bits, of a string. */
static uint64_t fnv1a64(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= UINT64_C(1099511628211);
    }
    return h;
}

/* ---- the blob ---- */

/* The int32 array stored at offset off (host order). */
static const int32_t *blob_i32(const rip_cg_model *m, int64_t off)
{
    return (const int32_t *)(const void *)(m->blob.b + off);
}

/* ---- statistics and scales ---- */

/* Mean of (x - z) and variance of x over n values. */
static void tensor_stats(const int8_t *x, int64_t n, int32_t z, double *mean, double *var)
{
    int64_t s1 = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++) {
        s1 += x[i];
        s2 += (int64_t)x[i] * x[i];
    }
    double mu = (double)s1 / (double)n;
    *mean = mu - (double)z;
    *var = (double)s2 / (double)n - mu * mu;
    if (*var < 1.0)
        *var = 1.0; /* a constant tensor: any scale; keep it finite */
}

/* A real scale as TFLite's Q31 multiplier in [2^30, 2^31) and shift in
** [-31, 30] (scale = multiplier * 2^(shift - 31)). */
static void to_multiplier(double scale, int32_t *mult, int32_t *shift)
{
    int e = 0;
    double f = frexp(scale, &e); /* scale = f * 2^e, f in [0.5, 1) */
    int64_t q = llround(f * 2147483648.0);
    if (q >= ((int64_t)1 << 31)) {
        q >>= 1;
        e++;
    }
    if (e > 30) {
        e = 30;
        q = INT32_MAX;
    }
    while (e < -31) { /* tiny scales: fewer significant bits */
        q >>= 1;
        e++;
    }
    *mult = (int32_t)q;
    *shift = e;
}

/* Bias, multiplier and shift of one output channel (file comment). */
static void calibrate(double m, double v, int64_t sw, int64_t sw2, int32_t mu, int32_t *bias, int32_t *mult,
                      int32_t *shift)
{
    double var = v * (double)(sw2 > 0 ? sw2 : 1);
    double scale = TARGET_STD / sqrt(var);
    double b = (double)mu / scale - m * (double)sw;
    const double lim = 1073741824.0; /* 2^30: far from the accumulator's range */
    if (b > lim)
        b = lim;
    if (b < -lim)
        b = -lim;
    *bias = (int32_t)llround(b);
    to_multiplier(scale, mult, shift);
}

static int32_t draw_zp(rip_pcg32 *g)
{
    return (int32_t)rip_pcg32_range(g, -ZP_RANGE, ZP_RANGE);
}

static rk_dims dims(int64_t h, int64_t w, int64_t c)
{
    rk_dims d = {(int32_t)h, (int32_t)w, (int32_t)c};
    return d;
}

static const rk_act full_act = {-128, 127};

/* ---- one operator ---- */

/* The filter layout of a conv-like op: n_w bytes, cout channels, the taps
** weights of channel oc at filter[oc * per_oc + k * stride], k < taps. */
typedef struct wshape {
    int64_t n_w, cout, taps, stride, per_oc;
} wshape;

/*
** Draw the filter, then each channel's target mean, calibrate each
** channel against the input x (n_x values, zero point z_in), and store
** bias, multipliers, shifts and filter in the blob (offsets into *o).
** RIP_OK or RIP_S_NOMEM with err.
*/
static rip_status conv_like(rip_cg_model *m, rip_pcg32 *g, rip_cg_op *o, const wshape *ws, const int8_t *x,
                            int64_t n_x, int32_t z_in, char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    int8_t *w = malloc((size_t)ws->n_w);
    int32_t *bias = malloc((size_t)ws->cout * sizeof *bias);
    int32_t *mult = malloc((size_t)ws->cout * sizeof *mult);
    int32_t *shift = malloc((size_t)ws->cout * sizeof *shift);
    if (!w || !bias || !mult || !shift) {
        snprintf(err, RIP_ERR_LEN, "out of memory drawing weights");
        s = RIP_S_NOMEM;
        goto done;
    }
    for (int64_t i = 0; i < ws->n_w; i++)
        w[i] = (int8_t)rip_pcg32_range(g, -127, 127);
    double mean, var;
    tensor_stats(x, n_x, z_in, &mean, &var);
    for (int64_t oc = 0; oc < ws->cout; oc++) {
        int32_t mu = (int32_t)rip_pcg32_range(g, -MU_RANGE, MU_RANGE);
        int64_t sw = 0, sw2 = 0;
        for (int64_t k = 0; k < ws->taps; k++) {
            int64_t v = w[oc * ws->per_oc + k * ws->stride];
            sw += v;
            sw2 += v * v;
        }
        calibrate(mean, var, sw, sw2, mu, &bias[oc], &mult[oc], &shift[oc]);
    }
    o->off_bias = rip_cg_blob_add_i32(&m->blob, bias, (size_t)ws->cout);
    o->off_mult = o->off_bias < 0 ? -1 : rip_cg_blob_add_i32(&m->blob, mult, (size_t)ws->cout);
    o->off_shift = o->off_mult < 0 ? -1 : rip_cg_blob_add_i32(&m->blob, shift, (size_t)ws->cout);
    o->off_filter = o->off_shift < 0 ? -1 : rip_cg_blob_add(&m->blob, w, (size_t)ws->n_w, 4);
    if (o->off_filter < 0) {
        snprintf(err, RIP_ERR_LEN, "out of memory building the weight blob");
        s = RIP_S_NOMEM;
    }
done:
    free(w);
    free(bias);
    free(mult);
    free(shift);
    return s;
}

/* Fill o's geometry from the graph op (kernel parameters, no quantization). */
static void geometry(const rip_op *op, rip_cg_op *o)
{
    memset(o, 0, sizeof *o);
    o->off_filter = o->off_bias = o->off_mult = o->off_shift = -1;
    o->in = dims(op->h_in, op->w_in, op->c_in);
    o->out = dims(op->h_out, op->w_out, op->c_out);
    rk_conv_params *c = &o->conv;
    c->k_h = (int32_t)op->k_h, c->k_w = (int32_t)op->k_w, c->s_h = (int32_t)op->s_h, c->s_w = (int32_t)op->s_w;
    c->d_h = (int32_t)op->d_h, c->d_w = (int32_t)op->d_w;
    c->p_top = (int32_t)op->p_top, c->p_bottom = (int32_t)op->p_bottom;
    c->p_left = (int32_t)op->p_left, c->p_right = (int32_t)op->p_right;
    c->act = full_act;
    rk_pool_params *p = &o->pool;
    p->k_h = c->k_h, p->k_w = c->k_w, p->s_h = c->s_h, p->s_w = c->s_w;
    p->p_top = c->p_top, p->p_bottom = c->p_bottom, p->p_left = c->p_left, p->p_right = c->p_right;
    p->act = full_act;
    o->up.s_h = c->s_h, o->up.s_w = c->s_w;
    o->fc.batches = 1;
    o->fc.in_features = (int32_t)(op->h_in * op->w_in * op->c_in);
    o->fc.out_features = (int32_t)op->c_out;
    o->fc.act = full_act;
    o->fc.per_channel = true;
    o->add.left_shift = 20;
    o->add.act = full_act;
}

size_t rip_cg_dual_scratch(const rip_cg_model *m, size_t i)
{
    const rip_cg_op *o = &m->op[i];
    switch (m->g->ops[i].kind) {
    case RIP_OP_CONV2D: return rk_conv2d_buffer_size(&o->conv, o->in, o->out);
    case RIP_OP_POINTWISE: return rk_pointwise_buffer_size(&o->conv, o->in, o->out);
    case RIP_OP_DEPTHWISE: return rk_depthwise_buffer_size(&o->conv, o->in, o->out);
    case RIP_OP_FC: return rk_fully_connected_buffer_size(&o->fc);
    case RIP_OP_ADD: return rk_add_buffer_size(&o->add, o->out.h * o->out.w * o->out.c);
    case RIP_OP_AVGPOOL: return rk_avgpool_buffer_size(&o->pool, o->in, o->out);
    case RIP_OP_MAXPOOL: return rk_maxpool_buffer_size(&o->pool, o->in, o->out);
    case RIP_OP_UPSAMPLE: return rk_upsample_nearest_buffer_size(&o->up, o->in, o->out);
    default: return 0;
    }
}

/*
** Draw and calibrate op i (its input tensors' reference values and zero
** points are known), then run it in dual buffers into m->ref[i + 1].
*/
static rip_status build_op(rip_cg_model *m, rip_pcg32 *g, size_t i, int32_t *zp, int8_t *scratch,
                           char err[RIP_ERR_LEN])
{
    const rip_op *op = &m->g->ops[i];
    rip_cg_op *o = &m->op[i]; /* geometry() already filled */
    const int t0 = rip_cg_tin(m, i, 0);
    const int8_t *x = m->ref[t0];
    int8_t *y = m->ref[i + 1];
    const int32_t z_in = zp[t0];
    int32_t z_out = z_in;
    rip_status s = RIP_OK;
    rk_status k = RK_OK;
    if (op->kind == RIP_OP_CONV2D || op->kind == RIP_OP_POINTWISE || op->kind == RIP_OP_DEPTHWISE ||
        op->kind == RIP_OP_FC) {
        z_out = draw_zp(g);
        wshape ws;
        if (op->kind == RIP_OP_DEPTHWISE) /* [k_h][k_w][c] */
            ws = (wshape){op->k_h * op->k_w * op->c_out, op->c_out, op->k_h * op->k_w, op->c_out, 1};
        else if (op->kind == RIP_OP_FC) /* [out][in] */
            ws = (wshape){(int64_t)o->fc.in_features * op->c_out, op->c_out, o->fc.in_features, 1,
                          o->fc.in_features};
        else /* OHWI */
            ws = (wshape){op->k_h * op->k_w * op->c_in * op->c_out, op->c_out, op->k_h * op->k_w * op->c_in, 1,
                          op->k_h * op->k_w * op->c_in};
        if ((s = conv_like(m, g, o, &ws, x, m->tsize[t0], z_in, err)) != RIP_OK)
            return s;
        o->conv.input_offset = -z_in;
        o->conv.output_offset = z_out;
        o->fc.input_offset = -z_in;
        o->fc.output_offset = z_out;
        const int8_t *f = (const int8_t *)m->blob.b + o->off_filter;
        const int32_t *b = blob_i32(m, o->off_bias);
        rk_quant q = {blob_i32(m, o->off_mult), blob_i32(m, o->off_shift)};
        if (op->kind == RIP_OP_CONV2D)
            k = rk_conv2d(&o->conv, &q, o->in, x, f, b, o->out, y, scratch);
        else if (op->kind == RIP_OP_POINTWISE)
            k = rk_pointwise(&o->conv, &q, o->in, x, f, b, o->out, y, scratch);
        else if (op->kind == RIP_OP_DEPTHWISE)
            k = rk_depthwise(&o->conv, &q, o->in, x, f, b, o->out, y);
        else
            k = rk_fully_connected(&o->fc, &q, x, f, b, y);
    } else if (op->kind == RIP_OP_ADD) {
        const int t1 = rip_cg_tin(m, i, 1);
        z_out = draw_zp(g);
        int32_t m1 = (int32_t)rip_pcg32_range(g, (int64_t)1 << 30, ((int64_t)1 << 31) - 1);
        int32_t m2 = (int32_t)rip_pcg32_range(g, (int64_t)1 << 30, ((int64_t)1 << 31) - 1);
        double mean1, var1, mean2, var2;
        tensor_stats(x, m->tsize[t0], z_in, &mean1, &var1);
        tensor_stats(m->ref[t1], m->tsize[t1], zp[t1], &mean2, &var2);
        double r1 = m1 / 2147483648.0, r2 = m2 / 2147483648.0;
        double spread = 1048576.0 * sqrt(r1 * r1 * var1 + r2 * r2 * var2);
        rk_add_params *a = &o->add;
        a->input1_offset = -z_in;
        a->input2_offset = -zp[t1];
        a->input1_multiplier = m1, a->input1_shift = 0;
        a->input2_multiplier = m2, a->input2_shift = 0;
        to_multiplier(TARGET_STD / spread, &a->output_multiplier, &a->output_shift);
        a->output_offset = z_out;
        k = rk_add(a, o->out.h * o->out.w * o->out.c, x, m->ref[t1], y);
    } else if (op->kind == RIP_OP_AVGPOOL) {
        k = rk_avgpool(&o->pool, o->in, x, o->out, y);
    } else if (op->kind == RIP_OP_MAXPOOL) {
        k = rk_maxpool(&o->pool, o->in, x, o->out, y);
    } else if (op->kind == RIP_OP_UPSAMPLE) {
        k = rk_upsample_nearest(&o->up, o->in, x, o->out, y);
    } else {
        snprintf(err, RIP_ERR_LEN, "op %lld: %s has no generator (graph not checked?)", (long long)op->id,
                 rip_op_name(op->kind));
        return RIP_S_INTERNAL;
    }
    if (k != RK_OK) {
        snprintf(err, RIP_ERR_LEN, "op %lld (%s): the dual-buffer kernel refused its parameters (rk_status %d)",
                 (long long)op->id, rip_op_name(op->kind), (int)k);
        return RIP_S_INTERNAL;
    }
    zp[i + 1] = z_out;
    return RIP_OK;
}

/* ---- the model ---- */

void rip_cg_model_free(rip_cg_model *m)
{
    if (!m)
        return;
    if (m->ref)
        for (size_t t = 0; t < m->n_t; t++)
            free(m->ref[t]);
    free(m->ref);
    free(m->tsize);
    free(m->tin);
    free(m->op);
    rip_cg_blob_free(&m->blob);
    free(m->outputs);
    free(m->logits);
    free(m);
}

/* Tensor sizes, input tensors and graph outputs of m->g. */
static rip_status wire(rip_cg_model *m, char err[RIP_ERR_LEN])
{
    const rip_graph *g = m->g;
    bool *read = calloc(m->n_t, sizeof *read);
    if (!read) {
        snprintf(err, RIP_ERR_LEN, "out of memory");
        return RIP_S_NOMEM;
    }
    m->tsize[0] = 0;
    for (size_t i = 0; i < g->n_ops; i++) {
        const rip_op *op = &g->ops[i];
        m->tsize[i + 1] = op->h_out * op->w_out * op->c_out;
        for (int j = 0; j < op->n_inputs; j++) {
            long p = op->inputs[j] == -1 ? -1 : rip_graph_find_op(g, op->inputs[j]);
            int t = (int)(p + 1);
            m->tin[i * RIP_OP_MAX_INPUTS + (size_t)j] = t;
            read[t] = true;
            if (t == 0 && m->tsize[0] == 0)
                m->tsize[0] = op->h_in * op->w_in * op->c_in;
        }
    }
    for (size_t t = 1; t < m->n_t; t++)
        if (!read[t])
            m->outputs[m->n_outputs++] = (int)t;
    free(read);
    return RIP_OK;
}

rip_status rip_cg_model_build(const rip_graph *g, uint64_t seed, rip_cg_model **out, char err[RIP_ERR_LEN])
{
    rip_status s = RIP_OK;
    int32_t *zp = NULL;
    int8_t *scratch = NULL;
    rip_cg_model *m = calloc(1, sizeof *m);
    *out = NULL;
    if (!m)
        goto nomem;
    const uint32_t one = 1;
    if (*(const uint8_t *)&one != 1) {
        /* the blob is little-endian and the reference run reads it in place */
        snprintf(err, RIP_ERR_LEN, "the code generator needs a little-endian host");
        s = RIP_S_INTERNAL;
        goto done;
    }
    m->g = g;
    m->n_t = g->n_ops + 1;
    m->tsize = calloc(m->n_t, sizeof *m->tsize);
    m->tin = calloc(g->n_ops * RIP_OP_MAX_INPUTS, sizeof *m->tin);
    m->op = calloc(g->n_ops, sizeof *m->op);
    m->ref = calloc(m->n_t, sizeof *m->ref);
    m->outputs = calloc(m->n_t, sizeof *m->outputs);
    zp = calloc(m->n_t, sizeof *zp);
    if (!m->tsize || !m->tin || !m->op || !m->ref || !m->outputs || !zp)
        goto nomem;
    if ((s = wire(m, err)) != RIP_OK)
        goto done;
    for (size_t t = 0; t < m->n_t; t++)
        if (!(m->ref[t] = malloc((size_t)m->tsize[t])))
            goto nomem;

    rip_pcg32 rng;
    rip_pcg32_seed(&rng, seed ^ fnv1a64(g->name), CG_SEQUENCE);
    zp[0] = draw_zp(&rng);
    for (int64_t i = 0; i < m->tsize[0]; i++)
        m->ref[0][i] = (int8_t)(uint8_t)rip_pcg32_next(&rng);
    /* the input goes last in the blob, after every weight; its values are drawn first */
    for (size_t i = 0; i < g->n_ops; i++) {
        geometry(&g->ops[i], &m->op[i]);
        size_t need = rip_cg_dual_scratch(m, i);
        free(scratch);
        if (!(scratch = malloc(need ? need : 1)))
            goto nomem;
        if ((s = build_op(m, &rng, i, zp, scratch, err)) != RIP_OK)
            goto done;
    }
    if ((m->off_input = rip_cg_blob_add(&m->blob, m->ref[0], (size_t)m->tsize[0], 16)) < 0)
        goto nomem;

    for (size_t k = 0; k < m->n_outputs; k++)
        m->n_logits += m->tsize[m->outputs[k]];
    if (!(m->logits = malloc((size_t)m->n_logits)))
        goto nomem;
    int64_t at = 0;
    for (size_t k = 0; k < m->n_outputs; k++) {
        memcpy(m->logits + at, m->ref[m->outputs[k]], (size_t)m->tsize[m->outputs[k]]);
        at += m->tsize[m->outputs[k]];
    }
    m->checksum = rk_crc32(m->logits, (size_t)m->n_logits);
    *out = m;
    m = NULL;
    goto done;
nomem:
    snprintf(err, RIP_ERR_LEN, "out of memory building the model");
    s = RIP_S_NOMEM;
done:
    free(zp);
    free(scratch);
    rip_cg_model_free(m);
    return s;
}

const int8_t *rip_cg_model_logits(const rip_cg_model *m, int64_t *n)
{
    *n = m->n_logits;
    return m->logits;
}

uint32_t rip_cg_model_checksum(const rip_cg_model *m)
{
    return m->checksum;
}

const int8_t *rip_cg_model_tensor(const rip_cg_model *m, size_t t, int64_t *n)
{
    if (t >= m->n_t)
        return NULL;
    *n = m->tsize[t];
    return m->ref[t];
}

const uint8_t *rip_cg_model_blob(const rip_cg_model *m, size_t *n)
{
    *n = m->blob.len;
    return m->blob.b;
}
