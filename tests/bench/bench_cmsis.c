/*
** bench_cmsis.c — ripsim's rk_conv2d, rk_depthwise and rk_fully_connected
** against CMSIS-NN's pure-C arm_convolve_s8, arm_depthwise_conv_s8 and
** arm_fully_connected_s8 on real layers, on the host, all compiled by the
** same build with the same flags (issues 9 and 24, Speed).  Usage:
**
**   bench_cmsis LAYERS_DIR [MAX_GMAC [REPS [MATCH]]]
**
** Convolutions: the layers of paper Tab. 6 as `ripsim tables table6`
** selects them (per network the layers of largest real input + output,
** channel-mixing only, as many as Tab. 6 takes from that network; listed
** in results/table6.md).  Depthwise: per network of sweeps/layers the
** depthwise layer (multiplier 1) of largest input + output.  Real models:
** every int8 CONV_2D, DEPTHWISE_CONV_2D (any multiplier) and
** FULLY_CONNECTED geometry of the models tests/model_paths.h visits
** (RIPSIM_MODELS_PATH, RIPSIM_TFLM_PATH; unset: none), each geometry once
** (fc per-tensor, as the models quantize it).  Layers above
** MAX_GMAC billion multiply-accumulates are skipped (default, 0: none);
** with MATCH only the layers whose "network layer" label contains it run.
**
** Each layer gets seeded random int8 data and per-channel quantization;
** each kernel runs at least REPS times (default 3; small layers until
** 0.5 s are spent, at most 25 times), alternating ours and CMSIS-NN, and
** its best time (thread CPU time, printed in microseconds) counts; one timed sample of a layer below
** 2e5 multiply-accumulates is that many calls in a row (inner_calls), the
** time per call reported.  Printed per layer: both times, the ratio
** ours / CMSIS-NN (below 1: ours is faster), and whether the outputs are
** bit-identical; then the median and worst ratio per layer set (Tab. 6,
** real models) and class (conv 1x1, conv k > 1, depthwise, fc).  For 1x1
** layers CMSIS-NN's wrapper (arm_convolve_wrapper_s8, its
** 1x1 path) is timed too, as the call a CMSIS-NN user would make.
** Exit status 0, or 1 when an output differs or a kernel refuses a layer.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arm_nnfunctions.h"

#include "../model_paths.h"
#include "layer_csv.h"
#include "pcg32.h"
#include "rk_conv2d.h"
#include "rk_depthwise.h"
#include "rk_fully_connected.h"
#include "tfl_model.h"

/* How many layers Tab. 6 takes from each network (results/table6.md). */
static const struct { const char *net; int n; } tab6[] = {
    {"resnet50", 11}, {"vgg16", 4}, {"mobilenet_v1", 6}, {"mobilenet_v2", 5},
    {"mcunet_in1", 4}, {"mcunet_in2", 4}, {"mcunet_in3", 4}, {"mcunet_in4", 4},
    {"efficientnet_b0", 4}, {"convnext_tiny", 2}, {"densenet121", 2}, {"shufflenet_v2_x1_0", 1},
    {"squeezenet1_0", 1}, {"squeezenet1_1", 1}, {"xception", 1},
    {"yolov5n", 1}, {"yolov5s", 1}, {"yolov5m", 1}, {"yolov5l", 1}, {"yolov5x", 1},
    {"yolov8n", 1}, {"yolov8s", 1}, {"yolov8m", 1}, {"yolov8l", 1}, {"yolov8x", 1},
    {"yolo11n", 1}, {"yolo11s", 1}, {"yolo11m", 1}, {"yolo11l", 1}, {"yolo11x", 1},
    {"rtdetr_l", 3}, {"inception_v3", 2}, {"deepspeech2", 2},
};
enum { N_TAB6 = sizeof tab6 / sizeof tab6[0] };

/* The two layer sets the summary keeps apart. */
enum { SET_TAB6, SET_MODELS };

typedef struct pick {
    char net[64];
    rip_csv_layer row;   /* conv and depthwise (groups = cin); for fc: cin = in_features, cout = out_features */
    long order;          /* position in its file: ties keep network order */
    int set;             /* SET_TAB6 (and the depthwise layers of sweeps/layers) or SET_MODELS */
    bool fc;             /* a fully connected layer (row.L: cin, cout; h_in = batches) */
} pick;

