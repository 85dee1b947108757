/*
** net_prepare.c — the kernel parameters of one step (net.h) from its
** operator: what TensorFlow Lite Micro's Prepare computes, through
** host/rk_prepare.h (multipliers and shifts from the float scales in
** TFLM's own double and float expressions, activation ranges, SAME/VALID
** padding with the odd row or column at the bottom/right), plus the
** shapes the kernels take and pointers to the constants in the model's
** file.  The model is checked (tfl_check.h): shapes, types and options
** agree; what is refused here is what the kernels cannot run (a batch
** other than 1, too many axes) or what TFLM's Prepare itself refuses.
*/
#include <stdint.h>
#include <string.h>

#include "net_internal.h"
#include "rk_prepare.h"

/* ---- shapes and constants --------------------------------------------- */

/* [1, H, W, C] of a rank-4 tensor as rk_dims; RIP_S_DATA for a batch other than 1. */
static rip_status dims_of(const rip_net *net, int32_t op, int32_t t, rk_dims *d, char err[RIP_ERR_LEN])
{
    const int32_t *s = net_tensor(net, t)->shape;
    if (s[0] != 1)
        return net_op_fail(net, op, err, "tensor %ld has batch %ld: the kernels run batch 1", (long)t, (long)s[0]);
    *d = (rk_dims){.h = s[1], .w = s[2], .c = s[3]};
    return RIP_OK;
}

/* The shape of t as rk_shape (rank 0 is [1]); RIP_S_DATA beyond RK_MAX_RANK axes. */
static rip_status shape_of(const rip_net *net, int32_t op, int32_t t, rk_shape *s, char err[RIP_ERR_LEN])
{
    const rip_tfl_tensor *x = net_tensor(net, t);
    if (x->rank > RK_MAX_RANK)
        return net_op_fail(net, op, err, "tensor %ld has %zu axes: the kernels take at most %d", (long)t, x->rank,
                           RK_MAX_RANK);
    memset(s, 0, sizeof *s);
    s->rank = x->rank ? (int32_t)x->rank : 1;
    s->d[0] = 1;
    for (size_t i = 0; i < x->rank; i++)
        s->d[i] = x->shape[i];
    return RIP_OK;
}

