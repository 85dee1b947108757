/*
** tflite_graphs.c — the tflite suite (tests/test_tflite.c) on generated
** graphs: output shapes of convolutions, depthwise, pools and the other
** operators, activation types and dataflow, quantize/dequantize at the
** edges, window arithmetic by brute force and byte counts that overflow.
*/
#define TMPDIR_EXTERN
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fbs_read.h"
#include "tfl_check.h"
#include "tfl_model.h"
#include "tflite_util.h"

/* ---- the semantic check, on small models built here ------------------------------- */

/*
** A model described as tensors and operators, written as a flatbuffer
** with fbb: one operator code per operator (the code in both fields when
** it fits deprecated_builtin_code, else in builtin_code alone), one
** buffer per constant tensor after the empty buffer 0.
*/
#define GM_T 20

#define GM_OPS 8

typedef struct gm_tensor {
    const char *name;
    int type, rank;
    int32_t shape[6];
    bool konst, variable, no_quant;
    uint8_t data[1024];
    size_t bytes;
    int n_scale, qdim;
    float scale[16];
    int64_t zp[16];
} gm_tensor;

typedef struct gm_op {
    int code, n_in, n_out, opt_type, n_opt;
    int32_t in[6], out[2];
    fbf opt[8];
    bool new_shape;
    int n_new_shape;
    int64_t new_shape_v[6];
} gm_op;

typedef struct gmodel {
    int n_t, n_op, n_in, n_out, n_subgraphs;
    gm_tensor t[GM_T];
    gm_op op[GM_OPS];
    int32_t in[4], out[4];
} gmodel;

static int gm_tensor_add(gmodel *g, const char *name, int type, int rank, const int32_t *shape)
{
    cr_assert_lt(g->n_t, GM_T);
    gm_tensor *t = &g->t[g->n_t];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->type = type;
    t->rank = rank;
    memcpy(t->shape, shape, (size_t)rank * sizeof *shape);
    return g->n_t++;
}

/* An int8 activation (scale 0.5, zero point -3), or float32 without quantization. */
static int gm_act(gmodel *g, const char *name, int type, int rank, const int32_t *shape)
{
    int i = gm_tensor_add(g, name, type, rank, shape);
    if (type == RIP_TFL_FLOAT32)
        g->t[i].no_quant = true;
    else {
        g->t[i].n_scale = 1;
        g->t[i].scale[0] = 0.5f;
        g->t[i].zp[0] = -3;
    }
    return i;
}

/* A constant of type `type`; int32 values from v (NULL: bytes 1, 2, 3, ...); n_scale scales along qdim. */
static int gm_const(gmodel *g, const char *name, int type, int rank, const int32_t *shape, const int32_t *v,
                    int n_scale, int qdim)
{
    int i = gm_tensor_add(g, name, type, rank, shape);
    gm_tensor *t = &g->t[i];
    int64_t n = 1;
    for (int k = 0; k < rank; k++)
        n *= shape[k];
    t->konst = true;
    t->bytes = (size_t)n * (size_t)rip_tfl_type_bytes(type);
    cr_assert_leq(t->bytes, sizeof t->data);
    for (size_t k = 0; k < t->bytes; k++)
        t->data[k] = (uint8_t)(k % 7 + 1);
    if (v)
        for (int64_t k = 0; k < n; k++)
            put32(t->data + 4 * k, (uint32_t)v[k]);
    t->n_scale = n_scale;
    t->qdim = qdim;
    for (int k = 0; k < n_scale; k++)
        t->scale[k] = 0.01f * (float)(k + 1);
    if (n_scale == 0)
        t->no_quant = true;
    return i;
}

static gm_op *gm_op_add(gmodel *g, int code, int n_in, const int32_t *in, int32_t out, int opt_type)
{
    cr_assert_lt(g->n_op, GM_OPS);
    gm_op *o = &g->op[g->n_op++];
    memset(o, 0, sizeof *o);
    o->code = code;
    o->n_in = n_in;
    memcpy(o->in, in, (size_t)n_in * sizeof *in);
    o->n_out = 1;
    o->out[0] = out;
    o->opt_type = opt_type;
    return o;
}