typedef struct result {
    char label[200];
    bool depthwise, pointwise, fc;
    int set;
    double gmac, t_ours, t_cmsis, t_wrap;   /* seconds; t_wrap < 0: not timed */
    bool same;
} result;

/* CPU time of this thread: on a shared machine, time spent preempted by
** other processes does not count against either kernel. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_footprint(const void *a, const void *b)
{
    const pick *x = a, *y = b;
    int64_t fx = x->row.L.n_in_dense + x->row.L.n_out, fy = y->row.L.n_in_dense + y->row.L.n_out;
    if (fx != fy)
        return fx > fy ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
** Append to *out (n / cap) the `n_conv` largest channel-mixing layers of
** dir/net.csv and, when want_dw, its largest depthwise layer.  A missing
** table is skipped with a note; a bad one stops (returns false).
*/
static bool pick_from(const char *dir, const char *net, int n_conv, bool want_dw, pick **out, size_t *n, size_t *cap)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.csv", dir, net);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "bench_cmsis: %s: cannot open, skipped\n", path);
        return true;
    }
    rip_layer_table t;
    char err[RIP_ERR_LEN];
    rip_status st = rip_layer_csv_read(f, path, false, NULL, &t, err);
    fclose(f);
    if (st != RIP_OK) {
        fprintf(stderr, "bench_cmsis: %s\n", err);
        return false;
    }
    pick *conv = calloc(t.n + 1, sizeof *conv), *dw = calloc(t.n + 1, sizeof *dw);
    size_t nc = 0, nd = 0;
    for (size_t i = 0; conv && dw && i < t.n; i++) {
        const rip_csv_layer *r = &t.rows[i];
        pick p = {.row = *r, .order = (long)i};
        snprintf(p.net, sizeof p.net, "%s", net);
        if (r->groups == 1)
            conv[nc++] = p;
        else if (r->groups == r->L.cin && r->L.cin == r->L.cout)
            dw[nd++] = p;
    }
    bool ok = conv && dw;
    if (ok) {
        qsort(conv, nc, sizeof *conv, by_footprint);
        qsort(dw, nd, sizeof *dw, by_footprint);
        size_t want = (size_t)n_conv < nc ? (size_t)n_conv : nc;
        for (size_t i = 0; ok && i < want + (want_dw && nd > 0); i++) {
            if (*n == *cap) {
                size_t nc2 = *cap ? 2 * *cap : 64;
                pick *q = realloc(*out, nc2 * sizeof *q);
                if (q == NULL) {
                    ok = false;
                    break;
                }
                *out = q;
                *cap = nc2;
            }
            (*out)[(*n)++] = i < want ? conv[i] : dw[0];
        }
    }
    if (!ok)
        fprintf(stderr, "bench_cmsis: out of memory\n");
    free(conv);
    free(dw);
    rip_layer_table_free(&t);
    return ok;
}

static void fill(rip_pcg32 *g, int8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (int8_t)rip_pcg32_next(g);
}

/* Calls per timed sample: a layer below about 2e5 multiply-accumulates
** (e.g. a 6x6 layer or a small fc, microseconds) is called repeatedly so
** that one sample spans some 0.2 ms, well above the clock's and the
** scheduler's noise; at least one call. */
static int inner_calls(double gmac)
{
    double macs = gmac * 1e9;
    int n = macs < 2e5 ? (int)(2e5 / (macs > 1 ? macs : 1)) : 1;
    return n < 1 ? 1 : n > 20000 ? 20000 : n;
}