static bool host_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* The optional bias (input 2): where it is in the file when aligned on a
** little-endian host, else decoded into the net.  NULL when absent. */
static rip_status bias_of(rip_net *net, const rip_tfl_operator *op, const int32_t **bias)
{
    *bias = NULL;
    if (op->n_inputs < 3 || op->inputs[2] < 0)
        return RIP_OK;
    size_t bytes;
    const uint8_t *p = rip_tfl_tensor_data(net->model, net_tensor(net, op->inputs[2]), &bytes);
    if (host_little_endian() && (uintptr_t)p % _Alignof(int32_t) == 0) {
        *bias = (const int32_t *)(const void *)p;
        return RIP_OK;
    }
    int32_t *v = net_alloc(net, bytes / 4, sizeof *v);
    if (v == NULL)
        return RIP_S_NOMEM;
    for (size_t i = 0; i < bytes / 4; i++)
        v[i] = (int32_t)((uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                         (uint32_t)p[4 * i + 3] << 24);
    *bias = v;
    return RIP_OK;
}

/* n multipliers followed by n shifts, owned by the net, as an rk_quant. */
static rip_status quant_arrays(rip_net *net, int32_t n, rk_quant *q, int32_t **mult, int32_t **shift)
{
    int32_t *v = net_alloc(net, 2 * (size_t)n, sizeof *v);
    if (v == NULL)
        return RIP_S_NOMEM;
    *mult = v;
    *shift = v + n;
    q->multiplier = v;
    q->shift = v + n;
    return RIP_OK;
}

static rip_status prepare_refused(const rip_net *net, int32_t op, const char *what, char err[RIP_ERR_LEN])
{
    return net_op_fail(net, op, err, "TFLite Micro's Prepare refuses its %s", what);
}

/* The fused activation's clamp of output tensor t. */
static rip_status act_range(const rip_net *net, int32_t op, int act, int32_t t, rk_act *out, char err[RIP_ERR_LEN])
{
    if (rk_activation_range((rk_fused_act)act, net_scale(net, t), net_zero_point(net, t), out) != RK_OK)
        return prepare_refused(net, op, "activation range", err);
    return RIP_OK;
}

/* ---- the operators ------------------------------------------------------ */

/* A folded PAD's rows and columns added before and after: top, bottom, left, right. */
static void folded_padding(const rip_net *net, const rip_tfl_operator *pad, int64_t p[4])
{
    memset(p, 0, 4 * sizeof *p);
    if (pad == NULL)
        return;
    const rip_tfl_tensor *pads = net_tensor(net, pad->inputs[1]);
    for (int k = 0; k < 4; k++)
        p[k] = rip_tfl_const_int(net->model, pads, 2 + k); /* rows [1][0..1], then [2][0..1] */
}

/* One spatial axis: TFLM's padding over the (padded) extent, plus the folded PAD's. */
static rip_status conv_axis(const rip_net *net, int32_t op, bool same, int64_t in, int64_t pre, int64_t post,
                            int32_t k, int32_t s, int32_t d, int32_t want, int32_t *lo, int32_t *hi,
                            char err[RIP_ERR_LEN])
{
    int32_t out, a, b;
    if (in + pre + post > INT32_MAX / 2 || rk_prepare_padding(same, (int32_t)(in + pre + post), k, s, d, &out, &a, &b) != RK_OK ||
        out != want)
        return net_op_fail(net, op, err, "its window over %lld gives no output of %ld", (long long)(in + pre + post),
                           (long)want);
    *lo = (int32_t)(a + pre);
    *hi = (int32_t)(b + post);
    return RIP_OK;
}

static rip_status prep_conv(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, const rip_tfl_operator *pad,
                            char err[RIP_ERR_LEN])
{
    rip_net_conv *c = &st->u.conv;
    bool dw = st->kind == RIP_NET_DEPTHWISE;
    int32_t in = st->in[0].tensor, out = op->outputs[0];
    const rip_tfl_tensor *w = net_tensor(net, op->inputs[1]);
    const rip_tfl_conv_opts *co = &op->opt.conv;
    const rip_tfl_dw_opts *dwo = &op->opt.dw;
    bool same = (dw ? dwo->padding : co->padding) == RIP_TFL_PAD_SAME;
    int act = dw ? dwo->activation : co->activation;
    int32_t sh = dw ? dwo->stride_h : co->stride_h, sw = dw ? dwo->stride_w : co->stride_w;
    int32_t dh = dw ? dwo->dilation_h : co->dilation_h, dwd = dw ? dwo->dilation_w : co->dilation_w;
    int64_t fp[4];
    rip_status rc;
    if ((rc = dims_of(net, st->op, in, &c->in, err)) || (rc = dims_of(net, st->op, out, &c->out, err)))
        return rc;
    folded_padding(net, pad, fp);
    c->p = (rk_conv_params){.k_h = w->shape[1], .k_w = w->shape[2], .s_h = sh, .s_w = sw, .d_h = dh, .d_w = dwd,
                            .input_offset = -net_zero_point(net, in), .output_offset = net_zero_point(net, out)};
    if ((rc = conv_axis(net, st->op, same, c->in.h, fp[0], fp[1], c->p.k_h, sh, dh, c->out.h, &c->p.p_top,
                        &c->p.p_bottom, err)) ||
        (rc = conv_axis(net, st->op, same, c->in.w, fp[2], fp[3], c->p.k_w, sw, dwd, c->out.w, &c->p.p_left,
                        &c->p.p_right, err)) ||
        (rc = act_range(net, st->op, act, out, &c->p.act, err)))
        return rc;
    int32_t *mult, *shift;
    if ((rc = quant_arrays(net, c->out.c, &c->q, &mult, &shift)) != RIP_OK)
        return rc;
    if (rk_prepare_conv_per_channel(net_scale(net, in), w->quant.scale, (int32_t)w->quant.n_scale,
                                    net_scale(net, out), c->out.c, mult, shift) != RK_OK)
        return prepare_refused(net, st->op, "per-channel multipliers", err);
    size_t bytes;
    c->filter = (const int8_t *)rip_tfl_tensor_data(net->model, w, &bytes);
    c->pointwise = !dw && c->p.k_h == 1 && c->p.k_w == 1 && sh == 1 && sw == 1 && c->p.p_top == 0 &&
                   c->p.p_bottom == 0 && c->p.p_left == 0 && c->p.p_right == 0;
    return bias_of(net, op, &c->bias);
}

static rip_status prep_fc(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_fc *f = &st->u.fc;
    int32_t in = op->inputs[0], out = op->outputs[0];
    const rip_tfl_tensor *w = net_tensor(net, op->inputs[1]);
    int32_t n_out = w->shape[0], n_in = w->shape[1];
    bool per_channel = w->quant.n_scale > 1;
    rip_status rc;
    f->p = (rk_fc_params){.batches = (int32_t)(net_elements(net, in) / n_in), .in_features = n_in,
                          .out_features = n_out, .input_offset = -net_zero_point(net, in),
                          .output_offset = net_zero_point(net, out), .per_channel = per_channel};
    int32_t *mult, *shift;
    if ((rc = act_range(net, st->op, op->opt.fc.activation, out, &f->p.act, err)) ||
        (rc = quant_arrays(net, per_channel ? n_out : 1, &f->q, &mult, &shift)))
        return rc;
    if (per_channel) {
        if (rk_prepare_conv_per_channel(net_scale(net, in), w->quant.scale, (int32_t)w->quant.n_scale,
                                        net_scale(net, out), n_out, mult, shift) != RK_OK)
            return prepare_refused(net, st->op, "per-channel multipliers", err);
    } else {
        const rip_tfl_tensor *b = op->n_inputs >= 3 && op->inputs[2] >= 0 ? net_tensor(net, op->inputs[2]) : NULL;
        const float *bias_scale = b && b->quant.present && b->quant.n_scale > 0 ? &b->quant.scale[0] : NULL;
        if (rk_prepare_fc_per_tensor(net_scale(net, in), w->quant.scale[0], net_scale(net, out), bias_scale, mult,
                                     shift) != RK_OK)
            return prepare_refused(net, st->op, "multiplier (input scale x filter scale against the bias scale)", err);
    }
    size_t bytes;
    f->weights = (const int8_t *)rip_tfl_tensor_data(net->model, w, &bytes);
    return bias_of(net, op, &f->bias);
}

static rip_status prep_pool(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_pool *pl = &st->u.pool;
    const rip_tfl_pool_opts *o = &op->opt.pool;
    int32_t in = op->inputs[0], out = op->outputs[0];
    bool same = o->padding == RIP_TFL_PAD_SAME;
    rip_status rc;
    if ((rc = dims_of(net, st->op, in, &pl->in, err)) || (rc = dims_of(net, st->op, out, &pl->out, err)))
        return rc;
    pl->p = (rk_pool_params){.k_h = o->filter_h, .k_w = o->filter_w, .s_h = o->stride_h, .s_w = o->stride_w};
    if ((rc = conv_axis(net, st->op, same, pl->in.h, 0, 0, o->filter_h, o->stride_h, 1, pl->out.h, &pl->p.p_top,
                        &pl->p.p_bottom, err)) ||
        (rc = conv_axis(net, st->op, same, pl->in.w, 0, 0, o->filter_w, o->stride_w, 1, pl->out.w, &pl->p.p_left,
                        &pl->p.p_right, err)))
        return rc;
    return act_range(net, st->op, o->activation, out, &pl->p.act, err);
}

/* Shape of t aligned to rank r (leading unit axes). */
static void align_shape(const rip_net *net, int32_t t, int32_t r, rk_shape *s)
{
    const rip_tfl_tensor *x = net_tensor(net, t);
    s->rank = r;
    for (int32_t i = 0; i < r; i++) {
        int32_t k = i - (r - (int32_t)x->rank);
        s->d[i] = k >= 0 ? x->shape[k] : 1;
    }
}

static rip_status prep_add(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_add *a = &st->u.add;
    int32_t x = op->inputs[0], y = op->inputs[1], out = op->outputs[0];
    if (rk_prepare_add(net_scale(net, x), net_zero_point(net, x), net_scale(net, y), net_zero_point(net, y),
                       net_scale(net, out), net_zero_point(net, out), (rk_fused_act)op->opt.add.activation,
                       &a->p) != RK_OK)
        return prepare_refused(net, st->op, "input and output scales", err);
    a->n = (int32_t)net_elements(net, out);
    int32_t r = (int32_t)net_tensor(net, out)->rank;
    if (r > RK_MAX_RANK)
        return net_op_fail(net, st->op, err, "%ld axes: the kernels take at most %d", (long)r, RK_MAX_RANK);
    align_shape(net, out, r, &a->out);
    align_shape(net, x, r, &a->in1);
    align_shape(net, y, r, &a->in2);
    a->broadcast = memcmp(a->in1.d, a->out.d, (size_t)r * sizeof(int32_t)) != 0 ||
                   memcmp(a->in2.d, a->out.d, (size_t)r * sizeof(int32_t)) != 0;
    return RIP_OK;
}

static rip_status prep_mean(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_mean *mn = &st->u.mean;
    int32_t in = op->inputs[0], out = op->outputs[0];
    const rip_tfl_tensor *ax = net_tensor(net, op->inputs[1]);
    int64_t n_axis = net_elements(net, op->inputs[1]);
    rip_status rc = shape_of(net, st->op, in, &mn->in, err);
    if (rc != RIP_OK)
        return rc;
    if (n_axis > RK_MAX_RANK)
        return net_op_fail(net, st->op, err, "%lld axes listed: at most %d", (long long)n_axis, RK_MAX_RANK);
    mn->n_axis = (int32_t)n_axis;
    for (int32_t i = 0; i < mn->n_axis; i++)
        mn->axis[i] = (int32_t)rip_tfl_const_int(net->model, ax, i);
    if (rk_prepare_mean(net_scale(net, in), net_zero_point(net, in), net_scale(net, out), net_zero_point(net, out),
                        &mn->p) != RK_OK)
        return prepare_refused(net, st->op, "input and output scales", err);
    return RIP_OK;
}

static rip_status prep_softmax(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_softmax *s = &st->u.softmax;
    int32_t in = op->inputs[0], out = op->outputs[0];
    const rip_tfl_tensor *x = net_tensor(net, in);
    s->depth = x->rank ? x->shape[x->rank - 1] : 1;
    s->rows = (int32_t)(net_elements(net, in) / s->depth);
    if (rk_prepare_softmax(op->opt.softmax.beta, net_scale(net, in), net_scale(net, out), net_zero_point(net, out),
                           &s->p) != RK_OK)
        return prepare_refused(net, st->op, "beta and scales", err);
    return RIP_OK;
}

static rip_status prep_pad(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_pad *pd = &st->u.pad;
    const rip_tfl_tensor *pads = net_tensor(net, op->inputs[1]);
    rip_status rc = shape_of(net, st->op, op->inputs[0], &pd->in, err);
    if (rc != RIP_OK)
        return rc;
    memset(&pd->p, 0, sizeof pd->p);
    for (size_t i = 0; i < net_tensor(net, op->inputs[0])->rank; i++) {
        pd->p.before[i] = (int32_t)rip_tfl_const_int(net->model, pads, 2 * (int64_t)i);
        pd->p.after[i] = (int32_t)rip_tfl_const_int(net->model, pads, 2 * (int64_t)i + 1);
    }
    pd->p.value = (int8_t)net_zero_point(net, op->outputs[0]); /* TFLM's PAD of an int8 tensor */
    return RIP_OK;
}

static rip_status prep_transpose(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_transpose *tr = &st->u.transpose;
    const rip_tfl_tensor *perm = net_tensor(net, op->inputs[1]);
    rip_status rc = shape_of(net, st->op, op->inputs[0], &tr->in, err);
    if (rc != RIP_OK)
        return rc;
    memset(&tr->p, 0, sizeof tr->p);
    for (int32_t i = 0; i < tr->in.rank && (size_t)i < net_tensor(net, op->inputs[0])->rank; i++)
        tr->p.perm[i] = (int32_t)rip_tfl_const_int(net->model, perm, i);
    return RIP_OK;
}

static rip_status prep_concat(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_concat *cc = &st->u.concat;
    rk_shape *shapes = net_alloc(net, (size_t)st->n_in, sizeof *shapes);
    if (shapes == NULL)
        return RIP_S_NOMEM;
    for (int32_t i = 0; i < st->n_in; i++) {
        rip_status rc = shape_of(net, st->op, st->in[i].tensor, &shapes[i], err);
        if (rc != RIP_OK)
            return rc;
    }
    int32_t axis = op->opt.concat.axis;
    cc->p = (rk_concat_params){.axis = axis < 0 ? axis + shapes[0].rank : axis, .n_inputs = st->n_in};
    cc->shapes = shapes;
    return RIP_OK;
}

/* Is the resize an integer upsampling by (fh, fw): TFLM's index of every output row and column o / f? */
static bool integer_upsampling(const rk_resize_params *p, rk_dims in, rk_dims out, rk_upsample_params *up)
{
    if (out.h % in.h != 0 || out.w % in.w != 0)
        return false;
    int32_t fh = out.h / in.h, fw = out.w / in.w;
    for (int32_t o = 0; o < out.h; o++)
        if (rk_resize_nearest_index(p, o, in.h, out.h) != o / fh)
            return false;
    for (int32_t o = 0; o < out.w; o++)
        if (rk_resize_nearest_index(p, o, in.w, out.w) != o / fw)
            return false;
    *up = (rk_upsample_params){.s_h = fh, .s_w = fw};
    return true;
}

static rip_status prep_resize(rip_net *net, rip_net_step *st, const rip_tfl_operator *op, char err[RIP_ERR_LEN])
{
    rip_net_resize *rs = &st->u.resize;
    rip_status rc;
    if ((rc = dims_of(net, st->op, op->inputs[0], &rs->in, err)) ||
        (rc = dims_of(net, st->op, op->outputs[0], &rs->out, err)))
        return rc;
    rs->p = (rk_resize_params){.align_corners = op->opt.resize_nn.align_corners,
                               .half_pixel_centers = op->opt.resize_nn.half_pixel_centers};
    memset(&rs->up, 0, sizeof rs->up);
    integer_upsampling(&rs->p, rs->in, rs->out, &rs->up);
    return RIP_OK;
}

/* QUANTIZE / DEQUANTIZE: the int8 side's scale and zero point. */
static rip_status prep_quant(rip_net *net, rip_net_step *st, const rip_tfl_operator *op)
{
    int32_t q = st->kind == RIP_NET_QUANTIZE ? op->outputs[0] : op->inputs[0];
    st->u.quant = (rip_net_quant){.q = {.scale = net_scale(net, q), .zero_point = net_zero_point(net, q)},
                                  .n = (int32_t)net_elements(net, q)};
    return RIP_OK;
}

rip_status net_prepare_step(rip_net *net, rip_net_step *st, const rip_tfl_operator *op,
                            const rip_tfl_operator *pad, char err[RIP_ERR_LEN])
{
    switch (st->kind) {
    case RIP_NET_CONV:
    case RIP_NET_DEPTHWISE: return prep_conv(net, st, op, pad, err);
    case RIP_NET_FC: return prep_fc(net, st, op, err);
    case RIP_NET_AVGPOOL:
    case RIP_NET_MAXPOOL: return prep_pool(net, st, op, err);
    case RIP_NET_ADD: return prep_add(net, st, op, err);
    case RIP_NET_MEAN: return prep_mean(net, st, op, err);
    case RIP_NET_SOFTMAX: return prep_softmax(net, st, op, err);
    case RIP_NET_PAD: return prep_pad(net, st, op, err);
    case RIP_NET_TRANSPOSE: return prep_transpose(net, st, op, err);
    case RIP_NET_CONCAT: return prep_concat(net, st, op, err);
    case RIP_NET_RESIZE: return prep_resize(net, st, op, err);
    case RIP_NET_QUANTIZE:
    case RIP_NET_DEQUANTIZE: return prep_quant(net, st, op);
    }
    return net_op_fail(net, st->op, err, "no kernel"); /* unreachable: kind_of maps every supported operator */
}