static size_t gm_write_tensor(fbb *f, const gm_tensor *t, uint32_t buffer)
{
    size_t pos[11], qpos[7];
    fbf fields[11] = {FOFF, F8(t->type), F32(buffer), FOFF, t->no_quant ? (fbf)F_ABSENT : (fbf)FOFF,
                      t->variable ? (fbf)F8(1) : (fbf)F_ABSENT};
    size_t at = fb_table(f, 11, fields, pos);
    int64_t shape[6];
    for (int k = 0; k < t->rank; k++)
        shape[k] = t->shape[k];
    fb_link(f, pos[0], fb_vec(f, (uint32_t)t->rank, 4, shape));
    fb_link(f, pos[3], fb_string(f, t->name, true));
    if (!t->no_quant) {
        size_t q = fb_table(f, 7, (fbf[7]){F_ABSENT, F_ABSENT, FOFF, FOFF, F_ABSENT, F_ABSENT, F32(t->qdim)}, qpos);
        fb_link(f, pos[4], q);
        int64_t bits[16];
        for (int k = 0; k < t->n_scale; k++) {
            uint32_t u;
            memcpy(&u, &t->scale[k], 4);
            bits[k] = u;
        }
        fb_link(f, qpos[2], fb_vec(f, (uint32_t)t->n_scale, 4, bits));
        fb_link(f, qpos[3], fb_vec(f, (uint32_t)t->n_scale, 8, t->zp));
    }
    return at;
}

/* The flatbuffer of g in f; returns its length. */
static size_t gm_write(fbb *f, const gmodel *g)
{
    fb_begin(f, "TFL3");
    size_t mpos[8];
    size_t root = fb_table(f, 8, (fbf[8]){F32(3), FOFF, FOFF, F_ABSENT, FOFF}, mpos);
    fb_root(f, root);
    size_t codes = fb_vec_of(f, (uint32_t)g->n_op);
    fb_link(f, mpos[1], codes);
    for (int i = 0; i < g->n_op; i++) {
        int c = g->op[i].code;
        fb_elem(f, codes, (uint32_t)i, fb_table(f, 4, (fbf[4]){F8(c < 127 ? c : 127), F_ABSENT, F_ABSENT, F32(c)}, NULL));
    }
    int n_const = 0;
    for (int i = 0; i < g->n_t; i++)
        n_const += g->t[i].konst;
    size_t bufs = fb_vec_of(f, (uint32_t)(1 + n_const));
    fb_link(f, mpos[4], bufs);
    fb_elem(f, bufs, 0, fb_table(f, 3, (fbf[3]){F_ABSENT}, NULL));
    uint32_t buffer_of[GM_T] = {0}, b = 1;
    for (int i = 0; i < g->n_t; i++) {
        if (!g->t[i].konst)
            continue;
        size_t bpos[3];
        fb_elem(f, bufs, b, fb_table(f, 3, (fbf[3]){FOFF}, bpos));
        int64_t bytes[1024];
        for (size_t k = 0; k < g->t[i].bytes; k++)
            bytes[k] = g->t[i].data[k];
        fb_link(f, bpos[0], fb_vec(f, (uint32_t)g->t[i].bytes, 1, bytes));
        buffer_of[i] = b++;
    }
    int n_sg = g->n_subgraphs ? g->n_subgraphs : 1;
    size_t sgs = fb_vec_of(f, (uint32_t)n_sg);
    fb_link(f, mpos[2], sgs);
    for (int s = 0; s < n_sg; s++) {
        size_t spos[5];
        fb_elem(f, sgs, (uint32_t)s, fb_table(f, 5, (fbf[5]){FOFF, FOFF, FOFF, FOFF}, spos));
        size_t tv = fb_vec_of(f, (uint32_t)g->n_t);
        fb_link(f, spos[0], tv);
        for (int i = 0; i < g->n_t; i++)
            fb_elem(f, tv, (uint32_t)i, gm_write_tensor(f, &g->t[i], buffer_of[i]));
        int64_t io[4];
        for (int i = 0; i < g->n_in; i++)
            io[i] = g->in[i];
        fb_link(f, spos[1], fb_vec(f, (uint32_t)g->n_in, 4, io));
        for (int i = 0; i < g->n_out; i++)
            io[i] = g->out[i];
        fb_link(f, spos[2], fb_vec(f, (uint32_t)g->n_out, 4, io));
        size_t ov = fb_vec_of(f, (uint32_t)g->n_op);
        fb_link(f, spos[3], ov);
        for (int i = 0; i < g->n_op; i++) {
            const gm_op *o = &g->op[i];
            size_t opos[13];
            fbf fields[13] = {F32(i), FOFF, FOFF, F8(o->opt_type), o->opt_type ? (fbf)FOFF : (fbf)F_ABSENT};
            fb_elem(f, ov, (uint32_t)i, fb_table(f, 13, fields, opos));
            int64_t v[6];
            for (int k = 0; k < o->n_in; k++)
                v[k] = o->in[k];
            fb_link(f, opos[1], fb_vec(f, (uint32_t)o->n_in, 4, v));
            v[0] = o->out[0];
            fb_link(f, opos[2], fb_vec(f, 1, 4, v));
            if (o->opt_type) {
                size_t xpos[8];
                fb_link(f, opos[4], fb_table(f, o->n_opt, o->opt, xpos));
                if (o->new_shape)
                    fb_link(f, xpos[0], fb_vec(f, (uint32_t)o->n_new_shape, 4, o->new_shape_v));
            }
        }
    }
    return f->n;
}