/*
** Time one layer: ours and CMSIS-NN's generic kernel (and, for 1x1, its
** wrapper), best of reps, and compare their outputs.  false: a kernel
** refused the layer or out of memory (message printed).  Long on purpose
** (over 100 lines): setting up both kernels' buffers side by side keeps
** the comparison fair to read.
*/
static bool run_layer(const pick *pk, int reps, result *res)
{
    const rip_layer *L = &pk->row.L;
    bool dw = pk->row.groups != 1;
    memset(res, 0, sizeof *res);
    snprintf(res->label, sizeof res->label, "%s %s %ld->%ld %ldx%ld k%ldx%ld s%ld p%ld/%ld/%ld/%ld", pk->net,
             pk->row.name, (long)L->cin, (long)L->cout, (long)L->h_in, (long)L->w_in, (long)L->k_h, (long)L->k_w,
             (long)L->s_h, (long)L->p_top, (long)L->p_bottom, (long)L->p_left, (long)L->p_right);
    res->depthwise = dw;
    res->set = pk->set;
    res->pointwise = !dw && L->k_h == 1 && L->k_w == 1;
    res->t_wrap = -1;
    double taps = dw ? (double)(L->k_h * L->k_w) : (double)(L->k_h * L->k_w * L->cin);
    res->gmac = (double)L->n_out * taps * 1e-9;

    size_t n_in = (size_t)L->n_in_dense, n_out = (size_t)L->n_out;
    size_t n_f = (size_t)(L->k_h * L->k_w) * (size_t)(dw ? L->cout : L->cin * L->cout);
    int32_t cout = (int32_t)L->cout;
    int8_t *in = malloc(n_in), *flt = malloc(n_f), *o1 = malloc(n_out), *o2 = malloc(n_out), *o3 = malloc(n_out);
    int32_t *bias = malloc((size_t)cout * sizeof *bias), *mult = malloc((size_t)cout * sizeof *mult);
    int32_t *shift = malloc((size_t)cout * sizeof *shift);
    int8_t *scratch = NULL, *cbuf = NULL, *wbuf = NULL;
    bool ok = in && flt && o1 && o2 && o3 && bias && mult && shift;
    if (!ok) {
        fprintf(stderr, "bench_cmsis: %s: out of memory\n", res->label);
        goto done;
    }
    rip_pcg32 g;
    rip_pcg32_seed(&g, 20261130u, (uint64_t)pk->order);
    fill(&g, in, n_in);
    fill(&g, flt, n_f);
    for (int32_t i = 0; i < cout; i++) {
        bias[i] = (int32_t)rip_pcg32_range(&g, -20000, 20000);
        mult[i] = (int32_t)rip_pcg32_range(&g, 1 << 30, INT32_MAX);
        shift[i] = (int32_t)rip_pcg32_range(&g, -12, -6);
    }

    rk_conv_params p = {
        .k_h = (int32_t)L->k_h, .k_w = (int32_t)L->k_w, .s_h = (int32_t)L->s_h, .s_w = (int32_t)L->s_w,
        .d_h = (int32_t)L->d_h, .d_w = (int32_t)L->d_w,
        .p_top = (int32_t)L->p_top, .p_bottom = (int32_t)L->p_bottom,
        .p_left = (int32_t)L->p_left, .p_right = (int32_t)L->p_right,
        .input_offset = 3, .output_offset = -5, .act = {.min = -128, .max = 127},
    };
    rk_quant q = {.multiplier = mult, .shift = shift};
    rk_dims di = {.h = (int32_t)L->h_in, .w = (int32_t)L->w_in, .c = (int32_t)L->cin};
    rk_dims dout = {.h = (int32_t)L->h_out, .w = (int32_t)L->w_out, .c = cout};
    size_t ssz = dw ? rk_depthwise_buffer_size(&p, di, dout) : rk_conv2d_buffer_size(&p, di, dout);
    scratch = malloc(ssz ? ssz : 1);

    cmsis_nn_dims id = {.n = 1, .h = di.h, .w = di.w, .c = di.c};
    cmsis_nn_dims bd = {.n = 1, .h = 1, .w = 1, .c = cout};
    cmsis_nn_dims od = {.n = 1, .h = dout.h, .w = dout.w, .c = cout};
    cmsis_nn_per_channel_quant_params qp = {.multiplier = mult, .shift = shift};
    cmsis_nn_tile stride = {.w = p.s_w, .h = p.s_h}, pad = {.w = p.p_left, .h = p.p_top};
    cmsis_nn_tile dil = {.w = p.d_w, .h = p.d_h};
    cmsis_nn_activation act = {.min = -128, .max = 127};
    cmsis_nn_conv_params cp = {.input_offset = 3, .output_offset = -5, .stride = stride, .padding = pad,
                               .dilation = dil, .activation = act};
    cmsis_nn_dw_conv_params dp = {.input_offset = 3, .output_offset = -5, .ch_mult = (int32_t)(L->cout / L->cin),
                                  .stride = stride, .padding = pad, .dilation = dil, .activation = act};
    cmsis_nn_dims fd = dw ? (cmsis_nn_dims){.n = 1, .h = p.k_h, .w = p.k_w, .c = cout}
                          : (cmsis_nn_dims){.n = cout, .h = p.k_h, .w = p.k_w, .c = di.c};
    int32_t csz = dw ? 0 : arm_convolve_s8_get_buffer_size(&id, &fd);
    int32_t wsz = res->pointwise ? arm_convolve_wrapper_s8_get_buffer_size(&cp, &id, &fd, &od) : 0;
    cbuf = malloc(csz > 0 ? (size_t)csz : 1);
    wbuf = malloc(wsz > 0 ? (size_t)wsz : 1);
    if (scratch == NULL || cbuf == NULL || wbuf == NULL) {
        fprintf(stderr, "bench_cmsis: %s: out of memory\n", res->label);
        ok = false;
        goto done;
    }
    cmsis_nn_context cctx = {.buf = cbuf, .size = csz}, wctx = {.buf = wbuf, .size = wsz};

    res->t_ours = res->t_cmsis = res->t_wrap = 1e30;
    /* At least reps rounds; small layers repeat until 0.5 s have been spent
    ** (at most 25 rounds), so that the best time is not one noisy sample. */
    double spent = 0;
    const int inner = inner_calls(res->gmac);
    for (int r = 0; r < reps || (spent < 0.5 && r < 25); r++) {
        rk_status rs = RK_OK;
        arm_cmsis_nn_status cs = ARM_CMSIS_NN_SUCCESS, ws = ARM_CMSIS_NN_SUCCESS;
        double t0 = now();
        for (int k = 0; k < inner; k++)
            rs |= dw ? rk_depthwise(&p, &q, di, in, flt, bias, dout, o1)
                     : rk_conv2d(&p, &q, di, in, flt, bias, dout, o1, scratch);
        double t1 = now();
        for (int k = 0; k < inner; k++)
            cs |= dw ? arm_depthwise_conv_s8(&cctx, &dp, &qp, &id, in, &fd, flt, &bd, bias, &od, o2)
                     : arm_convolve_s8(&cctx, &cp, &qp, &id, in, &fd, flt, &bd, bias, NULL, &od, o2);
        double t2 = now();
        if (res->pointwise) {
            for (int k = 0; k < inner; k++)
                ws |= arm_convolve_wrapper_s8(&wctx, &cp, &qp, &id, in, &fd, flt, &bd, bias, &od, o3);
            double t3 = now();
            if ((t3 - t2) / inner < res->t_wrap)
                res->t_wrap = (t3 - t2) / inner;
        }
        if (rs != RK_OK || cs != ARM_CMSIS_NN_SUCCESS || ws != ARM_CMSIS_NN_SUCCESS) {
            fprintf(stderr, "bench_cmsis: %s: refused (ours %d, CMSIS-NN %d, wrapper %d)\n", res->label, (int)rs,
                    (int)cs, (int)ws);
            ok = false;
            goto done;
        }
        spent += now() - t0;
        if ((t1 - t0) / inner < res->t_ours)
            res->t_ours = (t1 - t0) / inner;
        if ((t2 - t1) / inner < res->t_cmsis)
            res->t_cmsis = (t2 - t1) / inner;
    }
    if (!res->pointwise)
        res->t_wrap = -1;
    res->same = memcmp(o1, o2, n_out) == 0 && (!res->pointwise || memcmp(o1, o3, n_out) == 0);
done:
    free(in);
    free(flt);
    free(o1);
    free(o2);
    free(o3);
    free(bias);
    free(mult);
    free(shift);
    free(scratch);
    free(cbuf);
    free(wbuf);
    return ok;
}