/* rip_tfl_check of g: "" when accepted, else the message without "gm.tflite: ". */
static const char *gm_check(const gmodel *g)
{
    static fbb f;
    static char msg[RIP_ERR_LEN];
    size_t len = gm_write(&f, g);
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    cr_assert_eq(rip_tfl_model_parse(f.b, len, "gm.tflite", &m, err), RIP_OK, "%s", err);
    rip_status st = rip_tfl_check(&m, err);
    rip_tfl_model_free(&m);
    if (st == RIP_OK)
        return "";
    cr_assert_eq(st, RIP_S_DATA);
    cr_assert(strncmp(err, "gm.tflite: ", 11) == 0, "%s", err);
    snprintf(msg, sizeof msg, "%s", err + 11);
    return msg;
}

#define S(...) ((const int32_t[]){__VA_ARGS__})

#define CONV_OPTS(pad, sw, sh, act) {F8(pad), F32(sw), F32(sh), F8(act)}

/* A convolution model: input [1,h,w,c], weights [o,k,k,c] per channel, bias, output [1,oh,ow,o]. */
static void conv_model(gmodel *g, int h, int w, int c, int o, int k, int stride, int pad, int oh, int ow)
{
    memset(g, 0, sizeof *g);
    int in = gm_act(g, "in", RIP_TFL_INT8, 4, S(1, h, w, c));
    int wt = gm_const(g, "w", RIP_TFL_INT8, 4, S(o, k, k, c), NULL, o, 0);
    int b = gm_const(g, "b", RIP_TFL_INT32, 1, S(o), NULL, 0, 0);
    int out = gm_act(g, "out", RIP_TFL_INT8, 4, S(1, oh, ow, o));
    gm_op *op = gm_op_add(g, RIP_TFL_OP_CONV_2D, 3, S(in, wt, b), out, RIP_TFL_OPT_CONV_2D);
    op->n_opt = 4;
    memcpy(op->opt, (fbf[4])CONV_OPTS(pad, stride, stride, RIP_TFL_ACT_RELU), sizeof(fbf[4]));
    g->n_in = g->n_out = 1;
    g->in[0] = in;
    g->out[0] = out;
}

Test(tflite, conv_output_shapes_follow_tflite_padding)
{
    static gmodel g;
    /* SAME, stride 2 over 7: ceil(7/2) = 4 (total padding (4-1)*2+3-7 = 2, one each side) */
    conv_model(&g, 7, 7, 1, 2, 3, 2, RIP_TFL_PAD_SAME, 4, 4);
    cr_expect_str_eq(gm_check(&g), "");
    conv_model(&g, 7, 7, 1, 2, 3, 2, RIP_TFL_PAD_SAME, 3, 3);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): output tensor 3 (out) has shape [1,3,3,2], the input, "
                                   "weights and options give [1,4,4,2]");
    /* VALID, stride 2 over 8 with 3 taps: floor((8-3)/2)+1 = 3 */
    conv_model(&g, 8, 8, 1, 2, 3, 2, RIP_TFL_PAD_VALID, 3, 3);
    cr_expect_str_eq(gm_check(&g), "");
    /* VALID with a kernel larger than the input */
    conv_model(&g, 2, 2, 1, 2, 3, 1, RIP_TFL_PAD_VALID, 1, 1);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): height: a kernel of 3 (dilation 1) over 2 leaves no VALID "
                                   "output");
    /* a fused TANH */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[0].opt[3] = (fbf)F8(RIP_TFL_ACT_TANH);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): fused activation TANH is not supported (NONE, RELU or "
                                   "RELU6)");
    /* weights with a non-zero zero point, bias of the wrong length, per-channel scales along the wrong axis */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[1].zp[1] = 5;
    cr_expect_str_eq(gm_check(&g), "tensor 1 (w): zero point 1 is 5: int8 weights are symmetric (0)");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[2] = g.t[2];
    g.t[2].shape[0] = 3;
    g.t[2].bytes = 12;
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): bias tensor 2 (b) has 3 elements for 2 output channels");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[1].qdim = 3;
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): weights tensor 1 (w): 2 scales along dimension 3 for 2 "
                                   "channels along dimension 0");
    /* no bias at all (two inputs), or -1 for it */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[0].n_in = 2;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].n_in = 3;
    g.op[0].in[2] = -1;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].in[0] = -1;
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): input 0: tensor index -1 out of range (4 tensors)");
}

Test(tflite, activations_types_and_dataflow)
{
    static gmodel g;
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[3].type = RIP_TFL_INT16;
    cr_expect_str_eq(gm_check(&g), "tensor 3 (out): int16 activations are not supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[0].type = RIP_TFL_UINT8;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): uint8 activations are not supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[0].type = RIP_TFL_FLOAT32;
    g.t[0].no_quant = true;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): float32 activations are not supported (float only at a model "
                                   "input feeding QUANTIZE or an output fed by DEQUANTIZE)");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[3].n_scale = 2;
    g.t[3].scale[1] = 1;
    cr_expect_str_eq(gm_check(&g), "tensor 3 (out): int8 activation with 2 scales and 2 zero points: one of each "
                                   "(per tensor) needed");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[3].zp[0] = 200;
    cr_expect_str_eq(gm_check(&g), "tensor 3 (out): zero point 200 outside int8 [-128, 127]");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[0].variable = true;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): variable tensors are not supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.n_in = 0;   /* the input is then read before anything writes it */
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONV_2D): input tensor 0 (in) is read before any operator writes it "
                                   "(not a model input or a constant)");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.out[0] = 0;
    cr_expect_str_eq(gm_check(&g), "tensor 0 (in): a model output no operator writes");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[1] = g.op[0];   /* the same output written twice */
    g.n_op = 2;
    cr_expect_str_eq(gm_check(&g), "operator 1 (CONV_2D): output tensor 3 (out) is already written by operator 0");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.n_subgraphs = 2;
    cr_expect_str_eq(gm_check(&g), "2 subgraphs: only models with one are supported");
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.op[0].code = 300;   /* beyond the schema */
    cr_expect_str_eq(gm_check(&g), "operator 0 (builtin 300): not supported");
    g.op[0].code = 209;
    cr_expect_str_eq(gm_check(&g), "operator 0 (STABLEHLO_CASE): not supported");
    /* a constant whose buffer is one byte short */
    conv_model(&g, 4, 4, 1, 2, 3, 1, RIP_TFL_PAD_SAME, 4, 4);
    g.t[1].bytes--;
    cr_expect_str_eq(gm_check(&g), "tensor 1 (w): buffer 1 holds 17 bytes, the shape [2,3,3,1] of int8 needs 18");
}