/* Append p to *out (n / cap); false when out of memory. */
static bool push(pick **out, size_t *n, size_t *cap, const pick *p)
{
    if (*n == *cap) {
        size_t c2 = *cap ? 2 * *cap : 64;
        pick *q = realloc(*out, c2 * sizeof *q);
        if (q == NULL)
            return false;
        *out = q;
        *cap = c2;
    }
    (*out)[(*n)++] = *p;
    return true;
}

typedef struct model_ctx {
    pick **out;
    size_t *n, *cap;
    size_t first;      /* the first model layer in *out: duplicates are looked for from there */
    long layers, dups; /* int8 conv, depthwise and fc operators seen; of them, geometries already listed */
    bool ok;
} model_ctx;

static bool same_geometry(const pick *a, const pick *b)
{
    const rip_layer *x = &a->row.L, *y = &b->row.L;
    return a->fc == b->fc && a->row.groups == b->row.groups && x->cin == y->cin && x->cout == y->cout &&
           x->h_in == y->h_in && x->w_in == y->w_in && x->k_h == y->k_h && x->k_w == y->k_w && x->s_h == y->s_h &&
           x->s_w == y->s_w && x->d_h == y->d_h && x->d_w == y->d_w && x->p_top == y->p_top &&
           x->p_bottom == y->p_bottom && x->p_left == y->p_left && x->p_right == y->p_right;
}