Test(tflite, depthwise_with_a_depth_multiplier)
{
    static gmodel g;
    memset(&g, 0, sizeof g);
    int in = gm_act(&g, "in", RIP_TFL_INT8, 4, S(1, 5, 5, 3));
    int w = gm_const(&g, "w", RIP_TFL_INT8, 4, S(1, 3, 3, 6), NULL, 6, 3);
    int b = gm_const(&g, "b", RIP_TFL_INT32, 1, S(6), NULL, 0, 0);
    int out = gm_act(&g, "out", RIP_TFL_INT8, 4, S(1, 3, 3, 6));
    gm_op *op = gm_op_add(&g, RIP_TFL_OP_DEPTHWISE_CONV_2D, 3, S(in, w, b), out, RIP_TFL_OPT_DEPTHWISE_CONV_2D);
    op->n_opt = 4;
    memcpy(op->opt, (fbf[4]){F8(RIP_TFL_PAD_VALID), F32(1), F32(1), F32(2)}, sizeof(fbf[4]));
    g.n_in = g.n_out = 1;
    g.in[0] = in;
    g.out[0] = out;
    cr_expect_str_eq(gm_check(&g), "", "M = 6 / 3 = 2");
    g.op[0].opt[3] = (fbf)F32(0);   /* depth_multiplier absent or 0: taken from the shapes */
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].opt[3] = (fbf)F32(3);
    cr_expect_str_eq(gm_check(&g), "operator 0 (DEPTHWISE_CONV_2D): depth_multiplier 3, but weights of 6 channels "
                                   "over 3 input channels give 2");
    g.op[0].opt[3] = (fbf)F32(2);
    g.t[w].qdim = 0;
    cr_expect_str_eq(gm_check(&g), "operator 0 (DEPTHWISE_CONV_2D): weights tensor 1 (w): 6 scales along dimension "
                                   "0 for 6 channels along dimension 3");
}

/* One operator from a to out with options; a and out int8 of the given shapes. */
static void unary_model(gmodel *g, int code, int rank, const int32_t *a, int orank, const int32_t *o, int opt_type)
{
    memset(g, 0, sizeof *g);
    int in = gm_act(g, "a", RIP_TFL_INT8, rank, a);
    int out = gm_act(g, "o", RIP_TFL_INT8, orank, o);
    gm_op_add(g, code, 1, S(in), out, opt_type);
    g->n_in = g->n_out = 1;
    g->in[0] = in;
    g->out[0] = out;
}

Test(tflite, pools_softmax_and_fully_connected)
{
    static gmodel g;
    unary_model(&g, RIP_TFL_OP_MAX_POOL_2D, 4, S(1, 5, 5, 2), 4, S(1, 3, 3, 2), RIP_TFL_OPT_POOL_2D);
    g.op[0].n_opt = 6;   /* SAME, stride 2, 3x3: ceil(5/2) = 3 */
    memcpy(g.op[0].opt, (fbf[6]){F8(RIP_TFL_PAD_SAME), F32(2), F32(2), F32(3), F32(3), F8(0)}, sizeof(fbf[6]));
    cr_expect_str_eq(gm_check(&g), "");
    g.t[1].zp[0] = 0;
    cr_expect_str_eq(gm_check(&g), "operator 0 (MAX_POOL_2D): output tensor 1 (o) has scale 0.5 and zero point 0, "
                                   "the input 0.5 and -3: MAX_POOL_2D does not requantize");
    unary_model(&g, RIP_TFL_OP_SOFTMAX, 2, S(1, 10), 2, S(1, 10), RIP_TFL_OPT_SOFTMAX);
    g.op[0].n_opt = 1;
    uint32_t one;
    memcpy(&one, &(float){1.0f}, 4);
    g.op[0].opt[0] = (fbf)F32(one);
    cr_expect_str_eq(gm_check(&g), "operator 0 (SOFTMAX): output tensor 1 (o) has scale 0.5 and zero point -3: int8 "
                                   "softmax needs 1/256 and -128");
    g.t[1].scale[0] = 1.0f / 256;
    g.t[1].zp[0] = -128;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].n_opt = 0;   /* beta absent: 0 */
    cr_expect_str_eq(gm_check(&g), "operator 0 (SOFTMAX): beta 0: a finite positive beta needed");

    /* FULLY_CONNECTED: [1,2,2,3] flattens to rows of 12 -> [1,5]; keep_num_dims keeps the rank */
    memset(&g, 0, sizeof g);
    int in = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 2, 3));
    int w = gm_const(&g, "w", RIP_TFL_INT8, 2, S(5, 12), NULL, 1, 0);
    int out = gm_act(&g, "o", RIP_TFL_INT8, 2, S(1, 5));
    gm_op_add(&g, RIP_TFL_OP_FULLY_CONNECTED, 2, S(in, w), out, RIP_TFL_OPT_NONE);
    g.n_in = g.n_out = 1;
    g.in[0] = in;
    g.out[0] = out;
    cr_expect_str_eq(gm_check(&g), "", "no options stored: the defaults");
    g.t[out].shape[1] = 6;
    cr_expect_str_eq(gm_check(&g), "operator 0 (FULLY_CONNECTED): output tensor 2 (o) has shape [1,6], the input and "
                                   "weights give [1,5]");
    g.t[w].shape[1] = 5;
    g.t[w].shape[0] = 12;
    cr_expect_str_eq(gm_check(&g), "operator 0 (FULLY_CONNECTED): input tensor 0 (a) has 12 elements, not rows of the "
                                   "weights' 5");
}