/* TFLite's padding of one axis: SAME pads (out - 1) s + keff - in, the
** smaller half first; VALID none. */
static void tfl_pad(int padding, int64_t in, int64_t out, int64_t k, int64_t s, int64_t d, int64_t *lo, int64_t *hi)
{
    int64_t total = (out - 1) * s + d * (k - 1) + 1 - in;
    if (padding != RIP_TFL_PAD_SAME || total < 0)
        total = 0;
    *lo = total / 2;
    *hi = total - *lo;
}

/*
** The int8 CONV_2D (not grouped), DEPTHWISE_CONV_2D and FULLY_CONNECTED
** operators of one model, as picks of SET_MODELS; a geometry already
** listed (by this or an earlier model) is counted, not repeated: the same
** shape times the same.
*/
static void pick_model(const char *path, void *vctx)
{
    model_ctx *cx = vctx;
    rip_tfl_model m;
    char err[RIP_ERR_LEN];
    if (rip_tfl_model_load(path, &m, err) != RIP_OK) {
        fprintf(stderr, "bench_cmsis: %s, skipped\n", err);
        return;
    }
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (size_t si = 0; si < m.n_subgraphs && cx->ok; si++) {
        const rip_tfl_subgraph *sg = &m.subgraphs[si];
        for (size_t oi = 0; oi < sg->n_operators && cx->ok; oi++) {
            const rip_tfl_operator *op = &sg->operators[oi];
            const rip_tfl_opcode *code = rip_tfl_op_code(&m, op);
            if (code == NULL || op->n_inputs < 2 || op->n_outputs < 1 || !op->options_decoded)
                continue;
            const int32_t b = code->builtin;
            if (b != RIP_TFL_OP_CONV_2D && b != RIP_TFL_OP_DEPTHWISE_CONV_2D && b != RIP_TFL_OP_FULLY_CONNECTED)
                continue;
            const int32_t ti = op->inputs[0], tf = op->inputs[1], to = op->outputs[0];
            if (ti < 0 || tf < 0 || to < 0 || (size_t)ti >= sg->n_tensors || (size_t)tf >= sg->n_tensors ||
                (size_t)to >= sg->n_tensors)
                continue;
            const rip_tfl_tensor *x = &sg->tensors[ti], *w = &sg->tensors[tf], *y = &sg->tensors[to];
            if (x->type != RIP_TFL_INT8 || w->type != RIP_TFL_INT8 || y->type != RIP_TFL_INT8)
                continue;
            pick p = {.order = (long)oi, .set = SET_MODELS, .fc = b == RIP_TFL_OP_FULLY_CONNECTED};
            snprintf(p.net, sizeof p.net, "%.*s", (int)(strlen(base) > 7 ? strlen(base) - 7 : strlen(base)), base);
            snprintf(p.row.name, sizeof p.row.name, "op%zu", oi);
            rip_layer *L = &p.row.L;
            if (p.fc) {
                if (w->rank != 2 || w->shape[1] < 1)
                    continue;
                int64_t nx = 1;
                for (size_t d = 0; d < x->rank; d++)
                    nx *= x->shape[d];
                p.row.groups = 1;
                *L = rip_layer_make(w->shape[1], w->shape[0], nx / w->shape[1], 1, 1, 1, 1, 1, 1, 1, 0, 0);
            } else {
                if (x->rank != 4 || w->rank != 4 || y->rank != 4 || x->shape[0] != 1)
                    continue;
                const bool dw = b == RIP_TFL_OP_DEPTHWISE_CONV_2D;
                if (!dw && w->shape[3] != x->shape[3])
                    continue;   /* a grouped CONV_2D: neither kernel's case */
                const int32_t s_h = dw ? op->opt.dw.stride_h : op->opt.conv.stride_h;
                const int32_t s_w = dw ? op->opt.dw.stride_w : op->opt.conv.stride_w;
                const int32_t d_h = dw ? op->opt.dw.dilation_h : op->opt.conv.dilation_h;
                const int32_t d_w = dw ? op->opt.dw.dilation_w : op->opt.conv.dilation_w;
                const int padding = dw ? op->opt.dw.padding : op->opt.conv.padding;
                *L = rip_layer_make(x->shape[3], y->shape[3], x->shape[1], x->shape[2], w->shape[1], w->shape[2], s_h,
                                    s_w, d_h, d_w, 0, 0);
                tfl_pad(padding, L->h_in, y->shape[1], L->k_h, s_h, d_h, &L->p_top, &L->p_bottom);
                tfl_pad(padding, L->w_in, y->shape[2], L->k_w, s_w, d_w, &L->p_left, &L->p_right);
                p.row.groups = dw ? L->cin : 1;
                if (dw && L->cout % L->cin != 0)
                    continue;
            }
            if (rip_layer_derive(L, err) != 0 || (!p.fc && (L->h_out != y->shape[1] || L->w_out != y->shape[2]))) {
                fprintf(stderr, "bench_cmsis: %s op %zu: geometry not understood, skipped\n", path, oi);
                continue;
            }
            cx->layers++;
            bool dup = false;
            for (size_t i = cx->first; i < *cx->n && !dup; i++)
                dup = same_geometry(&(*cx->out)[i], &p);
            if (dup)
                cx->dups++;
            else if (!push(cx->out, cx->n, cx->cap, &p))
                cx->ok = false;
        }
    }
    rip_tfl_model_free(&m);
}