Test(tflite, add_mean_concatenation_and_friends)
{
    static gmodel g;
    /* ADD broadcasting [1,4,4,3] + [1,1,1,3] */
    memset(&g, 0, sizeof g);
    int a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 4, 4, 3));
    int b = gm_act(&g, "b", RIP_TFL_INT8, 4, S(1, 1, 1, 3));
    int o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 4, 4, 3));
    gm_op_add(&g, RIP_TFL_OP_ADD, 2, S(a, b), o, RIP_TFL_OPT_NONE);
    g.n_in = 2, g.n_out = 1;
    g.in[0] = a, g.in[1] = b, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    g.t[b].shape[2] = 2;
    cr_expect_str_eq(gm_check(&g), "operator 0 (ADD): inputs of shapes [1,4,4,3] and [1,1,2,3] do not broadcast");

    /* MEAN over H and W, keep_dims and not */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 3, 3, 4));
    int ax = gm_const(&g, "axes", RIP_TFL_INT32, 1, S(2), S(1, -2), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 1, 1, 4));
    gm_op *op = gm_op_add(&g, RIP_TFL_OP_MEAN, 2, S(a, ax), o, RIP_TFL_OPT_REDUCER);
    op->n_opt = 1;
    op->opt[0] = (fbf)F8(1);
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "", "axes 1 and -2 = 2, kept");
    g.op[0].opt[0] = (fbf)F8(0);
    cr_expect_str_eq(gm_check(&g), "operator 0 (MEAN): output tensor 2 (o) has shape [1,1,1,4], the input, axes and "
                                   "keep_dims give [1,4]");

    /* CONCATENATION along -1 */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 2, 3));
    b = gm_act(&g, "b", RIP_TFL_INT8, 4, S(1, 2, 2, 5));
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 2, 2, 8));
    op = gm_op_add(&g, RIP_TFL_OP_CONCATENATION, 2, S(a, b), o, RIP_TFL_OPT_CONCATENATION);
    op->n_opt = 1;
    op->opt[0] = (fbf)F32(-1);
    g.n_in = 2, g.n_out = 1;
    g.in[0] = a, g.in[1] = b, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[0].opt[0] = (fbf)F32(2);
    cr_expect_str_eq(gm_check(&g), "operator 0 (CONCATENATION): input 1 of shape [1,2,2,5] does not join input 0 of "
                                   "shape [1,2,2,3] along axis 2");

    /* PAD [1,2,2,1] by 1 before, 2 after in H and W */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 2, 1));
    int p = gm_const(&g, "pads", RIP_TFL_INT32, 2, S(4, 2), S(0, 0, 1, 2, 1, 2, 0, 0), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 5, 5, 1));
    gm_op_add(&g, RIP_TFL_OP_PAD, 2, S(a, p), o, RIP_TFL_OPT_PAD);
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    put32(g.t[p].data + 8, (uint32_t)-1);
    cr_expect_str_eq(gm_check(&g), "operator 0 (PAD): padding of dimension 1 is -1 before and 2 after: 0 to 2^31-1 "
                                   "needed");

    /* TRANSPOSE NHWC -> NCHW */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 3, 4));
    p = gm_const(&g, "perm", RIP_TFL_INT32, 1, S(4), S(0, 3, 1, 2), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 4, 2, 3));
    gm_op_add(&g, RIP_TFL_OP_TRANSPOSE, 2, S(a, p), o, RIP_TFL_OPT_NONE);
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = o;
    cr_expect_str_eq(gm_check(&g), "");
    put32(g.t[p].data + 4, 1);
    cr_expect_str_eq(gm_check(&g), "operator 0 (TRANSPOSE): perm tensor 1 (perm) is not a permutation of 0..3");

    /* RESIZE_NEAREST_NEIGHBOR to 4x6, RESHAPE with a -1 in new_shape */
    memset(&g, 0, sizeof g);
    a = gm_act(&g, "a", RIP_TFL_INT8, 4, S(1, 2, 3, 2));
    int sz = gm_const(&g, "size", RIP_TFL_INT32, 1, S(2), S(4, 6), 0, 0);
    o = gm_act(&g, "o", RIP_TFL_INT8, 4, S(1, 4, 6, 2));
    int r = gm_act(&g, "r", RIP_TFL_INT8, 2, S(1, 48));
    gm_op_add(&g, RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR, 2, S(a, sz), o, RIP_TFL_OPT_NONE);
    op = gm_op_add(&g, RIP_TFL_OP_RESHAPE, 1, S(o), r, RIP_TFL_OPT_RESHAPE);
    op->n_opt = 1;
    op->opt[0] = (fbf)FOFF;
    op->new_shape = true;
    op->n_new_shape = 2;
    op->new_shape_v[0] = -1, op->new_shape_v[1] = 48;
    g.n_in = g.n_out = 1;
    g.in[0] = a, g.out[0] = r;
    cr_expect_str_eq(gm_check(&g), "");
    g.op[1].new_shape_v[1] = 24;
    cr_expect_str_eq(gm_check(&g), "operator 1 (RESHAPE): output tensor 3 (r) has shape [1,48], the target shape is "
                                   "[2,24]");
}

Test(tflite, quantize_and_dequantize_at_the_edges_only)
{
    static gmodel g;
    memset(&g, 0, sizeof g);
    int f = gm_act(&g, "f", RIP_TFL_FLOAT32, 2, S(1, 8));
    int q = gm_act(&g, "q", RIP_TFL_INT8, 2, S(1, 8));
    int d = gm_act(&g, "d", RIP_TFL_FLOAT32, 2, S(1, 8));
    gm_op_add(&g, RIP_TFL_OP_QUANTIZE, 1, S(f), q, RIP_TFL_OPT_NONE);
    gm_op_add(&g, RIP_TFL_OP_DEQUANTIZE, 1, S(q), d, RIP_TFL_OPT_NONE);
    g.n_in = g.n_out = 1;
    g.in[0] = f, g.out[0] = d;
    cr_expect_str_eq(gm_check(&g), "");
    g.out[0] = q;   /* the float result is no model output */
    cr_expect_str_eq(gm_check(&g), "operator 1 (DEQUANTIZE): output tensor 2 (d) is float32 but not a model output: "
                                   "float tensors only at the model's edges");
    g.out[0] = d;
    g.t[f].type = RIP_TFL_INT8;   /* int8 -> int8 requantization */
    g.t[f].no_quant = false;
    g.t[f].n_scale = 1;
    g.t[f].scale[0] = 1;
    cr_expect_str_eq(gm_check(&g), "operator 0 (QUANTIZE): input tensor 0 (f) is int8: QUANTIZE is supported only "
                                   "from a float32 model input");
}

/* TFLite's window arithmetic against its definition, counted by brute force. */
Test(tflite, window_arithmetic_by_brute_force)
{
    for (int64_t in = 1; in <= 24; in++)
        for (int64_t k = 1; k <= 7; k++)
            for (int64_t s = 1; s <= 4; s++)
                for (int64_t d = 1; d <= 3; d++) {
                    int64_t eff = (k - 1) * d + 1, out, before, after;
                    /* VALID: window starts p*s with the whole window inside [0, in) */
                    int64_t valid = 0;
                    for (int64_t p = 0; p * s + eff <= in; p++)
                        valid++;
                    bool ok = rip_tfl_window(RIP_TFL_PAD_VALID, in, k, s, d, &out, &before, &after);
                    cr_assert_eq(ok, valid > 0, "VALID in %ld k %ld s %ld d %ld", (long)in, (long)k, (long)s, (long)d);
                    if (ok)
                        cr_assert(out == valid && before == 0 && after == 0, "VALID in %ld k %ld s %ld d %ld",
                                  (long)in, (long)k, (long)s, (long)d);
                    /* SAME: one output per stride step started inside the input; the smallest padding that
                    ** lets the last window end inside the padded input, the odd pixel after */
                    int64_t same = 0;
                    for (int64_t p = 0; p * s < in; p++)
                        same++;
                    cr_assert(rip_tfl_window(RIP_TFL_PAD_SAME, in, k, s, d, &out, &before, &after));
                    int64_t need = 0;
                    while ((same - 1) * s + eff > in + need)
                        need++;
                    cr_assert(out == same && before + after == need && before == need / 2,
                              "SAME in %ld k %ld s %ld d %ld: out %ld (%ld) pad %ld+%ld (%ld)", (long)in, (long)k,
                              (long)s, (long)d, (long)out, (long)same, (long)before, (long)after, (long)need);
                }
    int64_t out, b, a;
    cr_expect_not(rip_tfl_window(RIP_TFL_PAD_SAME, 5, 3, 0, 1, &out, &b, &a), "stride 0");
    cr_expect_not(rip_tfl_window(2, 5, 3, 1, 1, &out, &b, &a), "padding not in the schema");
    cr_expect(rip_tfl_window(RIP_TFL_PAD_SAME, INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX, &out, &b, &a),
              "no overflow at the int32 limits");
}

Test(tflite, tensor_byte_counts_with_overflow)
{
    rip_tfl_tensor t = {.type = RIP_TFL_INT32, .rank = 3, .shape = (int32_t[]){2, 3, 5}};
    int64_t n, bytes;
    cr_assert(rip_tfl_tensor_bytes(&t, &n, &bytes));
    cr_expect(n == 30 && bytes == 120);
    t.shape = (int32_t[]){1 << 15, 1 << 15, 1 << 14};   /* 2^44 elements, 2^46 bytes: the limit */
    cr_expect(rip_tfl_tensor_bytes(&t, &n, &bytes) && bytes == RIP_TFL_TENSOR_BYTES_MAX);
    t.shape = (int32_t[]){1 << 15, 1 << 15, (1 << 14) + 1};
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
    t.shape = (int32_t[]){INT32_MAX, INT32_MAX, INT32_MAX};
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
    t.shape = (int32_t[]){0, INT32_MAX, INT32_MAX};   /* zero elements whatever follows */
    cr_expect(rip_tfl_tensor_bytes(&t, &n, &bytes) && bytes == 0);
    t.shape = (int32_t[]){2, -1, 3};
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
    t.rank = 0;
    cr_expect(rip_tfl_tensor_bytes(&t, &n, &bytes) && n == 1 && bytes == 4, "a scalar");
    t.type = RIP_TFL_STRING;
    cr_expect_not(rip_tfl_tensor_bytes(&t, &n, &bytes));
}