/*
** Time a fully connected layer (row.L: cin = in_features, cout =
** out_features, h_in = batches), per-tensor quantization as the models'
** FULLY_CONNECTED operators use: rk_fully_connected against
** arm_fully_connected_s8, best of reps as in run_layer.
*/
static bool run_fc(const pick *pk, int reps, result *res)
{
    const rip_layer *L = &pk->row.L;
    memset(res, 0, sizeof *res);
    snprintf(res->label, sizeof res->label, "%s %s fc %ld->%ld batches %ld", pk->net, pk->row.name, (long)L->cin,
             (long)L->cout, (long)L->h_in);
    res->fc = true;
    res->set = pk->set;
    res->t_wrap = -1;
    const int32_t nin = (int32_t)L->cin, nout = (int32_t)L->cout, nb = (int32_t)L->h_in;
    res->gmac = (double)nb * nin * nout * 1e-9;
    int8_t *in = malloc((size_t)nb * nin), *wt = malloc((size_t)nin * nout);
    int8_t *o1 = malloc((size_t)nb * nout), *o2 = malloc((size_t)nb * nout);
    int32_t *bias = malloc((size_t)nout * sizeof *bias);
    bool ok = in && wt && o1 && o2 && bias;
    if (ok) {
        rip_pcg32 g;
        rip_pcg32_seed(&g, 20261204u, (uint64_t)pk->order);
        fill(&g, in, (size_t)nb * nin);
        fill(&g, wt, (size_t)nin * nout);
        for (int32_t i = 0; i < nout; i++)
            bias[i] = (int32_t)rip_pcg32_range(&g, -20000, 20000);
        int32_t mult = (int32_t)rip_pcg32_range(&g, 1 << 30, INT32_MAX), shift = (int32_t)rip_pcg32_range(&g, -12, -6);
        rk_fc_params p = {.batches = nb, .in_features = nin, .out_features = nout, .input_offset = 3,
                          .output_offset = -5, .act = {.min = -128, .max = 127}, .per_channel = false};
        rk_quant q = {.multiplier = &mult, .shift = &shift};
        cmsis_nn_fc_params fp = {.input_offset = 3, .filter_offset = 0, .output_offset = -5,
                                 .activation = {.min = -128, .max = 127}};
        cmsis_nn_per_tensor_quant_params qp = {.multiplier = mult, .shift = shift};
        cmsis_nn_dims id = {.n = nb, .h = 1, .w = 1, .c = nin}, fd = {.n = nin, .h = 1, .w = 1, .c = nout};
        cmsis_nn_dims bd = {.n = 1, .h = 1, .w = 1, .c = nout}, od = {.n = nb, .h = 1, .w = 1, .c = nout};
        /* 0 on the pure-C path (its kernel sums are an MVE-only buffer) */
        cmsis_nn_context ctx = {.buf = NULL, .size = arm_fully_connected_s8_get_buffer_size(&fd)};
        res->t_ours = res->t_cmsis = 1e30;
        double spent = 0;
        const int inner = inner_calls(res->gmac);
        for (int r = 0; ok && (r < reps || (spent < 0.5 && r < 25)); r++) {
            rk_status rs = RK_OK;
            arm_cmsis_nn_status cs = ARM_CMSIS_NN_SUCCESS;
            double t0 = now();
            for (int k = 0; k < inner; k++)
                rs |= rk_fully_connected(&p, &q, in, wt, bias, o1);
            double t1 = now();
            for (int k = 0; k < inner; k++)
                cs |= arm_fully_connected_s8(&ctx, &fp, &qp, &id, in, &fd, wt, &bd, bias, &od, o2);
            double t2 = now();
            if (rs != RK_OK || cs != ARM_CMSIS_NN_SUCCESS || ctx.size != 0) {
                fprintf(stderr, "bench_cmsis: %s: refused (ours %d, CMSIS-NN %d)\n", res->label, (int)rs, (int)cs);
                ok = false;
            }
            spent += t2 - t0;
            if ((t1 - t0) / inner < res->t_ours)
                res->t_ours = (t1 - t0) / inner;
            if ((t2 - t1) / inner < res->t_cmsis)
                res->t_cmsis = (t2 - t1) / inner;
        }
        res->same = memcmp(o1, o2, (size_t)nb * nout) == 0;
    } else {
        fprintf(stderr, "bench_cmsis: %s: out of memory\n", res->label);
    }
    free(in);
    free(wt);
    free(o1);
    free(o2);
    free(bias);
    return ok;
}

/* Median and worst (largest) ratio ours / CMSIS-NN of the results matching a class. */
static void summary(const char *what, const result *r, size_t n, int set, int cls)
{
    double *v = malloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    if (v == NULL)
        return;
    const char *worst = "";
    double wv = 0, t_ours = 0, t_cm = 0;
    for (size_t i = 0; i < n; i++) {
        const bool conv = !r[i].depthwise && !r[i].fc;
        bool in = cls == 0   ? conv
                  : cls == 1 ? conv && r[i].pointwise
                  : cls == 2 ? conv && !r[i].pointwise
                  : cls == 3 ? r[i].depthwise
                             : r[i].fc;
        if (!in || r[i].set != set)
            continue;
        double x = r[i].t_ours / r[i].t_cmsis;
        v[k++] = x;
        t_ours += r[i].t_ours;
        t_cm += r[i].t_cmsis;
        if (x > wv) {
            wv = x;
            worst = r[i].label;
        }
    }
    if (k > 0) {
        qsort(v, k, sizeof *v, by_double);
        double med = k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
        printf("%-34s %3zu layers: median %.3f, worst %.3f (%s), total time %.3f\n", what, k, med, wv, worst,
               t_ours / t_cm);
    }
    free(v);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: bench_cmsis LAYERS_DIR [MAX_GMAC [REPS [MATCH]]]\n");
        return 64;
    }
    const char *dir = argv[1];
    double max_gmac = argc > 2 ? atof(argv[2]) : 0;
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    const char *match = argc > 4 ? argv[4] : NULL;
    if (reps < 1)
        reps = 1;

    pick *picks = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < N_TAB6; i++)
        if (!pick_from(dir, tab6[i].net, tab6[i].n, true, &picks, &n, &cap))
            return 1;
    /* Depthwise layers of networks outside Tab. 6's list. */
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "bench_cmsis: %s: cannot open the layer folder\n", dir);
        return 1;
    }
    struct dirent *e;
    char names[64][64];
    size_t n_names = 0;
    while ((e = readdir(d)) != NULL && n_names < 64) {
        size_t len = strlen(e->d_name);
        if (len < 5 || len >= 64 || strcmp(e->d_name + len - 4, ".csv") != 0)
            continue;
        char net[64];
        snprintf(net, sizeof net, "%.*s", (int)(len - 4), e->d_name);
        bool known = false;
        for (size_t i = 0; i < N_TAB6; i++)
            known = known || strcmp(tab6[i].net, net) == 0;
        if (!known)
            snprintf(names[n_names++], sizeof names[0], "%s", net);
    }
    closedir(d);
    for (size_t i = 0; i < n_names; i++)
        if (!pick_from(dir, names[i], 0, true, &picks, &n, &cap))
            return 1;

    /* The conv, depthwise and fc layers of the real models (tests/model_paths.h). */
    model_ctx mc = {.out = &picks, .n = &n, .cap = &cap, .first = n, .ok = true};
    long n_models = each_model(pick_model, &mc);
    if (!mc.ok) {
        fprintf(stderr, "bench_cmsis: out of memory\n");
        return 1;
    }
    printf("real models: %ld read, %ld int8 conv/depthwise/fc operators, %ld of them repeat a listed geometry\n",
           n_models, mc.layers, mc.dups);

    result *res = calloc(n ? n : 1, sizeof *res);
    if (res == NULL)
        return 1;
    size_t nr = 0;
    int rc = 0;
    printf("%-70s %9s %11s %11s %7s %11s %7s %s\n", "layer", "GMAC", "ours us", "CMSIS us", "ratio", "wrapper us",
           "ratio", "bit-exact");
    for (size_t i = 0; i < n; i++) {
        const rip_layer *L = &picks[i].row.L;
        double taps = picks[i].row.groups != 1 ? (double)(L->k_h * L->k_w) : (double)(L->k_h * L->k_w * L->cin);
        double gmac = picks[i].fc ? (double)L->h_in * (double)L->cin * (double)L->cout * 1e-9
                                  : (double)L->n_out * taps * 1e-9;
        if (max_gmac > 0 && gmac > max_gmac)
            continue;
        char label[200];
        snprintf(label, sizeof label, "%s %s", picks[i].net, picks[i].row.name);
        if (match != NULL && strstr(label, match) == NULL)
            continue;
        if (!(picks[i].fc ? run_fc(&picks[i], reps, &res[nr]) : run_layer(&picks[i], reps, &res[nr]))) {
            rc = 1;
            continue;
        }
        const result *r = &res[nr++];
        if (r->t_wrap >= 0)
            printf("%-70.70s %9.3f %11.2f %11.2f %7.3f %11.2f %7.3f %s\n", r->label, r->gmac, 1e6 * r->t_ours,
                   1e6 * r->t_cmsis, r->t_ours / r->t_cmsis, 1e6 * r->t_wrap, r->t_ours / r->t_wrap,
                   r->same ? "yes" : "NO");
        else
            printf("%-70.70s %9.3f %11.2f %11.2f %7.3f %11s %7s %s\n", r->label, r->gmac, 1e6 * r->t_ours,
                   1e6 * r->t_cmsis, r->t_ours / r->t_cmsis, "-", "-", r->same ? "yes" : "NO");
        fflush(stdout);
        if (!r->same)
            rc = 1;
    }
    printf("\nratio = ours / CMSIS-NN pure C (arm_convolve_s8, arm_depthwise_conv_s8, arm_fully_connected_s8); "
           "below 1: ours is faster\n");
    static const char *const set_name[] = {"Tab. 6", "real models"};
    for (int set = SET_TAB6; set <= SET_MODELS; set++) {
        char what[64];
        static const char *const cls_name[] = {"conv2d, all", "conv2d, 1x1", "conv2d, k > 1", "depthwise",
                                               "fully connected"};
        for (int cls = 0; cls < 5; cls++) {
            snprintf(what, sizeof what, "%s: %s", set_name[set], cls_name[cls]);
            summary(what, res, nr, set, cls);
        }
    }
    free(res);
    free(picks);
    return rc;
}
